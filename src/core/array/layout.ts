/**
 * The arithmetic of array layouts, on plain numbers: shapes, strides (in elements), the element offset of a view,
 * slicing with steps, reshapes the strides allow (NumPy's no-copy reshape), transposes, and the byte extent a layout
 * reaches (to keep every view inside its buffer). No GPU: every function here is tested on the CPU.
 *
 * @module
 */
import { ArrayLayoutError, ShapeMismatchError } from "./errors.ts";
import { describeValue } from "../../errors/describe.ts";
import { coalesceAxes } from "./broadcast.ts";

/** A layout: extents, strides in elements, and the offset of element [0, 0, ...] in elements from the data start. */
export interface Layout {
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  /** In elements (may be anything a view's first element is at). */
  readonly offset: number;
}

/** One axis of a slice: an index (drops the axis), a range `[start, stop, step]` (any may be null), or null (all). */
export type SliceSpec = number | null | readonly [start?: number | null, stop?: number | null, step?: number | null] | { readonly start?: number | null; readonly stop?: number | null; readonly step?: number | null };

/** Checks a shape: a number or a list of non-negative safe integers. */
export function checkShape(shape: unknown, what = "shape"): number[] {
  const list = typeof shape === "number" ? [shape] : Array.isArray(shape) ? [...(shape as unknown[])] : undefined;
  if (list === undefined) throw new ShapeMismatchError(`${what}: expected a number or an array of numbers, got ${describeValue(shape)}`);
  for (const n of list) {
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
      throw new ShapeMismatchError(`${what}: every extent is a non-negative integer, got ${JSON.stringify(shape)}`);
    }
  }
  return list as number[];
}

/** The number of elements of a shape. */
export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

/** Row-major (C-order) strides in elements. */
export function contiguousStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= Math.max(shape[i]!, 1);
  }
  return strides;
}

/** Whether a layout is row-major contiguous (axes of extent 1 may have any stride; an empty array is contiguous). */
export function isContiguous(shape: readonly number[], strides: readonly number[]): boolean {
  if (shape.includes(0)) return true;
  let expected = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    const n = shape[i]!;
    if (n !== 1 && strides[i] !== expected) return false;
    expected *= n;
  }
  return true;
}

/** The lowest and highest element offsets (relative to `offset`) a layout reaches; [0, -1] when it is empty. */
export function elementExtent(shape: readonly number[], strides: readonly number[]): [low: number, high: number] {
  let low = 0;
  let high = 0;
  for (let i = 0; i < shape.length; i++) {
    const n = shape[i]!;
    if (n === 0) return [0, -1];
    const span = (n - 1) * strides[i]!;
    if (span < 0) low += span;
    else high += span;
  }
  return [low, high];
}

/**
 * The bytes [first, end) a layout of `itemsize`-byte elements reaches, its element [0, ...] at byte address `start`:
 * from its lowest element to the end of its highest. An empty layout gives first = end = start.
 */
export function byteRange(start: number, shape: readonly number[], strides: readonly number[], itemsize: number): [first: number, end: number] {
  const [low, high] = elementExtent(shape, strides);
  if (high < low) return [start, start];
  return [start + low * itemsize, start + (high + 1) * itemsize];
}

/**
 * Checks that every element of a layout of `itemsize`-byte elements lies within `[0, bufferBytes)`, starting
 * `byteOffset` bytes into the buffer; ArrayLayoutError naming the reach otherwise.
 */
export function checkInside(shape: readonly number[], strides: readonly number[], byteOffset: number, itemsize: number, bufferBytes: number, what: string): void {
  if (!Number.isSafeInteger(byteOffset)) throw new ArrayLayoutError(`${what}: the byte offset must be an integer, got ${byteOffset}`);
  const [low, high] = elementExtent(shape, strides);
  if (high < low) {
    if (byteOffset < 0 || byteOffset > bufferBytes) throw new ArrayLayoutError(`${what}: byte offset ${byteOffset} is outside the ${bufferBytes}-byte buffer`);
    return;
  }
  const first = byteOffset + low * itemsize;
  const end = byteOffset + high * itemsize + itemsize;
  if (first < 0 || end > bufferBytes) {
    throw new ArrayLayoutError(
      `${what}: the view reaches bytes ${first} to ${end} (shape [${shape.join(", ")}], strides [${strides.join(", ")}] elements of ${itemsize} bytes, from byte ${byteOffset}) but the buffer holds ${bufferBytes} bytes`,
    );
  }
}

