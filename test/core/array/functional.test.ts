/**
 * fromfunction, applyAlongAxis and block without a GPU: their arguments checked before a stream is needed.
 */
import { describe, expect, it } from "vitest";
import { AxisError, applyAlongAxis, applyOverAxes, block, fromfunction, piecewise } from "../../../src/array.ts";
import { Buffer, DeviceArray } from "../../../src/index.ts";
import { DTypeError, ShapeMismatchError } from "../../../src/index.ts";
import { fakeArray, fakeResource } from "../../support/fake-arrays.ts";

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

  it("applyOverAxes calls fn over each axis, putting a removed axis back with extent 1", () => {
    const x = fakeArray([2, 3, 4], "float32");
    const seen: [number[], number][] = [];
    // The first element along the axis: one axis fewer, put back (as a reduction without keepdims would be).
    const first = (v: DeviceArray, axis: number): DeviceArray => {
      seen.push([[...v.shape], axis]);
      return v.slice(...v.shape.map((_, d) => (d === axis ? 0 : null)));
    };
    const r = applyOverAxes(first, x, [0, -1]);
    expect(r.shape).toEqual([1, 3, 1]);
    expect(seen).toEqual([[[2, 3, 4], 0], [[1, 3, 4], 2]]);
    expect(applyOverAxes((v) => v, x, 1)).toBe(x);
    expect(applyOverAxes(first, x, []).shape).toEqual([2, 3, 4]);
    expect(() => applyOverAxes((v) => v.reshape([24]), x, 0)).toThrow(ShapeMismatchError);
    expect(() => applyOverAxes((v) => v.reshape([24]), x, 0)).toThrow(/returned 1 axes \(shape \[24\]\) for an input of 3 along axis 0/);
    expect(() => applyOverAxes((() => 3) as never, x, 0)).toThrow(/fn returned 3 for axis 0/);
    expect(() => applyOverAxes(first, x, [0.5])).toThrow(/axes is an integer or a list of integers/);
    expect(() => applyOverAxes(first, [1] as never, 0)).toThrow(TypeError);
  });

  it("applyOverAxes closes the new arrays fn made once no later result needs them, views of them included", () => {
    const x = fakeArray([2, 3, 4], "float32");
    let next = 0x7f10_0000_0000n;
    const fresh = (shape: number[]): DeviceArray => {
      next += 0x10_0000n;
      return DeviceArray.fromBuffer(Buffer.fromHandle(next, 1 << 16, { memoryResource: fakeResource(-1) }), { dtype: "float32", shape });
    };
    const made: DeviceArray[] = [];
    // Axis 0: a new array; axis 1: a view of it (it must stay open); axis 2: another new array (now the first closes).
    const r = applyOverAxes((v, axis) => (axis === 1 ? v.reshape([...v.shape]) : (made[made.length] = fresh([...v.shape]))), x, [0, 1, 2]);
    expect(r).toBe(made[1]);
    expect([made[0]!.isClosed, made[1]!.isClosed, x.isClosed]).toEqual([true, false, false]);
    // A result of the wrong rank is closed before the error, as is the array it replaced.
    const bad = fresh([24]);
    const kept = fresh([2, 3, 4]);
    expect(() => applyOverAxes((v, axis) => (axis === 0 ? kept : bad), x, [0, 1])).toThrow(ShapeMismatchError);
    expect([bad.isClosed, kept.isClosed]).toEqual([true, true]);
  });

  it("piecewise takes conditions of x's shape and as many pieces, or one more", () => {
    const x = fakeArray([5], "float32");
    const c = fakeArray([5], "bool");
    expect(() => piecewise(x, [c], [1])).toThrow(NEEDS_STREAM);
    expect(() => piecewise(x, [c], [1, 2])).toThrow(NEEDS_STREAM);
    expect(() => piecewise(x, c, [1])).toThrow(NEEDS_STREAM);
    expect(() => piecewise(x, fakeArray([2, 5], "bool"), [1, 2, 3])).toThrow(NEEDS_STREAM);
    expect(() => piecewise(x, [c], [1, 2, 3])).toThrow(/1 condition take 1 pieces, or 2 with the last for where none holds; got 3/);
    expect(() => piecewise(x, [c, c], [])).toThrow(/2 conditions take 2 pieces/);
    expect(() => piecewise(x, [fakeArray([4], "bool")], [1])).toThrow(/condition 0 has shape \[4\] but x has \[5\]/);
    expect(() => piecewise(x, 3 as never, [1])).toThrow(TypeError);
    expect(() => piecewise(x, [c], 1 as never)).toThrow(TypeError);
    expect(() => piecewise(x, [], [1])).toThrow(/condlist is empty/);
    // Values as NumPy's assignment takes Python scalars: in range, finite for integers, real for real dtypes.
    const i8 = fakeArray([5], "int8");
    expect(() => piecewise(i8, [c], [300])).toThrow(/piece 0's value 300 is outside int8's range \(-128 to 127\)/);
    expect(() => piecewise(i8, [c], [1, NaN])).toThrow(/piece 1's value/);
    expect(() => piecewise(x, [c], [[1, 2]])).toThrow(DTypeError);
    expect(() => piecewise(i8, [c], [1.5, -128])).toThrow(NEEDS_STREAM);
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
