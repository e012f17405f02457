/**
 * Shape operations of `cuda-ts/array`: views where the strides allow (`reshape`, `transpose`, `swapaxes`, `moveaxis`,
 * `squeeze`, `expandDims`, `ravel`, `broadcastTo`, `atleast1d/2d/3d`, `split`, `flip`, `fliplr`, `flipud`, `rot90`),
 * copies where they do not (`reshape` of a view the strides do not allow, `flatten`), new arrays copied in blocks
 * (`repeat`, `tile`, `roll`), and joins into a new array (`concatenate`, `stack`, `hstack`, `vstack`, `columnStack`,
 * `dstack`: one copy per input into its slice of the result, converting where the dtypes differ).
 *
 * ```ts
 * const t = swapaxes(x, 0, 1);                           // a view
 * const y = concatenate([a, b], { axis: 1 });            // promoted dtype, one copy per input
 * const [left, right] = split(x, 2, { axis: 1 });        // views
 * const b = broadcastTo(row, [4, 3]);                     // stride 0 on the new axis: read it, do not write it
 * ```
 *
 * Views share memory with their array and keep it alive; operations that write (`copyFrom`, `put`, an `out`) into a
 * broadcast view write the same element several times.
 *
 * @module
 */
import { mayShareMemory } from "./overlap.ts";
import { DeviceArray, checkWritable, operationStream, transferOwnership, type ArrayOperationOptions } from "../device-array.ts";
import { dtypeOf, type DType } from "../dtype.ts";
import { ArrayLayoutError, AxisError, DTypeError, ShapeMismatchError } from "../errors.ts";
import { broadcastShapes as broadcastNamedShapes, broadcastStrides, normalizeAxis, showShape } from "../broadcast.ts";
import { checkShape, contiguousStrides, diagonalLayout, elementCount, reshapeLayout, sameShape, type SliceSpec } from "../layout.ts";
import { provideArrayMethods } from "../methods.ts";
import type { DiagonalViewOptions, DTypeArgument } from "../options.ts";
import { operationType } from "../promotion.ts";
import { INTERNAL } from "../../base/internal.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { castInto } from "./cast.ts";

/** Options of `concatenate` and `stack`. */
export interface ConcatenateOptions extends ArrayOperationOptions {
  /** The axis joined along (default 0; negative counts from the end; null: the arrays flattened, joined as one axis). */
  readonly axis?: number | null;
  /** The result's dtype (default: the inputs' promoted dtype, as `resultType`). */
  readonly dtype?: DTypeArgument;
  /** The array the result is written into (its shape the result's). */
  readonly out?: DeviceArray;
}

/** Options of `split`, `arraySplit` and `flip`: the axis. */
export interface AxisOptions {
  /** The axis (default 0 for `split`, every axis for `flip`; negative counts from the end). */
  readonly axis?: number;
}

/** Options of `flip`: one axis, several, or every axis (default). */
export interface FlipOptions {
  readonly axis?: number | readonly number[];
}


