/**
 * The part of libclang's C API the generator uses, bound through Deno's FFI (which passes CXCursor, CXType and
 * CXString by value). Values of those structs are the raw bytes Deno hands back (Uint8Array).
 */
import { findLibclang, type LibclangLocation } from "./find.ts";

const CXCursor = { struct: ["i32", "i32", "pointer", "pointer", "pointer"] } as const;
const CXType = { struct: ["i32", "pointer", "pointer"] } as const;
const CXString = { struct: ["pointer", "u32"] } as const;
const CXSourceLocation = { struct: ["pointer", "pointer", "u32"] } as const;
const CXSourceRange = { struct: ["pointer", "pointer", "u32", "u32"] } as const;
const CXToken = { struct: ["u32", "u32", "u32", "u32", "pointer"] } as const;

const symbols = {
  clang_getClangVersion: { parameters: [], result: CXString },
  clang_createIndex: { parameters: ["i32", "i32"], result: "pointer" },
  clang_disposeIndex: { parameters: ["pointer"], result: "void" },
  clang_parseTranslationUnit2: {
    parameters: ["pointer", "buffer", "buffer", "i32", "buffer", "u32", "u32", "buffer"],
    result: "i32",
  },
  clang_disposeTranslationUnit: { parameters: ["pointer"], result: "void" },
  clang_saveTranslationUnit: { parameters: ["pointer", "buffer", "u32"], result: "i32" },
  clang_getNumDiagnostics: { parameters: ["pointer"], result: "u32" },
  clang_getDiagnostic: { parameters: ["pointer", "u32"], result: "pointer" },
  clang_getDiagnosticSeverity: { parameters: ["pointer"], result: "i32" },
  clang_formatDiagnostic: { parameters: ["pointer", "u32"], result: CXString },
  clang_disposeDiagnostic: { parameters: ["pointer"], result: "void" },
  clang_getTranslationUnitCursor: { parameters: ["pointer"], result: CXCursor },
  clang_visitChildren: { parameters: [CXCursor, "function", "pointer"], result: "u32" },
  clang_getCursorKind: { parameters: [CXCursor], result: "i32" },
  clang_getCursorSpelling: { parameters: [CXCursor], result: CXString },
  clang_getCursorType: { parameters: [CXCursor], result: CXType },
  clang_getCursorLocation: { parameters: [CXCursor], result: CXSourceLocation },
  clang_getCursorExtent: { parameters: [CXCursor], result: CXSourceRange },
  clang_getRangeStart: { parameters: [CXSourceRange], result: CXSourceLocation },
  clang_getFileLocation: { parameters: [CXSourceLocation, "buffer", "buffer", "buffer", "buffer"], result: "void" },
  clang_getExpansionLocation: {
    parameters: [CXSourceLocation, "buffer", "buffer", "buffer", "buffer"],
    result: "void",
  },
  clang_getFileName: { parameters: ["pointer"], result: CXString },
  clang_getTypedefDeclUnderlyingType: { parameters: [CXCursor], result: CXType },
  clang_getEnumDeclIntegerType: { parameters: [CXCursor], result: CXType },
  clang_getEnumConstantDeclValue: { parameters: [CXCursor], result: "i64" },
  clang_getEnumConstantDeclUnsignedValue: { parameters: [CXCursor], result: "u64" },
  clang_getCursorResultType: { parameters: [CXCursor], result: CXType },
  clang_Cursor_getNumArguments: { parameters: [CXCursor], result: "i32" },
  clang_Cursor_getArgument: { parameters: [CXCursor, "u32"], result: CXCursor },
  clang_Cursor_isVariadic: { parameters: [CXCursor], result: "u32" },
  clang_Cursor_isBitField: { parameters: [CXCursor], result: "u32" },
  clang_getFieldDeclBitWidth: { parameters: [CXCursor], result: "i32" },
  clang_Cursor_getOffsetOfField: { parameters: [CXCursor], result: "i64" },
  clang_Cursor_isAnonymous: { parameters: [CXCursor], result: "u32" },
  clang_Cursor_isAnonymousRecordDecl: { parameters: [CXCursor], result: "u32" },
  clang_Cursor_getRawCommentText: { parameters: [CXCursor], result: CXString },
  clang_getCursorAvailability: { parameters: [CXCursor], result: "i32" },
  clang_getCursorPlatformAvailability: {
    parameters: [CXCursor, "buffer", "buffer", "buffer", "buffer", "pointer", "i32"],
    result: "i32",
  },
  clang_Cursor_isMacroFunctionLike: { parameters: [CXCursor], result: "u32" },
  clang_Cursor_isMacroBuiltin: { parameters: [CXCursor], result: "u32" },
  clang_isInvalidDeclaration: { parameters: [CXCursor], result: "u32" },
  clang_isCursorDefinition: { parameters: [CXCursor], result: "u32" },
  clang_getCursorDefinition: { parameters: [CXCursor], result: CXCursor },
  clang_getCursorSemanticParent: { parameters: [CXCursor], result: CXCursor },
  clang_equalCursors: { parameters: [CXCursor, CXCursor], result: "u32" },
  clang_Cursor_isNull: { parameters: [CXCursor], result: "i32" },
  clang_hashCursor: { parameters: [CXCursor], result: "u32" },
  clang_getCursorUSR: { parameters: [CXCursor], result: CXString },
  clang_tokenize: { parameters: ["pointer", CXSourceRange, "buffer", "buffer"], result: "void" },
  clang_getTokenSpelling: { parameters: ["pointer", CXToken], result: CXString },
  clang_getTokenKind: { parameters: [CXToken], result: "i32" },
  clang_disposeTokens: { parameters: ["pointer", "pointer", "u32"], result: "void" },
  clang_Cursor_Evaluate: { parameters: [CXCursor], result: "pointer" },
  clang_EvalResult_getKind: { parameters: ["pointer"], result: "i32" },
  clang_EvalResult_isUnsignedInt: { parameters: ["pointer"], result: "u32" },
  clang_EvalResult_getAsUnsigned: { parameters: ["pointer"], result: "u64" },
  clang_EvalResult_getAsLongLong: { parameters: ["pointer"], result: "i64" },
  clang_EvalResult_getAsDouble: { parameters: ["pointer"], result: "f64" },
  clang_EvalResult_getAsStr: { parameters: ["pointer"], result: "pointer" },
  clang_EvalResult_dispose: { parameters: ["pointer"], result: "void" },
  clang_getTypeSpelling: { parameters: [CXType], result: CXString },
  clang_getTypedefName: { parameters: [CXType], result: CXString },
  clang_getCanonicalType: { parameters: [CXType], result: CXType },
  clang_getPointeeType: { parameters: [CXType], result: CXType },
  clang_getTypeDeclaration: { parameters: [CXType], result: CXCursor },
  clang_Type_getSizeOf: { parameters: [CXType], result: "i64" },
  clang_Type_getAlignOf: { parameters: [CXType], result: "i64" },
  clang_Type_getOffsetOf: { parameters: [CXType, "buffer"], result: "i64" },
  clang_getArrayElementType: { parameters: [CXType], result: CXType },
  clang_getArraySize: { parameters: [CXType], result: "i64" },
  clang_isConstQualifiedType: { parameters: [CXType], result: "u32" },
  clang_Type_getNamedType: { parameters: [CXType], result: CXType },
  clang_getResultType: { parameters: [CXType], result: CXType },
  clang_getNumArgTypes: { parameters: [CXType], result: "i32" },
  clang_getArgType: { parameters: [CXType, "u32"], result: CXType },
  clang_isFunctionTypeVariadic: { parameters: [CXType], result: "u32" },
  clang_Type_getModifiedType: { parameters: [CXType], result: CXType },
  clang_getString: { parameters: [CXString], result: "pointer", name: "clang_getCString" },
  clang_disposeString: { parameters: [CXString], result: "void" },
} as const;

