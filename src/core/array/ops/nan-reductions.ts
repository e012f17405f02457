/**
 * NumPy's NaN-ignoring reductions (`nansum`, `nanprod`, `nanmean`, `nanvar`, `nanstd`, `nanmin`, `nanmax`,
 * `nanargmin`, `nanargmax`), scans (`nancumsum`, `nancumprod`) and `ptp`. Each NaN-skipping
 * reduction is one pass of a {@link ReductionKernel} whose map turns a NaN into the reduction's identity (0 for a
 * sum, 1 for a product, the opposite infinity for a min or max), so it moves the bytes of a plain `sum`;
 * `nanmean`, `nanmin` and `nanmax` add a second pass that counts the elements that are not NaN (the mean's divisor,
 * and where every element was NaN). `nanvar` and `nanstd` compose these: the NaN-skipping mean (kept axes), the
 * squared deviations from it, their NaN-skipping sum divided by `count - ddof`. Integer and bool arrays hold no NaN
 * and reduce as they are. The NaN-skipping scans and arg-reductions scan or reduce a copy with each NaN replaced, as
 * NumPy's do (by 0 or 1; by the infinity that never wins); `nanargmin` and `nanargmax` read back whether a slice
 * holds only NaN (NumPy's "All-NaN slice encountered"), so they wait for the stream.
 *
 * @module
 */
import { DeviceArray, operationStream, type ReduceOptions } from "../device-array.ts";
import type { ArgReduceOptions, ScanOptions, SumOptions, VarianceOptions } from "../options.ts";
import type { Stream } from "../../stream.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import type { DType } from "../dtype.ts";
import { DTypeError, ShapeMismatchError } from "../errors.ts";
import { normalizeAxes } from "../broadcast.ts";
import { elementCount } from "../layout.ts";
import { ReductionKernel } from "../../kernels/reduction.ts";
import { checkReduceOut, deliverReduction, extreme, max, mean, min, prod, reductionDTypes, requestedDType, sum, sumDTypes, toReduceType } from "../reductions.ts";
import { div, le, sub } from "./arithmetic.ts";
import { abs, isnan, logicalNot, sqrt, square } from "./math.ts";
import { where } from "./selection.ts";
import { all, any, argReduce, std, variance, varianceDTypes } from "./statistics.ts";
import { scan } from "./scan.ts";

/** Whether `a`'s dtype can hold NaN (floats and complex). */
const holdsNaN = (a: DeviceArray): boolean => a.dtype.kind === "f" || a.dtype.kind === "c";

/** What one NaN-skipping reduction was asked: the array, its stream, the axes (normalised), keepdims and the out. */
interface Request {
  readonly a: DeviceArray;
  /** The stream, axes and keepdims, without the out (for the passes). */
  readonly reduce: ReduceOptions;
  readonly call: { readonly axis: readonly number[]; readonly keepdims: boolean };
  /** Elements reduced into each result element. */
  readonly reduced: number;
  /** The array the result goes into, checked against `result`'s dtype. */
  readonly out: DeviceArray | undefined;
  /** The dtype `{ dtype }` asked for (nansum, nanprod, nanmean), or undefined. */
  readonly dtype: DType | undefined;
}

/**
 * Checks the array and options (axes, keepdims, an out for a result of dtype `result(a.dtype)`) before anything is
 * queued; the stream the passes run on.
 */
function prepare(array: unknown, options: SumOptions | undefined, what: string, result: (d: DType, requested: DType | undefined) => DType): Request {
  if (!(array instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(array)}`);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { axis?, keepdims?, out?, stream? }, got ${describeValue(options)}`);
  const a = array;
  const axis = normalizeAxes(options?.axis, a.ndim, what);
  const keepdims = options?.keepdims ?? false;
  if (typeof keepdims !== "boolean") throw new TypeError(`${what}: keepdims is a boolean, got ${describeValue(keepdims)}`);
  const dtype = requestedDType(what, options?.dtype);
  const out = checkReduceOut(options?.out, a, axis, keepdims, result(a.dtype, dtype), what);
  const stream = operationStream(what, options, out === undefined ? [a] : [a, out]);
  return { a, reduce: { axis, keepdims, stream }, call: { axis, keepdims }, reduced: elementCount(axis.map((d) => a.shape[d]!)), out, dtype };
}

