/**
 * The NaN-ignoring reductions (`nansum`, `nanprod`, `nanmean`, `nanvar`, `nanstd`, `nanmin`, `nanmax`, `nanargmin`,
 * `nanargmax`), scans (`nancumsum`, `nancumprod`) and `ptp` on a real GPU, against
 * NumPy's results worked out by hand: over every axis and along one, with all-NaN slices (NaN for the mean and the
 * extremes, 0 and 1 for the sum and product), keepdims, float32 and float64, and integer arrays (the plain
 * reductions). Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, DeviceArray, ShapeMismatchError, encodeHalf, type Stream } from "../../../src/index.ts";
import { nanargmax, nanargmin, nancumprod, nancumsum, nanmax, nanmean, nanmin, nanprod, nanstd, nansum, nanvar, ptp } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import { readAndClose } from "../../support/arrays.ts";

describe.skipIf(!gpu.available)(`NaN-ignoring reductions on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const read = (x: DeviceArray): number[] => readAndClose(x, stream);

  // [[1, NaN, 3], [NaN, NaN, NaN]]: row 1 is all NaN.
  const data = [1, NaN, 3, NaN, NaN, NaN];

  it("skip NaN over every axis and along one, as NumPy's", () => {
    for (const host of [Float32Array, Float64Array]) {
      using x = DeviceArray.from(host.from(data), { stream, shape: [2, 3] });
      expect(read(nansum(x))).toEqual([4]);
      expect(read(nanprod(x))).toEqual([3]);
      expect(read(nanmean(x))).toEqual([2]);
      expect(read(nanmin(x))).toEqual([1]);
      expect(read(nanmax(x))).toEqual([3]);
      expect(read(nansum(x, { axis: 1 }))).toEqual([4, 0]);
      expect(read(nanprod(x, { axis: 1 }))).toEqual([3, 1]);
      expect(read(nanmean(x, { axis: 1 }))).toEqual([2, NaN]);
      expect(read(nanmin(x, { axis: 1 }))).toEqual([1, NaN]);
      expect(read(nanmax(x, { axis: 1 }))).toEqual([3, NaN]);
      expect(read(nanmax(x, { axis: 0 }))).toEqual([1, NaN, 3]);
      using m = nanmean(x, { axis: 1, keepdims: true });
      expect([m.shape, m.dtype]).toEqual([[2, 1], x.dtype]);
    }
  });

  it("reduce integer arrays as the plain reductions do, and ptp is max - min", () => {
    using i = DeviceArray.from(Int32Array.from([4, -2, 7, 0, 5, 5]), { stream, shape: [2, 3] });
    using s = nansum(i);
    expect([s.dtype.name, read(s.copy({ stream }))]).toEqual(["int64", [19]]);
    expect(read(nanmean(i, { axis: 0 }))).toEqual([2, 1.5, 6]);
    expect(read(nanmax(i, { axis: 1 }))).toEqual([7, 5]);
    expect(read(ptp(i))).toEqual([9]);
    expect(read(ptp(i, { axis: 1 }))).toEqual([9, 5]);
    using f = DeviceArray.from(Float32Array.from([0.5, -1.5, 2]), { stream });
    using p = ptp(f);
    expect([p.dtype.name, read(p.copy({ stream }))]).toEqual(["float32", [3.5]]);
  });

  const closeTo = (got: number[], want: number[]): void => {
    expect(got.length).toBe(want.length);
    got.forEach((g, k) => (Number.isNaN(want[k]!) ? expect(g).toBeNaN() : expect(g).toBeCloseTo(want[k]!, 6)));
  };

  it("nanvar and nanstd skip NaN, divide by count - ddof, and give NaN where that is <= 0", () => {
    // [[1, NaN, 3, 4], [2, 2, NaN, 8], [NaN, NaN, NaN, NaN]]: row 2 is all NaN; columns 1 and 2 hold one number each.
    const rows = [1, NaN, 3, 4, 2, 2, NaN, 8, NaN, NaN, NaN, NaN];
    using x = DeviceArray.from(Float64Array.from(rows), { stream, shape: [3, 4] });
    closeTo(read(nanvar(x)), [5.222222222222221]); // np.nanvar(x)
    closeTo(read(nanvar(x, { ddof: 1 })), [6.266666666666666]); // np.nanvar(x, ddof=1)
    closeTo(read(nanvar(x, { axis: 1 })), [1.5555555555555554, 8, NaN]); // np.nanvar(x, axis=1)
    closeTo(read(nanvar(x, { axis: 1, ddof: 1 })), [2.333333333333333, 12, NaN]); // np.nanvar(x, axis=1, ddof=1)
    closeTo(read(nanstd(x, { axis: 0 })), [0.5, 0, 0, 2]); // np.nanstd(x, axis=0)
    closeTo(read(nanvar(x, { axis: 0, ddof: 1 })), [0.5, NaN, NaN, 8]); // np.nanvar(x, axis=0, ddof=1)
    using k = nanstd(x, { axis: 1, keepdims: true });
    expect([k.shape, k.dtype.name]).toEqual([[3, 1], "float64"]);
    closeTo(read(k.copy({ stream })), [Math.sqrt(1.5555555555555554), Math.sqrt(8), NaN]);
    // float32 stays float32 (np.nanvar(x.astype(np.float32), axis=1).dtype), and goes into a float64 out.
    using f = x.astype("float32", { stream });
    using fv = nanvar(f, { axis: 1 });
    expect(fv.dtype.name).toBe("float32");
    closeTo(read(fv.copy({ stream })), [1.5555555555555554, 8, NaN]);
    using out = DeviceArray.zeros([4], "float64", { stream });
    expect(nanvar(f, { axis: 0, ddof: 1, out })).toBe(out);
    closeTo(read(out.copy({ stream })), [0.5, NaN, NaN, 8]);
  });

  it("nanvar of complex is real, and of integers is var", () => {
    // [1+1j, nan, 2-1j, 3+0j]
    using c = DeviceArray.from(Float64Array.from([1, 1, NaN, 0, 2, -1, 3, 0]), { stream, dtype: "complex128", shape: [4] });
    using cv = nanvar(c);
    expect(cv.dtype.name).toBe("float64");
    closeTo(read(cv.copy({ stream })), [1.3333333333333333]); // np.nanvar(c)
    closeTo(read(nanstd(c)), [1.1547005383792515]); // np.nanstd(c)
    using i = DeviceArray.from(Int32Array.from([4, -2, 7, 0, 5, 5]), { stream, shape: [2, 3] });
    using iv = nanvar(i, { axis: 1 });
    expect(iv.dtype.name).toBe("float64");
    closeTo(read(iv.copy({ stream })), [14, 5.555555555555556]); // np.nanvar(i, axis=1)
    closeTo(read(nanstd(i, { ddof: 1 })), [3.430257521916783]); // np.nanstd(i, ddof=1)
  });

  it("half precision, complex, infinities, many blocks, and an empty nanmin refused", () => {
    using f = DeviceArray.from(Float32Array.from(data), { stream, shape: [2, 3] });
    using h = f.astype("float16", { stream });
    using hs = nansum(h, { axis: 1 });
    expect([hs.dtype.name, read(hs.astype("float32", { stream }))]).toEqual(["float16", [4, 0]]);
    using hm = nanmin(h, { axis: 1 });
    expect(read(hm.astype("float32", { stream }))).toEqual([1, NaN]);
    // A complex element with NaN in either part is skipped.
    using c = DeviceArray.from(Float32Array.from([1, 2, NaN, 0, 3, -1, 0, NaN]), { stream, dtype: "complex64", shape: [4] });
    expect(read(nansum(c))).toEqual([4, 1]);
    expect(read(nanprod(c))).toEqual([5, 5]);
    // Infinities are numbers: the min of [inf, NaN] is inf, not NaN.
    using inf = DeviceArray.from(Float64Array.from([Infinity, NaN, -Infinity, NaN]), { stream, shape: [2, 2] });
    expect(read(nanmin(inf, { axis: 1 }))).toEqual([Infinity, -Infinity]);
    expect(read(nanmax(inf))).toEqual([Infinity]);
    // Enough elements for many blocks and the partials' second pass: every third a NaN.
    const n = (1 << 20) + 77;
    const big = new Float32Array(n);
    let kept = 0;
    for (let i = 0; i < n; i++) {
      if (i % 3 === 0) big[i] = NaN;
      else {
        big[i] = i % 5;
        kept += i % 5;
      }
    }
    using b = DeviceArray.from(big, { stream });
    expect(read(nansum(b))).toEqual([kept]);
    expect(read(nanmax(b))).toEqual([4]);
    expect(read(nanmean(b))[0]).toBeCloseTo(kept / (n - Math.ceil(n / 3)), 4);
    using empty = DeviceArray.empty([0, 3], "float32", { stream });
    expect(() => nanmin(empty, { axis: 0 })).toThrow(/reduces zero elements/);
    expect(read(nansum(empty, { axis: 0 }))).toEqual([0, 0, 0]);
  });
  it("nancumsum and nancumprod count NaN as 0 and 1 (NumPy's values and dtypes)", () => {
    for (const host of [Float32Array, Float64Array]) {
      using x = DeviceArray.from(host.from(data), { stream, shape: [2, 3] });
      using flat = nancumsum(x);
      expect([flat.dtype, flat.shape, read(flat.copy({ stream }))]).toEqual([x.dtype, [6], [1, 1, 4, 4, 4, 4]]);
      expect(read(nancumsum(x, { axis: 1 }))).toEqual([1, 1, 4, 0, 0, 0]);
      expect(read(nancumprod(x, { axis: 0 }))).toEqual([1, 1, 3, 1, 1, 3]);
      expect(read(nancumprod(x, { axis: -1 }))).toEqual([1, 1, 3, 1, 1, 1]);
      // The input is left as it was (the NaNs are replaced in a copy).
      expect(read(x.copy({ stream }))).toEqual(data);
    }
    using h = DeviceArray.from(Uint16Array.from([0.5, NaN, 1.5, NaN].map(encodeHalf)), { stream, dtype: "float16" });
    using hs = nancumsum(h);
    expect(hs.dtype.name).toBe("float16");
    expect(read(nancumprod(h, { dtype: "float64" }))).toEqual([0.5, 0.5, 0.75, 0.75]);
    // Integers hold no NaN: cumsum's dtypes (int64).
    using i = DeviceArray.from(Int8Array.from([1, 2, 3]), { stream });
    using ip = nancumprod(i);
    expect([ip.dtype.name, read(ip.copy({ stream }))]).toEqual(["int64", [1, 2, 6]]);
    // Complex: an element with a NaN part counts as 0 (1) as a whole.
    using z = DeviceArray.from(Float32Array.from([1, 1, NaN, 2, 2, -1, 3, NaN]), { stream, dtype: "complex64" });
    expect(read(nancumsum(z))).toEqual([1, 1, 1, 1, 3, 0, 3, 0]);
    expect(read(nancumprod(z))).toEqual([1, 1, 1, 1, 3, 1, 3, 1]);
    // An out of another dtype, and in place.
    using x = DeviceArray.from(Float32Array.from(data), { stream, shape: [2, 3] });
    using out = DeviceArray.zeros([2, 3], "float64", { stream });
    expect(nancumsum(x, { axis: 1, out })).toBe(out);
    expect(read(out.copy({ stream }))).toEqual([1, 1, 4, 0, 0, 0]);
    expect(nancumsum(x, { axis: 0, out: x })).toBe(x);
    expect(read(x.copy({ stream }))).toEqual([1, 0, 3, 1, 0, 3]);
  });

  it("nanargmin and nanargmax skip NaN, and an all-NaN slice is NumPy's error (read back)", () => {
    // [[NaN, 2, 1], [3, NaN, 0]]
    for (const host of [Float32Array, Float64Array]) {
      using m = DeviceArray.from(host.from([NaN, 2, 1, 3, NaN, 0]), { stream, shape: [2, 3] });
      expect(read(nanargmin(m))).toEqual([5]);
      expect(read(nanargmax(m))).toEqual([3]);
      expect(read(nanargmin(m, { axis: 1 }))).toEqual([2, 2]);
      expect(read(nanargmax(m, { axis: 0 }))).toEqual([1, 0, 0]);
      using k = nanargmin(m, { axis: 0, keepdims: true });
      expect([k.dtype.name, k.shape]).toEqual(["int64", [1, 3]]);
      expect(read(m.T.copy({ stream }))).toEqual([NaN, 3, 2, NaN, 1, 0]);
      expect(read(nanargmax(m.T, { axis: 1 }))).toEqual([1, 0, 0]);
    }
    // NaN reads as +inf for nanargmin (-inf for nanargmax), as NumPy's: a tie with an infinity goes to the first.
    using a = DeviceArray.from(Float64Array.from([NaN, Infinity, 5]), { stream });
    expect(read(nanargmin(a))).toEqual([2]);
    using b = DeviceArray.from(Float64Array.from([NaN, Infinity]), { stream });
    expect(read(nanargmin(b))).toEqual([0]);
    using c = DeviceArray.from(Float64Array.from([-Infinity, NaN, -Infinity]), { stream });
    expect(read(nanargmax(c))).toEqual([0]);
    using h = DeviceArray.from(Uint16Array.from([NaN, 4, 7, NaN].map(encodeHalf)), { stream, dtype: "float16" });
    expect(read(nanargmax(h))).toEqual([2]);
    // Complex: [NaN+0j, 2+1j, 2-1j, 1+NaNj] → 2.
    using z = DeviceArray.from(Float64Array.from([NaN, 0, 2, 1, 2, -1, 1, NaN]), { stream, dtype: "complex128" });
    expect(read(nanargmin(z))).toEqual([2]);
    using i = DeviceArray.from(Int32Array.from([3, 1, 2]), { stream });
    expect(read(nanargmin(i))).toEqual([1]);
    // All-NaN slices: an ArgumentError at the call, as NumPy's ValueError.
    using n = DeviceArray.from(Float32Array.from([NaN, NaN, 1, 2]), { stream, shape: [2, 2] });
    expect(() => nanargmin(n, { axis: 1 })).toThrow(ArgumentError);
    expect(() => nanargmax(n, { axis: 1 })).toThrow(/All-NaN slice encountered/);
    expect(read(nanargmin(n, { axis: 0 }))).toEqual([1, 1]);
    using all = DeviceArray.from(Float64Array.from([NaN, NaN]), { stream });
    expect(() => nanargmin(all)).toThrow(/All-NaN slice encountered/);
    // Empty: argmin's error; an empty result from a non-empty axis is fine.
    using e = DeviceArray.zeros([0, 3], "float32", { stream });
    expect(() => nanargmin(e, { axis: 0 })).toThrow(ShapeMismatchError);
    using er = nanargmax(e, { axis: 1 });
    expect(er.shape).toEqual([0]);
  });
});