/** A CXCursor value (32 bytes, as Deno returns it). */
export type Cursor = Uint8Array;
/** A CXType value (24 bytes). */
export type CType = Uint8Array;

/** libclang cursor kinds used here (Index.h, enum CXCursorKind). */
export const CursorKind = {
  StructDecl: 2,
  UnionDecl: 3,
  EnumDecl: 5,
  FieldDecl: 6,
  EnumConstantDecl: 7,
  FunctionDecl: 8,
  VarDecl: 9,
  ParmDecl: 10,
  TypedefDecl: 20,
  TypeRef: 43,
  TranslationUnit: 300,
  MacroDefinition: 501,
  MacroExpansion: 502,
  InclusionDirective: 503,
} as const;

/** libclang type kinds used here (Index.h, enum CXTypeKind). */
export const TypeKind = {
  Invalid: 0,
  Unexposed: 1,
  Void: 2,
  Bool: 3,
  Char_U: 4,
  UChar: 5,
  Char16: 6,
  Char32: 7,
  UShort: 8,
  UInt: 9,
  ULong: 10,
  ULongLong: 11,
  UInt128: 12,
  Char_S: 13,
  SChar: 14,
  WChar: 15,
  Short: 16,
  Int: 17,
  Long: 18,
  LongLong: 19,
  Int128: 20,
  Float: 21,
  Double: 22,
  LongDouble: 23,
  Float128: 30,
  Half: 31,
  Float16: 32,
  BFloat16: 39,
  Complex: 100,
  Pointer: 101,
  Record: 105,
  Enum: 106,
  Typedef: 107,
  FunctionNoProto: 110,
  FunctionProto: 111,
  ConstantArray: 112,
  Vector: 113,
  IncompleteArray: 114,
  Elaborated: 119,
  Attributed: 163,
  ExtVector: 176,
  Atomic: 177,
} as const;

