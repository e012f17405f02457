/**
 * `unique`'s further results (`returnIndex`, `returnInverse`, `returnCounts`) and `isin` on a real GPU. Each expected
 * value is the literal NumPy 2.4 printed for the call in the comment beside it: unique of int32 with repeats under
 * each option and all together, float64 and float32 with NaNs and ±0.0 (one NaN, one zero), a 2-d array and its
 * transpose (the inverse of the input's shape), an empty and a 0-d array, bool; 100,000 int32 over 1,000 values
 * (many blocks of the unique kernels) whose indices, inverse and counts follow from the data, and a random float64
 * case against a host reference. isin plain and inverted, mixed dtypes (promoted), NaN (never found), ±0.0, 2-d
 * test elements and elements, an empty test set, an empty element, complex, float16, bool, views, and 10,000 int64
 * against 1,000 int32. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { isin, unique } from "../../../src/array.ts";
import { encodeHalf } from "../../../src/core/array/dtype.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import { readAndClose, seededUniform as rng } from "../../support/arrays.ts";

/** What unique's object holds, read to the host (each array closed): the values and the int64 results as numbers, with the inverse's shape. */
interface Read {
  values: number[];
  indices?: number[];
  inverse?: number[];
  inverseShape?: number[];
  counts?: number[];
}

