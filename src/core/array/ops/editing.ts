/**
 * Splitting and editing arrays along an axis, as NumPy's functions of the same names: `hsplit`, `vsplit` and `dsplit`
 * (views, through `split`), `append`, `insert` and `delete` (new arrays; without `axis` over the flattened array),
 * `resize` (a new shape filled by repeating the elements) and `trimZeros` (a view without the zeros at the edges).
 *
 * ```ts
 * const [left, right] = hsplit(m, 2);                     // views of the two halves of m's columns
 * const longer = append(x, y);                            // x and y flattened, joined
 * const withRow = insert(m, 1, row, { axis: 0 });         // row before m's row 1
 * const fewer = deleteItems(x, [0, 2]);                   // x flattened without elements 0 and 2
 * const big = resize(x, [3, 4]);                          // x's elements over and over, row-major
 * const core = trimZeros(signal);                         // [0, 0, 1, 2, 0] → a view of [1, 2]
 * ```
 *
 * `delete` is a reserved word of JavaScript: the function is `deleteItems`, also exported as `delete` for
 * `ca.delete(x, 1)` through a namespace import (a named import renames it: `import { delete as del }`).
 *
 * The positions `insert` and `delete` take are JavaScript numbers, checked on the host (IndexError naming the index
 * and the extent) before anything is queued. A few positions make the result by `concatenate` of views (one copy per
 * part); more make it by one `take` along the axis, the source of each entry found on the device from the positions
 * (`arange`, `searchsorted`, `put`): the host's work grows with the positions given, never with the axis.
 *
 * @module
 */
