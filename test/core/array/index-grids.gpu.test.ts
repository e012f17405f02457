/**
 * indices and ix (NumPy's ix_) on a real GPU, read back against NumPy 2.4's results (each NumPy call in a comment):
 * dense and sparse grids of several dtypes (a wrapping int8, bool), empty grids; open meshes of integer, strided,
 * float and bool sequences (a mask's positions), and a gather through them. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { add, indices, ix, mayShareMemory, mul, take } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, nums, iota, read } from "../../support/gpu-arrays.ts";

/** Reads the arrays back, then closes them. */
const readAll = (list: DeviceArray[]): [string, number[], number[]][] => {
  try {
    return list.map(read);
  } finally {
    for (const a of list) a.close();
  }
};

describe.skipIf(!gpu.available)(`indices and ix on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("indices: dense grids", () => {
    // np.indices((2, 3)) → int64 (2, 2, 3)
    using g = indices([2, 3], { stream });
    expect(read(g)).toEqual(["int64", [2, 2, 3], [0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2]]);
    // np.indices((2, 3), dtype=np.float32)
    using f = indices([2, 3], { stream, dtype: "float32" });
    expect(read(f)).toEqual(["float32", [2, 2, 3], [0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2]]);
    // np.indices((2, 2, 2)) → (3, 2, 2, 2)
    using c = indices([2, 2, 2], { stream });
    expect(read(c)).toEqual(["int64", [3, 2, 2, 2], [0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1]]);
    // np.indices((3,), dtype=np.uint8) → uint8 [[0, 1, 2]]
    using u = indices([3], { stream, dtype: "uint8" });
    expect(read(u)).toEqual(["uint8", [1, 3], [0, 1, 2]]);
    // np.indices((1, 2), dtype=bool) → [[[False, False]], [[False, True]]]
    using b = indices([1, 2], { stream, dtype: "bool" });
    expect(read(b)).toEqual(["bool", [2, 1, 2], [0, 0, 0, 1]]);
    // np.indices((300,), dtype=np.int8)[0, -3:] → [41, 42, 43] (wrapped, as NumPy's arange)
    using w = indices([300], { stream, dtype: "int8" });
    expect(nums(w.toTypedArraySync()).slice(-3)).toEqual([41, 42, 43]);
    // np.indices((0, 3)).shape → (2, 0, 3); np.indices(()) → int64 []
    using e = indices([0, 3], { stream });
    expect(read(e)).toEqual(["int64", [2, 0, 3], []]);
    using none = indices([], { stream });
    expect(read(none)).toEqual(["int64", [0], []]);
  });

  it("indices: sparse grids", () => {
    // np.indices((2, 3), sparse=True) → ([[0], [1]], [[0, 1, 2]])
    expect(readAll(indices([2, 3], { stream, sparse: true }))).toEqual([
      ["int64", [2, 1], [0, 1]],
      ["int64", [1, 3], [0, 1, 2]],
    ]);
    // np.indices((2, 3), dtype=np.int16, sparse=True)
    expect(readAll(indices([2, 3], { stream, sparse: true, dtype: "int16" }))).toEqual([
      ["int16", [2, 1], [0, 1]],
      ["int16", [1, 3], [0, 1, 2]],
    ]);
    // np.indices((), sparse=True) → ()
    expect(indices([], { stream, sparse: true })).toEqual([]);
  });

  it("ix: views of integer sequences, a gather through them", () => {
    using rows = DeviceArray.from(Int32Array.from([1, 3]), { stream });
    using cols = DeviceArray.from(BigInt64Array.from([2n, 5n]), { stream });
    // np.ix_(np.array([1, 3], np.int32), [2, 5]) → int32 [[1], [3]], int64 [[2, 5]]
    const [r, c] = ix(rows, cols);
    expect([read(r!), read(c!)]).toEqual([
      ["int32", [2, 1], [1, 3]],
      ["int64", [1, 2], [2, 5]],
    ]);
    expect(mayShareMemory(r!, rows) && mayShareMemory(c!, cols)).toBe(true);
    using a = DeviceArray.from(BigInt64Array.from(iota(10).map(BigInt)), { stream, shape: [2, 5] });
    using zero = DeviceArray.from(BigInt64Array.from([0n, 1n]), { stream });
    using two = DeviceArray.from(BigInt64Array.from([2n, 4n]), { stream });
    // a = np.arange(10).reshape(2, 5); a[np.ix_([0, 1], [2, 4])] → [[2, 4], [7, 9]]
    const [i, j] = ix(zero, two);
    using rowStarts = mul(i!, 5);
    using flat = add(rowStarts, j!);
    using picked = take(a, flat);
    expect(read(picked)).toEqual(["int64", [2, 2], [2, 4, 7, 9]]);
    using x = DeviceArray.from(BigInt64Array.from(iota(6).map(BigInt)), { stream });
    // np.ix_(np.arange(6)[::2]) → ([0, 2, 4],)
    const [v] = ix(x.slice([null, null, 2]));
    expect(read(v!)).toEqual(["int64", [3], [0, 2, 4]]);
    using f = DeviceArray.from(Float32Array.from([0.5, 1.5]), { stream });
    using k = DeviceArray.from(BigInt64Array.from([1n, 2n, 3n]), { stream });
    // np.ix_(np.array([0.5, 1.5], np.float32), [1, 2, 3]) → float32 [[0.5], [1.5]], int64 [[1, 2, 3]]
    const [ff, kk] = ix(f, k);
    expect([read(ff!), read(kk!)]).toEqual([
      ["float32", [2, 1], [0.5, 1.5]],
      ["int64", [1, 3], [1, 2, 3]],
    ]);
  });

  it("ix: a bool sequence is a mask, replaced by its true positions", () => {
    using mask = DeviceArray.from(Uint8Array.from([1, 0, 1]), { stream, dtype: "bool" });
    using cols = DeviceArray.from(Int16Array.from([0, 1, 2]), { stream });
    // np.ix_([True, False, True], np.array([0, 1, 2], np.int16)) → int64 [[0], [2]], int16 [[0, 1, 2]]
    expect(readAll(ix(mask, cols))).toEqual([
      ["int64", [2, 1], [0, 2]],
      ["int16", [1, 3], [0, 1, 2]],
    ]);
    using none = DeviceArray.from(Uint8Array.from([0, 0]), { stream, dtype: "bool" });
    using one = DeviceArray.from(BigInt64Array.from([1n]), { stream });
    // np.ix_([False, False], [1]) → int64 (0, 1) [], int64 [[1]]
    expect(readAll(ix(none, one, { stream }))).toEqual([
      ["int64", [0, 1], []],
      ["int64", [1, 1], [1]],
    ]);
  });
});
