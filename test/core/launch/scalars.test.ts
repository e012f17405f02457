/**
 * f16() and bf16() round the double once, to nearest with ties to even, as the GPU's __double2half and
 * __double2bfloat16 do: checked here against an exact reference on every tie of both formats and the doubles
 * around it (test/core/launch/scalars.gpu.test.ts compares the same inputs with the GPU's own conversion).
 */
import { describe, expect, it } from "vitest";
import { bf16, f16, type KernelScalar } from "../../../src/index.ts";
import { toBFloat16Bits, toHalfBits } from "../../../src/core/launch/scalars.ts";
import { BFLOAT16, BINARY16, referenceBits, tieCases, type FloatFormat } from "../../support/float-reference.ts";

function bitsOf(s: KernelScalar): number {
  const dv = new DataView(new ArrayBuffer(2));
  s.write(dv, 0);
  return dv.getUint16(0, true);
}

function mismatches(convert: (x: number) => number, f: FloatFormat): string[] {
  const out: string[] = [];
  for (const x of tieCases(f)) {
    const got = convert(x);
    const want = referenceBits(x, f);
    if (got !== want && out.length < 10) out.push(`${x}: 0x${got.toString(16)}, not 0x${want.toString(16)}`);
  }
  return out;
}

describe("f16() and bf16() round once from the double", () => {
  it("rounds a value just above a tie up (not through float32 first)", () => {
    expect(bitsOf(f16(1 + 2 ** -11 + 2 ** -40))).toBe(0x3c01);
    expect(bitsOf(f16(1 + 2 ** -11))).toBe(0x3c00); // the tie itself: to even
    expect(bitsOf(f16(1 + 3 * 2 ** -11))).toBe(0x3c02); // a tie whose lower neighbour is odd: up
    expect(bitsOf(bf16(1 + 2 ** -8 + 2 ** -40))).toBe(0x3f81);
    expect(bitsOf(bf16(1 + 2 ** -8))).toBe(0x3f80);
  });

  it("matches the exact reference on every binary16 tie and the doubles around it", () => {
    expect(mismatches(toHalfBits, BINARY16)).toEqual([]);
  });

  it("matches the exact reference on every bfloat16 tie and the doubles around it", () => {
    expect(mismatches(toBFloat16Bits, BFLOAT16)).toEqual([]);
  });

  it("keeps the edges: zeros, subnormals, the largest values, overflow, infinities, NaN", () => {
    expect(toHalfBits(0)).toBe(0);
    expect(toHalfBits(-0)).toBe(0x8000);
    expect(toHalfBits(2 ** -24)).toBe(1);
    expect(toHalfBits(2 ** -25)).toBe(0); // a tie with 0: to even
    expect(toHalfBits(2 ** -25 + 2 ** -60)).toBe(1);
    expect(toHalfBits(5e-324)).toBe(0);
    expect(toHalfBits(65504)).toBe(0x7bff);
    expect(toHalfBits(65519.99)).toBe(0x7bff);
    expect(toHalfBits(65520)).toBe(0x7c00);
    expect(toHalfBits(1e300)).toBe(0x7c00);
    expect(toHalfBits(-Infinity)).toBe(0xfc00);
    expect(toHalfBits(NaN)).toBe(0x7e00);
    expect(toBFloat16Bits(-2)).toBe(0xc000);
    expect(toBFloat16Bits(2 ** -133)).toBe(1);
    expect(toBFloat16Bits(2 ** -134)).toBe(0);
    expect(toBFloat16Bits(3.4e38)).toBe(0x7f80);
    expect(toBFloat16Bits(1e300)).toBe(0x7f80);
    expect(toBFloat16Bits(Infinity)).toBe(0x7f80);
    expect(toBFloat16Bits(NaN)).toBe(0x7fc0);
  });

  it("agrees with the reference on ordinary values", () => {
    for (const x of [1, -1.5, 0.1, 3.14159, 1e-5, 6e-8, 1234.5678, 2 ** -14, 2 ** -14 - 2 ** -30]) {
      expect(toHalfBits(x)).toBe(referenceBits(x, BINARY16));
      expect(toBFloat16Bits(x)).toBe(referenceBits(x, BFLOAT16));
    }
  });
});