/** `a`, checked to be an open DeviceArray: TypeError otherwise, ShapeMismatchError once closed (the shape functions' check). */
export function checkArray(a: unknown, what: string): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(a)}`);
  if (a.isClosed) throw new ArrayLayoutError(`${what}: the array (${a.dtype.name} ${showShape(a.shape)}) was closed`);
  return a;
}

function axisList(axis: number | readonly number[], ndim: number, what: string): number[] {
  const list = typeof axis === "number" ? [axis] : Array.isArray(axis) ? [...(axis as readonly number[])] : undefined;
  if (list === undefined) throw new AxisError(`${what}: axis is a number or a list of numbers, got ${describeValue(axis)}`);
  const out = list.map((a) => normalizeAxis(a, ndim, what));
  if (new Set(out).size !== out.length) throw new AxisError(`${what}: an axis is named twice in [${list.join(", ")}]`);
  return out;
}

/** @internal A view of `a`'s memory with another layout (checked to lie inside the buffer). */
export function viewWith<N extends DType["name"]>(a: DeviceArray<N>, shape: readonly number[], strides: readonly number[], byteOffset = a.byteOffset): DeviceArray<N> {
  return new DeviceArray<N>(INTERNAL, a.buffer, a.dtype, shape, strides, byteOffset, a, false);
}

/**
 * @internal A view of `owner`'s memory in `view`'s layout that owns that memory: closing it frees the memory. For an
 * array an operation allocated for itself (no base) and hands out only through the view; `owner` is closed without
 * freeing, so a scope that adopted it (or anyone) closing it later leaves the view working.
 */
export function ownedView<N extends DType["name"]>(owner: DeviceArray<N>, view: DeviceArray<N>): DeviceArray<N> {
  return transferOwnership(owner, (owns) => new DeviceArray<N>(INTERNAL, owner.buffer, owner.dtype, view.shape, view.strides, view.byteOffset, undefined, owns, owner.stream));
}

// ---- views ----

/**
 * `a` in another shape (one extent may be -1): a view when the strides allow it, otherwise a contiguous copy (as
 * NumPy's `reshape`; `DeviceArray.reshape` only ever makes views). The copy runs on the stream of `options` or `a`'s.
 */
export function reshape(a: DeviceArray, shape: number | readonly number[], options?: ArrayOperationOptions): DeviceArray {
  checkArray(a, "reshape");
  const requested = typeof shape === "number" ? [shape] : Array.isArray(shape) ? [...shape] : undefined;
  if (requested === undefined) throw new ShapeMismatchError(`reshape: the shape is a number or a list of numbers, got ${describeValue(shape)}`);
  const layout = reshapeLayout({ shape: a.shape, strides: a.strides, offset: 0 }, requested);
  if (layout !== undefined) return viewWith(a, layout.shape, layout.strides);
  // The strides do not allow a view: a contiguous copy in the new shape (the copy is written through a view of it in
  // a's shape).
  const shapeOut = reshapeLayout({ shape: a.shape, strides: contiguousStrides(a.shape), offset: 0 }, requested)!.shape;
  const stream = operationStream("reshape", options, [a]);
  const out = DeviceArray.empty(shapeOut, a.dtype, { stream });
  viewWith(out, a.shape, contiguousStrides(a.shape)).copyFrom(a, { stream });
  return out;
}

/** The axes permuted (default: reversed; negative axes count from the end), a view. */
export function transpose(a: DeviceArray, axes?: readonly number[]): DeviceArray {
  checkArray(a, "transpose");
  if (axes === undefined || axes === null) return a.transpose();
  if (!Array.isArray(axes)) throw new AxisError(`transpose: axes is a list of numbers, got ${describeValue(axes)}`);
  const perm = axes.map((x) => normalizeAxis(x, a.ndim, "transpose"));
  if (perm.length !== a.ndim || new Set(perm).size !== perm.length) {
    throw new AxisError(`transpose: axes must name each of the ${a.ndim} axes once, got [${axes.join(", ")}]`);
  }
  return a.transpose(perm);
}

/**
 * The `offset`-th diagonals of `a` over axes `axis1` and `axis2`, a view (no copy): the other axes in order, then
 * the diagonal's, as NumPy's `diagonal` (whose view is read-only; this one may be written, as CuPy's). A 2-d array
 * gives its diagonal; a stack `[b, n, n]` with `{ axis1: 1, axis2: 2 }` each matrix's.
 */
export function diagonal(a: DeviceArray, options?: DiagonalViewOptions): DeviceArray {
  const what = "diagonal";
  checkArray(a, what);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { offset?, axis1?, axis2? }, got ${describeValue(options)}`);
  if (a.ndim < 2) throw new ShapeMismatchError(`${what}: needs an array of at least 2 axes, got shape [${a.shape.join(", ")}]`);
  const offset = options?.offset ?? 0;
  if (!Number.isSafeInteger(offset)) throw new ArgumentError(`${what}: offset is an integer, got ${describeValue(offset)}`);
  const i = normalizeAxis(options?.axis1 ?? 0, a.ndim, what);
  const j = normalizeAxis(options?.axis2 ?? 1, a.ndim, what);
  if (i === j) throw new AxisError(`${what}: axis1 and axis2 are both axis ${i}; name two different axes`);
  const d = diagonalLayout({ shape: a.shape, strides: a.strides, offset: 0 }, offset, i, j);
  return viewWith(a, d.shape, d.strides, a.byteOffset + d.offset * a.itemsize);
}

/** A view with axes `axis1` and `axis2` exchanged. */
export function swapaxes(a: DeviceArray, axis1: number, axis2: number): DeviceArray {
  checkArray(a, "swapaxes");
  const i = normalizeAxis(axis1, a.ndim, "swapaxes");
  const j = normalizeAxis(axis2, a.ndim, "swapaxes");
  const perm = [...Array(a.ndim).keys()];
  perm[i] = j;
  perm[j] = i;
  return a.transpose(perm);
}

/**
 * A view with the last two axes exchanged: each matrix of a stack transposed, as NumPy 2's `matrix_transpose` (the
 * array API's; `transpose` reverses every axis). `a` needs at least 2 axes.
 *
 * ```ts
 * matrixTranspose(batch);          // [b, m, n] → [b, n, m]
 * ```
 */
export function matrixTranspose(a: DeviceArray): DeviceArray {
  checkArray(a, "matrixTranspose");
  if (a.ndim < 2) throw new ShapeMismatchError(`matrixTranspose: needs an array of at least 2 axes (a matrix or a stack of them), got shape ${showShape(a.shape)}; use transpose for any array`);
  return swapaxes(a, -1, -2);
}

/**
 * Views of `a` split along `axis` (default 0) into its `a.shape[axis]` slices, each without that axis, as NumPy 2's
 * `unstack` (the inverse of `stack`): a `[3, 4]` array gives three views of shape `[4]`, or with `{ axis: 1 }` four
 * of shape `[3]`. No copy; the views share `a`'s memory.
 */
export function unstack(a: DeviceArray, options?: { readonly axis?: number }): DeviceArray[] {
  checkArray(a, "unstack");
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`unstack takes options { axis? }, got ${describeValue(options)}`);
  if (a.ndim === 0) throw new AxisError("unstack: a 0-d array has no axis to split along; give an array of at least 1 axis");
  const axis = normalizeAxis(options?.axis ?? 0, a.ndim, "unstack");
  return Array.from({ length: a.shape[axis]! }, (_, i) => a.slice(...a.shape.map((_, d): SliceSpec => (d === axis ? i : null))));
}

