// Structs by value: native on Deno, lowered to scalars by the x86-64 System V rules on Bun. Every expectation is the
// same on both runtimes, except the calls Bun cannot express (a 9–16-byte struct result in two registers).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ffi,
  Scratch,
  StructValueError,
  UnsupportedOnRuntimeError,
  type FunctionType,
  type NativeLibrary,
  type Pointer,
} from "../../src/ffi/index.ts";
import {
  ComplexDouble,
  ComplexFloat,
  CXCursor,
  CXSourceLocation,
  CXSourceRange,
  CXString,
  CXType,
  DivT,
  f32Bytes,
  f64Bytes,
  i32At,
  InAddr,
  LIBCLANG,
  LdivT,
  struct,
} from "./helpers.ts";

const onBun = ffi.runtime === "bun";
/** `CXCursor_TranslationUnit` in LLVM 17 and later (300 before). */
const CXCursor_TranslationUnit = 350;

function need<T extends FunctionType>(lib: NativeLibrary, name: string, type: T) {
  const fn = lib.bind(name, type);
  if (fn === null) throw new Error(`${name} missing`);
  return fn;
}

describe("libc and libm structs by value", () => {
  const libc = ffi.openLibrary("libc.so.6");
  const libm = ffi.openLibrary("libm.so.6");

  it("inet_ntoa(struct in_addr): a 4-byte INTEGER struct in one register", () => {
    const inet_ntoa = need(libc, "inet_ntoa", { parameters: [InAddr], result: "pointer" } as const);
    expect(ffi.readCString(inet_ntoa(new Uint8Array([127, 0, 0, 1])))).toBe("127.0.0.1");
    expect(ffi.readCString(inet_ntoa(new Uint8Array([10, 20, 30, 255])))).toBe("10.20.30.255");
  });

  it("inet_makeaddr returns struct in_addr in RAX", () => {
    const inet_makeaddr = need(libc, "inet_makeaddr", { parameters: ["u32", "u32"], result: InAddr } as const);
    expect([...inet_makeaddr(127, 1)]).toEqual([127, 0, 0, 1]);
  });

  it("div returns div_t (8 bytes, RAX)", () => {
    const div = need(libc, "div", { parameters: ["i32", "i32"], result: DivT } as const);
    const r = div(17, 5);
    expect(r.byteLength).toBe(8);
    expect([i32At(r, 0), i32At(r, 4)]).toEqual([3, 2]);
    const n = div(-17, 5);
    expect([i32At(n, 0), i32At(n, 4)]).toEqual([-3, -2]);
  });

  it("ldiv returns ldiv_t in RAX:RDX: Bun cannot express it (clear error), Deno returns it", () => {
    const type = { parameters: ["i64", "i64"], result: LdivT } as const;
    const ldiv = need(libc, "ldiv", type);
    if (onBun) {
      expect(ffi.unsupportedReason(type, "ldiv")).toMatch(/ldiv returns struct ldiv_t \(16 bytes\) in two registers \(RAX:RDX\)/);
      expect(() => ldiv(17n, 5n)).toThrow(UnsupportedOnRuntimeError);
      expect(() => ldiv(17n, 5n)).toThrow(/cannot be expressed on Bun\. Deno can call it/);
    } else {
      expect(ffi.unsupportedReason(type, "ldiv")).toBeNull();
      const r = ldiv(-(2n ** 40n) - 3n, 2n);
      const dv = new DataView(r.buffer, r.byteOffset, r.byteLength);
      expect([dv.getBigInt64(0, true), dv.getBigInt64(8, true)]).toEqual([-(2n ** 39n) - 1n, -1n]);
    }
  });

  it("cabsf(float complex): an SSE eightbyte holding two floats, as the bits of one double", () => {
    const cabsf = need(libm, "cabsf", { parameters: [ComplexFloat], result: "f32" } as const);
    expect(cabsf(f32Bytes(3, 4))).toBe(5);
    expect(cabsf(f32Bytes(-5, 12))).toBe(13);
  });

  it("conjf returns float complex in XMM0", () => {
    const conjf = need(libm, "conjf", { parameters: [ComplexFloat], result: ComplexFloat } as const);
    const r = conjf(f32Bytes(3, 4));
    expect([...new Float32Array(r.slice().buffer)]).toEqual([3, -4]);
  });

  it("cabs(double complex): two SSE eightbytes in XMM0 and XMM1", () => {
    const cabs = need(libm, "cabs", { parameters: [ComplexDouble], result: "f64" } as const);
    expect(cabs(f64Bytes(3, 4))).toBe(5);
  });

  it("conj returns double complex in XMM0:XMM1: Bun cannot express it, Deno returns it", () => {
    const conj = need(libm, "conj", { parameters: [ComplexDouble], result: ComplexDouble } as const);
    if (onBun) {
      expect(() => conj(f64Bytes(3, 4))).toThrow(/conj returns struct double _Complex \(16 bytes\) in two registers \(XMM0:XMM1\)/);
    } else {
      expect([...new Float64Array(conj(f64Bytes(3, 4)).slice().buffer)]).toEqual([3, -4]);
    }
  });

  it("cabsf with float bits that make the eightbyte a NaN double: Bun refuses (JS may canonicalise NaN), Deno passes natively", () => {
    const cabsf = need(libm, "cabsf", { parameters: [ComplexFloat], result: "f32" } as const);
    const bytes = new Uint8Array(new ArrayBuffer(8));
    new DataView(bytes.buffer).setUint32(4, 0x7fffffff, true); // im = a NaN whose top mantissa bits make hi word NaN
    if (onBun) expect(() => cabsf(bytes)).toThrow(StructValueError);
    else expect(Number.isNaN(cabsf(bytes))).toBe(true);
  });

  it.runIf(onBun)(
    "a struct argument shorter than the struct is refused (Bun only: lowering copies and checks the bytes; Deno's FFI does not check the length)",
    () => {
      const inet_ntoa = need(libc, "inet_ntoa", { parameters: [InAddr], result: "pointer" } as const);
      expect(() => inet_ntoa(new Uint8Array(2))).toThrow(StructValueError);
    },
  );

  it("snprintf sees each argument where the ABI puts it: a 16-byte struct that no longer fits in registers goes on \
the stack, the next scalar takes the register left, a MEMORY struct follows on the stack", () => {
    // snprintf(buf, n, fmt, ...) reads its integer varargs from RCX, R8, R9, then the stack in order, so the
    // printed order is the order the callee sees: a, b, c (R9, not taken by s), s.0, s.1, m.0..m.3, d, e.
    const S16 = struct("S16", 16, 8, [
      [0, "u64"],
      [8, "u64"],
    ]);
    const M32 = struct("M32", 32, 8, [
      [0, "u64"],
      [8, "u64"],
      [16, "u64"],
      [24, "u64"],
    ]);
    const snprintf = need(libc, "snprintf", {
      parameters: ["pointer", "u64", "pointer", "u64", "u64", S16, "u64", M32, "u64", "u64"],
      result: "i32",
    } as const);
    const buf = new Scratch(512);
    const fmt = ffi.cstring(Array(11).fill("%lx").join(" "));
    const words = (...w: bigint[]) => new Uint8Array(new BigUint64Array(w).buffer);
    const n = snprintf(
      buf.pointer,
      512,
      ffi.pointerOf(fmt),
      0xa,
      0xb,
      words(0x5005n, 0x5115n),
      0xc,
      words(0x3000n, 0x3111n, 0xffffffffffffffffn, 0x3333n),
      0xd,
      0xe,
    );
    const text = buf.readCString(0);
    expect(text).toBe("a b c 5005 5115 3000 3111 ffffffffffffffff 3333 d e");
    expect(n).toBe(text.length);
  });
});

