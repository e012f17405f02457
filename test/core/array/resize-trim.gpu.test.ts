/**
 * resize and trimZeros on a real GPU, read back against NumPy 2.4's results (each NumPy call in a comment): resize
 * larger, smaller, of a transposed view, of empty and 0-d arrays, to an empty or 0-d shape; trimZeros of 1-d arrays
 * (each trim, all zeros, NaN and -0.0, complex, bool, a strided view) and of 2-d arrays (the bounding box, one
 * axis). Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { mayShareMemory, resize, trimZeros } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, nums, iota, read } from "../../support/gpu-arrays.ts";


describe.skipIf(!gpu.available)(`resize and trimZeros on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const i64 = (values: number[], shape?: number[]): DeviceArray => DeviceArray.from(BigInt64Array.from(values, BigInt), { stream, ...(shape !== undefined ? { shape } : {}) });

  it("resize: repeats the elements row-major, cut where it is full", () => {
    using a = i64([0, 1, 2, 3], [2, 2]);
    // np.resize([[0, 1], [2, 3]], (2, 3)) → [[0, 1, 2], [3, 0, 1]]
    using r1 = resize(a, [2, 3]);
    expect(read(r1)).toEqual(["int64", [2, 3], [0, 1, 2, 3, 0, 1]]);
    using b = DeviceArray.from(Int8Array.from([1, 2]), { stream });
    // np.resize(np.array([1, 2], np.int8), 5) → int8 [1, 2, 1, 2, 1]
    using r2 = resize(b, 5);
    expect(read(r2)).toEqual(["int8", [5], [1, 2, 1, 2, 1]]);
    using c = i64(iota(6));
    // np.resize(np.arange(6), (2, 2)) → [[0, 1], [2, 3]]
    using r3 = resize(c, [2, 2]);
    expect(read(r3)).toEqual(["int64", [2, 2], [0, 1, 2, 3]]);
    // np.resize(np.array([[0, 1], [2, 3]]).T, 5) → [0, 2, 1, 3, 0]
    using r4 = resize(a.T, 5);
    expect(read(r4)).toEqual(["int64", [5], [0, 2, 1, 3, 0]]);
    using d = i64([1, 2, 3]);
    // np.resize([1, 2, 3], (2, 3)) → [[1, 2, 3], [1, 2, 3]]
    using r8 = resize(d, [2, 3]);
    expect(read(r8)).toEqual(["int64", [2, 3], [1, 2, 3, 1, 2, 3]]);
    using f = DeviceArray.from(Float64Array.from([1.5, 2.5]), { stream });
    // np.resize([1.5, 2.5], (2, 2, 2))
    using r9 = resize(f, [2, 2, 2]);
    expect(read(r9)).toEqual(["float64", [2, 2, 2], [1.5, 2.5, 1.5, 2.5, 1.5, 2.5, 1.5, 2.5]]);
    // np.resize([1, 2, 3], ()) → 1, 0-d
    using r10 = resize(d, []);
    expect(read(r10)).toEqual(["int64", [], [1]]);
  });

  it("resize: empty and 0-d inputs, empty shapes", () => {
    using e = DeviceArray.empty([0], "float32", { stream });
    // np.resize(np.zeros(0, np.float32), (2, 2)) → zeros
    using r5 = resize(e, [2, 2]);
    expect(read(r5)).toEqual(["float32", [2, 2], [0, 0, 0, 0]]);
    using x = i64([0, 1, 2]);
    // np.resize(np.arange(3), (0, 3)) → shape (0, 3)
    using r6 = resize(x, [0, 3]);
    expect(read(r6)).toEqual(["int64", [0, 3], []]);
    using s = DeviceArray.from(Int16Array.of(7), { stream, shape: [] });
    // np.resize(np.array(7, np.int16), 3) → int16 [7, 7, 7]
    using r7 = resize(s, 3);
    expect(read(r7)).toEqual(["int16", [3], [7, 7, 7]]);
  });

  it("trimZeros of 1-d arrays", () => {
    using x = i64([0, 0, 0, 1, 2, 3, 0, 2, 1, 0]);
    // np.trim_zeros(x) → [1, 2, 3, 0, 2, 1], a view
    const t1 = trimZeros(x);
    expect(read(t1)).toEqual(["int64", [6], [1, 2, 3, 0, 2, 1]]);
    expect(mayShareMemory(t1, x)).toBe(true);
    // np.trim_zeros(x, "b") → [0, 0, 0, 1, 2, 3, 0, 2, 1]; "f" → [1, 2, 3, 0, 2, 1, 0]; "BF" as "fb"
    expect(read(trimZeros(x, { trim: "b" }))).toEqual(["int64", [9], [0, 0, 0, 1, 2, 3, 0, 2, 1]]);
    expect(read(trimZeros(x, { trim: "f" }))).toEqual(["int64", [7], [1, 2, 3, 0, 2, 1, 0]]);
    expect(read(trimZeros(x, { trim: "BF" }))).toEqual(["int64", [6], [1, 2, 3, 0, 2, 1]]);
    using z = DeviceArray.zeros([4], "float64", { stream });
    // np.trim_zeros(np.zeros(4)) → []; with trim="f" too
    expect(read(trimZeros(z))).toEqual(["float64", [0], []]);
    expect(read(trimZeros(z, { trim: "f" }))).toEqual(["float64", [0], []]);
    using n = DeviceArray.from(Float64Array.from([0, -0, NaN, 1.5, 0]), { stream });
    // np.trim_zeros([0.0, -0.0, nan, 1.5, 0]) → [nan, 1.5]
    expect(read(trimZeros(n))).toEqual(["float64", [2], [NaN, 1.5]]);
    using c = DeviceArray.from(Float32Array.from([0, 0, 0, 1, 0, 0]), { stream, dtype: "complex64" });
    // np.trim_zeros(np.array([0, 1j, 0], np.complex64)) → [1j]
    expect(read(trimZeros(c))).toEqual(["complex64", [1], [0, 1]]);
    using b = DeviceArray.from(Uint8Array.from([0, 1, 1, 0]), { stream, dtype: "bool" });
    // np.trim_zeros([False, True, True, False]) → [True, True]
    expect(read(trimZeros(b))).toEqual(["bool", [2], [1, 1]]);
    using s = i64([0, 0, 5, 0, 6, 0, 0, 0]);
    // np.trim_zeros(np.array([0, 0, 5, 0, 6, 0, 0, 0])[::2]) → [5, 6]
    expect(read(trimZeros(s.slice([null, null, 2])))).toEqual(["int64", [2], [5, 6]]);
  });

  it("trimZeros of 2-d arrays: the bounding box, or along some axes", () => {
    using b = i64([0, 0, 2, 3, 0, 0, 0, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0], [3, 6]);
    // np.trim_zeros(b) → [[0, 2, 3], [1, 0, 3]]
    expect(read(trimZeros(b))).toEqual(["int64", [2, 3], [0, 2, 3, 1, 0, 3]]);
    // np.trim_zeros(b, axis=-1) → [[0, 2, 3], [1, 0, 3], [0, 0, 0]]
    expect(read(trimZeros(b, { axis: -1 }))).toEqual(["int64", [3, 3], [0, 2, 3, 1, 0, 3, 0, 0, 0]]);
    // np.trim_zeros(b, axis=0) → rows 0-1
    expect(read(trimZeros(b, { axis: 0 }))).toEqual(["int64", [2, 6], [0, 0, 2, 3, 0, 0, 0, 1, 0, 3, 0, 0]]);
    // np.trim_zeros(b, "f") → b[0:, 1:]
    expect(read(trimZeros(b, { trim: "f" }))).toEqual(["int64", [3, 5], [0, 2, 3, 0, 0, 1, 0, 3, 0, 0, 0, 0, 0, 0, 0]]);
    // np.trim_zeros(b, "b", axis=1) → b[:, :4]
    expect(read(trimZeros(b, { trim: "b", axis: 1 }))).toEqual(["int64", [3, 4], [0, 0, 2, 3, 0, 1, 0, 3, 0, 0, 0, 0]]);
    // Of the transpose: np.trim_zeros(b.T) → [[0, 1], [2, 0], [3, 3]]
    expect(read(trimZeros(b.T))).toEqual(["int64", [3, 2], [0, 1, 2, 0, 3, 3]]);
    using z = DeviceArray.zeros([2, 3], "float32", { stream });
    // np.trim_zeros(np.zeros((2, 3))).shape → (0, 0); with axis=1 → (2, 0)
    expect(read(trimZeros(z))).toEqual(["float32", [0, 0], []]);
    expect(read(trimZeros(z, { axis: 1 }))).toEqual(["float32", [2, 0], []]);
  });
});