/** The options of a plain reduction standing in for a NaN-skipping one (a dtype without NaN): the request's, with its out. */
const plain = (r: Request): SumOptions => ({ ...r.reduce, ...(r.out === undefined ? {} : { out: r.out }), ...(r.dtype === undefined ? {} : { dtype: r.dtype }) });

/** @internal The map's NaN test and replacement (a NaN is the one value unequal to itself; a complex one in either part). */
export const NAN_PREAMBLE = "template <typename V> __device__ __forceinline__ V cuda_ts_nan_as(const V& v, const V& r) { return v != v ? r : v; }";

const kernels = new Map<string, ReductionKernel>();

/** @internal The NaN-skipping reductions' kernels. */
export type Skipping = "sum" | "prod" | "min" | "max" | "count";

/**
 * @internal The NaN-skipping kernel of `op` for a float or complex `dtype`: "sum" and "prod" in the dtypes of `sum` and `prod`,
 * "min" and "max" in the dtype itself (floats only), "count" the elements that are not NaN (int64).
 */
export function skippingKernel(op: Skipping, dtype: DType, requested?: DType): ReductionKernel {
  const key = requested === undefined ? `${op}|${dtype.name}` : `${op}|${dtype.name}|${requested.name}`;
  let k = kernels.get(key);
  if (k !== undefined) return k;
  const name = requested === undefined ? `cuda_ts_nan${op}_${dtype.name}` : `cuda_ts_nan${op}_${dtype.name}_as_${requested.name}`;
  const half = dtype.name === "float16" || dtype.name === "bfloat16";
  const isNaN = half ? "((float)(x) != (float)(x))" : "(x != x)";
  if (op === "count") {
    k = new ReductionKernel("T x", "int64 y", `${isNaN} ? 0 : 1`, "a + b", "y = a", "0", name, { reduceType: "int64" });
  } else {
    const { out, accumulate } = requested !== undefined && (op === "sum" || op === "prod") ? sumDTypes(op, dtype, requested) : reductionDTypes(op, dtype);
    const [reduce, identity] =
      op === "sum" ? ["a + b", "0"] : op === "prod" ? ["a * b", "1"] : op === "min" ? ["(a < b) ? a : b", extreme(accumulate, true)] : ["(a > b) ? a : b", extreme(accumulate, false)];
    // In the array's own dtype the NaN test comes after the conversion (NaN stays NaN); in a requested one (an
    // integer, say) it must come first.
    const map = requested === undefined ? `cuda_ts_nan_as((_type_reduce)(x), (_type_reduce)(${identity}))` : `${isNaN} ? (_type_reduce)(${identity}) : ${toReduceType(dtype)}`;
    k = new ReductionKernel("T x", `${out.name} y`, map, reduce, `y = (${out.ctype})(a)`, identity, name, { reduceType: accumulate.name, ...(requested === undefined ? { preamble: NAN_PREAMBLE } : {}) });
  }
  kernels.set(key, k);
  return k;
}

/** One pass of the NaN-skipping kernel `op` over the request's axes (into `into`, an out of the kernel's dtype, when given). */
function run(op: Skipping, r: Request, into?: DeviceArray): DeviceArray {
  const k = skippingKernel(op, r.a.dtype, op === "sum" || op === "prod" ? r.dtype : undefined);
  return (into === undefined ? k.launch(r.reduce.stream!, r.a, r.call) : k.launch(r.reduce.stream!, r.a, into, r.call)) as DeviceArray;
}

/** The request's out when the pass of `op` can write it itself (its dtype is the result's), else undefined. */
const direct = (op: "sum" | "prod", r: Request): DeviceArray | undefined => (r.out !== undefined && r.out.dtype === sumDTypes(op, r.a.dtype, r.dtype).out ? r.out : undefined);

