/**
 * The NaN-ignoring reductions (`nansum`, `nanprod`, `nanmean`, `nanmin`, `nanmax`) and `ptp` on a real GPU, against
 * NumPy's results worked out by hand: over every axis and along one, with all-NaN slices (NaN for the mean and the
 * extremes, 0 and 1 for the sum and product), keepdims, float32 and float64, and integer arrays (the plain
 * reductions). Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, DeviceArray, type Stream } from "../../../src/index.ts";
import { nanmax, nanmean, nanmin, nanprod, nansum, ptp } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { readAndClose } from "../../support/arrays.ts";

describe.skipIf(!gpu.available)(`NaN-ignoring reductions on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
  });

  afterAll(() => {
    stream?.close();
  });

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
});
