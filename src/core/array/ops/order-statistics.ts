/**
 * Order statistics and weighted means of arrays, as NumPy's: `median`, `quantile` and `percentile` (the reduced axes
 * sorted once, then the order statistics each quantile needs read from every sorted slice as views and interpolated),
 * their NaN-skipping `nanmedian`, `nanquantile` and `nanpercentile` (the same sort, which puts each slice's NaNs last,
 * then a count of each slice's numbers, the positions each quantile needs computed from it per slice on the device
 * and read by `takeAlongAxis`), and `average` (the mean, or `sum(a * weights) / sum(weights)`). Composed from `sort`,
 * slicing views, `takeAlongAxis`, the NaN-skipping count of `nanmean` and elementwise operations; no kernel of their
 * own.
 *
 * ```ts
 * const m = median(x, { axis: 0 });                          // per column
 * const q = quantile(x, [0.25, 0.5, 0.75], { axis: -1 });    // [3, ...]: the quartiles of each row
 * const p = percentile(x, 90, { method: "nearest" });
 * const w = average(x, { axis: 1, weights: w1d });           // weights along axis 1
 * const n = nanquantile(x, 0.5, { axis: 0 });                // per column, NaN skipped
 * ```
 *
 * Every check (dtypes, axes, q, methods, weights' shapes) comes before anything is queued on the stream, and nothing
 * waits for it.
 *
 * @module
 */
import { DeviceArray, operationStream, type ReduceOptions } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { DTypeError, ShapeMismatchError } from "../errors.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { normalizeAxes, reducedShape, showShape } from "../broadcast.ts";
import { elementCount, sameShape } from "../layout.ts";
import { checkOutArray } from "./elementwise.ts";
import { promoteTypes } from "../promotion.ts";
import { mean, sum } from "../reductions.ts";
import { add, div, eq, lt, mul, sub } from "./arithmetic.ts";
import { astype, castInto } from "./cast.ts";
import { ceil, floor, isnan, rint } from "./math.ts";
import { takeAlongAxis } from "./indexing.ts";
import { skippingKernel } from "./nan-reductions.ts";
import { where } from "./selection.ts";
import { sort } from "./sort.ts";
import { withTemporaries } from "./temporaries.ts";
import { broadcastTo, checkArray, reshape, squeeze } from "./shape.ts";
import type { Stream } from "../../stream.ts";

// ---- median, quantile, percentile ----

/**
 * How a quantile between two order statistics is taken, as NumPy's `method` (with the virtual index `i = q * (n - 1)`
 * into a sorted slice of `n` elements): "linear" (the default: `a[⌊i⌋]` and `a[⌊i⌋ + 1]` interpolated), "lower"
 * (`a[⌊i⌋]`), "higher" (`a[⌈i⌉]`), "nearest" (the closer of the two, a tie to the even index, as NumPy's) or
 * "midpoint" (the two averaged, or the one where `i` is an integer).
 */
export type QuantileMethod = "linear" | "lower" | "higher" | "nearest" | "midpoint";

const METHODS: readonly QuantileMethod[] = ["linear", "lower", "higher", "nearest", "midpoint"];

/** Options of `median`: the reduction's axes and keepdims, and an `out`. */
export interface MedianOptions extends ReduceOptions {
  /**
   * The array the result is written into: the result's shape, a dtype the result converts to under "same_kind"
   * casting (a float or complex dtype).
   */
  readonly out?: DeviceArray;
}

/** Options of `quantile` and `percentile`: those of `median` and the method. */
export interface QuantileOptions extends MedianOptions {
  /** How a quantile between two elements is taken (default "linear"). */
  readonly method?: QuantileMethod;
}

/**
 * @internal What one quantile reads from a sorted slice (exported for tests): the positions of the two order
 * statistics, the weight `t` of the upper one (0: the lower one alone), and how the two combine: NumPy's
 * interpolation (`lerp`) or their mean (`median`'s, as NumPy's median takes the mean of the middle elements).
 */