import { DeviceArray, encodeElement, operationStream, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import { dtypes } from "../dtype.ts";
import { BroadcastError, IndexError, ShapeMismatchError } from "../errors.ts";
import { broadcastStrides, normalizeAxes, normalizeAxis, showShape } from "../broadcast.ts";
import { checkShape, elementCount, type SliceSpec } from "../layout.ts";
import type { Stream } from "../../stream.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { add, sub } from "./arithmetic.ts";
import { castInto } from "./cast.ts";
import { arange, castScalar, scalarDType, zeros } from "./creation.ts";
import { put, take } from "./indexing.ts";
import { searchsorted } from "./search.ts";
import { any, argmax } from "./statistics.ts";
import { withTemporaries } from "./temporaries.ts";
import { checkArray, concatenate, flip, moveaxis, ravel, split, viewWith } from "./shape.ts";

/** Options of `append`, `insert` and `delete`: the axis (default: the flattened array) and the stream. */
export interface EditOptions extends ArrayOperationOptions {
  /** The axis edited along (negative counts from the end); left out or null: the array flattened first. */
  readonly axis?: number | null;
}

/** A slice of positions for `delete`, as Python's `slice(start, stop, step)` (each part optional; step not 0). */
export interface IndexSlice {
  readonly start?: number | null;
  readonly stop?: number | null;
  readonly step?: number | null;
}

function checkOptions(options: unknown, what: string): void {
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { axis?, stream? }, got ${describeValue(options)}`);
}

// ---- hsplit, vsplit, dsplit ----

/**
 * `a` split into views along its second axis (the first for a 1-d array), as NumPy's `hsplit`: `sections` equal
 * parts or a list of positions, as {@link split}. A 0-d array is an ArgumentError (NumPy's ValueError).
 *
 * ```ts
 * const [left, right] = hsplit(m, 2);      // m: [4, 6] → two [4, 3] views
 * ```
 */
export function hsplit(a: DeviceArray, sections: number | readonly number[]): DeviceArray[] {
  checkArray(a, "hsplit");
  if (a.ndim === 0) throw new ArgumentError("hsplit: needs an array of at least 1 axis, got a 0-d array; use atleast1d first");
  return split(a, sections, { axis: a.ndim > 1 ? 1 : 0 });
}

/**
 * `a` split into views along its first axis, as NumPy's `vsplit` (`split` along axis 0): `a` needs at least 2 axes
 * (ArgumentError otherwise, NumPy's ValueError).
 *
 * ```ts
 * const [top, bottom] = vsplit(m, 2);      // m: [4, 6] → two [2, 6] views
 * ```
 */
export function vsplit(a: DeviceArray, sections: number | readonly number[]): DeviceArray[] {
  checkArray(a, "vsplit");
  if (a.ndim < 2) throw new ArgumentError(`vsplit: needs an array of at least 2 axes, got shape ${showShape(a.shape)}; use split(a, sections) for a 1-d array`);
  return split(a, sections, { axis: 0 });
}

/**
 * `a` split into views along its third axis (depth), as NumPy's `dsplit` (`split` along axis 2): `a` needs at least
 * 3 axes (ArgumentError otherwise, NumPy's ValueError).
 *
 * ```ts
 * const [r, g, b] = dsplit(image, 3);      // image: [h, w, 3] → three [h, w, 1] views
 * ```
 */
export function dsplit(a: DeviceArray, sections: number | readonly number[]): DeviceArray[] {
  checkArray(a, "dsplit");
  if (a.ndim < 3) throw new ArgumentError(`dsplit: needs an array of at least 3 axes, got shape ${showShape(a.shape)}; use split(a, sections, { axis }) for fewer`);
  return split(a, sections, { axis: 2 });
}

// ---- helpers ----

/** The axis of an edit (undefined: the flattened array). */
function editAxis(a: DeviceArray, options: EditOptions | undefined, what: string): number | undefined {
  const axis = options?.axis;
  return axis === undefined || axis === null ? undefined : normalizeAxis(axis, a.ndim, what);
}

/** The stream an options object names, passed on (the operation called finds it, or the operands'). */
function streamOf(options: ArrayOperationOptions | undefined): ArrayOperationOptions {
  return options?.stream !== undefined ? { stream: options.stream } : {};
}

function checkScalar(value: unknown, what: string): void {
  if (typeof value !== "number" && typeof value !== "bigint" && typeof value !== "boolean" && !Array.isArray(value)) {
    throw new TypeError(`${what}: values is a DeviceArray or a scalar (a number, a bigint, a boolean or [re, im]), not ${describeValue(value)}`);
  }
}

/** Positions (JavaScript numbers, checked already) as a 1-d int64 array on `stream`. */
function int64Array(list: readonly number[], stream: Stream): DeviceArray {
  return DeviceArray.from(BigInt64Array.from(list, (x) => BigInt(x)), { stream });
}

/**
 * `arange(count)` moved by the count of the ascending `marks` at each position, on the device: "right" adds the count
 * of marks ≤ p (a kept entry's source, past the deleted ones), "left" takes away the count of marks < p (an entry's
 * source, before the inserted ones).
 */
function shiftedRange(count: number, marks: DeviceArray, side: "left" | "right", stream: Stream): DeviceArray {
  const positions = arange(count, { stream });
  try {
    const shift = searchsorted(marks, positions, { side, stream });
    try {
      (side === "right" ? add : sub)(positions, shift, { out: positions, stream });
    } finally {
      shift.close(stream);
    }
    return positions;
  } catch (e) {
    positions.close(stream);
    throw e;
  }
}

// ---- append ----

/**
 * `values` joined to the end of `a` along `axis`, a new array, as NumPy's `append`: without `axis` both are
 * flattened first (a 1-d result); with it, `values` has `a`'s number of axes and its shape on the others
 * (ShapeMismatchError otherwise). The dtype is the two promoted (a scalar counts as NumPy's array of it: int64,
 * float64, bool or complex128), as {@link concatenate}.
 *
 * ```ts
 * append(x, y);                             // [1, 2, 3] and [[4], [5]] → [1, 2, 3, 4, 5]
 * append(m, rows, { axis: 0 });             // m: [2, 3], rows: [1, 3] → [3, 3]
 * append(x, 7);                             // int8 [1, 2] → int64 [1, 2, 7] (as NumPy's)
 * ```
 */
export function append(a: DeviceArray, values: DeviceArray | ArrayScalar, options?: EditOptions): DeviceArray {
  const what = "append";
  checkArray(a, what);
  checkOptions(options, what);
  const axis = editAxis(a, options, what);
  if (values instanceof DeviceArray) {
    checkArray(values, `${what}: values`);
    return concatenate([a, values], { axis: axis ?? null, ...streamOf(options) });
  }
  checkScalar(values, what);
  if (axis !== undefined) {
    throw new ShapeMismatchError(`${what}: a scalar value has no axes but the array has ${a.ndim} (shape ${showShape(a.shape)}); append along an axis takes values of the array's number of axes, or leave axis out to append to the flattened array`);
  }
  const dtype = scalarDType(values);
  encodeElement(dtype, castScalar(values, dtype)); // range checked before the stream is used
  const stream = operationStream(what, options, [a]);
  const v = DeviceArray.full([1], castScalar(values, dtype), dtype, { stream });
  try {
    return concatenate([a, v], { axis: null, stream });
  } finally {
    v.close(stream);
  }
}