/** A source position resolved to a file. */
export interface Position {
  file: string;
  line: number;
  column: number;
  offset: number;
}

/** An evaluated constant expression. */
export type Evaluated =
  | { kind: "int"; value: bigint; unsigned: boolean }
  | { kind: "float"; value: number }
  | { kind: "string"; value: string }
  | { kind: "none" };

/** A diagnostic from a parse. */
export interface Diagnostic {
  severity: number;
  text: string;
}

/** Raised when a translation unit cannot be parsed at all. */
export class ParseError extends Error {
  constructor(
    readonly file: string,
    readonly diagnostics: Diagnostic[],
    message: string,
  ) {
    super(message);
    this.name = "ParseError";
  }
}

const enc = new TextEncoder();
const cstr = (s: string): Uint8Array<ArrayBuffer> => enc.encode(s + "\0") as Uint8Array<ArrayBuffer>;

/** A loaded libclang. */
export class Clang {
  readonly lib: Deno.DynamicLibrary<typeof symbols>;
  readonly location: LibclangLocation;
  private readonly sym: Deno.DynamicLibrary<typeof symbols>["symbols"];
  private readonly u32 = new Uint32Array(4);
  private readonly ptrBuf = new BigUint64Array(1);
  private readonly ints = [new Uint32Array(1), new Uint32Array(1), new Uint32Array(1)] as const;
  /** CXFile → name. CXFile pointers stay valid while their translation unit lives; cleared on dispose. */
  private readonly fileNames = new Map<bigint, string>();

  constructor(location: LibclangLocation = findLibclang()) {
    this.location = location;
    this.lib = Deno.dlopen(location.path, symbols);
    this.sym = this.lib.symbols;
  }

  /** libclang's version string. */
  version(): string {
    return this.str(this.sym.clang_getClangVersion());
  }