function sliceBounds(spec: SliceSpec, n: number, axis: number): { start: number; count: number; step: number } | number {
  if (typeof spec === "number") {
    if (!Number.isInteger(spec)) throw new ArrayLayoutError(`slice: the index on axis ${axis} must be an integer, got ${spec}`);
    const i = spec < 0 ? spec + n : spec;
    if (i < 0 || i >= n) throw new ArrayLayoutError(`slice: index ${spec} is out of range for axis ${axis} of extent ${n}`);
    return i;
  }
  let start: number | null | undefined;
  let stop: number | null | undefined;
  let step: number | null | undefined;
  if (spec === null || spec === undefined) {
    /* everything */
  } else if (Array.isArray(spec)) {
    [start, stop, step] = spec as [number?, number?, number?];
  } else if (typeof spec === "object") {
    ({ start, stop, step } = spec as { start?: number | null; stop?: number | null; step?: number | null });
  } else {
    throw new ArrayLayoutError(`slice: axis ${axis} takes an index, [start, stop, step] or null, got ${describeValue(spec)}`);
  }
  const st = step ?? 1;
  if (!Number.isInteger(st) || st === 0) throw new ArrayLayoutError(`slice: the step on axis ${axis} must be a non-zero integer, got ${st}`);
  for (const [name, v] of [["start", start], ["stop", stop]] as const) {
    if (v !== null && v !== undefined && !Number.isInteger(v)) throw new ArrayLayoutError(`slice: the ${name} on axis ${axis} must be an integer, got ${v}`);
  }
  // Python's slice.indices.
  const clamp = (v: number | null | undefined, dflt: number, lo: number, hi: number): number => {
    if (v === null || v === undefined) return dflt;
    const x = v < 0 ? v + n : v;
    return Math.min(Math.max(x, lo), hi);
  };
  let b: number;
  let e: number;
  if (st > 0) {
    b = clamp(start, 0, 0, n);
    e = clamp(stop, n, 0, n);
  } else {
    b = clamp(start, n - 1, -1, n - 1);
    e = clamp(stop, -1, -1, n - 1);
    if (stop !== null && stop !== undefined && stop < 0 && stop + n < 0) e = -1;
  }
  const count = st > 0 ? Math.max(0, Math.ceil((e - b) / st)) : Math.max(0, Math.ceil((b - e) / -st));
  return { start: count === 0 ? 0 : b, count, step: st };
}

/** The layout of a slice (`specs` per leading axis; the rest kept whole). */
export function sliceLayout(layout: Layout, specs: readonly SliceSpec[]): Layout {
  if (specs.length > layout.shape.length) {
    throw new ArrayLayoutError(`slice: ${specs.length} axes given but the array has ${layout.shape.length}`);
  }
  const shape: number[] = [];
  const strides: number[] = [];
  let offset = layout.offset;
  for (let axis = 0; axis < layout.shape.length; axis++) {
    const n = layout.shape[axis]!;
    const stride = layout.strides[axis]!;
    const b = axis < specs.length ? sliceBounds(specs[axis]!, n, axis) : { start: 0, count: n, step: 1 };
    if (typeof b === "number") {
      offset += b * stride;
      continue;
    }
    offset += b.start * stride;
    shape.push(b.count);
    // As NumPy: an empty slice keeps the stride (its step counts as 1), any other is stepped (extent 1 included).
    strides.push(b.count === 0 ? stride : stride * b.step);
  }
  // An empty slice holds no element: it stays where the array starts (its offset could point past an empty buffer).
  if (shape.includes(0)) return { shape, strides, offset: layout.offset };
  return { shape, strides, offset };
}

