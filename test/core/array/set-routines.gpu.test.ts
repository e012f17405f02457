/**
 * `union1d`, `intersect1d` (plain and with `returnIndices`), `setdiff1d` and `setxor1d` on a real GPU. Each expected
 * value is the literal NumPy 2.4 printed for the call in the comment beside it: int32 with repeats (both orders),
 * float64 with NaNs (one NaN in a union, none in an intersection, the NaN of each input in a symmetric difference),
 * mixed dtypes (the promoted dtype; setdiff1d keeps a's), 2-d inputs and their transposes (flattened row-major),
 * empty inputs, a 0-d input, bool, `assumeUnique` (inputs that are unique, and NumPy's results for some that are not),
 * and 20,000 against 15,000 random int32 and 3,000 float64 with NaNs checked against a host computation. Skips without
 * a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { intersect1d, setdiff1d, setxor1d, union1d, type Intersect1dResult } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import { readAndClose, seededUniform as rng } from "../../support/arrays.ts";

describe.skipIf(!gpu.available)(`union1d, intersect1d, setdiff1d and setxor1d on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  /** The elements of a 1-d result of `dtype`, read to the host; the result is closed. */
  const values = (x: DeviceArray, dtype: string): number[] => {
    expect(x.dtype.name).toBe(dtype);
    expect(x.ndim).toBe(1);
    return readAndClose(x, stream);
  };

  /** intersect1d's object read to the host (the values of `dtype`, the indices int64, all 1-d of one length); closed. */
  const indexed = (r: Intersect1dResult, dtype: string): [number[], number[], number[]] => {
    expect(Object.keys(r).sort()).toEqual(["indices1", "indices2", "values"]);
    expect(r.indices1.dtype.name).toBe("int64");
    expect(r.indices2.dtype.name).toBe("int64");
    return [values(r.values, dtype), values(r.indices1, "int64"), values(r.indices2, "int64")];
  };

  it("int32 with repeats, both orders", () => {
    using a = DeviceArray.from(Int32Array.from([5, 1, 3, 1, 7, 3]), { stream });
    using b = DeviceArray.from(Int32Array.from([3, 9, 1, 9, 2]), { stream });
    // np.union1d(a, b) → [1, 2, 3, 5, 7, 9] (int32)
    expect(values(union1d(a, b), "int32")).toEqual([1, 2, 3, 5, 7, 9]);
    // np.intersect1d(a, b) → [1, 3]
    expect(values(intersect1d(a, b), "int32")).toEqual([1, 3]);
    // np.intersect1d(a, b, return_indices=True) → ([1, 3], [1, 2], [2, 0])
    expect(indexed(intersect1d(a, b, { returnIndices: true }), "int32")).toEqual([[1, 3], [1, 2], [2, 0]]);
    // np.intersect1d(b, a, return_indices=True) → ([1, 3], [2, 0], [1, 2])
    expect(indexed(intersect1d(b, a, { returnIndices: true, stream }), "int32")).toEqual([[1, 3], [2, 0], [1, 2]]);
    // np.setdiff1d(a, b) → [5, 7]; np.setdiff1d(b, a) → [2, 9]
    expect(values(setdiff1d(a, b), "int32")).toEqual([5, 7]);
    expect(values(setdiff1d(b, a, { stream }), "int32")).toEqual([2, 9]);
    // np.setxor1d(a, b) → [2, 5, 7, 9]
    expect(values(setxor1d(a, b), "int32")).toEqual([2, 5, 7, 9]);
    // The inputs are left as they were.
    expect(readAndClose(a.copy({ stream }), stream)).toEqual([5, 1, 3, 1, 7, 3]);
  });

  it("float64 with NaNs: one NaN in the union, none in the intersection, each input's in the symmetric difference", () => {
    using f = DeviceArray.from(Float64Array.from([2.5, NaN, -1.0, NaN, 0.0, 2.5]), { stream });
    using g = DeviceArray.from(Float64Array.from([NaN, 2.5, 4.0, -1.0]), { stream });
    // np.union1d(f, g) → [-1., 0., 2.5, 4., nan]
    expect(values(union1d(f, g), "float64")).toEqual([-1, 0, 2.5, 4, NaN]);
    // np.intersect1d(f, g) → [-1., 2.5]
    expect(values(intersect1d(f, g), "float64")).toEqual([-1, 2.5]);
    // np.intersect1d(f, g, return_indices=True) → ([-1., 2.5], [2, 0], [3, 1])
    expect(indexed(intersect1d(f, g, { returnIndices: true }), "float64")).toEqual([[-1, 2.5], [2, 0], [3, 1]]);
    // np.setdiff1d(f, g) → [0., nan] (NaN is never in g); np.setdiff1d(g, f) → [4., nan]
    expect(values(setdiff1d(f, g), "float64")).toEqual([0, NaN]);
    expect(values(setdiff1d(g, f), "float64")).toEqual([4, NaN]);
    // np.setxor1d(f, g) → [0., 4., nan, nan]
    expect(values(setxor1d(f, g), "float64")).toEqual([0, 4, NaN, NaN]);
    using p = DeviceArray.from(Float64Array.from([NaN, 1.0]), { stream });
    using q = DeviceArray.from(Float64Array.from([1.0, NaN]), { stream });
    // np.intersect1d([nan, 1.0], [1.0, nan], return_indices=True) → ([1.], [1], [0])
    expect(indexed(intersect1d(p, q, { returnIndices: true }), "float64")).toEqual([[1], [1], [0]]);
    // -0.0 and +0.0 are one value (unique's +0.0; NumPy's union1d([-0.0], [0.0]) shows -0.); np.setxor1d([-0.0], [0.0]) → []
    using mz = DeviceArray.from(Float64Array.from([-0.0, 1.0]), { stream });
    using pz = DeviceArray.from(Float64Array.from([0.0]), { stream });
    const u = values(union1d(mz, pz), "float64");
    expect(u.length).toBe(2);
    expect(u[0] === 0 && u[1] === 1).toBe(true);
    expect(values(intersect1d(mz, pz), "float64").map((v) => v === 0)).toEqual([true]);
    expect(values(setxor1d(mz, pz), "float64")).toEqual([1]);
  });

  it("mixed dtypes: the promoted dtype (setdiff1d keeps a's)", () => {
    using i = DeviceArray.from(Int32Array.from([1, 2, 3, 4]), { stream });
    using d = DeviceArray.from(Float64Array.from([2.0, 3.5, 4.0]), { stream });
    // np.union1d(i, d) → [1., 2., 3., 3.5, 4.]; np.intersect1d(i, d) → [2., 4.]
    expect(values(union1d(i, d), "float64")).toEqual([1, 2, 3, 3.5, 4]);
    expect(values(intersect1d(i, d), "float64")).toEqual([2, 4]);
    // np.setdiff1d(i, d) → [1, 3] (int32); np.setxor1d(i, d) → [1., 3., 3.5]
    expect(values(setdiff1d(i, d), "int32")).toEqual([1, 3]);
    expect(values(setxor1d(i, d), "float64")).toEqual([1, 3, 3.5]);
    using u = DeviceArray.from(Uint8Array.from([4, 200, 2]), { stream });
    using s = DeviceArray.from(Int8Array.from([-1, 2]), { stream });
    // np.union1d(u, s) → [-1, 2, 4, 200] (int16); np.intersect1d(u, s) → [2] (int16)
    expect(values(union1d(u, s), "int16")).toEqual([-1, 2, 4, 200]);
    expect(values(intersect1d(u, s), "int16")).toEqual([2]);
    // np.setdiff1d(u, s) → [4, 200] (uint8); np.setxor1d(u, s) → [-1, 4, 200] (int16)
    expect(values(setdiff1d(u, s), "uint8")).toEqual([4, 200]);
    expect(values(setxor1d(u, s), "int16")).toEqual([-1, 4, 200]);
    // np.intersect1d(u, s, return_indices=True) → ([2], [2], [1])
    expect(indexed(intersect1d(u, s, { returnIndices: true }), "int16")).toEqual([[2], [2], [1]]);
    // np.setdiff1d(d, u) → [3.5]; np.setxor1d(d, u) → [3.5, 200.]
    expect(values(setdiff1d(d, u), "float64")).toEqual([3.5]);
    expect(values(setxor1d(d, u), "float64")).toEqual([3.5, 200]);
  });

  it("2-d inputs and their transposes are flattened row-major, and a 0-d input is one element", () => {
    using m = DeviceArray.from(BigInt64Array.from([4n, 1n, 4n, 2n, 8n, 1n]), { stream, shape: [2, 3] });
    using k = DeviceArray.from(BigInt64Array.from([1n, 5n, 8n, 5n]), { stream, shape: [2, 2] });
    // m = [[4, 1, 4], [2, 8, 1]], k = [[1, 5], [8, 5]]: np.union1d(m, k) → [1, 2, 4, 5, 8]
    expect(values(union1d(m, k), "int64")).toEqual([1, 2, 4, 5, 8]);
    // np.intersect1d(m, k, return_indices=True) → ([1, 8], [1, 4], [0, 2])
    expect(indexed(intersect1d(m, k, { returnIndices: true }), "int64")).toEqual([[1, 8], [1, 4], [0, 2]]);
    // np.intersect1d(m.T, k.T, return_indices=True) → ([1, 8], [2, 3], [0, 1])
    expect(indexed(intersect1d(m.T, k.T, { returnIndices: true }), "int64")).toEqual([[1, 8], [2, 3], [0, 1]]);
    // np.setdiff1d(m, k) → [2, 4]; np.setxor1d(m, k) → [2, 4, 5]
    expect(values(setdiff1d(m, k), "int64")).toEqual([2, 4]);
    expect(values(setxor1d(m.T, k), "int64")).toEqual([2, 4, 5]);
    // np.setdiff1d(m.T, k, assume_unique=True) → [4, 2, 4] (m.T's order, not sorted)
    expect(values(setdiff1d(m.T, k, { assumeUnique: true }), "int64")).toEqual([4, 2, 4]);
    // A 0-d input: np.union1d(np.array(3, np.int16), np.array([[1, 3]], np.uint8)) → [1, 3] (int16); np.setxor1d → [1]
    using z = DeviceArray.from(Int16Array.from([3]), { stream, shape: [] });
    using r = DeviceArray.from(Uint8Array.from([1, 3]), { stream, shape: [1, 2] });
    expect(values(union1d(z, r), "int16")).toEqual([1, 3]);
    expect(values(setxor1d(z, r), "int16")).toEqual([1]);
    // np.intersect1d(z, r, return_indices=True) → ([3], [0], [1]) (int16); np.intersect1d(z, r, assume_unique=True) → [3]
    expect(indexed(intersect1d(z, r, { returnIndices: true }), "int16")).toEqual([[3], [0], [1]]);
    expect(values(intersect1d(z, r, { assumeUnique: true }), "int16")).toEqual([3]);
    // np.setdiff1d(z, r) → [] (int16); np.setdiff1d(z, np.array([1], np.int16), assume_unique=True) → [3]
    using one = DeviceArray.from(Int16Array.from([1]), { stream });
    expect(values(setdiff1d(z, r), "int16")).toEqual([]);
    expect(values(setdiff1d(z, r, { assumeUnique: true }), "int16")).toEqual([]);
    expect(values(setdiff1d(z, one, { assumeUnique: true }), "int16")).toEqual([3]);
  });

  it("empty inputs", () => {
    using e = DeviceArray.empty([0], "float32", { stream });
    using x = DeviceArray.from(Int16Array.from([3, 1, 3]), { stream });
    using z = DeviceArray.empty([0, 3], "int32", { stream });
    // np.union1d(e, x) → [1., 3.] (float32); np.intersect1d(e, x) → [] (float32); np.setdiff1d(e, x) → [] (float32)
    // np.setxor1d(e, x) → [1., 3.] (float32); np.intersect1d(e, x, return_indices=True) → ([], [], []) (float32, int64, int64)
    expect(values(union1d(e, x), "float32")).toEqual([1, 3]);
    expect(values(intersect1d(e, x), "float32")).toEqual([]);
    expect(indexed(intersect1d(e, x, { returnIndices: true }), "float32")).toEqual([[], [], []]);
    expect(values(setdiff1d(e, x), "float32")).toEqual([]);
    expect(values(setxor1d(e, x), "float32")).toEqual([1, 3]);
    // np.setdiff1d(x, e) → [1, 3] (int16); np.setxor1d(x, e) → [1., 3.] (float32)
    expect(values(setdiff1d(x, e), "int16")).toEqual([1, 3]);
    expect(values(setxor1d(x, e), "float32")).toEqual([1, 3]);
    // e (float32) with z (int32, shape (0, 3)): union1d, intersect1d, setxor1d → [] (float64); setdiff1d → [] (float32)
    expect(values(union1d(e, z), "float64")).toEqual([]);
    expect(values(intersect1d(e, z), "float64")).toEqual([]);
    expect(indexed(intersect1d(e, z, { returnIndices: true, assumeUnique: true }), "float64")).toEqual([[], [], []]);
    expect(values(setdiff1d(e, z), "float32")).toEqual([]);
    expect(values(setxor1d(e, z, { assumeUnique: true }), "float64")).toEqual([]);
    // One element and none: np.setxor1d(np.array([7], np.int8), np.array([], np.int8)) → [7] (int8);
    // np.intersect1d(..., return_indices=True) → ([], [], [])
    using seven = DeviceArray.from(Int8Array.from([7]), { stream });
    using none = DeviceArray.empty([0], "int8", { stream });
    expect(values(setxor1d(seven, none), "int8")).toEqual([7]);
    expect(indexed(intersect1d(seven, none, { returnIndices: true }), "int8")).toEqual([[], [], []]);
  });

  it("assumeUnique: the inputs as they are, and NumPy's results for inputs that are not unique", () => {
    using a = DeviceArray.from(BigInt64Array.from([9n, 4n, 6n]), { stream });
    using b = DeviceArray.from(BigInt64Array.from([6n, 9n]), { stream });
    // np.intersect1d([9, 4, 6], [6, 9], assume_unique=True, return_indices=True) → ([6, 9], [2, 0], [0, 1])
    expect(indexed(intersect1d(a, b, { assumeUnique: true, returnIndices: true }), "int64")).toEqual([[6, 9], [2, 0], [0, 1]]);
    // np.intersect1d(a, b, assume_unique=True) → [6, 9]; np.setdiff1d(a, b, assume_unique=True) → [4];
    // np.setxor1d(a, b, assume_unique=True) → [4]
    expect(values(intersect1d(a, b, { assumeUnique: true }), "int64")).toEqual([6, 9]);
    expect(values(setdiff1d(a, b, { assumeUnique: true }), "int64")).toEqual([4]);
    expect(values(setxor1d(a, b, { assumeUnique: true }), "int64")).toEqual([4]);
    using r = DeviceArray.from(Int32Array.from([1, 1, 2, 5]), { stream });
    using s = DeviceArray.from(Int32Array.from([5, 1, 7]), { stream });
    // Not unique: np.intersect1d(r, s, assume_unique=True) → [1, 1, 5];
    // np.intersect1d(r, s, assume_unique=True, return_indices=True) → ([1, 1, 5], [0, 1, 3], [-3, 1, 0])
    expect(values(intersect1d(r, s, { assumeUnique: true }), "int32")).toEqual([1, 1, 5]);
    expect(indexed(intersect1d(r, s, { assumeUnique: true, returnIndices: true }), "int32")).toEqual([[1, 1, 5], [0, 1, 3], [-3, 1, 0]]);
    // np.setxor1d(r, s, assume_unique=True) → [2, 7]; np.setdiff1d(r, s, assume_unique=True) → [2]
    expect(values(setxor1d(r, s, { assumeUnique: true }), "int32")).toEqual([2, 7]);
    expect(values(setdiff1d(r, s, { assumeUnique: true }), "int32")).toEqual([2]);
    // np.setdiff1d(np.array([3, 1, 2], np.int32), s, assume_unique=True) → [3, 2] (a's order)
    using t = DeviceArray.from(Int32Array.from([3, 1, 2]), { stream });
    expect(values(setdiff1d(t, s, { assumeUnique: true }), "int32")).toEqual([3, 2]);
    using f = DeviceArray.from(Float64Array.from([NaN, 1.0, NaN]), { stream });
    using g = DeviceArray.from(Float64Array.from([NaN, 2.0]), { stream });
    // f = [nan, 1., nan], g = [nan, 2.]: np.setxor1d(f, g, assume_unique=True) → [1., 2., nan, nan, nan];
    // np.intersect1d(f, g, assume_unique=True) → []; np.setdiff1d(f, g, assume_unique=True) → [nan, 1., nan]
    expect(values(setxor1d(f, g, { assumeUnique: true }), "float64")).toEqual([1, 2, NaN, NaN, NaN]);
    expect(values(intersect1d(f, g, { assumeUnique: true }), "float64")).toEqual([]);
    expect(values(setdiff1d(f, g, { assumeUnique: true }), "float64")).toEqual([NaN, 1, NaN]);
  });

  it("bool", () => {
    using t = DeviceArray.from(Uint8Array.from([1, 0, 1]), { stream, dtype: "bool" });
    using u = DeviceArray.from(Uint8Array.from([1]), { stream, dtype: "bool" });
    using f = DeviceArray.from(Uint8Array.from([0]), { stream, dtype: "bool" });
    // np.intersect1d([True, False, True], [True], return_indices=True) → ([True], [0], [0])
    expect(indexed(intersect1d(t, u, { returnIndices: true }), "bool")).toEqual([[1], [0], [0]]);
    // np.setxor1d([True], [False]) → [False, True]; np.union1d([True, False, True], [False]) → [False, True]
    expect(values(setxor1d(u, f), "bool")).toEqual([0, 1]);
    expect(values(union1d(t, f), "bool")).toEqual([0, 1]);
    // np.setdiff1d([True, False, True], [True]) → [False]
    expect(values(setdiff1d(t, u), "bool")).toEqual([0]);
  });

  it("20,000 against 15,000 random int32 against a host computation", () => {
    const r = rng(7);
    const da = Int32Array.from({ length: 20_000 }, () => Math.floor(r() * 5000));
    const db = Int32Array.from({ length: 15_000 }, () => 2500 + Math.floor(r() * 6500));
    const firstA = new Map<number, number>();
    da.forEach((v, i) => firstA.has(v) || firstA.set(v, i));
    const firstB = new Map<number, number>();
    db.forEach((v, i) => firstB.has(v) || firstB.set(v, i));
    const byValue = (x: number, y: number): number => x - y;
    const ua = [...firstA.keys()].sort(byValue);
    const ub = [...firstB.keys()].sort(byValue);
    const union = [...new Set([...ua, ...ub])].sort(byValue);
    const common = ua.filter((v) => firstB.has(v));
    const onlyA = ua.filter((v) => !firstB.has(v));
    const onlyB = ub.filter((v) => !firstA.has(v));
    const xor = [...onlyA, ...onlyB].sort(byValue);
    using a = DeviceArray.from(da, { stream });
    using b = DeviceArray.from(db, { stream });
    expect(values(union1d(a, b), "int32")).toEqual(union);
    expect(values(intersect1d(a, b), "int32")).toEqual(common);
    expect(indexed(intersect1d(a, b, { returnIndices: true }), "int32")).toEqual([common, common.map((v) => firstA.get(v)!), common.map((v) => firstB.get(v)!)]);
    expect(values(setdiff1d(a, b), "int32")).toEqual(onlyA);
    expect(values(setdiff1d(b, a), "int32")).toEqual(onlyB);
    expect(values(setxor1d(a, b), "int32")).toEqual(xor);
    // The host sets are large, so the check has something to check.
    expect(common.length).toBeGreaterThan(1000);
    expect(onlyA.length).toBeGreaterThan(1000);
    expect(onlyB.length).toBeGreaterThan(1000);
  });

  it("3,000 random float64 with NaNs against a host computation", () => {
    const r = rng(11);
    const make = (n: number, lo: number): Float64Array => Float64Array.from({ length: n }, () => (r() < 0.02 ? NaN : lo + Math.floor(r() * 800) / 4));
    const da = make(3000, 0);
    const db = make(2000, 100);
    const key = (v: number): number | string => (Number.isNaN(v) ? "NaN" : v);
    const order = (x: number | string, y: number | string): number => (x === "NaN" ? 1 : y === "NaN" ? -1 : (x as number) - (y as number));
    const setA = new Set(Array.from(da, key));
    const setB = new Set(Array.from(db, key));
    const union = [...new Set([...setA, ...setB])].sort(order);
    // NaN equals nothing: never common, kept by setdiff1d, and kept from each input by setxor1d.
    const common = [...setA].filter((v) => v !== "NaN" && setB.has(v)).sort(order);
    const onlyA = [...setA].filter((v) => v === "NaN" || !setB.has(v)).sort(order);
    const xor = [...[...setA].filter((v) => v === "NaN" || !setB.has(v)), ...[...setB].filter((v) => v === "NaN" || !setA.has(v))].sort(order);
    expect(setA.has("NaN") && setB.has("NaN")).toBe(true);
    using a = DeviceArray.from(da, { stream });
    using b = DeviceArray.from(db, { stream });
    const keys = (x: number[]): (number | string)[] => x.map(key);
    expect(keys(values(union1d(a, b), "float64"))).toEqual(union);
    expect(keys(values(intersect1d(a, b), "float64"))).toEqual(common);
    expect(keys(values(setdiff1d(a, b), "float64"))).toEqual(onlyA);
    expect(keys(values(setxor1d(a, b), "float64"))).toEqual(xor);
    expect(xor.filter((v) => v === "NaN").length).toBe(2);
  });
});