export interface QuantilePick {
  readonly lower: number;
  readonly upper: number;
  readonly t: number;
  readonly combine: "lerp" | "mean";
}

/** `x` rounded to the nearest integer, a tie to the even one (NumPy's `around`). */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d !== 0.5) return d < 0.5 ? f : f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * @internal The order statistics the quantile `q` (in [0, 1]) of a sorted slice of `n` (> 0) elements reads, by
 * `method` or for the median (exported for tests): NumPy's virtual index `(n - 1) * q`, its floor and the next
 * position (both the last at the end), and the fraction between them.
 */
export function quantilePick(n: number, q: number, method: QuantileMethod | "median"): QuantilePick {
  const v = (n - 1) * q;
  const one = (k: number): QuantilePick => ({ lower: k, upper: k, t: 0, combine: "lerp" });
  switch (method) {
    case "lower":
      return one(Math.floor(v));
    case "higher":
      return one(Math.min(Math.ceil(v), n - 1));
    case "nearest":
      return one(Math.min(roundHalfEven(v), n - 1));
    case "midpoint":
    case "median": {
      const lo = Math.floor(v);
      const combine = method === "median" ? "mean" : "lerp";
      return lo >= n - 1 || lo === v ? { ...one(Math.min(lo, n - 1)), combine } : { lower: lo, upper: lo + 1, t: 0.5, combine };
    }
    case "linear": {
      const lo = Math.floor(v);
      return lo >= n - 1 || lo === v ? one(Math.min(lo, n - 1)) : { lower: lo, upper: lo + 1, t: v - lo, combine: "lerp" };
    }
  }
}

/**
 * @internal The dtype of a median or quantile of `dtype` (exported for tests): float64 for bool and integers, the
 * dtype itself for floats; complex is refused.
 */
export function orderStatisticDType(dtype: DType, what: string): DType {
  if (dtype.kind === "c") {
    throw new DTypeError(
      `${what}: a is ${dtype.name}, and complex numbers have no ${what} here (NumPy sorts them by real part, then imaginary part, but a ${what} in that order is rarely what is wanted); take the ${what} of real(a), imag(a) or abs(a) instead`,
    );
  }
  return dtype.kind === "f" ? dtype : dtypes.float64;
}

/** The quantiles asked for, checked on the host: each in [0, `scale`], divided by `scale`. */
function checkQ(q: unknown, scale: number, what: string): { qs: number[]; scalar: boolean } {
  const range = `[0, ${scale}]`;
  const fix = `pass ${scale === 1 ? "fractions from 0 to 1 (percentile takes percents)" : "percents from 0 to 100 (quantile takes fractions)"}`;
  if (typeof q === "number") {
    if (!(q >= 0 && q <= scale)) throw new ArgumentError(`${what}: q is a number in ${range} or a list of them, got ${describeValue(q)}; ${fix}`);
    return { qs: [q / scale], scalar: true };
  }
  if (!Array.isArray(q)) throw new ArgumentError(`${what}: q is a number in ${range} or a list of them, got ${describeValue(q)}; ${fix}`);
  const qs = (q as readonly unknown[]).map((x, k) => {
    if (typeof x !== "number" || !(x >= 0 && x <= scale)) throw new ArgumentError(`${what}: q[${k}] is ${describeValue(x)}, not a number in ${range}; ${fix}`);
    return x / scale;
  });
  return { qs, scalar: false };
}

/** What one median or quantile call was asked, checked: the array, its reduced axes, the result's shape and dtype. */
interface OrderRequest {
  readonly what: string;
  readonly a: DeviceArray;
  readonly axes: readonly number[];
  readonly keepdims: boolean;
  readonly picks: readonly ((n: number) => QuantilePick)[];
  /** The quantiles (fractions) and how each is taken ("median": the mean of the two middle elements). */
  readonly qs: readonly number[];
  readonly method: QuantileMethod | "median";
  /** The result's shape: q's axis (a list of q), then the kept axes (the reduced ones as 1 with keepdims). */
  readonly shape: readonly number[];
  readonly scalar: boolean;
  readonly dtype: DType;
  readonly out: DeviceArray | undefined;
}