/** A view with the axes `source` moved to the positions `destination` (the other axes keep their order). */
export function moveaxis(a: DeviceArray, source: number | readonly number[], destination: number | readonly number[]): DeviceArray {
  checkArray(a, "moveaxis");
  const src = axisList(source, a.ndim, "moveaxis");
  const dst = axisList(destination, a.ndim, "moveaxis");
  if (src.length !== dst.length) throw new AxisError(`moveaxis: ${src.length} source axes but ${dst.length} destinations; give as many of each`);
  const rest = [...Array(a.ndim).keys()].filter((d) => !src.includes(d));
  const order = new Array<number>(a.ndim).fill(-1);
  dst.forEach((d, k) => (order[d] = src[k]!));
  let r = 0;
  for (let d = 0; d < a.ndim; d++) if (order[d] === -1) order[d] = rest[r++]!;
  return a.transpose(order);
}

/**
 * A view with `axis` moved to before position `start` (default 0), the others keeping their order, as NumPy's
 * `rollaxis` (older than `moveaxis`, which says the same more plainly: `rollaxis(a, 3, 1)` is `moveaxis(a, 3, 1)`,
 * `rollaxis(a, 1, 4)` of a 4-d `a` is `moveaxis(a, 1, 3)`). `start` counts from -ndim to ndim.
 */
export function rollaxis(a: DeviceArray, axis: number, start = 0): DeviceArray {
  checkArray(a, "rollaxis");
  const n = a.ndim;
  const from = normalizeAxis(axis, n, "rollaxis");
  if (typeof start !== "number" || !Number.isSafeInteger(start)) throw new AxisError(`rollaxis: start is an integer position from ${-n} to ${n}, not ${describeValue(start)}`);
  let to = start < 0 ? start + n : start;
  if (!(to >= 0 && to < n + 1)) throw new AxisError(`rollaxis: start must be from ${-n} to ${n} for an array of ${n} axes, got ${start}`);
  if (from < to) to -= 1;
  const order = [...Array(n).keys()].filter((d) => d !== from);
  order.splice(to, 0, from);
  return a.transpose(order);
}

/** A view without the axes of extent 1 (`axis`: only those, each of extent 1, else AxisError). */
export function squeeze(a: DeviceArray, axis?: number | readonly number[]): DeviceArray {
  checkArray(a, "squeeze");
  let drop: number[];
  if (axis === undefined || axis === null) drop = a.shape.flatMap((n, d) => (n === 1 ? [d] : []));
  else {
    drop = axisList(axis, a.ndim, "squeeze");
    for (const d of drop) {
      if (a.shape[d] !== 1) throw new AxisError(`squeeze: axis ${d} of shape ${showShape(a.shape)} has extent ${a.shape[d]}, not 1; only axes of extent 1 can be removed`);
    }
  }
  const keep = [...Array(a.ndim).keys()].filter((d) => !drop.includes(d));
  return viewWith(a, keep.map((d) => a.shape[d]!), keep.map((d) => a.strides[d]!));
}

/** A view with a new axis of extent 1 at each position of `axis` (positions in the result: from -(ndim+k) to ndim+k-1). */
export function expandDims(a: DeviceArray, axis: number | readonly number[]): DeviceArray {
  checkArray(a, "expandDims");
  const count = typeof axis === "number" ? 1 : Array.isArray(axis) ? axis.length : 0;
  const positions = axisList(axis, a.ndim + count, "expandDims");
  const shape: number[] = [];
  let src = 0;
  for (let d = 0; d < a.ndim + count; d++) shape.push(positions.includes(d) ? 1 : a.shape[src++]!);
  // As NumPy's expand_dims (a reshape): the new axes' strides are the ones its reshape gives.
  return viewWith(a, shape, reshapeLayout({ shape: a.shape, strides: a.strides, offset: 0 }, shape)!.strides);
}

/** A contiguous 1-d copy of `a`'s elements in row-major order, on the stream of `options` or `a`'s. */
export function flatten(a: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  checkArray(a, "flatten");
  const stream = operationStream("flatten", options, [a]);
  const out = DeviceArray.empty([a.size], a.dtype, { stream });
  if (a.size > 0) viewWith(out, a.shape, contiguousStrides(a.shape)).copyFrom(a, { stream });
  return out;
}

/** `a`'s elements as one axis: a view when `a` is contiguous, else a contiguous copy (as {@link flatten}). */
export function ravel(a: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  checkArray(a, "ravel");
  if (a.isContiguous) return viewWith(a, [a.size], [1]);
  return flatten(a, options);
}

/**
 * A read view of `a` broadcast to `shape` (NumPy's rules): stride 0 on the axes it is repeated along. BroadcastError
 * when `a`'s shape does not broadcast to `shape`.
 */
export function broadcastTo(a: DeviceArray, shape: number | readonly number[]): DeviceArray {
  checkArray(a, "broadcastTo");
  const target = checkShape(shape, "broadcastTo: shape");
  const strides = broadcastStrides(a.shape, a.strides, target);
  return viewWith(a, target, strides);
}

/** The arrays broadcast against each other (NumPy's rules), each a read view (see {@link broadcastTo}). */
export function broadcastArrays(arrays: readonly DeviceArray[]): DeviceArray[] {
  if (!Array.isArray(arrays)) throw new TypeError(`broadcastArrays takes a list of DeviceArrays, not ${describeValue(arrays)}`);
  arrays.forEach((a, k) => checkArray(a, `broadcastArrays: array ${k}`));
  const shape = broadcastNamedShapes(arrays.map((a, k) => ({ name: `array ${k}`, shape: a.shape })), "broadcastArrays");
  return arrays.map((a) => broadcastTo(a, shape));
}

