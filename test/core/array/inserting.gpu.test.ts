/**
 * putAlongAxis and place on a real GPU, read back against NumPy 2.4's results (each NumPy call in a comment):
 * putAlongAxis along either axis, broadcast indices and values (leading axes of extent 1 dropped), negative indices,
 * converted values, a transposed view, three axes with uint8 indices, wrap and clip (NumPy's calls on the wrapped or
 * clipped indices), indices out of range found on the device; place with masks of other dtypes and shapes, cycling
 * and longer values, a scalar, a transposed array, strided values and an empty vals. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, DeviceArray, IndexError, type Stream } from "../../../src/index.ts";
import { place, putAlongAxis } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, nums, iota, read } from "../../support/gpu-arrays.ts";


describe.skipIf(!gpu.available)(`putAlongAxis and place on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const i64 = (values: number[], shape?: number[]): DeviceArray => DeviceArray.from(BigInt64Array.from(values, BigInt), { stream, ...(shape !== undefined ? { shape } : {}) });

  it("putAlongAxis: along either axis, broadcasting, negative indices", () => {
    using a = i64([10, 30, 20, 60, 40, 50], [2, 3]);
    using ai = i64([1, 0], [2, 1]);
    // a = np.array([[10, 30, 20], [60, 40, 50]]); np.put_along_axis(a, [[1], [0]], 99, axis=1) → [[10, 99, 20], [99, 40, 50]]
    putAlongAxis(a, ai, 99, { axis: 1 });
    expect(read(a)).toEqual(["int64", [2, 3], [10, 99, 20, 99, 40, 50]]);
    using b = i64([10, 30, 20, 60, 40, 50], [2, 3]);
    using bi = i64([1, -1, 0], [1, 3]);
    using bv = i64([7, 8, 9], [1, 3]);
    // np.put_along_axis(b, [[1, -1, 0]], [[7, 8, 9]], axis=0) → [[10, 30, 9], [7, 8, 50]]
    putAlongAxis(b, bi, bv, { axis: 0 });
    expect(read(b)).toEqual(["int64", [2, 3], [10, 30, 9, 7, 8, 50]]);
    using c = i64(iota(6), [2, 3]);
    using ci = i64([0, 2], [1, 2]);
    using cv = i64([100, 200], [2, 1]);
    // np.put_along_axis(np.arange(6).reshape(2, 3), [[0, 2]], [[100], [200]], axis=1) → [[100, 1, 100], [200, 4, 200]]
    putAlongAxis(c, ci, cv, { axis: -1 });
    expect(read(c)).toEqual(["int64", [2, 3], [100, 1, 100, 200, 4, 200]]);
    using d = DeviceArray.zeros([1, 3], "int64", { stream });
    using di = i64([0, 2, 1], [3, 1]);
    using dv = i64([5, 6, 7], [3, 1]);
    // np.put_along_axis(zeros((1, 3), int), [[0], [2], [1]], [[5], [6], [7]], axis=1) → [[5, 7, 6]]
    putAlongAxis(d, di, dv, { axis: 1 });
    expect(read(d)).toEqual(["int64", [1, 3], [5, 7, 6]]);
    using e = DeviceArray.zeros([2, 3], "int64", { stream });
    using ev = i64([5, 6], [1, 2, 1]);
    // np.put_along_axis(zeros((2, 3), int), [[1], [0]], np.array([[[5], [6]]]), axis=1) → [[0, 5, 0], [6, 0, 0]]
    putAlongAxis(e, ai, ev, { axis: 1 });
    expect(read(e)).toEqual(["int64", [2, 3], [0, 5, 0, 6, 0, 0]]);
    using f = DeviceArray.zeros([2, 3], "int64", { stream });
    using fi = i64([2, 0, 1, -3], [2, 2]);
    using fv = i64([1, 2, 3, 4], [2, 2]);
    // np.put_along_axis(zeros((2, 3), int), [[2, 0], [1, -3]], [[1, 2], [3, 4]], axis=1) → [[2, 0, 1], [4, 3, 0]]
    putAlongAxis(f, fi, fv, { axis: 1 });
    expect(read(f)).toEqual(["int64", [2, 3], [2, 0, 1, 4, 3, 0]]);
  });

  it("putAlongAxis: converted values, a transposed view, three axes, one value, nothing to write", () => {
    using a = DeviceArray.zeros([2, 3], "int32", { stream });
    using ai = i64([1, 0], [2, 1]);
    using av = DeviceArray.from(Float64Array.from([1.5, 2.5]), { stream, shape: [2, 1] });
    // np.put_along_axis(zeros((2, 3), np.int32), [[1], [0]], [[1.5], [2.5]], axis=1) → [[0, 1, 0], [2, 0, 0]]
    putAlongAxis(a, ai, av, { axis: 1 });
    expect(read(a)).toEqual(["int32", [2, 3], [0, 1, 0, 2, 0, 0]]);
    using b = DeviceArray.from(Float32Array.from(iota(6)), { stream, shape: [2, 3] });
    using bi = i64([1, 0, 1], [3, 1]);
    using bv = DeviceArray.from(Float64Array.from([-1, -2, -3]), { stream, shape: [3, 1] });
    // b = np.arange(6, dtype=np.float32).reshape(2, 3); np.put_along_axis(b.T, [[1], [0], [1]], [[-1.], [-2.], [-3.]], axis=1)
    // → b [[0, -2, 2], [-1, 4, -3]]
    putAlongAxis(b.T, bi, bv, { axis: 1 });
    expect(read(b)).toEqual(["float32", [2, 3], [0, -2, 2, -1, 4, -3]]);
    using c = DeviceArray.zeros([2, 3, 4], "int16", { stream });
    using ci = DeviceArray.from(Uint8Array.from([0, 1, 2, 0, 2, 2, 1, 0]), { stream, shape: [2, 1, 4] });
    using cv = i64(iota(8), [2, 1, 4]);
    // np.put_along_axis(zeros((2, 3, 4), np.int16), np.array([[[0, 1, 2, 0]], [[2, 2, 1, 0]]], np.uint8), np.arange(8).reshape(2, 1, 4), axis=1)
    putAlongAxis(c, ci, cv, { axis: 1 });
    expect(read(c)).toEqual(["int16", [2, 3, 4], [0, 0, 0, 3, 0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 7, 0, 0, 6, 0, 4, 5, 0, 0]]);
    using d = DeviceArray.zeros([2, 3], "float64", { stream });
    using di = i64([2, 1], [2, 1]);
    using one = DeviceArray.from(Float64Array.of(4.5), { stream });
    // np.put_along_axis(zeros((2, 3)), [[2], [1]], np.array([4.5]), axis=1) → [[0, 0, 4.5], [0, 4.5, 0]]
    putAlongAxis(d, di, one, { axis: 1 });
    expect(read(d)).toEqual(["float64", [2, 3], [0, 0, 4.5, 0, 4.5, 0]]);
    using none = DeviceArray.empty([2, 0], "int64", { stream });
    // np.put_along_axis(zeros((2, 3), int), zeros((2, 0), int), 5, axis=1) → unchanged
    putAlongAxis(d, none, 5, { axis: 1 });
    expect(read(d)).toEqual(["float64", [2, 3], [0, 0, 4.5, 0, 4.5, 0]]);
  });

  it("putAlongAxis: wrap and clip; out of range found on the device, those writes skipped", () => {
    using idx = i64([3, -4], [2, 1]);
    using w = DeviceArray.zeros([2, 3], "int64", { stream });
    // np.put_along_axis(zeros((2, 3), int), np.mod([[3], [-4]], 3), 1, axis=1) → [[1, 0, 0], [0, 0, 1]]
    putAlongAxis(w, idx, 1, { axis: 1, mode: "wrap" });
    expect(read(w)).toEqual(["int64", [2, 3], [1, 0, 0, 0, 0, 1]]);
    using c = DeviceArray.zeros([2, 3], "int64", { stream });
    // np.put_along_axis(zeros((2, 3), int), np.clip([[3], [-4]], 0, 2), 1, axis=1) → [[0, 0, 1], [1, 0, 0]]
    putAlongAxis(c, idx, 1, { axis: 1, mode: "clip" });
    expect(read(c)).toEqual(["int64", [2, 3], [0, 0, 1, 1, 0, 0]]);
    using high = i64([3, 1], [2, 1]);
    using r = DeviceArray.zeros([2, 3], "int64", { stream });
    // np.put_along_axis(zeros((2, 3), int), [[3], [1]], 1, axis=1) → IndexError: index 3 is out of bounds for axis 1 with size 3
    putAlongAxis(r, high, 1, { axis: 1 });
    expect(() => r.toTypedArraySync()).toThrow(/^putAlongAxis: index 3 is out of range for an axis of extent 3/);
    // Reported once; the index in range was written, the other skipped.
    expect(nums(r.toTypedArraySync())).toEqual([0, 0, 0, 0, 1, 0]);
    using low = i64([1, -4], [2, 1]);
    using s = DeviceArray.zeros([2, 3], "int64", { stream });
    // np.put_along_axis(zeros((2, 3), int), [[1], [-4]], 1, axis=1) → IndexError: index -4 is out of bounds for axis 1 with size 3
    putAlongAxis(s, low, 1, { axis: 1 });
    expect(() => s.toTypedArraySync()).toThrow(IndexError);
    expect(nums(s.toTypedArraySync())).toEqual([0, 1, 0, 0, 0, 0]);
    // An index so large that index * 3 (the other axis's extent) wraps around int64 into range is still skipped:
    // 6148914691236517206 * 3 ≡ 2 (mod 2^64), which would be t[0, 2], along axis 0 of a (2, 3) array.
    using huge = DeviceArray.from(BigInt64Array.from([6148914691236517206n, 1n, 1n]), { stream, shape: [1, 3] });
    using t = DeviceArray.zeros([2, 3], "int64", { stream });
    putAlongAxis(t, huge, 1, { axis: 0 });
    expect(() => t.toTypedArraySync()).toThrow(/^putAlongAxis: index 6148914691236517206 is out of range for an axis of extent 2/);
    expect(nums(t.toTypedArraySync())).toEqual([0, 0, 0, 0, 1, 1]);
  });

  it("place: the k-th true element gets vals[k % len(vals)]", () => {
    using a = i64(iota(6), [2, 3]);
    using m = DeviceArray.from(Uint8Array.from([0, 0, 0, 1, 1, 1]), { stream, dtype: "bool", shape: [2, 3] });
    using v = i64([44, 55]);
    // arr = np.arange(6).reshape(2, 3); np.place(arr, arr > 2, [44, 55]) → [[0, 1, 2], [44, 55, 44]]
    place(a, m, v);
    expect(read(a)).toEqual(["int64", [2, 3], [0, 1, 2, 44, 55, 44]]);
    using b = i64(iota(6), [2, 3]);
    using mi = DeviceArray.from(Int32Array.from([1, 0, 1, 1, 0, 1]), { stream, shape: [3, 2] });
    using long = i64([9, 8, 7, 6, 5, 4, 3]);
    // np.place(arr, np.array([[1, 0], [1, 1], [0, 1]], np.int32), [9, 8, 7, 6, 5, 4, 3]) → [[9, 1, 8], [7, 4, 6]]
    place(b, mi, long);
    expect(read(b)).toEqual(["int64", [2, 3], [9, 1, 8, 7, 4, 6]]);
    using c = i64(iota(6), [2, 3]);
    using mf = DeviceArray.from(Float64Array.from([0, 2, 0, 0, -1, 0.5]), { stream });
    using v2 = i64([10, 20, 30, 40], [2, 2]);
    // np.place(arr, np.array([0, 2, 0, 0, -1, 0.5]), np.array([[10, 20], [30, 40]])) → [[0, 10, 2], [3, 20, 30]]
    place(c, mf, v2);
    expect(read(c)).toEqual(["int64", [2, 3], [0, 10, 2, 3, 20, 30]]);
    using d = i64(iota(6), [2, 3]);
    using even = DeviceArray.from(Uint8Array.from([1, 0, 1, 0, 1, 0]), { stream, dtype: "bool", shape: [2, 3] });
    // np.place(arr, arr % 2 == 0, 7) → [[7, 1, 7], [3, 7, 5]]
    place(d, even, 7);
    expect(read(d)).toEqual(["int64", [2, 3], [7, 1, 7, 3, 7, 5]]);
    using e = i64(iota(6), [2, 3]);
    using all = DeviceArray.from(Uint8Array.from([1, 1, 1, 1, 1, 1]), { stream, dtype: "bool" });
    using five = i64([5]);
    // np.place(arr, np.ones(6, bool), np.array([5])) → all 5
    place(e, all, five);
    expect(read(e)).toEqual(["int64", [2, 3], [5, 5, 5, 5, 5, 5]]);
    using u8 = DeviceArray.from(Uint8Array.from([1, 2, 3, 4]), { stream });
    // np.place(arr, np.ones(6, bool), np.array([1, 2, 3, 4], np.uint8)[::-1][::2]) → [[4, 2, 4], [2, 4, 2]]
    place(e, all, u8.slice([null, null, -1]).slice([null, null, 2]));
    expect(read(e)).toEqual(["int64", [2, 3], [4, 2, 4, 2, 4, 2]]);
    using flags = DeviceArray.from(Uint8Array.from([1, 0, 1, 1, 0, 1]), { stream, dtype: "bool" });
    // np.place(np.arange(6).reshape(2, 3), mask, 1.5) → [[1, 1, 1], [1, 4, 1]] (a scalar converts as assignment does)
    using g = i64(iota(6), [2, 3]);
    place(g, flags, 1.5);
    expect(read(g)).toEqual(["int64", [2, 3], [1, 1, 1, 1, 4, 1]]);
  });

  it("place: a transposed array, safe conversions, an empty vals", () => {
    using a = DeviceArray.from(Float32Array.from(iota(6)), { stream, shape: [2, 3] });
    using m = DeviceArray.from(Uint8Array.from([1, 0, 0, 1, 1, 1]), { stream, dtype: "bool", shape: [3, 2] });
    using v = DeviceArray.from(Int16Array.from([-1, -2, -3, -4]), { stream });
    // arr = np.arange(6, dtype=np.float32).reshape(2, 3); np.place(arr.T, [[1, 0], [0, 1], [1, 1]], np.array([-1, -2, -3, -4], np.int16))
    // → arr [[-1, 1, -3], [3, -2, -4]]
    place(a.T, m, v);
    expect(read(a)).toEqual(["float32", [2, 3], [-1, 1, -3, 3, -2, -4]]);
    using b = i64(iota(6), [2, 3]);
    using gt2 = DeviceArray.from(Uint8Array.from([0, 0, 0, 1, 1, 1]), { stream, dtype: "bool" });
    using tf = DeviceArray.from(Uint8Array.from([1, 0]), { stream, dtype: "bool" });
    // np.place(arr, arr > 2, np.array([True, False])) → [[0, 1, 2], [1, 0, 1]]
    place(b, gt2, tf);
    expect(read(b)).toEqual(["int64", [2, 3], [0, 1, 2, 1, 0, 1]]);
    using z = DeviceArray.zeros([3], "complex128", { stream });
    using mz = DeviceArray.from(Uint8Array.from([1, 0, 1]), { stream, dtype: "bool" });
    using f = DeviceArray.from(Float32Array.from([1.5, 2.5]), { stream });
    // np.place(np.zeros(3, complex), [True, False, True], np.array([1.5, 2.5], np.float32)) → [1.5+0j, 0j, 2.5+0j]
    place(z, mz, f);
    expect(read(z)).toEqual(["complex128", [3], [1.5, 0, 0, 0, 2.5, 0]]);
    using c = i64(iota(6), [2, 3]);
    using none = DeviceArray.zeros([6], "bool", { stream });
    using empty = DeviceArray.empty([0], "int64", { stream });
    // np.place(arr, arr > 9, np.array([], np.int64)) → unchanged; np.place(arr, arr > 4, []) → ValueError: Cannot insert from an empty array!
    place(c, none, empty);
    expect(read(c)).toEqual(["int64", [2, 3], iota(6)]);
    expect(() => place(c, gt2, empty)).toThrow(ArgumentError);
    expect(read(c)).toEqual(["int64", [2, 3], iota(6)]);
    using zeroSize = DeviceArray.empty([0, 3], "int64", { stream });
    using noMask = DeviceArray.empty([0], "bool", { stream });
    // np.place(np.zeros((0, 3), int), np.zeros(0, bool), [1]) → nothing
    place(zeroSize, noMask, 1);
    expect(read(zeroSize)).toEqual(["int64", [0, 3], []]);
  });
});