/** Checks `median`'s and `quantile`'s array and options before anything is queued. */
function checkOrderRequest(what: string, array: unknown, options: QuantileOptions | undefined, qs: readonly number[], scalar: boolean, median: boolean): OrderRequest {
  const a = checkArray(array, what);
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError(`${what} takes options { axis?, keepdims?, ${median ? "" : "method?, "}out?, stream? }, got ${describeValue(options)}`);
  }
  const dtype = orderStatisticDType(a.dtype, what);
  const axes = normalizeAxes(options?.axis, a.ndim, what);
  const keepdims = options?.keepdims ?? false;
  if (typeof keepdims !== "boolean") throw new TypeError(`${what}: keepdims is a boolean, got ${describeValue(keepdims)}`);
  const method = median ? "median" : (options?.method ?? "linear");
  if (method !== "median" && !(METHODS as readonly unknown[]).includes(method)) {
    throw new ArgumentError(`${what}: method is one of ${METHODS.map((m) => `"${m}"`).join(", ")}, got ${describeValue(method)}`);
  }
  const shape = [...(scalar ? [] : [qs.length]), ...reducedShape(a.shape, axes, keepdims)];
  const out = checkOutArray(options?.out, shape, dtype, what, (got) => new ShapeMismatchError(`${what}: out has shape ${got} but the result has shape [${shape.join(", ")}]; pass an out of that shape`));
  return { what, a, axes, keepdims, picks: qs.map((q) => (n: number) => quantilePick(n, q, method)), qs, method, shape, scalar, dtype, out };
}

/**
 * The slices of `a` over `axes` sorted: a new contiguous array [...kept extents, n] (the kept axes in order, then the
 * reduced axes merged into one and sorted). One copy where the reduced axes are not already a contiguous run.
 */
function sortedSlices(a: DeviceArray, axes: readonly number[], stream: Stream): DeviceArray {
  const kept = [...a.shape.keys()].filter((d) => !axes.includes(d));
  const n = elementCount(axes.map((d) => a.shape[d]!));
  const moved = a.transpose([...kept, ...axes]);
  const rows = reshape(moved, [...kept.map((d) => a.shape[d]!), n], { stream });
  try {
    return sort(rows, { axis: -1, stream });
  } finally {
    if (rows.base === undefined) rows.close(stream); // reshape's own copy (a view always has a base)
  }
}

/** What every q of an order statistic shares: the stream, the sorted slices, their length, the compute dtype. */
interface SortedRequest {
  readonly stream: Stream;
  /** The array with its reduced axes merged into one last axis, each slice sorted (NaNs last). */
  readonly sorted: DeviceArray;
  /** The length of a slice. */
  readonly n: number;
  /** The dtype the values are combined in: float32 for half precision (rounded once), else the result's. */
  readonly compute: DType;
  /** Keeps a temporary of the whole request (closed at its end). */
  readonly keep: <A extends DeviceArray>(x: A) => A;
}

/**
 * The frame of the order statistics: the result (or `out`), NaN for empty slices, the sorted slices, and each q's
 * slot of the result (its kept axes alone: keepdims' axes of extent 1 dropped, as the slices' views) given to the
 * writer `prepare` returns, with a list its temporaries go to (closed once that q's value is queued). `prepare` runs
 * once, after the sort. The result is closed if anything throws (unless it is `out`).
 */