// ---- insert ----

/** A part of an insertion's result along the axis: the array's entries `[from, to)`, or the values' entries `[from, to)`. */
export interface InsertPiece {
  readonly kind: "array" | "values";
  readonly from: number;
  readonly to: number;
}

/** The most positions `insert` joins from views (a piece each, and one between each two); past it, one `take`. */
export const INSERT_MAX_POSITIONS = 8;

/** What an insertion makes (exported for tests): the axis, where each part of the result comes from. */
export interface InsertPlan {
  /** The axis inserted along, in the (flattened, without an axis) array. */
  readonly axis: number;
  /** The shape `values` is broadcast to: the array's, with the number of new entries along `axis`. */
  readonly valuesShape: number[];
  /** Whether `values` gets its leading axis moved to `axis` first (a single position given as a number, as NumPy's). */
  readonly moveValues: boolean;
  /** Up to {@link INSERT_MAX_POSITIONS} positions: the result along the axis, in order, joined from views. */
  readonly pieces?: readonly InsertPiece[];
  /**
   * More positions: where the values land in the result (`at`, ascending) and what lands there (`source`: `extent +
   * j` for value `j`); every other entry `q` of the result is the array's entry `q - (the count of at < q)`. Both
   * found on the device (`searchsorted`, then `put` of the values' sources), then one `take` from the array and the
   * values joined: nothing the size of the axis is built on the host.
   */
  readonly slots?: { readonly at: readonly number[]; readonly source: readonly number[] };
}

/** A BroadcastError now (before the stream is used) when values of `shape` do not broadcast to the inserted `block`. */
function checkBlock(shape: readonly number[], block: readonly number[]): void {
  try {
    broadcastStrides(shape, shape.map(() => 0), block);
  } catch (e) {
    if (!(e instanceof BroadcastError)) throw e;
    throw new BroadcastError(`insert: values (seen as shape ${showShape(shape)}) do not broadcast to the inserted block ${showShape(block)}; give values that shape, or one that broadcasts to it`);
  }
}

/**
 * How many leading axes of extent 1 values of `valuesShape` drop to have at most `ndim` axes: as NumPy's assignment
 * into the inserted entries, for a list of two or more positions (one position turns or pads values instead).
 */
function droppedOnes(index: unknown, valuesShape: readonly number[], ndim: number): number {
  if (!Array.isArray(index) || index.length < 2) return 0;
  let k = 0;
  while (valuesShape.length - k > ndim && valuesShape[k] === 1) k++;
  return k;
}

/**
 * The plan of `insert` (exported for tests) for an array of `shape` (already flattened without an axis) along
 * `axis`, positions `index`, and values of shape `givenShape` (leading axes of 1 dropped or added to fit).
 */