/**
 * The layout of a reshape without copying (NumPy's `_attempt_nocopy_reshape`), or undefined when the strides do not
 * allow it. One extent may be -1 (inferred).
 */
export function reshapeLayout(layout: Layout, requested: readonly number[]): Layout | undefined {
  const total = elementCount(layout.shape);
  const shape = inferShape(requested, total, layout.shape);
  // The same shape asked for (as written: no -1): the same view, strides and all (as NumPy).
  if (sameShape(requested, layout.shape)) return { shape, strides: [...layout.strides], offset: layout.offset };
  if (total === 0 || isContiguous(layout.shape, layout.strides)) return { shape, strides: contiguousStrides(shape), offset: layout.offset };
  // Drop axes of extent 1, then match groups of old axes to groups of new axes with equal products.
  const oldShape: number[] = [];
  const oldStrides: number[] = [];
  layout.shape.forEach((n, i) => {
    if (n !== 1) {
      oldShape.push(n);
      oldStrides.push(layout.strides[i]!);
    }
  });
  const newStrides = new Array<number>(shape.length).fill(0);
  let oi = 0;
  let oj = 1;
  let ni = 0;
  let nj = 1;
  while (ni < shape.length && oi < oldShape.length) {
    let np = shape[ni]!;
    let op = oldShape[oi]!;
    while (np !== op) {
      if (np < op) np *= shape[nj++]!;
      else op *= oldShape[oj++]!;
    }
    // The old axes oi..oj-1 must be contiguous among themselves.
    for (let k = oi; k < oj - 1; k++) if (oldStrides[k] !== oldShape[k + 1]! * oldStrides[k + 1]!) return undefined;
    newStrides[nj - 1] = oldStrides[oj - 1]!;
    for (let k = nj - 1; k > ni; k--) newStrides[k - 1] = newStrides[k]! * shape[k]!;
    ni = nj++;
    oi = oj++;
  }
  // Trailing extents of 1 (in the new shape): any stride would do; NumPy's is the last old axis's (or one element).
  const last = oldStrides.length > 0 ? oldStrides[oldStrides.length - 1]! : 1;
  for (let k = ni; k < shape.length; k++) newStrides[k] = last;
  return { shape, strides: newStrides, offset: layout.offset };
}

function inferShape(requested: readonly number[], total: number, from: readonly number[]): number[] {
  const list = [...requested];
  const unknown = list.filter((n) => n === -1).length;
  if (unknown > 1) throw new ShapeMismatchError(`reshape: at most one extent may be -1, got [${list.join(", ")}]`);
  for (const n of list) {
    if (n !== -1 && (!Number.isSafeInteger(n) || n < 0)) throw new ShapeMismatchError(`reshape: extents are non-negative integers (or one -1), got [${list.join(", ")}]`);
  }
  if (unknown === 1) {
    const known = list.filter((n) => n !== -1).reduce((a, b) => a * b, 1);
    if (known === 0 || total % known !== 0) throw new ShapeMismatchError(`reshape: cannot infer -1 in [${list.join(", ")}] for ${total} elements`);
    list[list.indexOf(-1)] = total / known;
  }
  if (elementCount(list) !== total) {
    throw new ShapeMismatchError(`reshape: [${from.join(", ")}] has ${total} elements; [${list.join(", ")}] has ${elementCount(list)}`);
  }
  return list;
}

/**
 * The layout of the `offset`-th diagonals over axes `axis1` and `axis2` (both already normalised, different): the
 * other axes in order, then the diagonal's (extent 0 when the offset passes the matrix's edge), stepping along both
 * axes at once. `offset` > 0 above the main diagonal, < 0 below it.
 */
export function diagonalLayout(layout: Layout, offset: number, axis1: number, axis2: number): Layout {
  const rows = layout.shape[axis1]!;
  const cols = layout.shape[axis2]!;
  const r0 = offset >= 0 ? 0 : -offset;
  const c0 = offset >= 0 ? offset : 0;
  const len = Math.max(0, Math.min(rows - r0, cols - c0));
  const keep = layout.shape.map((_, d) => d).filter((d) => d !== axis1 && d !== axis2);
  return {
    shape: [...keep.map((d) => layout.shape[d]!), len],
    strides: [...keep.map((d) => layout.strides[d]!), layout.strides[axis1]! + layout.strides[axis2]!],
    // An empty result stays where the array starts (its offset could point past an empty buffer).
    offset: layout.offset + (len === 0 || keep.some((d) => layout.shape[d] === 0) ? 0 : r0 * layout.strides[axis1]! + c0 * layout.strides[axis2]!),
  };
}

