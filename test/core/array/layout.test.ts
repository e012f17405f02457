/**
 * Layout arithmetic: slices with steps (Python's rules), reshapes the strides allow (NumPy's no-copy reshape),
 * transposes, dtype views, contiguity, the bytes a view reaches, and merging axes for strided copies. No GPU.
 */
import { describe, expect, it } from "vitest";
import { ArrayLayoutError, ShapeMismatchError } from "../../../src/index.ts";
import {
  checkInside,
  checkShape,
  coalesce,
  contiguousStrides,
  diagonalLayout,
  elementExtent,
  isContiguous,
  reshapeLayout,
  sliceLayout,
  transposeLayout,
  viewLayout,
  type Layout,
} from "../../../src/core/array/layout.ts";

const L = (shape: number[], strides = contiguousStrides(shape), offset = 0): Layout => ({ shape, strides, offset });

/** The element offsets a layout visits, row-major. */
function offsets(l: Layout): number[] {
  const out: number[] = [];
  const walk = (axis: number, at: number): void => {
    if (axis === l.shape.length) {
      out.push(at);
      return;
    }
    for (let i = 0; i < l.shape[axis]!; i++) walk(axis + 1, at + i * l.strides[axis]!);
  };
  walk(0, l.offset);
  return out;
}

/** Python's list slicing, for comparison. */
function pySlice(n: number, start: number | null, stop: number | null, step: number): number[] {
  const idx = [...Array(n).keys()];
  const out: number[] = [];
  const norm = (v: number | null, d: number, lo: number, hi: number) => (v === null ? d : Math.min(Math.max(v < 0 ? v + n : v, lo), hi));
  if (step > 0) for (let i = norm(start, 0, 0, n); i < norm(stop, n, 0, n); i += step) out.push(idx[i]!);
  else for (let i = norm(start, n - 1, -1, n - 1); i > norm(stop, -1, -1, n - 1); i += step) out.push(idx[i]!);
  return out;
}

describe("shapes and strides", () => {
  it("checks shapes and computes row-major strides and contiguity", () => {
    expect(checkShape(5)).toEqual([5]);
    expect(checkShape([2, 0, 3])).toEqual([2, 0, 3]);
    expect(() => checkShape([2, -1])).toThrow(ShapeMismatchError);
    expect(() => checkShape([1.5])).toThrow(/every extent is a non-negative integer/);
    expect(() => checkShape("3" as never)).toThrow(/expected a number or an array of numbers/);
    expect(contiguousStrides([2, 3, 4])).toEqual([12, 4, 1]);
    expect(contiguousStrides([])).toEqual([]);
    expect(isContiguous([2, 3], [3, 1])).toBe(true);
    expect(isContiguous([2, 3], [1, 2])).toBe(false);
    expect(isContiguous([1, 3], [99, 1])).toBe(true); // extent-1 axes have any stride
    expect(isContiguous([0, 3], [7, 7])).toBe(true);
  });

  it("measures the element extent and keeps views inside their buffer", () => {
    expect(elementExtent([3, 4], [4, 1])).toEqual([0, 11]);
    expect(elementExtent([3], [-2])).toEqual([-4, 0]);
    expect(elementExtent([0, 4], [4, 1])).toEqual([0, -1]);
    expect(() => checkInside([3, 4], [4, 1], 0, 4, 48, "a")).not.toThrow();
    expect(() => checkInside([3, 4], [4, 1], 4, 4, 48, "a")).toThrow(ArrayLayoutError);
    expect(() => checkInside([3, 4], [4, 1], 4, 4, 48, "a")).toThrow(/reaches bytes 4 to 52 .* but the buffer holds 48 bytes/);
    expect(() => checkInside([3], [-1], 4, 4, 48, "a")).toThrow(/reaches bytes -4 to 8/);
    expect(() => checkInside([3], [-1], 8, 4, 48, "a")).not.toThrow();
  });
});

