/**
 * The driver's cuGetProcAddress versions, from cudaTypedefs.h: every `PFN_<name>_v<version>[_ptsz|_ptds]` typedef
 * is a function-pointer type of one ABI version of `<name>`. A declared function resolves to the newest version
 * whose signature (canonical types) equals its own; its per-thread-default-stream variant to the newest `_ptsz`
 * or `_ptds` one.
 */
import { type Clang, type CType, type Cursor, TypeKind } from "../libclang/api.ts";

/** One PFN typedef. */
export interface PfnEntry {
  base: string;
  version: number;
  ptds: boolean;
  signature: string;
}

/** The canonical signature of a function type, as comparable text. */
export function signatureOf(clang: Clang, fnType: CType): string {
  const n = clang.fnArgCount(fnType);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(clang.typeSpelling(clang.canonical(clang.fnArg(fnType, i))));
  return `${clang.typeSpelling(clang.canonical(clang.fnResult(fnType)))}(${parts.join(",")})`;
}

/** Reads a PFN typedef declaration, or undefined if the name is not of that form. */
export function readPfn(clang: Clang, decl: Cursor): PfnEntry | undefined {
  const m = /^PFN_(\w+?)_v(\d+)(_ptsz|_ptds)?$/.exec(clang.spelling(decl));
  if (!m) return undefined;
  let t = clang.canonical(clang.typedefUnderlying(decl));
  if (clang.typeKind(t) !== TypeKind.Pointer) return undefined;
  t = clang.canonical(clang.pointee(t));
  if (clang.typeKind(t) !== TypeKind.FunctionProto) return undefined;
  return { base: m[1]!, version: Number(m[2]), ptds: m[3] !== undefined, signature: signatureOf(clang, t) };
}

/**
 * Finds the proc-address name and versions for a function known by `names` (its C name, then its exported
 * symbol), or undefined if no PFN typedef matches.
 */
export function matchProcAddress(
  pfns: Map<string, PfnEntry[]>,
  names: string[],
  signature: string,
): { name: string; version: number; ptdsVersion?: number } | undefined {
  const bases = names.flatMap((n) => [n, n.replace(/_v\d+$/, "")]).filter((b, i, a) => a.indexOf(b) === i);
  for (const base of bases) {
    const entries = (pfns.get(base) ?? []).filter((e) => e.signature === signature);
    const normal = entries.filter((e) => !e.ptds).map((e) => e.version);
    if (normal.length === 0) continue;
    const ptds = entries.filter((e) => e.ptds).map((e) => e.version);
    const out: { name: string; version: number; ptdsVersion?: number } = { name: base, version: Math.max(...normal) };
    if (ptds.length > 0) out.ptdsVersion = Math.max(...ptds);
    return out;
  }
  return undefined;
}