/** The sum over `axis` (default: all) treating NaN as 0, as NumPy's `nansum` (the dtype of `sum`). */
export function nansum(array: DeviceArray, options?: SumOptions): DeviceArray {
  const r = prepare(array, options, "nansum", (d, q) => sumDTypes("sum", d, q).out);
  return holdsNaN(r.a) ? deliverReduction(r.reduce.stream!, run("sum", r, direct("sum", r)), r.out) : sum(r.a, plain(r));
}

/** The product over `axis` (default: all) treating NaN as 1, as NumPy's `nanprod` (the dtype of `prod`). */
export function nanprod(array: DeviceArray, options?: SumOptions): DeviceArray {
  const r = prepare(array, options, "nanprod", (d, q) => sumDTypes("prod", d, q).out);
  return holdsNaN(r.a) ? deliverReduction(r.reduce.stream!, run("prod", r, direct("prod", r)), r.out) : prod(r.a, plain(r));
}

/**
 * The mean of the elements that are not NaN over `axis` (default: all), as NumPy's `nanmean`: NaN where every
 * element is NaN; the dtype of `mean` (float64 for integers, the dtype for floats).
 */
export function nanmean(array: DeviceArray, options?: SumOptions): DeviceArray {
  const r = prepare(array, options, "nanmean", (d, q) => {
    if (q !== undefined && (d.kind === "f" || d.kind === "c") && q.kind !== "f" && q.kind !== "c") {
      throw new DTypeError(`nanmean: a ${d.name} array's mean is computed in a float or complex dtype, not ${q.name}; ask for one, or convert the result with astype`);
    }
    return sumDTypes("mean", d, q).out;
  });
  if (!holdsNaN(r.a)) return mean(r.a, plain(r));
  const total = run("sum", r);
  using count = run("count", r);
  // The count is int64: divided into the sum's own dtype (float32 stays float32, as NumPy's nanmean); 0/0 is NaN.
  return deliverReduction(r.reduce.stream!, div(total, count, { stream: r.reduce.stream!, out: total }), r.out);
}

/** `nanvar` and `nanstd`: the squared deviations from the NaN-skipping mean, summed skipping NaN, over `count - ddof`. */
function nanVarianceOf(what: "nanvar" | "nanstd", array: DeviceArray, options: VarianceOptions | undefined): DeviceArray {
  const ddof = options?.ddof ?? 0;
  if (typeof ddof !== "number" || !Number.isFinite(ddof)) throw new ArgumentError(`${what}: ddof is a finite number, got ${describeValue(ddof)}`);
  const r = prepare(array, options, what, (d) => varianceDTypes(d).out);
  if (!holdsNaN(r.a)) return (what === "nanvar" ? variance : std)(r.a, { ...plain(r), ddof });
  const stream = r.reduce.stream!;
  // One count of the numbers per slice (kept axes) serves the mean and the divisor.
  const kept: Request = { ...r, reduce: { ...r.reduce, keepdims: true }, call: { ...r.call, keepdims: true }, out: undefined, dtype: undefined };
  using count = run("count", kept);
  // The NaN-skipping mean, as nanmean's: the sum in its own dtype divided by the count; 0/0 is NaN.
  using m = run("sum", kept);
  div(m, count, { stream, out: m });
  using deviation = sub(r.a, m, { stream });
  // |x - m|^2: a complex deviation's magnitude first (the real dtype), then squared in place; NaN stays NaN.
  using magnitude = r.a.dtype.kind === "c" ? abs(deviation, { stream }) : undefined;
  const squares = square(magnitude ?? deviation, { stream, out: magnitude ?? deviation });
  const total = run("sum", { ...r, a: squares, dtype: undefined });
  // count - ddof per slice (int64, or float64 for a fractional ddof), in the result's shape; NaN where it is <= 0, as NumPy's.
  using divisor = sub(count.reshape(total.shape), ddof, { stream });
  using none = le(divisor, 0, { stream });
  div(total, divisor, { stream, out: total });
  where(none, NaN, total, { stream, out: total });
  return deliverReduction(stream, what === "nanstd" ? sqrt(total, { stream, out: total }) : total, r.out);
}

