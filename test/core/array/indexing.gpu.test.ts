/**
 * Indexing on a real GPU, against the same indexing on the CPU: take (flattened, along each axis of a 3-d array,
 * index arrays of several integer dtypes and shapes, negative indices, wrap and clip, a given `out`), put (numbers,
 * arrays, cycling values, a scalar, a strided target), takeAlongAxis, and the masks (nonzero, argwhere, extract,
 * compress, putMask). Out-of-range index arrays: nothing is written outside the array, and the IndexError comes at
 * the next read (naming the operation, the index and the extent), once. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, IndexError, type Stream } from "../../../src/index.ts";
import { argwhere, compress, extract, nonzero, put, putMask, take, takeAlongAxis } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, nums, iota } from "../../support/gpu-arrays.ts";


/** take on the CPU: row-major `data` of `shape`, flat `idx` of `idxShape`, along `axis`. */
function hostTake(data: readonly number[], shape: readonly number[], idx: readonly number[], axis: number): number[] {
  const pre = shape.slice(0, axis).reduce((a, b) => a * b, 1);
  const post = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const n = shape[axis]!;
  const out: number[] = [];
  for (let p = 0; p < pre; p++) for (const k of idx) for (let q = 0; q < post; q++) out.push(data[(p * n + (k < 0 ? k + n : k)) * post + q]!);
  return out;
}