function eachQuantile(
  r: OrderRequest,
  options: ReduceOptions | undefined,
  prepare: (s: SortedRequest) => (j: number, into: DeviceArray, temp: <A extends DeviceArray>(x: A) => A) => void,
): DeviceArray {
  const { what, a, axes, dtype } = r;
  const stream = operationStream(what, options, [a, ...(r.out !== undefined ? [r.out] : [])]);
  const result = r.out ?? DeviceArray.empty(r.shape, dtype, { stream });
  const n = elementCount(axes.map((d) => a.shape[d]!));
  if (result.size === 0) return result;
  // An empty slice has no order statistics: NaN, as NumPy's median of an empty slice (NumPy warns; its quantile raises).
  if (n === 0) {
    result.fill(result.dtype.kind === "c" ? [NaN, 0] : NaN, { stream });
    return result;
  }
  // Half-precision results are computed in float32 and rounded once; integers and bool in float64.
  const compute = dtype.name === "float16" || dtype.name === "bfloat16" ? dtypes.float32 : dtype;
  try {
    withTemporaries(stream, (keep) => {
      const write = prepare({ stream, sorted: keep(sortedSlices(a, axes, stream)), n, compute, keep });
      for (let j = 0; j < r.qs.length; j++) {
        const slot = r.scalar ? result : result.slice(j);
        const into = r.keepdims && axes.length > 0 ? squeeze(slot, axes) : slot;
        withTemporaries(stream, (temp) => write(j, into, temp));
      }
    });
    return result;
  } catch (e) {
    if (r.out === undefined) result.close(stream);
    throw e;
  }
}

/** Computes a median or quantile request (see {@link quantile}). */
function orderStatistics(r: OrderRequest, options: ReduceOptions | undefined): DeviceArray {
  return eachQuantile(r, options, ({ stream, sorted, n, compute, keep }) => {
    const lead = sorted.shape.slice(0, -1).map(() => null);
    const at = (k: number): DeviceArray => sorted.slice(...lead, k);
    // A slice holding a NaN has it last once sorted, and its quantiles are NaN (as NumPy's).
    const last = at(n - 1);
    const nan = r.a.dtype.kind === "f" ? keep(isnan(last, { stream })) : undefined;
    return (j, into, temp) => {
      const p = r.picks[j]!(n);
      const inCompute = (x: DeviceArray): DeviceArray => (x.dtype === compute ? x : temp(astype(x, compute, { stream })));
      if (p.t === 0) castInto(stream, at(p.lower), into);
      else if (p.combine === "mean") {
        const s = temp(add(inCompute(at(p.lower)), inCompute(at(p.upper)), { stream }));
        div(s, 2, { stream, out: into });
      } else {
        // NumPy's lerp: lo + (hi - lo) * t below t = 0.5, hi - (hi - lo) * (1 - t) from it (exact at both ends).
        const lo = inCompute(at(p.lower));
        const hi = inCompute(at(p.upper));
        const d = temp(sub(hi, lo, { stream }));
        if (p.t < 0.5) {
          mul(d, p.t, { stream, out: d });
          add(lo, d, { stream, out: into });
        } else {
          mul(d, 1 - p.t, { stream, out: d });
          sub(hi, d, { stream, out: into });
        }
      }
      if (nan !== undefined) where(nan, last, into, { stream, out: into });
    };
  });
}

/**
 * The median of `a` over `axis` (default: every element), as NumPy's `median`: the middle element of each sorted
 * slice, or the mean of the two middle ones for an even count. float64 for bool and integers, the dtype for floats
 * (float16 stays float16, averaged in float32); complex is a DTypeError. A slice holding a NaN gives NaN; an empty
 * slice gives NaN (NumPy's too, with a warning). Sorts the slices (one sort over a copy of the reduced axes); a new
 * array (or `out`); does not wait for the stream.
 *
 * ```ts
 * median(x);                                    // [1, 3, 2, 4] → 2.5 (a 0-d array)
 * median(m, { axis: 0, keepdims: true });       // [1, n]: per column
 * ```
 */
export function median(a: DeviceArray, options?: MedianOptions): DeviceArray {
  return orderStatistics(checkOrderRequest("median", a, options, [0.5], true, true), options);
}