  /** Converts and disposes a CXString. */
  str(s: Uint8Array): string {
    const p = this.sym.clang_getString(s as Uint8Array<ArrayBuffer>);
    const out = p === null ? "" : Deno.UnsafePointerView.getCString(p);
    this.sym.clang_disposeString(s as Uint8Array<ArrayBuffer>);
    return out;
  }

  createIndex(): Deno.PointerValue {
    return this.sym.clang_createIndex(0, 0);
  }

  disposeIndex(index: Deno.PointerValue): void {
    this.sym.clang_disposeIndex(index);
  }

  /**
   * Parses a translation unit. `unsaved` maps file names to contents that replace (or create) files.
   * Throws {@link ParseError} when libclang fails or reports fatal errors.
   */
  parse(
    index: Deno.PointerValue,
    file: string,
    args: string[],
    unsaved: Record<string, string>,
    options: number,
  ): { tu: Deno.PointerValue; diagnostics: Diagnostic[] } {
    const argBufs = args.map(cstr);
    const argv = new BigUint64Array(args.length);
    argBufs.forEach((a, i) => (argv[i] = Deno.UnsafePointer.value(Deno.UnsafePointer.of(a))));
    const names = Object.keys(unsaved);
    const keep: Uint8Array[] = [];
    const files = new BigUint64Array(Math.max(1, names.length * 3));
    names.forEach((name, i) => {
      const n = cstr(name);
      const c = enc.encode(unsaved[name]);
      keep.push(n, c);
      files[i * 3] = Deno.UnsafePointer.value(Deno.UnsafePointer.of(n));
      files[i * 3 + 1] = c.length === 0 ? 0n : Deno.UnsafePointer.value(Deno.UnsafePointer.of(c));
      files[i * 3 + 2] = BigInt(c.length);
    });
    const out = new BigUint64Array(1);
    const code = this.sym.clang_parseTranslationUnit2(
      index,
      cstr(file),
      argv,
      args.length,
      files,
      names.length,
      options,
      out,
    );
    void keep;
    if (code !== 0 || out[0] === 0n) {
      throw new ParseError(file, [], `libclang could not parse ${file} (CXErrorCode ${code}); arguments: ${args.join(" ")}`);
    }
    const tu = Deno.UnsafePointer.create(out[0]!);
    return { tu, diagnostics: this.diagnostics(tu) };
  }

  /**
   * Writes a translation unit to `file` as an AST file, which later parses take as a precompiled header
   * (`-include-pch file`); the unit must have been parsed with CXTranslationUnit_ForSerialization (0x10). Throws
   * with libclang's CXSaveError code when it cannot.
   */
  save(tu: Deno.PointerValue, file: string): void {
    const code = this.sym.clang_saveTranslationUnit(tu, cstr(file), 0);
    if (code !== 0) throw new Error(`libclang could not save the translation unit to ${file} (CXSaveError ${code})`);
  }

  diagnostics(tu: Deno.PointerValue): Diagnostic[] {
    const n = this.sym.clang_getNumDiagnostics(tu);
    const out: Diagnostic[] = [];
    for (let i = 0; i < n; i++) {
      const d = this.sym.clang_getDiagnostic(tu, i);
      // CXDiagnostic_DisplaySourceLocation | DisplayColumn | DisplayOption
      out.push({ severity: this.sym.clang_getDiagnosticSeverity(d), text: this.str(this.sym.clang_formatDiagnostic(d, 0x1 | 0x2 | 0x8)) });
      this.sym.clang_disposeDiagnostic(d);
    }
    return out;
  }

  disposeTranslationUnit(tu: Deno.PointerValue): void {
    this.fileNames.clear();
    this.sym.clang_disposeTranslationUnit(tu);
  }

  root(tu: Deno.PointerValue): Cursor {
    return this.sym.clang_getTranslationUnitCursor(tu);
  }

  private visitTarget: Cursor[] = [];
  private visitor: Deno.UnsafeCallback<{ readonly parameters: readonly [typeof CXCursor, typeof CXCursor, "pointer"]; readonly result: "u32" }> | undefined;

