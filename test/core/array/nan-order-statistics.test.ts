/**
 * `nanmedian`, `nanquantile` and `nanpercentile` without a GPU: the positions the device computes per slice from
 * its count of numbers (floor, ceil or rint of `(count - 1) * q`, clipped into the slice) are `quantilePick`'s, and
 * read from NaN-holding slices they give NumPy's `nanquantile` bit for bit; and the argument errors that come before
 * anything is queued, on arrays over fake memory.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, AxisError, DTypeError, ShapeMismatchError } from "../../../src/index.ts";
import { nanmedian, nanpercentile, nanquantile, type QuantileMethod } from "../../../src/array.ts";
import { quantilePick } from "../../../src/core/array/ops/order-statistics.ts";
import type { DeviceArray } from "../../../src/index.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

type Method = QuantileMethod | "median";

/** `x` rounded to the nearest integer, a tie to the even one (the device's `rint`). */
function rint(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d !== 0.5) return d < 0.5 ? f : f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/** The device's view of one slice: the gathered positions ("clip" into [0, n - 1]), the weight t, and whether the lower element stands alone. */
interface DevicePick {
  readonly lower: number;
  readonly upper: number;
  readonly t: number;
  readonly single: boolean;
}

/** What nanQuantileInto computes on the device for a slice of `n` elements holding `count` numbers (its NaNs last). */
function devicePick(count: number, n: number, q: number, method: Method): DevicePick {
  const v = (count - 1) * q;
  const clip = (p: number): number => Math.min(Math.max(p, 0), n - 1);
  if (method === "lower" || method === "higher" || method === "nearest") {
    const p = clip(method === "lower" ? Math.floor(v) : method === "higher" ? Math.ceil(v) : rint(v));
    return { lower: p, upper: p, t: 0, single: true };
  }
  const f = Math.floor(v);
  return { lower: clip(f), upper: clip(f + 1), t: method === "linear" ? v - f : 0.5, single: v === f };
}

/** A slice's NaN-skipping quantile as the device computes it (float64): the sorted slice read at devicePick's positions. */
function simulate(slice: readonly number[], q: number, method: Method): number {
  const sorted = [...slice].sort((x, y) => (Number.isNaN(x) ? 1 : Number.isNaN(y) ? -1 : x - y));
  const count = slice.filter((x) => !Number.isNaN(x)).length;
  const p = devicePick(count, sorted.length, q, method);
  const lo = sorted[p.lower]!;
  const hi = sorted[p.upper]!;
  if (p.single) return lo;
  if (method === "median") return (lo + hi) / 2;
  const d = hi - lo;
  return p.t < 0.5 ? lo + d * p.t : hi - d * (1 - p.t);
}

const QS = [0, 0.1, 0.125, 0.25, 0.3, 0.5, 0.7, 0.75, 0.9, 1];

