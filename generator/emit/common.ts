/** Shared pieces of the emitters: type mapping, doc comments, identifiers. */
import type { IrDoc, IrLibrary, IrType } from "../ir.ts";
import { resolveTypedefs } from "../parse/context.ts";

/**
 * How emitted files name the package's modules (src/tables-runtime, src/ffi/types): `prefix` is the path from an
 * emitted library folder (OUT/cuda-X.Y/<lib>/) to the package's src/ folder, `ext` the modules' extension (.ts in
 * the repository, .js in the installed package's dist/src). Set once per run by generator/run.ts; the default is
 * what generated/ commits.
 */
let source: { prefix: string; ext: string; specifier?: string } = { prefix: "../../../src", ext: ".ts" };

/**
 * Sets how emitted files import the package's modules (see {@link sourceModule}): by a path (`prefix`, `ext`), or,
 * with `specifier`, every one of them through that one entry point (the installed package's `cuda-ts/tables-runtime`).
 */
export function setSourceRoot(prefix: string, ext: ".ts" | ".js", specifier?: string): void {
  source = specifier === undefined ? { prefix, ext } : { prefix, ext, specifier };
}

/** The specifier of a package module (`tables-runtime/record`, `ffi/types`) as emitted files import it. */
export function sourceModule(path: string): string {
  return source.specifier ?? `${source.prefix}/${path}${source.ext}`;
}

const RESERVED = new Set(
  "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package private protected public await arguments eval constructor".split(
    " ",
  ),
);

/** A safe JavaScript identifier for a C parameter or field name. */
export function safeIdent(name: string): string {
  return RESERVED.has(name) ? `${name}_` : name;
}

