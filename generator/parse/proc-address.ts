/**
 * The driver's cuGetProcAddress versions, from cudaTypedefs.h: every `PFN_<name>_v<version>[_ptsz|_ptds]` typedef
 * is a function-pointer type of one ABI version of `<name>`. This module reads them with libclang; which version
 * each declared symbol resolves at (the newest of its signature, or its own ABI's where the headers declare several
 * symbols of one signature) is proc-versions.ts.
 */
import { type Clang, type CType, type Cursor, TypeKind } from "../libclang/api.ts";
import type { PfnEntry } from "./proc-versions.ts";

export { matchProcAddress, type PfnEntry, procAddressBase, symbolAbi, type SymbolRank, symbolRanks } from "./proc-versions.ts";

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
