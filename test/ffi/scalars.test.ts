import { describe, expect, it } from "vitest";
import { ffi, type FunctionType, type NativeType } from "../../src/ffi/index.ts";

const libc = ffi.openLibrary("libc.so.6");
const libm = ffi.openLibrary("libm.so.6");

function need<T extends FunctionType>(lib: typeof libc, name: string, type: T) {
  const fn = lib.bind(name, type);
  if (fn === null) throw new Error(`${name} missing`);
  return fn;
}

describe("scalar arguments and results through libc and libm", () => {
  it("i32: abs, toupper", () => {
    const abs = need(libc, "abs", { parameters: ["i32"], result: "i32" } as const);
    const toupper = need(libc, "toupper", { parameters: ["i32"], result: "i32" } as const);
    expect(abs(-5)).toBe(5);
    expect(abs(-2147483647)).toBe(2147483647);
    expect(abs(-2147483648)).toBe(-2147483648); // INT_MIN stays INT_MIN
    expect(toupper(97)).toBe(65);
    expect(toupper(-1)).toBe(-1);
  });

  it("i64: labs, llabs take bigint or number and return bigint", () => {
    const labs = need(libc, "labs", { parameters: ["i64"], result: "i64" } as const);
    const llabs = need(libc, "llabs", { parameters: ["i64"], result: "i64" } as const);
    expect(labs(-5)).toBe(5n);
    expect(labs(-(2 ** 40))).toBe(2n ** 40n);
    expect(llabs(-(2n ** 62n))).toBe(2n ** 62n);
    expect(llabs(-(2n ** 63n) + 1n)).toBe(2n ** 63n - 1n);
  });

  it("u64: strtoull returns values above 2^53 and 2^63 exactly; strnlen takes a u64 bound", () => {
    const strtoull = need(libc, "strtoull", { parameters: ["pointer", "pointer", "i32"], result: "u64" } as const);
    const strnlen = need(libc, "strnlen", { parameters: ["pointer", "u64"], result: "u64" } as const);
    const max = ffi.cstring("18446744073709551615");
    expect(strtoull(ffi.pointerOf(max), null, 10)).toBe(2n ** 64n - 1n);
    const big = ffi.cstring("9007199254740993");
    expect(strtoull(ffi.pointerOf(big), null, 10)).toBe(9007199254740993n);
    const hex = ffi.cstring("8000000000000001");
    expect(strtoull(ffi.pointerOf(hex), null, 16)).toBe(2n ** 63n + 1n);
    const s = ffi.cstring("hello world");
    expect(strnlen(ffi.pointerOf(s), 5)).toBe(5n);
    expect(strnlen(ffi.pointerOf(s), 2n ** 64n - 1n)).toBe(11n);
  });

  it("f64: ldexp, frexp's result, fabs", () => {
    const ldexp = need(libc, "ldexp", { parameters: ["f64", "i32"], result: "f64" } as const);
    const fabs = need(libm, "fabs", { parameters: ["f64"], result: "f64" } as const);
    expect(ldexp(0.75, 4)).toBe(12);
    expect(ldexp(1, -1074)).toBe(5e-324);
    expect(ldexp(1.5, 1023)).toBe(1.5 * 2 ** 1023);
    expect(fabs(-2.5)).toBe(2.5);
    expect(fabs(-Infinity)).toBe(Infinity);
    expect(Number.isNaN(fabs(Number.NaN))).toBe(true);
  });

  it("f32: fabsf, ldexpf, sqrtf round to single precision", () => {
    const fabsf = need(libm, "fabsf", { parameters: ["f32"], result: "f32" } as const);
    const ldexpf = need(libm, "ldexpf", { parameters: ["f32", "i32"], result: "f32" } as const);
    const sqrtf = need(libm, "sqrtf", { parameters: ["f32"], result: "f32" } as const);
    expect(fabsf(-1.5)).toBe(1.5);
    expect(ldexpf(0.75, 3)).toBe(6);
    expect(sqrtf(2)).toBe(Math.fround(Math.SQRT2));
    expect(fabsf(0.1)).toBe(Math.fround(0.1));
  });

  it("pointer: strlen of a buffer, strchr returns an interior pointer or NULL", () => {
    const strlen = need(libc, "strlen", { parameters: ["pointer"], result: "u64" } as const);
    const strchr = need(libc, "strchr", { parameters: ["pointer", "i32"], result: "pointer" } as const);
    const s = ffi.cstring("hello");
    const p = ffi.pointerOf(s);
    expect(strlen(p)).toBe(5n);
    const l = strchr(p, "l".charCodeAt(0));
    expect(ffi.samePointer(l, ffi.offsetPointer(p, 2))).toBe(true);
    expect(ffi.addressOf(l) - ffi.addressOf(p)).toBe(2);
    expect(strchr(p, "z".charCodeAt(0))).toBeNull();
  });

  it("void result: srand returns undefined", () => {
    const srand = need(libc, "srand", { parameters: ["u32"], result: "void" } as const);
    expect(srand(1)).toBeUndefined();
  });
});

