/**
 * Writing values into arrays at computed positions, in place, as NumPy's functions of the same names:
 * `putAlongAxis` (NumPy's `put_along_axis`: by indices along one axis, the counterpart of `takeAlongAxis`) and
 * `place` (the k-th true position of a mask gets the k-th value, the values repeated). Both are made of existing
 * operations, with no read back to the host: `putAlongAxis` computes each write's flat position on the device
 * (`arange`, `mul`, `add` over the broadcast indices) and scatters with `put`; `place` counts the mask's true
 * elements before each position (an exclusive running sum, as the mask compaction of `extract` does), gathers the
 * values at those counts (`take`, "wrap") and writes them with `putMask`.
 *
 * ```ts
 * putAlongAxis(x, argmax(x, { axis: 1, keepdims: true }), 0, { axis: 1 });   // each row's largest element set to 0
 * place(x, x.lt(0), vals);                                                   // the negatives get vals[0], vals[1], ...
 * ```
 *
 * @module
 */
import { DeviceArray, checkWritable, encodeElement, operationStream, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import { dtypes } from "../dtype.ts";
import { ArrayLayoutError, BroadcastError, DTypeError, IndexError, ShapeMismatchError } from "../errors.ts";
import { broadcastShapes, broadcastStrides, coalesceAxes, normalizeAxis, showShape } from "../broadcast.ts";
import { contiguousStrides, elementCount } from "../layout.ts";
import { canCastSafely } from "../promotion.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ArgumentError } from "../../../errors/base.ts";
import type { Stream } from "../../stream.ts";
import { add, mul, mod } from "./arithmetic.ts";
import { castInto } from "./cast.ts";
import { arange, castScalar } from "./creation.ts";
import { INDEX_MAX_DIMS } from "./indexing-source.ts";
import { checkIndexRange, maskBytes, put, putMask, take } from "./indexing.ts";
import { mayShareMemory } from "./overlap.ts";
import { scanContiguous } from "./scan.ts";
import { clip } from "./selection.ts";
import { any } from "./statistics.ts";
import { broadcastTo, checkArray, moveaxis, reshape, viewWith } from "./shape.ts";
import { withTemporaries } from "./temporaries.ts";

/** Options of `putAlongAxis`: the axis (required, as NumPy's), what an index out of range does, and the stream. */
export interface PutAlongAxisOptions extends ArrayOperationOptions {
  /** The axis the indices count along (negative counts from the end). */
  readonly axis: number;
  /**
   * "raise" (default: an index outside [-n, n) is skipped, found on the device and an IndexError at the stream's
   * next synchronised read), "wrap" (modulo n) or "clip" (clamped to [0, n - 1]); NumPy has "raise" only.
   */
  readonly mode?: "raise" | "wrap" | "clip";
}

function checkOptionsObject(options: unknown, what: string, names: string): void {
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { ${names} }, got ${describeValue(options)}`);
}

/** Throws the ArrayLayoutError `put` and `putMask` would, before anything is queued: `a`'s layout must merge into few axes. */
function checkLayout(a: DeviceArray, what: string): void {
  const m = coalesceAxes(a.shape, [a.strides]);
  if (m.shape.length > INDEX_MAX_DIMS) throw new ArrayLayoutError(`${what}: the array's layout needs ${m.shape.length} axes after merging, more than ${INDEX_MAX_DIMS}; write into a contiguous copy`);
}

/** A scalar value checked and converted to `a`'s dtype as NumPy's assignment converts it; arrays as they are. */
function checkValue(values: unknown, a: DeviceArray, what: string): DeviceArray | ArrayScalar {
  if (values instanceof DeviceArray) return checkArray(values, `${what}: values`);
  if (typeof values !== "number" && typeof values !== "bigint" && typeof values !== "boolean" && !Array.isArray(values)) {
    throw new TypeError(`${what}: values is a DeviceArray or a scalar, not ${describeValue(values)}`);
  }
  const v = castScalar(values as ArrayScalar, a.dtype);
  encodeElement(a.dtype, v);
  return v;
}

// ---- putAlongAxis ----

/** What `putAlongAxis` writes (exported for tests). */
export interface PutAlongAxisPlan {
  /** The shape of the writes: the indices and the array broadcast together except along the axis (the indices' extent there). */
  readonly shape: number[];
  /** The array's extent along the axis. */
  readonly extent: number;
  /** The elements of one slice across the axis (the product of the other extents): the flat stride of the axis once it is moved first. */
  readonly rest: number;
  /** The array's shape with the axis of extent 1: the row-major positions of the other coordinates, broadcast to `shape`. */
  readonly baseShape: number[];
  /** The values' shape without leading axes of extent 1 past `shape`'s number of axes (as NumPy's assignment drops them). */
  readonly valuesShape?: number[];
}

/**
 * The plan of `putAlongAxis(a, indices, values, { axis })` for `a` of `shape` and indices of `indexShape` (exported
 * for tests): ShapeMismatchError when the numbers of axes differ, BroadcastError when the shapes (or the values') do
 * not broadcast, IndexError when the axis is empty and there is something to write.
 */
export function putAlongAxisPlan(shape: readonly number[], indexShape: readonly number[], axis: number, valuesShape?: readonly number[]): PutAlongAxisPlan {
  const what = "putAlongAxis";
  if (indexShape.length !== shape.length) {
    throw new ShapeMismatchError(`${what}: indices have ${indexShape.length} axes (${showShape(indexShape)}) but the array has ${shape.length} (${showShape(shape)}); give them the same number of axes (expandDims the indices)`);
  }
  const aShape = shape.map((n, d) => (d === axis ? indexShape[d]! : n));
  const out = broadcastShapes([{ name: "the array", shape: aShape }, { name: "indices", shape: indexShape }], what);
  const extent = shape[axis]!;
  if (elementCount(out) > 0 && extent === 0) throw new IndexError(`${what}: cannot put along axis ${axis}: its extent is 0, so no index is in range`);
  const rest = shape.reduce((p, n, d) => (d === axis ? p : p * n), 1);
  const baseShape = shape.map((n, d) => (d === axis ? 1 : n));
  if (valuesShape === undefined) return { shape: out, extent, rest, baseShape };
  let v = [...valuesShape];
  while (v.length > out.length && v[0] === 1) v = v.slice(1);
  if (v.length > out.length || v.some((m, k) => m !== 1 && m !== out[out.length - v.length + k])) {
    throw new BroadcastError(`${what}: values of shape ${showShape(valuesShape)} do not broadcast to the shape of the writes ${showShape(out)} (the indices' shape broadcast with the array's); give values that shape, or one that broadcasts to it`);
  }
  return { shape: out, extent, rest, baseShape, valuesShape: v };
}

/**
 * Writes `values` into `a` at `indices` along `axis`, in place, as NumPy's `put_along_axis` (the counterpart of
 * {@link takeAlongAxis}): `indices` (an integer array with `a`'s number of axes) broadcasts against `a` on the other
 * axes, `values` (an array or a scalar, converted to `a`'s dtype) broadcasts to the indices' broadcast shape, and each
 * value goes to `a` at its position with the axis's coordinate replaced by the index. Negative indices count from the
 * end. `mode`: "raise" (default; an index out of range is skipped, found on the device and an IndexError at the
 * stream's next synchronised read, where NumPy raises at once), "wrap" or "clip" (NumPy has no `mode` here). With
 * repeated positions, which value stays is not defined (NumPy: the last). Nothing is read back to the host.
 *
 * ```ts
 * putAlongAxis(a, argmax(a, { axis: 1, keepdims: true }), 99, { axis: 1 });  // [[10, 30, 20], [60, 40, 50]] → [[10, 99, 20], [99, 40, 50]]
 * putAlongAxis(a, argsort(a, { axis: 0 }), ranks, { axis: 0 });              // scatter each column's ranks
 * ```
 */
export function putAlongAxis(a: DeviceArray, indices: DeviceArray, values: DeviceArray | ArrayScalar, options: PutAlongAxisOptions): void {
  const what = "putAlongAxis";
  checkArray(a, what);
  checkWritable(a, what);
  if (!(indices instanceof DeviceArray)) throw new TypeError(`${what}: indices are an integer DeviceArray (with the array's number of axes), not ${describeValue(indices)}`);
  checkArray(indices, `${what}: indices`);
  if (indices.dtype.kind !== "i" && indices.dtype.kind !== "u") {
    throw new DTypeError(`${what}: indices are an integer array, got ${indices.dtype.name}${indices.dtype.kind === "b" ? " (for a boolean mask use putMask or place)" : "; convert them with astype(\"int64\")"}`);
  }
  if (options === undefined || options === null || typeof options !== "object") throw new TypeError(`${what} takes options { axis, mode?, stream? }: the axis is required, as NumPy's`);
  const mode = options.mode ?? "raise";
  if (mode !== "raise" && mode !== "wrap" && mode !== "clip") throw new TypeError(`${what}: mode is "raise", "wrap" or "clip", got ${describeValue(mode)}`);
  const axis = normalizeAxis(options.axis, a.ndim, what);
  const value = checkValue(values, a, what);
  const plan = putAlongAxisPlan(a.shape, indices.shape, axis, value instanceof DeviceArray ? value.shape : undefined);
  // The writes go to a view with the axis first: its flat position of (k, others) is k * rest + (others' position).
  const moved = moveaxis(a, axis, 0);
  checkLayout(moved, what);
  const stream = operationStream(what, options, [a, indices, ...(value instanceof DeviceArray ? [value] : [])]);
  if (elementCount(plan.shape) === 0) return;
  withTemporaries(stream, (temp) => {
    if (mode === "raise") checkIndexRange(what, indices, plan.extent, stream, true);
    const positions = temp(DeviceArray.empty(plan.shape, dtypes.int64, { stream }));
    castInto(stream, broadcastTo(indices, plan.shape), positions);
    // "raise" keeps an index in range as it is: a negative one lands in [-size, 0), which put counts from the end
    // (the right element). One out of range is first brought to -extent - 1 or extent, so that k * rest cannot wrap
    // around int64 into range: it lands outside [-size, size), which put skips.
    if (mode === "wrap") mod(positions, plan.extent, { stream, out: positions });
    else if (mode === "clip") clip(positions, 0, plan.extent - 1, { stream, out: positions });
    else clip(positions, -plan.extent - 1, plan.extent, { stream, out: positions });
    mul(positions, plan.rest, { stream, out: positions });
    const base = temp(arange(plan.rest, { stream }));
    add(positions, broadcastTo(viewWith(base, plan.baseShape, contiguousStrides(plan.baseShape)), plan.shape), { stream, out: positions });
    put(moved, positions, valuesFor(value, plan, a, stream, temp), { stream });
  });
}

/** The values `put` cycles through: a scalar, a one-element array, or the values broadcast to the writes' shape in `a`'s dtype. */
function valuesFor(value: DeviceArray | ArrayScalar, plan: PutAlongAxisPlan, a: DeviceArray, stream: Stream, temp: <A extends DeviceArray>(x: A) => A): DeviceArray | ArrayScalar {
  if (!(value instanceof DeviceArray) || value.size === 1) return value;
  const v = plan.valuesShape!;
  const view = viewWith(value, v, value.strides.slice(value.ndim - v.length));
  const exact = v.length === plan.shape.length && v.every((n, d) => n === plan.shape[d]);
  if (exact && value.dtype === a.dtype && value.isContiguous && !mayShareMemory(value, a)) return view;
  const c = temp(DeviceArray.empty(plan.shape, a.dtype, { stream }));
  castInto(stream, broadcastTo(view, plan.shape), c);
  return c;
}

// ---- place ----

/**
 * Writes `vals` into `arr` where `mask` is true, in place, as NumPy's `place`: the k-th true element of `mask` (in
 * row-major order; `mask` of any dtype, non-zero is true, with `arr`'s number of elements) gets `vals.flat[k %
 * vals.size]` (a scalar: every one). A vals array must convert safely to `arr`'s dtype (DTypeError otherwise, as
 * NumPy's TypeError: int16 into float32 is fine, float64 into int64 is not); a scalar converts as `full` converts its
 * value (a JavaScript `[re, im]` is one complex scalar, as everywhere in cuda-ts/array, not a list of values: give a
 * DeviceArray to use several values in turn). Unlike `putMask`, which gives position i the value `i % vals.size`, the values are used in turn, only as
 * many as there are true elements. Nothing is read back, except
 * for an empty `vals`: then the mask's count is (a synchronisation), and a mask with a true element is an
 * ArgumentError (NumPy's ValueError), one without is a no-op.
 *
 * ```ts
 * place(x, x.gt(2), vals);                  // x [[0, 1, 2], [3, 4, 5]], vals [44, 55] → [[0, 1, 2], [44, 55, 44]]
 * place(x, mask, 0);                        // as putMask(x, mask, 0)
 * ```
 */
export function place(arr: DeviceArray, mask: DeviceArray, vals: DeviceArray | ArrayScalar, options?: ArrayOperationOptions): void {
  const what = "place";
  checkArray(arr, what);
  checkWritable(arr, what);
  if (!(mask instanceof DeviceArray)) throw new TypeError(`${what}: mask is a DeviceArray (any dtype: non-zero is true), not ${describeValue(mask)}`);
  checkArray(mask, `${what}: mask`);
  if (mask.size !== arr.size) {
    throw new ShapeMismatchError(`${what}: the mask has ${mask.size} elements (${showShape(mask.shape)}) but the array has ${arr.size} (${showShape(arr.shape)}); give a mask of the array's size`);
  }
  checkOptionsObject(options, what, "stream?");
  const value = checkValue(vals, arr, what);
  if (value instanceof DeviceArray && !canCastSafely(value.dtype, arr.dtype)) {
    throw new DTypeError(`${what}: ${value.dtype.name} values do not convert safely to the ${arr.dtype.name} array (NumPy refuses them too); convert them with astype("${arr.dtype.name}") first`);
  }
  checkLayout(arr, what);
  const stream = operationStream(what, options, [arr, mask, ...(value instanceof DeviceArray ? [value] : [])]);
  if (arr.size === 0) return;
  withTemporaries(stream, (temp) => {
    if (value instanceof DeviceArray && value.size === 0) {
      if (temp(any(mask, { stream })).toTypedArraySync({ stream })[0] !== 0) {
        throw new ArgumentError(`${what}: vals is empty but the mask selects elements; give at least one value (NumPy: "Cannot insert from an empty array")`);
      }
      return;
    }
    // The mask in the array's shape (putMask's), as one run of bool bytes.
    const { array: bytes, owned } = maskBytes(mask, stream);
    if (owned) temp(bytes);
    const shaped = reshape(bytes, arr.shape);
    if (!(value instanceof DeviceArray) || value.size === 1) {
      putMask(arr, shaped, value, { stream });
      return;
    }
    // Before each position, the number of true elements before it: the k of a true element.
    const counts = temp(DeviceArray.empty([arr.size], dtypes.int64, { stream }));
    scanContiguous(stream, "sum", bytes, counts, true);
    let source = value;
    if (value.dtype !== arr.dtype) {
      source = temp(DeviceArray.empty(value.shape, arr.dtype, { stream }));
      castInto(stream, value, source);
    }
    putMask(arr, shaped, temp(take(source, counts, { stream, mode: "wrap" })), { stream });
  });
}