/**
 * The `q`-th quantiles of `a` over `axis` (default: every element), as NumPy's `quantile`: `q` a number in [0, 1]
 * (the kept axes' shape) or a list of them (q's axis first, as NumPy's), each taken from the sorted slices by `method`
 * (default "linear": `i = q * (n - 1)` interpolated between `a[⌊i⌋]` and the next element; see
 * {@link QuantileMethod}). float64 for bool and integers (NumPy keeps the integer dtype for "lower", "higher" and
 * "nearest"), the dtype for floats (a list of q too, where NumPy gives float64); complex is a DTypeError. Integers
 * interpolate in float64, half precision in float32. A slice holding a NaN gives NaN; an empty slice NaN (NumPy
 * raises). A position that falls on one element gives that element. A new array (or `out`); does not wait for the
 * stream.
 *
 * ```ts
 * quantile(x, 0.25);                               // [1, 2, 3, 4] → 1.75
 * quantile(x, [0.25, 0.75], { method: "lower" });  // [1, 3]
 * quantile(m, 0.5, { axis: 1, keepdims: true });   // [rows, 1]
 * ```
 */
export function quantile(a: DeviceArray, q: number | readonly number[], options?: QuantileOptions): DeviceArray {
  const { qs, scalar } = checkQ(q, 1, "quantile");
  return orderStatistics(checkOrderRequest("quantile", a, options, qs, scalar, false), options);
}

/**
 * The `q`-th percentiles of `a` over `axis`, as NumPy's `percentile`: {@link quantile} of `q / 100`, `q` a number in
 * [0, 100] or a list of them. Same methods, dtypes, NaN and empty slices as `quantile`.
 *
 * ```ts
 * percentile(x, 50);                             // the median of every element
 * percentile(x, [10, 90], { axis: 0 });          // [2, columns]
 * ```
 */
export function percentile(a: DeviceArray, q: number | readonly number[], options?: QuantileOptions): DeviceArray {
  const { qs, scalar } = checkQ(q, 100, "percentile");
  return orderStatistics(checkOrderRequest("percentile", a, options, qs, scalar, false), options);
}

// ---- nanmedian, nanquantile, nanpercentile ----

/**
 * Writes one NaN-skipping quantile of every sorted slice into `into` (the kept axes' shape): `sorted` is
 * [...kept, n] with each slice's NaNs last, `last` (float64, `into`'s shape) the position of each slice's last number
 * (its count of numbers less one; -1 for an all-NaN slice). The positions are computed per slice on the device, as
 * {@link quantilePick} computes them on the host from the slice's count, and gathered by `takeAlongAxis` ("clip":
 * an all-NaN slice reads its first element, a NaN). `temp` takes each temporary, closed by the caller.
 */
function nanQuantileInto(
  sorted: DeviceArray,
  last: DeviceArray,
  q: number,
  method: QuantileMethod | "median",
  compute: DType,
  into: DeviceArray,
  stream: Stream,
  temp: (x: DeviceArray) => DeviceArray,
): void {
  const on = { stream };
  const column = [...into.shape, 1];
  // NumPy's virtual index into each slice's numbers, (count - 1) * q, in float64 as quantilePick's.
  const v = temp(mul(last, q, on));
  // The elements at float64 positions (whole numbers), one per slice, in `into`'s shape.
  const at = (position: DeviceArray): DeviceArray => {
    const index = temp(astype(position, dtypes.int64, on)).reshape(column);
    return temp(takeAlongAxis(sorted, index, { axis: -1, mode: "clip", stream })).reshape(into.shape);
  };
  if (method === "lower" || method === "higher" || method === "nearest") {
    // ⌊v⌋, ⌈v⌉ or v rounded half to even: at most count - 1, as v is.
    const position = temp(method === "lower" ? floor(v, on) : method === "higher" ? ceil(v, on) : rint(v, on));
    castInto(stream, at(position), into);
    return;
  }
  const f = temp(floor(v, on));
  const lo = at(f);
  // ⌊v⌋ + 1 is a number's position wherever v is not a whole number (the one case that reads it).
  const hi = at(temp(add(f, 1, on)));
  const single = temp(eq(v, f, on));
  const inCompute = (x: DeviceArray): DeviceArray => (x.dtype === compute ? x : temp(astype(x, compute, on)));
  const loC = inCompute(lo);
  const hiC = inCompute(hi);
  let between: DeviceArray;
  if (method === "median") {
    between = temp(add(loC, hiC, on));
    div(between, 2, { stream, out: between });
  } else if (method === "midpoint") {
    // t = 0.5: hi - (hi - lo) * 0.5, as quantile's lerp.
    between = temp(sub(hiC, loC, on));
    mul(between, 0.5, { stream, out: between });
    sub(hiC, between, { stream, out: between });
  } else {
    // NumPy's lerp with each slice's t = v - ⌊v⌋: lo + (hi - lo) * t below t = 0.5, hi - (hi - lo) * (1 - t) from it;
    // t and 1 - t rounded to the compute dtype, as quantile's scalars are.
    const t = temp(sub(v, f, on));
    const below = temp(lt(t, 0.5, on));
    const rest = temp(sub(1, t, on));
    const d = temp(sub(hiC, loC, on));
    const up = temp(mul(d, inCompute(t), on));
    add(loC, up, { stream, out: up });
    mul(d, inCompute(rest), { stream, out: d });
    sub(hiC, d, { stream, out: d });
    between = temp(where(below, up, d, on));
  }
  // A position on a whole number reads that element alone, as quantilePick's.
  where(single, lo, between, { stream, out: into });
}