export function insertPlan(shape: readonly number[], axis: number, index: number | readonly number[], givenShape: readonly number[]): InsertPlan {
  const what = "insert";
  const n = shape[axis]!;
  const valuesOwnShape = givenShape.slice(droppedOnes(index, givenShape, shape.length));
  if (valuesOwnShape.length > shape.length) {
    throw new ShapeMismatchError(`${what}: values have ${valuesOwnShape.length} axes (shape ${showShape(valuesOwnShape)}) but the array has ${shape.length} (shape ${showShape(shape)}); give values at most as many axes`);
  }
  const list = typeof index === "number" ? [index] : Array.isArray(index) ? [...(index as readonly unknown[])] : undefined;
  if (list === undefined) throw new TypeError(`${what}: index is an integer or a list of integers, got ${describeValue(index)}`);
  list.forEach((v, j) => {
    if (typeof v !== "number" || !Number.isSafeInteger(v)) throw new TypeError(`${what}: index is an integer or a list of integers, got ${describeValue(v)} at position ${j}`);
    if (v < -n || v > n) throw new IndexError(`${what}: index ${v} is out of bounds for axis ${axis} with size ${n} (from ${-n} to ${n}: before that entry, or ${n} for the end)`);
  });
  const positions = (list as number[]).map((v) => (v < 0 ? v + n : v));
  // Values get leading axes of extent 1 up to the array's number of axes (NumPy's ndmin).
  const padded = [...new Array<number>(shape.length - valuesOwnShape.length).fill(1), ...valuesOwnShape];
  const around = (at: number, values: InsertPiece): InsertPiece[] => [
    ...(at > 0 ? [{ kind: "array" as const, from: 0, to: at }] : []),
    values,
    ...(at < n ? [{ kind: "array" as const, from: at, to: n }] : []),
  ];
  if (positions.length === 1) {
    const moveValues = typeof index === "number";
    const v = moveValues ? [...padded.slice(1, axis + 1), padded[0]!, ...padded.slice(axis + 1)] : padded;
    const valuesShape = shape.map((s, d) => (d === axis ? v[axis]! : s));
    checkBlock(v, valuesShape);
    return { axis, valuesShape, moveValues, pieces: around(positions[0]!, { kind: "values", from: 0, to: v[axis]! }) };
  }
  // Several positions: the new entries go in (stably) before their positions, in the order of the sorted positions.
  const count = positions.length;
  const valuesShape = shape.map((s, d) => (d === axis ? count : s));
  checkBlock(padded, valuesShape);
  const order = [...positions.keys()].sort((p, q) => positions[p]! - positions[q]! || p - q);
  if (count <= INSERT_MAX_POSITIONS) {
    const pieces: InsertPiece[] = [];
    let from = 0;
    for (const j of order) {
      const at = positions[j]!;
      if (at > from) pieces.push({ kind: "array", from, to: at });
      pieces.push({ kind: "values", from: j, to: j + 1 });
      from = at;
    }
    if (from < n || count === 0) pieces.push({ kind: "array", from, to: n });
    return { axis, valuesShape, moveValues: false, pieces };
  }
  return { axis, valuesShape, moveValues: false, slots: { at: order.map((j, rank) => positions[j]! + rank), source: order.map((j) => n + j) } };
}

/**
 * `a` with `values` inserted before position `index` along `axis` (default: the flattened array), a new array of `a`'s
 * dtype (values converted to it), as NumPy's `insert`: `index` is a number (one block; a `values` array has its first
 * axis turned to `axis`, as NumPy's) or a list of numbers (one entry of `values` along `axis` per position, in the
 * given order; positions may repeat). Positions go from `-extent` to `extent` (the end); outside, an IndexError.
 * `values` broadcasts to the inserted block (ShapeMismatchError / BroadcastError otherwise).
 *
 * ```ts
 * insert(x, 1, 9);                          // [1, 2, 3] → [1, 9, 2, 3]
 * insert(x, [0, 2], y);                     // y: [2] → [y0, 1, 2, y1, 3]
 * insert(m, 1, col, { axis: 1 });           // m: [2, 2], col: [2] → [2, 3], col as column 1
 * ```
 */
export function insert(a: DeviceArray, index: number | readonly number[], values: DeviceArray | ArrayScalar, options?: EditOptions): DeviceArray {
  const what = "insert";
  checkArray(a, what);
  checkOptions(options, what);
  const given = editAxis(a, options, what);
  const flat = given === undefined;
  const shape = flat ? [a.size] : [...a.shape];
  const axis = given ?? 0;
  if (values instanceof DeviceArray) checkArray(values, `${what}: values`);
  else {
    checkScalar(values, what);
    encodeElement(a.dtype, castScalar(values, a.dtype)); // range checked before the stream is used
  }
  const plan = insertPlan(shape, axis, index, values instanceof DeviceArray ? values.shape : []);
  const stream = operationStream(what, options, [a, ...(values instanceof DeviceArray ? [values] : [])]);
  const ownValues = values instanceof DeviceArray ? undefined : DeviceArray.full([], castScalar(values, a.dtype), a.dtype, { stream });
  let ownFlat: DeviceArray | undefined;
  try {
    const src = flat ? ravel(a, { stream }) : a;
    if (src.base === undefined && src !== a) ownFlat = src; // ravel's own copy of a strided array
    let v = ownValues ?? (values as DeviceArray);
    const dropped = droppedOnes(index, v.shape, shape.length);
    if (dropped > 0) v = viewWith(v, v.shape.slice(dropped), v.strides.slice(dropped));
    const padded = [...new Array<number>(shape.length - v.ndim).fill(1), ...v.shape];
    v = viewWith(v, padded, [...new Array<number>(shape.length - v.ndim).fill(0), ...v.strides]);
    if (plan.moveValues) v = moveaxis(v, 0, axis);
    const block = viewWith(v, plan.valuesShape, broadcastStrides(v.shape, v.strides, plan.valuesShape));
    const opts = { axis, dtype: a.dtype, stream };
    const along = (x: DeviceArray, from: number, to: number): DeviceArray => x.slice(...shape.map((_, d): SliceSpec => (d === axis ? [from, to] : null)));
    if (plan.pieces !== undefined) return concatenate(plan.pieces.map((p) => along(p.kind === "array" ? src : block, p.from, p.to)), opts);
    // Many positions: each entry's source in the array and the values joined, found on the device, then one take.
    // Entry q is the array's entry q - (the count of slots before q), or, at a slot, where its value was joined.
    return withTemporaries(stream, (temp) => {
      const joined = temp(concatenate([src, block], opts));
      const at = temp(int64Array(plan.slots!.at, stream));
      const sources = temp(shiftedRange(shape[axis]! + plan.valuesShape[axis]!, at, "left", stream));
      put(sources, at, temp(int64Array(plan.slots!.source, stream)), { stream });
      return take(joined, sources, { axis, stream });
    });
  } finally {
    ownValues?.close(stream);
    ownFlat?.close(stream);
  }
}

