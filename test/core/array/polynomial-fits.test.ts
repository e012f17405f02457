/**
 * `polyfit` and `roots` without a GPU: their arguments checked before a stream is needed.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError } from "../../../src/errors/base.ts";
import { DTypeError, ShapeMismatchError } from "../../../src/index.ts";
import { poly, polyfit, roots } from "../../../src/array-linalg.ts";
import { polyFromRoots } from "../../../src/core/array/linalg/polynomial-fits.ts";
import { dtypes, type DTypeName } from "../../../src/core/array/dtype.ts";
import fromRoots from "../../fixtures/arrays/poly-from-roots.json" with { type: "json" };
import { fakeArray } from "../../support/fake-arrays.ts";

const NEEDS_STREAM = /needs a stream/;

describe("polyfit and roots: checks", () => {
  it("polyfit takes a 1-d non-empty x, a y of its length, a degree, weights of its length", () => {
    const x = fakeArray([5], "float32");
    expect(() => polyfit(x, fakeArray([5], "float32"), 2)).toThrow(NEEDS_STREAM);
    expect(() => polyfit(x, fakeArray([5, 3], "float64"), 2)).toThrow(NEEDS_STREAM);
    expect(() => polyfit(x, fakeArray([4], "float32"), 2)).toThrow(/x has 5 samples and y 4/);
    expect(() => polyfit(x, fakeArray([5, 1, 1], "float32"), 2)).toThrow(ShapeMismatchError);
    expect(() => polyfit(fakeArray([5, 1], "float32"), fakeArray([5], "float32"), 2)).toThrow(ShapeMismatchError);
    expect(() => polyfit(fakeArray([0], "float32"), fakeArray([0], "float32"), 2)).toThrow(/x is empty/);
    expect(() => polyfit(x, fakeArray([5], "float32"), -1)).toThrow(ArgumentError);
    expect(() => polyfit(x, fakeArray([5], "float32"), 1.5)).toThrow(ArgumentError);
    expect(() => polyfit(x, fakeArray([5], "float32"), 1, { w: fakeArray([4], "float64") })).toThrow(/5 weights/);
    expect(() => polyfit(x, fakeArray([5], "float32"), 1, { w: fakeArray([5], "float64") })).toThrow(NEEDS_STREAM);
    expect(() => polyfit(x, fakeArray([5], "float32"), 1, { rcond: -1 })).toThrow(ArgumentError);
    expect(() => polyfit(x, fakeArray([5], "float32"), 1, { full: 1 as never })).toThrow(ArgumentError);
    expect(() => polyfit(x, fakeArray([5], "float32"), 1, { cov: "scaled" as never })).toThrow(/cov is true, false or "unscaled"/);
    // A scaled covariance needs more samples than coefficients; unscaled, or under full, it does not.
    expect(() => polyfit(x, fakeArray([5], "float32"), 4, { cov: true })).toThrow(/needs more than 5 samples, and x has 5/);
    expect(() => polyfit(x, fakeArray([5], "float32"), 4, { cov: "unscaled" })).toThrow(NEEDS_STREAM);
    expect(() => polyfit(x, fakeArray([5], "float32"), 4, { cov: true, full: true } as { full: true })).toThrow(NEEDS_STREAM);
    expect(() => polyfit(x, [1, 2] as never, 1)).toThrow(TypeError);
    expect(() => polyfit(x, fakeArray([5], "float32"), 1, { w: fakeArray([5], "complex64") })).toThrow(DTypeError);
    expect(() => polyfit(fakeArray([5], "complex64"), fakeArray([5], "complex128"), 1, { w: fakeArray([5], "complex64") })).toThrow(NEEDS_STREAM);
  });

  it("roots takes a 1-d array or a list of numbers, not half precision", () => {
    expect(() => roots([1, -3, 2])).toThrow(NEEDS_STREAM);
    expect(() => roots(fakeArray([3], "float64"))).toThrow(NEEDS_STREAM);
    expect(() => roots(fakeArray([3], "int32"))).toThrow(NEEDS_STREAM);
    expect(() => roots(fakeArray([3, 1], "float64"))).toThrow(ShapeMismatchError);
    expect(() => roots(fakeArray([], "float64"))).toThrow(NEEDS_STREAM);
    // Half precision is refused once the degree is known (NumPy's roots of float16 [1, 0] is [0.]).
    expect(() => roots(fakeArray([3], "float16"))).toThrow(NEEDS_STREAM);
    expect(() => roots(["1"] as never)).toThrow(TypeError);
    expect(() => roots([1, 2], 3 as never)).toThrow(TypeError);
  });
});

describe("poly", () => {
  it("builds NumPy's coefficients from roots, real for conjugate pairs", () => {
    const tolerance: Record<string, number> = { float64: 1e-12, complex128: 1e-12, float32: 2e-5, complex64: 2e-5 };
    for (const c of fromRoots.cases) {
      const dt = ["float32", "complex64", "complex128"].includes(c.dtype) ? dtypes[c.dtype as DTypeName] : dtypes.float64;
      const got = polyFromRoots(c.zeros as [number, number][], dt);
      const label = `${c.dtype} ${JSON.stringify(c.zeros)}`;
      expect(got.dtype.name, label).toBe(c.out);
      expect(got.coefficients.length, label).toBe(c.coefficients.length);
      got.coefficients.forEach(([re, im], k) => {
        const [wr, wi] = c.coefficients[k]!;
        expect(Math.abs(re - wr!) + Math.abs(im - wi!), `${label} [${k}]`).toBeLessThanOrEqual(tolerance[c.out.startsWith("float32") ? "float32" : c.out]! * Math.max(1, Math.hypot(wr!, wi!)));
      });
    }
  });

  it("takes roots or a non-empty square matrix", () => {
    expect(() => poly([1, 2])).toThrow(/needs a stream/);
    expect(() => poly(fakeArray([3], "float32"))).toThrow(/needs a stream/);
    expect(() => poly(fakeArray([3, 3], "float64"))).toThrow(/needs a stream/);
    expect(() => poly(fakeArray([2, 3], "float64"))).toThrow(/a 1-d array of roots or a non-empty square matrix, not shape \[2, 3\]/);
    expect(() => poly(fakeArray([0, 0], "float64"))).toThrow(ShapeMismatchError);
    expect(() => poly(fakeArray([2, 2, 2], "float64"))).toThrow(ShapeMismatchError);
    expect(() => poly(["1"] as never)).toThrow(TypeError);
  });
});