  /** The direct children of a cursor (copied, so they stay valid after the visit). */
  children(cursor: Cursor): Cursor[] {
    const out: Cursor[] = [];
    this.visitor ??= new Deno.UnsafeCallback(
      { parameters: [CXCursor, CXCursor, "pointer"], result: "u32" } as const,
      (c: Uint8Array) => {
        this.visitTarget.push(c.slice());
        return 1; // CXChildVisit_Continue
      },
    );
    const saved = this.visitTarget;
    this.visitTarget = out;
    try {
      this.sym.clang_visitChildren(cursor as Uint8Array<ArrayBuffer>, this.visitor.pointer, null);
    } finally {
      this.visitTarget = saved;
    }
    return out;
  }

  kind(c: Cursor): number {
    return this.sym.clang_getCursorKind(c as Uint8Array<ArrayBuffer>);
  }

  spelling(c: Cursor): string {
    return this.str(this.sym.clang_getCursorSpelling(c as Uint8Array<ArrayBuffer>));
  }

  usr(c: Cursor): string {
    return this.str(this.sym.clang_getCursorUSR(c as Uint8Array<ArrayBuffer>));
  }

  type(c: Cursor): CType {
    return this.sym.clang_getCursorType(c as Uint8Array<ArrayBuffer>);
  }

  private resolve(loc: Uint8Array, expansion: boolean): Position {
    const f = this.ptrBuf;
    const [l, col, off] = this.ints;
    (expansion ? this.sym.clang_getExpansionLocation : this.sym.clang_getFileLocation)(
      loc as Uint8Array<ArrayBuffer>,
      f,
      l,
      col,
      off,
    );
    const fp = f[0]!;
    let file = this.fileNames.get(fp);
    if (file === undefined) {
      file = fp === 0n ? "" : this.str(this.sym.clang_getFileName(Deno.UnsafePointer.create(fp)));
      this.fileNames.set(fp, file);
    }
    return { file, line: l[0]!, column: col[0]!, offset: off[0]! };
  }

  /** Where the cursor is, after macro expansion (the file position of the macro use). */
  position(c: Cursor): Position {
    return this.resolve(this.sym.clang_getCursorLocation(c as Uint8Array<ArrayBuffer>), true);
  }

  /** Where the cursor's extent starts (expansion location). */
  start(c: Cursor): Position {
    return this.resolve(this.sym.clang_getRangeStart(this.extent(c) as Uint8Array<ArrayBuffer>), true);
  }

  /** The start and end of the cursor's extent. */
  extent(c: Cursor): Uint8Array {
    return this.sym.clang_getCursorExtent(c as Uint8Array<ArrayBuffer>);
  }

