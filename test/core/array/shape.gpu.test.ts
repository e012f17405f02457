/**
 * Shape operations on a real GPU, read back against the same operations on the CPU: reshape that must copy, flatten
 * and ravel of views, broadcast views read back, flip (negative strides), swapaxes, moveaxis, split views,
 * concatenate along each axis (one dtype, promoted dtypes through the conversion kernel, flattened inputs, a given
 * `out`), stack, hstack and vstack, columnStack and dstack, repeat and tile, and fliplr, flipud and rot90 read
 * back against NumPy's results. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, ShapeMismatchError, decodeHalf, encodeHalf, type Stream } from "../../../src/index.ts";
import {
  broadcastTo,
  columnStack,
  concatenate,
  diagonal,
  dstack,
  flatten,
  flip,
  fliplr,
  flipud,
  hstack,
  moveaxis,
  ravel,
  repeat,
  reshape,
  rot90,
  split,
  stack,
  swapaxes,
  tile,
  trace,
  vstack,
  unstack,
  matrixTranspose,
} from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, nums, iota } from "../../support/gpu-arrays.ts";


/** Row-major elements of `data` (of `shape`) permuted by `perm` (a transpose on the CPU). */
function hostTranspose(data: readonly number[], shape: readonly number[], perm: readonly number[]): number[] {
  const outShape = perm.map((p) => shape[p]!);
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const n = data.length;
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    let r = i;
    let src = 0;
    for (let d = outShape.length - 1; d >= 0; d--) {
      const c = r % outShape[d]!;
      r = Math.floor(r / outShape[d]!);
      src += c * strides[perm[d]!]!;
    }
    out.push(data[src]!);
  }
  return out;
}

