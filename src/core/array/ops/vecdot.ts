/**
 * `vecdot`: the dot product of vectors along one axis of two arrays, broadcast over the others, as NumPy 2's
 * `vecdot` (the array API's): `sum(conj(a) * b, axis)` in the operands' promoted dtype.
 *
 * ```ts
 * const d = vecdot(rows, v);              // [m, n] · [n] → [m]: each row's dot product with v
 * const e = vecdot(a, b, { axis: 0 });    // along the first axis of each
 * ```
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { ShapeMismatchError } from "../errors.ts";
import { normalizeAxis } from "../broadcast.ts";
import { promoteTypes } from "../promotion.ts";
import { astype } from "./cast.ts";
import { sum } from "../reductions.ts";
import { describeValue } from "../../../errors/describe.ts";
import { logicalAnd, mul } from "./arithmetic.ts";
import { conj } from "./math.ts";
import { any } from "./statistics.ts";
import { checkArray, moveaxis } from "./shape.ts";
import { withTemporaries } from "./temporaries.ts";

/** Options of `vecdot`: the axis of the vectors, where the result goes, the stream. */
export interface VecdotOptions extends ArrayOperationOptions {
  /** The axis holding the vectors, in each operand (default -1, the last; negative counts from the end). */
  readonly axis?: number;
  /** The array the result is written into (the broadcast shape of the other axes). */
  readonly out?: DeviceArray;
}

/**
 * The dot products of the vectors along `axis` of `a` and `b` (the same length in both), the other axes broadcast
 * together (NumPy's rules), as NumPy 2's `vecdot`: `sum(conj(a) * b)` along the axis, complex `a` conjugated, in the
 * promoted dtype of `a` and `b` (int8 stays int8 and wraps, as NumPy's; bool gives whether any pair is both true;
 * float16 and bfloat16 multiply and add in float32, rounded once).
 * A new array, or `options.out`, on the stream of `options` or the operands'.
 *
 * @throws ShapeMismatchError when the vectors' lengths differ or the other axes do not broadcast; AxisError for an
 * axis outside either operand; DTypeError where the dtypes have no product.
 */
export function vecdot(a: DeviceArray, b: DeviceArray, options?: VecdotOptions): DeviceArray {
  const what = "vecdot";
  checkArray(a, `${what}: a`);
  checkArray(b, `${what}: b`);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { axis?, out?, stream? }, got ${describeValue(options)}`);
  if (a.ndim === 0 || b.ndim === 0) throw new ShapeMismatchError(`${what}: needs arrays of at least 1 axis (vectors), got shapes [${a.shape.join(", ")}] and [${b.shape.join(", ")}]`);
  const axis = options?.axis ?? -1;
  const i = normalizeAxis(axis, a.ndim, `${what}: a`);
  const j = normalizeAxis(axis, b.ndim, `${what}: b`);
  if (a.shape[i] !== b.shape[j]) {
    throw new ShapeMismatchError(`${what}: the vectors along axis ${axis} have ${a.shape[i]} elements in a (shape [${a.shape.join(", ")}]) but ${b.shape[j]} in b (shape [${b.shape.join(", ")}]); give vectors of one length`);
  }
  const stream = operationStream(what, options ?? {}, [a, b, ...(options?.out !== undefined ? [options.out] : [])]);
  const reduce = { axis: -1, stream, ...(options?.out !== undefined ? { out: options.out } : {}) };
  return withTemporaries(stream, (temp) => {
    const x = moveaxis(a, i, -1);
    const y = moveaxis(b, j, -1);
    if (a.dtype.kind === "b" && b.dtype.kind === "b") return any(temp(logicalAnd(x, y, { stream })), reduce);
    const promoted = promoteTypes(a.dtype, b.dtype);
    if (promoted.name === "float16" || promoted.name === "bfloat16") {
      // NumPy's half loop multiplies and adds in float32 and rounds once: no product rounded (or overflowing) alone.
      const wide = (v: DeviceArray): DeviceArray => temp(astype(v, "float32", { stream }));
      return sum(temp(mul(wide(x), wide(y), { stream })), { ...reduce, dtype: promoted.name });
    }
    const products = temp(mul(a.dtype.kind === "c" ? temp(conj(x, { stream })) : x, y, { stream }));
    return sum(products, { ...reduce, dtype: products.dtype.name });
  });
}