describe.skipIf(!gpu.available)(`unique's indices, inverse and counts, and isin, on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const read = (x: DeviceArray): number[] => readAndClose(x, stream);

  /** Reads unique's result (checking the dtypes: the input's for values, int64 for the rest) and closes it. */
  function readResult(r: { values: DeviceArray; indices?: DeviceArray; inverse?: DeviceArray; counts?: DeviceArray }, dtype: string): Read {
    expect(r.values.dtype.name).toBe(dtype);
    expect(r.values.ndim).toBe(1);
    const out: Read = { values: read(r.values) };
    for (const k of ["indices", "inverse", "counts"] as const) {
      const x = r[k];
      if (x === undefined) continue;
      expect(x.dtype.name, k).toBe("int64");
      if (k === "inverse") out.inverseShape = [...x.shape];
      else expect(x.ndim, k).toBe(1);
      out[k] = read(x);
    }
    return out;
  }

  describe("unique", () => {
    const ints = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5];

    it("int32 with repeats: each further result alone, and all together", () => {
      using x = DeviceArray.from(Int32Array.from(ints), { stream });
      // np.unique(x, return_index=True) → ([1, 2, 3, 4, 5, 6, 9], [1, 6, 0, 2, 4, 7, 5])
      const ri = unique(x, { returnIndex: true });
      expect(Object.keys(ri).sort()).toEqual(["indices", "values"]);
      expect(readResult(ri, "int32")).toEqual({ values: [1, 2, 3, 4, 5, 6, 9], indices: [1, 6, 0, 2, 4, 7, 5] });
      // np.unique(x, return_inverse=True) → ([1, 2, 3, 4, 5, 6, 9], [2, 0, 3, 0, 4, 6, 1, 5, 4, 2, 4])
      const rv = unique(x, { returnInverse: true });
      expect(Object.keys(rv).sort()).toEqual(["inverse", "values"]);
      expect(readResult(rv, "int32")).toEqual({ values: [1, 2, 3, 4, 5, 6, 9], inverse: [2, 0, 3, 0, 4, 6, 1, 5, 4, 2, 4], inverseShape: [11] });
      // np.unique(x, return_counts=True) → ([1, 2, 3, 4, 5, 6, 9], [2, 1, 2, 1, 3, 1, 1])
      const rc = unique(x, { returnCounts: true });
      expect(Object.keys(rc).sort()).toEqual(["counts", "values"]);
      expect(readResult(rc, "int32")).toEqual({ values: [1, 2, 3, 4, 5, 6, 9], counts: [2, 1, 2, 1, 3, 1, 1] });
      // np.unique(x, return_index=True, return_inverse=True, return_counts=True)
      const all = unique(x, { returnIndex: true, returnInverse: true, returnCounts: true, stream });
      expect(readResult(all, "int32")).toEqual({
        values: [1, 2, 3, 4, 5, 6, 9],
        indices: [1, 6, 0, 2, 4, 7, 5],
        inverse: [2, 0, 3, 0, 4, 6, 1, 5, 4, 2, 4],
        inverseShape: [11],
        counts: [2, 1, 2, 1, 3, 1, 1],
      });
      // Options all false: the plain call's array.
      const plain = unique(x, { returnIndex: false, returnCounts: false });
      expect(plain).toBeInstanceOf(DeviceArray);
      expect(read(plain)).toEqual([1, 2, 3, 4, 5, 6, 9]);
    });

    it("float64 and float32 with NaNs and ±0.0: one NaN (the first), one zero (the first of -0.0 and +0.0)", () => {
      const f = [NaN, 0.0, -0.0, 1.5, NaN, -1.0, 0.0, -Infinity, 1.5];
      for (const data of [Float64Array.from(f), Float32Array.from(f)]) {
        using x = DeviceArray.from(data, { stream });
        // np.unique(f, return_index=True, return_inverse=True, return_counts=True) (float64, and f.astype(np.float32)):
        // ([-inf, -1., 0., 1.5, nan], [7, 5, 1, 3, 0], [4, 2, 2, 3, 4, 1, 2, 0, 3], [1, 1, 3, 2, 2])
        const r = readResult(unique(x, { returnIndex: true, returnInverse: true, returnCounts: true }), x.dtype.name);
        expect(r.values.slice(0, 4)).toEqual([-Infinity, -1, 0, 1.5]);
        expect(Object.is(r.values[2], 0)).toBe(true); // +0.0, as the plain unique gives
        expect(r.values.length).toBe(5);
        expect(Number.isNaN(r.values[4])).toBe(true);
        expect(r.indices).toEqual([7, 5, 1, 3, 0]);
        expect(r.inverse).toEqual([4, 2, 2, 3, 4, 1, 2, 0, 3]);
        expect(r.counts).toEqual([1, 1, 3, 2, 2]);
      }
    });

    it("a 2-d array and its transpose: the inverse has the input's shape, indices count in its flattened order", () => {
      using m = DeviceArray.from(Int16Array.from([3, 1, 2, 1, 3, 3]), { stream, shape: [2, 3] });
      // np.unique(m, return_index=True, return_inverse=True, return_counts=True), m = [[3, 1, 2], [1, 3, 3]] (int16):
      // ([1, 2, 3], [1, 2, 0], [[2, 0, 1], [0, 2, 2]], [2, 1, 3])
      expect(readResult(unique(m, { returnIndex: true, returnInverse: true, returnCounts: true }), "int16")).toEqual({
        values: [1, 2, 3],
        indices: [1, 2, 0],
        inverse: [2, 0, 1, 0, 2, 2],
        inverseShape: [2, 3],
        counts: [2, 1, 3],
      });
      // np.unique(m, return_inverse=True)[1].shape → (2, 3)
      expect(readResult(unique(m, { returnInverse: true }), "int16").inverseShape).toEqual([2, 3]);
      // np.unique(m.T, return_index=True, return_inverse=True, return_counts=True):
      // ([1, 2, 3], [1, 4, 0], [[2, 0], [0, 2], [1, 2]], [2, 1, 3])
      expect(readResult(unique(m.T, { returnIndex: true, returnInverse: true, returnCounts: true }), "int16")).toEqual({
        values: [1, 2, 3],
        indices: [1, 4, 0],
        inverse: [2, 0, 0, 2, 1, 2],
        inverseShape: [3, 2],
        counts: [2, 1, 3],
      });
    });

    it("an empty array, a 0-d array and bool", () => {
      using e = DeviceArray.empty([0, 3], "float32", { stream });
      // np.unique(np.zeros((0, 3), np.float32), return_index=True, return_inverse=True, return_counts=True):
      // ([], [], inverse of shape (0, 3), [])
      expect(readResult(unique(e, { returnIndex: true, returnInverse: true, returnCounts: true }), "float32")).toEqual({
        values: [],
        indices: [],
        inverse: [],
        inverseShape: [0, 3],
        counts: [],
      });
      using z = DeviceArray.from(Int32Array.from([5]), { stream, shape: [] });
      // np.unique(np.array(5, np.int32), return_index=True, return_inverse=True, return_counts=True):
      // ([5], [0], array(0) of shape (), [1])
      expect(readResult(unique(z, { returnIndex: true, returnInverse: true, returnCounts: true }), "int32")).toEqual({
        values: [5],
        indices: [0],
        inverse: [0],
        inverseShape: [],
        counts: [1],
      });
      using b = DeviceArray.from(Uint8Array.from([1, 0, 1, 1]), { stream, dtype: "bool" });
      // np.unique([True, False, True, True], return_index=True, return_inverse=True, return_counts=True):
      // ([False, True], [1, 0], [1, 0, 1, 1], [1, 3])
      expect(readResult(unique(b, { returnIndex: true, returnInverse: true, returnCounts: true }), "bool")).toEqual({
        values: [0, 1],
        indices: [1, 0],
        inverse: [1, 0, 1, 1],
        inverseShape: [4],
        counts: [1, 3],
      });
    });

    it("100,000 int32 of (i * 7919) % 1000: every value 100 times, first at (v * 679) % 1000", () => {
      const n = 100_000;
      const data = Int32Array.from({ length: n }, (_, i) => (i * 7919) % 1000);
      using x = DeviceArray.from(data, { stream });
      const values = Array.from({ length: 1000 }, (_, v) => v);
      // v = np.unique(big, return_index=True, return_inverse=True, return_counts=True) with
      // big = (np.arange(100000) * 7919 % 1000).astype(np.int32): v[0] is 0 … 999; set(v[3]) == {100};
      // v[2] equals big; v[1][:10] is [0, 679, 358, 37, 716, 395, 74, 753, 432, 111] (679 * 7919 ≡ 1 mod 1000).
      const all = readResult(unique(x, { returnIndex: true, returnInverse: true, returnCounts: true }), "int32");
      expect(all.values).toEqual(values);
      expect(all.indices!.slice(0, 10)).toEqual([0, 679, 358, 37, 716, 395, 74, 753, 432, 111]);
      expect(all.indices).toEqual(values.map((v) => (v * 679) % 1000));
      expect(all.inverse).toEqual(Array.from(data));
      expect(all.counts).toEqual(values.map(() => 100));
      // Counts alone (a sort without indices) and indices alone.
      expect(readResult(unique(x, { returnCounts: true }), "int32")).toEqual({ values, counts: values.map(() => 100) });
      expect(readResult(unique(x, { returnIndex: true }), "int32").indices).toEqual(values.map((v) => (v * 679) % 1000));
    });

    it("300,001 random float64 with duplicates, NaNs and ±0.0 against a host reference", () => {
      const r = rng(41);
      const n = 300_001;
      const data = Float64Array.from({ length: n }, () => {
        const u = r();
        return u < 0.01 ? NaN : u < 0.02 ? -0 : u < 0.03 ? 0 : Math.floor(r() * 20_000) / 4 - 2500;
      });
      // The host's unique: NaNs one value (last), -0.0 and +0.0 one (0), the first occurrence of each.
      const id = (v: number): number | string => (Number.isNaN(v) ? "NaN" : v === 0 ? 0 : v);
      const first = new Map<number | string, number>();
      const count = new Map<number | string, number>();
      data.forEach((v, i) => {
        const k = id(v);
        if (!first.has(k)) first.set(k, i);
        count.set(k, (count.get(k) ?? 0) + 1);
      });
      const keys = [...first.keys()].sort((a, b) => (a === "NaN" ? 1 : b === "NaN" ? -1 : (a as number) - (b as number)));
      const rank = new Map(keys.map((k, i) => [k, i]));
      using x = DeviceArray.from(data, { stream });
      const got = readResult(unique(x, { returnIndex: true, returnInverse: true, returnCounts: true }), "float64");
      expect(got.values.length).toBe(keys.length);
      expect(got.values.map((v) => (Number.isNaN(v) ? "NaN" : v))).toEqual(keys);
      expect(got.indices).toEqual(keys.map((k) => first.get(k)!));
      expect(got.counts).toEqual(keys.map((k) => count.get(k)!));
      const inverse = got.inverse!;
      for (let i = 0; i < n; i++) if (inverse[i] !== rank.get(id(data[i]!))) throw new Error(`inverse[${i}] is ${inverse[i]}, want ${rank.get(id(data[i]!))} (element ${data[i]})`);
    });
  });

  describe("isin", () => {
    /** Reads a bool result as booleans (checking its dtype and shape) and closes it. */
    const bools = (x: DeviceArray, shape: number[]): boolean[] => {
      expect(x.dtype.name).toBe("bool");
      expect(x.shape).toEqual(shape);
      return read(x).map((v) => v !== 0);
    };

    it("2-d elements, plain and inverted", () => {
      using e = DeviceArray.from(Int32Array.from([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
      using t = DeviceArray.from(Int32Array.from([2, 4, 6, 8]), { stream });
      // np.isin(e, t) → [[False, True, False], [True, False, True]]
      expect(bools(isin(e, t), [2, 3])).toEqual([false, true, false, true, false, true]);
      // np.isin(e, t, invert=True) → [[True, False, True], [False, True, False]]
      expect(bools(isin(e, t, { invert: true, stream }), [2, 3])).toEqual([true, false, true, false, true, false]);
      // np.isin(e.T, t) → [[False, True], [True, False], [False, True]]
      expect(bools(isin(e.T, t), [3, 2])).toEqual([false, true, true, false, false, true]);
    });

    it("compares in the promoted dtype", () => {
      using i32 = DeviceArray.from(Int32Array.from([1, 2, 3]), { stream });
      using f64 = DeviceArray.from(Float64Array.from([1.0, 2.5, 3.0]), { stream });
      // np.isin(np.array([1, 2, 3], np.int32), [1.0, 2.5, 3.0]) → [True, False, True]
      expect(bools(isin(i32, f64), [3])).toEqual([true, false, true]);
      using u8 = DeviceArray.from(Uint8Array.from([255, 1, 0]), { stream });
      using i8 = DeviceArray.from(Int8Array.from([-1, 1]), { stream });
      // np.isin(np.array([255, 1, 0], np.uint8), np.array([-1, 1], np.int8)) → [False, True, False] (compared as int16)
      expect(bools(isin(u8, i8), [3])).toEqual([false, true, false]);
      using f32 = DeviceArray.from(Float32Array.from([0.5, 1, 2, -3]), { stream });
      using i64 = DeviceArray.from(BigInt64Array.from([2n, -3n, 7n]), { stream });
      // np.isin(np.array([0.5, 1, 2, -3], np.float32), np.array([2, -3, 7], np.int64)) → [False, False, True, True]
      expect(bools(isin(f32, i64), [4])).toEqual([false, false, true, true]);
      using h = DeviceArray.from(Uint16Array.from([0.5, 1.0, 0.1], encodeHalf), { stream, dtype: "float16" });
      using f = DeviceArray.from(Float32Array.from([0.5, 0.1]), { stream });
      // np.isin(np.array([0.5, 1.0, 0.1], np.float16), np.array([0.5, 0.1], np.float32)) → [True, False, False]
      expect(bools(isin(h, f), [3])).toEqual([true, false, false]);
      using b = DeviceArray.from(Uint8Array.from([1, 0, 1]), { stream, dtype: "bool" });
      using bt = DeviceArray.from(Uint8Array.from([1]), { stream, dtype: "bool" });
      using i = DeviceArray.from(Int32Array.from([0, 1, 2]), { stream });
      // np.isin([True, False, True], [True]) → [True, False, True]; np.isin(np.array([0, 1, 2], np.int32), [True]) → [False, True, False]
      expect(bools(isin(b, bt), [3])).toEqual([true, false, true]);
      expect(bools(isin(i, bt), [3])).toEqual([false, true, false]);
    });

    it("NaN is never found; -0.0 finds 0.0", () => {
      using e = DeviceArray.from(Float64Array.from([1.0, NaN, 2.0, -0.0]), { stream });
      using t = DeviceArray.from(Float64Array.from([NaN, 1.0, 0.0]), { stream });
      // np.isin([1.0, nan, 2.0, -0.0], [nan, 1.0, 0.0]) → [True, False, False, True]; invert=True → [False, True, True, False]
      expect(bools(isin(e, t), [4])).toEqual([true, false, false, true]);
      expect(bools(isin(e, t, { invert: true }), [4])).toEqual([false, true, true, false]);
      using e32 = DeviceArray.from(Float32Array.from([NaN, 0.0, Infinity]), { stream });
      using t64 = DeviceArray.from(Float64Array.from([Infinity, -0.0, NaN]), { stream });
      // np.isin(np.array([nan, 0.0, inf], np.float32), [inf, -0.0, nan]) → [False, True, True]
      expect(bools(isin(e32, t64), [3])).toEqual([false, true, true]);
    });

    it("complex elements and test elements (by value; NaN never found)", () => {
      using c = DeviceArray.from(Float32Array.from([1, 1, 2, 0, NaN, 0, 1, -1, 3, 0]), { stream, dtype: "complex64" });
      using t = DeviceArray.from(Float64Array.from([2, 0, 1, 1, NaN, 0]), { stream, dtype: "complex128" });
      // np.isin(np.array([1+1j, 2, complex(nan, 0), 1-1j, 3], np.complex64), np.array([2, 1+1j, complex(nan, 0)])) → [True, True, False, False, False]
      expect(bools(isin(c, t), [5])).toEqual([true, true, false, false, false]);
      using f = DeviceArray.from(Float32Array.from([2, 1, 3]), { stream });
      using tc = DeviceArray.from(Float32Array.from([2, 0, 1, 1]), { stream, dtype: "complex64" });
      // np.isin(np.array([2.0, 1.0, 3.0], np.float32), np.array([2, 1+1j], np.complex64)) → [True, False, False]
      expect(bools(isin(f, tc), [3])).toEqual([true, false, false]);
    });

    it("2-d test elements, an empty test set, an empty and a 0-d element", () => {
      using e = DeviceArray.from(BigInt64Array.from([5n, 7n, 9n, 11n]), { stream });
      using t = DeviceArray.from(BigInt64Array.from([11n, 3n, 5n, 5n]), { stream, shape: [2, 2] });
      // np.isin([5, 7, 9, 11], [[11, 3], [5, 5]]) → [True, False, False, True]
      expect(bools(isin(e, t), [4])).toEqual([true, false, false, true]);
      expect(bools(isin(e, t.T), [4])).toEqual([true, false, false, true]);
      using m = DeviceArray.from(Float32Array.from([1, 2, 3, 4]), { stream, shape: [2, 2] });
      using none = DeviceArray.empty([0], "float32", { stream });
      // np.isin(m, np.array([], np.float32)) → [[False, False], [False, False]]; invert=True → all True
      expect(bools(isin(m, none), [2, 2])).toEqual([false, false, false, false]);
      expect(bools(isin(m, none, { invert: true }), [2, 2])).toEqual([true, true, true, true]);
      using empty = DeviceArray.empty([0, 4], "int32", { stream });
      // np.isin(np.zeros((0, 4), np.int32), [1]) → shape (0, 4), bool
      expect(bools(isin(empty, e), [0, 4])).toEqual([]);
      using s = DeviceArray.from(Float64Array.from([3]), { stream, shape: [] });
      using st = DeviceArray.from(Float64Array.from([1, 3]), { stream });
      // np.isin(np.array(3.0), [1.0, 3.0]) → True, shape ()
      expect(bools(isin(s, st), [])).toEqual([true]);
    });

    it("10,000 int64 against 1,000 int32 multiples of 7 (reversed)", () => {
      using e = DeviceArray.from(BigInt64Array.from({ length: 10_000 }, (_, i) => BigInt(i)), { stream });
      using t = DeviceArray.from(Int32Array.from({ length: 1000 }, (_, i) => (999 - i) * 7), { stream });
      // r = np.isin(np.arange(10000), (np.arange(1000, dtype=np.int32) * 7)[::-1]): r.sum() == 1000,
      // r == ((x % 7 == 0) & (x < 7000))
      const got = bools(isin(e, t), [10_000]);
      expect(got).toEqual(Array.from({ length: 10_000 }, (_, i) => i % 7 === 0 && i < 7000));
    });
  });
});
