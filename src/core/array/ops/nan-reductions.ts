/**
 * NumPy's NaN-ignoring reductions (`nansum`, `nanprod`, `nanmean`, `nanmin`, `nanmax`) and `ptp`, composed of the
 * array operations: a NaN is replaced by the reduction's identity (`where`), then the plain reduction runs over the
 * same axes. Integer and bool arrays hold no NaN and reduce as they are. Each composed step is a kernel of its own
 * (a replacement pass, then the reduction), so these move about three times the bytes of a plain `sum`.
 *
 * @module
 */
import { DeviceArray, operationStream, type ReduceOptions } from "../device-array.ts";
import { describeValue } from "../../../errors/describe.ts";
import { max, mean, min, prod, sum } from "../reductions.ts";
import { div, sub } from "./arithmetic.ts";
import { isnan, logicalNot } from "./math.ts";
import { where } from "./selection.ts";
import { all, countNonzero } from "./statistics.ts";

/** Whether `a`'s dtype can hold NaN (floats and complex). */
const holdsNaN = (a: DeviceArray): boolean => a.dtype.kind === "f" || a.dtype.kind === "c";

/** Checks the array and options; the stream the steps run on. */
function prepare(a: unknown, options: ReduceOptions | undefined, what: string): { a: DeviceArray; reduce: ReduceOptions } {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(a)}`);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { axis?, keepdims?, stream? }, got ${describeValue(options)}`);
  const stream = operationStream(what, options, [a]);
  return { a, reduce: { ...options, stream } };
}

/** `a` with each element where `nan` is set replaced by `value` (a new array), on the reduction's stream. */
function replaceNaN(a: DeviceArray, nan: DeviceArray, value: number, reduce: ReduceOptions): DeviceArray {
  return where(nan, value, a, { stream: reduce.stream! });
}

/** The sum of `a` with NaN as 0, given its NaN mask. */
function sumSkipping(a: DeviceArray, nan: DeviceArray, reduce: ReduceOptions): DeviceArray {
  using clean = replaceNaN(a, nan, 0, reduce);
  return sum(clean, reduce);
}

/** The sum over `axis` (default: all) treating NaN as 0, as NumPy's `nansum` (the dtype of `sum`). */
export function nansum(array: DeviceArray, options?: ReduceOptions): DeviceArray {
  const { a, reduce } = prepare(array, options, "nansum");
  if (!holdsNaN(a)) return sum(a, reduce);
  using nan = isnan(a, { stream: reduce.stream! });
  return sumSkipping(a, nan, reduce);
}

/** The product over `axis` (default: all) treating NaN as 1, as NumPy's `nanprod` (the dtype of `prod`). */
export function nanprod(array: DeviceArray, options?: ReduceOptions): DeviceArray {
  const { a, reduce } = prepare(array, options, "nanprod");
  if (!holdsNaN(a)) return prod(a, reduce);
  using nan = isnan(a, { stream: reduce.stream! });
  using clean = replaceNaN(a, nan, 1, reduce);
  return prod(clean, reduce);
}

/**
 * The mean of the elements that are not NaN over `axis` (default: all), as NumPy's `nanmean`: NaN where every
 * element is NaN; the dtype of `mean` (float64 for integers, the dtype for floats).
 */
export function nanmean(array: DeviceArray, options?: ReduceOptions): DeviceArray {
  const { a, reduce } = prepare(array, options, "nanmean");
  if (!holdsNaN(a)) return mean(a, reduce);
  using nan = isnan(a, { stream: reduce.stream! });
  const total = sumSkipping(a, nan, reduce);
  using kept = logicalNot(nan, { stream: reduce.stream! });
  using count = countNonzero(kept, reduce);
  // The count is int64: divided into the sum's own dtype (float32 stays float32, as NumPy's nanmean); 0/0 is NaN.
  return div(total, count, { stream: reduce.stream!, out: total });
}

/** `nanmin` and `nanmax`: the extreme with NaN replaced by the opposite infinity, then NaN where all were NaN. */
function nanExtreme(what: "nanmin" | "nanmax", array: DeviceArray, options: ReduceOptions | undefined): DeviceArray {
  const { a, reduce } = prepare(array, options, what);
  const plain = what === "nanmin" ? min : max;
  if (!holdsNaN(a)) return plain(a, reduce);
  using nan = isnan(a, { stream: reduce.stream! });
  using clean = replaceNaN(a, nan, what === "nanmin" ? Infinity : -Infinity, reduce);
  const extreme = plain(clean, reduce);
  using allNaN = all(nan, reduce);
  return where(allNaN, NaN, extreme, { stream: reduce.stream!, out: extreme });
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
  const { a, reduce } = prepare(array, options, "ptp");
  const hi = max(a, reduce);
  using lo = min(a, reduce);
  return sub(hi, lo, { stream: reduce.stream!, out: hi });
}