// ---- delete ----

/** A range of positions along an axis, ascending: `count` positions from `first`, `step` apart (step ≥ 1). */
export interface PositionRange {
  readonly first: number;
  readonly step: number;
  readonly count: number;
}

/** The positions `slice(start, stop, step)` names along an axis of extent `n` (Python's `slice.indices`), as an ascending range. */
export function sliceRange(s: IndexSlice, n: number, what = "delete"): PositionRange {
  const step = s.step ?? 1;
  for (const [name, v] of [["start", s.start], ["stop", s.stop], ["step", s.step]] as const) {
    if (v !== undefined && v !== null && (typeof v !== "number" || !Number.isSafeInteger(v))) throw new TypeError(`${what}: the slice's ${name} is an integer or null, got ${describeValue(v)}`);
  }
  if (step === 0) throw new ArgumentError(`${what}: the slice's step is 0; give a non-zero step`);
  const clamp = (v: number | null | undefined, fallback: number): number => {
    if (v === undefined || v === null) return fallback;
    const w = v < 0 ? v + n : v;
    return step > 0 ? Math.min(Math.max(w, 0), n) : Math.min(Math.max(w, -1), n - 1);
  };
  const start = clamp(s.start, step > 0 ? 0 : n - 1);
  const stop = clamp(s.stop, step > 0 ? n : -1);
  const count = Math.max(0, step > 0 ? Math.ceil((stop - start) / step) : Math.ceil((start - stop) / -step));
  return step > 0 || count === 0 ? { first: start, step: Math.abs(step), count } : { first: start + (count - 1) * step, step: -step, count };
}

/** The positions `slice(start, stop, step)` names along an axis of extent `n`, as Python's `range(*s.indices(n))`. */
export function slicePositions(s: IndexSlice, n: number, what = "delete"): number[] {
  const r = sliceRange(s, n, what);
  const out = Array.from({ length: r.count }, (_, k) => r.first + k * r.step);
  return (s.step ?? 1) < 0 ? out.reverse() : out;
}

/** The most runs of kept entries `delete` joins from views; past it, one `take` of positions found on the device. */
export const DELETE_MAX_RUNS = 16;

/**
 * What `delete` keeps along an axis of extent `n` (exported for tests): `kept` entries, either as a few
 * `[start, stop)` runs (joined from views of the array) or, with more runs, as the deleted positions, ascending and
 * without repeats, less their rank (`steps`, or their range `stepRange` for a slice): kept entry `p` is the array's
 * entry `p + (the count of steps ≤ p)`, found on the device by `searchsorted` (nothing of the axis's extent is built
 * on the host).
 */
export type DeletePlan =
  | { readonly kind: "runs"; readonly kept: number; readonly runs: readonly (readonly [number, number])[] }
  | { readonly kind: "steps"; readonly kept: number; readonly steps: readonly number[] }
  | { readonly kind: "stepRange"; readonly kept: number; readonly stepRange: PositionRange };

/** The runs of entries of an axis of extent `n` outside the ascending, distinct positions `gone`. */
function keptRuns(gone: readonly number[], n: number): [number, number][] {
  const runs: [number, number][] = [];
  let from = 0;
  for (const g of gone) {
    if (g > from) runs.push([from, g]);
    from = g + 1;
  }
  if (from < n) runs.push([from, n]);
  return runs;
}

