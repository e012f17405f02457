/**
 * Index helpers without a GPU: the coordinates unravelIndex and ravelMultiIndex compute on the host (as NumPy 2.4's
 * results), the views and flat positions fillDiagonal writes, and every typed error that comes before a stream is
 * needed (triuIndices, trilIndices, unravelIndex, ravelMultiIndex, flatnonzero, diagflat, fillDiagonal, select,
 * divmod).
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, BroadcastError, DTypeError, DeviceArray, IndexError, ShapeMismatchError } from "../../../src/index.ts";
import { diagIndices, diagIndicesFrom, diagflat, divmod, fillDiagonal, flatnonzero, ravelMultiIndex, select, trilIndices, trilIndicesFrom, triuIndices, triuIndicesFrom, unravelIndex } from "../../../src/array.ts";
import { fillDiagonalPlan, ravelHost, unravelHost } from "../../../src/core/array/ops/index-helpers.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

function arr(shape: number[], dtype: "float32" | "int32" | "int8" | "bool" | "uint8" = "int32"): DeviceArray {
  return fakeArray(shape, dtype);
}

describe("unravelIndex and ravelMultiIndex on the host", () => {
  it("row-major coordinates and back, as NumPy", () => {
    // np.unravel_index([22, 41, 37], (7, 6)) → ([3, 6, 6], [4, 5, 1])
    expect(unravelHost([22, 41, 37], [7, 6])).toEqual([
      [3, 6, 6],
      [4, 5, 1],
    ]);
    // np.unravel_index([0, 23, 7, 12], (2, 3, 4)) → ([0, 1, 0, 1], [0, 2, 1, 0], [0, 3, 3, 0])
    expect(unravelHost([0, 23, 7, 12], [2, 3, 4])).toEqual([
      [0, 1, 0, 1],
      [0, 2, 1, 0],
      [0, 3, 3, 0],
    ]);
    // np.ravel_multi_index(([3, 6, 6], [4, 5, 1]), (7, 6)) → [22, 41, 37]
    expect(ravelHost([[3, 6, 6], [4, 5, 1]], [7, 6], "raise")).toEqual([22, 41, 37]);
    // mode="wrap" → [22, 2, 37]; mode="clip" → [22, 41, 1]
    expect(ravelHost([[3, 7, -1], [4, 8, 1]], [7, 6], "wrap")).toEqual([22, 2, 37]);
    expect(ravelHost([[3, 7, -1], [4, 8, 1]], [7, 6], "clip")).toEqual([22, 41, 1]);
  });

  it("positions out of range are IndexErrors (NumPy's ValueError)", () => {
    expect(() => unravelHost([6], [2, 3])).toThrow(IndexError);
    expect(() => unravelHost([6], [2, 3])).toThrow("unravelIndex: index 6 is out of bounds for array with size 6");
    expect(() => unravelHost([-1], [2, 3])).toThrow("index -1 is out of bounds");
    expect(() => unravelHost([0], [2, 0])).toThrow("size 0");
    expect(() => unravelHost([0.5], [2])).toThrow(TypeError);
    expect(() => ravelHost([[7], [0]], [7, 6], "raise")).toThrow(IndexError);
    expect(() => ravelHost([[7], [0]], [7, 6], "raise")).toThrow("ravelMultiIndex: index 7 on axis 0 is out of range for extent 7");
  });

  it("the functions check before a stream is needed", () => {
    expect(() => unravelIndex(6, [2, 3])).toThrow(IndexError);
    expect(() => unravelIndex(5, [2, 3])).toThrow("needs a stream");
    expect(() => unravelIndex(arr([3], "float32"), [2, 3])).toThrow(DTypeError);
    expect(() => unravelIndex("1" as unknown as number, [2, 3])).toThrow(TypeError);
    expect(() => unravelIndex(1, [2, -3])).toThrow(ShapeMismatchError);
    expect(() => unravelIndex(arr([3]), [2, 3])).toThrow("needs a stream");
    expect(() => ravelMultiIndex([1], [2, 3])).toThrow(ArgumentError);
    expect(() => ravelMultiIndex([1], [2, 3])).toThrow("multiIndex has 1 entries but the shape [2, 3] has 2 axes");
    expect(() => ravelMultiIndex([2, 0], [2, 3])).toThrow(IndexError);
    expect(() => ravelMultiIndex([1, 2], [2, 3])).toThrow("needs a stream");
    expect(() => ravelMultiIndex([arr([3]), arr([4])], [2, 3])).toThrow(BroadcastError);
    expect(() => ravelMultiIndex([arr([3], "float32"), 0], [2, 3])).toThrow(DTypeError);
    expect(() => ravelMultiIndex([arr([3]), 0], [2, 3], { mode: "bad" as "wrap" })).toThrow(TypeError);
    expect(() => ravelMultiIndex([arr([3]), 5], [2, 3], { mode: "wrap" })).toThrow("needs a stream");
    // An axis of extent 0 has no index in range in any mode (wrap and clip cannot bring one into it); no index, no error.
    expect(() => ravelMultiIndex([arr([3]), 0], [0, 3])).toThrow("axis 0 of the shape [0, 3] has extent 0, so no index on it is in range");
    expect(() => ravelMultiIndex([1, arr([2, 1])], [2, 0], { mode: "clip" })).toThrow(/has extent 0, so no index on it is in range \(nor can mode "clip" bring one into it\)/);
    expect(() => ravelMultiIndex([arr([0]), 1], [0, 3])).toThrow("needs a stream");
  });
});

describe("fillDiagonal's plan", () => {
  it("the main diagonal of a 2-d array (min(n, m) elements)", () => {
    expect(fillDiagonalPlan([3, 3], [3, 1], false)).toEqual({ parts: [{ shape: [3], strides: [4], offset: 0 }], positions: [0, 4, 8] });
    expect(fillDiagonalPlan([5, 3], [3, 1], false)).toEqual({ parts: [{ shape: [3], strides: [4], offset: 0 }], positions: [0, 4, 8] });
    expect(fillDiagonalPlan([2, 4], [4, 1], true)).toEqual({ parts: [{ shape: [2], strides: [5], offset: 0 }], positions: [0, 5] });
    // A transposed view: the strides of the view.
    expect(fillDiagonalPlan([4, 3], [1, 4], false).parts).toEqual([{ shape: [3], strides: [5], offset: 0 }]);
    expect(fillDiagonalPlan([0, 3], [3, 1], true)).toEqual({ parts: [], positions: [] });
  });

  it("wrap: a tall matrix goes on after a blank row (NumPy's a.flat[::m + 1])", () => {
    // np.fill_diagonal(zeros((5, 3)), 1, wrap=True): flat positions 0, 4, 8, 12.
    expect(fillDiagonalPlan([5, 3], [3, 1], true)).toEqual({
      parts: [
        { shape: [1, 3], strides: [12, 4], offset: 0 },
        { shape: [1], strides: [4], offset: 12 },
      ],
      positions: [0, 4, 8, 12],
    });
    // (7, 3): 0, 4, 8, then 12, 16, 20 → rows 0-2 and 4-6 (row 3 left blank).
    expect(fillDiagonalPlan([7, 3], [3, 1], true).positions).toEqual([0, 4, 8, 12, 16, 20]);
    expect(fillDiagonalPlan([8, 3], [3, 1], true).parts).toEqual([{ shape: [2, 3], strides: [12, 4], offset: 0 }]);
  });

  it("more axes: every axis of one extent; too few axes or unequal ones are ArgumentErrors", () => {
    // np.fill_diagonal(zeros((2, 2, 2)), 4): flat positions 0 and 7.
    expect(fillDiagonalPlan([2, 2, 2], [4, 2, 1], false)).toEqual({ parts: [{ shape: [2], strides: [7], offset: 0 }], positions: [0, 7] });
    expect(() => fillDiagonalPlan([3], [1], false)).toThrow(ArgumentError);
    expect(() => fillDiagonalPlan([3], [1], false)).toThrow("fillDiagonal: needs an array of at least 2 axes, got shape [3]");
    expect(() => fillDiagonalPlan([2, 2, 3], [6, 3, 1], false)).toThrow("needs every axis of one extent, got shape [2, 2, 3]");
  });

  it("fillDiagonal checks before a stream is needed", () => {
    expect(() => fillDiagonal(arr([3, 3]), 1)).toThrow("needs a stream");
    expect(() => fillDiagonal(arr([3, 3], "int8"), 300)).toThrow(DTypeError);
    expect(() => fillDiagonal(arr([3, 3]), 1, { wrap: 1 as unknown as boolean })).toThrow(TypeError);
    expect(() => fillDiagonal(arr([3]), 1)).toThrow(ArgumentError);
    expect(() => fillDiagonal(arr([3, 3]), "1" as unknown as number)).toThrow(TypeError);
    // A broadcast view repeats its elements: it may not be written.
    expect(() => fillDiagonal(arr([3]).broadcastTo([3, 3]), 1)).toThrow("repeats its elements");
  });
});

describe("the other helpers' checks", () => {
  it("triuIndices and trilIndices: integers, and a stream", () => {
    expect(() => triuIndices(-1, {} as never)).toThrow(ArgumentError);
    expect(() => triuIndices(-1, {} as never)).toThrow("triuIndices: n is a non-negative integer, got -1");
    expect(() => trilIndices(3, { k: 0.5 } as never)).toThrow("trilIndices: k is an integer");
    expect(() => trilIndices(3, { m: -2 } as never)).toThrow("trilIndices: m is a non-negative integer");
    expect(() => triuIndices(3, {} as never)).toThrow("triuIndices needs a stream");
  });

  it("flatnonzero and diagflat: an array, an integer k, and a stream", () => {
    expect(() => flatnonzero([1, 0] as unknown as DeviceArray)).toThrow(TypeError);
    expect(() => flatnonzero(arr([3]))).toThrow("needs a stream");
    expect(() => diagflat(arr([3]), { k: 1.5 })).toThrow("diagflat: k is an integer");
    expect(() => diagflat(arr([3]))).toThrow("needs a stream");
  });

  it("select: lists of one length, bool conditions, shapes that broadcast", () => {
    const c = arr([4], "bool");
    expect(() => select([c], [])).toThrow(ArgumentError);
    expect(() => select([c], [])).toThrow("select: 1 conditions but 0 choices");
    expect(() => select([], [])).toThrow("the lists are empty");
    expect(() => select([arr([4], "uint8")], [1])).toThrow(DTypeError);
    expect(() => select([arr([4], "uint8")], [1])).toThrow("condition 0 is uint8, not bool");
    expect(() => select([c], [arr([3])])).toThrow(BroadcastError);
    expect(() => select([c], ["a" as unknown as number])).toThrow(TypeError);
    expect(() => select([c], [arr([4], "int8")], { default: 300 })).toThrow(DTypeError);
    expect(() => select([c], [arr([4])])).toThrow("needs a stream");
  });

  it("divmod: options without out", () => {
    expect(() => divmod(arr([3]), 2, { out: arr([3]) } as never)).toThrow(TypeError);
    expect(() => divmod(arr([3]), 2)).toThrow("needs a stream");
    expect(() => divmod(arr([3]), arr([4]))).toThrow(BroadcastError);
  });
});

describe("diagIndices and the triangle indices of an array", () => {
  it("check n, ndim and the array's shape before they need a stream", () => {
    expect(() => diagIndices(3, {})).toThrow(/needs a stream/);
    expect(() => diagIndices(-1, {})).toThrow(ArgumentError);
    expect(() => diagIndices(3, { ndim: 1.5 })).toThrow("diagIndices: ndim is a non-negative integer");
    expect(() => diagIndicesFrom(arr([3, 3]))).toThrow(/needs a stream/);
    expect(() => diagIndicesFrom(arr([3]))).toThrow(ShapeMismatchError);
    expect(() => diagIndicesFrom(arr([3, 4]))).toThrow("diagIndicesFrom: every axis must have one extent, but the shape is [3, 4]");
    expect(() => triuIndicesFrom(arr([3, 4]))).toThrow(/needs a stream/);
    expect(() => trilIndicesFrom(arr([2, 3, 4]))).toThrow("trilIndicesFrom: the array must have 2 axes, got shape [2, 3, 4]");
    expect(() => triuIndicesFrom(arr([3, 4]), { k: 0.5 })).toThrow("triuIndicesFrom: k is an integer");
    expect(() => triuIndicesFrom(5 as never)).toThrow(TypeError);
  });
});
