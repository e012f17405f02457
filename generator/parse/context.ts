/**
 * Shared state of one library's parse: the libclang handle, file-path mapping, declaration names by USR, and the
 * conversion of libclang types to IrType.
 */
import { readFileSync } from "node:fs";
import { type Clang, type CType, type Cursor, CursorKind, TypeKind } from "../libclang/api.ts";
import type { IrLocation, IrType } from "../ir.ts";
export { resolveTypedefs } from "../ir.ts";

/** Per-parse context. */
export class ParseContext {
  /** Declaration USR → the TypeScript name of the record or enum. */
  readonly names = new Map<string, string>();
  /** Header path (relative) → owning library, for every library of the manifest. */
  readonly owners: Map<string, string>;
  /** Names of types used from another library: name → library. */
  readonly imports: Record<string, string> = {};
  private readonly relCache = new Map<string, string | null>();
  private readonly textCache = new Map<string, string>();
  private readonly bytesCache = new Map<string, Uint8Array>();

  constructor(
    readonly clang: Clang,
    readonly tu: Deno.PointerValue,
    readonly includeDirs: string[],
    readonly library: string,
    owners: Map<string, string>,
  ) {
    this.owners = owners;
  }

  /** The include-relative path of an absolute file, or null if it is outside every include directory. */
  relative(file: string): string | null {
    let r = this.relCache.get(file);
    if (r !== undefined) return r;
    r = null;
    for (const dir of this.includeDirs) {
      const prefix = dir.endsWith("/") ? dir : dir + "/";
      if (file.startsWith(prefix)) {
        r = file.slice(prefix.length);
        break;
      }
    }
    this.relCache.set(file, r);
    return r;
  }

  /** Which library owns the file a cursor is in (undefined for system headers and unknown files). */
  ownerOf(c: Cursor): string | undefined {
    const rel = this.relative(this.clang.position(c).file);
    return rel === null ? undefined : this.owners.get(rel);
  }

  location(c: Cursor): IrLocation {
    const p = this.clang.position(c);
    return { file: this.relative(p.file) ?? p.file, line: p.line };
  }

  /** The source text of a file (cached). */
  text(file: string): string {
    let t = this.textCache.get(file);
    if (t === undefined) {
      t = readFileSync(file, "utf8");
      this.textCache.set(file, t);
    }
    return t;
  }

  /** The identifier written at a cursor's (expansion) location: the name before macro substitution. */
  writtenName(c: Cursor): string | undefined {
    const p = this.clang.position(c);
    if (!p.file) return undefined;
    let bytes = this.bytesCache.get(p.file);
    if (bytes === undefined) {
      bytes = new Uint8Array(readFileSync(p.file));
      this.bytesCache.set(p.file, bytes);
    }
    const m = /^[A-Za-z_]\w*/.exec(new TextDecoder().decode(bytes.subarray(p.offset, p.offset + 256)));
    return m?.[0];
  }

  /** Records that a type name from another library is used, and returns the owner (or undefined). */
  noteUse(name: string, decl: Cursor): string | undefined {
    const owner = this.ownerOf(decl);
    if (owner !== undefined && owner !== this.library) this.imports[name] = owner;
    return owner;
  }

  /** The TypeScript name of a record or enum declaration. */
  declName(decl: Cursor): string {
    const usr = this.clang.usr(decl);
    const known = this.names.get(usr);
    if (known) return known;
    const s = this.clang.spelling(decl);
    return /^[A-Za-z_]\w*$/.test(s) ? s : `anonymous_${usr.replace(/\W+/g, "_")}`;
  }

