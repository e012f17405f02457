// Out-parameters through a Scratch, many times after warm-up: guards against Bun issue 32054 (the storage of a small
// typed array moves after JIT tier-up, so C writes to a stale address and JS reads a frozen copy).
import { describe, expect, it } from "vitest";
import { ffi, Scratch } from "../../src/ffi/index.ts";

const libc = ffi.openLibrary("libc.so.6");
const frexp = libc.bind("frexp", { parameters: ["f64", "pointer"], result: "f64" } as const)!;
const strtol = libc.bind("strtol", { parameters: ["pointer", "pointer", "i32"], result: "i64" } as const)!;

const WARM_UP = 20_000;
const CALLS = 100_000;

/** The binary exponent frexp must report: x = m * 2^e with 0.5 <= |m| < 1 (normal, finite, non-zero x). */
function expectedExponent(x: number): number {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x, true);
  return ((dv.getUint16(6, true) >> 4) & 0x7ff) - 1022;
}

describe("out-parameters through a Scratch, after warm-up", () => {
  it(`frexp(double, int*) ${CALLS} times: every exponent and mantissa`, () => {
    const out = new Scratch(8);
    const exponentPtr = out.pointer;
    const run = (i: number): boolean => {
      const x = (i + 1) * 1.37 * (i % 2 === 0 ? 1 : -1) * 2 ** ((i % 200) - 100);
      out.i32[0] = 0x55555555;
      const m = frexp(x, exponentPtr);
      const e = out.i32[0]!;
      return e === expectedExponent(x) && m === x / 2 ** e && Math.abs(m) >= 0.5 && Math.abs(m) < 1;
    };
    for (let i = 0; i < WARM_UP; i++) run(i);
    let bad = 0;
    for (let i = 0; i < CALLS; i++) if (!run(i * 7 + 3)) bad++;
    expect(bad).toBe(0);
  });

  it(`strtol(const char*, char** endptr, int) ${CALLS} times: every value and end pointer`, () => {
    const text = new Scratch(64);
    const end = new Scratch(8);
    const endPtr = end.pointer;
    const run = (i: number): boolean => {
      const n = (i * 2654435761) % 2 ** 40 - 2 ** 39;
      const digits = String(n);
      const s = text.cstring(`${digits}z${i}`);
      end.u64[0] = 0n;
      const value = strtol(s, endPtr, 10);
      const stop = end.readPointer(0);
      return value === BigInt(n) && ffi.addressOf(stop) - ffi.addressOf(s) === digits.length;
    };
    for (let i = 0; i < WARM_UP; i++) run(i);
    let bad = 0;
    for (let i = 0; i < CALLS; i++) if (!run(i + WARM_UP)) bad++;
    expect(bad).toBe(0);
  });

  it("Scratch.pointerAt gives distinct, cached addresses inside one buffer", () => {
    const s = new Scratch(32);
    const a = s.pointerAt(8);
    expect(s.pointerAt(8)).toBe(a); // cached: the same object on Deno, the same number on Bun
    expect(ffi.addressOf(a) - ffi.addressOf(s.pointer)).toBe(8);
    s.writePointer(16, a);
    expect(ffi.samePointer(s.readPointer(16), a)).toBe(true);
    s.dv.setBigUint64(0, 2n ** 64n - 2n, true);
    expect(s.readU64(0)).toBe(2n ** 64n - 2n);
    expect(s.readI64(0)).toBe(-2n);
    expect(s.readU32(0)).toBe(4294967294);
    expect(s.readI32(0)).toBe(-2);
    expect(s.readU8(0)).toBe(254);
    s.f64[1] = 1.5;
    expect(s.readF64(8)).toBe(1.5);
    s.f32[0] = 0.25;
    expect(s.readF32(0)).toBe(0.25);
    expect(() => s.pointerAt(32)).toThrow(RangeError);
  });

  it("Scratch.cstring writes in place when it fits and spills otherwise", () => {
    const s = new Scratch(16);
    const p = s.cstring("héllo", 2);
    expect(ffi.samePointer(p, s.pointerAt(2))).toBe(true);
    expect(ffi.readCString(p)).toBe("héllo");
    expect(s.readCString(2)).toBe("héllo");
    const long = "x".repeat(40);
    const q = s.cstring(long);
    expect(ffi.samePointer(q, s.pointer)).toBe(false);
    expect(ffi.readCString(q)).toBe(long);
    expect(ffi.readCString(s.cstring("fifteen chars!!"))).toBe("fifteen chars!!");
    expect(ffi.samePointer(s.cstring("sixteen chars!!!"), s.pointer)).toBe(false);
  });
});
