/**
 * Reductions along axes on a real GPU: `sum`, `prod`, `min`, `max`, `mean` over axis 0, 1, -1, [0, 1], with
 * keepdims, over contiguous arrays, transposed views and stepped slices, in float32, float16 and int32 (the packed
 * reads of neighbouring outputs and of neighbouring reduced elements included), argmax, each against the same
 * reduction on the CPU; ReductionKernel with `{ axis }` and a given output; NaN in min/max; an empty axis; the
 * reductions' `out` (written by the kernel, converted into, or over the input itself) and `dtype`; and the typed
 * errors. Values are small integers, so float32 sums are exact. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { AxisError, DeviceArray, ShapeMismatchError, max, mean, min, prod, sum, type Stream } from "../../../src/index.ts";
import { any, nanmax, nansum, ptp, std } from "../../../src/array.ts";
import { ReductionKernel } from "../../../src/kernels.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, nums } from "../../support/gpu-arrays.ts";

/** Reduces row-major host data of `shape` over `axes` (sorted, non-negative) with `f` from `init`; the kept axes' shape. */
function hostReduce(data: ArrayLike<number>, shape: readonly number[], axes: readonly number[], f: (a: number, b: number) => number, init: number): number[] {
  const kept = shape.map((_, d) => d).filter((d) => !axes.includes(d));
  const outShape = kept.map((d) => shape[d]!);
  const nOut = outShape.reduce((a, b) => a * b, 1);
  const out = new Array<number>(nOut).fill(init);
  const total = shape.reduce((a, b) => a * b, 1);
  for (let i = 0; i < total; i++) {
    let r = i;
    const idx: number[] = [];
    for (let k = shape.length - 1; k >= 0; k--) {
      idx[k] = r % shape[k]!;
      r = Math.floor(r / shape[k]!);
    }
    let o = 0;
    for (const d of kept) o = o * shape[d]! + idx[d]!;
    out[o] = f(out[o]!, data[i]!);
  }
  return out;
}

const plus = (a: number, b: number): number => a + b;