/**
 * The shape arrays of these shapes broadcast to, as NumPy's `broadcast_shapes`: shapes aligned at their last axis,
 * extents equal or 1 (a number is a 1-d shape; no shapes give `[]`). Host only: nothing is allocated or queued.
 *
 * ```ts
 * broadcastShapes([3, 1], [1, 4]);        // [3, 4]
 * broadcastShapes([5], [2, 1], []);       // [2, 5]
 * ```
 *
 * @throws BroadcastError naming the two shapes and the axis where they do not broadcast; ShapeMismatchError for a
 * shape that is not a list of non-negative integers.
 */
export function broadcastShapes(...shapes: (number | readonly number[])[]): number[] {
  const named = shapes.map((s, k) => ({ name: `shape ${k}`, shape: checkShape(s, `broadcastShapes: shape ${k}`) }));
  return broadcastNamedShapes(named, "broadcastShapes");
}

/** `a` with at least one axis: a 0-d array becomes [1] (a view). */
export function atleast1d(a: DeviceArray): DeviceArray {
  checkArray(a, "atleast1d");
  return a.ndim >= 1 ? a : viewWith(a, [1], [1]);
}

/** `a` with at least two axes: [] → [1, 1], [n] → [1, n] (a view). */
export function atleast2d(a: DeviceArray): DeviceArray {
  checkArray(a, "atleast2d");
  if (a.ndim >= 2) return a;
  if (a.ndim === 0) return viewWith(a, [1, 1], [1, 1]);
  return viewWith(a, [1, a.shape[0]!], [0, a.strides[0]!]);
}

/** `a` with at least three axes: [] → [1, 1, 1], [n] → [1, n, 1], [m, n] → [m, n, 1] (a view). */
export function atleast3d(a: DeviceArray): DeviceArray {
  checkArray(a, "atleast3d");
  if (a.ndim >= 3) return a;
  if (a.ndim === 0) return viewWith(a, [1, 1, 1], [1, 1, 1]);
  if (a.ndim === 1) return viewWith(a, [1, a.shape[0]!, 1], [0, a.strides[0]!, 0]);
  return viewWith(a, [a.shape[0]!, a.shape[1]!, 1], [a.strides[0]!, a.strides[1]!, 0]);
}

/** A view reversed along `axis` (default: every axis): negative strides, no copy. */
export function flip(a: DeviceArray, options?: FlipOptions): DeviceArray {
  checkArray(a, "flip");
  const axes = options?.axis === undefined || options.axis === null ? [...Array(a.ndim).keys()] : axisList(options.axis, a.ndim, "flip");
  const specs: SliceSpec[] = [...Array(a.ndim).keys()].map((d) => (axes.includes(d) ? [null, null, -1] : null));
  return a.slice(...specs);
}

/**
 * `a` reversed along its second axis (left and right exchanged), a view, as NumPy's `fliplr`: `flip(a, { axis: 1 })`.
 * An array of fewer than two axes is an ArgumentError (NumPy's ValueError).
 */
export function fliplr(a: DeviceArray): DeviceArray {
  checkArray(a, "fliplr");
  if (a.ndim < 2) throw new ArgumentError(`fliplr: needs an array of at least 2 axes (it reverses axis 1), got shape ${showShape(a.shape)}; use flip(a) for a 1-d array`);
  return flip(a, { axis: 1 });
}

/**
 * `a` reversed along its first axis (up and down exchanged), a view, as NumPy's `flipud`: `flip(a, { axis: 0 })`.
 * A 0-d array is an ArgumentError (NumPy's ValueError).
 */
export function flipud(a: DeviceArray): DeviceArray {
  checkArray(a, "flipud");
  if (a.ndim < 1) throw new ArgumentError("flipud: needs an array of at least 1 axis (it reverses axis 0), got a 0-d array");
  return flip(a, { axis: 0 });
}

/**
 * `a` rotated by 90 degrees `k` times in the plane of `axes` (default `[0, 1]`), from the first axis towards the
 * second, a view (flips and a transpose, no copy), as NumPy's `rot90`: `k` any integer (taken modulo 4; negative turns
 * the other way), `k` 0 a view of the whole array. Errors: an AxisError for an axis out of range, an ArgumentError for
 * `axes` that is not two axes or names one axis twice (NumPy's ValueError), or for a `k` that is not an integer.
 *
 * ```ts
 * rot90(m);                      // [[1, 2], [3, 4]] → [[2, 4], [1, 3]]
 * rot90(x, -1, [1, 2]);          // each x[i] turned clockwise
 * ```
 */
export function rot90(a: DeviceArray, k = 1, axes: readonly [number, number] = [0, 1]): DeviceArray {
  const what = "rot90";
  checkArray(a, what);
  if (typeof k !== "number" || !Number.isSafeInteger(k)) throw new ArgumentError(`${what}: k (the number of quarter turns) is an integer, got ${describeValue(k)}`);
  if (!Array.isArray(axes) || axes.length !== 2 || axes.some((x) => typeof x !== "number")) {
    throw new ArgumentError(`${what}: axes is a list of two axes (the plane of the rotation), got ${describeValue(axes)}`);
  }
  const first = normalizeAxis(axes[0], a.ndim, what);
  const second = normalizeAxis(axes[1], a.ndim, what);
  if (first === second) throw new ArgumentError(`${what}: axes [${axes.join(", ")}] name axis ${first} twice; name two different axes (the plane of the rotation)`);
  const turns = ((k % 4) + 4) % 4;
  if (turns === 0) return viewWith(a, a.shape, a.strides);
  if (turns === 2) return flip(a, { axis: [first, second] });
  const perm = [...Array(a.ndim).keys()];
  perm[first] = second;
  perm[second] = first;
  // As NumPy's: one quarter turn flips the second axis then exchanges the two; three exchange them then flip the second.
  return turns === 1 ? flip(a, { axis: second }).transpose(perm) : flip(a.transpose(perm), { axis: second });
}

