/**
 * `polyfit` and `roots` without a GPU: their arguments checked before a stream is needed.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError } from "../../../src/errors/base.ts";
import { DTypeError, ShapeMismatchError } from "../../../src/index.ts";
import { polyfit, roots } from "../../../src/array-linalg.ts";
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