describe("slices", () => {
  it("follows Python's rules for every start, stop and step", () => {
    const n = 7;
    const values = [null, -9, -7, -3, -1, 0, 1, 3, 6, 7, 9];
    for (const start of values) {
      for (const stop of values) {
        for (const step of [1, 2, 3, -1, -2, -4]) {
          const v = sliceLayout(L([n]), [[start, stop, step]]);
          expect(offsets(v), `[${start}:${stop}:${step}]`).toEqual(pySlice(n, start, stop, step));
        }
      }
    }
  });

  it("drops an axis for an index, keeps the rest whole, and takes objects and null", () => {
    const base = L([4, 5, 6]);
    const row = sliceLayout(base, [2]);
    expect(row).toEqual({ shape: [5, 6], strides: [6, 1], offset: 60 });
    const col = sliceLayout(base, [null, 1]);
    expect(col).toEqual({ shape: [4, 6], strides: [30, 1], offset: 6 });
    const stepped = sliceLayout(base, [{ step: 2 }, [null, null, -1], [1, 5, 2]]);
    expect(stepped.shape).toEqual([2, 5, 2]);
    expect(stepped.strides).toEqual([60, -6, 2]);
    expect(stepped.offset).toBe(24 + 1);
    expect(sliceLayout(base, [-1]).offset).toBe(90);
  });

  it("an empty slice stays where the array starts (an empty array's buffer may have no bytes)", () => {
    expect(sliceLayout(L([2, 0]), [[1, null]])).toEqual({ shape: [1, 0], strides: [1, 1], offset: 0 });
    expect(sliceLayout(L([3, 4]), [[2, 2]]).offset).toBe(0);
    expect(sliceLayout({ shape: [5], strides: [1], offset: 3 }, [[4, 1]]).offset).toBe(3);
  });

  it("refuses indices out of range, zero steps and too many axes with ArrayLayoutError", () => {
    expect(() => sliceLayout(L([4]), [4])).toThrow(/index 4 is out of range for axis 0 of extent 4/);
    expect(() => sliceLayout(L([4]), [-5])).toThrow(ArrayLayoutError);
    expect(() => sliceLayout(L([4]), [[0, 4, 0]])).toThrow(/step on axis 0 must be a non-zero integer/);
    expect(() => sliceLayout(L([4]), [0, 0])).toThrow(/2 axes given but the array has 1/);
    expect(() => sliceLayout(L([4]), [1.5])).toThrow(ArrayLayoutError);
  });
});

describe("reshape", () => {
  it("reshapes contiguous layouts to anything of the same size (one -1 inferred)", () => {
    expect(reshapeLayout(L([2, 6]), [3, 4])).toEqual({ shape: [3, 4], strides: [4, 1], offset: 0 });
    expect(reshapeLayout(L([2, 6], undefined, 5), [-1])).toEqual({ shape: [12], strides: [1], offset: 5 });
    expect(reshapeLayout(L([2, 6]), [2, -1, 2])!.shape).toEqual([2, 3, 2]);
    expect(() => reshapeLayout(L([2, 6]), [5, -1])).toThrow(/cannot infer -1/);
    expect(() => reshapeLayout(L([2, 6]), [5, 2])).toThrow(ShapeMismatchError);
    expect(() => reshapeLayout(L([2, 6]), [-1, -1])).toThrow(/at most one extent may be -1/);
  });

  it("reshapes strided layouts where NumPy can without copying, and says undefined where it cannot", () => {
    // Every other row of a 4×6 array: rows stay contiguous inside.
    const rows = sliceLayout(L([4, 6]), [[null, null, 2]]); // shape [2, 6], strides [12, 1]
    const split = reshapeLayout(rows, [2, 2, 3])!;
    expect(split.strides).toEqual([12, 3, 1]);
    expect(offsets(split)).toEqual(offsets(rows));
    expect(reshapeLayout(rows, [12])).toBeUndefined();
    // A transpose cannot be flattened, but can get an axis of 1.
    const t = transposeLayout(L([3, 4]));
    expect(reshapeLayout(t, [12])).toBeUndefined();
    const withOne = reshapeLayout(t, [4, 1, 3])!;
    expect(offsets(withOne)).toEqual(offsets(t));
  });

  it("gives NumPy's strides to axes of extent 1 and keeps a view reshaped to its own shape", () => {
    // np.arange(2.)[::-1].reshape(2, 1, 1).strides == (-8, -8, -8): trailing ones take the last axis's stride.
    expect(reshapeLayout(sliceLayout(L([2]), [[null, null, -1]]), [2, 1, 1])!.strides).toEqual([-1, -1, -1]);
    // b[:, ::2].reshape(1, 3, 2, 1) of a 3×4 b: strides (12, 4, 2, 2) in elements.
    expect(reshapeLayout(sliceLayout(L([3, 4]), [null, [null, null, 2]]), [1, 3, 2, 1])!.strides).toEqual([12, 4, 2, 2]);
    // The same shape: the same strides, whatever they are (a length-1 axis's included).
    const odd = sliceLayout(L([4, 3]), [[null, null, 2], [null, 1]]);
    expect(reshapeLayout(odd, [2, 1])!.strides).toEqual(odd.strides);
    // A slice with a step along an axis of extent 1 scales its stride, as NumPy (np.zeros(1)[::-1].strides == (-8,)).
    expect(sliceLayout(L([1]), [[null, null, -1]]).strides).toEqual([-1]);
  });
});