// ---- splits ----

/**
 * The views of `a` between `bounds` along `axis`: part k is Python's `a[bounds[k-1]:bounds[k]]` (a negative bound
 * counts from the end, bounds past either end are clamped, a bound below the previous one gives an empty part).
 */
function splitAt(a: DeviceArray, bounds: readonly number[], axis: number): DeviceArray[] {
  const n = a.shape[axis]!;
  const at = (x: number): number => (x < 0 ? Math.max(x + n, 0) : Math.min(x, n));
  const parts: DeviceArray[] = [];
  let start = 0;
  for (const b of [...bounds, n]) {
    const lo = at(start);
    const hi = Math.max(at(b), lo);
    const specs: SliceSpec[] = [...Array(a.ndim).keys()].map((d) => (d === axis ? [lo, hi] : null));
    parts.push(a.slice(...specs));
    start = b;
  }
  return parts;
}

function checkSplit(a: DeviceArray, sections: number | readonly number[], what: string): void {
  if (a.ndim === 0) throw new AxisError(`${what}: a 0-d array has no axis to split`);
  if (typeof sections === "number") {
    if (!Number.isInteger(sections) || sections < 1) throw new ShapeMismatchError(`${what}: the number of sections is a positive integer, got ${sections}`);
  } else if (!Array.isArray(sections) || sections.some((x) => typeof x !== "number" || !Number.isInteger(x))) {
    throw new ShapeMismatchError(`${what}: sections is a number or a list of integer indices, got ${describeValue(sections)}`);
  }
}

/**
 * `a` split along `axis` (default 0) into views: `sections` equal parts (ShapeMismatchError when the extent does not
 * divide), or at the indices of a list (`[2, 5]`: `a[:2]`, `a[2:5]`, `a[5:]`; as Python's slices, a negative index
 * counts from the end and one past the axis is clamped to it).
 */
export function split(a: DeviceArray, sections: number | readonly number[], options?: AxisOptions): DeviceArray[] {
  checkArray(a, "split");
  checkSplit(a, sections, "split");
  const axis = normalizeAxis(options?.axis ?? 0, a.ndim, "split");
  const n = a.shape[axis]!;
  if (typeof sections === "number") {
    if (n % sections !== 0) throw new ShapeMismatchError(`split: axis ${axis} of shape ${showShape(a.shape)} has extent ${n}, which ${sections} sections do not divide; use arraySplit for unequal parts`);
    return splitAt(a, [...Array(sections - 1).keys()].map((k) => ((k + 1) * n) / sections), axis);
  }
  return splitAt(a, sections, axis);
}

/** As {@link split}, but `sections` need not divide the extent: the first `n % sections` parts get one more element. */
export function arraySplit(a: DeviceArray, sections: number | readonly number[], options?: AxisOptions): DeviceArray[] {
  checkArray(a, "arraySplit");
  checkSplit(a, sections, "arraySplit");
  const axis = normalizeAxis(options?.axis ?? 0, a.ndim, "arraySplit");
  if (typeof sections !== "number") return splitAt(a, sections, axis);
  const n = a.shape[axis]!;
  const each = Math.floor(n / sections);
  const extra = n % sections;
  const bounds: number[] = [];
  let at = 0;
  for (let k = 0; k < sections - 1; k++) bounds.push((at += each + (k < extra ? 1 : 0)));
  return splitAt(a, bounds, axis);
}

// ---- repetitions ----

/** Options of `repeat`: the axis (default: the flattened array) and the stream. */
export interface RepeatOptions extends ArrayOperationOptions {
  readonly axis?: number;
}

/**
 * Each element of `a` repeated `repeats` times along `axis` (default: the flattened array), a new contiguous array:
 * `repeat([1, 2], 2)` is `[1, 1, 2, 2]`. One strided copy from a view that repeats each element (stride 0); a list
 * of counts per element is not supported (ShapeMismatchError).
 */
export function repeat(a: DeviceArray, repeats: number, options?: RepeatOptions): DeviceArray {
  checkArray(a, "repeat");
  if (typeof repeats !== "number" || !Number.isSafeInteger(repeats) || repeats < 0) {
    throw new ShapeMismatchError(`repeat: repeats is a non-negative integer (one count for every element), got ${describeValue(repeats)}`);
  }
  const axis = options?.axis === undefined || options.axis === null ? undefined : normalizeAxis(options.axis, a.ndim, "repeat");
  const stream = operationStream("repeat", options, [a]);
  const src = axis === undefined ? ravel(a, { stream }) : a;
  const ax = axis ?? 0;
  const shape = [...src.shape.slice(0, ax + 1), repeats, ...src.shape.slice(ax + 1)];
  const strides = [...src.strides.slice(0, ax + 1), 0, ...src.strides.slice(ax + 1)];
  const outShape = src.shape.map((n, d) => (d === ax ? n * repeats : n));
  const out = DeviceArray.empty(outShape, a.dtype, { stream });
  try {
    if (out.size > 0) viewWith(out, shape, contiguousStrides(shape)).copyFrom(viewWith(src, shape, strides), { stream });
  } catch (e) {
    out.close(stream);
    throw e;
  } finally {
    if (src !== a && src.base !== a) src.close(stream);
  }
  return out;
}