describe.skipIf(!gpu.available)(`shape operations on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("diagonal reads (and writes) the diagonals in place; trace sums them as NumPy does", () => {
    using x = DeviceArray.from(Int32Array.from(iota(24)), { stream, shape: [2, 3, 4] });
    // Each matrix's diagonals: [0, 5, 10] and [12, 17, 22]; above the main one [1, 6, 11] and [13, 18, 23].
    expect(nums(diagonal(x, { axis1: 1, axis2: 2 }).toTypedArraySync())).toEqual([0, 5, 10, 12, 17, 22]);
    expect(nums(x.diagonal({ axis1: 1, axis2: 2, offset: 1 }).toTypedArraySync())).toEqual([1, 6, 11, 13, 18, 23]);
    // Across axes 0 and 2: element [i, j, i] for each j (the other axis first), [[0, 13], [4, 17], [8, 21]].
    expect(nums(diagonal(x, { axis1: 0, axis2: 2 }).toTypedArraySync())).toEqual([0, 13, 4, 17, 8, 21]);
    using t = trace(x, { axis1: 1, axis2: 2 });
    expect([t.shape, t.dtype.name]).toEqual([[2], "int64"]);
    expect(nums(t.toTypedArraySync())).toEqual([15, 51]);
    using m = DeviceArray.from(Float64Array.from(iota(12)), { stream, shape: [3, 4] });
    using tm = m.trace({ offset: -1 });
    expect([tm.shape, nums(tm.toTypedArraySync())]).toEqual([[], [4 + 9]]);
    // The view writes through: the main diagonal set to -1.
    diagonal(m).fill(-1);
    expect(nums(m.toTypedArraySync())).toEqual([-1, 1, 2, 3, 4, -1, 6, 7, 8, 9, -1, 11]);
  });

  it("reshape copies where the strides do not allow a view; flatten and ravel of a transposed view", () => {
    using x = DeviceArray.from(Float32Array.from(iota(24)), { stream, shape: [2, 3, 4] });
    const t = x.transpose(); // [4, 3, 2]
    using r = reshape(t, [6, 4]);
    expect(r.shape).toEqual([6, 4]);
    expect(r.base).toBeUndefined();
    expect(nums(r.toTypedArraySync())).toEqual(hostTranspose(iota(24), [2, 3, 4], [2, 1, 0]));
    using f = flatten(t);
    expect(nums(f.toTypedArraySync())).toEqual(hostTranspose(iota(24), [2, 3, 4], [2, 1, 0]));
    using rv = ravel(t);
    expect(nums(rv.toTypedArraySync())).toEqual(hostTranspose(iota(24), [2, 3, 4], [2, 1, 0]));
    expect(ravel(x).base).toBe(x);
    using fm = t.flatten();
    expect(fm.shape).toEqual([24]);
  });

  it("broadcast views, flips, swapaxes and moveaxis read back as on the CPU", () => {
    using row = DeviceArray.from(Int32Array.from([1, 2, 3]), { stream });
    const b = broadcastTo(row, [4, 3]);
    expect(nums(b.toTypedArraySync())).toEqual([1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]);
    using x = DeviceArray.from(Int32Array.from(iota(12)), { stream, shape: [3, 4] });
    expect(nums(flip(x).toTypedArraySync())).toEqual(iota(12).reverse());
    expect(nums(flip(x, { axis: 1 }).toTypedArraySync())).toEqual([3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8]);
    expect(nums(flip(x, { axis: 0 }).toTypedArraySync())).toEqual([8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3]);
    expect(nums(swapaxes(x, 0, 1).toTypedArraySync())).toEqual(hostTranspose(iota(12), [3, 4], [1, 0]));
    using y = DeviceArray.from(Int32Array.from(iota(24)), { stream, shape: [2, 3, 4] });
    expect(nums(moveaxis(y, 0, -1).toTypedArraySync())).toEqual(hostTranspose(iota(24), [2, 3, 4], [1, 2, 0]));
  });

  it("split gives views over the parts", () => {
    using x = DeviceArray.from(Int32Array.from(iota(24)), { stream, shape: [4, 6] });
    const [a, b, c] = split(x, [1, 4], { axis: 1 });
    expect(nums(a!.toTypedArraySync())).toEqual([0, 6, 12, 18]);
    expect(nums(b!.toTypedArraySync())).toEqual([1, 2, 3, 7, 8, 9, 13, 14, 15, 19, 20, 21]);
    expect(c!.shape).toEqual([4, 2]);
    const halves = split(x, 2);
    expect(nums(halves[1]!.toTypedArraySync())).toEqual(iota(24).slice(12));
  });

  it("unstack gives each slice along an axis; matrixTranspose each matrix of a stack (views), as NumPy's", () => {
    using x = DeviceArray.from(Int32Array.from(iota(6)), { stream, shape: [2, 3] });
    // np.unstack(np.arange(6).reshape(2, 3), axis=1) → ([0, 3], [1, 4], [2, 5])
    expect(unstack(x, { axis: 1 }).map((v) => nums(v.toTypedArraySync()))).toEqual([[0, 3], [1, 4], [2, 5]]);
    expect(unstack(x).map((v) => nums(v.toTypedArraySync()))).toEqual([[0, 1, 2], [3, 4, 5]]);
    // Views of the flipped array: np.unstack(np.flip(x, 1), axis=1) → ([2, 5], [1, 4], [0, 3])
    expect(unstack(flip(x, { axis: 1 }), { axis: 1 }).map((v) => nums(v.toTypedArraySync()))).toEqual([[2, 5], [1, 4], [0, 3]]);
    using st = DeviceArray.from(Int32Array.from(iota(12)), { stream, shape: [2, 2, 3] });
    // np.matrix_transpose(np.arange(12).reshape(2, 2, 3)) → [[[0, 3], [1, 4], [2, 5]], [[6, 9], [7, 10], [8, 11]]]
    using t = flatten(matrixTranspose(st), { stream });
    expect(nums(t.toTypedArraySync())).toEqual([0, 3, 1, 4, 2, 5, 6, 9, 7, 10, 8, 11]);
  });

  it("concatenate along each axis, with one dtype and with promotion", () => {
    using a = DeviceArray.from(Float32Array.from(iota(6)), { stream, shape: [2, 3] });
    using b = DeviceArray.from(Int32Array.from([10, 11, 12, 13, 14, 15]), { stream, shape: [2, 3] });
    using c0 = concatenate([a, a], { axis: 0 });
    expect(c0.dtype.name).toBe("float32");
    expect(nums(c0.toTypedArraySync())).toEqual([...iota(6), ...iota(6)]);
    using c1 = concatenate([a, b], { axis: 1 });
    expect(c1.dtype.name).toBe("float64");
    expect(c1.shape).toEqual([2, 6]);
    expect(nums(c1.toTypedArraySync())).toEqual([0, 1, 2, 10, 11, 12, 3, 4, 5, 13, 14, 15]);
    using c2 = concatenate([a.T, b.T], { axis: -1 });
    expect(nums(c2.toTypedArraySync())).toEqual([0, 3, 10, 13, 1, 4, 11, 14, 2, 5, 12, 15]);
    using flat = concatenate([a.T, b], { axis: null });
    expect(nums(flat.toTypedArraySync())).toEqual([0, 3, 1, 4, 2, 5, 10, 11, 12, 13, 14, 15]);
    using h = DeviceArray.from(Uint16Array.from([1.5, -2, 3].map(encodeHalf)), { stream, dtype: "float16" });
    using i8 = DeviceArray.from(Int8Array.from([-7, 8]), { stream });
    using ch = concatenate([h, i8]);
    expect(ch.dtype.name).toBe("float16");
    expect(Array.from(ch.toTypedArraySync() as Uint16Array, decodeHalf)).toEqual([1.5, -2, 3, -7, 8]);
    using out = DeviceArray.zeros([4, 3], "int64", { stream });
    expect(concatenate([a, b], { out })).toBe(out);
    expect(nums(out.toTypedArraySync())).toEqual([0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15]);
    expect(() => concatenate([a, DeviceArray.zeros([3, 2], "float32", { stream })], { axis: 0 })).toThrow(ShapeMismatchError);
  });

  it("repeat and tile", () => {
    using x = DeviceArray.from(Int32Array.from([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    using r = repeat(x, 2);
    expect(nums(r.toTypedArraySync())).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
    using r0 = repeat(x, 2, { axis: 0 });
    expect(r0.shape).toEqual([4, 3]);
    expect(nums(r0.toTypedArraySync())).toEqual([1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6]);
    using r1 = repeat(x.T, 3, { axis: -1 });
    expect(r1.shape).toEqual([3, 6]);
    expect(nums(r1.toTypedArraySync())).toEqual([1, 1, 1, 4, 4, 4, 2, 2, 2, 5, 5, 5, 3, 3, 3, 6, 6, 6]);
    using t = tile(x, 2);
    expect(t.shape).toEqual([2, 6]);
    expect(nums(t.toTypedArraySync())).toEqual([1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6]);
    using t2 = tile(x, [2, 1, 2]);
    expect(t2.shape).toEqual([2, 2, 6]);
    expect(nums(t2.toTypedArraySync())).toEqual([1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6, 1, 2, 3, 1, 2, 3, 4, 5, 6, 4, 5, 6]);
    using e = repeat(x, 0);
    expect(e.shape).toEqual([0]);
  });

  it("stack, hstack and vstack", () => {
    using a = DeviceArray.from(Int32Array.from([1, 2, 3]), { stream });
    using b = DeviceArray.from(Int32Array.from([4, 5, 6]), { stream });
    using s0 = stack([a, b]);
    expect(s0.shape).toEqual([2, 3]);
    expect(nums(s0.toTypedArraySync())).toEqual([1, 2, 3, 4, 5, 6]);
    using s1 = stack([a, b], { axis: 1 });
    expect(s1.shape).toEqual([3, 2]);
    expect(nums(s1.toTypedArraySync())).toEqual([1, 4, 2, 5, 3, 6]);
    using h = hstack([a, b]);
    expect(nums(h.toTypedArraySync())).toEqual([1, 2, 3, 4, 5, 6]);
    using v = vstack([a, b]);
    expect(v.shape).toEqual([2, 3]);
    using m = DeviceArray.from(Int32Array.from(iota(6)), { stream, shape: [3, 2] });
    using h2 = hstack([m, m]);
    expect(nums(h2.toTypedArraySync())).toEqual([0, 1, 0, 1, 2, 3, 2, 3, 4, 5, 4, 5]);
  });
  it("fliplr, flipud and rot90 read back as NumPy's (views: nothing copied until read)", () => {
    using a = DeviceArray.from(Int32Array.from(iota(6)), { stream, shape: [2, 3] });
    expect(nums(fliplr(a).toTypedArraySync())).toEqual([2, 1, 0, 5, 4, 3]);
    expect(nums(flipud(a).toTypedArraySync())).toEqual([3, 4, 5, 0, 1, 2]);
    using v = DeviceArray.from(Int32Array.from(iota(4)), { stream });
    expect(nums(flipud(v).toTypedArraySync())).toEqual([3, 2, 1, 0]);
    const turns: [number, number[], number[]][] = [
      [1, [3, 2], [2, 5, 1, 4, 0, 3]],
      [2, [2, 3], [5, 4, 3, 2, 1, 0]],
      [3, [3, 2], [3, 0, 4, 1, 5, 2]],
      [-1, [3, 2], [3, 0, 4, 1, 5, 2]],
      [4, [2, 3], [0, 1, 2, 3, 4, 5]],
    ];
    for (const [k, shape, values] of turns) {
      const r = rot90(a, k);
      expect([k, r.shape, nums(r.toTypedArraySync())]).toEqual([k, shape, values]);
    }
    using b = DeviceArray.from(Int32Array.from(iota(24)), { stream, shape: [2, 3, 4] });
    expect(nums(rot90(b, 1, [1, 2]).toTypedArraySync())).toEqual([3, 7, 11, 2, 6, 10, 1, 5, 9, 0, 4, 8, 15, 19, 23, 14, 18, 22, 13, 17, 21, 12, 16, 20]);
    const c = rot90(b, 3, [2, 0]);
    expect(c.shape).toEqual([4, 3, 2]);
    expect(nums(c.toTypedArraySync())).toEqual([3, 15, 7, 19, 11, 23, 2, 14, 6, 18, 10, 22, 1, 13, 5, 17, 9, 21, 0, 12, 4, 16, 8, 20]);
    // A view: writing through it writes the array.
    rot90(a).slice(0, 0).fill(42, { stream });
    expect(nums(a.toTypedArraySync())).toEqual([0, 1, 42, 3, 4, 5]);
  });

  it("columnStack and dstack, with promotion and an out, as NumPy's", () => {
    using x = DeviceArray.from(Int32Array.from([1, 2, 3]), { stream });
    using y = DeviceArray.from(Float32Array.from([4.5, 5.5, 6.5]), { stream });
    using m = DeviceArray.from(Int32Array.from(iota(6)), { stream, shape: [3, 2] });
    using c = columnStack([x, y, m]);
    expect([c.dtype.name, c.shape]).toEqual(["float64", [3, 4]]);
    expect(nums(c.toTypedArraySync())).toEqual([1, 4.5, 0, 1, 2, 5.5, 2, 3, 3, 6.5, 4, 5]);
    using out = DeviceArray.zeros([3, 2], "float32", { stream });
    expect(columnStack([x, y], { out })).toBe(out);
    expect(nums(out.toTypedArraySync())).toEqual([1, 4.5, 2, 5.5, 3, 6.5]);
    using z = DeviceArray.from(Int32Array.from([10, 20, 30]), { stream });
    using d1 = dstack([x, z]);
    expect([d1.shape, nums(d1.toTypedArraySync())]).toEqual([[1, 3, 2], [1, 10, 2, 20, 3, 30]]);
    using a = DeviceArray.from(Int32Array.from(iota(6)), { stream, shape: [2, 3] });
    using t = DeviceArray.from(Int32Array.from(iota(12)), { stream, shape: [2, 3, 2] });
    using d2 = dstack([t, a]);
    expect([d2.dtype.name, d2.shape]).toEqual(["int32", [2, 3, 3]]);
    expect(nums(d2.toTypedArraySync())).toEqual([0, 1, 0, 2, 3, 1, 4, 5, 2, 6, 7, 3, 8, 9, 4, 10, 11, 5]);
    using s0 = DeviceArray.from(Int32Array.from([1]), { stream, shape: [] });
    using s1 = DeviceArray.from(Int32Array.from([2]), { stream, shape: [] });
    using c0 = columnStack([s0, s1]);
    expect([c0.shape, nums(c0.toTypedArraySync())]).toEqual([[1, 2], [1, 2]]);
  });
});
