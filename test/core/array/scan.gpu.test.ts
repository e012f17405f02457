/**
 * Scans on a real GPU, against running sums and products computed on the CPU: the single-pass tile kernel over 2^20+
 * elements (many tiles, a partial last tile) in int32, float32, float16, int8 → int64 and bool; inclusive and
 * exclusive; every axis of a 3-d array (warp-per-line and thread-per-line kernels), a few long lines (one tile launch
 * each), strided and transposed inputs, a given `out`, `dtype`, cumprod, complex64. Values are small integers where
 * sums must be exact. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { AxisError, DeviceArray, decodeHalf, encodeHalf, type Stream } from "../../../src/index.ts";
import { cumprod, cumsum, cumulativeProd, cumulativeSum } from "../../../src/array.ts";
import { scanContiguous } from "../../../src/core/array/ops/scan.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, nums } from "../../support/gpu-arrays.ts";


/** Deterministic small integers in [lo, hi]. */
function ints(n: number, lo: number, hi: number, seed = 1): number[] {
  let s = seed >>> 0;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    out[i] = lo + (s % (hi - lo + 1));
  }
  return out;
}

function running(values: readonly number[], exclusive = false, op: (a: number, b: number) => number = (a, b) => a + b, init = 0): number[] {
  const out: number[] = [];
  let acc = init;
  for (const v of values) {
    if (exclusive) out.push(acc);
    acc = op(acc, v);
    if (!exclusive) out.push(acc);
  }
  return out;
}

/** The running sum of row-major `data` of `shape` along `axis`, row-major. */
function hostScanAxis(data: readonly number[], shape: readonly number[], axis: number): number[] {
  const out = [...data];
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const total = data.length;
  for (let i = 0; i < total; i++) {
    const c = Math.floor(i / strides[axis]!) % shape[axis]!;
    if (c > 0) out[i] = out[i]! + out[i - strides[axis]!]!;
  }
  return out;
}

/** The first index where two lists differ, for short failure messages on long arrays. */
function firstDifference(a: readonly number[], b: readonly number[]): string {
  if (a.length !== b.length) return `lengths ${a.length} and ${b.length}`;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return `at ${i}: ${a[i]} vs ${b[i]}`;
  return "none";
}