describe.skipIf(!gpu.available)(`reductions along axes on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("sum of a float32 [3, 4] over axis 0, 1, -1, [0, 1], none, with keepdims", () => {
    const d = Float32Array.from({ length: 12 }, (_, i) => (i * 5) % 7 - 3);
    using x = DeviceArray.from(d, { stream, shape: [3, 4] });
    for (const [axis, axes, shape] of [
      [0, [0], [4]],
      [1, [1], [3]],
      [-1, [1], [3]],
      [[0, 1], [0, 1], []],
      [undefined, [0, 1], []],
    ] as const) {
      using s = sum(x, { stream, ...(axis !== undefined ? { axis } : {}) });
      expect(s.dtype.name).toBe("float32");
      expect(s.shape, `axis ${String(axis)}`).toEqual(shape);
      expect(nums(s.toTypedArraySync({ stream })), `axis ${String(axis)}`).toEqual(hostReduce(d, [3, 4], axes, plus, 0));
    }
    using k0 = x.sum({ stream, axis: 0, keepdims: true });
    expect(k0.shape).toEqual([1, 4]);
    expect(nums(k0.toTypedArraySync({ stream }))).toEqual(hostReduce(d, [3, 4], [0], plus, 0));
    using k1 = x.sum({ stream, axis: -1, keepdims: true });
    expect(k1.shape).toEqual([3, 1]);
    using kall = x.sum({ stream, keepdims: true });
    expect(kall.shape).toEqual([1, 1]);
    expect(nums(kall.toTypedArraySync({ stream }))).toEqual(hostReduce(d, [3, 4], [0, 1], plus, 0));
  });

  it("int32 sums (into int64), over a contiguous array and its transpose", () => {
    const d = Int32Array.from({ length: 20 }, (_, i) => i * 1_000_003 - 7_000_000);
    using x = DeviceArray.from(d, { stream, shape: [4, 5] });
    const t = x.T; // [5, 4]
    const tHost = nums(t.toTypedArraySync({ stream }));
    for (const axes of [[0], [1], [0, 1]]) {
      using s = x.sum({ stream, axis: axes });
      expect(s.dtype.name).toBe("int64");
      expect(nums(s.toTypedArraySync({ stream })), `x over [${axes}]`).toEqual(hostReduce(d, [4, 5], axes, plus, 0));
      using st = t.sum({ stream, axis: axes });
      expect(nums(st.toTypedArraySync({ stream })), `x.T over [${axes}]`).toEqual(hostReduce(tHost, [5, 4], axes, plus, 0));
    }
  });

  it("min, max, prod and mean along axes of float32 and int32, contiguous and transposed", () => {
    const f = Float32Array.from({ length: 24 }, (_, i) => [1, 2, -1, 0.5, -2, 4][i % 6]! * ((i % 5) - 2 || 1));
    using x = DeviceArray.from(f, { stream, shape: [4, 6] });
    const t = x.T; // [6, 4]
    const tHost = nums(t.toTypedArraySync({ stream }));
    for (const [arr, host, shape] of [
      [x, [...f], [4, 6]],
      [t, tHost, [6, 4]],
    ] as const) {
      for (const axis of [0, 1]) {
        using mx = max(arr, { stream, axis });
        using mn = min(arr, { stream, axis });
        using pr = prod(arr, { stream, axis });
        using me = mean(arr, { stream, axis });
        expect(nums(mx.toTypedArraySync({ stream }))).toEqual(hostReduce(host, shape, [axis], Math.max, -Infinity));
        expect(nums(mn.toTypedArraySync({ stream }))).toEqual(hostReduce(host, shape, [axis], Math.min, Infinity));
        expect(nums(pr.toTypedArraySync({ stream }))).toEqual(hostReduce(host, shape, [axis], (a, b) => a * b, 1));
        const sums = hostReduce(host, shape, [axis], plus, 0);
        const got = nums(me.toTypedArraySync({ stream }));
        expect(me.dtype.name).toBe("float32");
        sums.forEach((s, k) => expect(got[k]).toBeCloseTo(s / shape[axis]!, 5));
      }
    }
    const id = Int32Array.from({ length: 12 }, (_, i) => (i * 7) % 12 - 6);
    using xi = DeviceArray.from(id, { stream, shape: [3, 4] });
    using mxi = xi.max({ stream, axis: 1 });
    expect(mxi.dtype.name).toBe("int32");
    expect(nums(mxi.toTypedArraySync({ stream }))).toEqual(hostReduce(id, [3, 4], [1], Math.max, -Infinity));
    using mni = xi.T.min({ stream, axis: 1, keepdims: true });
    expect(mni.shape).toEqual([4, 1]);
    expect(nums(mni.toTypedArraySync({ stream }))).toEqual(hostReduce(id, [3, 4], [0], Math.min, Infinity));
    using mei = xi.mean({ stream, axis: 0 });
    expect(mei.dtype.name).toBe("float64");
    expect(nums(mei.toTypedArraySync({ stream }))).toEqual(hostReduce(id, [3, 4], [0], plus, 0).map((s) => s / 3));
  });

  it("three axes and a stepped slice: [2, 3, 4] over [0, 2] and axis 1 with keepdims", () => {
    const d = Float32Array.from({ length: 48 }, (_, i) => (i % 9) - 4);
    using big = DeviceArray.from(d, { stream, shape: [2, 3, 8] });
    const x = big.slice(null, null, [1, null, 2]); // [2, 3, 4], last-axis stride 2
    const host = nums(x.toTypedArraySync({ stream }));
    using s02 = x.sum({ stream, axis: [0, 2] });
    expect(s02.shape).toEqual([3]);
    expect(nums(s02.toTypedArraySync({ stream }))).toEqual(hostReduce(host, [2, 3, 4], [0, 2], plus, 0));
    using s1 = x.sum({ stream, axis: 1, keepdims: true });
    expect(s1.shape).toEqual([2, 1, 4]);
    expect(nums(s1.toTypedArraySync({ stream }))).toEqual(hostReduce(host, [2, 3, 4], [1], plus, 0));
    using sAll = x.sum({ stream });
    expect(nums(sAll.toTypedArraySync({ stream }))).toEqual(hostReduce(host, [2, 3, 4], [0, 1, 2], plus, 0));
  });

  it("a larger [300, 500] over each axis (many outputs per block, and a block per output)", () => {
    const rows = 300;
    const cols = 500;
    const d = Int32Array.from({ length: rows * cols }, (_, i) => ((Math.floor(i / cols) * 7 + (i % cols) * 3) % 11) - 5);
    const f = Float32Array.from(d);
    using xi = DeviceArray.from(d, { stream, shape: [rows, cols] });
    using xf = DeviceArray.from(f, { stream, shape: [rows, cols] });
    for (const axis of [0, 1]) {
      const ref = hostReduce(d, [rows, cols], [axis], plus, 0);
      using si = xi.sum({ stream, axis });
      using sf = xf.sum({ stream, axis });
      using sft = xf.T.sum({ stream, axis: 1 - axis });
      expect(nums(si.toTypedArraySync({ stream })), `int32 axis ${axis}`).toEqual(ref);
      expect(nums(sf.toTypedArraySync({ stream })), `float32 axis ${axis}`).toEqual(ref);
      expect(nums(sft.toTypedArraySync({ stream })), `float32 transposed axis ${1 - axis}`).toEqual(ref);
    }
  });

  it("long rows: [3, 3000] over axis 1 (four elements per thread per step), and its transpose over axis 0", () => {
    const d = Int32Array.from({ length: 3 * 3000 }, (_, i) => ((i * 13) % 17) - 8);
    using xi = DeviceArray.from(d, { stream, shape: [3, 3000] });
    using xf = DeviceArray.from(Float32Array.from(d), { stream, shape: [3, 3000] });
    const ref = hostReduce(d, [3, 3000], [1], plus, 0);
    using si = xi.sum({ stream, axis: 1 });
    using sf = xf.sum({ stream, axis: -1 });
    using st = xf.T.sum({ stream, axis: 0 });
    expect(nums(si.toTypedArraySync({ stream }))).toEqual(ref);
    expect(nums(sf.toTypedArraySync({ stream }))).toEqual(ref);
    expect(nums(st.toTypedArraySync({ stream }))).toEqual(ref);
  });

  it("few outputs of long ranges split into chunks (a second launch combines them): [2, 100000] over axis 1, a whole strided view", () => {
    const d = Int32Array.from({ length: 2 * 100_000 }, (_, i) => ((i * 13) % 17) - 8);
    using x = DeviceArray.from(d, { stream, shape: [2, 100_000] });
    using s1 = x.sum({ stream, axis: 1 });
    expect(nums(s1.toTypedArraySync({ stream }))).toEqual(hostReduce(d, [2, 100_000], [1], plus, 0));
    using s0 = x.T.sum({ stream, axis: 0, keepdims: true });
    expect(s0.shape).toEqual([1, 2]);
    expect(nums(s0.toTypedArraySync({ stream }))).toEqual(hostReduce(d, [2, 100_000], [1], plus, 0));
    const w = Int32Array.from({ length: 1000 * 301 }, (_, i) => ((i * 7) % 19) - 9);
    using big = DeviceArray.from(w, { stream, shape: [1000, 301] });
    const view = big.slice(null, [0, 300]); // not contiguous: the axis kernel with a single output
    const host = nums(view.toTypedArraySync({ stream }));
    using all = view.sum({ stream });
    expect(all.shape).toEqual([]);
    expect(nums(all.toTypedArraySync({ stream }))).toEqual(hostReduce(host, [1000, 300], [0, 1], plus, 0));
    using mx = view.max({ stream });
    expect(nums(mx.toTypedArraySync({ stream }))).toEqual([host.reduce((a, b) => Math.max(a, b), -Infinity)]);
  });

  it("packed reads: [4096, 256] over axis 0 in chunks, float16 rows in packs of 8, argmax along each axis", () => {
    const rows = 4096;
    const cols = 256;
    const d = Int32Array.from({ length: rows * cols }, (_, i) => ((i * 7 + Math.floor(i / cols)) % 13) - 6);
    using x = DeviceArray.from(Float32Array.from(d), { stream, shape: [rows, cols] });
    for (const axis of [0, 1]) {
      const ref = hostReduce(d, [rows, cols], [axis], plus, 0);
      using s1 = x.sum({ stream, axis });
      expect(nums(s1.toTypedArraySync({ stream })), `float32 axis ${axis}`).toEqual(ref);
      using h = x.astype("float16");
      using sh = h.sum({ stream, axis });
      using back = sh.astype("float32");
      // Accumulated in float32, rounded once to float16 (11 significant bits).
      const half = nums(back.toTypedArraySync({ stream }));
      expect(half.filter((v, k) => Math.abs(v - ref[k]!) > Math.abs(ref[k]!) * 2 ** -11).length, `float16 axis ${axis}`).toBe(0);
      using mx = x.max({ stream, axis });
      expect(nums(mx.toTypedArraySync({ stream })), `max axis ${axis}`).toEqual(hostReduce(d, [rows, cols], [axis], Math.max, -Infinity));
      // argmax: the first index of the maximum along the axis (ties: the lowest).
      using am = x.argmax({ stream, axis });
      const want: number[] = [];
      const nOut = axis === 0 ? cols : rows;
      const len = axis === 0 ? rows : cols;
      for (let o = 0; o < nOut; o++) {
        let best = 0;
        for (let r = 1; r < len; r++) {
          const at = (k: number): number => d[axis === 0 ? k * cols + o : o * cols + k]!;
          if (at(r) > at(best)) best = r;
        }
        want.push(best);
      }
      expect(nums(am.toTypedArraySync({ stream })), `argmax axis ${axis}`).toEqual(want);
    }
  });

  it("ReductionKernel with { axis } and a given output; NaN wins in max; an empty axis sums to 0", () => {
    const sumsq = new ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "axis_sumsq");
    using x = DeviceArray.from(new Float32Array([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    using out = DeviceArray.zeros([3], "float32", { stream });
    expect(sumsq.launch(stream, x, out, { axis: 0 })).toBe(out);
    expect(nums(out.toTypedArraySync({ stream }))).toEqual([17, 29, 45]);
    using rows = sumsq.launch(stream, x, { axis: 1 }) as DeviceArray;
    expect(nums(rows.toTypedArraySync({ stream }))).toEqual([14, 77]);
    using wrong = DeviceArray.zeros([2], "float32", { stream });
    expect(() => sumsq.launch(stream, x, wrong, { axis: 0 })).toThrow(ShapeMismatchError);
    expect(() => sumsq.launch(stream, x, { axis: 2 })).toThrow(AxisError);
    using n = DeviceArray.from(new Float32Array([1, NaN, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    using m = n.max({ stream, axis: 0 });
    const mh = nums(m.toTypedArraySync({ stream }));
    expect([mh[0], Number.isNaN(mh[1]), mh[2]]).toEqual([4, true, 6]);
    using empty = DeviceArray.zeros([0, 3], "float32", { stream });
    using e = empty.sum({ stream, axis: 0 });
    expect(nums(e.toTypedArraySync({ stream }))).toEqual([0, 0, 0]);
    expect(() => empty.max({ stream, axis: 0 })).toThrow(ShapeMismatchError);
  });

  it("write into an out: by the kernel in its dtype, converted into another, or over their own input", () => {
    using m = DeviceArray.from(Float32Array.from([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    using cols = DeviceArray.zeros([3], "float32", { stream });
    expect(sum(m, { axis: 0, out: cols })).toBe(cols);
    expect(nums(cols.toTypedArraySync({ stream }))).toEqual([5, 7, 9]);
    using rows64 = DeviceArray.zeros([2, 1], "float64", { stream });
    expect(m.max({ axis: 1, keepdims: true, out: rows64 })).toBe(rows64);
    expect(nums(rows64.toTypedArraySync({ stream }))).toEqual([3, 6]);
    using whole = DeviceArray.zeros([], "float32", { stream });
    using mi = DeviceArray.from(Int32Array.from([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    expect(mean(mi, { out: whole })).toBe(whole);
    expect(whole.toTypedArraySync({ stream })[0]).toBe(3.5);
    using flags = DeviceArray.zeros([3], "int32", { stream });
    expect(any(mi.sub(1, { stream }), { axis: 0, out: flags })).toBe(flags);
    expect(nums(flags.toTypedArraySync({ stream }))).toEqual([1, 1, 1]);
    using sd = DeviceArray.zeros([2], "float32", { stream });
    expect(std(m, { axis: 1, out: sd })).toBe(sd);
    const sdh = nums(sd.toTypedArraySync({ stream }));
    expect(sdh[0]).toBeCloseTo(Math.sqrt(2 / 3), 6);
    expect(sdh[1]).toBeCloseTo(Math.sqrt(2 / 3), 6);
    using n = DeviceArray.from(Float32Array.from([1, NaN, 3, NaN, NaN, 6]), { stream, shape: [2, 3] });
    using ns = DeviceArray.zeros([2], "float32", { stream });
    expect(nansum(n, { axis: 1, out: ns })).toBe(ns);
    expect(nums(ns.toTypedArraySync({ stream }))).toEqual([4, 6]);
    using nm = DeviceArray.zeros([2], "float64", { stream });
    expect(nanmax(n, { axis: 1, out: nm })).toBe(nm);
    expect(nums(nm.toTypedArraySync({ stream }))).toEqual([3, 6]);
    using span = DeviceArray.zeros([3], "float32", { stream });
    expect(ptp(m, { axis: 0, out: span })).toBe(span);
    expect(nums(span.toTypedArraySync({ stream }))).toEqual([3, 3, 3]);
    // Row sums written over the first row: every row's group reads row 0, which the others' results overwrite.
    const k = 1024;
    using ones = DeviceArray.full([k, k], 1, "float32", { stream });
    const first = ones.slice(0);
    expect(sum(ones, { axis: 1, out: first })).toBe(first);
    const back = nums(ones.toTypedArraySync({ stream }));
    expect(back.slice(0, k).every((v) => v === k)).toBe(true);
    expect(back.slice(k).every((v) => v === 1)).toBe(true);
  });

  it("compute in a requested dtype: sum, prod, mean and nansum (values printed by NumPy 2.4)", async () => {
    // np.sum(np.array([16777216, 1, 1, 1, 1], np.float32), dtype=np.float64) -> 16777220.0
    using big = DeviceArray.from(Float32Array.from([16777216, 1, 1, 1, 1]), { stream });
    using s64 = sum(big, { dtype: "float64" });
    expect(s64.dtype.name).toBe("float64");
    expect(s64.toTypedArraySync({ stream })[0]).toBe(16777220);
    // np.sum(np.array([100, 100, 100], np.int8), dtype=np.int8) -> 44 (wraps)
    using bytes = DeviceArray.from(Int8Array.from([100, 100, 100]), { stream });
    using s8 = bytes.sum({ dtype: "int8" });
    expect([s8.dtype.name, s8.toTypedArraySync({ stream })[0]]).toEqual(["int8", 44]);
    // np.mean(np.array([1, 2], np.uint8), dtype=np.float32) -> 1.5 (float32)
    using u = DeviceArray.from(Uint8Array.from([1, 2]), { stream });
    using m32 = mean(u, { dtype: "float32" });
    expect([m32.dtype.name, m32.toTypedArraySync({ stream })[0]]).toEqual(["float32", 1.5]);
    // np.nansum(np.array([1.5, np.nan, 2.5], np.float32), dtype=np.int32) -> 3 (NaN skipped, each element truncated)
    using f = DeviceArray.from(Float32Array.from([1.5, NaN, 2.5]), { stream });
    using n32 = nansum(f, { dtype: "int32" });
    expect([n32.dtype.name, n32.toTypedArraySync({ stream })[0]]).toEqual(["int32", 3]);
    // np.prod(np.array([[1, 2], [3, 4]], np.int32), axis=0, dtype=np.float16) -> [3., 8.]
    using q = DeviceArray.from(Int32Array.from([1, 2, 3, 4]), { stream, shape: [2, 2] });
    using p16 = prod(q, { axis: 0, dtype: "float16" });
    expect(p16.dtype.name).toBe("float16");
    expect(await p16.toList({ stream })).toEqual([3, 8]);
  });
});