/**
 * `a` repeated `reps` times along each axis (NumPy's `tile`): `reps` is one count or one per axis (a shorter list
 * counts for the last axes; a longer one adds leading axes). A new contiguous array, made by one strided copy from a
 * view that repeats the whole array (stride 0).
 */
export function tile(a: DeviceArray, reps: number | readonly number[], options?: ArrayOperationOptions): DeviceArray {
  checkArray(a, "tile");
  const list = typeof reps === "number" ? [reps] : Array.isArray(reps) ? [...(reps as readonly number[])] : undefined;
  if (list === undefined || list.some((r) => typeof r !== "number" || !Number.isSafeInteger(r) || r < 0)) {
    throw new ShapeMismatchError(`tile: reps is a non-negative integer or a list of them, got ${describeValue(reps)}`);
  }
  const nd = Math.max(a.ndim, list.length);
  const r = [...new Array<number>(nd - list.length).fill(1), ...list];
  const base = [...new Array<number>(nd - a.ndim).fill(1), ...a.shape];
  const baseStrides = [...new Array<number>(nd - a.ndim).fill(0), ...a.strides];
  const stream = operationStream("tile", options, [a]);
  const out = DeviceArray.empty(base.map((n, d) => n * r[d]!), a.dtype, { stream });
  if (out.size > 0) {
    // The result as [r0, s0, r1, s1, ...]: the source repeats along the r axes (stride 0).
    const shape = base.flatMap((n, d) => [r[d]!, n]);
    const strides = baseStrides.flatMap((st) => [0, st]);
    try {
      viewWith(out, shape, contiguousStrides(shape)).copyFrom(viewWith(a, shape, strides), { stream });
    } catch (e) {
      out.close(stream);
      throw e;
    }
  }
  return out;
}

// ---- roll ----

/** Options of `roll`: the axes rolled along and the stream. */
export interface RollOptions extends ArrayOperationOptions {
  /**
   * The axis or axes rolled along, paired with the shifts (a single number on either side goes with every entry of
   * the other; an axis named twice rolls by the sum of its shifts); default: the flattened array, its shape restored.
   */
  readonly axis?: number | readonly number[];
}

/** @internal The shift of each axis `roll` moves (normalised to [0, extent)), from its arguments (exported for tests). */
export function rollShifts(shape: readonly number[], shift: unknown, axis: unknown): Map<number, number> {
  const what = "roll";
  const shifts = typeof shift === "number" ? [shift] : Array.isArray(shift) ? [...(shift as readonly unknown[])] : undefined;
  if (shifts === undefined || shifts.some((s) => typeof s !== "number" || !Number.isSafeInteger(s))) {
    throw new ArgumentError(`${what}: shift is an integer or a list of integers, got ${describeValue(shift)}`);
  }
  const moved = new Map<number, number>();
  const addShift = (d: number, s: number): void => {
    moved.set(d, (moved.get(d) ?? 0) + s);
  };
  if (axis === undefined || axis === null) {
    // The flattened array: one axis of every element; several shifts add up (as NumPy's).
    for (const s of shifts as number[]) addShift(0, s);
    const n = elementCount(shape);
    moved.set(0, n === 0 ? 0 : (((moved.get(0) ?? 0) % n) + n) % n);
    return moved;
  }
  const axes = typeof axis === "number" ? [axis] : Array.isArray(axis) ? [...(axis as readonly unknown[])] : undefined;
  if (axes === undefined) throw new AxisError(`${what}: axis is a number or a list of numbers, got ${describeValue(axis)}`);
  const scalarShift = typeof shift === "number" || shifts.length === 1;
  const scalarAxis = typeof axis === "number" || axes.length === 1;
  if (!scalarShift && !scalarAxis && shifts.length !== axes.length) {
    throw new ArgumentError(`${what}: ${shifts.length} shifts for ${axes.length} axes; give one shift per axis, or one shift for every axis (or one axis for every shift)`);
  }
  const count = scalarShift ? axes.length : shifts.length;
  for (let k = 0; k < count; k++) {
    const d = normalizeAxis(axes[scalarAxis ? 0 : k], shape.length, what);
    addShift(d, shifts[scalarShift ? 0 : k] as number);
  }
  for (const [d, s] of moved) moved.set(d, shape[d] === 0 ? 0 : ((s % shape[d]!) + shape[d]!) % shape[d]!);
  return moved;
}

/**
 * `a`'s elements shifted by `shift` along `axis`, those past the end coming back at the start, as NumPy's `roll`:
 * `roll([1, 2, 3, 4, 5], 2)` is `[4, 5, 1, 2, 3]` (a negative shift rolls the other way). `shift` and `axis` are
 * numbers or lists paired with each other (a single number goes with each entry of the other list); without `axis`
 * the flattened array rolls and the result has `a`'s shape. A new contiguous array: one copy of every element, in
 * two blocks per rolled axis (four for two axes, ...); a non-contiguous `a` rolled flattened is flattened first.
 *
 * ```ts
 * roll(x, 1);                               // [1, 2, 3] → [3, 1, 2]
 * roll(m, [1, -1], { axis: [0, 1] });       // rows down by one, columns left by one
 * ```
 */