  /** The spellings of the tokens of a cursor's extent. */
  tokens(tu: Deno.PointerValue, c: Cursor): string[] {
    const range = this.extent(c);
    const tokPtr = new BigUint64Array(1);
    const count = new Uint32Array(1);
    this.sym.clang_tokenize(tu, range as Uint8Array<ArrayBuffer>, tokPtr, count);
    const n = count[0]!;
    if (n === 0 || tokPtr[0] === 0n) return [];
    const base = Deno.UnsafePointer.create(tokPtr[0]!)!;
    const bytes = new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(base, n * 24));
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      out.push(this.str(this.sym.clang_getTokenSpelling(tu, bytes.slice(i * 24, i * 24 + 24))));
    }
    this.sym.clang_disposeTokens(tu, base, n);
    return out;
  }

  typedefUnderlying(c: Cursor): CType {
    return this.sym.clang_getTypedefDeclUnderlyingType(c as Uint8Array<ArrayBuffer>);
  }

  enumIntegerType(c: Cursor): CType {
    return this.sym.clang_getEnumDeclIntegerType(c as Uint8Array<ArrayBuffer>);
  }

  enumValue(c: Cursor, unsigned: boolean): bigint {
    return unsigned
      ? this.sym.clang_getEnumConstantDeclUnsignedValue(c as Uint8Array<ArrayBuffer>)
      : this.sym.clang_getEnumConstantDeclValue(c as Uint8Array<ArrayBuffer>);
  }

  resultType(c: Cursor): CType {
    return this.sym.clang_getCursorResultType(c as Uint8Array<ArrayBuffer>);
  }

  argumentCount(c: Cursor): number {
    return this.sym.clang_Cursor_getNumArguments(c as Uint8Array<ArrayBuffer>);
  }

  argument(c: Cursor, i: number): Cursor {
    return this.sym.clang_Cursor_getArgument(c as Uint8Array<ArrayBuffer>, i);
  }

  isVariadic(c: Cursor): boolean {
    return this.sym.clang_Cursor_isVariadic(c as Uint8Array<ArrayBuffer>) !== 0;
  }

  isBitField(c: Cursor): boolean {
    return this.sym.clang_Cursor_isBitField(c as Uint8Array<ArrayBuffer>) !== 0;
  }

  bitWidth(c: Cursor): number {
    return this.sym.clang_getFieldDeclBitWidth(c as Uint8Array<ArrayBuffer>);
  }

  /** Offset of a field in bits from the start of its record. */
  fieldOffsetBits(c: Cursor): number {
    return Number(this.sym.clang_Cursor_getOffsetOfField(c as Uint8Array<ArrayBuffer>));
  }

  isAnonymous(c: Cursor): boolean {
    return this.sym.clang_Cursor_isAnonymous(c as Uint8Array<ArrayBuffer>) !== 0;
  }

  isAnonymousRecordDecl(c: Cursor): boolean {
    return this.sym.clang_Cursor_isAnonymousRecordDecl(c as Uint8Array<ArrayBuffer>) !== 0;
  }

  rawComment(c: Cursor): string {
    return this.str(this.sym.clang_Cursor_getRawCommentText(c as Uint8Array<ArrayBuffer>));
  }

  /** `undefined` when not deprecated, else the deprecation message (possibly empty). */
  deprecation(c: Cursor): string | undefined {
    const avail = this.sym.clang_getCursorAvailability(c as Uint8Array<ArrayBuffer>);
    const always = new Int32Array(1);
    const msg = new Uint8Array(16);
    const unavail = new Int32Array(1);
    const umsg = new Uint8Array(16);
    this.sym.clang_getCursorPlatformAvailability(c as Uint8Array<ArrayBuffer>, always, msg, unavail, umsg, null, 0);
    const message = this.str(msg);
    this.str(umsg);
    if (avail === 1 /* CXAvailability_Deprecated */ || always[0] !== 0) return message;
    return undefined;
  }

  isMacroFunctionLike(c: Cursor): boolean {
    return this.sym.clang_Cursor_isMacroFunctionLike(c as Uint8Array<ArrayBuffer>) !== 0;
  }

  isMacroBuiltin(c: Cursor): boolean {
    return this.sym.clang_Cursor_isMacroBuiltin(c as Uint8Array<ArrayBuffer>) !== 0;
  }

  isInvalid(c: Cursor): boolean {
    return this.sym.clang_isInvalidDeclaration(c as Uint8Array<ArrayBuffer>) !== 0;
  }

  isDefinition(c: Cursor): boolean {
    return this.sym.clang_isCursorDefinition(c as Uint8Array<ArrayBuffer>) !== 0;
  }

  definition(c: Cursor): Cursor {
    return this.sym.clang_getCursorDefinition(c as Uint8Array<ArrayBuffer>);
  }

  isNull(c: Cursor): boolean {
    return this.sym.clang_Cursor_isNull(c as Uint8Array<ArrayBuffer>) !== 0;
  }

  equal(a: Cursor, b: Cursor): boolean {
    return this.sym.clang_equalCursors(a as Uint8Array<ArrayBuffer>, b as Uint8Array<ArrayBuffer>) !== 0;
  }

  evaluate(c: Cursor): Evaluated {
    const r = this.sym.clang_Cursor_Evaluate(c as Uint8Array<ArrayBuffer>);
    if (r === null) return { kind: "none" };
    try {
      switch (this.sym.clang_EvalResult_getKind(r)) {
        case 1: {
          const unsigned = this.sym.clang_EvalResult_isUnsignedInt(r) !== 0;
          const value = unsigned ? this.sym.clang_EvalResult_getAsUnsigned(r) : this.sym.clang_EvalResult_getAsLongLong(r);
          return { kind: "int", value: BigInt(value), unsigned };
        }
        case 2:
          return { kind: "float", value: this.sym.clang_EvalResult_getAsDouble(r) };
        case 4: {
          const p = this.sym.clang_EvalResult_getAsStr(r);
          return { kind: "string", value: p === null ? "" : Deno.UnsafePointerView.getCString(p) };
        }
        default:
          return { kind: "none" };
      }
    } finally {
      this.sym.clang_EvalResult_dispose(r);
    }
  }

  // ---- types

  typeKind(t: CType): number {
    return new DataView(t.buffer, t.byteOffset, t.byteLength).getInt32(0, true);
  }

  typeSpelling(t: CType): string {
    return this.str(this.sym.clang_getTypeSpelling(t as Uint8Array<ArrayBuffer>));
  }

  typedefName(t: CType): string {
    return this.str(this.sym.clang_getTypedefName(t as Uint8Array<ArrayBuffer>));
  }

  canonical(t: CType): CType {
    return this.sym.clang_getCanonicalType(t as Uint8Array<ArrayBuffer>);
  }

  pointee(t: CType): CType {
    return this.sym.clang_getPointeeType(t as Uint8Array<ArrayBuffer>);
  }

  declaration(t: CType): Cursor {
    return this.sym.clang_getTypeDeclaration(t as Uint8Array<ArrayBuffer>);
  }

  sizeOf(t: CType): number {
    return Number(this.sym.clang_Type_getSizeOf(t as Uint8Array<ArrayBuffer>));
  }

  alignOf(t: CType): number {
    return Number(this.sym.clang_Type_getAlignOf(t as Uint8Array<ArrayBuffer>));
  }

  /** Offset in bits of a (possibly nested anonymous) field of a record type, or a negative error code. */
  offsetOf(t: CType, field: string): number {
    return Number(this.sym.clang_Type_getOffsetOf(t as Uint8Array<ArrayBuffer>, cstr(field)));
  }

  arrayElement(t: CType): CType {
    return this.sym.clang_getArrayElementType(t as Uint8Array<ArrayBuffer>);
  }

  arraySize(t: CType): number {
    return Number(this.sym.clang_getArraySize(t as Uint8Array<ArrayBuffer>));
  }

  isConst(t: CType): boolean {
    return this.sym.clang_isConstQualifiedType(t as Uint8Array<ArrayBuffer>) !== 0;
  }

  named(t: CType): CType {
    return this.sym.clang_Type_getNamedType(t as Uint8Array<ArrayBuffer>);
  }

  modified(t: CType): CType {
    return this.sym.clang_Type_getModifiedType(t as Uint8Array<ArrayBuffer>);
  }

  fnResult(t: CType): CType {
    return this.sym.clang_getResultType(t as Uint8Array<ArrayBuffer>);
  }

  fnArgCount(t: CType): number {
    return this.sym.clang_getNumArgTypes(t as Uint8Array<ArrayBuffer>);
  }

  fnArg(t: CType, i: number): CType {
    return this.sym.clang_getArgType(t as Uint8Array<ArrayBuffer>, i);
  }

  fnVariadic(t: CType): boolean {
    return this.sym.clang_isFunctionTypeVariadic(t as Uint8Array<ArrayBuffer>) !== 0;
  }

  close(): void {
    this.visitor?.close();
    this.lib.close();
  }
}
