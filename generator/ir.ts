/**
 * The generator's intermediate representation: what the headers declare, with sizes, alignments and offsets as
 * libclang computed them for x86-64 Linux. `--emit-ir DIR` writes it as JSON; the emitters and our checks read it.
 */

/** Where a declaration is: a path relative to the include directory, and a 1-based line. */
export interface IrLocation {
  file: string;
  line: number;
}

/** A doc comment, parsed from Doxygen. */
export interface IrDoc {
  /** The summary (brief and details), as Markdown-ish text. */
  summary: string;
  /** Parameter descriptions, by name, with the direction when the header gives one. */
  params: { name: string; direction?: "in" | "out" | "in,out"; text: string }[];
  /** What the function returns. */
  returns?: string;
  /** Notes (`\note`), each a paragraph. */
  notes: string[];
  /** Cross references (`\sa`, `see`), names as the header writes them. */
  see: string[];
  /** A deprecation paragraph (`\deprecated`). */
  deprecated?: string;
}

/** A C type. `spelling` is the type as written (after typedef names, before canonicalisation). */
export type IrType =
  | { kind: "void"; spelling: string }
  | { kind: "bool"; spelling: string }
  | { kind: "int"; spelling: string; size: number; signed: boolean }
  | { kind: "float"; spelling: string; size: 4 | 8 }
  | { kind: "pointer"; spelling: string; pointee: IrType; constPointee: boolean }
  | { kind: "array"; spelling: string; element: IrType; length: number | null }
  | { kind: "typedef"; spelling: string; name: string; target: IrType }
  | { kind: "enum"; spelling: string; name: string; size: number; signed: boolean }
  | { kind: "record"; spelling: string; name: string; recordKind: "struct" | "union"; complete: boolean }
  | { kind: "function"; spelling: string; parameters: IrType[]; result: IrType; variadic: boolean }
  | { kind: "unsupported"; spelling: string; reason: string };

/** A parameter of a function. */
export interface IrParam {
  name: string;
  type: IrType;
}

/** A parameter's role in the checked call style, with the rule or override that decided it. */
export type IrParamRole =
  | { role: "input"; rule: string }
  | { role: "output"; rule: string }
  | { role: "array-output"; count: string; rule: string }
  | {
    role: "count";
    /** The arrays it sizes. */
    arrays: string[];
    /** Passed through a pointer (in/out) rather than by value. */
    pointer: boolean;
    /** The function reports the size it needs when asked with no array (NULL and 0). */
    query: boolean;
    /** The caller may choose the capacity. */
    capacity: boolean;
    unit: "elements" | "bytes";
    rule: string;
  }
  | { role: "array-input"; count: string; rule: string }
  | { role: "caller-buffer"; size?: string; unit?: "elements" | "bytes"; rule: string }
  | { role: "handle-reference"; rule: string };

/** Driver-only facts: how to resolve the function through cuGetProcAddress. */
export interface IrProcAddress {
  /** The name to ask cuGetProcAddress for (the base name the PFN typedef carries). */
  name: string;
  /** The CUDA version to request (from cudaTypedefs.h's PFN_<name>_v<version>). */
  version: number;
  /** The version to request for the per-thread default stream variant, when there is one. */
  ptdsVersion?: number;
}

/** A function the library exports. */
export interface IrFunction {
  /** The name C code calls (before the header's version macros). */
  name: string;
  /** The symbol the library exports (after them: cuMemAlloc → cuMemAlloc_v2). */
  symbol: string;
  /** The exported per-thread-default-stream variant (cuMemcpyAsync_ptsz), when the header has one. */
  ptdsSymbol?: string;
  params: IrParam[];
  result: IrType;
  variadic: boolean;
  doc?: IrDoc;
  deprecated?: string;
  procAddress?: IrProcAddress;
  /** Names of the parameters the checked call style returns as single values (role `output`). */
  outputs: string[];
  /** Each parameter's role in the checked call style, in parameter order (generator/parse/roles.ts). */
  roles: IrParamRole[];
  location: IrLocation;
}

/** An enumerator. Values are decimal strings (they may not fit a double). */
export interface IrEnumConstant {
  name: string;
  value: string;
  doc?: string;
  deprecated?: string;
}

/** An enum. */
export interface IrEnum {
  /** The name TypeScript code uses (the typedef name when the enum is typedef'd, else the tag). */
  name: string;
  /** Other names for the same enum (the tag, further typedefs). */
  aliases: string[];
  size: number;
  signed: boolean;
  constants: IrEnumConstant[];
  doc?: string;
  deprecated?: string;
  location: IrLocation;
}

/** An object-like #define evaluated to a value. */
export type IrConstant = {
  name: string;
  doc?: string;
  location: IrLocation;
  /** The macro's body as written. */
  expression: string;
} & (
  | { kind: "int"; value: string; size: number; signed: boolean }
  | { kind: "float"; value: number; size: 4 | 8 }
  | { kind: "string"; value: string }
  | { kind: "pointer"; value: string }
);

/** A typedef that is neither an enum nor a record name (those become aliases of the enum/record). */
export interface IrTypedef {
  name: string;
  /**
   * - `handle`: a pointer to an incomplete struct (CUstream): an opaque branded handle.
   * - `scalar`: an integer or float (CUdeviceptr is a 64-bit integer).
   * - `callback`: a function-pointer type (CUhostFn).
   * - `pointer`: another pointer type.
   * - `alias`: a name for another typedef, enum or record.
   * - `array`: a fixed array type.
   */
  category: "handle" | "scalar" | "callback" | "pointer" | "alias" | "array";
  target: IrType;
  doc?: string;
  deprecated?: string;
  location: IrLocation;
}

/** A field of a record. Offsets are in bytes; bit-fields add bitOffset/bitWidth (bits from the record start). */
export interface IrField {
  /** The member name; empty for an anonymous struct/union member (its fields are reachable from the parent). */
  name: string;
  type: IrType;
  offset: number;
  size: number;
  align: number;
  bitOffset?: number;
  bitWidth?: number;
  doc?: string;
}

/** A struct or union with its exact layout. */
export interface IrRecord {
  /** The TypeScript class name: the tag, the typedef name for an anonymous record, or Parent_field for nested ones. */
  name: string;
  /** The C spelling (`struct CUuuid_st`), or how to reach an anonymous record. */
  cName: string;
  /** Typedef names of this record. */
  aliases: string[];
  recordKind: "struct" | "union";
  size: number;
  align: number;
  fields: IrField[];
  /** True for records declared without a name (nested, or only reachable through a typedef). */
  anonymous: boolean;
  doc?: string;
  deprecated?: string;
  location: IrLocation;
}

/** Something the generator saw and did not emit, with the reason. */
export interface IrSkip {
  name: string;
  kind: "function" | "macro" | "typedef" | "record" | "enum" | "variable";
  reason: string;
  location?: IrLocation;
}

/** Everything one library's headers declare. */
export interface IrLibrary {
  library: string;
  ctkVersion: string;
  headers: { path: string; sha256: string }[];
  functions: IrFunction[];
  enums: IrEnum[];
  constants: IrConstant[];
  typedefs: IrTypedef[];
  records: IrRecord[];
  skipped: IrSkip[];
  /** Types this library uses that another library of the manifest declares: name → library. */
  imports: Record<string, string>;
  /** Facts worth a reader's attention that are not skips (a function with no PFN typedef, say). */
  notes: string[];
}

/** Follows typedefs to the type they name. */
export function resolveTypedefs(t: IrType): IrType {
  let cur = t;
  for (let i = 0; i < 50 && cur.kind === "typedef"; i++) cur = cur.target;
  return cur;
}