export function roll(a: DeviceArray, shift: number | readonly number[], options?: RollOptions): DeviceArray {
  const what = "roll";
  checkArray(a, what);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { axis?, stream? }, got ${describeValue(options)}`);
  const flat = options?.axis === undefined || options.axis === null;
  const shifts = rollShifts(flat ? [a.size] : a.shape, shift, options?.axis);
  const stream = operationStream(what, options, [a]);
  const out = DeviceArray.empty(a.shape, a.dtype, { stream });
  if (a.size === 0) return out;
  const src = flat ? ravel(a, { stream }) : a;
  try {
    const dst = flat ? viewWith(out, [a.size], [1]) : out;
    const rolled = [...shifts].filter(([, s]) => s !== 0);
    // Each rolled axis splits into two blocks: dst[s:] = src[:n - s] and dst[:s] = src[n - s:].
    for (let block = 0; block < 1 << rolled.length; block++) {
      const from: SliceSpec[] = src.shape.map(() => null);
      const to: SliceSpec[] = src.shape.map(() => null);
      rolled.forEach(([d, s], k) => {
        const n = src.shape[d]!;
        const tail = ((block >> k) & 1) === 1;
        from[d] = tail ? [n - s, n] : [0, n - s];
        to[d] = tail ? [0, s] : [s, n];
      });
      dst.slice(...to).copyFrom(src.slice(...from), { stream });
    }
  } catch (e) {
    out.close(stream);
    throw e;
  } finally {
    if (src !== a && src.base === undefined) src.close(stream); // ravel's copy of a non-contiguous a
  }
  return out;
}

// ---- joins ----

/** What a concatenation makes (exported for tests): the result's shape and dtype, the axis, each input's offset along it. */
export function concatenatePlan(arrays: readonly DeviceArray[], axis: number, dtype: DType | undefined, what = "concatenate"): { shape: number[]; dtype: DType; axis: number; offsets: number[] } {
  if (!Array.isArray(arrays) || arrays.length === 0) throw new ShapeMismatchError(`${what}: give a non-empty list of arrays`);
  arrays.forEach((a, k) => checkArray(a, `${what}: array ${k}`));
  const first = arrays[0]!;
  if (first.ndim === 0) throw new ShapeMismatchError(`${what}: 0-d arrays cannot be joined along an axis; expandDims or atleast1d them first`);
  const ax = normalizeAxis(axis, first.ndim, what);
  const shape = [...first.shape];
  const offsets = [0];
  arrays.forEach((a: DeviceArray, k: number) => {
    if (k === 0) return;
    if (a.ndim !== first.ndim || a.shape.some((n: number, d: number) => d !== ax && n !== first.shape[d])) {
      throw new ShapeMismatchError(
        `${what}: array 0 has shape ${showShape(first.shape)} but array ${k} has shape ${showShape(a.shape)}: every axis except the joined axis ${ax} must match`,
      );
    }
    offsets.push(shape[ax]!);
    shape[ax] = shape[ax]! + a.shape[ax]!;
  });
  return { shape, dtype: dtype ?? operationType(arrays, what), axis: ax, offsets };
}

/**
 * The arrays joined along `axis` (default 0; null: flattened first) into a new array (or `out`): their dtype promoted
 * as `resultType` (or `dtype`), each copied into its slice of the result (one copy per input; a conversion kernel
 * where its dtype differs). Every axis but the joined one must match (ShapeMismatchError naming both shapes).
 */
export function concatenate(arrays: readonly DeviceArray[], options?: ConcatenateOptions): DeviceArray {
  const what = "concatenate";
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { axis?, dtype?, out?, stream? }, got ${describeValue(options)}`);
  const given = options?.out;
  if (given !== undefined && !(given instanceof DeviceArray)) throw new TypeError(`${what}: out is a DeviceArray, not ${describeValue(given)}`);
  if (given !== undefined) checkWritable(given, `${what}: out`);
  const requested = options?.dtype !== undefined ? dtypeOf(options.dtype) : given?.dtype;
  if (options?.dtype !== undefined && given !== undefined && given.dtype !== requested) throw new DTypeError(`${what}: dtype is ${requested!.name} but out is ${given.dtype.name}`);
  let inputs = arrays;
  let axis = options?.axis === undefined ? 0 : options.axis;
  if (axis === null) {
    if (!Array.isArray(arrays)) throw new ShapeMismatchError(`${what}: give a non-empty list of arrays`);
    arrays.forEach((a, k) => checkArray(a, `${what}: array ${k}`));
    inputs = arrays.map((a) => (a.isContiguous ? viewWith(a, [a.size], [1]) : a));
    axis = 0;
  }
  // Flattened non-contiguous inputs are copied through a contiguous view of their slice (below).
  const shapes = inputs.map((a) => (options?.axis === null ? [a.size] : a.shape));
  const plan = concatenatePlan(
    inputs.map((a, k) => (sameShape(a.shape, shapes[k]!) ? a : viewLike(a, shapes[k]!))),
    axis,
    requested,
    what,
  );
  if (given !== undefined && !sameShape(given.shape, plan.shape)) throw new ShapeMismatchError(`${what}: out has shape ${showShape(given.shape)} but the result has shape ${showShape(plan.shape)}`);
  const stream = operationStream(what, options, [...inputs, ...(given !== undefined ? [given] : [])]);
  // An out that overlaps an input is filled through a temporary: a copy into one part could overwrite another input.
  const staged = given !== undefined && inputs.some((a) => mayShareMemory(given, a));
  const out = given !== undefined && !staged ? given : DeviceArray.empty(plan.shape, plan.dtype, { stream });
  inputs.forEach((a, k) => {
    if (a.size === 0) return;
    const specs: SliceSpec[] = plan.shape.map((_, d) => (d === plan.axis ? [plan.offsets[k]!, plan.offsets[k]! + shapes[k]![d]!] : null));
    let part = out.slice(...specs);
    // A flattened, non-contiguous input: its slice seen in the input's own shape (the slice is contiguous).
    if (!sameShape(a.shape, shapes[k]!)) part = viewWith(part, a.shape, contiguousStrides(a.shape));
    castInto(stream, a, part);
  });
  if (staged) {
    given.copyFrom(out, { stream });
    out.close(stream);
    return given;
  }
  return out;
}

