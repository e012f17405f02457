/**
 * uniqueValues, uniqueCounts, uniqueInverse and uniqueAll on a real GPU, read back against NumPy 2.4's results (each
 * NumPy call in a comment): each NaN a value of its own (floats in their order, complex in NumPy's sort order), the
 * inverse in the input's shape, a transposed view, integers, one NaN, 0-d and empty inputs. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { unique, uniqueAll, uniqueCounts, uniqueInverse, uniqueValues } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, readDecoded } from "../../support/gpu-arrays.ts";

describe.skipIf(!gpu.available)(`NumPy 2's unique functions on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const read = (x: DeviceArray): [string, number[], unknown[]] => readDecoded(x, stream);
  const f64 = (values: number[], shape?: number[]): DeviceArray => DeviceArray.from(Float64Array.from(values), { stream, ...(shape !== undefined ? { shape } : {}) });

  it("uniqueAll: every NaN its own value, index, slot and count", () => {
    using x = f64([3, NaN, 1, NaN], [2, 2]);
    // np.unique_all([[3., nan], [1., nan]]) → values [1, 3, nan, nan], indices [2, 0, 1, 3], inverse [[1, 2], [0, 3]], counts [1, 1, 1, 1]
    const r = uniqueAll(x);
    expect(read(r.values)).toEqual(["float64", [4], [1, 3, NaN, NaN]]);
    expect(read(r.indices)).toEqual(["int64", [4], [2, 0, 1, 3]]);
    expect(read(r.inverseIndices)).toEqual(["int64", [2, 2], [1, 2, 0, 3]]);
    expect(read(r.counts)).toEqual(["int64", [4], [1, 1, 1, 1]]);
    // A transposed view: np.unique_all(x.T) → indices [1, 0, 2, 3], inverse [[1, 0], [2, 3]]
    const t = uniqueAll(x.T);
    expect(read(t.values)).toEqual(["float64", [4], [1, 3, NaN, NaN]]);
    expect(read(t.indices)).toEqual(["int64", [4], [1, 0, 2, 3]]);
    expect(read(t.inverseIndices)).toEqual(["int64", [2, 2], [1, 0, 2, 3]]);
    expect(read(t.counts)).toEqual(["int64", [4], [1, 1, 1, 1]]);
  });

  it("complex NaNs in NumPy's sort order; repeated numbers counted", () => {
    using z = DeviceArray.from(Float64Array.from([NaN, 1, 1, 0, 1, NaN, 1, 0]), { stream, dtype: "complex128" });
    // np.unique_all([nan+1j, 1+0j, 1+nanj, 1+0j]) → values [1+0j, 1+nanj, nan+1j], indices [1, 2, 0], inverse [2, 0, 1, 0], counts [2, 1, 1]
    const r = uniqueAll(z);
    const [dtype, shape, values] = read(r.values);
    expect([dtype, shape]).toEqual(["complex128", [3]]);
    expect(values[0]).toEqual([1, 0]);
    expect(values[1]).toEqual([1, NaN]);
    expect(values[2]).toEqual([NaN, 1]);
    expect(read(r.indices)).toEqual(["int64", [3], [1, 2, 0]]);
    expect(read(r.inverseIndices)).toEqual(["int64", [4], [2, 0, 1, 0]]);
    expect(read(r.counts)).toEqual(["int64", [3], [2, 1, 1]]);
  });

  it("unique with equalNan: false keeps each NaN, as NumPy's equal_nan=False", () => {
    using x = f64([3, NaN, 1, NaN, 3]);
    // np.unique([3, nan, 1, nan, 3], equal_nan=False) → [1, 3, nan, nan]
    expect(read(unique(x, { equalNan: false }))).toEqual(["float64", [4], [1, 3, NaN, NaN]]);
    // with return_index, return_inverse, return_counts → [2, 0, 1, 3], [1, 2, 0, 3, 1], [1, 2, 1, 1]
    const r = unique(x, { equalNan: false, returnIndex: true, returnInverse: true, returnCounts: true });
    expect(read(r.values)).toEqual(["float64", [4], [1, 3, NaN, NaN]]);
    expect(read(r.indices)).toEqual(["int64", [4], [2, 0, 1, 3]]);
    expect(read(r.inverse)).toEqual(["int64", [5], [1, 2, 0, 3, 1]]);
    expect(read(r.counts)).toEqual(["int64", [4], [1, 2, 1, 1]]);
    // The default merges them: np.unique(x) → [1, 3, nan]
    expect(read(unique(x))).toEqual(["float64", [3], [1, 3, NaN]]);
  });

  it("uniqueValues, uniqueCounts and uniqueInverse", () => {
    using a = DeviceArray.from(Float32Array.from([NaN, 1, NaN, 1]), { stream });
    // np.unique_values(np.array([nan, 1, nan, 1], np.float32)) → float32 [1, nan, nan]
    expect(read(uniqueValues(a))).toEqual(["float32", [3], [1, NaN, NaN]]);
    using labels = DeviceArray.from(Int8Array.from([2, 1, 2]), { stream });
    // np.unique_counts(np.array([2, 1, 2], np.int8)) → values int8 [1, 2], counts [1, 2]
    const c = uniqueCounts(labels);
    expect(read(c.values)).toEqual(["int8", [2], [1, 2]]);
    expect(read(c.counts)).toEqual(["int64", [2], [1, 2]]);
    using b = f64([NaN, 2, NaN, NaN, 2]);
    // np.unique_inverse([nan, 2., nan, nan, 2.]) → values [2, nan, nan, nan], inverse [1, 0, 2, 3, 0]
    const i = uniqueInverse(b);
    expect(read(i.values)).toEqual(["float64", [4], [2, NaN, NaN, NaN]]);
    expect(read(i.inverseIndices)).toEqual(["int64", [5], [1, 0, 2, 3, 0]]);
    // One NaN is one value either way: np.unique_counts([1., nan, 1.]) → [1, nan], [2, 1]
    using one = f64([1, NaN, 1]);
    const o = uniqueCounts(one);
    expect(read(o.values)).toEqual(["float64", [2], [1, NaN]]);
    expect(read(o.counts)).toEqual(["int64", [2], [2, 1]]);
  });

  it("0-d and empty inputs", () => {
    using s = DeviceArray.from(Float64Array.of(5), { stream, shape: [] });
    // np.unique_inverse(np.array(5.)) → values [5.], inverse 0-d 0
    const i = uniqueInverse(s);
    expect(read(i.values)).toEqual(["float64", [1], [5]]);
    expect(read(i.inverseIndices)).toEqual(["int64", [], [0]]);
    using e = DeviceArray.empty([0], "float32", { stream });
    // np.unique_counts(np.array([], np.float32)) → float32 [], int64 []
    const c = uniqueCounts(e);
    expect(read(c.values)).toEqual(["float32", [0], []]);
    expect(read(c.counts)).toEqual(["int64", [0], []]);
  });
});