/** Escapes text for a block comment. */
export function commentText(s: string): string {
  return s.replace(/\*\//g, "*\\/");
}

/** Renders lines as a JSDoc block at an indent. */
export function docBlock(lines: string[], indent = ""): string {
  const ls = lines.flatMap((l) => commentText(l).split("\n")).map((l) => l.replace(/\s+$/, ""));
  while (ls.length > 0 && ls[ls.length - 1] === "") ls.pop();
  if (ls.length === 0) return "";
  if (ls.length === 1) return `${indent}/** ${ls[0]} */\n`;
  return `${indent}/**\n${ls.map((l) => (l === "" ? `${indent} *` : `${indent} * ${l}`)).join("\n")}\n${indent} */\n`;
}

/** TSDoc lines for a short doc plus a deprecation. */
export function shortDoc(doc: string | undefined, deprecated: string | undefined, extra: string[] = []): string[] {
  const lines: string[] = [];
  if (doc) lines.push(doc);
  lines.push(...extra);
  if (deprecated !== undefined) lines.push(`@deprecated${deprecated ? " " + deprecated.replace(/\n/g, " ") : ""}`);
  return lines;
}

/** TSDoc lines for a function. `params` lists the parameters to document (by C name); `returns` overrides. */
export function functionDoc(
  doc: IrDoc | undefined,
  deprecated: string | undefined,
  params: string[],
  returns: string | undefined,
  extra: string[] = [],
): string[] {
  const lines: string[] = [];
  if (doc?.summary) lines.push(doc.summary, "");
  lines.push(...extra);
  for (const name of params) {
    const d = doc?.params.find((p) => p.name === name);
    lines.push(`@param ${safeIdent(name)} - ${d?.text ? d.text.replace(/\n/g, " ") : "(undocumented in the header)"}`);
  }
  const ret = returns ?? doc?.returns;
  if (ret) lines.push(`@returns ${ret}`);
  for (const n of doc?.notes ?? []) lines.push(`@remarks ${n}`);
  if (doc && doc.see.length > 0) lines.push(`@see ${doc.see.join(", ")}`);
  if (deprecated !== undefined || doc?.deprecated !== undefined) {
    const text = (deprecated || doc?.deprecated || "").replace(/\n/g, " ");
    lines.push(`@deprecated${text ? " " + text : ""}`);
  }
  return lines;
}

/** Which generated file of a library declares a name. */
export type DeclFile = "enums" | "types" | "records";

/** The libraries' knowledge the emitters need to refer to a type by name. */
export interface TypeNames {
  /** Names declared by this library → the file that declares them. */
  readonly local: Map<string, DeclFile>;
  /** Names another library declares → that library. */
  readonly foreign: Map<string, string>;
  /** Typedef names by category (for all libraries of the run). */
  readonly typedefCategory: Map<string, string>;
}

/** Builds the name tables for one library, given every library of the run. */
export function typeNames(lib: IrLibrary, all: IrLibrary[]): TypeNames {
  const local = new Map<string, DeclFile>();
  const foreign = new Map<string, string>();
  const typedefCategory = new Map<string, string>();
  for (const l of all) {
    const names: [string, DeclFile][] = [];
    for (const e of l.enums) for (const n of [e.name, ...e.aliases]) names.push([n, "enums"]);
    for (const t of l.typedefs) {
      names.push([t.name, "types"]);
      typedefCategory.set(t.name, t.category);
    }
    for (const r of l.records) for (const n of [r.name, ...r.aliases]) names.push([n, "records"]);
    for (const [n, file] of names) {
      if (l.library === lib.library) {
        if (!local.has(n)) local.set(n, file);
      } else if (!foreign.has(n)) foreign.set(n, l.library);
    }
  }
  return { local, foreign, typedefCategory };
}

/** Tracks the names one generated file uses from sibling files and from other libraries. */
export class ImportTracker {
  private readonly foreignUsed = new Map<string, Map<string, boolean>>();
  private readonly localUsed = new Map<DeclFile, Map<string, boolean>>();
  constructor(
    readonly names: TypeNames,
    readonly file: DeclFile | "functions" | "checked" | "index",
  ) {}

  /** The TypeScript name for a declared type name (recording the import), or undefined if nobody declares it. */
  ref(name: string, asValue = false): string | undefined {
    const file = this.names.local.get(name);
    if (file !== undefined) {
      if (file !== this.file) {
        let m = this.localUsed.get(file);
        if (!m) this.localUsed.set(file, (m = new Map()));
        m.set(name, (m.get(name) ?? false) || asValue);
      }
      return name;
    }
    const lib = this.names.foreign.get(name);
    if (lib === undefined) return undefined;
    let m = this.foreignUsed.get(lib);
    if (!m) this.foreignUsed.set(lib, (m = new Map()));
    m.set(name, (m.get(name) ?? false) || asValue);
    return name;
  }

  /** Import lines for every name used. */
  lines(): string[] {
    const out: string[] = [];
    for (const file of ["enums", "types", "records"] as const) {
      const m = this.localUsed.get(file);
      if (!m || m.size === 0) continue;
      const names = [...m.keys()].sort();
      const anyValue = names.some((n) => m.get(n));
      if (anyValue) {
        out.push(`import { ${names.map((n) => (m.get(n) ? n : `type ${n}`)).join(", ")} } from "./${file}.ts";`);
      } else out.push(`import type { ${names.join(", ")} } from "./${file}.ts";`);
    }
    for (const [lib, m] of [...this.foreignUsed.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const names = [...m.keys()].sort();
      if (names.some((n) => m.get(n))) {
        out.push(`import { ${names.map((n) => (m.get(n) ? n : `type ${n}`)).join(", ")} } from "../${lib}/index.ts";`);
      } else out.push(`import type { ${names.join(", ")} } from "../${lib}/index.ts";`);
    }
    return out;
  }
}

/** Where a type is used. */
export type Position = "param" | "result" | "field";

/** The TypeScript type of a C type at a position (raw call style). */
export function tsType(t: IrType, pos: Position, imp: ImportTracker): string {
  switch (t.kind) {
    case "void":
      return pos === "result" ? "void" : "undefined";
    case "bool":
      return "boolean";
    case "int":
      return t.size === 8 ? (pos === "param" ? "bigint | number" : "bigint") : "number";
    case "float":
      return "number";
    case "pointer":
    case "array":
      return "Pointer";
    case "function":
      return "Pointer";
    case "typedef": {
      const n = imp.ref(t.name);
      if (n !== undefined) {
        const cat = imp.names.typedefCategory.get(t.name);
        // A 64-bit scalar typedef (CUdeviceptr) is a bigint; parameters take numbers too.
        if (pos === "param" && cat === "scalar") {
          const r = resolveTypedefs(t);
          if (r.kind === "int" && r.size === 8) return `${n} | number`;
        }
        const r = resolveTypedefs(t);
        if (r.kind === "record") return pos === "field" ? n : "Uint8Array";
        return n;
      }
      return tsType(t.target, pos, imp);
    }
    case "enum":
      return imp.ref(t.name) ?? (t.size === 8 ? "bigint" : "number");
    case "record":
      if (pos === "field") return imp.ref(t.name) ?? "Uint8Array";
      return "Uint8Array";
    case "unsupported":
      return "never";
  }
}

/** The typed array class of each scalar FFI type. */
export const TYPED_ARRAY: Record<string, string> = {
  i8: "Int8Array",
  u8: "Uint8Array",
  i16: "Int16Array",
  u16: "Uint16Array",
  i32: "Int32Array",
  u32: "Uint32Array",
  i64: "BigInt64Array",
  u64: "BigUint64Array",
  f32: "Float32Array",
  f64: "Float64Array",
  bool: "Uint8Array",
};
