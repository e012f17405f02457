/**
 * `median`, `quantile`, `percentile`, `average` and `roll` on a real GPU, against NumPy's results (the NumPy call
 * beside each): medians of odd and even counts, along axes, several axes and a transposed view, keepdims, an `out`,
 * NaN, empty slices, integer, bool and float16 inputs; each quantile method with one q and a list; percentiles;
 * averages with and without weights, 1-d weights along an axis, `returned`, zero weights; rolls of 1-d and 2-d arrays
 * along one axis, several, and flattened. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { average, median, percentile, quantile, roll, type QuantileMethod } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import { readAndClose } from "../../support/arrays.ts";

describe.skipIf(!gpu.available)(`median, quantile, percentile, average and roll on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const read = (x: DeviceArray): number[] => readAndClose(x, stream);
  /** The shape, dtype and elements of `x`, then `x` closed. */
  const described = (x: DeviceArray): [number[], string, number[]] => [[...x.shape], x.dtype.name, read(x)];

  it("takes medians of odd and even counts, along axes, with keepdims and an out", () => {
    using x = DeviceArray.from(Float64Array.from([3, 1, 4, 1, 5]), { stream });
    expect(described(median(x))).toEqual([[], "float64", [3]]); // np.median([3, 1, 4, 1, 5])
    using y = DeviceArray.from(Float32Array.from([4, 1, 3, 2]), { stream });
    expect(described(median(y))).toEqual([[], "float32", [2.5]]); // np.median(np.float32([4, 1, 3, 2]))
    // m = np.float32([[3, 1, 2], [9, 7, 8]])
    using m = DeviceArray.from(Float32Array.from([3, 1, 2, 9, 7, 8]), { stream, shape: [2, 3] });
    expect(read(median(m, { axis: 0 }))).toEqual([6, 4, 5]); // np.median(m, axis=0)
    expect(read(median(m, { axis: 1 }))).toEqual([2, 8]); // np.median(m, axis=1)
    expect(described(median(m, { axis: -1, keepdims: true }))).toEqual([[2, 1], "float32", [2, 8]]); // keepdims=True
    expect(described(median(m))).toEqual([[], "float32", [5]]); // np.median(m): (3 + 7) / 2
    expect(described(median(m, { axis: [0, 1], keepdims: true }))).toEqual([[1, 1], "float32", [5]]);
    using out = DeviceArray.empty([2], "float64", { stream });
    expect(median(m, { axis: 1, out })).toBe(out); // np.median(m, axis=1, out=np.empty(2))
    expect(out.toTypedArraySync({ stream })).toEqual(Float64Array.from([2, 8]));
  });

  it("takes medians over several axes and of a transposed view", () => {
    // t = np.arange(24.0).reshape(2, 3, 4)
    const flat = Float64Array.from({ length: 24 }, (_, k) => k);
    using t = DeviceArray.from(flat, { stream, shape: [2, 3, 4] });
    expect(read(median(t, { axis: [0, 2] }))).toEqual([7.5, 11.5, 15.5]); // np.median(t, axis=(0, 2))
    expect(described(median(t, { axis: [2, 0], keepdims: true }))).toEqual([[1, 3, 1], "float64", [7.5, 11.5, 15.5]]);
    // np.median(t.transpose(2, 1, 0), axis=1): shape (4, 2)
    const tt = t.transpose(2, 1, 0);
    expect(described(median(tt, { axis: 1 }))).toEqual([[4, 2], "float64", [4, 16, 5, 17, 6, 18, 7, 19]]);
  });

  it("gives float64 for integers and bool, averages float16 in float32, and NaN for NaN and empty slices", () => {
    // i = np.int32([[5, 1], [2, 8], [7, 3]])
    using i = DeviceArray.from(Int32Array.from([5, 1, 2, 8, 7, 3]), { stream, shape: [3, 2] });
    expect(described(median(i, { axis: 0 }))).toEqual([[2], "float64", [5, 3]]); // np.median(i, axis=0)
    expect(read(median(i))).toEqual([4]); // np.median(i): (3 + 5) / 2
    using u = DeviceArray.from(Uint8Array.from([250, 255, 3, 7]), { stream });
    expect(read(median(u))).toEqual([128.5]); // np.median(np.uint8([250, 255, 3, 7])): no uint8 wrap
    using b = DeviceArray.from(Uint8Array.from([1, 0, 1, 1]), { stream, dtype: "bool" });
    expect(described(median(b))).toEqual([[], "float64", [1]]); // np.median([True, False, True, True])
    // np.median(np.float16([60000, 64992])) is 62496: the sum (124992) overflows float16, not float32.
    using h32 = DeviceArray.from(Float32Array.from([60000, 64992]), { stream });
    using h = h32.astype("float16", { stream });
    using hm = median(h);
    expect(hm.dtype.name).toBe("float16");
    expect(read(hm.astype("float32", { stream }))).toEqual([62496]);
    // np.median(np.float32([[1, nan, 3], [4, 5, 6]]), axis=1)
    using n = DeviceArray.from(Float32Array.from([1, NaN, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    expect(read(median(n, { axis: 1 }))).toEqual([NaN, 5]);
    expect(read(median(n))).toEqual([NaN]);
    // np.median(np.zeros((0, 3), np.float32), axis=0): [nan, nan, nan] (NumPy warns); axis=1: shape (0,)
    using e = DeviceArray.empty([0, 3], "float32", { stream });
    expect(read(median(e, { axis: 0 }))).toEqual([NaN, NaN, NaN]);
    expect(described(median(e, { axis: 1 }))).toEqual([[0], "float32", []]);
  });

  it("takes quantiles by every method, with one q and a list", () => {
    using x = DeviceArray.from(Float64Array.from([4, 1, 3, 2]), { stream });
    const qs = [0, 0.25, 0.4, 0.5, 0.75, 1];
    // np.quantile(np.float64([4, 1, 3, 2]), [0, 0.25, 0.4, 0.5, 0.75, 1], method=m)
    const expected: Record<QuantileMethod, number[]> = {
      linear: [1, 1.75, 2.2, 2.5, 3.25, 4],
      lower: [1, 1, 2, 2, 3, 4],
      higher: [1, 2, 3, 3, 4, 4],
      nearest: [1, 2, 2, 3, 3, 4], // 0.75 → 1 and 1.5 → 2 (half to even)
      midpoint: [1, 1.5, 2.5, 2.5, 3.5, 4],
    };
    for (const method of Object.keys(expected) as QuantileMethod[]) {
      expect(described(quantile(x, qs, { method })), method).toEqual([[6], "float64", expected[method]]);
      expect(described(quantile(x, 0.25, { method })), method).toEqual([[], "float64", [expected[method][1]]]);
    }
    expect(read(quantile(x, 0.4))).toEqual([2.2]); // linear is the default
  });

  it("puts q's axis first, keeps dims, and takes percentiles", () => {
    // m2 = np.float64([[10, 40, 20, 30, 50], [5, 1, 4, 2, 3]])
    using m2 = DeviceArray.from(Float64Array.from([10, 40, 20, 30, 50, 5, 1, 4, 2, 3]), { stream, shape: [2, 5] });
    expect(described(quantile(m2, [0.1, 0.9], { axis: 1 }))).toEqual([[2, 2], "float64", [14, 1.4, 46, 4.6]]); // np.quantile(m2, [0.1, 0.9], axis=1)
    expect(described(quantile(m2, [0.1, 0.9], { axis: 1, keepdims: true }))).toEqual([[2, 2, 1], "float64", [14, 1.4, 46, 4.6]]);
    expect(read(quantile(m2, 0.3, { axis: 0 }))).toEqual([6.5, 12.7, 8.8, 10.4, 17.1]); // np.quantile(m2, 0.3, axis=0)
    expect(read(quantile(m2, 0.5, { method: "midpoint" }))).toEqual([7.5]); // np.quantile(m2, 0.5, method="midpoint")
    expect(described(quantile(m2, [0.5], { axis: [0, 1], method: "lower" }))).toEqual([[1], "float64", [5]]);
    using x = DeviceArray.from(Float64Array.from([4, 1, 3, 2]), { stream });
    expect(read(percentile(x, [25, 50, 75]))).toEqual([1.75, 2.5, 3.25]); // np.percentile(x, [25, 50, 75])
    expect(read(percentile(m2, 40, { axis: 1, method: "nearest" }))).toEqual([30, 3]); // np.percentile(m2, 40, axis=1, method="nearest")
    using out = DeviceArray.empty([2, 2], "float64", { stream });
    expect(quantile(m2, [0.1, 0.9], { axis: 1, out })).toBe(out);
    expect(out.toTypedArraySync({ stream })).toEqual(Float64Array.from([14, 1.4, 46, 4.6]));
  });

  it("takes quantiles of integers in float64, of float32 in float32, and NaN for slices holding NaN", () => {
    using i = DeviceArray.from(BigInt64Array.from([7n, 1n, 4n]), { stream });
    expect(described(quantile(i, [0.25, 0.5]))).toEqual([[2], "float64", [2.5, 4]]); // np.quantile(np.int64([7, 1, 4]), [0.25, 0.5])
    expect(described(quantile(i, 0.5, { method: "lower" }))).toEqual([[], "float64", [4]]); // NumPy: int64 4 here
    // np.quantile(np.float32([1, 2, 3, 4, 5]), 0.625): (5 - 1) * 0.625 = 2.5, between 3 and 4
    using f = DeviceArray.from(Float32Array.from([5, 3, 1, 4, 2]), { stream });
    expect(described(quantile(f, 0.625))).toEqual([[], "float32", [3.5]]);
    // np.quantile(np.float64([[1, nan, 3], [4, 5, 6]]), [0, 0.5], axis=1)
    using n = DeviceArray.from(Float64Array.from([1, NaN, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    expect(read(quantile(n, [0, 0.5], { axis: 1 }))).toEqual([NaN, 4, NaN, 5]);
  });

  it("averages with and without weights", () => {
    // x = np.float64([[1, 2], [3, 4]])
    using x = DeviceArray.from(Float64Array.from([1, 2, 3, 4]), { stream, shape: [2, 2] });
    expect(described(average(x))).toEqual([[], "float64", [2.5]]); // np.average(x)
    expect(read(average(x, { weights: x }))).toEqual([3]); // np.average(x, weights=x): 30 / 10
    using w = DeviceArray.from(Float64Array.from([1, 3]), { stream });
    expect(read(average(x, { axis: 1, weights: w }))).toEqual([1.75, 3.75]); // np.average(x, axis=1, weights=[1, 3])
    expect(described(average(x, { axis: 0, weights: w, keepdims: true }))).toEqual([[1, 2], "float64", [2.5, 3.5]]);
    // np.average(x, axis=1, weights=[1, 3], returned=True): ([1.75, 3.75], [4, 4])
    const r = average(x, { axis: 1, weights: w, returned: true });
    expect([read(r.average), read(r.sumOfWeights)]).toEqual([
      [1.75, 3.75],
      [4, 4],
    ]);
    // np.average(x, axis=0, returned=True): ([2, 3], [2, 2])
    const c = average(x, { axis: 0, returned: true });
    expect([described(c.average), described(c.sumOfWeights)]).toEqual([
      [[2], "float64", [2, 3]],
      [[2], "float64", [2, 2]],
    ]);
  });

  it("gives average NumPy's dtypes, and infinities or NaN for a zero sum of weights", () => {
    using i = DeviceArray.from(Int32Array.from([1, 2, 3, 4]), { stream });
    expect(described(average(i))).toEqual([[], "float64", [2.5]]); // np.average(np.int32([1, 2, 3, 4]))
    using wi = DeviceArray.from(BigInt64Array.from([4n, 3n, 2n, 1n]), { stream });
    expect(described(average(i, { weights: wi }))).toEqual([[], "float64", [2]]); // 20 / 10
    // np.average(np.float32([1, 2, 3, 4]), weights=np.float32([1, 1, 2, 4]), returned=True): (3.125, 8.0), float32
    using f = DeviceArray.from(Float32Array.from([1, 2, 3, 4]), { stream });
    using wf = DeviceArray.from(Float32Array.from([1, 1, 2, 4]), { stream });
    const r = average(f, { weights: wf, returned: true });
    expect([described(r.average), described(r.sumOfWeights)]).toEqual([
      [[], "float32", [3.125]],
      [[], "float32", [8]],
    ]);
    // NumPy raises ZeroDivisionError; here the division gives (1 - 2) / 0 and 0 / 0.
    using a = DeviceArray.from(Float64Array.from([1, 2]), { stream });
    using w1 = DeviceArray.from(Float64Array.from([1, -1]), { stream });
    using w0 = DeviceArray.from(Float64Array.from([0, 0]), { stream });
    expect(read(average(a, { weights: w1 }))).toEqual([-Infinity]);
    expect(read(average(a, { weights: w0 }))).toEqual([NaN]);
  });

  it("rolls 1-d arrays, negative shifts and shifts past the length", () => {
    using x = DeviceArray.from(Int32Array.from([1, 2, 3, 4, 5]), { stream });
    expect(read(roll(x, 2))).toEqual([4, 5, 1, 2, 3]); // np.roll(np.arange(1, 6), 2)
    expect(read(roll(x, -1))).toEqual([2, 3, 4, 5, 1]); // np.roll(np.arange(1, 6), -1)
    expect(read(roll(x, 7))).toEqual([4, 5, 1, 2, 3]); // np.roll(np.arange(1, 6), 7)
    using same = roll(x, 0);
    expect(same.buffer).not.toBe(x.buffer);
    expect(read(same.copy({ stream }))).toEqual([1, 2, 3, 4, 5]);
    using e = DeviceArray.empty([0], "float32", { stream });
    expect(described(roll(e, 3))).toEqual([[0], "float32", []]);
  });

  it("rolls 2-d arrays along one axis, several, and flattened", () => {
    // a = np.arange(12).reshape(3, 4)
    using a = DeviceArray.from(Int32Array.from({ length: 12 }, (_, k) => k), { stream, shape: [3, 4] });
    expect(read(roll(a, 1, { axis: 0 }))).toEqual([8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6, 7]); // np.roll(a, 1, axis=0)
    expect(read(roll(a, -1, { axis: 1 }))).toEqual([1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8]); // np.roll(a, -1, axis=1)
    expect(read(roll(a, [1, -1], { axis: [0, 1] }))).toEqual([9, 10, 11, 8, 1, 2, 3, 0, 5, 6, 7, 4]); // np.roll(a, [1, -1], axis=[0, 1])
    expect(read(roll(a, 2, { axis: [0, 1] }))).toEqual([6, 7, 4, 5, 10, 11, 8, 9, 2, 3, 0, 1]); // np.roll(a, 2, axis=(0, 1))
    expect(read(roll(a, [1, 2], { axis: 1 }))).toEqual([1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8]); // np.roll(a, [1, 2], axis=1): 3 along axis 1
    using r = roll(a, 5); // np.roll(a, 5): flattened, shape (3, 4) restored
    expect(described(r.copy({ stream }))).toEqual([[3, 4], "int32", [7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6]]);
    // np.roll(a.T, 1): a.T is not contiguous, flattened first; shape (4, 3)
    expect(described(roll(a.transpose(), 1))).toEqual([[4, 3], "int32", [11, 0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7]]);
    // A strided view along an axis: np.roll(a[:, ::2], 1, axis=1) = [[2, 0], [6, 4], [10, 8]]
    expect(read(roll(a.slice(null, [null, null, 2]), 1, { axis: 1 }))).toEqual([2, 0, 6, 4, 10, 8]);
  });
});
