/**
 * `searchsorted` and `digitize` on a real GPU: both sides against a host reference (NumPy's rule: the count of
 * elements before the value in the sorted order, NaN last) on random sorted data with duplicates, NaN and infinities
 * for float32, float64, int32, int64 and float16; mixed dtypes (promoted), values of any shape and layout, scalar
 * values, a non-contiguous sorted array, a sorter (and one out of range: an IndexError at the next read), `out`, empty
 * inputs, the method, and NumPy's `digitize` examples. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { Device, DeviceArray, DeviceMismatchError, IndexError, type Stream } from "../../../src/index.ts";
import { argsort, digitize, searchsorted } from "../../../src/array.ts";
import { decodeHalf, encodeHalf, type HostArray } from "../../../src/core/array/dtype.ts";
import { driver } from "../../../src/bindings/driver-entry.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import { numbers as ints, readAndClose, seededUniform as rng } from "../../support/arrays.ts";

/** NumPy's order: x before y (NaN after every other value, NaNs equal). */
function before(x: number | bigint, y: number | bigint): boolean {
  if (typeof x === "bigint" || typeof y === "bigint") return BigInt(x) < BigInt(y);
  return x < y || (Number.isNaN(y) && !Number.isNaN(x));
}

/** The insertion index of each of `v` into the sorted `a`, as NumPy's searchsorted: how many elements go before it. */
function reference(a: readonly (number | bigint)[], v: readonly (number | bigint)[], side: "left" | "right"): number[] {
  return v.map((x) => a.filter((y) => (side === "left" ? before(y, x) : !before(x, y))).length);
}

/** A float with duplicates, NaN and infinities now and then. */
function floatValue(r: () => number): number {
  const x = r();
  if (x < 0.03) return NaN;
  if (x < 0.05) return Infinity;
  if (x < 0.07) return -Infinity;
  return Math.floor(r() * 40 - 20) / 4;
}