/** The layout with its axes permuted (`axes` default: reversed; negative axes count from the end). */
export function transposeLayout(layout: Layout, axes?: readonly number[]): Layout {
  const nd = layout.shape.length;
  const perm = axes === undefined ? [...Array(nd).keys()].reverse() : axes.map((a) => (Number.isInteger(a) && a < 0 && a >= -nd ? a + nd : a));
  const seen = new Set<number>();
  if (perm.length !== nd || perm.some((a) => !Number.isInteger(a) || a < 0 || a >= nd || seen.size === seen.add(a).size)) {
    throw new ArrayLayoutError(`transpose: axes must be a permutation of 0..${nd - 1}, got [${perm.join(", ")}]`);
  }
  return { shape: perm.map((a) => layout.shape[a]!), strides: perm.map((a) => layout.strides[a]!), offset: layout.offset };
}

/**
 * The layout of the same bytes seen as elements of another size: the last axis must be contiguous when the sizes
 * differ, and every other axis's byte stride a multiple of the new size. Offsets and strides in the new elements.
 */
export function viewLayout(layout: Layout, byteOffset: number, from: number, to: number): { shape: number[]; strides: number[]; byteOffset: number } {
  if (from === to) return { shape: [...layout.shape], strides: [...layout.strides], byteOffset };
  const nd = layout.shape.length;
  if (nd === 0) throw new ArrayLayoutError(`view: a 0-d array of ${from}-byte elements cannot be seen as ${to}-byte elements`);
  const last = layout.shape[nd - 1]!;
  if (layout.shape.includes(0)) {
    // No element: only the last axis's bytes must come out whole (as NumPy checks an empty array).
    if ((last * from) % to !== 0) throw new ArrayLayoutError(`view: the last axis holds ${last * from} bytes, not a whole number of ${to}-byte elements`);
    const shape = [...layout.shape.slice(0, nd - 1), (last * from) / to];
    return { shape, strides: contiguousStrides(shape), byteOffset: byteOffset - (byteOffset % to) };
  }
  if (last !== 1 && layout.strides[nd - 1] !== 1) {
    throw new ArrayLayoutError(`view: the last axis must be contiguous to change the element size from ${from} to ${to} bytes (its stride is ${layout.strides[nd - 1]})`);
  }
  const bytes = last * from;
  if (bytes % to !== 0) throw new ArrayLayoutError(`view: the last axis holds ${bytes} bytes, not a whole number of ${to}-byte elements`);
  if (byteOffset % to !== 0) throw new ArrayLayoutError(`view: the byte offset ${byteOffset} is not a multiple of the new element size ${to}`);
  const strides = layout.strides.slice(0, nd - 1).map((s, i) => {
    if ((s * from) % to === 0) return (s * from) / to;
    // An axis of extent 1 is never stepped along: any stride will do.
    if (layout.shape[i] === 1) return 0;
    throw new ArrayLayoutError(`view: axis ${i}'s stride of ${s * from} bytes is not a multiple of ${to}; copy the array first (copy())`);
  });
  return { shape: [...layout.shape.slice(0, nd - 1), bytes / to], strides: [...strides, 1], byteOffset };
}

/** Whether two shapes are equal. */
export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Merges adjacent axes that are contiguous with each other in both layouts (and drops extent-1 axes): the fewest axes
 * a strided copy between them needs. Returns shape and both stride lists.
 */
export function coalesce(shape: readonly number[], a: readonly number[], b: readonly number[]): { shape: number[]; a: number[]; b: number[] } {
  const c = coalesceAxes(shape, [a, b]);
  return { shape: c.shape, a: c.strides[0]!, b: c.strides[1]! };
}
