/**
 * `bincount` and `histogram` on a real GPU, against NumPy's results (NumPy 2.4; each expected value is the literal
 * NumPy printed for the call in the comment beside it): bincount plain, with minlength, weights, empty, bool, int8,
 * uint64, strided views, a negative value refused, and a million values counted in shared memory and (5,000 bins) in
 * global memory; histogram over equal bins found from the data or a range (values outside it and NaN ignored, the last
 * edge included), over explicit edges (a DeviceArray, numbers, equal neighbours), with weights and density, the
 * widening of a range of one value, NaN and infinities in a found range refused, edges that do not increase refused,
 * bool, float16 and uint64 data, transposed data with transposed weights, and a million float32 values. Skips without
 * a GPU.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, DeviceArray, type Stream } from "../../../src/index.ts";
import { bincount, histogram } from "../../../src/array.ts";
import { decodeHalf, encodeHalf } from "../../../src/core/array/dtype.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import { readAndClose } from "../../support/arrays.ts";

describe.skipIf(!gpu.available)(`bincount and histogram on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const read = (x: DeviceArray): number[] => readAndClose(x, stream);
  const ints = (xs: readonly number[]): DeviceArray => DeviceArray.from(Int32Array.from(xs), { stream });
  const f64 = (xs: readonly number[]): DeviceArray => DeviceArray.from(Float64Array.from(xs), { stream });
  const f32 = (xs: readonly number[]): DeviceArray => DeviceArray.from(Float32Array.from(xs), { stream });
  /** The result's dtype name and values, the arrays closed. */
  const got = (x: DeviceArray): [string, number[]] => [x.dtype.name, read(x)];
  const hist = (r: { hist: DeviceArray; binEdges: DeviceArray }): { hist: [string, number[]]; edges: [string, number[]] } => ({ hist: got(r.hist), edges: got(r.binEdges) });
  /** The counts' dtype name and values, the edges closed unread. */
  const counts = (r: { hist: DeviceArray; binEdges: DeviceArray }): [string, number[]] => {
    r.binEdges.close();
    return got(r.hist);
  };

  describe("bincount", () => {
    it("counts each value, up to the largest or minlength", () => {
      using x = ints([0, 1, 1, 3, 2, 1, 7]);
      // np.bincount(np.array([0, 1, 1, 3, 2, 1, 7], np.int32)) → array([1, 3, 1, 1, 0, 0, 0, 1])
      expect(got(bincount(x))).toEqual(["int64", [1, 3, 1, 1, 0, 0, 0, 1]]);
      // np.bincount(..., minlength=10) → array([1, 3, 1, 1, 0, 0, 0, 1, 0, 0]); minlength=3 → the same as none
      expect(read(bincount(x, { minlength: 10 }))).toEqual([1, 3, 1, 1, 0, 0, 0, 1, 0, 0]);
      expect(read(bincount(x, { minlength: 3 }))).toEqual([1, 3, 1, 1, 0, 0, 0, 1]);
    });

    it("sums weights in float64", () => {
      const w = [0.5, 0.25, 1.5, -2, 4, 0.125];
      // np.bincount(np.array([0, 1, 1, 2, 2, 2]), weights=np.array([0.5, 0.25, 1.5, -2, 4, 0.125]))
      // → array([0.5, 1.75, 2.125])
      using x = DeviceArray.from(BigInt64Array.from([0n, 1n, 1n, 2n, 2n, 2n]), { stream });
      using w64 = f64(w);
      expect(got(bincount(x, { weights: w64 }))).toEqual(["float64", [0.5, 1.75, 2.125]]);
      // The same with uint8 values and float32 weights (NumPy converts them to float64): array([0.5, 1.75, 2.125])
      using u = DeviceArray.from(Uint8Array.from([0, 1, 1, 2, 2, 2]), { stream });
      using w32 = f32(w);
      expect(got(bincount(u, { weights: w32, minlength: 4 }))).toEqual(["float64", [0.5, 1.75, 2.125, 0]]);
    });

    it("gives minlength int64 zeros for an empty x, weights or not (as NumPy)", () => {
      using x = DeviceArray.from(new BigInt64Array(0), { stream });
      using w = f64([]);
      // np.bincount(np.array([], np.int64)) → array([], dtype=int64); minlength=4 → array([0, 0, 0, 0])
      expect(got(bincount(x))).toEqual(["int64", []]);
      expect(got(bincount(x, { minlength: 4 }))).toEqual(["int64", [0, 0, 0, 0]]);
      // np.bincount(np.array([], np.int64), weights=np.array([]), minlength=2) → array([0, 0]) (int64)
      expect(got(bincount(x, { weights: w, minlength: 2 }))).toEqual(["int64", [0, 0]]);
    });

    it("counts bool, int8 and uint64 values, and strided views", () => {
      using b = DeviceArray.from(Uint8Array.from([1, 0, 1, 1]), { stream, dtype: "bool" });
      // np.bincount(np.array([True, False, True, True])) → array([1, 3])
      expect(read(bincount(b))).toEqual([1, 3]);
      using i8 = DeviceArray.from(Int8Array.from([5, 0, 5, 127, 5]), { stream });
      // r = np.bincount(np.array([5, 0, 5, 127, 5], np.int8)): len(r) 128, r[0] 1, r[5] 3, r[127] 1, r.sum() 5
      const r = read(bincount(i8));
      expect([r.length, r[0], r[5], r[127], r.reduce((s, v) => s + v, 0)]).toEqual([128, 1, 3, 1, 5]);
      using u64 = DeviceArray.from(BigUint64Array.from([3n, 0n, 3n]), { stream });
      // np.bincount(np.array([3, 0, 3], np.uint64)) → array([1, 0, 0, 2])
      expect(read(bincount(u64))).toEqual([1, 0, 0, 2]);
      using x = ints([0, 1, 2, 3, 4, 5, 6, 7]);
      // x = np.arange(8): np.bincount(x[::2]) → array([1, 0, 1, 0, 1, 0, 1]);
      // np.bincount(x[::-1][1:]) → array([1, 1, 1, 1, 1, 1, 1])
      expect(read(bincount(x.slice([null, null, 2])))).toEqual([1, 0, 1, 0, 1, 0, 1]);
      expect(read(bincount(x.slice([null, null, -1]).slice([1, null])))).toEqual([1, 1, 1, 1, 1, 1, 1]);
      using m = ints([9, 1, 9, 2, 9, 0, 9, 1]);
      using w = f64([1, 2, 3, 4, 5, 6, 7, 8]);
      // m[::-2] = [1, 0, 2, 1], w[::-2] = [8., 6., 4., 2.]: np.bincount(m[::-2], weights=w[::-2])
      // → array([6., 10., 4.])
      expect(read(bincount(m.slice([null, null, -2]), { weights: w.slice([null, null, -2]) }))).toEqual([6, 10, 4]);
    });

    it("refuses a negative value (and a uint64 one of 2^63 or more), and the stream goes on", () => {
      using x = DeviceArray.from(Int16Array.from([1, -2, 3]), { stream });
      // np.bincount(np.array([1, -2, 3], np.int16)) → ValueError: 'list' argument must have no negative elements
      expect(() => bincount(x)).toThrow(ArgumentError);
      expect(() => bincount(x)).toThrow("bincount: x holds a negative value (-2)");
      using big = DeviceArray.from(BigUint64Array.from([1n, 2n ** 63n]), { stream });
      // np.bincount(np.array([1, 2**63], np.uint64)) → ValueError (the value reads as negative)
      expect(() => bincount(big)).toThrow("a uint64 value of 2^63 or more reads as negative");
      using ok = ints([2]);
      expect(read(bincount(ok))).toEqual([0, 0, 1]);
    });

    it("counts a million values in shared memory (1,000 bins) and in global memory (5,000 bins)", () => {
      const n = 1 << 20;
      using x = DeviceArray.from(Int32Array.from({ length: n }, (_, i) => i % 1000), { stream });
      // np.bincount(np.arange(1 << 20) % 1000): 1049 for 0..575, 1048 for 576..999 (2^20 = 1048 * 1000 + 576)
      expect(read(bincount(x))).toEqual(Array.from({ length: 1000 }, (_, v) => (v < 576 ? 1049 : 1048)));
      using y = DeviceArray.from(Int32Array.from({ length: n }, (_, i) => i % 5000), { stream });
      // np.bincount(np.arange(1 << 20) % 5000): 210 for 0..3575, 209 for 3576..4999 (2^20 = 209 * 5000 + 3576)
      expect(read(bincount(y))).toEqual(Array.from({ length: 5000 }, (_, v) => (v < 3576 ? 210 : 209)));
      using half = DeviceArray.full([n], 0.5, "float64", { stream });
      // np.bincount(np.arange(1 << 20) % 5000, weights=np.full(1 << 20, 0.5))[3574:3578]
      // → array([105., 105., 104.5, 104.5])
      const sums = read(bincount(y, { weights: half }));
      expect([sums.length, ...sums.slice(3574, 3578)]).toEqual([5000, 105, 105, 104.5, 104.5]);
    });
  });

  describe("histogram", () => {
    it("counts over equal bins of the data's range, the last edge included", () => {
      using a = ints([0, 1, 2, 3, 4]);
      // np.histogram(np.array([0, 1, 2, 3, 4], np.int32), bins=4)
      // → (array([1, 1, 1, 2]), array([0., 1., 2., 3., 4.]))
      expect(hist(histogram(a, { bins: 4 }))).toEqual({ hist: ["int64", [1, 1, 1, 2]], edges: ["float64", [0, 1, 2, 3, 4]] });
      using b = ints([0, 1, 2, 3]);
      // np.histogram(np.array([0, 1, 2, 3], np.int32), bins=3) → (array([1, 1, 2]), array([0., 1., 2., 3.]))
      expect(hist(histogram(b, { bins: 3 }))).toEqual({ hist: ["int64", [1, 1, 2]], edges: ["float64", [0, 1, 2, 3]] });
      using c = f64([0, 1, 2, 3, 4]);
      // np.histogram(np.arange(5.)), the default 10 bins → (array([1, 0, 1, 0, 0, 1, 0, 1, 0, 1]),
      // array([0., 0.4, 0.8, 1.2000000000000002, 1.6, 2., 2.4000000000000004, 2.8000000000000003, 3.2, 3.6, 4.]))
      expect(hist(histogram(c))).toEqual({
        hist: ["int64", [1, 0, 1, 0, 0, 1, 0, 1, 0, 1]],
        edges: ["float64", [0, 0.4, 0.8, 1.2000000000000002, 1.6, 2, 2.4000000000000004, 2.8000000000000003, 3.2, 3.6, 4]],
      });
    });

    it("ignores values outside a given range, and NaN there", () => {
      using a = f64([-1, 0, 0.5, 1, 1.5, 2, 2.5, NaN]);
      // np.histogram(np.array([-1, 0, 0.5, 1, 1.5, 2, 2.5, np.nan]), bins=4, range=(0, 2))
      // → (array([1, 1, 1, 2]), array([0., 0.5, 1., 1.5, 2.]))
      expect(hist(histogram(a, { bins: 4, range: [0, 2] }))).toEqual({ hist: ["int64", [1, 1, 1, 2]], edges: ["float64", [0, 0.5, 1, 1.5, 2]] });
      using x = f64([0, 1, 2, 3, 4, 5, 6, 7]);
      // np.histogram(np.arange(8.)[::-2], bins=2, range=(0, 8)) → (array([2, 2]), array([0., 4., 8.]))
      expect(hist(histogram(x.slice([null, null, -2]), { bins: 2, range: [0, 8] }))).toEqual({ hist: ["int64", [2, 2]], edges: ["float64", [0, 4, 8]] });
    });

    it("counts over explicit edges: a DeviceArray (its dtype kept), numbers (float64), equal neighbours", () => {
      const data = [0.5, 1, 1.5, 2.9999, 3, 3.5, -1];
      using a = f32(data);
      using edges = DeviceArray.from(BigInt64Array.from([0n, 1n, 2n, 3n]), { stream });
      // np.histogram(np.array([0.5, 1, 1.5, 2.9999, 3, 3.5, -1], np.float32), bins=np.array([0, 1, 2, 3]))
      // → (array([1, 2, 2]), array([0, 1, 2, 3]))
      expect(hist(histogram(a, { bins: edges }))).toEqual({ hist: ["int64", [1, 2, 2]], edges: ["int64", [0, 1, 2, 3]] });
      // np.histogram(same, bins=[0, 1, 2, 3.0]) → (array([1, 2, 2]), array([0., 1., 2., 3.]))
      expect(hist(histogram(a, { bins: [0, 1, 2, 3] }))).toEqual({ hist: ["int64", [1, 2, 2]], edges: ["float64", [0, 1, 2, 3]] });
      using b = f32([0.5, 1, 1.5, 2.5]);
      // np.histogram(np.array([0.5, 1, 1.5, 2.5], np.float32), bins=[0, 1, 1, 3])
      // → (array([1, 0, 3]), array([0, 1, 1, 3]))
      expect(counts(histogram(b, { bins: [0, 1, 1, 3] }))[1]).toEqual([1, 0, 3]);
      using c = ints([1, 2, 3]);
      // np.histogram(np.array([1, 2, 3], np.int32), bins=[2.0]) → (array([], dtype=int64), array([2.]))
      expect(hist(histogram(c, { bins: [2] }))).toEqual({ hist: ["int64", []], edges: ["float64", [2]] });
    });

    it("sums weights in float64, and gives densities", () => {
      using a = f64([0, 1, 1.5, 2, 3]);
      using w = f64([0.5, 0.25, 2, -1, 4]);
      // np.histogram(np.array([0, 1, 1.5, 2, 3]), bins=3, range=(0, 3), weights=np.array([0.5, 0.25, 2, -1, 4]))
      // → (array([0.5, 2.25, 3.]), ...)
      expect(counts(histogram(a, { bins: 3, range: [0, 3], weights: w }))).toEqual(["float64", [0.5, 2.25, 3]]);
      // ... density=True → array([0.08695652173913043, 0.391304347826087, 0.5217391304347826])
      expect(counts(histogram(a, { bins: 3, range: [0, 3], weights: w, density: true }))).toEqual(["float64", [0.08695652173913043, 0.391304347826087, 0.5217391304347826]]);
      using k = ints([3, -7, 12, 5, 5, 0]);
      using wi = DeviceArray.from(Int16Array.from([1, 2, 3, 4, 5, 6]), { stream });
      using e = f64([-10, 0, 5.5, 12]);
      // np.histogram(np.array([3, -7, 12, 5, 5, 0], np.int32), bins=np.array([-10, 0, 5.5, 12]),
      //              weights=np.array([1, 2, 3, 4, 5, 6], np.int16))
      // → array([2, 16, 3], dtype=int16) (NumPy keeps the weights' dtype; here float64)
      expect(counts(histogram(k, { bins: e, weights: wi }))).toEqual(["float64", [2, 16, 3]]);
      // ... without weights, density=True → array([0.016666666666666666, 0.12121212121212122, 0.025641025641025644])
      expect(counts(histogram(k, { bins: e, density: true }))).toEqual(["float64", [0.016666666666666666, 0.12121212121212122, 0.025641025641025644]]);
      using r = ints([0, 1, 2, 3]);
      using re = ints([0, 1, 2, 3, 4]);
      // np.histogram(np.arange(4), bins=np.arange(5), density=True)
      // → (array([0.25, 0.25, 0.25, 0.25]), array([0, 1, 2, 3, 4]))
      expect(hist(histogram(r, { bins: re, density: true }))).toEqual({ hist: ["float64", [0.25, 0.25, 0.25, 0.25]], edges: ["int32", [0, 1, 2, 3, 4]] });
      using five = ints([0, 1, 2, 3, 4]);
      // np.histogram(np.arange(5), density=True)[0] → widths from float64 edges (1.2000000000000002 - 0.8, ...)
      expect(counts(histogram(five, { density: true }))[1]).toEqual([0.5, 0, 0.49999999999999983, 0, 0, 0.49999999999999956, 0, 0.5000000000000001, 0, 0.5000000000000001]);
      using f = f32([0, 1, 2, 3, 4]);
      // np.histogram(np.arange(5, dtype=np.float32), density=True): float32 edges, widths np.diff in float32
      expect(hist(histogram(f, { density: true }))).toEqual({
        hist: ["float64", [0.4999999925494195, 0, 0.4999999552965204, 0, 0, 0.49999988079073887, 0, 0.49999988079073887, 0, 0.5000001788139983]],
        edges: ["float32", [0, 0.4, 0.8, 1.2, 1.6, 2, 2.4, 2.8, 3.2, 3.6000001, 4].map(Math.fround)],
      });
      using empty = f32([]);
      // np.histogram(np.array([], np.float32), bins=3, density=True)
      // → (array([nan, nan, nan]), array([0., 0.33333334, 0.6666667, 1.], dtype=float32))
      expect(hist(histogram(empty, { bins: 3, density: true }))).toEqual({ hist: ["float64", [NaN, NaN, NaN]], edges: ["float32", [0, 0.33333334, 0.6666667, 1].map(Math.fround)] });
      using empty2 = f32([]);
      expect(counts(histogram(empty2, { bins: 3 }))[1]).toEqual([0, 0, 0]);
    });

    it("widens a range of one value by 0.5 each way", () => {
      using a = f32([2, 2, 2]);
      // np.histogram(np.array([2, 2, 2], np.float32), bins=4)
      // → (array([0, 0, 3, 0]), array([1.5, 1.75, 2., 2.25, 2.5], dtype=float32))
      expect(hist(histogram(a, { bins: 4 }))).toEqual({ hist: ["int64", [0, 0, 3, 0]], edges: ["float32", [1.5, 1.75, 2, 2.25, 2.5]] });
      using b = ints([5, 5]);
      // np.histogram(np.array([5, 5], np.int32), bins=1) → (array([2]), array([4.5, 5.5]))
      expect(hist(histogram(b, { bins: 1 }))).toEqual({ hist: ["int64", [2]], edges: ["float64", [4.5, 5.5]] });
    });

    it("refuses NaN and infinities in a range it finds, and edges that do not increase", () => {
      using a = f64([1, NaN, 2]);
      // np.histogram(np.array([1, np.nan, 2])) → ValueError: autodetected range of [nan, nan] is not finite
      expect(() => histogram(a)).toThrow(ArgumentError);
      expect(() => histogram(a)).toThrow("histogram: the autodetected range of [NaN, NaN] is not finite (the data holds NaN)");
      using b = f32([1, Infinity, 2]);
      // np.histogram(np.array([1, np.inf, 2])) → ValueError: autodetected range of [1.0, inf] is not finite
      expect(() => histogram(b)).toThrow("histogram: the autodetected range of [1, Infinity] is not finite");
      // With a range, NaN is not counted and nothing is refused.
      expect(counts(histogram(a, { bins: 2, range: [1, 2] }))[1]).toEqual([1, 1]);
      using down = f64([0, 2, 1]);
      // np.histogram([1], bins=np.array([0, 2, 1])) → ValueError: `bins` must increase monotonically, when an array
      expect(() => histogram(a, { bins: down })).toThrow("histogram: bins must increase monotonically");
      using h16 = DeviceArray.from(Uint16Array.from([1, 1 + 2 ** -10], encodeHalf), { stream, dtype: "float16" });
      // np.histogram(np.array([1, 1 + 2**-10], np.float16), bins=2000) → ValueError: Too many bins for data range
      expect(() => histogram(h16, { bins: 2000 })).toThrow("too many bins for the data's range");
    });

    it("reads bool data as 0 and 1, and bins float16 and uint64 data in their own arithmetic", () => {
      using b = DeviceArray.from(Uint8Array.from([1, 0, 1]), { stream, dtype: "bool" });
      // np.histogram(np.array([True, False, True]), bins=2) → (array([1, 2]), array([0., 0.5, 1.]))
      expect(hist(histogram(b, { bins: 2 }))).toEqual({ hist: ["int64", [1, 2]], edges: ["float64", [0, 0.5, 1]] });
      using h = DeviceArray.from(Uint16Array.from([0.1, 0.2, 0.3, 0.7], encodeHalf), { stream, dtype: "float16" });
      // np.histogram(np.array([0.1, 0.2, 0.3, 0.7], np.float16), bins=3)
      // → (array([2, 1, 1]), array([0.1, 0.3, 0.5, 0.7], dtype=float16))
      // edges' bits [11878, 13517, 14336, 14746] (0.0999755859375, 0.300048828125, 0.5, 0.7001953125)
      const r = histogram(h, { bins: 3 });
      expect(r.binEdges.dtype.name).toBe("float16");
      const bits = read(r.binEdges);
      expect([read(r.hist), bits, bits.map(decodeHalf)]).toEqual([[2, 1, 1], [11878, 13517, 14336, 14746], [0.0999755859375, 0.300048828125, 0.5, 0.7001953125]]);
      using u = DeviceArray.from(BigUint64Array.from([0n, 2n ** 64n - 1n]), { stream });
      // np.histogram(np.array([0, 2**64 - 1], np.uint64), bins=2)
      // → (array([1, 1]), array([0., 9.2233720368547758e+18, 1.8446744073709552e+19]))
      expect(hist(histogram(u, { bins: 2 }))).toEqual({ hist: ["int64", [1, 1]], edges: ["float64", [0, 2 ** 63, 2 ** 64]] });
    });

    it("pairs weights with values in any layout", () => {
      using a = f64([0, 1, 2, 3, 4, 5]);
      using w = f64([1, 2, 4, 8, 16, 32]);
      const at = a.reshape(2, 3).T;
      const wt = w.reshape(2, 3).T;
      // a = np.array([[0, 1, 2], [3, 4, 5.]]); w = np.array([[1, 2, 4], [8, 16, 32.]])
      // np.histogram(a.T, bins=2, range=(0, 6), weights=w.T) → (array([7., 56.]), array([0., 3., 6.]))
      expect(hist(histogram(at, { bins: 2, range: [0, 6], weights: wt }))).toEqual({ hist: ["float64", [7, 56]], edges: ["float64", [0, 3, 6]] });
    });

    it("counts a million float32 values in shared memory (1,000 bins) and in global memory (5,000 bins)", () => {
      const n = 1 << 20;
      using x = DeviceArray.from(Float32Array.from({ length: n }, (_, i) => i % 1000), { stream });
      // h, e = np.histogram((np.arange(1 << 20) % 1000).astype(np.float32), bins=1000): value v lands in bin v (edges
      // 0.999 apart in float32: e[:3] = [0., 0.999, 1.998], e[-2:] = [998.00104, 999.]); 1049 for 0..575, 1048 after
      const r = histogram(x, { bins: 1000 });
      const edges = read(r.binEdges);
      expect([edges.length, edges[0], edges[1], edges[999], edges[1000]]).toEqual([1001, 0, Math.fround(0.999), Math.fround(998.00104), 999]);
      expect(read(r.hist)).toEqual(Array.from({ length: 1000 }, (_, v) => (v < 576 ? 1049 : 1048)));
      // np.histogram(same, bins=5000, range=(0, 1000)): value v in bin 5v, every other bin empty
      const wide = counts(histogram(x, { bins: 5000, range: [0, 1000] }))[1];
      expect(wide).toEqual(Array.from({ length: 5000 }, (_, j) => (j % 5 !== 0 ? 0 : j / 5 < 576 ? 1049 : 1048)));
      // np.histogram(same, bins=7, range=(100.25, 900.75))
      // → (array([119586, 119586, 120635, 119586, 120538, 119472, 119472]),
      // array([100.25, 214.60715, 328.9643, 443.32144, 557.6786, 672.0357, 786.3929, 900.75], dtype=float32))
      expect(hist(histogram(x, { bins: 7, range: [100.25, 900.75] }))).toEqual({
        hist: ["int64", [119586, 119586, 120635, 119586, 120538, 119472, 119472]],
        edges: ["float32", [100.25, 214.60715, 328.9643, 443.32144, 557.6786, 672.0357, 786.3929, 900.75].map(Math.fround)],
      });
    });
  });
});