describe("transpose, dtype views, coalescing", () => {
  it("permutes axes and refuses what is not a permutation", () => {
    expect(transposeLayout(L([2, 3, 4]))).toEqual({ shape: [4, 3, 2], strides: [1, 4, 12], offset: 0 });
    expect(transposeLayout(L([2, 3, 4]), [1, 0, 2]).shape).toEqual([3, 2, 4]);
    expect(() => transposeLayout(L([2, 3]), [0, 0])).toThrow(/a permutation of 0..1/);
    expect(() => transposeLayout(L([2, 3]), [0])).toThrow(ArrayLayoutError);
    expect(transposeLayout(L([2, 3]), [-1, 0]).shape).toEqual([3, 2]);
    expect(() => transposeLayout(L([2, 3]), [-3, 0])).toThrow(ArrayLayoutError);
  });

  it("sees the same bytes as other element sizes where the last axis is contiguous", () => {
    expect(viewLayout(L([2, 4]), 0, 4, 2)).toEqual({ shape: [2, 8], strides: [8, 1], byteOffset: 0 });
    expect(viewLayout(L([2, 4]), 8, 4, 8)).toEqual({ shape: [2, 2], strides: [2, 1], byteOffset: 8 });
    expect(viewLayout(L([3]), 0, 4, 4).shape).toEqual([3]);
    expect(() => viewLayout(L([2, 3]), 0, 4, 8)).toThrow(/12 bytes, not a whole number of 8-byte elements/);
    expect(() => viewLayout(transposeLayout(L([2, 4])), 0, 4, 2)).toThrow(/last axis must be contiguous/);
    expect(() => viewLayout(L([]), 0, 4, 2)).toThrow(/0-d array/);
    expect(() => viewLayout(L([4]), 4, 4, 8)).toThrow(/byte offset 4 is not a multiple/);
    // An axis of extent 1 is never stepped along: its stride need not divide (int16 [4, 1].T as float64).
    expect(viewLayout(transposeLayout(L([4, 1])), 0, 2, 8)).toEqual({ shape: [1, 1], strides: [0, 1], byteOffset: 0 });
    // An empty array: only the last axis's bytes must come out whole (int16 [4, 0] as float32).
    expect(viewLayout(L([4, 0]), 0, 2, 4)).toEqual({ shape: [4, 0], strides: [1, 1], byteOffset: 0 });
    expect(() => viewLayout(L([0, 3]), 0, 2, 4)).toThrow(/6 bytes, not a whole number of 4-byte elements/);
  });

  it("leaves an empty diagonal where the array starts", () => {
    // [3, 1, 0] over no bytes: the diagonal below the main one is empty and must not point past the buffer.
    const d = diagonalLayout(L([3, 1, 0]), -1, 0, 1);
    expect(d.shape).toEqual([0, 1]);
    expect(d.offset).toBe(0);
    expect(diagonalLayout(L([3, 4]), 1, 0, 1)).toEqual({ shape: [3], strides: [5], offset: 1 });
  });

  it("merges axes contiguous in both layouts (the fewest a strided copy needs)", () => {
    expect(coalesce([2, 3, 4], [12, 4, 1], [12, 4, 1])).toEqual({ shape: [24], a: [1], b: [1] });
    expect(coalesce([2, 3, 4], [24, 4, 1], [12, 4, 1])).toEqual({ shape: [2, 12], a: [24, 1], b: [12, 1] });
    expect(coalesce([3, 1, 4], [1, 99, 3], [4, 4, 1])).toEqual({ shape: [3, 4], a: [1, 3], b: [4, 1] });
  });
});