  /** Converts a libclang type. */
  convert(t: CType, depth = 0): IrType {
    const c = this.clang;
    const spelling = c.typeSpelling(t);
    if (depth > 40) return { kind: "unsupported", spelling, reason: "type nesting too deep" };
    const k = c.typeKind(t);
    switch (k) {
      case TypeKind.Elaborated:
        return { ...this.convert(c.named(t), depth + 1), spelling };
      case TypeKind.Attributed:
        return { ...this.convert(c.modified(t), depth + 1), spelling };
      case TypeKind.Void:
        return { kind: "void", spelling };
      case TypeKind.Bool:
        return { kind: "bool", spelling };
      case TypeKind.Char_U:
      case TypeKind.UChar:
      case TypeKind.UShort:
      case TypeKind.UInt:
      case TypeKind.ULong:
      case TypeKind.ULongLong:
      case TypeKind.Char16:
      case TypeKind.Char32:
        return { kind: "int", spelling, size: c.sizeOf(t), signed: false };
      case TypeKind.Char_S:
      case TypeKind.SChar:
      case TypeKind.WChar:
      case TypeKind.Short:
      case TypeKind.Int:
      case TypeKind.Long:
      case TypeKind.LongLong:
        return { kind: "int", spelling, size: c.sizeOf(t), signed: true };
      case TypeKind.Float:
        return { kind: "float", spelling, size: 4 };
      case TypeKind.Double:
        return { kind: "float", spelling, size: 8 };
      case TypeKind.Pointer: {
        const pt = c.pointee(t);
        return { kind: "pointer", spelling, pointee: this.convert(pt, depth + 1), constPointee: c.isConst(pt) };
      }
      case TypeKind.ConstantArray:
        return { kind: "array", spelling, element: this.convert(c.arrayElement(t), depth + 1), length: c.arraySize(t) };
      case TypeKind.IncompleteArray:
        return { kind: "array", spelling, element: this.convert(c.arrayElement(t), depth + 1), length: null };
      case TypeKind.Typedef: {
        const decl = c.declaration(t);
        const name = c.spelling(decl);
        this.noteUse(name, decl);
        return { kind: "typedef", spelling, name, target: this.convert(c.typedefUnderlying(decl), depth + 1) };
      }
      case TypeKind.Enum: {
        const decl = c.declaration(t);
        const name = this.declName(decl);
        this.noteUse(name, decl);
        const it = c.enumIntegerType(decl);
        const ik = c.typeKind(c.canonical(it));
        const signed = !([TypeKind.Char_U, TypeKind.UChar, TypeKind.UShort, TypeKind.UInt, TypeKind.ULong, TypeKind.ULongLong] as number[]).includes(ik);
        return { kind: "enum", spelling, name, size: c.sizeOf(t), signed };
      }
      case TypeKind.Record: {
        const decl = c.declaration(t);
        const def = c.definition(decl);
        const complete = !c.isNull(def);
        const name = this.declName(complete ? def : decl);
        this.noteUse(name, decl);
        const recordKind = c.kind(decl) === CursorKind.UnionDecl ? "union" : "struct";
        return { kind: "record", spelling, name, recordKind, complete };
      }
      case TypeKind.FunctionProto:
      case TypeKind.FunctionNoProto: {
        const n = k === TypeKind.FunctionProto ? c.fnArgCount(t) : 0;
        const parameters: IrType[] = [];
        for (let i = 0; i < n; i++) parameters.push(this.convert(c.fnArg(t, i), depth + 1));
        return {
          kind: "function",
          spelling,
          parameters,
          result: this.convert(c.fnResult(t), depth + 1),
          variadic: k === TypeKind.FunctionProto && c.fnVariadic(t),
        };
      }
      case TypeKind.LongDouble:
      case TypeKind.Float128:
        return { kind: "unsupported", spelling, reason: "long double / __float128 has no FFI type" };
      case TypeKind.Int128:
      case TypeKind.UInt128:
        return { kind: "unsupported", spelling, reason: "128-bit integers have no FFI type" };
      case TypeKind.Half:
      case TypeKind.Float16:
      case TypeKind.BFloat16:
        return { kind: "unsupported", spelling, reason: "half-precision scalars have no FFI type" };
      case TypeKind.Vector:
      case TypeKind.ExtVector:
        return { kind: "unsupported", spelling, reason: "vector types have no FFI type" };
      case TypeKind.Complex:
        return { kind: "unsupported", spelling, reason: "_Complex has no FFI type" };
      default:
        return { kind: "unsupported", spelling, reason: `libclang type kind ${k}` };
    }
  }
}

/** Whether a declaration cursor is a definition of a struct or union. */
export function isRecordDecl(kind: number): boolean {
  return kind === CursorKind.StructDecl || kind === CursorKind.UnionDecl;
}