/**
 * The variance of the elements that are not NaN over `axis` (default: all), as NumPy's `nanvar`: the mean of
 * `|x - nanmean|^2` over each slice's numbers, divided by `count - ddof` (ddof default 0), NaN where that is <= 0 (an
 * all-NaN slice, say). Dtypes as {@link variance}: float64 for bool and integers (which hold no NaN: their `variance`),
 * the real dtype for complex, the dtype for floats. Errors before anything is queued: a TypeError for a non-array,
 * an AxisError for a bad axis, an ArgumentError for a ddof that is not a finite number, a ShapeMismatchError or
 * DTypeError for an `out` of another shape or a dtype the result cannot be stored in.
 *
 * ```ts
 * const v = nanvar(x, { axis: 0, ddof: 1 }); // the sample variance of each column, NaN skipped
 * ```
 */
export function nanvar(a: DeviceArray, options?: VarianceOptions): DeviceArray {
  return nanVarianceOf("nanvar", a, options);
}

/**
 * The standard deviation of the elements that are not NaN over `axis` (default: all), as NumPy's `nanstd`: the
 * square root of {@link nanvar} (same dtypes, options and errors).
 *
 * ```ts
 * const s = nanstd(x, { axis: -1, keepdims: true }); // one per row, NaN skipped, broadcastable against x
 * ```
 */
export function nanstd(a: DeviceArray, options?: VarianceOptions): DeviceArray {
  return nanVarianceOf("nanstd", a, options);
}

/** `nanmin` and `nanmax`: the extreme with NaN as the opposite infinity, then NaN where no element was a number. */
function nanExtreme(what: "nanmin" | "nanmax", array: DeviceArray, options: ReduceOptions | undefined): DeviceArray {
  const op = what === "nanmin" ? "min" : "max";
  // The checks of min and max first: ordered dtypes only (reductionDTypes), and no empty reduction (no identity).
  const r = prepare(array, options, what, (d) => reductionDTypes(op, d).out);
  if (!holdsNaN(r.a)) return (op === "min" ? min : max)(r.a, plain(r));
  if (r.reduced === 0) {
    throw new ShapeMismatchError(`${what}: reducing [${r.a.shape.join(", ")}] over axes [${r.call.axis.join(", ")}] reduces zero elements, and ${what} has no identity; reduce a non-empty array`);
  }
  const extremes = run(op, r);
  using count = run("count", r);
  using none = logicalNot(count, { stream: r.reduce.stream! });
  return deliverReduction(r.reduce.stream!, where(none, NaN, extremes, { stream: r.reduce.stream!, out: extremes }), r.out);
}

/** The least element over `axis` (default: all) ignoring NaN, as NumPy's `nanmin`: NaN where every element is NaN. */
export function nanmin(a: DeviceArray, options?: ReduceOptions): DeviceArray {
  return nanExtreme("nanmin", a, options);
}

/** The greatest element over `axis` (default: all) ignoring NaN, as NumPy's `nanmax`: NaN where every element is NaN. */
export function nanmax(a: DeviceArray, options?: ReduceOptions): DeviceArray {
  return nanExtreme("nanmax", a, options);
}

/** The range `max - min` over `axis` (default: all), as NumPy's `ptp` (the array's dtype; integers wrap as NumPy's). */
export function ptp(array: DeviceArray, options?: ReduceOptions): DeviceArray {
  const { a, reduce, out } = prepare(array, options, "ptp", (d) => reductionDTypes("max", d).out);
  const hi = max(a, reduce);
  using lo = min(a, reduce);
  return deliverReduction(reduce.stream!, sub(hi, lo, { stream: reduce.stream!, out: hi }), out);
}

/** `a` with each NaN replaced by `value` (a complex element with a NaN part as a whole), a new array of its dtype. */
const replaceNaN = (a: DeviceArray, value: number, stream: Stream): DeviceArray => {
  using mask = isnan(a, { stream });
  return where(mask, value, a, { stream });
};

/**
 * The running sum of `a` along `axis` (default: the flattened array, a 1-d result) with NaN counted as 0, as NumPy's
 * `nancumsum`: leading NaNs give 0, an all-NaN run keeps the sum before it. Options, dtypes and errors as
 * `cumsum` (integer and bool arrays hold no NaN and are scanned as they are); a float or complex array is
 * scanned through a copy with its NaNs replaced (a complex element with a NaN part becomes 0 as a whole, as NumPy's).
 *
 * ```ts
 * nancumsum(x);                  // [1, NaN, 2] → [1, 1, 3]
 * ```
 */
