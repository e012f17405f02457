/**
 * Splitting and editing on a real GPU, read back against NumPy 2.4's results (each NumPy call in a comment): hsplit,
 * vsplit and dsplit views, append (flattened, along an axis, promoted dtypes, a scalar, a transposed view), insert
 * (one position, several, NumPy's turn of values for a number, a value converted to the array's dtype, a view, an
 * empty list) and delete (numbers, lists, slices, views, empty results). Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import * as ca from "../../../src/array.ts";
import { append, deleteItems, dsplit, hsplit, insert, vsplit } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, nums, iota, read } from "../../support/gpu-arrays.ts";


describe.skipIf(!gpu.available)(`splitting and editing on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("hsplit, vsplit and dsplit read back as NumPy's", () => {
    using x = DeviceArray.from(Int32Array.from(iota(24)), { stream, shape: [2, 3, 4] });
    // np.hsplit(x, [1]) → (2, 1, 4) [0, 1, 2, 3, 12, 13, 14, 15]; (2, 2, 4) [4..11, 16..23]
    const [h0, h1] = hsplit(x, [1]);
    expect(read(h0!)).toEqual(["int32", [2, 1, 4], [0, 1, 2, 3, 12, 13, 14, 15]]);
    expect(read(h1!)).toEqual(["int32", [2, 2, 4], [4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23]]);
    // np.vsplit(x, 2)
    const [v0, v1] = vsplit(x, 2);
    expect(read(v0!)).toEqual(["int32", [1, 3, 4], iota(12)]);
    expect(read(v1!)).toEqual(["int32", [1, 3, 4], iota(24).slice(12)]);
    // np.dsplit(x, [1, 3]) → [0, 4, 8, 12, 16, 20], [1, 2, 5, 6, ...], [3, 7, 11, 15, 19, 23]
    const [d0, d1, d2] = dsplit(x, [1, 3]);
    expect(read(d0!)).toEqual(["int32", [2, 3, 1], [0, 4, 8, 12, 16, 20]]);
    expect(read(d1!)).toEqual(["int32", [2, 3, 2], [1, 2, 5, 6, 9, 10, 13, 14, 17, 18, 21, 22]]);
    expect(read(d2!)).toEqual(["int32", [2, 3, 1], [3, 7, 11, 15, 19, 23]]);
    // np.hsplit(np.arange(6), 3) → [0, 1], [2, 3], [4, 5]
    using r = DeviceArray.from(BigInt64Array.from([0n, 1n, 2n, 3n, 4n, 5n]), { stream });
    expect(hsplit(r, 3).map(read)).toEqual([
      ["int64", [2], [0, 1]],
      ["int64", [2], [2, 3]],
      ["int64", [2], [4, 5]],
    ]);
  });

  it("append: flattened, along an axis, promoted, a scalar, a transposed view", () => {
    using a8 = DeviceArray.from(Int8Array.from([1, 2, 3]), { stream });
    // np.append(int8 [1, 2, 3], 7) → int64 [1, 2, 3, 7]
    using s = append(a8, 7);
    expect(read(s)).toEqual(["int64", [4], [1, 2, 3, 7]]);
    using f = DeviceArray.from(Float32Array.from([1, 2, 3, 4]), { stream, shape: [2, 2] });
    using row = DeviceArray.from(Int32Array.from([5, 6]), { stream, shape: [1, 2] });
    // np.append(float32 [[1, 2], [3, 4]], int32 [[5, 6]], axis=0) → float64 (3, 2)
    using j = append(f, row, { axis: 0 });
    expect(read(j)).toEqual(["float64", [3, 2], [1, 2, 3, 4, 5, 6]]);
    // np.append(float32 [[1, 2], [3, 4]], int32 [[5, 6]].T, axis=-1) → float64 (2, 3) [1, 2, 5, 3, 4, 6]
    using k = append(f, row.T, { axis: -1 });
    expect(read(k)).toEqual(["float64", [2, 3], [1, 2, 5, 3, 4, 6]]);
    using m = DeviceArray.from(Int32Array.from(iota(6)), { stream, shape: [2, 3] });
    using v = DeviceArray.from(Float32Array.from([9.5]), { stream });
    // np.append(int32 arange(6).reshape(2, 3).T, float32 [9.5]) → float64 [0, 3, 1, 4, 2, 5, 9.5]
    using t = append(m.T, v);
    expect(read(t)).toEqual(["float64", [7], [0, 3, 1, 4, 2, 5, 9.5]]);
    // np.append(int8 [1, 2, 3], int8 []) → int8 [1, 2, 3]
    using none = DeviceArray.empty([0], "int8", { stream });
    using same = append(a8, none);
    expect(read(same)).toEqual(["int8", [3], [1, 2, 3]]);
  });

  it("insert: several positions, one position (a number turns values), converted values, views, an empty list", () => {
    using x = DeviceArray.from(BigInt64Array.from([0n, 1n, 2n, 3n, 4n]), { stream });
    using vals = DeviceArray.from(BigInt64Array.from([10n, 11n, 12n, 13n]), { stream });
    // np.insert(np.arange(5), [1, 3, 1, -1], [10, 11, 12, 13]) → [0, 10, 12, 1, 2, 11, 3, 13, 4]
    using a = insert(x, [1, 3, 1, -1], vals);
    expect(read(a)).toEqual(["int64", [9], [0, 10, 12, 1, 2, 11, 3, 13, 4]]);
    using m = DeviceArray.from(Int32Array.from(iota(6)), { stream, shape: [2, 3] });
    using col = DeviceArray.from(Int32Array.from([10, 20]), { stream });
    // np.insert(m, 1, [10, 20], axis=1) → int32 (2, 4) [0, 10, 1, 2, 3, 20, 4, 5]
    using b = insert(m, 1, col, { axis: 1 });
    expect(read(b)).toEqual(["int32", [2, 4], [0, 10, 1, 2, 3, 20, 4, 5]]);
    // np.insert(m, [1], [10, 20], axis=1) → int32 (2, 5) [0, 10, 20, 1, 2, 3, 10, 20, 4, 5]
    using c = insert(m, [1], col, { axis: 1 });
    expect(read(c)).toEqual(["int32", [2, 5], [0, 10, 20, 1, 2, 3, 10, 20, 4, 5]]);
    // np.insert(m, 3, 2.7) → int32 (7,) [0, 1, 2, 2, 3, 4, 5]
    using d = insert(m, 3, 2.7);
    expect(read(d)).toEqual(["int32", [7], [0, 1, 2, 2, 3, 4, 5]]);
    // np.insert(m.T, -1, np.array([7, 8]), axis=0) → int32 (4, 2) [0, 3, 1, 4, 7, 8, 2, 5]
    using row = DeviceArray.from(BigInt64Array.from([7n, 8n]), { stream });
    using e = insert(m.T, -1, row, { axis: 0 });
    expect(read(e)).toEqual(["int32", [4, 2], [0, 3, 1, 4, 7, 8, 2, 5]]);
    // np.insert(m, [0, 2], np.array([[7], [8]]), axis=1) → int32 (2, 5) [7, 0, 1, 7, 2, 8, 3, 4, 8, 5]
    using cols = DeviceArray.from(BigInt64Array.from([7n, 8n]), { stream, shape: [2, 1] });
    using g = insert(m, [0, 2], cols, { axis: 1 });
    expect(read(g)).toEqual(["int32", [2, 5], [7, 0, 1, 7, 2, 8, 3, 4, 8, 5]]);
    // np.insert(m, [], 5) → int32 (6,) [0, 1, 2, 3, 4, 5]
    using h = insert(m, [], 5);
    expect(read(h)).toEqual(["int32", [6], iota(6)]);
    // np.insert(m.T, 6, 9) (flattened view) → [0, 3, 1, 4, 2, 5, 9]
    using t = insert(m.T, 6, 9);
    expect(read(t)).toEqual(["int32", [7], [0, 3, 1, 4, 2, 5, 9]]);
  });

  it("insert at many positions: values land where the device finds, along an axis of a view and flattened", () => {
    const positions = [19, 0, 7, 7, 20, 3, -1, 12, 5, 0];
    // np.insert(np.arange(20, dtype=np.int32), positions, np.arange(100, 110)) → int32 (30,)
    const numpy = [101, 109, 0, 1, 2, 105, 3, 4, 108, 5, 6, 102, 103, 7, 8, 9, 10, 11, 107, 12, 13, 14, 15, 16, 17, 18, 100, 106, 19, 104];
    using x = DeviceArray.from(Int32Array.from(iota(20)), { stream });
    using v = DeviceArray.from(BigInt64Array.from(iota(10), (k) => BigInt(100 + k)), { stream });
    using a = insert(x, positions, v);
    expect(read(a)).toEqual(["int32", [30], numpy]);
    // m: (20, 2) float64 of 0..39; np.insert(m.T, positions, 7.5, axis=1) → (2, 30): m.T's entry or 7.5
    using m = DeviceArray.from(Float64Array.from(iota(40)), { stream, shape: [20, 2] });
    using b = insert(m.T, positions, 7.5, { axis: 1 });
    expect(read(b)).toEqual(["float64", [2, 30], [0, 1].flatMap((r) => numpy.map((s) => (s >= 100 ? 7.5 : 2 * s + r)))]);
    // Values with a leading axis of 1: np.insert(np.arange(4), [1, 2], np.array([[100, 101]])) → [0, 100, 1, 101, 2, 3]
    using four = DeviceArray.from(Int32Array.from(iota(4)), { stream });
    using row = DeviceArray.from(Int32Array.from([100, 101]), { stream, shape: [1, 2] });
    using r = insert(four, [1, 2], row);
    expect(read(r)).toEqual(["int32", [6], [0, 100, 1, 101, 2, 3]]);
    // Flattened (m.T is not contiguous; -1 is now before position 39): np.insert(m.T, positions, -1)
    using c = insert(m.T, positions, -1);
    expect(read(c)).toEqual([
      "float64",
      [50],
      [-1, -1, 0, 2, 4, -1, 6, 8, -1, 10, 12, -1, -1, 14, 16, 18, 20, 22, -1, 24, 26, 28, 30, 32, 34, 36, -1, 38, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33, 35, 37, -1, 39],
    ]);
  });

  it("delete: numbers, lists, slices, views, empty results; ca.delete is deleteItems", () => {
    using x = DeviceArray.from(BigInt64Array.from([0n, 1n, 2n, 3n, 4n, 5n, 6n]), { stream });
    // np.delete(np.arange(7), slice(-1, None, -2)) → [1, 3, 5]
    using a = deleteItems(x, { start: -1, step: -2 });
    expect(read(a)).toEqual(["int64", [3], [1, 3, 5]]);
    using k = DeviceArray.from(Float32Array.from(iota(12)), { stream, shape: [3, 4] });
    // np.delete(k, [0, -1], axis=1) → float32 (3, 2) [1, 2, 5, 6, 9, 10]
    using b = ca.delete(k, [0, -1], { axis: 1 });
    expect(read(b)).toEqual(["float32", [3, 2], [1, 2, 5, 6, 9, 10]]);
    // np.delete(k, 1) → (11,) [0, 2, 3, ..., 11]
    using c = deleteItems(k, 1);
    expect(read(c)).toEqual(["float32", [11], [0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]]);
    // np.delete(k.T, 1, axis=0) → (3, 3) [0, 4, 8, 2, 6, 10, 3, 7, 11]
    using d = deleteItems(k.T, 1, { axis: 0 });
    expect(read(d)).toEqual(["float32", [3, 3], [0, 4, 8, 2, 6, 10, 3, 7, 11]]);
    // np.delete(k, [1, 1, -3], axis=0) → (1, 4) [8, 9, 10, 11]
    using e = deleteItems(k, [1, 1, -3], { axis: 0 });
    expect(read(e)).toEqual(["float32", [1, 4], [8, 9, 10, 11]]);
    // np.delete(k, [], axis=0) → a copy, (3, 4)
    using f = deleteItems(k, [], { axis: 0 });
    expect(read(f)).toEqual(["float32", [3, 4], iota(12)]);
    expect(f.base).toBeUndefined();
    // np.delete(np.zeros((0, 3)), 1, axis=1) → (0, 2)
    using z = DeviceArray.empty([0, 3], "float64", { stream });
    using g = deleteItems(z, 1, { axis: 1 });
    expect([g.dtype.name, g.shape]).toEqual(["float64", [0, 2]]);
    // np.delete(k, slice(None), axis=0) → (0, 4)
    using h = deleteItems(k, {}, { axis: 0 });
    expect([h.dtype.name, h.shape]).toEqual(["float32", [0, 4]]);
  });

  it("delete of many runs: a slice with a step, scattered positions, along an axis of a view and flattened", () => {
    // np.delete(np.arange(100, dtype=np.int32), slice(3, 90, 4)) → the 78 entries not 3, 7, ..., 87
    using x = DeviceArray.from(Int32Array.from(iota(100)), { stream });
    using a = deleteItems(x, { start: 3, stop: 90, step: 4 });
    expect(read(a)).toEqual(["int32", [78], iota(100).filter((k) => !(k >= 3 && k < 90 && (k - 3) % 4 === 0))]);
    // The same positions in reverse: np.delete(x, slice(87, 2, -4))
    using b = deleteItems(x, { start: 87, stop: 2, step: -4 });
    expect(read(b)).toEqual(read(a));
    // m: (40, 5) float32 of 0..199; np.delete(m.T, gone, axis=1) for 20 scattered, unsorted, repeated positions
    const gone = [39, 0, ...Array.from({ length: 17 }, (_, k) => 2 + 2 * k), 4, -1];
    const drop = new Set(gone.map((v) => (v < 0 ? v + 40 : v)));
    const keptRows = iota(40).filter((k) => !drop.has(k));
    using m = DeviceArray.from(Float32Array.from(iota(200)), { stream, shape: [40, 5] });
    using c = deleteItems(m.T, gone, { axis: 1 });
    expect(read(c)).toEqual(["float32", [5, keptRows.length], iota(5).flatMap((r) => keptRows.map((k) => 5 * k + r))]);
    // Flattened (m.T is not contiguous; -1 is now position 199): np.delete(m.T, gone) → m.T.ravel() without those
    using d = deleteItems(m.T, gone);
    const dropFlat = new Set(gone.map((v) => (v < 0 ? v + 200 : v)));
    const flatT = iota(5).flatMap((r) => iota(40).map((k) => 5 * k + r));
    expect(read(d)).toEqual(["float32", [200 - dropFlat.size], flatT.filter((_, p) => !dropFlat.has(p))]);
  });
});
