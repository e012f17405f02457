/**
 * resize and trimZeros without a GPU: trimZeros's bounds from what the device reads back (NumPy 2.4's slices), its
 * views of empty and 0-d arrays (no stream needed), and every typed error that comes before a stream is needed.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, AxisError, ShapeMismatchError } from "../../../src/index.ts";
import { resize, trimZeros } from "../../../src/array.ts";
import { trimBounds } from "../../../src/core/array/ops/editing.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

describe("resize's checks", () => {
  it("a shape of non-negative extents, then a stream", () => {
    // np.resize(a, (2, -1)) → ValueError: all elements of `new_shape` must be non-negative
    expect(() => resize(fakeArray([2, 2], "int64"), [2, -1])).toThrow(ShapeMismatchError);
    expect(() => resize(fakeArray([2, 2], "int64"), "3" as never)).toThrow(ShapeMismatchError);
    expect(() => resize([1, 2] as never, 3)).toThrow(TypeError);
    expect(() => resize(fakeArray([2], "int64"), 3, 1 as never)).toThrow(TypeError);
    expect(() => resize(fakeArray([2], "int64"), [2, 3])).toThrow("resize needs a stream");
    expect(() => resize(fakeArray([0], "int64"), [])).toThrow("resize needs a stream");
  });
});

describe("trimZeros", () => {
  it("bounds: from the first non-zero to the last, per trimmed axis; [0, 0) when all are zero", () => {
    // np.trim_zeros([0, 0, 0, 1, 2, 3, 0, 2, 1, 0]): first non-zero at 3, the last at 8 (1 from the back) → [3:9]
    expect(trimBounds([10], [0], true, true, true, [3], [1])).toEqual([[3, 9]]);
    // trim="f" → [3:10]; trim="b" → [0:9]
    expect(trimBounds([10], [0], true, false, true, [3], [])).toEqual([[3, 10]]);
    expect(trimBounds([10], [0], false, true, true, [], [1])).toEqual([[0, 9]]);
    // np.trim_zeros(np.zeros(4), "f") → [] (all zeros: every trimmed axis [0:0], whatever trim says)
    expect(trimBounds([4], [0], true, false, false, [0], [0])).toEqual([[0, 0]]);
    // b = [[0, 0, 2, 3, 0, 0], [0, 1, 0, 3, 0, 0], [0, 0, 0, 0, 0, 0]]: rows 0-1, columns 1-3 → b[0:2, 1:4]
    expect(trimBounds([3, 6], [0, 1], true, true, true, [0, 1], [1, 2])).toEqual([
      [0, 2],
      [1, 4],
    ]);
  });

  it("empty and 0-d arrays need no stream", () => {
    // np.trim_zeros(np.zeros(0, np.int32)) → []; np.trim_zeros(np.zeros((0, 3))).shape → (0, 0)
    expect(trimZeros(fakeArray([0], "int32")).shape).toEqual([0]);
    expect(trimZeros(fakeArray([0, 3], "float64")).shape).toEqual([0, 0]);
    expect(trimZeros(fakeArray([0, 3], "float64"), { axis: 0 }).shape).toEqual([0, 3]);
    // np.trim_zeros(np.array(5)) is the array itself; so is axis=() of any array.
    const scalar = fakeArray([], "int64");
    expect(trimZeros(scalar)).toBe(scalar);
    const m = fakeArray([3, 6], "int64");
    expect(trimZeros(m, { axis: [] })).toBe(m);
  });

  it("checks trim and axis before a stream is needed", () => {
    const x = fakeArray([10], "int64");
    // np.trim_zeros(x, "x") → ValueError: unexpected character(s) in `trim`: 'x'
    expect(() => trimZeros(x, { trim: "x" as "f" })).toThrow(ArgumentError);
    expect(() => trimZeros(x, { trim: "x" as "f" })).toThrow('trimZeros: trim is "fb" (both edges), "f" (the front) or "b" (the back), got "x"');
    expect(() => trimZeros(x, { trim: 1 as never })).toThrow(TypeError);
    // np.trim_zeros(x, axis=1) → AxisError; np.trim_zeros(b, axis=(0, 0)) → ValueError: repeated axis
    expect(() => trimZeros(x, { axis: 1 })).toThrow(AxisError);
    expect(() => trimZeros(fakeArray([3, 6], "int64"), { axis: [0, 0] })).toThrow(AxisError);
    expect(() => trimZeros([0, 1] as never)).toThrow(TypeError);
    expect(() => trimZeros(x, 2 as never)).toThrow(TypeError);
    // Any case, "bf" as "fb": only the stream is missing.
    expect(() => trimZeros(x, { trim: "BF" })).toThrow("trimZeros needs a stream");
    expect(() => trimZeros(fakeArray([3, 6], "float32"), { axis: -1, trim: "F" })).toThrow("trimZeros needs a stream");
  });
});