// a = np.array([[3, nan, 1, 4, nan, 2, nan], [nan, 25, nan, 0, 9, nan, 1], [nan, 7, nan, nan, nan, nan, nan],
//               [nan] * 7, [16, 0, 4, 1, 9, 36, 25]])
const ROWS = [
  [3, NaN, 1, 4, NaN, 2, NaN],
  [NaN, 25, NaN, 0, 9, NaN, 1],
  [NaN, 7, NaN, NaN, NaN, NaN, NaN],
  [NaN, NaN, NaN, NaN, NaN, NaN, NaN],
  [16, 0, 4, 1, 9, 36, 25],
];
const N = NaN;
// np.nanquantile(a, QS, axis=1, method=m).T (NumPy 2.4), and np.nanmedian(a, axis=1).
const NUMPY: Record<Method, number[][]> = {
  linear: [
    [1, 1.3, 1.375, 1.75, 1.9, 2.5, 3.0999999999999996, 3.25, 3.7, 4],
    [0, 0.30000000000000004, 0.375, 0.75, 0.8999999999999999, 5, 10.599999999999994, 13, 20.200000000000003, 25],
    [7, 7, 7, 7, 7, 7, 7, 7, 7, 7],
    [N, N, N, N, N, N, N, N, N, N],
    [0, 0.6000000000000001, 0.75, 2.5, 3.3999999999999995, 9, 17.799999999999994, 20.5, 29.400000000000006, 36],
  ],
  lower: [
    [1, 1, 1, 1, 1, 2, 3, 3, 3, 4],
    [0, 0, 0, 0, 0, 1, 9, 9, 9, 25],
    [7, 7, 7, 7, 7, 7, 7, 7, 7, 7],
    [N, N, N, N, N, N, N, N, N, N],
    [0, 0, 0, 1, 1, 9, 16, 16, 25, 36],
  ],
  higher: [
    [1, 2, 2, 2, 2, 3, 4, 4, 4, 4],
    [0, 1, 1, 1, 1, 9, 25, 25, 25, 25],
    [7, 7, 7, 7, 7, 7, 7, 7, 7, 7],
    [N, N, N, N, N, N, N, N, N, N],
    [0, 1, 1, 4, 4, 9, 25, 25, 36, 36],
  ],
  nearest: [
    [1, 1, 1, 2, 2, 3, 3, 3, 4, 4],
    [0, 0, 0, 1, 1, 9, 9, 9, 25, 25],
    [7, 7, 7, 7, 7, 7, 7, 7, 7, 7],
    [N, N, N, N, N, N, N, N, N, N],
    [0, 1, 1, 4, 4, 9, 16, 16, 25, 36],
  ],
  midpoint: [
    [1, 1.5, 1.5, 1.5, 1.5, 2.5, 3.5, 3.5, 3.5, 4],
    [0, 0.5, 0.5, 0.5, 0.5, 5, 17, 17, 17, 25],
    [7, 7, 7, 7, 7, 7, 7, 7, 7, 7],
    [N, N, N, N, N, N, N, N, N, N],
    [0, 0.5, 0.5, 2.5, 2.5, 9, 20.5, 20.5, 30.5, 36],
  ],
  median: [[2.5], [5], [7], [N], [9]],
};

describe("the positions a NaN-skipping quantile reads", () => {
  it("are quantilePick's for the slice's count of numbers, for every method", () => {
    for (const method of ["linear", "lower", "higher", "nearest", "midpoint", "median"] as const) {
      for (let count = 1; count <= 12; count++) {
        for (const q of [...QS, 1 / 3, 0.55, 0.999]) {
          const want = quantilePick(count, q, method);
          // Slices of the count alone, and with NaNs after the numbers.
          for (const n of [count, count + 3]) {
            const got = devicePick(count, n, q, method);
            const where = `${method}, count ${count} of ${n}, q ${q}`;
            expect(got.single, where).toBe(want.t === 0);
            expect(got.lower, where).toBe(want.lower);
            if (!got.single) expect([got.upper, got.t], where).toEqual([want.upper, want.t]);
          }
        }
      }
    }
  });

  it("stay inside the slice where every element is NaN, so the value read is a NaN", () => {
    for (const method of ["linear", "lower", "higher", "nearest", "midpoint", "median"] as const) {
      for (const q of QS) {
        const p = devicePick(0, 5, q, method);
        // The first element (a NaN), and where two are read, the second within the slice (a NaN too).
        expect(p.lower, `${method}, q ${q}`).toBe(0);
        expect(p.upper >= 0 && p.upper < 5, `${method}, q ${q}`).toBe(true);
      }
    }
  });

  it("give NumPy's nanquantile and nanmedian bit for bit in float64, rows of different NaN counts and all-NaN rows", () => {
    for (const method of Object.keys(NUMPY) as Method[]) {
      const qs = method === "median" ? [0.5] : QS;
      ROWS.forEach((row, k) => {
        expect(
          qs.map((q) => simulate(row, q, method)),
          `${method}, row ${k}`,
        ).toEqual(NUMPY[method][k]);
      });
    }
  });
});

