/**
 * `median`, `quantile`, `percentile` and `average` without a GPU: the order statistics each quantile method reads
 * from a sorted slice, interpolated on the host as the GPU path does and compared with NumPy's results; the result
 * dtypes; and the argument errors that come before anything is queued, on arrays over a made-up device address.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, AxisError, Buffer, DTypeError, DeviceArray, ShapeMismatchError, dtypes, type DTypeName } from "../../../src/index.ts";
import { average, median, percentile, quantile, type QuantileMethod } from "../../../src/array.ts";
import { averageDType, orderStatisticDType, quantilePick } from "../../../src/core/array/ops/order-statistics.ts";

const arr = (shape: number[], dtype: DTypeName = "float32"): DeviceArray => DeviceArray.fromBuffer(Buffer.fromHandle(0x7f00_0000_0000n, 1 << 16, { owner: {} }), { dtype, shape });

/** The quantile of the sorted `data` that `quantilePick` describes, computed as the GPU path does (float64). */
function simulate(data: readonly number[], q: number, method: QuantileMethod | "median"): number {
  const p = quantilePick(data.length, q, method);
  const lo = data[p.lower]!;
  const hi = data[p.upper]!;
  if (p.t === 0) return lo;
  if (p.combine === "mean") return (lo + hi) / 2;
  const d = hi - lo;
  return p.t < 0.5 ? lo + d * p.t : hi - d * (1 - p.t);
}

const QS = [0, 0.1, 0.125, 0.25, 0.3, 0.5, 0.7, 0.75, 0.9, 1];