describe.skipIf(!gpu.available)(`scans on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("cumsum of 2^20 + 12345 int32 into int64 (many tiles, a partial last one)", () => {
    const n = (1 << 20) + 12345;
    const v = ints(n, -1000, 1000, 7);
    using x = DeviceArray.from(Int32Array.from(v), { stream });
    using c = cumsum(x);
    expect(c.dtype.name).toBe("int64");
    expect(c.shape).toEqual([n]);
    expect(firstDifference(nums(c.toTypedArraySync()), running(v))).toBe("none");
  });

  it("cumsum of float32 (exact: small integers), of a 2^22 + 3 array and of an offset view (no 16-byte alignment)", () => {
    for (const n of [1, 31, 4096, 4097, (1 << 22) + 3]) {
      const v = ints(n, -2, 3, n);
      using x = DeviceArray.from(Float32Array.from(v), { stream });
      using c = x.cumsum();
      expect(c.dtype.name).toBe("float32");
      expect(firstDifference(nums(c.toTypedArraySync()), running(v)), `n=${n}`).toBe("none");
    }
    const v = ints(100_001, -2, 3, 3);
    using x = DeviceArray.from(Float32Array.from(v), { stream });
    using c = cumsum(x.subarray(1));
    expect(firstDifference(nums(c.toTypedArraySync()), running(v.slice(1)))).toBe("none");
  });

  it("cumsum of float16 accumulates in float32 and rounds each result to float16", () => {
    // Sums stay below float16's largest finite value (65504); 25 tiles.
    const n = 100_003;
    const v = ints(n, 0, 1, 5);
    using x = DeviceArray.from(Uint16Array.from(v, (t) => encodeHalf(t)), { stream, dtype: "float16" });
    using c = cumsum(x);
    expect(c.dtype.name).toBe("float16");
    const got = Array.from(c.toTypedArraySync() as Uint16Array, (b) => decodeHalf(b));
    const want = running(v).map((s) => decodeHalf(encodeHalf(s)));
    let bad = -1;
    for (let i = 0; i < n; i++) {
      // float16 spacing is at most 2^-10 of the value: the rounding of an exact float32 sum.
      if (Math.abs(got[i]! - want[i]!) > Math.abs(want[i]!) * 2 ** -10) {
        bad = i;
        break;
      }
    }
    expect(bad).toBe(-1);
  });

  it("cumsum of int8 into int64 and of bool into int64", () => {
    const n = (1 << 20) + 7;
    const v = ints(n, -128, 127, 9);
    using x = DeviceArray.from(Int8Array.from(v), { stream });
    using c = cumsum(x);
    expect(c.dtype.name).toBe("int64");
    expect(firstDifference(nums(c.toTypedArraySync()), running(v))).toBe("none");
    const b = ints(300_000, 0, 1, 2);
    using m = DeviceArray.from(Uint8Array.from(b), { stream, dtype: "bool" });
    using cb = cumsum(m);
    expect(cb.dtype.name).toBe("int64");
    expect(firstDifference(nums(cb.toTypedArraySync()), running(b))).toBe("none");
  });

  it("the internal exclusive scan of counts (int32 into int64)", () => {
    const n = 200_003;
    const v = ints(n, 0, 9, 4);
    using x = DeviceArray.from(Int32Array.from(v), { stream });
    using y = DeviceArray.empty([n], "int64", { stream });
    scanContiguous(stream, "sum", x, y, true);
    expect(firstDifference(nums(y.toTypedArraySync()), running(v, true))).toBe("none");
  });

  it("every axis of a 3-d array, contiguous and transposed (warp per line, thread per line)", () => {
    for (const shape of [
      [4, 3, 200],
      [5, 300, 7],
      [70, 2, 3],
    ]) {
      const n = shape.reduce((a, b) => a * b, 1);
      const v = ints(n, -3, 3, n);
      using x = DeviceArray.from(Float64Array.from(v), { stream, shape });
      for (const axis of [0, 1, 2, -1]) {
        using c = cumsum(x, { axis });
        expect(c.shape).toEqual(shape);
        expect(firstDifference(nums(c.toTypedArraySync()), hostScanAxis(v, shape, (axis + 3) % 3)), `shape [${shape}] axis ${axis}`).toBe("none");
      }
      // The transpose: its axis 0 is x's axis 2.
      const t = x.transpose(); // shape reversed
      using ct = cumsum(t, { axis: 0 });
      using back = ct.transpose().copy();
      expect(firstDifference(nums(back.toTypedArraySync()), hostScanAxis(v, shape, 2)), `transposed [${shape}]`).toBe("none");
    }
  });

  it("few long strided lines: each cut into chunks (two passes)", () => {
    for (const shape of [
      [3000, 40],
      [20_000, 3],
    ]) {
      const v = ints(shape[0]! * shape[1]!, -5, 5, shape[0]!);
      using x = DeviceArray.from(Int32Array.from(v), { stream, shape });
      using c = cumsum(x, { axis: 0 });
      expect(c.dtype.name).toBe("int64");
      expect(firstDifference(nums(c.toTypedArraySync()), hostScanAxis(v, shape, 0)), `[${shape}]`).toBe("none");
    }
  });

  it("a few long lines: one tile launch per line", () => {
    const shape = [3, 70_000];
    const v = ints(3 * 70_000, -5, 5, 8);
    using x = DeviceArray.from(Int32Array.from(v), { stream, shape });
    using c = cumsum(x, { axis: 1 });
    expect(firstDifference(nums(c.toTypedArraySync()), hostScanAxis(v, shape, 1))).toBe("none");
  });

  it("a strided view flattened; out and dtype; wrapping int32 accumulation", () => {
    const v = ints(600, -4, 4, 6);
    using x = DeviceArray.from(Int32Array.from(v), { stream, shape: [20, 30] });
    const view = x.slice([null, null, 2], [1, null, 3]); // [10, 10]
    const flat: number[] = [];
    for (let i = 0; i < 20; i += 2) for (let j = 1; j < 30; j += 3) flat.push(v[i * 30 + j]!);
    using c = cumsum(view);
    expect(nums(c.toTypedArraySync())).toEqual(running(flat));
    using out = DeviceArray.zeros([600], "int32", { stream });
    const r = cumsum(x, { out });
    expect(r).toBe(out);
    expect(nums(out.toTypedArraySync())).toEqual(running(v));
    using big = DeviceArray.from(Int32Array.from([2 ** 31 - 1, 1, 1]), { stream });
    using w = cumsum(big, { dtype: "int32" });
    expect(nums(w.toTypedArraySync())).toEqual([2 ** 31 - 1, -(2 ** 31), -(2 ** 31) + 1]);
    using o2 = DeviceArray.zeros([30, 20], "float32", { stream });
    cumsum(x.T, { axis: 1, out: o2 });
    const xt: number[] = [];
    for (let j = 0; j < 30; j++) for (let i = 0; i < 20; i++) xt.push(v[i * 30 + j]!);
    expect(nums(o2.toTypedArraySync())).toEqual(hostScanAxis(xt, [30, 20], 1));
  });

  it("cumulativeSum and cumulativeProd: one axis, the identity first with includeInitial, 0-d as 1-d, out", () => {
    using x = DeviceArray.from(Int32Array.from([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    // np.cumulative_sum(x, axis=1, include_initial=True) → int64 [[0, 1, 3, 6], [0, 4, 9, 15]]
    using s = cumulativeSum(x, { axis: 1, includeInitial: true });
    expect([s.dtype.name, s.shape, nums(s.toTypedArraySync())]).toEqual(["int64", [2, 4], [0, 1, 3, 6, 0, 4, 9, 15]]);
    // np.cumulative_prod(x, axis=0, include_initial=True) → [[1, 1, 1], [1, 2, 3], [4, 10, 18]]
    using p = cumulativeProd(x, { axis: 0, includeInitial: true });
    expect([p.shape, nums(p.toTypedArraySync())]).toEqual([[3, 3], [1, 1, 1, 1, 2, 3, 4, 10, 18]]);
    // np.cumulative_sum(x.T, axis=0, include_initial=True) → [[0, 0], [1, 4], [3, 9], [6, 15]]
    using t = cumulativeSum(x.T, { axis: 0, includeInitial: true });
    expect([t.shape, nums(t.toTypedArraySync())]).toEqual([[4, 2], [0, 0, 1, 4, 3, 9, 6, 15]]);
    // Without includeInitial: cumsum along the axis.
    using r = cumulativeSum(x, { axis: -1 });
    expect(nums(r.toTypedArraySync())).toEqual([1, 3, 6, 4, 9, 15]);
    // np.cumulative_sum(np.float32(3)) → float32 [3.]; np.cumulative_sum(int8 [0, 1, 2, 3], include_initial=True) → int64 [0, 0, 1, 3, 6]
    using z = DeviceArray.from(Float32Array.from([3]), { stream, shape: [] });
    using zs = cumulativeSum(z);
    expect([zs.dtype.name, zs.shape, nums(zs.toTypedArraySync())]).toEqual(["float32", [1], [3]]);
    using b = DeviceArray.from(Int8Array.from([0, 1, 2, 3]), { stream });
    using bs = cumulativeSum(b, { includeInitial: true });
    expect([bs.dtype.name, nums(bs.toTypedArraySync())]).toEqual(["int64", [0, 0, 1, 3, 6]]);
    using out = DeviceArray.full([2, 4], 7, "float64", { stream });
    expect(cumulativeSum(x, { axis: 1, includeInitial: true, out })).toBe(out);
    expect(nums(out.toTypedArraySync())).toEqual([0, 1, 3, 6, 0, 4, 9, 15]);
    using e = DeviceArray.zeros([0, 3], "float32", { stream });
    using es = cumulativeProd(e, { axis: 0, includeInitial: true });
    expect([es.shape, nums(es.toTypedArraySync())]).toEqual([[1, 3], [1, 1, 1]]);
  });

  it("cumprod of int64 and float64, and cumsum of complex64", () => {
    const v = ints(60, -1, 2, 3).map((t) => (t === 0 ? 1 : t));
    using x = DeviceArray.from(BigInt64Array.from(v, (t) => BigInt(t)), { stream, shape: [3, 20] });
    using p = cumprod(x, { axis: 1 });
    expect(nums(p.toTypedArraySync())).toEqual(hostScanAxisWith(v, [3, 20], 1, (a, b) => a * b));
    const f = Float64Array.from({ length: 5000 }, (_, i) => 1 + ((i % 7) - 3) * 1e-4);
    using xf = DeviceArray.from(f, { stream });
    using cf = cumprod(xf);
    const got = nums(cf.toTypedArraySync());
    const want = running(Array.from(f), false, (a, b) => a * b, 1);
    for (let i = 0; i < f.length; i += 499) expect(Math.abs(got[i]! - want[i]!) / want[i]!).toBeLessThan(1e-10);
    const z = Float32Array.from({ length: 2 * 5000 }, (_, i) => (i % 5) - 2);
    using xz = DeviceArray.from(z, { stream, dtype: "complex64" });
    using cz = cumsum(xz);
    const gz = nums(cz.toTypedArraySync());
    const re = running(Array.from({ length: 5000 }, (_, i) => z[2 * i]!));
    const im = running(Array.from({ length: 5000 }, (_, i) => z[2 * i + 1]!));
    expect(gz.filter((_, i) => i % 2 === 0)).toEqual(re);
    expect(gz.filter((_, i) => i % 2 === 1)).toEqual(im);
  });

  it("refuses a bad axis before anything runs", () => {
    using x = DeviceArray.zeros([3, 4], "float32", { stream });
    expect(() => cumsum(x, { axis: 2 })).toThrow(AxisError);
  });
});

function hostScanAxisWith(data: readonly number[], shape: readonly number[], axis: number, op: (a: number, b: number) => number): number[] {
  const out = [...data];
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; i++) {
    const c = Math.floor(i / strides[axis]!) % shape[axis]!;
    if (c > 0) out[i] = op(out[i - strides[axis]!]!, out[i]!);
  }
  return out;
}