describe.skipIf(!gpu.available)(`indexing on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("take of the flattened array and along every axis of a 3-d array", () => {
    const shape = [3, 4, 5];
    const data = iota(60).map((i) => i * 10);
    using x = DeviceArray.from(Float32Array.from(data), { stream, shape });
    using t0 = take(x, [59, 0, -1, 7]);
    expect(nums(t0.toTypedArraySync())).toEqual([590, 0, 590, 70]);
    for (const [axis, idx] of [
      [0, [2, 0, -1]],
      [1, [3, 3, 1, -4, 0]],
      [2, [4, 0]],
    ] as const) {
      for (const dtype of ["int32", "int64", "uint8", "int16"] as const) {
        const host = idx.map((k) => (k < 0 ? k + shape[axis]! : k));
        const arrays = { int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, int16: Int16Array };
        const typed = dtype === "int64" ? BigInt64Array.from(idx, (k) => BigInt(k)) : (arrays[dtype] as Int32ArrayConstructor).from(dtype === "uint8" ? host : idx);
        using i = DeviceArray.from(typed, { stream, dtype });
        using t = take(x, i, { axis });
        expect(t.shape).toEqual(shape.map((n, d) => (d === axis ? idx.length : n)));
        expect(nums(t.toTypedArraySync()), `axis ${axis} ${dtype}`).toEqual(hostTake(data, shape, idx, axis));
      }
    }
    // A 2-d index array along axis 1, and a transposed source.
    using i2 = DeviceArray.from(Int32Array.from([0, 1, 2, 3]), { stream, shape: [2, 2] });
    using t2 = x.take(i2, { axis: 1 });
    expect(t2.shape).toEqual([3, 2, 2, 5]);
    expect(nums(t2.toTypedArraySync())).toEqual(hostTake(data, shape, [0, 1, 2, 3], 1));
    const tt = x.transpose(); // [5, 4, 3]
    using t3 = take(tt, [1], { axis: 0 });
    expect(nums(t3.toTypedArraySync())).toEqual([1, 21, 41, 6, 26, 46, 11, 31, 51, 16, 36, 56].map((v) => v * 10));
  });

  it("wrap and clip, and a given out", () => {
    using x = DeviceArray.from(Int32Array.from([10, 11, 12, 13, 14]), { stream });
    using i = DeviceArray.from(Int32Array.from([5, -1, 12, -7, 2]), { stream });
    using w = take(x, i, { mode: "wrap" });
    expect(nums(w.toTypedArraySync())).toEqual([10, 14, 12, 13, 12]);
    using c = take(x, i, { mode: "clip" });
    expect(nums(c.toTypedArraySync())).toEqual([14, 10, 14, 10, 12]);
    using out = DeviceArray.zeros([3], "int32", { stream });
    expect(take(x, [4, 0, 2], { out })).toBe(out);
    expect(nums(out.toTypedArraySync())).toEqual([14, 10, 12]);
  });

  it("an out-of-range index array raises IndexError at the next read, once, and reads nothing outside", () => {
    using x = DeviceArray.from(Int32Array.from([10, 11, 12, 13, 14]), { stream });
    using i = DeviceArray.from(BigInt64Array.from([1n, 7n, 2n]), { stream });
    using t = take(x, i);
    expect(() => t.toTypedArraySync()).toThrow(IndexError);
    // Reported once: the next read succeeds, and the bad index's element is 0.
    expect(nums(t.toTypedArraySync())).toEqual([11, 0, 12]);
    using t2 = take(x, i, { axis: 0 });
    let error: unknown;
    try {
      await_(t2);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(IndexError);
    expect(String((error as Error).message)).toContain("take: index 7 is out of range for an axis of extent 5");
  });

  it("put: numbers, index arrays, cycling values, a scalar, a strided target; out-of-range writes nothing", async () => {
    using x = DeviceArray.zeros([10], "float32", { stream });
    put(x, [0, 3, -1], 7);
    expect(nums(x.toTypedArraySync())).toEqual([7, 0, 0, 7, 0, 0, 0, 0, 0, 7]);
    using v = DeviceArray.from(Int32Array.from([1, 2]), { stream });
    put(x, [1, 2, 4, 5], v);
    expect(nums(x.toTypedArraySync())).toEqual([7, 1, 2, 7, 1, 2, 0, 0, 0, 7]);
    using big = DeviceArray.zeros([4, 6], "int32", { stream });
    const view = big.slice([1, 3], [null, null, 2]); // [2, 3], strides [6, 2]
    put(view, [0, 4, 5], 9);
    const expected = new Array<number>(24).fill(0);
    expected[6] = 9; // view[0, 0] = big[1, 0]
    expected[12 + 2] = 9; // view[1, 1] = big[2, 2]
    expected[12 + 4] = 9; // view[1, 2] = big[2, 4]
    expect(nums(big.toTypedArraySync())).toEqual(expected);
    using bad = DeviceArray.from(Int32Array.from([0, 6, 1]), { stream });
    put(view, bad, 5);
    await expect(big.toTypedArray()).rejects.toThrow(IndexError);
    const after = [...expected];
    after[6] = 5;
    after[8] = 5;
    expect(nums(big.toTypedArraySync())).toEqual(after);
  });

  it("takeAlongAxis", () => {
    using x = DeviceArray.from(Float32Array.from([30, 10, 20, 5, 6, 4]), { stream, shape: [2, 3] });
    using order = DeviceArray.from(BigInt64Array.from([1n, 2n, 0n, 2n, 0n, 1n]), { stream, shape: [2, 3] });
    using s = takeAlongAxis(x, order, { axis: 1 });
    expect(nums(s.toTypedArraySync())).toEqual([10, 20, 30, 4, 5, 6]);
    using first = DeviceArray.from(Int32Array.from([1, 0, 1]), { stream, shape: [1, 3] });
    using f = takeAlongAxis(x, first, { axis: 0 });
    expect(f.shape).toEqual([1, 3]);
    expect(nums(f.toTypedArraySync())).toEqual([5, 10, 4]);
  });

  it("nonzero, argwhere, extract, compress, putMask", () => {
    const data = [0, 3, 0, -1, 5, 0, 0, 2, 0, 0, 0, 7];
    using x = DeviceArray.from(Float32Array.from(data), { stream, shape: [3, 4] });
    const [r, c] = nonzero(x);
    expect(nums(r!.toTypedArraySync())).toEqual([0, 0, 1, 1, 2]);
    expect(nums(c!.toTypedArraySync())).toEqual([1, 3, 0, 3, 3]);
    r!.close();
    c!.close();
    using aw = argwhere(x);
    expect(aw.shape).toEqual([5, 2]);
    expect(nums(aw.toTypedArraySync())).toEqual([0, 1, 0, 3, 1, 0, 1, 3, 2, 3]);
    using e = extract(x, x);
    expect(nums(e.toTypedArraySync())).toEqual([3, -1, 5, 2, 7]);
    using et = extract(x.T, x.T);
    expect(nums(et.toTypedArraySync())).toEqual([5, 3, -1, 2, 7]);
    using cond = DeviceArray.from(Uint8Array.from([1, 0, 1]), { stream, dtype: "bool" });
    using cp = compress(cond, x, { axis: 0 });
    expect(nums(cp.toTypedArraySync())).toEqual([...data.slice(0, 4), ...data.slice(8)]);
    using cp1 = compress(cond, x, { axis: 1 });
    expect(cp1.shape).toEqual([3, 2]);
    expect(nums(cp1.toTypedArraySync())).toEqual([0, 0, 5, 0, 0, 0]);
    using none = DeviceArray.zeros([5], "int32", { stream });
    const [empty] = nonzero(none);
    expect(empty!.shape).toEqual([0]);
    empty!.close();
    // A large mask crossing many scan tiles.
    const n = 300_001;
    const bits = Array.from({ length: n }, (_, i) => ((i * 2654435761) >>> 0) % 3 === 0);
    using m = DeviceArray.from(Uint8Array.from(bits, (b) => (b ? 1 : 0)), { stream, dtype: "bool" });
    const [where] = nonzero(m);
    const want = bits.flatMap((b, i) => (b ? [i] : []));
    expect(where!.shape).toEqual([want.length]);
    expect(nums(where!.toTypedArraySync())).toEqual(want);
    where!.close();
    using y = DeviceArray.from(Float32Array.from(data), { stream, shape: [3, 4] });
    using neg = DeviceArray.from(Uint8Array.from(data, (v) => (v < 0 ? 1 : 0)), { stream, dtype: "bool", shape: [3, 4] });
    putMask(y, neg, 100);
    expect(nums(y.toTypedArraySync())).toEqual(data.map((v) => (v < 0 ? 100 : v)));
    using vals = DeviceArray.from(Int32Array.from([-1, -2, -3]), { stream });
    putMask(y, x, vals);
    expect(nums(y.toTypedArraySync())).toEqual(data.map((v, i) => (v !== 0 ? [-1, -2, -3][i % 3]! : v)));
  });
});

/** A synchronised read that throws what the after-read checks report. */
function await_(a: DeviceArray): void {
  a.toTypedArraySync();
}
