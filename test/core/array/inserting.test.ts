/**
 * putAlongAxis and place without a GPU: the plan of putAlongAxis's writes (the shape, the stride of the axis moved
 * first, the values' shape as NumPy's assignment broadcasts it), and every typed error that comes before a stream is
 * needed, as NumPy 2.4 refuses the same calls.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, AxisError, BroadcastError, DTypeError, IndexError, ShapeMismatchError } from "../../../src/index.ts";
import { place, putAlongAxis } from "../../../src/array.ts";
import { putAlongAxisPlan } from "../../../src/core/array/ops/inserting.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

describe("putAlongAxis's plan", () => {
  it("indices and the array broadcast except along the axis; values broadcast to that", () => {
    // np.put_along_axis(a (2, 3), [[1], [0]], 99, axis=1): writes of shape (2, 1); rows of 3, the axis moved first.
    expect(putAlongAxisPlan([2, 3], [2, 1], 1)).toEqual({ shape: [2, 1], extent: 3, rest: 2, baseShape: [2, 1] });
    // np.put_along_axis(zeros((1, 3)), [[0], [2], [1]], ..., axis=1): the array's extent 1 broadcasts to 3.
    expect(putAlongAxisPlan([1, 3], [3, 1], 1, [3, 1])).toEqual({ shape: [3, 1], extent: 3, rest: 1, baseShape: [1, 1], valuesShape: [3, 1] });
    // np.put_along_axis(a (2, 3), [[1, -1, 0]], ..., axis=0): values (1, 3); the indices' extent 1 broadcasts to the array's.
    expect(putAlongAxisPlan([2, 3], [1, 3], 0, [1, 3])).toEqual({ shape: [1, 3], extent: 2, rest: 3, baseShape: [1, 3], valuesShape: [1, 3] });
    // Values with leading axes of extent 1 past the writes' axes: dropped, as NumPy's assignment does (values (1, 2, 1) into (2, 1)).
    expect(putAlongAxisPlan([2, 3], [2, 1], 1, [1, 2, 1]).valuesShape).toEqual([2, 1]);
    expect(putAlongAxisPlan([2, 3, 4], [2, 1, 4], 1, [4]).valuesShape).toEqual([4]);
    // Nothing to write: an empty axis is fine (np.put_along_axis(zeros((2, 0)), zeros((2, 0), int), 1, axis=1)).
    expect(putAlongAxisPlan([2, 0], [2, 0], 1).shape).toEqual([2, 0]);
  });

  it("refuses shapes as NumPy does", () => {
    // np.put_along_axis(a (2, 3), np.array([1]), 1, axis=1) → ValueError: `indices` and `arr` must have the same number of dimensions
    expect(() => putAlongAxisPlan([2, 3], [1], 1)).toThrow(ShapeMismatchError);
    expect(() => putAlongAxisPlan([2, 3], [1], 1)).toThrow("putAlongAxis: indices have 1 axes ([1]) but the array has 2 ([2, 3])");
    // np.put_along_axis(a (2, 3), [[1], [0], [1]], 1, axis=1) → IndexError: shape mismatch: indexing arrays could not be broadcast
    expect(() => putAlongAxisPlan([2, 3], [3, 1], 1)).toThrow(BroadcastError);
    // np.put_along_axis(a (2, 3), [[1]], np.array([1, 2]), axis=1) → ValueError: shape mismatch: value array of shape (2,) could not be broadcast to indexing result of shape (2,1)
    expect(() => putAlongAxisPlan([2, 3], [1, 1], 1, [2])).toThrow(BroadcastError);
    expect(() => putAlongAxisPlan([2, 3], [1, 1], 1, [2])).toThrow("putAlongAxis: values of shape [2] do not broadcast to the shape of the writes [2, 1]");
    expect(() => putAlongAxisPlan([2, 3], [2, 1], 1, [2, 2, 1])).toThrow(BroadcastError);
    expect(() => putAlongAxisPlan([2, 3], [1, 1], 1, [0])).toThrow(BroadcastError);
    // np.put_along_axis(zeros((2, 0)), zeros((2, 1), int), 1, axis=1) → IndexError: index 0 is out of bounds for axis 1 with size 0
    expect(() => putAlongAxisPlan([2, 0], [2, 1], 1)).toThrow(IndexError);
  });
});

describe("putAlongAxis's checks", () => {
  const a = fakeArray([2, 3], "int64");
  const idx = fakeArray([2, 1], "int64");

  it("come before a stream is needed", () => {
    // np.put_along_axis(a, np.array([[1.0]]), 1, axis=1) → IndexError: `indices` must be an integer array
    expect(() => putAlongAxis(a, fakeArray([2, 1], "float32"), 1, { axis: 1 })).toThrow(DTypeError);
    expect(() => putAlongAxis(a, fakeArray([2, 1], "bool"), 1, { axis: 1 })).toThrow("(for a boolean mask use putMask or place)");
    expect(() => putAlongAxis(a, [[1], [0]] as never, 1, { axis: 1 })).toThrow(TypeError);
    // np.put_along_axis(a, [[1]], 1, axis=2) → AxisError
    expect(() => putAlongAxis(a, idx, 1, { axis: 2 })).toThrow(AxisError);
    expect(() => putAlongAxis(a, idx, 1, undefined as never)).toThrow("the axis is required");
    expect(() => putAlongAxis(a, idx, 1, { axis: 1, mode: "nope" as "wrap" })).toThrow(TypeError);
    expect(() => putAlongAxis(a, idx, "1" as never, { axis: 1 })).toThrow(TypeError);
    // np.put_along_axis(int8 array, [[1]], 300, axis=1) → OverflowError: Python integer 300 out of bounds for int8
    expect(() => putAlongAxis(fakeArray([2, 3], "int8"), idx, 300, { axis: 1 })).toThrow(DTypeError);
    expect(() => putAlongAxis(fakeArray([3], "int64").broadcastTo([2, 3]), idx, 1, { axis: 1 })).toThrow(ArgumentError);
    expect(() => putAlongAxis(fakeArray([3], "int64").broadcastTo([2, 3]), idx, 1, { axis: 1 })).toThrow("repeats its elements");
    expect(() => putAlongAxis(a, idx, fakeArray([2], "int64"), { axis: 1 })).toThrow(BroadcastError);
    // Everything checked: only the stream is missing (a float value into an integer array truncates, as NumPy's).
    expect(() => putAlongAxis(a, idx, 1.5, { axis: -1 })).toThrow("putAlongAxis needs a stream");
    expect(() => putAlongAxis(a, fakeArray([1, 3], "uint8"), fakeArray([1, 1, 3], "float32"), { axis: 0, mode: "clip" })).toThrow("putAlongAxis needs a stream");
  });
});

describe("place's checks", () => {
  const arr = fakeArray([2, 3], "int64");
  const mask = fakeArray([2, 3], "bool");

  it("come before a stream is needed", () => {
    // np.place(arr, np.zeros(5, bool), [1, 2]) → ValueError: place: mask and data must be the same size
    expect(() => place(arr, fakeArray([5], "bool"), fakeArray([2], "int64"))).toThrow(ShapeMismatchError);
    expect(() => place(arr, fakeArray([5], "bool"), 1)).toThrow("place: the mask has 5 elements ([5]) but the array has 6 ([2, 3])");
    // np.place(int64 arr, mask, np.array([1.5, 2.7])) → TypeError: Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'
    expect(() => place(arr, mask, fakeArray([2], "float64"))).toThrow(DTypeError);
    expect(() => place(fakeArray([6], "float32"), fakeArray([6], "bool"), fakeArray([2], "int32"))).toThrow("place: int32 values do not convert safely to the float32 array");
    // np.place(int8 arr, mask, 300) → OverflowError
    expect(() => place(fakeArray([6], "int8"), fakeArray([6], "bool"), 300)).toThrow(DTypeError);
    expect(() => place([1, 2] as never, mask, 1)).toThrow(TypeError);
    expect(() => place(arr, [true] as never, 1)).toThrow(TypeError);
    expect(() => place(arr, mask, "x" as never)).toThrow(TypeError);
    expect(() => place(arr, mask, 1, 5 as never)).toThrow(TypeError);
    expect(() => place(fakeArray([3], "int64").broadcastTo([2, 3]), mask, 1)).toThrow("repeats its elements");
    // A mask of any dtype and shape with the array's size; safe conversions (int16 into float32, bool into int64).
    expect(() => place(arr, fakeArray([3, 2], "float64"), fakeArray([2], "uint8"))).toThrow("place needs a stream");
    expect(() => place(fakeArray([6], "float32"), fakeArray([6], "bool"), fakeArray([2], "int16"))).toThrow("place needs a stream");
    expect(() => place(arr, mask, 1.5)).toThrow("place needs a stream");
  });
});
