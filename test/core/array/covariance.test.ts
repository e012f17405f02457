/**
 * `cov` and `corrcoef` without a GPU: every argument check comes before anything is queued (arrays of more than two
 * axes, a `y` of another number of observations, ddof, the flags, the dtype), and arrays that pass the checks reach
 * the stream lookup (host-reachable fake memory has no stream), the next thing checked.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, DTypeError, ShapeMismatchError } from "../../../src/index.ts";
import { corrcoef, cov } from "../../../src/array-linalg.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

describe("cov and corrcoef", () => {
  const m = fakeArray([3, 5], "float64");

  it("refuse what is not a 1-d or 2-d array", () => {
    expect(() => cov([1, 2, 3] as never)).toThrow(/cov: m is a DeviceArray/);
    expect(() => cov(fakeArray([2, 3, 4], "float32"))).toThrow(ShapeMismatchError);
    expect(() => cov(m, { y: fakeArray([1, 1, 5], "float64") })).toThrow(/cov: y has shape \[1, 1, 5\]; pass a 1-d or 2-d array/);
    expect(() => corrcoef(fakeArray([2, 2, 2], "float64"))).toThrow(/corrcoef: m has shape/);
    expect(() => corrcoef(m, { y: {} as never })).toThrow(/corrcoef: y is a DeviceArray/);
  });

  it("refuse a y of another number of observations", () => {
    expect(() => cov(m, { y: fakeArray([4], "float64") })).toThrow(/m has 5 observations but y has 4/);
    expect(() => cov(m, { y: fakeArray([2, 3], "float64") })).toThrow(ShapeMismatchError);
    // rowvar false: the observations are rows (m [5, 3] against y [4, 2]).
    expect(() => cov(fakeArray([5, 3], "float64"), { rowvar: false, y: fakeArray([4, 2], "float64") })).toThrow(/m has 5 observations but y has 4/);
    expect(() => corrcoef(m, { y: fakeArray([6], "int32") })).toThrow(/corrcoef: m has 5 observations but y has 6/);
  });

  it("check ddof, the flags and the dtype", () => {
    expect(() => cov(m, { ddof: 0.5 })).toThrow(ArgumentError);
    expect(() => cov(m, { ddof: "1" as never })).toThrow(/ddof is an integer/);
    expect(() => cov(m, { rowvar: 0 as never })).toThrow(/cov: rowvar is a boolean/);
    expect(() => cov(m, { bias: "yes" as never })).toThrow(/cov: bias is a boolean/);
    expect(() => corrcoef(m, { rowvar: null as never })).toThrow(/corrcoef: rowvar is a boolean/);
    expect(() => cov(m, 3 as never)).toThrow(/cov takes options/);
    expect(() => corrcoef(m, null as never)).toThrow(/corrcoef takes options/);
    expect(() => cov(m, { dtype: "int64" })).toThrow(DTypeError);
    expect(() => cov(m, { dtype: "bool" })).toThrow(/pass a float or complex dtype/);
    expect(() => cov(fakeArray([2, 3], "complex64"), { dtype: "float64" })).toThrow(/would drop the imaginary parts/);
    expect(() => cov(m, { y: fakeArray([5], "complex128"), dtype: "float32" })).toThrow(DTypeError);
  });

  it("get past the checks with right arguments (fake memory has no stream)", () => {
    expect(() => cov(m)).toThrow(/needs a stream/);
    expect(() => cov(fakeArray([5], "int32"), { y: fakeArray([5], "bool"), bias: true, ddof: 2 })).toThrow(/needs a stream/);
    expect(() => cov(fakeArray([5, 3], "float32"), { rowvar: false, dtype: "float32" })).toThrow(/needs a stream/);
    expect(() => cov(fakeArray([2, 3], "complex64"), { dtype: "complex64" })).toThrow(/needs a stream/);
    expect(() => corrcoef(m, { y: fakeArray([2, 5], "float32") })).toThrow(/needs a stream/);
  });
});