describe("every scalar type through a native trampoline and back (callback called through bindAt)", () => {
  const cases: [NativeType, unknown[]][] = [
    ["bool", [true, false]],
    ["i8", [-128, -1, 0, 127]],
    ["u8", [0, 1, 200, 255]],
    ["i16", [-32768, -2, 32767]],
    ["u16", [0, 40000, 65535]],
    ["i32", [-2147483648, -7, 2147483647]],
    ["u32", [0, 3000000000, 4294967295]],
    ["i64", [-(2n ** 63n), -1n, 2n ** 63n - 1n]],
    ["u64", [0n, 2n ** 53n + 1n, 2n ** 64n - 1n]],
    ["f32", [1.5, -0.25, Math.fround(3.14159)]],
    ["f64", [Math.PI, -1e300, 5e-324]],
  ];
  for (const [type, values] of cases) {
    it(`${String(type)} round-trips`, () => {
      const sig = { parameters: [type], result: type } as const satisfies FunctionType;
      const cb = ffi.callback(sig, ((x: unknown) => x) as never);
      try {
        const fn = libc.bindAt(cb.pointer!, sig) as unknown as (x: unknown) => unknown;
        for (const v of values) expect(fn(v)).toBe(v);
      } finally {
        cb.close();
      }
    });
  }

  it("pointer round-trips, NULL as null", () => {
    const sig = { parameters: ["pointer"], result: "pointer" } as const;
    const cb = ffi.callback(sig, (p) => p);
    try {
      const fn = libc.bindAt(cb.pointer!, sig);
      const buf = new ArrayBuffer(16);
      const p = ffi.pointerOf(buf);
      expect(ffi.samePointer(fn(p), p)).toBe(true);
      expect(fn(null)).toBeNull();
      const high = ffi.pointerFromAddress(0x7fff_ffff_f000n);
      expect(ffi.bigAddressOf(fn(high))).toBe(0x7fff_ffff_f000n);
    } finally {
      cb.close();
    }
  });

  it("many mixed arguments (more than fit in registers) arrive in order", () => {
    const sig = {
      parameters: ["i32", "f64", "i64", "f32", "u8", "pointer", "f64", "u32", "i16", "f64", "f64", "f64", "f64", "f64", "f64", "f64", "u64", "i32"],
      result: "f64",
    } as const satisfies FunctionType;
    const seen: unknown[] = [];
    const cb = ffi.callback(sig, (...args) => {
      seen.push(...args);
      return 42.5;
    });
    try {
      const fn = libc.bindAt(cb.pointer!, sig);
      const p = ffi.pointerFromAddress(0x1000);
      const r = fn(-3, 1.25, -(2n ** 40n), 0.5, 250, p, 2.5, 4000000000, -300, 1, 2, 3, 4, 5, 6, 7, 2n ** 60n, 99);
      expect(r).toBe(42.5);
      expect(seen.length).toBe(18);
      expect(seen.slice(0, 5)).toEqual([-3, 1.25, -(2n ** 40n), 0.5, 250]);
      expect(ffi.addressOf(seen[5] as ReturnType<typeof ffi.pointerFromAddress>)).toBe(0x1000);
      expect(seen.slice(6)).toEqual([2.5, 4000000000, -300, 1, 2, 3, 4, 5, 6, 7, 2n ** 60n, 99]);
    } finally {
      cb.close();
    }
  });
});