/**
 * The plan of `delete` (exported for tests) of `index` along an axis of extent `n`: a number (from `-n` to `n - 1`),
 * a list of numbers (negative count from the end; repeats allowed) or a slice `{ start, stop, step }`. IndexError
 * for a position out of range, TypeError for anything else.
 */
export function deletePlan(index: number | readonly number[] | IndexSlice, n: number, axis: number): DeletePlan {
  const what = "delete";
  if (typeof index === "number" || Array.isArray(index)) {
    const list = typeof index === "number" ? [index] : [...(index as readonly unknown[])];
    const gone = list.map((v, j) => {
      if (typeof v !== "number" || !Number.isSafeInteger(v)) throw new TypeError(`${what}: index is an integer, a list of integers or a slice { start, stop, step }, got ${describeValue(v)}${Array.isArray(index) ? ` at position ${j}` : ""}`);
      if (v < -n || v >= n) throw new IndexError(`${what}: index ${v} is out of bounds for axis ${axis} with size ${n} (from ${-n} to ${n - 1})`);
      return v < 0 ? v + n : v;
    });
    const sorted = [...new Set(gone)].sort((p, q) => p - q);
    const kept = n - sorted.length;
    const runs = keptRuns(sorted, n);
    return runs.length <= DELETE_MAX_RUNS ? { kind: "runs", kept, runs } : { kind: "steps", kept, steps: sorted.map((g, j) => g - j) };
  }
  if (index instanceof DeviceArray) {
    throw new TypeError(`${what}: positions are JavaScript numbers (checked on the host), not a DeviceArray; read them back first (toList), or keep a mask's elements with extract or compress`);
  }
  if (typeof index !== "object" || index === null) throw new TypeError(`${what}: index is an integer, a list of integers or a slice { start, stop, step }, got ${describeValue(index)}`);
  const other = Object.keys(index).filter((key) => key !== "start" && key !== "stop" && key !== "step");
  if (other.length > 0) throw new TypeError(`${what}: a slice is { start?, stop?, step? }, got the key${other.length > 1 ? "s" : ""} ${other.join(", ")}`);
  const r = sliceRange(index as IndexSlice, n, what);
  const kept = n - r.count;
  // A slice of step 1 leaves two runs at most; a slice of step s > 1 leaves one between each two of its positions.
  if (r.count === 0) return { kind: "runs", kept, runs: keptRuns([], n) };
  if (r.step === 1) {
    const runs: [number, number][] = [];
    if (r.first > 0) runs.push([0, r.first]);
    if (r.first + r.count < n) runs.push([r.first + r.count, n]);
    return { kind: "runs", kept, runs };
  }
  if (r.count < DELETE_MAX_RUNS) {
    return { kind: "runs", kept, runs: keptRuns(Array.from({ length: r.count }, (_, k) => r.first + k * r.step), n) };
  }
  return { kind: "stepRange", kept, stepRange: { first: r.first, step: r.step - 1, count: r.count } };
}

/**
 * `a` without the entries at `index` along `axis` (default: the flattened array), a new array of `a`'s dtype, as
 * NumPy's `delete`: `index` is a number, a list of numbers (repeats allowed) or a slice `{ start, stop, step }`
 * (Python's `slice`; negative parts count from the end). Positions out of range are IndexErrors. A few runs of kept
 * entries are joined from views of `a` (one copy each, as `concatenate`); more (many scattered positions, a slice
 * with a step) take one `take` along the axis, each kept entry's position found on the device from the deleted
 * ones (`arange`, `searchsorted`, `add`): nothing the size of the axis is built on the host. Exported as
 * `deleteItems` and as `delete` (a reserved word: `ca.delete(...)`).
 *
 * ```ts
 * deleteItems(x, 1);                           // [1, 2, 3, 4] → [1, 3, 4]
 * deleteItems(m, { start: 0, step: 2 }, { axis: 1 }); // m's odd columns
 * ca.delete(x, [0, -1]);                       // without the first and the last
 * ```
 */
