/**
 * vecdot's checks without a GPU, over a stand-in buffer: vectors of different lengths, 0-d operands, axes out of
 * range and bad options are typed errors naming the shapes, before anything reaches a stream.
 */
import { describe, expect, it } from "vitest";
import { AxisError, ShapeMismatchError, type DeviceArray } from "../../../src/index.ts";
import { vecdot } from "../../../src/array.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

const arr = (shape: number[]): DeviceArray => fakeArray(shape, "float32");

describe("vecdot checks", () => {
  it("vectors of one length, arrays of at least 1 axis, axes in range", () => {
    expect(() => vecdot(arr([2, 3]), arr([2]))).toThrow(ShapeMismatchError);
    expect(() => vecdot(arr([2, 3]), arr([2]))).toThrow("vecdot: the vectors along axis -1 have 3 elements in a (shape [2, 3]) but 2 in b (shape [2])");
    expect(() => vecdot(arr([]), arr([3]))).toThrow("needs arrays of at least 1 axis");
    expect(() => vecdot(arr([3]), arr([3]), { axis: 1 })).toThrow(AxisError);
    expect(() => vecdot(arr([3]), arr([3]), 5 as never)).toThrow(TypeError);
    expect(() => vecdot([1, 2] as never, arr([2]))).toThrow(TypeError);
    // Past the checks: the stream is what is missing.
    expect(() => vecdot(arr([2, 3]), arr([3]))).toThrow("vecdot needs a stream");
  });
});