describe.skipIf(!gpu.available)(`searchsorted and digitize on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const read = (x: DeviceArray): number[] => readAndClose(x, stream);

  /** Sorted host data of `dtype` (NaN last), and values to search for, some of them from the data. */
  function data(dtype: "float32" | "float64" | "int32" | "int64", n: number, m: number, seed: number): { a: HostArray; v: HostArray; ah: (number | bigint)[]; vh: (number | bigint)[] } {
    const r = rng(seed);
    if (dtype === "int64") {
      const ah = Array.from({ length: n }, () => BigInt(Math.floor(r() * 60) - 30) * 2n ** 33n).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      const vh = Array.from({ length: m }, (_, i) => (i % 3 === 0 ? ah[Math.floor(r() * n)]! : BigInt(Math.floor(r() * 70) - 35) * 2n ** 33n + BigInt(Math.floor(r() * 3) - 1)));
      return { a: BigInt64Array.from(ah), v: BigInt64Array.from(vh), ah, vh };
    }
    if (dtype === "int32") {
      const a = Int32Array.from({ length: n }, () => Math.floor(r() * 60) - 30).sort();
      const v = Int32Array.from({ length: m }, (_, i) => (i % 3 === 0 ? a[Math.floor(r() * n)]! : Math.floor(r() * 70) - 35));
      return { a, v, ah: [...a], vh: [...v] };
    }
    const typed = (xs: number[]): Float32Array | Float64Array => (dtype === "float32" ? Float32Array.from(xs) : Float64Array.from(xs));
    // A typed array's sort puts NaN last, as NumPy's.
    const a = typed(Array.from({ length: n }, () => floatValue(r))).sort();
    const v = typed(Array.from({ length: m }, (_, i) => (i % 3 === 0 ? a[Math.floor(r() * n)]! : floatValue(r) + (r() < 0.5 ? 0 : 0.125))));
    return { a, v, ah: [...a], vh: [...v] };
  }

  for (const dtype of ["float32", "float64", "int32", "int64"] as const) {
    it(`${dtype}: both sides match the host reference, duplicates${dtype.startsWith("float") ? ", NaN and infinities" : ""} included`, () => {
      for (const [n, seed] of [[1, 1], [2, 2], [1000, 3], [4097, 4]] as const) {
        const { a, v, ah, vh } = data(dtype, n, 1500, seed);
        using da = DeviceArray.from(a, { stream });
        using dv = DeviceArray.from(v, { stream });
        for (const side of ["left", "right"] as const) {
          const got = searchsorted(da, dv, { side });
          expect(got.dtype.name).toBe("int64");
          expect(got.shape).toEqual([1500]);
          expect(read(got), `${dtype} n=${n} ${side}`).toEqual(reference(ah, vh, side));
        }
        // The default side is left.
        expect(read(searchsorted(da, dv))).toEqual(reference(ah, vh, "left"));
      }
    });
  }

  it("float16: compared as its values (NaN last)", () => {
    const ah = [-2, -1, -1, 0, 0.5, 3, NaN, NaN];
    const vh = [-3, -1, 0.25, 0.5, 3, 4, NaN, -Infinity, Infinity];
    using da = DeviceArray.from(Uint16Array.from(ah, encodeHalf), { stream, dtype: "float16" });
    using dv = DeviceArray.from(Uint16Array.from(vh, encodeHalf), { stream, dtype: "float16" });
    expect(Array.from(Uint16Array.from(ah, encodeHalf), decodeHalf).slice(0, 6)).toEqual(ah.slice(0, 6));
    expect(read(searchsorted(da, dv))).toEqual([0, 1, 4, 4, 5, 6, 6, 0, 6]);
    expect(read(searchsorted(da, dv, { side: "right" }))).toEqual([0, 3, 4, 5, 6, 6, 8, 0, 6]);
    expect(read(searchsorted(da, dv))).toEqual(reference(ah, vh, "left"));
  });

  it("promotes mixed dtypes (an int32 array searched for float64 values; weak scalars)", () => {
    using a = DeviceArray.from(Int32Array.from([1, 2, 2, 3, 5]), { stream });
    using v = DeviceArray.from(Float64Array.from([2, 2.5, 0.5, 5.0001, -Infinity, NaN]), { stream });
    expect(read(searchsorted(a, v))).toEqual([1, 3, 0, 5, 0, 5]);
    expect(read(searchsorted(a, v, { side: "right" }))).toEqual([3, 3, 0, 5, 0, 5]);
    // A fractional scalar promotes the int32 array to float64; an integer one stays int32.
    expect(read(searchsorted(a, 2.5))).toEqual([3]);
    expect(read(searchsorted(a, 2, { side: "right" }))).toEqual([3]);
    using f = DeviceArray.from(Float32Array.from([0.1, 0.2, 0.30000001192092896]), { stream });
    // 0.1 as a weak scalar is float32's 0.1 (NumPy 2): equal to f[0], so right gives 1 (float64's 0.1 would give 0).
    expect(read(searchsorted(f, 0.1, { side: "right" }))).toEqual([1]);
    using u = DeviceArray.from(BigUint64Array.from([1n, 2n ** 63n, 2n ** 64n - 1n]), { stream });
    using i = DeviceArray.from(BigInt64Array.from([-1n, 2n]), { stream });
    expect(read(searchsorted(u, i))).toEqual([0, 1]);
  });

  it("takes a scalar value (a 0-d result), values of any shape and layout, and a non-contiguous sorted array", () => {
    using a = DeviceArray.from(Float32Array.from([0, 1, 2, 3, 4, 5, 6, 7]), { stream });
    const s = searchsorted(a, 3.5);
    expect(s.shape).toEqual([]);
    expect(read(s)).toEqual([4]);
    using v = DeviceArray.from(Float32Array.from([0.5, 1.5, 2.5, 3.5, 4.5, 5.5]), { stream, shape: [2, 3] });
    const m = searchsorted(a, v);
    expect(m.shape).toEqual([2, 3]);
    expect(read(m)).toEqual([1, 2, 3, 4, 5, 6]);
    const t = searchsorted(a, v.T);
    expect(t.shape).toEqual([3, 2]);
    expect(read(t)).toEqual([1, 4, 2, 5, 3, 6]);
    // Every other element: [0, 2, 4, 6].
    const even = a.slice([null, null, 2]);
    expect(even.isContiguous).toBe(false);
    expect(read(searchsorted(even, v))).toEqual([1, 1, 2, 2, 3, 3]);
    expect(read(a.searchsorted(v, { side: "right" }))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("searches an unsorted array through its sorter", () => {
    const r = rng(9);
    const host = Float64Array.from({ length: 777 }, () => floatValue(r));
    using a = DeviceArray.from(host, { stream });
    using order = argsort(a);
    using v = DeviceArray.from(Float64Array.from([-100, -3, 0, 0.1, 2.25, 100, NaN, Infinity]), { stream });
    const sorted = [...Float64Array.from(host).sort()];
    for (const side of ["left", "right"] as const) expect(read(searchsorted(a, v, { side, sorter: order })), side).toEqual(reference(sorted, [...v.toTypedArraySync()], side));
    using i32 = order.astype("int32");
    expect(read(searchsorted(a, v, { sorter: i32 }))).toEqual(reference(sorted, [...v.toTypedArraySync()], "left"));
  });

  it("reports a sorter index out of range as take does: an IndexError at the next read", () => {
    using a = DeviceArray.from(Float32Array.from([3, 1, 2]), { stream });
    using bad = DeviceArray.from(BigInt64Array.from([1n, 2n, 9n]), { stream });
    using got = searchsorted(a, 1.5, { sorter: bad });
    expect(() => got.toTypedArraySync()).toThrow(IndexError);
  });

  it("writes into out, and handles empty arrays", () => {
    using a = DeviceArray.from(Int32Array.from([10, 20, 30]), { stream });
    using v = DeviceArray.from(Int32Array.from([5, 20, 35]), { stream });
    using out = DeviceArray.zeros([3], "int32", { stream });
    expect(searchsorted(a, v, { side: "right", out })).toBe(out);
    expect(ints(out.toTypedArraySync())).toEqual([0, 2, 3]);
    using empty = DeviceArray.empty([0], "int32", { stream });
    expect(read(searchsorted(empty, v))).toEqual([0, 0, 0]);
    expect(read(searchsorted(empty, 3))).toEqual([0]);
    const none = searchsorted(a, empty);
    expect(none.shape).toEqual([0]);
    none.close();
  });

  it("digitize: NumPy's examples", () => {
    using x = DeviceArray.from(Float64Array.from([0.2, 6.4, 3.0, 1.6]), { stream });
    using bins = DeviceArray.from(Float64Array.from([0.0, 1.0, 2.5, 4.0, 10.0]), { stream });
    expect(read(digitize(x, bins))).toEqual([1, 4, 3, 2]);
    using y = DeviceArray.from(Float64Array.from([1.2, 10.0, 12.4, 15.5, 20.0]), { stream });
    using edges = DeviceArray.from(BigInt64Array.from([0n, 5n, 10n, 15n, 20n]), { stream });
    expect(read(digitize(y, edges, { right: true }))).toEqual([1, 2, 3, 4, 4]);
    expect(read(digitize(y, edges, { right: false }))).toEqual([1, 3, 3, 4, 5]);
    expect(read(digitize(-1, edges))).toEqual([0]);
  });

  it.skipIf(!gpu.available || driver.cuDeviceGetCount() < 2)("refuses arrays of two devices before anything is queued", () => {
    const other = new Device(1);
    using s1 = other.createStream();
    using a = DeviceArray.from(Float32Array.from([1, 2, 3]), { stream: s1 });
    using v = DeviceArray.from(Float32Array.from([2]), { stream });
    expect(() => searchsorted(a, v)).toThrow(DeviceMismatchError);
    expect(() => searchsorted(a, 2, { stream })).toThrow(DeviceMismatchError);
  });
});