// np.quantile(np.array([k * k for k in range(n)], dtype=np.float64), q, method=m) for q in QS (NumPy 2.4),
// and np.median of the same array.
const NUMPY: [number, QuantileMethod | "median", number[]][] = [
  [1, "linear", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
  [1, "nearest", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
  [1, "midpoint", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
  [1, "median", [0]],
  [2, "linear", [0, 0.1, 0.125, 0.25, 0.3, 0.5, 0.7, 0.75, 0.9, 1]],
  [2, "lower", [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]],
  [2, "higher", [0, 1, 1, 1, 1, 1, 1, 1, 1, 1]],
  [2, "nearest", [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]],
  [2, "midpoint", [0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 1]],
  [2, "median", [0.5]],
  [3, "linear", [0, 0.2, 0.25, 0.5, 0.6, 1, 2.1999999999999997, 2.5, 3.4000000000000004, 4]],
  [3, "nearest", [0, 0, 0, 0, 1, 1, 1, 4, 4, 4]],
  [3, "midpoint", [0, 0.5, 0.5, 0.5, 0.5, 1, 2.5, 2.5, 2.5, 4]],
  [3, "median", [1]],
  [4, "linear", [0, 0.30000000000000004, 0.375, 0.75, 0.8999999999999999, 2.5, 4.499999999999998, 5.25, 7.500000000000001, 9]],
  [4, "lower", [0, 0, 0, 0, 0, 1, 4, 4, 4, 9]],
  [4, "higher", [0, 1, 1, 1, 1, 4, 9, 9, 9, 9]],
  [4, "nearest", [0, 0, 0, 1, 1, 4, 4, 4, 9, 9]],
  [4, "midpoint", [0, 0.5, 0.5, 0.5, 0.5, 2.5, 6.5, 6.5, 6.5, 9]],
  [4, "median", [2.5]],
  [5, "linear", [0, 0.4, 0.5, 1, 1.5999999999999999, 4, 7.999999999999999, 9, 13.200000000000001, 16]],
  [5, "nearest", [0, 0, 0, 1, 1, 4, 9, 9, 16, 16]],
  [5, "midpoint", [0, 0.5, 0.5, 1, 2.5, 4, 6.5, 9, 12.5, 16]],
  [6, "linear", [0, 0.5, 0.625, 1.75, 2.5, 6.5, 12.5, 14.25, 20.5, 25]],
  [6, "lower", [0, 0, 0, 1, 1, 4, 9, 9, 16, 25]],
  [6, "higher", [0, 1, 1, 4, 4, 9, 16, 16, 25, 25]],
  [6, "nearest", [0, 0, 1, 1, 4, 4, 16, 16, 16, 25]],
  [6, "midpoint", [0, 0.5, 0.5, 2.5, 2.5, 6.5, 12.5, 12.5, 20.5, 25]],
  [6, "median", [6.5]],
  [7, "linear", [0, 0.6000000000000001, 0.75, 2.5, 3.3999999999999995, 9, 17.799999999999994, 20.5, 29.400000000000006, 36]],
  [7, "nearest", [0, 1, 1, 4, 4, 9, 16, 16, 25, 36]],
  [7, "median", [9]],
  [10, "linear", [0, 0.9, 1.375, 5.25, 7.499999999999998, 20.5, 39.9, 45.75, 65.69999999999999, 81]],
  [10, "lower", [0, 0, 1, 4, 4, 16, 36, 36, 64, 81]],
  [10, "higher", [0, 1, 4, 9, 9, 25, 49, 49, 81, 81]],
  [10, "nearest", [0, 1, 1, 4, 9, 16, 36, 49, 64, 81]],
  [10, "midpoint", [0, 0.5, 2.5, 6.5, 6.5, 20.5, 42.5, 42.5, 72.5, 81]],
  [10, "median", [20.5]],
];

describe("the order statistics a quantile reads", () => {
  it("give NumPy's quantiles of every method, bit for bit in float64", () => {
    for (const [n, method, expected] of NUMPY) {
      const data = Array.from({ length: n }, (_, k) => k * k);
      const qs = method === "median" ? [0.5] : QS;
      expect(
        qs.map((q) => simulate(data, q, method)),
        `${method}, n = ${n}`,
      ).toEqual(expected);
    }
  });

  it("round a tie to the even position for nearest, and stay inside the slice", () => {
    // (n - 1) * q = 0.5, 1.5, 2.5: positions 0, 2, 2.
    expect([0.5, 1.5, 2.5].map((v) => quantilePick(6, v / 5, "nearest").lower)).toEqual([0, 2, 2]);
    for (const method of ["linear", "lower", "higher", "nearest", "midpoint", "median"] as const) {
      for (const n of [1, 2, 9]) {
        const p = quantilePick(n, 1, method);
        expect([p.lower, p.upper, p.t], `${method}, n = ${n}`).toEqual([n - 1, n - 1, 0]);
        expect(quantilePick(n, 0, method).upper).toBe(0);
      }
    }
    expect(quantilePick(4, 0.5, "median")).toEqual({ lower: 1, upper: 2, t: 0.5, combine: "mean" });
    expect(quantilePick(4, 0.5, "midpoint")).toEqual({ lower: 1, upper: 2, t: 0.5, combine: "lerp" });
  });

  it("result dtypes: float64 for bool and integers, the float dtype kept, complex refused", () => {
    for (const d of ["bool", "int8", "int32", "uint64", "int64"] as const) expect(orderStatisticDType(dtypes[d], "median").name).toBe("float64");
    for (const d of ["float16", "bfloat16", "float32", "float64"] as const) expect(orderStatisticDType(dtypes[d], "median").name).toBe(d);
    expect(() => orderStatisticDType(dtypes.complex64, "median")).toThrow(DTypeError);
    // np.result_type(a, w) for float a; np.result_type(a, w, "f8") for bool and integer a.
    const avg = (a: DTypeName, w: DTypeName): string => averageDType(dtypes[a], dtypes[w]).name;
    expect([avg("float32", "float32"), avg("float32", "int64"), avg("float16", "bool"), avg("float32", "float16")]).toEqual(["float32", "float64", "float16", "float32"]);
    expect([avg("int32", "float32"), avg("int8", "int8"), avg("bool", "float16"), avg("int32", "complex64")]).toEqual(["float64", "float64", "float64", "complex128"]);
  });
});

describe("median, quantile, percentile and average refuse bad arguments", () => {
  it("median", () => {
    expect(() => median([1, 2] as unknown as DeviceArray)).toThrow(TypeError);
    expect(() => median(arr([3]), 3 as unknown as undefined)).toThrow(/takes options/);
    expect(() => median(arr([3], "complex64"))).toThrow(DTypeError);
    expect(() => median(arr([3], "complex64"))).toThrow(/rarely what is wanted/);
    expect(() => median(arr([2, 3]), { axis: 2 })).toThrow(AxisError);
    expect(() => median(arr([2, 3]), { axis: [0, -2] })).toThrow(/named twice/);
    expect(() => median(arr([2, 3]), { keepdims: 1 as unknown as boolean })).toThrow(/keepdims is a boolean/);
    expect(() => median(arr([2, 3]), { axis: 0, out: arr([2]) })).toThrow(ShapeMismatchError);
    expect(() => median(arr([2, 3]), { axis: 0, out: arr([3], "int32") })).toThrow(DTypeError);
    expect(() => median(arr([2, 3]), { out: {} as DeviceArray })).toThrow(/out is a DeviceArray/);
    // The checks pass; the array has no stream to queue on.
    expect(() => median(arr([2, 3]), { axis: 1, keepdims: true, out: arr([2, 1]) })).toThrow(/needs a stream/);
    expect(() => median(arr([2, 3], "int32"), { axis: 0, out: arr([3], "float64") })).toThrow(/needs a stream/);
  });

  it("quantile and percentile", () => {
    expect(() => quantile(arr([4]), 1.5)).toThrow(ArgumentError);
    expect(() => quantile(arr([4]), 1.5)).toThrow(/q is a number in \[0, 1\]/);
    expect(() => quantile(arr([4]), -0)).toThrow(/needs a stream/);
    expect(() => quantile(arr([4]), NaN)).toThrow(ArgumentError);
    expect(() => quantile(arr([4]), [0.5, -0.1])).toThrow(/q\[1\] is -0.1, not a number in \[0, 1\]/);
    expect(() => quantile(arr([4]), "0.5" as unknown as number)).toThrow(ArgumentError);
    expect(() => quantile(arr([4]), 50)).toThrow(/percentile takes percents/);
    expect(() => percentile(arr([4]), 150)).toThrow(/q is a number in \[0, 100\]/);
    expect(() => percentile(arr([4]), [50, 101])).toThrow(/q\[1\] is 101/);
    expect(() => quantile(arr([4]), 0.5, { method: "cubic" as QuantileMethod })).toThrow(/method is one of "linear", "lower", "higher", "nearest", "midpoint", got "cubic"/);
    expect(() => quantile(arr([4], "complex128"), 0.5)).toThrow(DTypeError);
    expect(() => quantile(arr([2, 3]), 0.5, { axis: -3 })).toThrow(AxisError);
    // A list of q puts its axis first: [2] then the kept [3].
    expect(() => quantile(arr([2, 3]), [0.1, 0.9], { axis: 0, out: arr([3]) })).toThrow(/out has shape \[3\] but the result has shape \[2, 3\]/);
    expect(() => quantile(arr([2, 3]), [0.1, 0.9], { axis: 0, out: arr([2, 3]) })).toThrow(/needs a stream/);
    expect(() => percentile(arr([2, 3]), [], { axis: 0, keepdims: true, out: arr([0, 1, 3]) })).toThrow(/needs a stream/);
  });

  it("average", () => {
    expect(() => average({} as DeviceArray)).toThrow(TypeError);
    expect(() => average(arr([2, 3]), { weights: [1, 2, 3] as unknown as DeviceArray })).toThrow(/weights is a DeviceArray/);
    expect(() => average(arr([2, 3]), { returned: "yes" as unknown as boolean })).toThrow(/returned is a boolean/);
    expect(() => average(arr([2, 3]), { axis: 2 })).toThrow(AxisError);
    expect(() => average(arr([2, 3]), { weights: arr([3]) })).toThrow(/pass \{ axis \}/);
    expect(() => average(arr([2, 3]), { weights: arr([3]), axis: [0, 1] })).toThrow(/1-d weights go along a single axis/);
    expect(() => average(arr([2, 3]), { weights: arr([2, 1]), axis: 1 })).toThrow(/are 1-d/);
    expect(() => average(arr([2, 3]), { weights: arr([2]), axis: 1 })).toThrow(ShapeMismatchError);
    expect(() => average(arr([2, 3]), { weights: arr([2]), axis: 1 })).toThrow(/length 2 is not a's extent 3 along axis 1/);
    expect(() => average(arr([2, 3]), { weights: arr([3]), axis: -1 })).toThrow(/needs a stream/);
    expect(() => average(arr([2, 3]), { weights: arr([2, 3], "int32"), returned: true })).toThrow(/needs a stream/);
  });
});