export function deleteItems(a: DeviceArray, index: number | readonly number[] | IndexSlice, options?: EditOptions): DeviceArray {
  const what = "delete";
  checkArray(a, what);
  checkOptions(options, what);
  const given = editAxis(a, options, what);
  const flat = given === undefined;
  const axis = given ?? 0;
  const plan = deletePlan(index, flat ? a.size : a.shape[axis]!, axis);
  const stream = operationStream(what, options, [a]);
  if (plan.kept === 0) return DeviceArray.empty(flat ? [0] : a.shape.map((s, d) => (d === axis ? 0 : s)), a.dtype, { stream });
  if (plan.kind === "runs") {
    if (!flat) return concatenate(plan.runs.map(([from, to]) => a.slice(...a.shape.map((_, d): SliceSpec => (d === axis ? [from, to] : null)))), { axis, stream });
    const src = ravel(a, { stream });
    try {
      return concatenate(plan.runs.map(([from, to]) => src.slice([from, to])), { axis: 0, stream });
    } finally {
      if (src.base === undefined) src.close(stream); // ravel's own copy of a strided array
    }
  }
  const r = plan.kind === "stepRange" ? plan.stepRange : undefined;
  return withTemporaries(stream, (temp) => {
    const steps = temp(r !== undefined ? arange(r.first, r.first + r.count * r.step, r.step, { stream }) : int64Array(plan.kind === "steps" ? plan.steps : [], stream));
    // Kept entry p is the array's entry p + (the count of steps ≤ p).
    const positions = temp(shiftedRange(plan.kept, steps, "right", stream));
    return take(a, positions, flat ? { stream } : { axis, stream });
  });
}

export { deleteItems as delete };

// ---- resize ----

/**
 * A new array of `newShape` filled with `a`'s elements in row-major order, over and over (cut where it is full), as
 * NumPy's `resize` (not `ndarray.resize`, which fills with zeros): `a`'s dtype; an empty `a` or an empty shape gives
 * zeros. Made by at most two copies: the whole repeats from a stride-0 view of `a` (flattened: a copy only when
 * `a` is not contiguous), then the first elements once more.
 *
 * ```ts
 * resize(m, [2, 3]);                        // [[0, 1], [2, 3]] → [[0, 1, 2], [3, 0, 1]]
 * resize(x, 5);                             // [1, 2] → [1, 2, 1, 2, 1]
 * ```
 */