describe("libclang structs by value (CXCursor, CXSourceLocation, CXType are MEMORY; CXString is RAX:RDX)", () => {
  const sig = {
    createIndex: { parameters: ["i32", "i32"], result: "pointer" },
    disposeIndex: { parameters: ["pointer"], result: "void" },
    parseTranslationUnit: {
      parameters: ["pointer", "pointer", "pointer", "i32", "pointer", "u32", "u32"],
      result: "pointer",
    },
    disposeTranslationUnit: { parameters: ["pointer"], result: "void" },
    getTranslationUnitCursor: { parameters: ["pointer"], result: CXCursor },
    getCursorKind: { parameters: [CXCursor], result: "i32" },
    getFile: { parameters: ["pointer", "pointer"], result: "pointer" },
    getLocation: { parameters: ["pointer", "pointer", "u32", "u32"], result: CXSourceLocation },
    getCursor: { parameters: ["pointer", CXSourceLocation], result: CXCursor },
    Cursor_getNumArguments: { parameters: [CXCursor], result: "i32" },
    Cursor_getArgument: { parameters: [CXCursor, "u32"], result: CXCursor },
    getCursorLocation: { parameters: [CXCursor], result: CXSourceLocation },
    getFileLocation: { parameters: [CXSourceLocation, "pointer", "pointer", "pointer", "pointer"], result: "void" },
    equalCursors: { parameters: [CXCursor, CXCursor], result: "u32" },
    equalLocations: { parameters: [CXSourceLocation, CXSourceLocation], result: "u32" },
    getRange: { parameters: [CXSourceLocation, CXSourceLocation], result: CXSourceRange },
    getRangeEnd: { parameters: [CXSourceRange], result: CXSourceLocation },
    getCursorType: { parameters: [CXCursor], result: CXType },
    getNumArgTypes: { parameters: [CXType], result: "i32" },
    getArgType: { parameters: [CXType, "u32"], result: CXType },
    getCursorResultType: { parameters: [CXCursor], result: CXType },
    getCursorSpelling: { parameters: [CXCursor], result: CXString },
    getCString: { parameters: [CXString], result: "pointer" },
    disposeString: { parameters: [CXString], result: "void" },
  } as const;

  let lib: NativeLibrary;
  let clang: { [K in keyof typeof sig]: ReturnType<typeof bindOne<(typeof sig)[K]>> };
  function bindOne<T extends FunctionType>(name: string, type: T) {
    return need(lib, `clang_${name}`, type);
  }
  let index: Pointer;
  let tu: Pointer;
  let path: string;
  const source = "int add(int a, int b) { return a + b; }\nstruct P { int x; };\n";

  beforeAll(() => {
    lib = ffi.openLibrary(LIBCLANG);
    const entries = Object.entries(sig).map(([k, t]) => [k, bindOne(k, t)]);
    clang = Object.fromEntries(entries) as typeof clang;
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-ffi-"));
    path = join(dir, "sample.c");
    writeFileSync(path, source);
    index = clang.createIndex(0, 0);
    // Seven arguments: the seventh (options) is on the stack.
    tu = clang.parseTranslationUnit(index, ffi.pointerOf(ffi.cstring(path)), null, 0, null, 0, 0);
  });
  afterAll(() => {
    clang.disposeTranslationUnit(tu);
    clang.disposeIndex(index);
  });

  const functionCursor = () => {
    const file = clang.getFile(tu, ffi.pointerOf(ffi.cstring(path)));
    return clang.getCursor(tu, clang.getLocation(tu, file, 1, 5));
  };

  it("parses, and clang_getTranslationUnitCursor returns a 32-byte CXCursor (hidden result pointer)", () => {
    expect(tu).not.toBeNull();
    const cursor = clang.getTranslationUnitCursor(tu);
    expect(cursor.byteLength).toBe(32);
    expect(i32At(cursor, 0)).toBe(CXCursor_TranslationUnit);
  });

  it("clang_getCursorKind(CXCursor) reads the struct from the stack: CXCursor_TranslationUnit (350 since LLVM 17)", () => {
    expect(clang.getCursorKind(clang.getTranslationUnitCursor(tu))).toBe(CXCursor_TranslationUnit);
  });

  it("clang_getCursor(tu, CXSourceLocation): a pointer in RDI, the location on the stack, a CXCursor result", () => {
    const cursor = functionCursor();
    expect(clang.getCursorKind(cursor)).toBe(8); // CXCursor_FunctionDecl
    expect(clang.Cursor_getNumArguments(cursor)).toBe(2);
  });

  it("clang_Cursor_getArgument(CXCursor, unsigned): the scalar after the struct stays in a register", () => {
    const fn = functionCursor();
    const b = clang.Cursor_getArgument(fn, 1);
    expect(clang.getCursorKind(b)).toBe(10); // CXCursor_ParmDecl
    expect(clang.equalCursors(b, clang.Cursor_getArgument(fn, 1))).not.toBe(0);
    expect(clang.equalCursors(b, clang.Cursor_getArgument(fn, 0))).toBe(0);
  });

  it("clang_getFileLocation(CXSourceLocation, 4 out-pointers): line and column of parameter b", () => {
    const loc = clang.getCursorLocation(clang.Cursor_getArgument(functionCursor(), 1));
    const out = new Scratch(16);
    clang.getFileLocation(loc, null, out.pointerAt(0), out.pointerAt(4), out.pointerAt(8));
    expect([out.u32[0], out.u32[1], out.u32[2]]).toEqual([1, 20, 19]);
  });

  it("clang_getRange(two MEMORY structs) and clang_getRangeEnd round-trip a location", () => {
    const fn = functionCursor();
    const start = clang.getCursorLocation(fn);
    const end = clang.getCursorLocation(clang.Cursor_getArgument(fn, 1));
    const range = clang.getRange(start, end);
    expect(range.byteLength).toBe(24);
    expect(clang.equalLocations(clang.getRangeEnd(range), end)).toBe(1);
    expect(clang.equalLocations(clang.getRangeEnd(range), start)).toBe(0);
  });

  it("CXType by value: function prototype with two int parameters returning int", () => {
    const fn = functionCursor();
    const type = clang.getCursorType(fn);
    expect(i32At(type, 0)).toBe(111); // CXType_FunctionProto
    expect(clang.getNumArgTypes(type)).toBe(2);
    expect(i32At(clang.getArgType(type, 1), 0)).toBe(17); // CXType_Int
    expect(i32At(clang.getCursorResultType(fn), 0)).toBe(17);
  });

  it("clang_getCursorSpelling returns CXString in RAX:RDX: Bun throws the clear error, Deno returns it", () => {
    const fn = functionCursor();
    if (onBun) {
      expect(() => clang.getCursorSpelling(fn)).toThrow(UnsupportedOnRuntimeError);
      expect(() => clang.getCursorSpelling(fn)).toThrow(
        "clang_getCursorSpelling returns struct CXString (16 bytes) in two registers (RAX:RDX); bun:ffi reads only " +
          "one result register, so this call cannot be expressed on Bun. Deno can call it (deno run --allow-ffi).",
      );
    } else {
      const s = clang.getCursorSpelling(fn);
      expect(s.byteLength).toBe(16);
      expect(ffi.readCString(clang.getCString(s))).toBe("add");
      clang.disposeString(s);
      const kindSpelling = need(lib, "clang_getCursorKindSpelling", { parameters: ["i32"], result: CXString } as const);
      const k = kindSpelling(CXCursor_TranslationUnit);
      expect(ffi.readCString(clang.getCString(k))).toBe("TranslationUnit");
      clang.disposeString(k);
    }
  });

  it.runIf(!onBun)("callbacks with struct parameters: clang_visitChildren (Deno only: bun:ffi callbacks have no struct type)", () => {
    const visitChildren = need(lib, "clang_visitChildren", {
      parameters: [CXCursor, "function", "pointer"],
      result: "u32",
    } as const);
    const kinds: number[] = [];
    const visitor = ffi.callback({ parameters: [CXCursor, CXCursor, "pointer"], result: "i32" } as const, (cursor) => {
      kinds.push(i32At(cursor, 0));
      return 1; // CXChildVisit_Continue
    });
    try {
      visitChildren(clang.getTranslationUnitCursor(tu), visitor.pointer, null);
    } finally {
      visitor.close();
    }
    expect(kinds).toEqual([8, 2]); // FunctionDecl add, StructDecl P
  });

  it.runIf(onBun)("callbacks with struct parameters are refused with a typed error (Bun only: Deno supports them)", () => {
    expect(() =>
      ffi.callback({ parameters: [CXCursor, CXCursor, "pointer"], result: "i32" } as const, () => 1),
    ).toThrow(UnsupportedOnRuntimeError);
  });
});