export function nancumsum(a: DeviceArray, options?: ScanOptions): DeviceArray {
  return scan("sum", a, options, "nancumsum", a instanceof DeviceArray && holdsNaN(a) ? (x, stream) => replaceNaN(x, 0, stream) : undefined);
}

/**
 * The running product of `a` along `axis` (default: the flattened array) with NaN counted as 1, as NumPy's
 * `nancumprod`; options, dtypes and errors as `cumprod` (see {@link nancumsum}).
 *
 * ```ts
 * nancumprod(x);                 // [NaN, 2, 3] → [1, 2, 6]
 * ```
 */
export function nancumprod(a: DeviceArray, options?: ScanOptions): DeviceArray {
  return scan("prod", a, options, "nancumprod", a instanceof DeviceArray && holdsNaN(a) ? (x, stream) => replaceNaN(x, 1, stream) : undefined);
}

/** `nanargmin` and `nanargmax`: NumPy's all-NaN check (read back), then the arg-reduction of a copy with NaN as the infinity that never wins. */
function nanArgReduce(what: "nanargmin" | "nanargmax", a: DeviceArray, options: ArgReduceOptions | undefined): DeviceArray<"int64"> {
  const isMax = what === "nanargmax";
  if (!(a instanceof DeviceArray) || !holdsNaN(a)) return argReduce(what, isMax, a, options);
  return argReduce(what, isMax, a, options, (x, stream, axis) => {
    using mask = isnan(x, { stream });
    using allNaN = all(mask, { stream, ...(axis === undefined ? {} : { axis }) });
    // Over the flattened array, all's result is already the one flag.
    using found = axis === undefined ? undefined : any(allNaN, { stream });
    if (((found ?? allNaN).toTypedArraySync({ stream }) as Uint8Array)[0] !== 0) {
      const slice = axis === undefined ? `every element of the array of shape [${x.shape.join(", ")}] is NaN` : `a slice along axis ${axis} of the array of shape [${x.shape.join(", ")}] holds only NaN`;
      throw new ArgumentError(
        `${what}: All-NaN slice encountered: ${slice}, and it has no ${isMax ? "greatest" : "least"} number (found on the device, read back at this call); replace the NaNs first (nanToNum, where) or use ${isMax ? "argmax" : "argmin"}, where NaN wins`,
      );
    }
    return where(mask, isMax ? -Infinity : Infinity, x, { stream });
  });
}

/**
 * The index of the least element of `a` ignoring NaN (the first one), as NumPy's `nanargmin`: over the flattened array
 * (row-major) by default, or along `options.axis` (`keepdims` as `argmin`); an int64 array. NaN is read as
 * +infinity, so a slice of NaN and +infinity gives the first of them, as NumPy's. A slice holding only NaN is an
 * ArgumentError, as NumPy's ValueError "All-NaN slice encountered": that is found on the device and read back, so for
 * a float or complex array the call **waits for the stream** (one boolean read; integer and bool arrays are
 * `argmin` and do not wait). An empty array (or axis) is a ShapeMismatchError, as for `argmin`.
 *
 * ```ts
 * nanargmin(x, { axis: 1 });     // [[NaN, 2, 1], [3, NaN, 0]] → [2, 2]
 * ```
 */
export function nanargmin(a: DeviceArray, options?: ArgReduceOptions): DeviceArray<"int64"> {
  return nanArgReduce("nanargmin", a, options);
}

/**
 * The index of the greatest element of `a` ignoring NaN (the first one), as NumPy's `nanargmax`: NaN is read as
 * -infinity; an all-NaN slice is an ArgumentError found on the device, so the call waits for the stream (see
 * {@link nanargmin}).
 *
 * ```ts
 * nanargmax(x);                  // [NaN, 4, 7, NaN] → 2
 * ```
 */
export function nanargmax(a: DeviceArray, options?: ArgReduceOptions): DeviceArray<"int64"> {
  return nanArgReduce("nanargmax", a, options);
}