/** Computes a NaN-skipping median or quantile request (see {@link nanquantile}); bool and integers hold no NaN. */
function nanOrderStatistics(r: OrderRequest, options: ReduceOptions | undefined): DeviceArray {
  if (r.a.dtype.kind !== "f") return orderStatistics(r, options);
  return eachQuantile(r, options, ({ stream, sorted, compute, keep }) => {
    // The numbers of each slice (its NaNs sort last), less one: the position of its last number, float64.
    const count = keep(skippingKernel("count", r.a.dtype).launch(stream, sorted, { axis: [sorted.ndim - 1] }) as DeviceArray);
    const last = keep(astype(count, dtypes.float64, { stream }));
    sub(last, 1, { stream, out: last });
    return (j, into, temp) => nanQuantileInto(sorted, last, r.qs[j]!, r.method, compute, into, stream, temp);
  });
}

/**
 * The median of the numbers of `a` over `axis` (default: every element), NaN ignored, as NumPy's `nanmedian`: the
 * middle number of each slice, or the mean of the two middle ones for an even count. Dtypes as {@link median} (float64
 * for bool and integers, which hold no NaN and give `median`'s results; the dtype for floats, float16 averaged in
 * float32; complex is a DTypeError). A slice of NaN only, or an empty one, gives NaN (NumPy's too, with a warning:
 * here nothing is read back to warn). Sorts the slices once, counts each one's numbers and reads the middle ones at
 * positions computed on the device; a new array (or `out`); does not wait for the stream.
 *
 * ```ts
 * nanmedian(x);                               // [1, NaN, 3, 2] → 2 (a 0-d array)
 * nanmedian(m, { axis: 1, keepdims: true });  // [rows, 1]: per row, NaN skipped
 * ```
 */
export function nanmedian(a: DeviceArray, options?: MedianOptions): DeviceArray {
  return nanOrderStatistics(checkOrderRequest("nanmedian", a, options, [0.5], true, true), options);
}

/**
 * The `q`-th quantiles of the numbers of `a` over `axis` (default: every element), NaN ignored, as NumPy's
 * `nanquantile`: each slice's quantile as {@link quantile} takes it from the slice's numbers alone (`i = q * (count -
 * 1)`, count the numbers of that slice), by `method`. `q` a number in [0, 1] or a list of them (q's axis first);
 * dtypes, methods and `out` as `quantile` (bool and integers hold no NaN and give `quantile`'s results). A slice of NaN
 * only, or an empty one, gives NaN (NumPy's too, with a warning; for an empty array and a list of q NumPy also drops
 * q's axis, which this keeps). A new array (or `out`); does not wait for the stream.
 *
 * ```ts
 * nanquantile(x, 0.5);                                   // [1, NaN, 4, 2] → 2
 * nanquantile(m, [0.25, 0.75], { axis: 0, method: "lower" }); // [2, columns]
 * ```
 */
