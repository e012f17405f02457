/**
 * Index helpers and divmod on a real GPU, read back against NumPy 2.4's results (each NumPy call in a comment):
 * triuIndices and trilIndices (k, m, empty) and their `From` forms, diagIndices and diagIndicesFrom, unravelIndex and ravelMultiIndex (arrays of several shapes and dtypes,
 * numbers, views, wrap and clip), flatnonzero (of a view, empty), diagflat, fillDiagonal (scalars, wrap, 3-d, a
 * cycling array value, a transposed view), select (first true wins, dtypes, broadcasting) and divmod. Skips
 * without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, IndexError, type Stream } from "../../../src/index.ts";
import { diagIndices, diagIndicesFrom, diagflat, divmod, fillDiagonal, flatnonzero, ravelMultiIndex, select, trilIndices, trilIndicesFrom, triuIndices, triuIndicesFrom, unravelIndex } from "../../../src/array.ts";
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

describe.skipIf(!gpu.available)(`index helpers on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("triuIndices and trilIndices", () => {
    // np.triu_indices(3, k=1, m=4) → ([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])
    expect(readAll(triuIndices(3, { k: 1, m: 4, stream }))).toEqual([
      ["int64", [6], [0, 0, 0, 1, 1, 2]],
      ["int64", [6], [1, 2, 3, 2, 3, 3]],
    ]);
    // np.triu_indices(3) → ([0, 0, 0, 1, 1, 2], [0, 1, 2, 1, 2, 2])
    expect(readAll(triuIndices(3, { stream }))).toEqual([
      ["int64", [6], [0, 0, 0, 1, 1, 2]],
      ["int64", [6], [0, 1, 2, 1, 2, 2]],
    ]);
    // np.tril_indices(3, k=-1) → ([1, 2, 2], [0, 0, 1])
    expect(readAll(trilIndices(3, { k: -1, stream }))).toEqual([
      ["int64", [3], [1, 2, 2]],
      ["int64", [3], [0, 0, 1]],
    ]);
    // np.tril_indices(2, k=5, m=3) → ([0, 0, 0, 1, 1, 1], [0, 1, 2, 0, 1, 2])
    expect(readAll(trilIndices(2, { k: 5, m: 3, stream }))).toEqual([
      ["int64", [6], [0, 0, 0, 1, 1, 1]],
      ["int64", [6], [0, 1, 2, 0, 1, 2]],
    ]);
    // np.triu_indices(0) → two empty int64 arrays
    expect(readAll(triuIndices(0, { stream }))).toEqual([
      ["int64", [0], []],
      ["int64", [0], []],
    ]);
  });

  it("triuIndicesFrom, trilIndicesFrom, diagIndices and diagIndicesFrom", () => {
    using m = DeviceArray.zeros([3, 4], "float32", { stream });
    // np.triu_indices_from(np.zeros((3, 4)), k=1) → ([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3])
    expect(readAll(triuIndicesFrom(m, { k: 1 }))).toEqual([
      ["int64", [6], [0, 0, 0, 1, 1, 2]],
      ["int64", [6], [1, 2, 3, 2, 3, 3]],
    ]);
    // np.tril_indices_from(np.zeros((3, 4)), k=-1) → ([1, 2, 2], [0, 0, 1])
    expect(readAll(trilIndicesFrom(m, { k: -1 }))).toEqual([
      ["int64", [3], [1, 2, 2]],
      ["int64", [3], [0, 0, 1]],
    ]);
    // np.diag_indices(3, ndim=3) → three [0, 1, 2]
    expect(readAll(diagIndices(3, { ndim: 3, stream }))).toEqual([
      ["int64", [3], [0, 1, 2]],
      ["int64", [3], [0, 1, 2]],
      ["int64", [3], [0, 1, 2]],
    ]);
    using cube = DeviceArray.zeros([2, 2, 2], "int8", { stream });
    // np.diag_indices_from(np.zeros((2, 2, 2))) → three [0, 1]
    expect(readAll(diagIndicesFrom(cube))).toEqual([
      ["int64", [2], [0, 1]],
      ["int64", [2], [0, 1]],
      ["int64", [2], [0, 1]],
    ]);
  });

  it("unravelIndex of arrays (any integer dtype, any shape, views) and of numbers", () => {
    using flat = DeviceArray.from(Int32Array.from([22, 41, 37]), { stream });
    // np.unravel_index(np.array([22, 41, 37], np.int32), (7, 6)) → ([3, 6, 6], [4, 5, 1]), int64
    expect(readAll(unravelIndex(flat, [7, 6]))).toEqual([
      ["int64", [3], [3, 6, 6]],
      ["int64", [3], [4, 5, 1]],
    ]);
    using sq = DeviceArray.from(BigInt64Array.from([0n, 23n, 7n, 12n]), { stream, shape: [2, 2] });
    // np.unravel_index([[0, 23], [7, 12]], (2, 3, 4)) → [[0, 1], [0, 1]], [[0, 2], [1, 0]], [[0, 3], [3, 0]]
    expect(readAll(unravelIndex(sq, [2, 3, 4]))).toEqual([
      ["int64", [2, 2], [0, 1, 0, 1]],
      ["int64", [2, 2], [0, 2, 1, 0]],
      ["int64", [2, 2], [0, 3, 3, 0]],
    ]);
    using grid = DeviceArray.from(Uint16Array.from(iota(12)), { stream, shape: [3, 4] });
    // np.unravel_index(np.arange(12).reshape(3, 4).T[1], (3, 4)) → ([0, 1, 2], [1, 1, 1]) (a strided view)
    expect(readAll(unravelIndex(grid.T.slice(1), [3, 4]))).toEqual([
      ["int64", [3], [0, 1, 2]],
      ["int64", [3], [1, 1, 1]],
    ]);
    // One axis: np.unravel_index([22, 41, 37], (50,)) → ([22, 41, 37],)
    expect(readAll(unravelIndex(flat, [50]))).toEqual([["int64", [3], [22, 41, 37]]]);
    // np.unravel_index([1, 5], (2, 3)) → ([0, 1], [1, 2]); np.unravel_index(4, (2, 3)) → (1, 1), 0-d
    expect(readAll(unravelIndex([1, 5], [2, 3], { stream }))).toEqual([
      ["int64", [2], [0, 1]],
      ["int64", [2], [1, 2]],
    ]);
    expect(readAll(unravelIndex(4, [2, 3], { stream }))).toEqual([
      ["int64", [], [1]],
      ["int64", [], [1]],
    ]);
  });

  it("ravelMultiIndex: arrays broadcast, numbers, wrap and clip", () => {
    using r = DeviceArray.from(Int32Array.from([3, 6, 6]), { stream });
    using c = DeviceArray.from(BigInt64Array.from([4n, 5n, 1n]), { stream });
    // np.ravel_multi_index((int32 [3, 6, 6], [4, 5, 1]), (7, 6)) → int64 [22, 41, 37]
    using a = ravelMultiIndex([r, c], [7, 6]);
    expect(read(a)).toEqual(["int64", [3], [22, 41, 37]]);
    using r2 = DeviceArray.from(BigInt64Array.from([3n, 7n, -1n]), { stream });
    using c2 = DeviceArray.from(BigInt64Array.from([4n, 8n, 1n]), { stream });
    // np.ravel_multi_index(([3, 7, -1], [4, 8, 1]), (7, 6), mode="wrap") → [22, 2, 37]
    using w = ravelMultiIndex([r2, c2], [7, 6], { mode: "wrap" });
    expect(read(w)).toEqual(["int64", [3], [22, 2, 37]]);
    // mode="clip" → [22, 41, 1]
    using k = ravelMultiIndex([r2, c2], [7, 6], { mode: "clip" });
    expect(read(k)).toEqual(["int64", [3], [22, 41, 1]]);
    using col = DeviceArray.from(Int8Array.from([0, 1]), { stream, shape: [2, 1] });
    using row = DeviceArray.from(Uint8Array.from([0, 1, 2]), { stream });
    // np.ravel_multi_index(([[0], [1]], [0, 1, 2], 3), (2, 3, 4)) → (2, 3) [3, 7, 11, 15, 19, 23]
    using b = ravelMultiIndex([col, row, 3], [2, 3, 4]);
    expect(read(b)).toEqual(["int64", [2, 3], [3, 7, 11, 15, 19, 23]]);
    // np.ravel_multi_index((1, 2), (2, 3)) → 5
    using s = ravelMultiIndex([1, 2], [2, 3], { stream });
    expect(read(s)).toEqual(["int64", [], [5]]);
    // A view: np.ravel_multi_index(([3, 6, 6][::-1], [4, 5, 1]), (7, 6)) → [40, 41, 19]
    using v = ravelMultiIndex([r.slice([null, null, -1]), c], [7, 6]);
    expect(read(v)).toEqual(["int64", [3], [40, 41, 19]]);
  });

  it("positions out of range in arrays are an IndexError at the stream's next read, once", () => {
    // np.unravel_index([5, 42, 1], (7, 6)) → ValueError: index 42 is out of bounds for array with size 42
    using bad = DeviceArray.from(BigInt64Array.from([5n, 42n, 1n]), { stream });
    const coords = unravelIndex(bad, [7, 6]);
    try {
      expect(() => coords[0]!.toTypedArraySync()).toThrow(/^unravelIndex: flat position 42 is out of range for a shape of 42 elements/);
      // Reported once: the next read succeeds (the bad position's coordinates are whatever floorDiv and mod give).
      expect(nums(coords[1]!.toTypedArraySync())).toEqual([5, 0, 1]);
    } finally {
      for (const c of coords) c.close();
    }
    // Negative positions count as out of range (np.unravel_index(-1, (2, 3)) → ValueError), in a strided view too.
    using neg = DeviceArray.from(Int16Array.from([4, 0, -1, 0]), { stream });
    const fromView = unravelIndex(neg.slice([null, null, 2]), [2, 3]);
    try {
      expect(() => fromView[0]!.toTypedArraySync()).toThrow(IndexError);
    } finally {
      for (const c of fromView) c.close();
    }
    // np.ravel_multi_index(([3, 7], [4, 0]), (7, 6)) → ValueError: invalid entry in coordinates array
    using r = DeviceArray.from(Int32Array.from([3, 7]), { stream });
    using c = DeviceArray.from(Uint8Array.from([4, 0]), { stream });
    using p = ravelMultiIndex([r, c], [7, 6]);
    expect(() => p.toTypedArraySync()).toThrow(/^ravelMultiIndex: coordinate 7 is out of range for an axis of extent 7/);
    using minus = DeviceArray.from(BigInt64Array.from([1n, -1n]), { stream });
    using q = ravelMultiIndex([r.slice([0, 1]), minus], [7, 6]);
    expect(() => q.toTypedArraySync()).toThrow(/coordinate -1 is out of range for an axis of extent 6/);
    // wrap and clip check nothing: every index is brought into its axis.
    using w = ravelMultiIndex([r, minus], [7, 6], { mode: "wrap" });
    expect(nums(w.toTypedArraySync())).toEqual([19, 5]);
    // Entries that broadcast to an empty result are not checked: np.ravel_multi_index(([5], []), (2, 3)) → []
    using five = DeviceArray.from(BigInt64Array.from([5n]), { stream });
    using nothing = DeviceArray.empty([0], "int64", { stream });
    using empty = ravelMultiIndex([five, nothing], [2, 3]);
    expect(read(empty)).toEqual(["int64", [0], []]);
    // An axis of extent 0 has no index in range: at once, in every mode.
    expect(() => ravelMultiIndex([r], [0], { mode: "wrap" })).toThrow(/axis 0 of the shape \[0\] has extent 0/);
  });

  it("flatnonzero and diagflat", () => {
    using m = DeviceArray.from(Int32Array.from([0, 3, 0, 5]), { stream, shape: [2, 2] });
    // np.flatnonzero([[0, 3], [0, 5]]) → [1, 3]; of the transpose → [2, 3]
    using f = flatnonzero(m);
    expect(read(f)).toEqual(["int64", [2], [1, 3]]);
    using ft = flatnonzero(m.T);
    expect(read(ft)).toEqual(["int64", [2], [2, 3]]);
    using z = DeviceArray.empty([0], "float32", { stream });
    using fz = flatnonzero(z);
    expect(read(fz)).toEqual(["int64", [0], []]);
    using h = DeviceArray.from(Int16Array.from([1, 2, 3, 4]), { stream, shape: [2, 2] });
    // np.diagflat(int16 [[1, 2], [3, 4]], k=1) → int16 (5, 5), 1, 2, 3, 4 above the diagonal
    using d = diagflat(h, { k: 1 });
    expect(read(d)).toEqual(["int16", [5, 5], [0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0]]);
    using g = DeviceArray.from(Float32Array.from([1, 2, 3, 4]), { stream, shape: [2, 2] });
    // np.diagflat(float32 [[1, 2], [3, 4]].T, k=-1) → float32 (5, 5), 1, 3, 2, 4 below the diagonal
    using dt = diagflat(g.T, { k: -1 });
    expect(read(dt)).toEqual(["float32", [5, 5], [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 4, 0]]);
  });

  it("fillDiagonal: scalars, wrap, three axes, an array value, a transposed view", () => {
    using a = DeviceArray.zeros([3, 3], "float32", { stream });
    // np.fill_diagonal(zeros((3, 3), float32), 5)
    fillDiagonal(a, 5);
    expect(read(a)).toEqual(["float32", [3, 3], [5, 0, 0, 0, 5, 0, 0, 0, 5]]);
    using t = DeviceArray.zeros([5, 3], "int32", { stream });
    // np.fill_diagonal(zeros((5, 3), int32), 1, wrap=True)
    fillDiagonal(t, 1, { wrap: true });
    expect(read(t)).toEqual(["int32", [5, 3], [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0]]);
    using u = DeviceArray.zeros([5, 3], "int32", { stream });
    // np.fill_diagonal(zeros((5, 3), int32), 1)
    fillDiagonal(u, 1);
    expect(read(u)).toEqual(["int32", [5, 3], [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]]);
    using l = DeviceArray.zeros([7, 3], "int32", { stream });
    // np.fill_diagonal(zeros((7, 3), int32), 2, wrap=True)
    fillDiagonal(l, 2, { wrap: true });
    expect(read(l)).toEqual(["int32", [7, 3], [2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2]]);
    using c = DeviceArray.zeros([2, 2, 2], "int32", { stream });
    // np.fill_diagonal(zeros((2, 2, 2), int32), 4)
    fillDiagonal(c, 4);
    expect(read(c)).toEqual(["int32", [2, 2, 2], [4, 0, 0, 0, 0, 0, 0, 4]]);
    using e = DeviceArray.zeros([4, 4], "float64", { stream });
    using v = DeviceArray.from(BigInt64Array.from([1n, 2n]), { stream });
    // np.fill_diagonal(zeros((4, 4)), np.array([1, 2])): the values repeat
    fillDiagonal(e, v);
    expect(read(e)).toEqual(["float64", [4, 4], [1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2]]);
    using s = DeviceArray.zeros([2, 3], "int32", { stream });
    using many = DeviceArray.from(Int32Array.from([7, 8, 9, 10]), { stream });
    // np.fill_diagonal(zeros((2, 3), int32), np.array([7, 8, 9, 10])): the first two
    fillDiagonal(s, many);
    expect(read(s)).toEqual(["int32", [2, 3], [7, 0, 0, 0, 8, 0]]);
    using w = DeviceArray.zeros([3, 4], "int32", { stream });
    // np.fill_diagonal(zeros((3, 4), int32).T, 2.9): the transposed view written, 2.9 truncated to 2
    fillDiagonal(w.T, 2.9);
    expect(read(w)).toEqual(["int32", [3, 4], [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0]]);
    // np.fill_diagonal(w, np.array([], np.int32)) writes nothing
    using none = DeviceArray.empty([0], "int32", { stream });
    fillDiagonal(w, none);
    expect(read(w)).toEqual(["int32", [3, 4], [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0]]);
  });

  it("select: the first true condition wins; dtypes as NumPy's", () => {
    using x = DeviceArray.from(BigInt64Array.from(iota(10).map(BigInt)), { stream });
    using lt3 = x.lt(3);
    using gt5 = x.gt(5);
    using sq = x.mul(x);
    // np.select([x < 3, x > 5], [x, x**2]) → int64 [0, 1, 2, 0, 0, 0, 36, 49, 64, 81]
    using a = select([lt3, gt5], [x, sq]);
    expect(read(a)).toEqual(["int64", [10], [0, 1, 2, 0, 0, 0, 36, 49, 64, 81]]);
    using lt6 = x.lt(6);
    using neg = x.neg();
    // np.select([x < 3, x < 6], [x, -x]) → [0, 1, 2, -3, -4, -5, 0, 0, 0, 0]
    using b = select([lt3, lt6], [x, neg]);
    expect(read(b)).toEqual(["int64", [10], [0, 1, 2, -3, -4, -5, 0, 0, 0, 0]]);
    using lt5 = x.lt(5);
    using ones = DeviceArray.full([10], 1, "float32", { stream });
    // np.select([x < 3, x < 5], [float32 ones, 2], default=x) → float64 [1, 1, 1, 2, 2, 5, 6, 7, 8, 9]
    using c = select([lt3, lt5], [ones, 2], { default: x });
    expect(read(c)).toEqual(["float64", [10], [1, 1, 1, 2, 2, 5, 6, 7, 8, 9]]);
    using gt4 = x.gt(4);
    // np.select([x > 4], [0], default=1.5) → float64 [1.5 x5, 0 x5]
    using d = select([gt4], [0], { default: 1.5 });
    expect(read(d)).toEqual(["float64", [10], [1.5, 1.5, 1.5, 1.5, 1.5, 0, 0, 0, 0, 0]]);
    using cond = DeviceArray.from(Uint8Array.from([1, 0]), { stream, shape: [2, 1], dtype: "bool" });
    using i8 = DeviceArray.from(Int8Array.from([1, 2, 3]), { stream });
    // np.select([[[True], [False]]], [int8 [1, 2, 3]], default=-1) → int8 (2, 3) [1, 2, 3, -1, -1, -1]
    using e = select([cond], [i8], { default: -1 });
    expect(read(e)).toEqual(["int8", [2, 3], [1, 2, 3, -1, -1, -1]]);
    // The last condition, choice and default broadcast to less than the result:
    // np.select([m > 3, v > 0], [m, 5]) with m = arange(6).reshape(2, 3), v = [-1, 0, 2] → [[0, 0, 5], [0, 4, 5]]
    using m = DeviceArray.from(BigInt64Array.from(iota(6).map(BigInt)), { stream, shape: [2, 3] });
    using v = DeviceArray.from(BigInt64Array.from([-1n, 0n, 2n]), { stream });
    using mgt3 = m.gt(3);
    using vgt0 = v.gt(0);
    using f = select([mgt3, vgt0], [m, 5]);
    expect(read(f)).toEqual(["int64", [2, 3], [0, 0, 5, 0, 4, 5]]);
    // The default in the result's dtype, not the last choice's: np.select([x < 3, x > 7], [x (float64), float32 x],
    // default=0.1) → float64, 0.1 exactly; np.select([x < 3, x > 7], [x (int64), int8 x], default=1000) → 1000
    using xf = x.astype("float64");
    using x32 = x.astype("float32");
    using gt7 = x.gt(7);
    using g = select([lt3, gt7], [xf, x32], { default: 0.1 });
    expect(read(g)).toEqual(["float64", [10], [0, 1, 2, 0.1, 0.1, 0.1, 0.1, 0.1, 8, 9]]);
    using x8 = x.astype("int8");
    using h = select([lt3, gt7], [x, x8], { default: 1000 });
    expect(read(h)).toEqual(["int64", [10], [0, 1, 2, 1000, 1000, 1000, 1000, 1000, 8, 9]]);
  });

  it("divmod: floor division and the remainder with the divisor's sign", () => {
    using a = DeviceArray.from(BigInt64Array.from([7n, -7n, 7n, -7n, 0n]), { stream });
    using b = DeviceArray.from(BigInt64Array.from([3n, 3n, -3n, -3n, 3n]), { stream });
    // np.divmod([7, -7, 7, -7, 0], [3, 3, -3, -3, 3]) → ([2, -3, -3, 2, 0], [1, 2, -2, -1, 0])
    const [q, r] = divmod(a, b);
    using q0 = q;
    using r0 = r;
    expect(read(q0)).toEqual(["int64", [5], [2, -3, -3, 2, 0]]);
    expect(read(r0)).toEqual(["int64", [5], [1, 2, -2, -1, 0]]);
    using f = DeviceArray.from(Float32Array.from([7.5, -7.5, 1]), { stream });
    // np.divmod(float32 [7.5, -7.5, 1.0], 2) → float32 [3, -4, 0], float32 [1.5, 0.5, 1]
    const [fq, fr] = divmod(f, 2);
    using fq0 = fq;
    using fr0 = fr;
    expect(read(fq0)).toEqual(["float32", [3], [3, -4, 0]]);
    expect(read(fr0)).toEqual(["float32", [3], [1.5, 0.5, 1]]);
    using h = DeviceArray.from(Int16Array.from([5, -5]), { stream });
    // np.divmod(int16 [5, -5], 2) → int16 [2, -3], [1, 1]; of a reversed view → [-3, 2], [1, 1]
    const [hq, hr] = divmod(h.slice([null, null, -1]), 2);
    using hq0 = hq;
    using hr0 = hr;
    expect(read(hq0)).toEqual(["int16", [2], [-3, 2]]);
    expect(read(hr0)).toEqual(["int16", [2], [1, 1]]);
  });
});