describe("nanmedian, nanquantile and nanpercentile refuse bad arguments", () => {
  const arr = (shape: number[], dtype: Parameters<typeof fakeArray>[1] = "float32"): DeviceArray => fakeArray(shape, dtype);

  it("nanmedian", () => {
    expect(() => nanmedian([1, 2] as unknown as DeviceArray)).toThrow(/nanmedian takes a DeviceArray/);
    expect(() => nanmedian(arr([3]), 3 as unknown as undefined)).toThrow(/nanmedian takes options \{ axis\?, keepdims\?, out\?, stream\? \}/);
    expect(() => nanmedian(arr([3], "complex64"))).toThrow(DTypeError);
    expect(() => nanmedian(arr([3], "complex128"))).toThrow(/nanmedian: a is complex128/);
    expect(() => nanmedian(arr([2, 3]), { axis: 2 })).toThrow(AxisError);
    expect(() => nanmedian(arr([2, 3]), { axis: [1, -1] })).toThrow(/named twice/);
    expect(() => nanmedian(arr([2, 3]), { keepdims: "no" as unknown as boolean })).toThrow(/nanmedian: keepdims is a boolean/);
    expect(() => nanmedian(arr([2, 3]), { axis: 1, out: arr([3]) })).toThrow(ShapeMismatchError);
    expect(() => nanmedian(arr([2, 3]), { axis: 1, keepdims: true, out: arr([2]) })).toThrow(/out has shape \[2\] but the result has shape \[2, 1\]/);
    expect(() => nanmedian(arr([2, 3]), { axis: 1, out: arr([2], "int64") })).toThrow(DTypeError);
    expect(() => nanmedian(arr([2, 3], "float64"), { axis: 1, out: arr([2], "float16") })).toThrow(/needs a stream/);
    // The checks pass; the array has no stream to queue on (floats, and integers, which take median's path).
    expect(() => nanmedian(arr([2, 3]), { axis: [0, 1], keepdims: true, out: arr([1, 1]) })).toThrow(/needs a stream/);
    expect(() => nanmedian(arr([2, 3], "int32"), { axis: 0, out: arr([3], "float64") })).toThrow(/needs a stream/);
    expect(() => nanmedian(arr([4], "bool"))).toThrow(/needs a stream/);
  });

  it("nanquantile and nanpercentile", () => {
    expect(() => nanquantile(arr([4]), 1.5)).toThrow(ArgumentError);
    expect(() => nanquantile(arr([4]), 1.5)).toThrow(/nanquantile: q is a number in \[0, 1\]/);
    expect(() => nanquantile(arr([4]), NaN)).toThrow(ArgumentError);
    expect(() => nanquantile(arr([4]), [0.5, -0.1])).toThrow(/nanquantile: q\[1\] is -0.1, not a number in \[0, 1\]/);
    expect(() => nanquantile(arr([4]), "0.5" as unknown as number)).toThrow(ArgumentError);
    expect(() => nanquantile(arr([4]), 50)).toThrow(/percentile takes percents/);
    expect(() => nanpercentile(arr([4]), 150)).toThrow(/nanpercentile: q is a number in \[0, 100\]/);
    expect(() => nanpercentile(arr([4]), [50, 101])).toThrow(/q\[1\] is 101/);
    expect(() => nanquantile(arr([4]), 0.5, { method: "weibull" as QuantileMethod })).toThrow(/nanquantile: method is one of "linear", "lower", "higher", "nearest", "midpoint", got "weibull"/);
    expect(() => nanpercentile(arr([4], "complex64"), 50)).toThrow(DTypeError);
    expect(() => nanquantile(arr([2, 3]), 0.5, { axis: -3 })).toThrow(AxisError);
    expect(() => nanquantile(arr([2, 3]), 0.5, null as unknown as undefined)).toThrow(/nanquantile takes options \{ axis\?, keepdims\?, method\?, out\?, stream\? \}/);
    // A list of q puts its axis first: [2] then the kept [3].
    expect(() => nanquantile(arr([2, 3]), [0.1, 0.9], { axis: 0, out: arr([3]) })).toThrow(/out has shape \[3\] but the result has shape \[2, 3\]/);
    expect(() => nanpercentile(arr([2, 3]), [10, 90], { axis: 0, keepdims: true, out: arr([2, 3]) })).toThrow(/the result has shape \[2, 1, 3\]/);
    expect(() => nanquantile(arr([2, 3]), [0.1, 0.9], { axis: 0, out: arr([2, 3]) })).toThrow(/needs a stream/);
    expect(() => nanpercentile(arr([2, 3], "float16"), 40, { axis: 1, method: "nearest" })).toThrow(/needs a stream/);
    expect(() => nanquantile(arr([2, 3], "uint8"), [0, 1], { method: "midpoint" })).toThrow(/needs a stream/);
  });
});