export function nanquantile(a: DeviceArray, q: number | readonly number[], options?: QuantileOptions): DeviceArray {
  const { qs, scalar } = checkQ(q, 1, "nanquantile");
  return nanOrderStatistics(checkOrderRequest("nanquantile", a, options, qs, scalar, false), options);
}

/**
 * The `q`-th percentiles of the numbers of `a` over `axis`, NaN ignored, as NumPy's `nanpercentile`:
 * {@link nanquantile} of `q / 100`, `q` a number in [0, 100] or a list of them.
 *
 * ```ts
 * nanpercentile(x, 50);                         // nanmedian's value, for a float array
 * nanpercentile(m, [10, 90], { axis: 1 });      // [2, rows]
 * ```
 */
export function nanpercentile(a: DeviceArray, q: number | readonly number[], options?: QuantileOptions): DeviceArray {
  const { qs, scalar } = checkQ(q, 100, "nanpercentile");
  return nanOrderStatistics(checkOrderRequest("nanpercentile", a, options, qs, scalar, false), options);
}

// ---- average ----

/** Options of `average`: the reduction's axes and keepdims, the weights, and whether the sum of weights comes back. */
export interface AverageOptions extends Omit<ReduceOptions, "out"> {
  /**
   * The weight of each element: an array of `a`'s shape, or a 1-d array of `a`'s extent along a single `axis`
   * (default: every element weighs 1, the mean).
   */
  readonly weights?: DeviceArray;
  /** Whether the sum of the weights comes back with the average (default false). */
  readonly returned?: boolean;
}

/** What `average` gives with `{ returned: true }`: the average and the sum of the weights, both of the result's shape and dtype. */
export interface AverageResult {
  readonly average: DeviceArray;
  readonly sumOfWeights: DeviceArray;
}

/**
 * @internal The dtype of a weighted `average` of `a` and `weights` (exported for tests), as NumPy's: the two promoted, and at
 * least float64 where `a` is bool or an integer.
 */
export function averageDType(a: DType, weights: DType): DType {
  const d = promoteTypes(a, weights);
  return a.kind === "b" || a.kind === "i" || a.kind === "u" ? promoteTypes(d, dtypes.float64) : d;
}

/**
 * The weighted average of `a` over `axis` (default: every element), as NumPy's `average`: without weights the mean
 * (`mean`'s dtype), with them `sum(a * weights) / sum(weights)` over the axes, in `a` and the weights' promoted dtype
 * (at least float64 for bool and integer `a`). `weights` has `a`'s shape, or is 1-d along a single `axis`. A zero sum
 * of weights gives infinities or NaN, as a division does (NumPy raises ZeroDivisionError, which needs the sum on the
 * host: here nothing waits for the stream). `{ returned: true }` gives `{ average, sumOfWeights }` (without weights,
 * the count of elements averaged), both of the result's shape.
 *
 * ```ts
 * average(x);                                            // the mean
 * average(m, { axis: 1, weights: w });                   // w: 1-d, m.shape[1] long
 * const { average: avg, sumOfWeights } = average(m, { weights: wm, returned: true });
 * ```
 */