export function resize(a: DeviceArray, newShape: number | readonly number[], options?: ArrayOperationOptions): DeviceArray {
  const what = "resize";
  checkArray(a, what);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { stream? }, got ${describeValue(options)}`);
  const shape = checkShape(newShape, `${what}: newShape`);
  const size = elementCount(shape);
  if (!Number.isSafeInteger(size)) throw new ShapeMismatchError(`${what}: newShape ${showShape(shape)} has more elements than an array can hold`);
  const stream = operationStream(what, options, [a]);
  if (a.size === 0 || size === 0) return zeros(shape, { stream, dtype: a.dtype });
  const flat = ravel(a, { stream });
  const out = DeviceArray.empty(shape, a.dtype, { stream });
  try {
    const n = a.size;
    const whole = Math.floor(size / n);
    const rest = size - whole * n;
    const step = flat.strides[0]!;
    if (whole > 0) viewWith(out, [whole, n], [n, 1]).copyFrom(viewWith(flat, [whole, n], [0, step]), { stream });
    if (rest > 0) viewWith(out, [rest], [1], out.byteOffset + whole * n * out.itemsize).copyFrom(viewWith(flat, [rest], [step]), { stream });
  } catch (e) {
    out.close(stream);
    throw e;
  } finally {
    if (flat !== a && flat.base !== a) flat.close(stream); // ravel's copy of a non-contiguous a
  }
  return out;
}

// ---- trimZeros ----

/** Options of `trimZeros`: which edges, along which axes, and the stream. */
export interface TrimZerosOptions extends ArrayOperationOptions {
  /** "fb" (default: both edges), "f" (the front: low indices) or "b" (the back); "bf" as "fb", upper case too, as NumPy's. */
  readonly trim?: "fb" | "bf" | "f" | "b" | Uppercase<"fb" | "bf" | "f" | "b">;
  /** The axes trimmed (default: every axis, the smallest box holding every non-zero element); negative counts from the end. */
  readonly axis?: number | readonly number[] | null;
}

/**
 * The start and stop of the non-zero elements along each of `axes` (exported for tests: the host's part), from what
 * the device read back: `found` (whether any element is non-zero), and per axis the first true position of its
 * "any along the other axes" and the first from the back. Where nothing is non-zero every axis gets [0, 0), as NumPy's.
 */
export function trimBounds(shape: readonly number[], axes: readonly number[], front: boolean, back: boolean, found: boolean, first: readonly number[], fromBack: readonly number[]): [number, number][] {
  return axes.map((d, j) => {
    if (!found) return [0, 0];
    const n = shape[d]!;
    return [front ? first[j]! : 0, back ? n - fromBack[j]! : n];
  });
}

/**
 * `filt` without its leading and trailing zeros, a view, as NumPy's `trim_zeros`: a 1-d array's run from the first
 * non-zero element to the last (`trim` "f": only the leading zeros go, "b": only the trailing); an array of more axes
 * is cut to the smallest box holding every non-zero element, along every axis or only along `axis` (NumPy 2.2's
 * `axis`). All zeros (or empty) gives an empty view (extent 0 along the trimmed axes, whatever `trim` says, as
 * NumPy's). A 0-d array, or `axis: []`, is returned as it is. NaN counts as non-zero.
 *
 * The edges are found on the device (`any` along the other axes, `argmax` from the front and of the flipped mask from
 * the back) and read back to the host, together, to cut the view: this synchronises with the stream.
 *
 * ```ts
 * trimZeros(x);                             // [0, 0, 0, 1, 2, 3, 0, 2, 1, 0] → [1, 2, 3, 0, 2, 1]
 * trimZeros(x, { trim: "b" });              // → [0, 0, 0, 1, 2, 3, 0, 2, 1]
 * trimZeros(m, { axis: -1 });               // columns of zeros at either side removed
 * ```
 */
export function trimZeros(filt: DeviceArray, options?: TrimZerosOptions): DeviceArray {
  const what = "trimZeros";
  checkArray(filt, what);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { trim?, axis?, stream? }, got ${describeValue(options)}`);
  const trim: unknown = options?.trim ?? "fb";
  if (typeof trim !== "string") throw new TypeError(`${what}: trim is a string ("fb", "f" or "b"), got ${describeValue(trim)}`);
  const t = trim.toLowerCase();
  if (t !== "fb" && t !== "bf" && t !== "f" && t !== "b") throw new ArgumentError(`${what}: trim is "fb" (both edges), "f" (the front) or "b" (the back), got ${describeValue(trim)}`);
  const axes = normalizeAxes(options?.axis ?? null, filt.ndim, what);
  if (axes.length === 0) return filt;
  const [front, back] = [t.includes("f"), t.includes("b")];
  let bounds: [number, number][];
  if (filt.size === 0) bounds = trimBounds(filt.shape, axes, front, back, false, [], []);
  else {
    const stream = operationStream(what, options, [filt]);
    const { found, first, fromBack } = readEdges(filt, axes, front, back, stream);
    bounds = trimBounds(filt.shape, axes, front, back, found, first, fromBack);
  }
  const specs: SliceSpec[] = filt.shape.map((_, d) => {
    const j = axes.indexOf(d);
    return j < 0 ? null : bounds[j]!;
  });
  return filt.slice(...specs);
}

/** Runs the reductions `trimZeros` needs and reads their results back in one synchronised read. */
function readEdges(filt: DeviceArray, axes: readonly number[], front: boolean, back: boolean, stream: Stream): { found: boolean; first: number[]; fromBack: number[] } {
  return withTemporaries(stream, (keep) => {
    // Each 0-d result, in order: any non-zero, then per axis the first true from the front and from the back.
    const parts: DeviceArray[] = [keep(any(filt, { stream }))];
    for (const d of axes) {
      const others = filt.shape.map((_, e) => e).filter((e) => e !== d);
      let mask: DeviceArray;
      if (others.length > 0) mask = keep(any(filt, { stream, axis: others }));
      else if (filt.dtype === dtypes.bool) mask = filt;
      else {
        mask = keep(DeviceArray.empty(filt.shape, dtypes.bool, { stream }));
        castInto(stream, filt, mask);
      }
      if (front) parts.push(keep(argmax(mask, { stream })));
      if (back) parts.push(keep(argmax(flip(mask), { stream })));
    }
    const summary = keep(DeviceArray.empty([parts.length], dtypes.int64, { stream }));
    parts.forEach((p, j) => castInto(stream, viewWith(p, [1], [1]), viewWith(summary, [1], [1], summary.byteOffset + j * 8)));
    const host = Array.from(summary.toTypedArraySync({ stream }) as BigInt64Array, Number);
    let j = 1;
    const first: number[] = [];
    const fromBack: number[] = [];
    for (let k = 0; k < axes.length; k++) {
      if (front) first.push(host[j++]!);
      if (back) fromBack.push(host[j++]!);
    }
    return { found: host[0] !== 0, first, fromBack };
  });
}