/** A stand-in of `a` with another shape (for shape checks only: never read). */
function viewLike(a: DeviceArray, shape: readonly number[]): DeviceArray {
  return viewWith(a, shape, shape.map(() => 0));
}

/** The arrays (all of one shape) joined along a new axis `axis` (default 0) into a new array; dtypes as {@link concatenate}. */
export function stack(arrays: readonly DeviceArray[], options?: ConcatenateOptions): DeviceArray {
  if (!Array.isArray(arrays) || arrays.length === 0) throw new ShapeMismatchError("stack: give a non-empty list of arrays");
  arrays.forEach((a, k) => checkArray(a, `stack: array ${k}`));
  const first = arrays[0]!;
  arrays.forEach((a, k) => {
    if (!sameShape(a.shape, first.shape)) throw new ShapeMismatchError(`stack: array 0 has shape ${showShape(first.shape)} but array ${k} has shape ${showShape(a.shape)}; stacked arrays have one shape`);
  });
  const axis = normalizeAxis(options?.axis ?? 0, first.ndim + 1, "stack");
  return concatenate(
    arrays.map((a) => expandDims(a, axis)),
    { ...options, axis },
  );
}

/** The arrays joined along their second axis (the first for 1-d arrays), as NumPy's `hstack`. */
export function hstack(arrays: readonly DeviceArray[], options?: Omit<ConcatenateOptions, "axis">): DeviceArray {
  if (!Array.isArray(arrays) || arrays.length === 0) throw new ShapeMismatchError("hstack: give a non-empty list of arrays");
  const list = arrays.map((a) => atleast1d(a));
  return concatenate(list, { ...options, axis: list[0]!.ndim === 1 ? 0 : 1 });
}

/** The arrays joined along their first axis, 1-d arrays as rows, as NumPy's `vstack`. */
export function vstack(arrays: readonly DeviceArray[], options?: Omit<ConcatenateOptions, "axis">): DeviceArray {
  if (!Array.isArray(arrays) || arrays.length === 0) throw new ShapeMismatchError("vstack: give a non-empty list of arrays");
  return concatenate(arrays.map((a) => atleast2d(a)), { ...options, axis: 0 });
}

/**
 * 1-d arrays as the columns of a 2-d array, joined with 2-d (and wider) arrays along their second axis, as NumPy's
 * `column_stack`: a 1-d array of n elements is an [n, 1] column, a 0-d array a [1, 1] one; others are joined as
 * they are (`concatenate` along axis 1: dtypes promoted, a new array, or `out`).
 *
 * ```ts
 * columnStack([x, y]);           // x, y: [n] → [n, 2]
 * ```
 */
export function columnStack(arrays: readonly DeviceArray[], options?: Omit<ConcatenateOptions, "axis">): DeviceArray {
  if (!Array.isArray(arrays) || arrays.length === 0) throw new ShapeMismatchError("columnStack: give a non-empty list of arrays");
  arrays.forEach((a, k) => checkArray(a, `columnStack: array ${k}`));
  return concatenate(
    arrays.map((a) => (a.ndim < 2 ? atleast2d(a).transpose() : a)),
    { ...options, axis: 1 },
  );
}

/**
 * The arrays joined along their third axis (depth), as NumPy's `dstack`: each first given three axes as
 * {@link atleast3d} does ([n] → [1, n, 1], [m, n] → [m, n, 1]), then `concatenate` along axis 2 (dtypes promoted, a
 * new array, or `out`).
 *
 * ```ts
 * dstack([r, g, b]);             // three [h, w] planes → [h, w, 3]
 * ```
 */
export function dstack(arrays: readonly DeviceArray[], options?: Omit<ConcatenateOptions, "axis">): DeviceArray {
  if (!Array.isArray(arrays) || arrays.length === 0) throw new ShapeMismatchError("dstack: give a non-empty list of arrays");
  arrays.forEach((a, k) => checkArray(a, `dstack: array ${k}`));
  return concatenate(
    arrays.map((a) => atleast3d(a)),
    { ...options, axis: 2 },
  );
}

provideArrayMethods({
  flatten: (self, options) => flatten(self, options),
  ravel: (self, options) => ravel(self, options),
  squeeze: (self, axis) => squeeze(self, axis),
  expandDims: (self, axis) => expandDims(self, axis ?? 0),
  swapaxes: (self, axis1, axis2) => swapaxes(self, axis1, axis2),
  diagonal: (self, options) => diagonal(self, options),
  broadcastTo: (self, shape) => broadcastTo(self, shape),
});
