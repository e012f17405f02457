/**
 * histogramdd, histogram2d and histogramBinEdges without a GPU: the sample's shapes, bins, ranges, weights and
 * options are checked, each a typed error, before anything needs a stream.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError } from "../../../src/errors/base.ts";
import { ShapeMismatchError } from "../../../src/index.ts";
import { DTypeError, histogram2d, histogramBinEdges, histogramdd } from "../../../src/array.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

const NEEDS_STREAM = /needs a stream/;

describe("histogramdd checks", () => {
  it("samples: [N, D], one 1-d array, or D 1-d arrays of one length; real", () => {
    expect(() => histogramdd(fakeArray([5, 2], "float32"))).toThrow(NEEDS_STREAM);
    expect(() => histogramdd(fakeArray([5], "int32"))).toThrow(NEEDS_STREAM);
    expect(() => histogramdd([fakeArray([5], "float32"), fakeArray([5], "int8")])).toThrow(NEEDS_STREAM);
    expect(() => histogramdd([fakeArray([5], "float32"), fakeArray([4], "float32")])).toThrow(ShapeMismatchError);
    expect(() => histogramdd(fakeArray([2, 2, 2], "float32"))).toThrow("the sample is [N, D]");
    expect(() => histogramdd([])).toThrow("the sample has no variable");
    expect(() => histogramdd(fakeArray([5, 2], "complex64"))).toThrow(DTypeError);
    expect(() => histogramdd(5 as never)).toThrow(TypeError);
  });

  it("bins: a count, or one count or edges per dimension; ranges per dimension", () => {
    const s = fakeArray([5, 2], "float64");
    expect(() => histogramdd(s, { bins: [3, [0, 1, 2]] })).toThrow(NEEDS_STREAM);
    expect(() => histogramdd(s, { bins: [3, fakeArray([4], "float32")] })).toThrow(NEEDS_STREAM);
    expect(() => histogramdd(s, { bins: [3] })).toThrow("bins has 1 entries but the sample has 2 dimensions");
    expect(() => histogramdd(s, { bins: 0 })).toThrow(ArgumentError);
    expect(() => histogramdd(s, { bins: [3, 2.5] })).toThrow("bins[1] must be a positive integer");
    expect(() => histogramdd(s, { bins: [3, []] })).toThrow(ShapeMismatchError);
    expect(() => histogramdd(s, { bins: [3, fakeArray([2, 2], "float32")] })).toThrow(ShapeMismatchError);
    expect(() => histogramdd(s, { bins: [3, fakeArray([3], "bool")] })).toThrow(DTypeError);
    expect(() => histogramdd(s, { bins: [3, ["a"] as never] })).toThrow(TypeError);
    expect(() => histogramdd(s, { range: [[0, 1], null] })).toThrow(NEEDS_STREAM);
    expect(() => histogramdd(s, { range: [[0, 1]] })).toThrow("range has one entry per dimension (2)");
    expect(() => histogramdd(s, { range: [[1, 0], null] })).toThrow("range[0] is [lo, hi] with lo <= hi");
    expect(() => histogramdd(s, { range: [[0, Infinity], null] })).toThrow("is not finite");
    // NumPy reads a range only where the bins are counted: np.histogramdd(x, bins=[[0, 1], 2], range=[(5, 0), None]) works
    expect(() => histogramdd(s, { bins: [[0, 1], 2], range: [[5, 0], null] })).toThrow(NEEDS_STREAM);
  });

  it("weights: one per sample, real; density a boolean; options an object", () => {
    const s = fakeArray([5, 2], "float64");
    expect(() => histogramdd(s, { weights: fakeArray([5], "float32"), density: true })).toThrow(NEEDS_STREAM);
    expect(() => histogramdd(s, { weights: fakeArray([4], "float32") })).toThrow("give one weight per sample ([5])");
    expect(() => histogramdd(s, { weights: fakeArray([5], "complex64") })).toThrow(DTypeError);
    expect(() => histogramdd(s, { density: 1 as never })).toThrow(TypeError);
    expect(() => histogramdd(s, 3 as never)).toThrow(TypeError);
  });
});

describe("histogram2d and histogramBinEdges checks", () => {
  it("histogram2d: bins for both, per variable, or one list of edges for both", () => {
    const x = fakeArray([4], "float32");
    const y = fakeArray([4], "float32");
    expect(() => histogram2d(x, y)).toThrow(NEEDS_STREAM);
    expect(() => histogram2d(x, y, { bins: [4, 3] })).toThrow(NEEDS_STREAM);
    expect(() => histogram2d(x, y, { bins: [0, 1, 2] })).toThrow(NEEDS_STREAM);
    expect(() => histogram2d(x, y, { bins: fakeArray([3], "float64") })).toThrow(NEEDS_STREAM);
    // NumPy reads an array of one or two elements as counts: refused, with what to pass instead
    expect(() => histogram2d(x, y, { bins: fakeArray([2], "float64") })).toThrow("which NumPy reads as counts");
    expect(() => histogram2d(x, y, { bins: [4] })).toThrow("bins has 1 entries but the sample has 2 dimensions");
    expect(() => histogram2d(x, fakeArray([3], "float32"))).toThrow(ShapeMismatchError);
  });

  it("histogramBinEdges takes histogram's options", () => {
    expect(() => histogramBinEdges(fakeArray([4], "float32"), { bins: 3 })).toThrow(NEEDS_STREAM);
    expect(() => histogramBinEdges(fakeArray([4], "float32"), { bins: 0 })).toThrow(ArgumentError);
  });
});
