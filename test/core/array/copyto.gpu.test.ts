/**
 * copyto on a real GPU, read back against NumPy 2.4's `copyto` (each call in a comment): broadcast rows, conversions
 * under "same_kind" and "unsafe", scalars, masks (an array and a broadcast row), strided destinations, and sources
 * that overlap the destination (a shifted view of itself). Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { copyto } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, peekDecoded } from "../../support/gpu-arrays.ts";

describe.skipIf(!gpu.available)(`copyto on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("broadcast, converted, scalars", () => {
    using dst = DeviceArray.zeros([2, 3], "float32", { stream });
    using row = DeviceArray.from(Float64Array.from([1.5, 2.5, 3.5]), { stream });
    // np.copyto(np.zeros((2, 3), np.float32), [1.5, 2.5, 3.5]) → [[1.5, 2.5, 3.5]] * 2
    copyto(dst, row);
    expect(peekDecoded(dst, stream)).toEqual(["float32", [2, 3], [1.5, 2.5, 3.5, 1.5, 2.5, 3.5]]);
    using i8 = DeviceArray.zeros([3], "int8", { stream });
    using f = DeviceArray.from(Float32Array.from([-1.7, 2.9, 127.5]), { stream });
    // np.copyto(int8, float32 [-1.7, 2.9, 127.5], casting="unsafe") → [-1, 2, 127]
    copyto(i8, f, { casting: "unsafe" });
    expect(peekDecoded(i8, stream)).toEqual(["int8", [3], [-1, 2, 127]]);
    // np.copyto(int8, 5) → [5, 5, 5]; np.copyto(int8, 1.9, casting="unsafe") → [1, 1, 1]
    copyto(i8, 5);
    expect(peekDecoded(i8, stream)).toEqual(["int8", [3], [5, 5, 5]]);
    copyto(i8, 1.9, { casting: "unsafe" });
    expect(peekDecoded(i8, stream)).toEqual(["int8", [3], [1, 1, 1]]);
    // "unsafe" scalars convert as arrays do: np.copyto(uint8, -1.5, casting="unsafe") → 255, NaN and 2j into bool → True
    using u8 = DeviceArray.zeros([2], "uint8", { stream });
    copyto(u8, -1.5, { casting: "unsafe" });
    expect(peekDecoded(u8, stream)).toEqual(["uint8", [2], [255, 255]]);
    using flags = DeviceArray.zeros([2], "bool", { stream });
    copyto(flags, Number.NaN, { casting: "unsafe" });
    expect(peekDecoded(flags, stream)).toEqual(["bool", [2], [true, true]]);
    flags.fill(false, { stream });
    using mask = DeviceArray.from(Uint8Array.from([0, 1]), { stream, dtype: "bool" });
    copyto(flags, [0, 2], { casting: "unsafe", where: mask });
    expect(peekDecoded(flags, stream)).toEqual(["bool", [2], [false, true]]);
    // np.copyto(np.zeros(3), np.ones((1, 1, 3))): the source's leading axes of extent 1 are dropped
    using three = DeviceArray.zeros([3], "float64", { stream });
    using lifted = DeviceArray.from(Float64Array.from([4, 5, 6]), { stream, shape: [1, 1, 3] });
    copyto(three, lifted);
    expect(peekDecoded(three, stream)).toEqual(["float64", [3], [4, 5, 6]]);
    using c = DeviceArray.zeros([2], "complex64", { stream });
    copyto(c, [1, -2]);
    expect(peekDecoded(c, stream)).toEqual(["complex64", [2], [[1, -2], [1, -2]]]);
  });

  it("where: a mask, a broadcast row, a scalar source, false", () => {
    using dst = DeviceArray.from(Int32Array.from([0, 1, 2, 3, 4, 5]), { stream, shape: [2, 3] });
    using src = DeviceArray.from(Int32Array.from([10, 11, 12, 13, 14, 15]), { stream, shape: [2, 3] });
    using row = DeviceArray.from(Uint8Array.from([1, 0, 1]), { stream, dtype: "bool" });
    // np.copyto(dst, src, where=[True, False, True]) → [[10, 1, 12], [13, 4, 15]]
    copyto(dst, src, { where: row });
    expect(peekDecoded(dst, stream)).toEqual(["int32", [2, 3], [10, 1, 12, 13, 4, 15]]);
    using neg = DeviceArray.from(Float64Array.from([-1, 2, -3, 4]), { stream });
    using below = neg.lt(0);
    // np.copyto(x, 0, where=x < 0) → [0, 2, 0, 4]
    copyto(neg, 0, { where: below });
    expect(peekDecoded(neg, stream)).toEqual(["float64", [4], [0, 2, 0, 4]]);
    copyto(neg, 9, { where: false });
    expect(peekDecoded(neg, stream)).toEqual(["float64", [4], [0, 2, 0, 4]]);
    using mask = DeviceArray.from(Uint8Array.from([0, 1, 1, 0]), { stream, dtype: "bool" });
    using f16 = DeviceArray.from(Float32Array.from([0.5, 1.5, 2.5, 3.5]), { stream });
    // np.copyto(float64 [0, 2, 0, 4], float32 [0.5, 1.5, 2.5, 3.5], where=[F, T, T, F]) → [0, 1.5, 2.5, 4]
    copyto(neg, f16, { where: mask });
    expect(peekDecoded(neg, stream)).toEqual(["float64", [4], [0, 1.5, 2.5, 4]]);
  });

  it("strided destinations and sources that overlap the destination", () => {
    using base = DeviceArray.from(Int32Array.from([0, 1, 2, 3, 4, 5, 6, 7]), { stream });
    // x = np.arange(8); np.copyto(x[1:], x[:-1]) → [0, 0, 1, 2, 3, 4, 5, 6] (the source as it was)
    copyto(base.slice([1, 8]), base.slice([0, 7]));
    expect(peekDecoded(base, stream)).toEqual(["int32", [8], [0, 0, 1, 2, 3, 4, 5, 6]]);
    // x = np.arange(8); np.copyto(x[:-1], x[1:], where=np.ones(7, bool)) → [1, 2, 3, 4, 5, 6, 7, 7]
    using again = DeviceArray.from(Int32Array.from([0, 1, 2, 3, 4, 5, 6, 7]), { stream });
    using m = DeviceArray.from(Uint8Array.from([1, 1, 1, 1, 1, 1, 1]), { stream, dtype: "bool" });
    copyto(again.slice([0, 7]), again.slice([1, 8]), { where: m });
    expect(peekDecoded(again, stream)).toEqual(["int32", [8], [1, 2, 3, 4, 5, 6, 7, 7]]);
    using grid = DeviceArray.zeros([3, 4], "float32", { stream });
    using col = DeviceArray.from(Float32Array.from([1, 2, 3]), { stream, shape: [3, 1] });
    // g = np.zeros((3, 4)); np.copyto(g[:, ::2], [[1], [2], [3]]) → columns 0 and 2 set
    copyto(grid.slice(null, [0, 4, 2]), col);
    expect(peekDecoded(grid, stream)).toEqual(["float32", [3, 4], [1, 0, 1, 0, 2, 0, 2, 0, 3, 0, 3, 0]]);
  });
});
