/**
 * fromfunction, applyAlongAxis and block without a GPU: their arguments checked before a stream is needed.
 */
import { describe, expect, it } from "vitest";
import { AxisError, applyAlongAxis, block, fromfunction } from "../../../src/array.ts";
import { ShapeMismatchError } from "../../../src/index.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

const NEEDS_STREAM = /needs a stream/;

describe("fromfunction, applyAlongAxis and block: checks", () => {
  it("fromfunction takes a function, a shape and options with the stream", () => {
    expect(() => fromfunction((i) => i, [3], {})).toThrow(NEEDS_STREAM);
    expect(() => fromfunction(3 as never, [3], {})).toThrow(TypeError);
    expect(() => fromfunction((i) => i, [3], undefined as never)).toThrow(TypeError);
    expect(() => fromfunction((i) => i, 3 as never, {})).toThrow(TypeError);
  });

  it("applyAlongAxis takes a function, an axis in range and an array with slices", () => {
    const x = fakeArray([3, 4], "float32");
    expect(() => applyAlongAxis((r) => r, 1, x)).toThrow(NEEDS_STREAM);
    expect(() => applyAlongAxis((r) => r, 2, x)).toThrow(AxisError);
    expect(() => applyAlongAxis((r) => r, 0, fakeArray([], "float32"))).toThrow(AxisError);
    expect(() => applyAlongAxis((r) => r, 0, fakeArray([0, 4], "float32"))).toThrow(NEEDS_STREAM);
    expect(() => applyAlongAxis((r) => r, 1, fakeArray([0, 4], "float32"))).toThrow(/no 1-d slice/);
    expect(() => applyAlongAxis("f" as never, 0, x)).toThrow(TypeError);
    expect(() => applyAlongAxis((r) => r, 0, [1, 2] as never)).toThrow(TypeError);
  });

  it("block takes nested lists of arrays, every branch equally deep, none empty", () => {
    const a = fakeArray([2, 2], "float32");
    expect(() => block([[a, a], [a, a]])).toThrow(NEEDS_STREAM);
    expect(() => block([])).toThrow(/empty/);
    expect(() => block([[a], a])).toThrow(/different depths/);
    expect(() => block([[a, 3 as never]])).toThrow(TypeError);
    expect(() => block([[a], []])).toThrow(ShapeMismatchError);
  });
});
