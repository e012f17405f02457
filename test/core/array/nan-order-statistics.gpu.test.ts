/**
 * `nanmedian`, `nanquantile` and `nanpercentile` on a real GPU, against NumPy 2.4's results (the NumPy call beside
 * each): 1-d arrays, rows with different NaN counts and all-NaN rows along each axis, several axes, a transposed
 * view, keepdims, an `out`; every method with q as a number and as a list (its axis first); percentiles; float16,
 * float32 and float64, and integer and bool arrays (which give median's and quantile's results); all-NaN and empty
 * slices. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { median, nanmedian, nanpercentile, nanquantile, quantile, type QuantileMethod } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import { readAndClose } from "../../support/arrays.ts";

const N = NaN;
const f32 = (xs: readonly number[]): number[] => xs.map(Math.fround);
const METHODS: readonly QuantileMethod[] = ["linear", "lower", "higher", "nearest", "midpoint"];

describe.skipIf(!gpu.available)(`nanmedian, nanquantile and nanpercentile on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const read = (x: DeviceArray): number[] => readAndClose(x, stream);
  /** The shape, dtype and elements of `x`, then `x` closed. */
  const described = (x: DeviceArray): [number[], string, number[]] => [[...x.shape], x.dtype.name, read(x)];
  /** The shape, dtype and elements (read as float32) of a float16 `x`, then `x` closed. */
  const described16 = (x: DeviceArray): [number[], string, number[]] => {
    try {
      return [[...x.shape], x.dtype.name, read(x.astype("float32", { stream }))];
    } finally {
      x.close();
    }
  };

  // m = np.float32([[1, nan, 3, 2], [nan, nan, nan, nan], [5, 4, nan, 6], [7, 8, 9, 10]])
  const mData = [1, N, 3, 2, N, N, N, N, 5, 4, N, 6, 7, 8, 9, 10];

  it("takes nanmedians of 1-d arrays, of rows with different NaN counts and all-NaN rows, along each axis, with keepdims and an out", () => {
    using x = DeviceArray.from(Float64Array.from([3, N, 1, 4, N, 2]), { stream });
    expect(described(nanmedian(x))).toEqual([[], "float64", [2.5]]); // np.nanmedian([3, nan, 1, 4, nan, 2])
    using m = DeviceArray.from(Float32Array.from(mData), { stream, shape: [4, 4] });
    expect(described(nanmedian(m, { axis: 1 }))).toEqual([[4], "float32", [2, N, 5, 8.5]]); // np.nanmedian(m, axis=1)
    expect(described(nanmedian(m, { axis: 0 }))).toEqual([[4], "float32", [5, 6, 6, 6]]); // np.nanmedian(m, axis=0)
    expect(described(nanmedian(m, { axis: -2 }))).toEqual([[4], "float32", [5, 6, 6, 6]]); // np.nanmedian(m, axis=-2)
    expect(described(nanmedian(m))).toEqual([[], "float32", [5.5]]); // np.nanmedian(m)
    expect(described(nanmedian(m, { axis: 1, keepdims: true }))).toEqual([[4, 1], "float32", [2, N, 5, 8.5]]); // np.nanmedian(m, axis=1, keepdims=True)
    expect(described(nanmedian(m, { axis: [0, 1], keepdims: true }))).toEqual([[1, 1], "float32", [5.5]]); // np.nanmedian(m, axis=(0, 1), keepdims=True)
    using out = DeviceArray.empty([4], "float64", { stream });
    expect(nanmedian(m, { axis: 1, out })).toBe(out); // np.nanmedian(m, axis=1, out=np.empty(4))
    expect(Array.from(out.toTypedArraySync({ stream }) as Float64Array)).toEqual([2, N, 5, 8.5]);
    // A float array without NaN: median's values. np.nanmedian(np.float64([[10, 40, 20, 30, 50], [5, 1, 4, 2, 3]]), axis=0)
    using m2 = DeviceArray.from(Float64Array.from([10, 40, 20, 30, 50, 5, 1, 4, 2, 3]), { stream, shape: [2, 5] });
    expect(read(nanmedian(m2, { axis: 0 }))).toEqual([7.5, 20.5, 12, 16, 26.5]);
    expect(read(nanmedian(m2, { axis: 0 }))).toEqual(read(median(m2, { axis: 0 })));
  });

  it("takes nanmedians over several axes and of a transposed view", () => {
    // t = np.arange(24.0).reshape(2, 3, 4); t[0, 0, 1] = t[0, 2, 0] = t[0, 2, 3] = nan; t[1, 2, :] = nan
    const flat = Float64Array.from({ length: 24 }, (_, k) => k);
    for (const k of [1, 8, 11, 20, 21, 22, 23]) flat[k] = NaN;
    using t = DeviceArray.from(flat, { stream, shape: [2, 3, 4] });
    expect(described(nanmedian(t, { axis: [0, 2] }))).toEqual([[3], "float64", [12, 11.5, 9.5]]); // np.nanmedian(t, axis=(0, 2))
    expect(described(nanmedian(t, { axis: [2, 0], keepdims: true }))).toEqual([[1, 3, 1], "float64", [12, 11.5, 9.5]]); // np.nanmedian(t, axis=(2, 0), keepdims=True)
    // np.nanmedian(t.transpose(2, 1, 0), axis=1): shape (4, 2)
    expect(described(nanmedian(t.transpose(2, 1, 0), { axis: 1 }))).toEqual([[4, 2], "float64", [2, 14, 7, 15, 6, 16, 5, 17]]);
    // np.nanquantile(t, [0.2, 0.8], axis=(0, 1))
    expect(described(nanquantile(t, [0.2, 0.8], { axis: [0, 1] }))).toEqual([
      [2, 4],
      "float64",
      [2.4000000000000004, 7.4, 5.2, 5.4, 13.600000000000001, 14.600000000000001, 14.8, 16.6],
    ]);
    expect(described(nanquantile(t, 0.6))).toEqual([[], "float64", [12.6]]); // np.nanquantile(t, 0.6)
  });

  it("takes nanquantiles by every method, with one q and a list", () => {
    using x = DeviceArray.from(Float64Array.from([3, N, 1, 4, N, 2]), { stream });
    const qs = [0, 0.25, 0.4, 0.5, 0.75, 1];
    // np.nanquantile(np.float64([3, nan, 1, 4, nan, 2]), [0, 0.25, 0.4, 0.5, 0.75, 1], method=m)
    const expected: Record<QuantileMethod, number[]> = {
      linear: [1, 1.75, 2.2, 2.5, 3.25, 4],
      lower: [1, 1, 2, 2, 3, 4],
      higher: [1, 2, 3, 3, 4, 4],
      nearest: [1, 2, 2, 3, 3, 4], // 0.75 → 1 and 1.5 → 2 (half to even)
      midpoint: [1, 1.5, 2.5, 2.5, 3.5, 4],
    };
    for (const method of METHODS) {
      expect(described(nanquantile(x, qs, { method })), method).toEqual([[6], "float64", expected[method]]);
      // np.nanquantile(x, 0.25, method=m)
      expect(described(nanquantile(x, 0.25, { method })), method).toEqual([[], "float64", [expected[method][1]]]);
    }
    expect(read(nanquantile(x, 0.4))).toEqual([2.2]); // linear is the default
    using m = DeviceArray.from(Float32Array.from(mData), { stream, shape: [4, 4] });
    // np.nanquantile(m, 0.4, axis=1, method=me)
    const rows: Record<QuantileMethod, number[]> = {
      linear: [1.8, N, 4.8, 8.2],
      lower: [1, N, 4, 8],
      higher: [2, N, 5, 9],
      nearest: [2, N, 5, 8],
      midpoint: [1.5, N, 4.5, 8.5],
    };
    for (const method of METHODS) expect(described(nanquantile(m, 0.4, { axis: 1, method })), method).toEqual([[4], "float32", f32(rows[method])]);
    // float32 with a list of q stays float32 (NumPy: float64), each value np.nanquantile(m, q, axis=1) for q in [0.1, 0.5, 0.9]
    expect(described(nanquantile(m, [0.1, 0.5, 0.9], { axis: 1 }))).toEqual([[3, 4], "float32", f32([1.2, N, 4.2, 7.3, 2, N, 5, 8.5, 2.8, N, 5.8, 9.7])]);
    expect(described(nanquantile(m, 0.3, { axis: 0 }))).toEqual([[4], "float32", f32([3.4, 5.2, 4.8, 4.4])]); // np.nanquantile(m, 0.3, axis=0)
    // np.nanquantile(m, [0.25, 0.75], axis=0, keepdims=True): shape (2, 1, 4)
    expect(described(nanquantile(m, [0.25, 0.75], { axis: 0, keepdims: true }))).toEqual([[2, 1, 4], "float32", [3, 5, 4.5, 4, 6, 7, 7.5, 8]]);
    // q's axis first, into an out: np.nanquantile(m, [0.1, 0.9], axis=1, out=np.empty((2, 4)))
    using out = DeviceArray.empty([2, 4], "float64", { stream });
    expect(nanquantile(m, [0.1, 0.9], { axis: 1, out })).toBe(out);
    expect(Array.from(out.toTypedArraySync({ stream }) as Float64Array)).toEqual(f32([1.2, N, 4.2, 7.3, 2.8, N, 5.8, 9.7]));
    // A float array without NaN: quantile's values. np.nanquantile(m2, [0.1, 0.9], axis=1)
    using m2 = DeviceArray.from(Float64Array.from([10, 40, 20, 30, 50, 5, 1, 4, 2, 3]), { stream, shape: [2, 5] });
    expect(described(nanquantile(m2, [0.1, 0.9], { axis: 1 }))).toEqual([[2, 2], "float64", [14, 1.4, 46, 4.6]]);
    expect(read(nanquantile(m2, 0.3, { axis: 0 }))).toEqual([6.5, 12.7, 8.8, 10.4, 17.1]); // np.nanquantile(m2, 0.3, axis=0)
    for (const method of METHODS) {
      expect(read(nanquantile(m2, [0.1, 0.35, 0.5, 0.9], { axis: 1, method })), method).toEqual(read(quantile(m2, [0.1, 0.35, 0.5, 0.9], { axis: 1, method })));
    }
  });

  it("takes nanpercentiles", () => {
    using m = DeviceArray.from(Float32Array.from(mData), { stream, shape: [4, 4] });
    // each value np.nanpercentile(m, q, axis=1) for q in [25, 50] (NumPy gives the list float64)
    expect(described(nanpercentile(m, [25, 50], { axis: 1 }))).toEqual([[2, 4], "float32", [1.5, N, 4.5, 7.75, 2, N, 5, 8.5]]);
    expect(described(nanpercentile(m, 40, { axis: -1, method: "nearest" }))).toEqual([[4], "float32", [2, N, 5, 8]]); // np.nanpercentile(m, 40, axis=-1, method="nearest")
    using x = DeviceArray.from(Float64Array.from([3, N, 1, 4, N, 2]), { stream });
    expect(read(nanpercentile(x, [25, 50, 75]))).toEqual([1.75, 2.5, 3.25]); // np.nanpercentile(x, [25, 50, 75])
  });

  it("takes float16 in float32 rounded once, and integers and bool as median and quantile do (float64)", () => {
    // h = np.float16([[1.5, nan, 2.25, 7], [nan, 3, nan, nan]])
    using h32 = DeviceArray.from(Float32Array.from([1.5, N, 2.25, 7, N, 3, N, N]), { stream, shape: [2, 4] });
    using h = h32.astype("float16", { stream });
    expect(described16(nanmedian(h, { axis: 1 }))).toEqual([[2], "float16", [2.25, 3]]); // np.nanmedian(h, axis=1)
    expect(described16(nanquantile(h, 0.25, { axis: 1 }))).toEqual([[2], "float16", [1.875, 3]]); // np.nanquantile(h, 0.25, axis=1)
    expect(described16(nanquantile(h, 0.5, { axis: 1, method: "nearest" }))).toEqual([[2], "float16", [2.25, 3]]); // method="nearest"
    // np.nanmedian(np.float16([60000, 64992, nan])) is 62496: the sum overflows float16, not float32 (NumPy's
    // nanmedian along an axis sums in float16 and gives inf: np.nanmedian(np.float16([[60000, 64992, nan]]), axis=1)).
    using big32 = DeviceArray.from(Float32Array.from([60000, 64992, N]), { stream, shape: [1, 3] });
    using big = big32.astype("float16", { stream });
    expect(described16(nanmedian(big))).toEqual([[], "float16", [62496]]);
    expect(described16(nanmedian(big, { axis: 1 }))).toEqual([[1], "float16", [62496]]);
    // i = np.int32([[5, 1, 9], [2, 8, 4]])
    using i = DeviceArray.from(Int32Array.from([5, 1, 9, 2, 8, 4]), { stream, shape: [2, 3] });
    expect(described(nanmedian(i, { axis: 1 }))).toEqual([[2], "float64", [5, 4]]); // np.nanmedian(i, axis=1)
    expect(read(nanmedian(i, { axis: 1 }))).toEqual(read(median(i, { axis: 1 })));
    expect(described(nanmedian(i))).toEqual([[], "float64", [4.5]]); // np.nanmedian(i)
    expect(described(nanquantile(i, [0.25, 0.5], { axis: 0 }))).toEqual([[2, 3], "float64", [2.75, 2.75, 5.25, 3.5, 4.5, 6.5]]); // np.nanquantile(i, [0.25, 0.5], axis=0)
    expect(described(nanquantile(i, 0.5, { method: "lower" }))).toEqual([[], "float64", [4]]); // NumPy: int32 4 here
    expect(described(nanpercentile(i, 30, { axis: 1 }))).toEqual([[2], "float64", [3.4, 3.2]]); // np.nanpercentile(i, 30, axis=1)
    for (const method of METHODS) {
      expect(read(nanquantile(i, [0, 0.3, 0.5, 1], { axis: 0, method })), method).toEqual(read(quantile(i, [0, 0.3, 0.5, 1], { axis: 0, method })));
    }
    using b = DeviceArray.from(Uint8Array.from([1, 0, 1, 1]), { stream, dtype: "bool" });
    expect(described(nanmedian(b))).toEqual([[], "float64", [1]]); // np.nanmedian([True, False, True, True])
    using l = DeviceArray.from(BigInt64Array.from([7n, 1n, 4n]), { stream });
    expect(described(nanquantile(l, [0.25, 0.5]))).toEqual([[2], "float64", [2.5, 4]]); // np.nanquantile(np.int64([7, 1, 4]), [0.25, 0.5])
  });

  it("gives NaN for all-NaN and empty slices (NumPy warns)", () => {
    using a = DeviceArray.from(Float64Array.from([N, N]), { stream });
    expect(described(nanmedian(a))).toEqual([[], "float64", [N]]); // np.nanmedian([nan, nan])
    // np.nanquantile([nan, nan], [0, 0.5, 1], method=m)
    for (const method of METHODS) expect(read(nanquantile(a, [0, 0.5, 1], { method })), method).toEqual([N, N, N]);
    // np.nanmedian(np.zeros((0, 3), np.float32), axis=0): [nan, nan, nan]; axis=1: shape (0,)
    using e = DeviceArray.empty([0, 3], "float32", { stream });
    expect(described(nanmedian(e, { axis: 0 }))).toEqual([[3], "float32", [N, N, N]]);
    expect(described(nanmedian(e, { axis: 1 }))).toEqual([[0], "float32", []]);
    expect(read(nanquantile(e, 0.5, { axis: 0 }))).toEqual([N, N, N]); // np.nanquantile(e, 0.5, axis=0)
  });
});