export function average(a: DeviceArray, options: AverageOptions & { readonly returned: true }): AverageResult;
/** The weighted average of `a` over `axis` (see the first overload), a new array. */
export function average(a: DeviceArray, options?: AverageOptions & { readonly returned?: false }): DeviceArray;
/** The weighted average of `a` over `axis`, and with `returned` the sum of the weights (see the first overload). */
export function average(a: DeviceArray, options?: AverageOptions): DeviceArray | AverageResult;
export function average(array: DeviceArray, options?: AverageOptions): DeviceArray | AverageResult {
  const what = "average";
  if (!(array instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(array)}`);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { axis?, weights?, keepdims?, returned?, stream? }, got ${describeValue(options)}`);
  const a = array;
  const axes = normalizeAxes(options?.axis, a.ndim, what);
  const keepdims = options?.keepdims ?? false;
  if (typeof keepdims !== "boolean") throw new TypeError(`${what}: keepdims is a boolean, got ${describeValue(keepdims)}`);
  const returned = options?.returned ?? false;
  if (typeof returned !== "boolean") throw new TypeError(`${what}: returned is a boolean, got ${describeValue(returned)}`);
  if ((options as { readonly out?: unknown } | undefined)?.out !== undefined) {
    throw new TypeError(`${what} takes no out (as NumPy's average): it returns a new array; copy it into yours with out.copyFrom(average(...))`);
  }
  const w = options?.weights;
  if (w !== undefined && !(w instanceof DeviceArray)) throw new TypeError(`${what}: weights is a DeviceArray, not ${describeValue(w)}`);
  // Weights of another shape: 1-d along one axis, seen with extent 1 on the others.
  let along: number[] | undefined;
  if (w !== undefined && !sameShape(w.shape, a.shape)) {
    const other = `weights of shape ${showShape(w.shape)} for a of shape ${showShape(a.shape)}`;
    if (options?.axis === undefined || options.axis === null) throw new ShapeMismatchError(`${what}: ${other}: weights of another shape than a are 1-d along one axis; pass { axis }, or weights of a's shape`);
    if (axes.length !== 1) throw new ShapeMismatchError(`${what}: ${other} over axes [${axes.join(", ")}]: 1-d weights go along a single axis; pass one axis, or weights of a's shape`);
    const axis = axes[0]!;
    if (w.ndim !== 1) throw new ShapeMismatchError(`${what}: ${other}: weights of another shape than a are 1-d; pass 1-d weights of length ${a.shape[axis]} (a's extent along axis ${axis}), or weights of a's shape`);
    if (w.shape[0] !== a.shape[axis]) throw new ShapeMismatchError(`${what}: ${other}: the weights' length ${w.shape[0]} is not a's extent ${a.shape[axis]} along axis ${axis}; pass one weight for each element along it`);
    along = a.shape.map((_, d) => (d === axis ? a.shape[axis]! : 1));
  }
  const stream = operationStream(what, options, [a, ...(w !== undefined ? [w] : [])]);
  const reduce = { axis: axes, keepdims, stream };
  if (w === undefined) {
    const avg = mean(a, reduce);
    if (!returned) return avg;
    const count = elementCount(axes.map((d) => a.shape[d]!));
    try {
      return { average: avg, sumOfWeights: DeviceArray.full(avg.shape, avg.dtype.kind === "c" ? [count, 0] : count, avg.dtype, { stream }) };
    } catch (e) {
      avg.close(stream);
      throw e;
    }
  }
  const dtype = averageDType(a.dtype, w.dtype);
  // Temporaries, and the results until they are handed out (closed on an error too).
  const temps: DeviceArray[] = [];
  const keep = (x: DeviceArray): DeviceArray => {
    temps.push(x);
    return x;
  };
  try {
    const wd = w.dtype === dtype ? w : keep(astype(w, dtype, { stream }));
    let wide = wd;
    if (along !== undefined) {
      const shaped = reshape(wd, along, { stream }); // a view: 1-d weights take axes of extent 1 without copying
      if (shaped.base === undefined) keep(shaped);
      wide = broadcastTo(shaped, a.shape);
    }
    const scale = keep(sum(wide, reduce));
    const avg = keep(sum(keep(mul(a, wide, { stream })), reduce));
    div(avg, scale, { stream, out: avg });
    temps.splice(temps.indexOf(avg), 1);
    if (!returned) return avg;
    temps.splice(temps.indexOf(scale), 1);
    return { average: avg, sumOfWeights: scale };
  } finally {
    for (const t of temps) t.close(stream);
  }
}
