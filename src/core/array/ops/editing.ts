/**
 * Splitting and editing arrays along an axis, as NumPy's functions of the same names: `hsplit`, `vsplit` and `dsplit`
 * (views, through `split`), and `append`, `insert` and `delete` (new arrays; without `axis` over the flattened array).
 *
 * ```ts
 * const [left, right] = hsplit(m, 2);                     // views of the two halves of m's columns
 * const longer = append(x, y);                            // x and y flattened, joined
 * const withRow = insert(m, 1, row, { axis: 0 });         // row before m's row 1
 * const fewer = deleteItems(x, [0, 2]);                   // x flattened without elements 0 and 2
 * ```
 *
 * `delete` is a reserved word of JavaScript: the function is `deleteItems`, also exported as `delete` for
 * `ca.delete(x, 1)` through a namespace import (a named import renames it: `import { delete as del }`).
 *
 * The positions `insert` and `delete` take are JavaScript numbers, checked on the host (IndexError naming the index
 * and the extent) before anything is queued; the result is made by `concatenate` of views (one copy per part) or one
 * `take` along the axis with positions computed on the host.
 *
 * @module
 */
import { DeviceArray, encodeElement, operationStream, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import { BroadcastError, IndexError, ShapeMismatchError } from "../errors.ts";
import { broadcastStrides, normalizeAxis, showShape } from "../broadcast.ts";
import { type SliceSpec } from "../layout.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { castScalar, scalarDType } from "./creation.ts";
import { take } from "./indexing.ts";
import { checkArray, concatenate, moveaxis, split, viewWith } from "./shape.ts";

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

/** `a` flattened as a view where it is contiguous (else null: `take` without an axis flattens it). */
function flatView(a: DeviceArray): DeviceArray | null {
  return a.isContiguous ? viewWith(a, [a.size], [1]) : null;
}

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

/** What an insertion makes (exported for tests): the axis, where each part of the result comes from. */
export interface InsertPlan {
  /** The axis inserted along, in the (flattened, without an axis) array. */
  readonly axis: number;
  /** The shape `values` is broadcast to: the array's, with the number of new entries along `axis`. */
  readonly valuesShape: number[];
  /** Whether `values` gets its leading axis moved to `axis` first (a single position given as a number, as NumPy's). */
  readonly moveValues: boolean;
  /**
   * One position (a number or a list of one): the new entries go in before it, as one block. Else undefined, and
   * `source` says for each entry of the result along the axis where it comes from: `k < extent` the array's entry
   * `k`, `extent + j` the value of position `j`.
   */
  readonly at?: number;
  readonly source?: number[];
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
 * The plan of `insert` (exported for tests) for an array of `shape` (already flattened without an axis) along
 * `axis`, positions `index`, and values of shape `valuesOwnShape` (before leading axes of 1 are added).
 */
export function insertPlan(shape: readonly number[], axis: number, index: number | readonly number[], valuesOwnShape: readonly number[]): InsertPlan {
  const what = "insert";
  const n = shape[axis]!;
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
  if (positions.length === 1) {
    const moveValues = typeof index === "number";
    const v = moveValues ? [...padded.slice(1, axis + 1), padded[0]!, ...padded.slice(axis + 1)] : padded;
    const valuesShape = shape.map((s, d) => (d === axis ? v[axis]! : s));
    checkBlock(v, valuesShape);
    return { axis, valuesShape, moveValues, at: positions[0]! };
  }
  // Several positions: the new entries go in (stably) before their positions, in the order of the sorted positions.
  const count = positions.length;
  const order = [...positions.keys()].sort((p, q) => positions[p]! - positions[q]! || p - q);
  const source = new Array<number>(n + count);
  const taken = new Array<boolean>(n + count).fill(false);
  order.forEach((j, rank) => {
    source[positions[j]! + rank] = n + j;
    taken[positions[j]! + rank] = true;
  });
  let k = 0;
  for (let p = 0; p < n + count; p++) if (!taken[p]) source[p] = k++;
  const valuesShape = shape.map((s, d) => (d === axis ? count : s));
  checkBlock(padded, valuesShape);
  return { axis, valuesShape, moveValues: false, source };
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
  const flatA = flat ? flatView(a) : a;
  const ownFlat = flatA === null ? a.copy({ stream }) : undefined;
  try {
    const src = flatA ?? viewWith(ownFlat!, [a.size], [1]);
    let v = ownValues ?? (values as DeviceArray);
    const padded = [...new Array<number>(shape.length - v.ndim).fill(1), ...v.shape];
    v = viewWith(v, padded, [...new Array<number>(shape.length - v.ndim).fill(0), ...v.strides]);
    if (plan.moveValues) v = moveaxis(v, 0, axis);
    const block = viewWith(v, plan.valuesShape, broadcastStrides(v.shape, v.strides, plan.valuesShape));
    const opts = { axis, dtype: a.dtype, stream };
    if (plan.at !== undefined) {
      const before: SliceSpec[] = shape.map((_, d) => (d === axis ? [0, plan.at!] : null));
      const after: SliceSpec[] = shape.map((_, d) => (d === axis ? [plan.at!, null] : null));
      return concatenate([src.slice(...before), block, src.slice(...after)], opts);
    }
    const joined = concatenate([src, block], opts);
    try {
      return take(joined, plan.source!, { axis, stream });
    } finally {
      joined.close(stream);
    }
  } finally {
    ownValues?.close(stream);
    ownFlat?.close(stream);
  }
}

// ---- delete ----

/** The positions `slice(start, stop, step)` names along an axis of extent `n`, as Python's `range(*s.indices(n))`. */
export function slicePositions(s: IndexSlice, n: number, what = "delete"): number[] {
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
  const out: number[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(i);
  return out;
}

/**
 * The positions kept along an axis of extent `n` when `index` is deleted (exported for tests): a number (from `-n` to
 * `n - 1`), a list of numbers (negative count from the end; repeats allowed) or a slice `{ start, stop, step }`.
 * IndexError for a position out of range.
 */
export function keptPositions(index: number | readonly number[] | IndexSlice, n: number, axis: number): number[] {
  const what = "delete";
  let gone: number[];
  if (typeof index === "number" || Array.isArray(index)) {
    const list = typeof index === "number" ? [index] : [...(index as readonly unknown[])];
    gone = list.map((v, j) => {
      if (typeof v !== "number" || !Number.isSafeInteger(v)) throw new TypeError(`${what}: index is an integer, a list of integers or a slice { start, stop, step }, got ${describeValue(v)}${Array.isArray(index) ? ` at position ${j}` : ""}`);
      if (v < -n || v >= n) throw new IndexError(`${what}: index ${v} is out of bounds for axis ${axis} with size ${n} (from ${-n} to ${n - 1})`);
      return v < 0 ? v + n : v;
    });
  } else if (index instanceof DeviceArray) {
    throw new TypeError(`${what}: positions are JavaScript numbers (checked on the host), not a DeviceArray; read them back first (toList), or keep a mask's elements with extract or compress`);
  } else if (typeof index === "object" && index !== null) {
    const other = Object.keys(index).filter((key) => key !== "start" && key !== "stop" && key !== "step");
    if (other.length > 0) throw new TypeError(`${what}: a slice is { start?, stop?, step? }, got the key${other.length > 1 ? "s" : ""} ${other.join(", ")}`);
    gone = slicePositions(index as IndexSlice, n, what);
  } else {
    throw new TypeError(`${what}: index is an integer, a list of integers or a slice { start, stop, step }, got ${describeValue(index)}`);
  }
  const drop = new Set(gone);
  return [...Array(n).keys()].filter((k) => !drop.has(k));
}

/**
 * `a` without the entries at `index` along `axis` (default: the flattened array), a new array of `a`'s dtype, as
 * NumPy's `delete`: `index` is a number, a list of numbers (repeats allowed) or a slice `{ start, stop, step }`
 * (Python's `slice`; negative parts count from the end). Positions out of range are IndexErrors. One `take` along
 * the axis of the positions kept. Exported as `deleteItems` and as `delete` (a reserved word: `ca.delete(...)`).
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
  const n = given === undefined ? a.size : a.shape[given]!;
  const kept = keptPositions(index, n, given ?? 0);
  if (given === undefined) return take(a, kept, streamOf(options));
  if (kept.length === n) return a.copy(streamOf(options));
  return take(a, kept, { axis: given, ...streamOf(options) });
}

export { deleteItems as delete };
