/**
 * `pad` and `interp` on a real GPU, against NumPy's results (each printed by NumPy 2.4, the call in a comment). `pad`:
 * every mode on 1-d and 2-d arrays, pads wider than the axis, per-axis widths and constants (the corners take the
 * later axis's value), transposed, reversed and sliced views, a 3-d array whose unpadded axes merge, float16, int8,
 * bool and complex64 arrays, zero widths (a copy), an empty array, and a million-element result. `interp`: the basic
 * case, left and right, x outside the points and at them, repeated points, infinite values (NumPy's retry from the
 * right), one sample point, NaN, float32 and integer inputs (a float64 result), 2-d and transposed x, strided points,
 * complex values, a period, and a scalar x. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { arange, asarray, astype, interp, item, mayShareMemory, mod, pad, sum, zeros } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";

describe.skipIf(!gpu.available)(`pad and interp on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  /** The elements of `x` as NumPy's `tolist` gives them, then `x` closed. */
  const list = async (x: DeviceArray): Promise<unknown> => {
    try {
      return await x.toList();
    } finally {
      x.close();
    }
  };

  describe("pad", () => {
    it("pads a 1-d array in every mode", async () => {
      using x = asarray([1, 2, 3], { stream, dtype: "float32" });
      // np.pad(x, 2)
      expect(await list(pad(x, 2))).toEqual([0, 0, 1, 2, 3, 0, 0]);
      // np.pad(x, (1, 2), constant_values=(-1, 9))
      expect(await list(pad(x, [1, 2], { constantValues: [-1, 9] }))).toEqual([-1, 1, 2, 3, 9, 9]);
      // np.pad(x, (2, 3), mode='edge')
      expect(await list(pad(x, [2, 3], { mode: "edge" }))).toEqual([1, 1, 1, 2, 3, 3, 3, 3]);
      // np.pad(x, (2, 3), mode='reflect')
      expect(await list(pad(x, [2, 3], { mode: "reflect" }))).toEqual([3, 2, 1, 2, 3, 2, 1, 2]);
      // np.pad(x, (2, 3), mode='symmetric')
      expect(await list(pad(x, [2, 3], { mode: "symmetric" }))).toEqual([2, 1, 1, 2, 3, 3, 2, 1]);
      // np.pad(x, (2, 3), mode='wrap')
      expect(await list(pad(x, [2, 3], { mode: "wrap" }))).toEqual([2, 3, 1, 2, 3, 1, 2, 3]);
      using p = pad(x, 1);
      expect([p.shape, p.dtype.name]).toEqual([[5], "float32"]);
    });

    it("repeats reflect, symmetric and wrap for pads wider than the axis, as NumPy", async () => {
      using x = asarray([1, 2, 3], { stream, dtype: "float32" });
      // np.pad(x, 7, mode='reflect')
      expect(await list(pad(x, 7, { mode: "reflect" }))).toEqual([2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2]);
      // np.pad(x, (7, 5), mode='symmetric')
      expect(await list(pad(x, [7, 5], { mode: "symmetric" }))).toEqual([1, 1, 2, 3, 3, 2, 1, 1, 2, 3, 3, 2, 1, 1, 2]);
      // np.pad(x, (8, 4), mode='wrap')
      expect(await list(pad(x, [8, 4], { mode: "wrap" }))).toEqual([2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1]);
      // np.pad(np.array([4.0], np.float32), 3, mode='reflect'): one element repeats
      using one = asarray([4], { stream, dtype: "float32" });
      expect(await list(pad(one, 3, { mode: "reflect" }))).toEqual([4, 4, 4, 4, 4, 4, 4]);
    });

    it("pads a 2-d array per axis in every mode", async () => {
      // m = np.arange(6, dtype=np.float64).reshape(2, 3)
      using m = asarray([[0, 1, 2], [3, 4, 5]], { stream, dtype: "float64" });
      const w = [[1, 2], [3, 1]] as const;
      // np.pad(m, ((1, 2), (3, 1)))
      expect(await list(pad(m, w))).toEqual([[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 1, 2, 0], [0, 0, 0, 3, 4, 5, 0], [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0]]);
      // np.pad(m, ((1, 2), (3, 1)), mode='edge')
      expect(await list(pad(m, w, { mode: "edge" }))).toEqual([[0, 0, 0, 0, 1, 2, 2], [0, 0, 0, 0, 1, 2, 2], [3, 3, 3, 3, 4, 5, 5], [3, 3, 3, 3, 4, 5, 5], [3, 3, 3, 3, 4, 5, 5]]);
      // np.pad(m, ((1, 2), (3, 1)), mode='reflect')
      expect(await list(pad(m, w, { mode: "reflect" }))).toEqual([[4, 5, 4, 3, 4, 5, 4], [1, 2, 1, 0, 1, 2, 1], [4, 5, 4, 3, 4, 5, 4], [1, 2, 1, 0, 1, 2, 1], [4, 5, 4, 3, 4, 5, 4]]);
      // np.pad(m, ((1, 2), (3, 1)), mode='symmetric')
      expect(await list(pad(m, w, { mode: "symmetric" }))).toEqual([[2, 1, 0, 0, 1, 2, 2], [2, 1, 0, 0, 1, 2, 2], [5, 4, 3, 3, 4, 5, 5], [5, 4, 3, 3, 4, 5, 5], [2, 1, 0, 0, 1, 2, 2]]);
      // np.pad(m, ((1, 2), (3, 1)), mode='wrap')
      expect(await list(pad(m, w, { mode: "wrap" }))).toEqual([[3, 4, 5, 3, 4, 5, 3], [0, 1, 2, 0, 1, 2, 0], [3, 4, 5, 3, 4, 5, 3], [0, 1, 2, 0, 1, 2, 0], [3, 4, 5, 3, 4, 5, 3]]);
      // np.pad(m, ((3, 4), (5, 4)), mode='reflect'): wider than both axes
      expect(await list(pad(m, [[3, 4], [5, 4]], { mode: "reflect" }))).toEqual([
        [4, 3, 4, 5, 4, 3, 4, 5, 4, 3, 4, 5],
        [1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2],
        [4, 3, 4, 5, 4, 3, 4, 5, 4, 3, 4, 5],
        [1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2],
        [4, 3, 4, 5, 4, 3, 4, 5, 4, 3, 4, 5],
        [1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2],
        [4, 3, 4, 5, 4, 3, 4, 5, 4, 3, 4, 5],
        [1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2],
        [4, 3, 4, 5, 4, 3, 4, 5, 4, 3, 4, 5],
      ]);
    });

    it("takes per-axis constants, the later axis's value in the corners", async () => {
      using m = asarray([[0, 1, 2], [3, 4, 5]], { stream, dtype: "float64" });
      // np.pad(m, ((1, 2), (2, 1)), constant_values=((-1, -2), (-3, -4)))
      expect(await list(pad(m, [[1, 2], [2, 1]], { constantValues: [[-1, -2], [-3, -4]] }))).toEqual([
        [-3, -3, -1, -1, -1, -4],
        [-3, -3, 0, 1, 2, -4],
        [-3, -3, 3, 4, 5, -4],
        [-3, -3, -2, -2, -2, -4],
        [-3, -3, -2, -2, -2, -4],
      ]);
      // np.pad(m, ((0, 0), (1, 1)), constant_values=7)
      expect(await list(pad(m, [[0, 0], [1, 1]], { constantValues: 7 }))).toEqual([[7, 0, 1, 2, 7], [7, 3, 4, 5, 7]]);
    });

    it("reads transposed, reversed and sliced views", async () => {
      using m = asarray([[0, 1, 2], [3, 4, 5]], { stream, dtype: "float64" });
      // np.pad(m.T, ((1, 0), (2, 1)), mode='symmetric')
      expect(await list(pad(m.T, [[1, 0], [2, 1]], { mode: "symmetric" }))).toEqual([[3, 0, 0, 3, 3], [3, 0, 0, 3, 3], [4, 1, 1, 4, 4], [5, 2, 2, 5, 5]]);
      // np.pad(m.T, ((2, 1), (1, 2)), constant_values=((8, 9), (-8, -9)))
      expect(await list(pad(m.T, [[2, 1], [1, 2]], { constantValues: [[8, 9], [-8, -9]] }))).toEqual([
        [-8, 8, 8, -9, -9],
        [-8, 8, 8, -9, -9],
        [-8, 0, 3, -9, -9],
        [-8, 1, 4, -9, -9],
        [-8, 2, 5, -9, -9],
        [-8, 9, 9, -9, -9],
      ]);
      // v = np.arange(10, dtype=np.int32); np.pad(v[::-3], (2, 3), mode='reflect'), v[::-3] = [9, 6, 3, 0]
      using v = arange(10, { stream, dtype: "int32" });
      expect(await list(pad(v.slice([null, null, -3]), [2, 3], { mode: "reflect" }))).toEqual([3, 6, 9, 6, 3, 0, 3, 6, 9]);
      // t = np.arange(24, dtype=np.int32).reshape(2, 3, 4); np.pad(t[:, ::2, 1:], ((1, 0), (0, 0), (0, 2)), mode='wrap')
      using t = arange(24, { stream, dtype: "int32" });
      const t3 = t.reshape([2, 3, 4]);
      expect(await list(pad(t3.slice(null, [null, null, 2], [1, null]), [[1, 0], [0, 0], [0, 2]], { mode: "wrap" }))).toEqual([
        [[13, 14, 15, 13, 14], [21, 22, 23, 21, 22]],
        [[1, 2, 3, 1, 2], [9, 10, 11, 9, 10]],
        [[13, 14, 15, 13, 14], [21, 22, 23, 21, 22]],
      ]);
      // np.pad(t, ((1, 1), (0, 0), (0, 0)), mode='edge'): the last two axes walked as one
      expect(await list(pad(t3, [[1, 1], [0, 0], [0, 0]], { mode: "edge" }))).toEqual([
        [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]],
        [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]],
        [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]],
        [[12, 13, 14, 15], [16, 17, 18, 19], [20, 21, 22, 23]],
      ]);
    });

    it("pads float16, int8, bool and complex64 arrays", async () => {
      // h = np.array([[1.5, -2.25], [0.5, 3.0]], np.float16)
      using h = asarray([[1.5, -2.25], [0.5, 3]], { stream, dtype: "float16" });
      using hp = pad(h, 1, { constantValues: 0.125 });
      expect(hp.dtype.name).toBe("float16");
      // np.pad(h, 1, constant_values=0.125)
      expect(await hp.toList()).toEqual([[0.125, 0.125, 0.125, 0.125], [0.125, 1.5, -2.25, 0.125], [0.125, 0.5, 3, 0.125], [0.125, 0.125, 0.125, 0.125]]);
      // np.pad(h, ((0, 1), (2, 0)), constant_values=((-1, 2), (4, 8)))
      expect(await list(pad(h, [[0, 1], [2, 0]], { constantValues: [[-1, 2], [4, 8]] }))).toEqual([[4, 4, 1.5, -2.25], [4, 4, 0.5, 3], [4, 4, 2, 2]]);
      // i8 = np.array([[-128, 5, 127]], np.int8)
      using i8 = asarray([[-128, 5, 127]], { stream, dtype: "int8" });
      // np.pad(i8, ((1, 1), (2, 1)), constant_values=-7)
      expect(await list(pad(i8, [[1, 1], [2, 1]], { constantValues: -7 }))).toEqual([[-7, -7, -7, -7, -7, -7], [-7, -7, -128, 5, 127, -7], [-7, -7, -7, -7, -7, -7]]);
      // np.pad(i8, ((1, 1), (2, 1)), mode='symmetric')
      expect(await list(pad(i8, [[1, 1], [2, 1]], { mode: "symmetric" }))).toEqual([[5, -128, -128, 5, 127, 127], [5, -128, -128, 5, 127, 127], [5, -128, -128, 5, 127, 127]]);
      // b = np.array([True, False, False]); np.pad(b, (2, 1), constant_values=True)
      using b = asarray([true, false, false], { stream, dtype: "bool" });
      expect(await list(pad(b, [2, 1], { constantValues: true }))).toEqual([true, true, true, false, false, true]);
      // np.pad(b, (2, 3), mode='wrap')
      expect(await list(pad(b, [2, 3], { mode: "wrap" }))).toEqual([false, false, true, false, false, true, false, false]);
      // c = np.array([1+2j, 3-1j], np.complex64)
      using c = DeviceArray.from(Float32Array.from([1, 2, 3, -1]), { stream, dtype: "complex64" });
      // np.pad(c, (1, 2), mode='wrap') → [(3-1j), (1+2j), (3-1j), (1+2j), (3-1j)]
      expect(await list(pad(c, [1, 2], { mode: "wrap" }))).toEqual([[3, -1], [1, 2], [3, -1], [1, 2], [3, -1]]);
      // np.pad(c, 1, constant_values=5) → [(5+0j), (1+2j), (3-1j), (5+0j)]
      expect(await list(pad(c, 1, { constantValues: 5 }))).toEqual([[5, 0], [1, 2], [3, -1], [5, 0]]);
    });

    it("copies for zero widths, and pads empty arrays", async () => {
      using x = asarray([[1, 2], [3, 4]], { stream, dtype: "int32" });
      using same = pad(x.T, 0, { mode: "reflect" });
      expect([same === x, mayShareMemory(same, x), same.isContiguous]).toEqual([false, false, true]);
      expect(await same.toList()).toEqual([[1, 3], [2, 4]]);
      using e = zeros([0, 2], { stream });
      // np.pad(np.zeros((0, 2)), ((1, 1), (0, 0)), constant_values=5)
      expect(await list(pad(e, [[1, 1], [0, 0]], { constantValues: 5 }))).toEqual([[5, 5], [5, 5]]);
      // np.pad(np.zeros((0, 2)), ((0, 0), (1, 1)), mode='edge').shape → (0, 4)
      using f = pad(e, [[0, 0], [1, 1]], { mode: "edge" });
      expect(f.shape).toEqual([0, 4]);
    });

    it("pads a million-element array", async () => {
      // big = (np.arange(999 * 1000).reshape(999, 1000) % 251).astype(np.int32)
      using r = arange(999 * 1000, { stream, dtype: "int32" });
      using m = mod(r, 251);
      const big = m.reshape([999, 1000]);
      using s = pad(big, [[3, 5], [7, 2]], { mode: "symmetric" });
      expect(s.shape).toEqual([1007, 1009]);
      // int(np.pad(big, ((3, 5), (7, 2)), mode='symmetric').sum())
      using total = sum(s);
      expect(Number(await item(total))).toBe(127007253);
      using f = pad(big, 130, { mode: "reflect" });
      using total2 = sum(f);
      // int(np.pad(big, 130, mode='reflect').sum())
      expect(Number(await item(total2))).toBe(198286676);
      // np.pad(big, 130, mode='reflect')[0, :6], [-1, -6:]
      expect(await list(f.slice([0, 1], [0, 6]).copy({ stream }))).toEqual([[112, 111, 110, 109, 108, 107]]);
      expect(await list(f.slice([1258, 1259], [1254, 1260]).copy({ stream }))).toEqual([[163, 162, 161, 160, 159, 158]]);
    });
  });

  describe("interp", () => {
    it("interpolates between the points, and takes the ends' values outside them", async () => {
      using xp = asarray([1, 2, 3], { stream });
      using fp = asarray([3, 2, 0], { stream });
      using x = asarray([0, 1, 1.5, 2.72, 3.14], { stream });
      using y = interp(x, xp, fp);
      expect([y.dtype.name, y.shape]).toEqual(["float64", [5]]);
      // np.interp([0, 1, 1.5, 2.72, 3.14], [1, 2, 3], [3, 2, 0])
      expect(await y.toList()).toEqual([3, 3, 2.5, 0.5599999999999996, 0]);
      // np.interp(2.5, [1, 2, 3], [3, 2, 0]) → 1.0 (a 0-d result)
      using s = interp(2.5, xp, fp);
      expect(s.shape).toEqual([]);
      expect(await s.toList()).toBe(1);
      // np.interp([0.3, 0.33, 0.123456789], [0.1, 0.2, 0.7], [1, 3, 2]): NumPy's rounding, bit for bit
      using xq = asarray([0.1, 0.2, 0.7], { stream });
      using fq = asarray([1, 3, 2], { stream });
      using q = asarray([0.3, 0.33, 0.123456789], { stream });
      expect(await list(interp(q, xq, fq))).toEqual([2.8, 2.7399999999999998, 1.4691357799999998]);
    });

    it("takes left and right", async () => {
      using xp = asarray([0, 1, 2], { stream });
      using fp = asarray([10, 20, 30], { stream });
      using x = asarray([-1, 0, 0.5, 2, 4], { stream });
      // np.interp([-1, 0, 0.5, 2, 4], [0, 1, 2], [10, 20, 30], left=-5, right=99)
      expect(await list(interp(x, xp, fp, { left: -5, right: 99 }))).toEqual([-5, 10, 15, 30, 99]);
      // np.interp([-1, 4], [0, 1, 2], [10, 20, 30], right=np.nan)
      using out = asarray([-1, 4], { stream });
      expect(await list(interp(out, xp, fp, { right: Number.NaN }))).toEqual([10, Number.NaN]);
    });

    it("gives the point's value at a point, and handles repeated points as NumPy", async () => {
      // np.interp([0, 0.5, 1, 1.5, 2, 2.5], [0, 1, 1, 2], [0, 10, 20, 30])
      using xp = asarray([0, 1, 1, 2], { stream });
      using fp = asarray([0, 10, 20, 30], { stream });
      using x = asarray([0, 0.5, 1, 1.5, 2, 2.5], { stream });
      expect(await list(interp(x, xp, fp))).toEqual([0, 5, 20, 25, 30, 30]);
      // np.interp([0, 1, 2, 3], [0, 1, 2, 2], [5, 6, 7, 8]): x == xp[-1] gives fp[-1]
      using xp2 = asarray([0, 1, 2, 2], { stream });
      using fp2 = asarray([5, 6, 7, 8], { stream });
      using x2 = asarray([0, 1, 2, 3], { stream });
      expect(await list(interp(x2, xp2, fp2))).toEqual([5, 6, 8, 8]);
    });

    it("retries an infinite slope from the right, and gives NaN for NaN", async () => {
      // np.interp([np.nan, 0.5, 1.5, 2.5], [0, 1, 2, 3], [0, np.inf, 1, 2])
      using xp = asarray([0, 1, 2, 3], { stream });
      using fp = asarray([0, Number.POSITIVE_INFINITY, 1, 2], { stream });
      using x = asarray([Number.NaN, 0.5, 1.5, 2.5], { stream });
      expect(await list(interp(x, xp, fp))).toEqual([Number.NaN, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, 1.5]);
      // np.interp([0.5, 1.5], [0, 1, 2], [np.inf, np.inf, 3])
      using xp2 = asarray([0, 1, 2], { stream });
      using fp2 = asarray([Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, 3], { stream });
      using x2 = asarray([0.5, 1.5], { stream });
      expect(await list(interp(x2, xp2, fp2))).toEqual([Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY]);
      // np.interp([np.nan, 0, 1, 2], [1], [7], left=-1, right=9): one point (NaN gives fp[0] there, as NumPy)
      using one = asarray([1], { stream });
      using seven = asarray([7], { stream });
      using x3 = asarray([Number.NaN, 0, 1, 2], { stream });
      expect(await list(interp(x3, one, seven, { left: -1, right: 9 }))).toEqual([7, -1, 7, 9]);
    });

    it("interpolates float32 and integer inputs in float64", async () => {
      // x32 = np.array([0.05, 0.1, 0.3, 0.65, 0.7, 1], np.float32); xp32 = np.array([0, 0.1, 0.7], np.float32)
      // fp32 = np.array([1, 2.5, -1], np.float32); np.interp(x32, xp32, fp32)
      using xp = asarray([0, 0.1, 0.7], { stream, dtype: "float32" });
      using fp = asarray([1, 2.5, -1], { stream, dtype: "float32" });
      using x = asarray([0.05, 0.1, 0.3, 0.65, 0.7, 1], { stream, dtype: "float32" });
      using y = interp(x, xp, fp);
      expect(y.dtype.name).toBe("float64");
      expect(await y.toList()).toEqual([1.75, 2.5, 1.333333246409891, -0.7083332572753216, -1, -1]);
      // np.interp(np.array([3, 7, -2, 12], np.int32), np.arange(10)[::3], (np.arange(10) ** 2).astype(np.int32)[::3])
      using xpi = arange(10, { stream, dtype: "int64" });
      using fpi = asarray([0, 1, 4, 9, 16, 25, 36, 49, 64, 81], { stream, dtype: "int32" });
      using xi = asarray([3, 7, -2, 12], { stream, dtype: "int32" });
      expect(await list(interp(xi, xpi.slice([null, null, 3]), fpi.slice([null, null, 3])))).toEqual([9, 51, 0, 81]);
    });

    it("takes x of any shape and layout", async () => {
      using xp = asarray([0, 1, 2, 3], { stream });
      using fp = asarray([0, 1, 4, 9], { stream });
      using x = asarray([[0.25, 1.75, -3], [2.5, 1, 0.1]], { stream });
      // np.interp(x2, [0, 1, 2, 3], [0, 1, 4, 9])
      expect(await list(interp(x, xp, fp))).toEqual([[0.25, 3.25, 0], [6.5, 1, 0.1]]);
      // np.interp(x2.T, [0, 1, 2, 3], [0, 1, 4, 9])
      expect(await list(interp(x.T, xp, fp))).toEqual([[0.25, 6.5], [3.25, 1], [0, 0.1]]);
    });

    it("interpolates complex values part by part", async () => {
      using xp = asarray([0, 1, 2], { stream });
      // fp = [1+1j, 2-3j, 0.5j]
      using fp = DeviceArray.from(Float64Array.from([1, 1, 2, -3, 0, 0.5]), { stream, dtype: "complex128" });
      using x = asarray([0.5, 1.5, -1, 3], { stream });
      using y = interp(x, xp, fp);
      expect(y.dtype.name).toBe("complex128");
      // np.interp([0.5, 1.5, -1, 3], [0, 1, 2], [1+1j, 2-3j, 0.5j]) → [(1.5-1j), (1-1.25j), (1+1j), 0.5j]
      expect(await y.toList()).toEqual([[1.5, -1], [1, -1.25], [1, 1], [0, 0.5]]);
      // np.interp([-1, 3], [0, 1, 2], [1+1j, 2-3j, 0.5j], left=2j, right=4) → [2j, (4+0j)]
      using ends = asarray([-1, 3], { stream });
      expect(await list(interp(ends, xp, fp, { left: [0, 2], right: 4 }))).toEqual([[0, 2], [4, 0]]);
    });

    it("takes a period, as NumPy", async () => {
      // np.interp([-180, -170, -185, 185, -10, -5, 0, 365], [190, -190, 350, -350], [5, 10, 3, 4], period=360)
      using x = asarray([-180, -170, -185, 185, -10, -5, 0, 365], { stream });
      using xp = asarray([190, -190, 350, -350], { stream });
      using fp = asarray([5, 10, 3, 4], { stream });
      expect(await list(interp(x, xp, fp, { period: 360 }))).toEqual([7.5, 5, 8.75, 6.25, 3, 3.25, 3.5, 3.75]);
      // np.interp(370, [190, -190, 350, -350], [5, 10, 3, 4], period=-360) → 4.0
      expect(await list(interp(370, xp, fp, { period: -360 }))).toBe(4);
      // float32 x is taken modulo the period in float64, as NumPy converts it first.
      using x32 = astype(x, "float32", { stream });
      expect(await list(interp(x32, xp, fp, { period: 360, left: 1e9 }))).toEqual([7.5, 5, 8.75, 6.25, 3, 3.25, 3.5, 3.75]);
    });
  });
});
