/**
 * Index helpers, as NumPy's functions of the same names: `indices` (the coordinates of a grid) and `ix` (NumPy's
 * `ix_`: an open mesh of index arrays), `triuIndices` and `trilIndices` (the positions of a triangle), `unravelIndex`
 * and `ravelMultiIndex` (flat positions to coordinates and back, row-major), `flatnonzero`, `diagflat` (a matrix with
 * an array on a diagonal), `fillDiagonal` (in place) and `select` (the first choice whose condition holds). Each is
 * made of existing operations: `arange`, views, `tri`, `nonzero`, `ravel`, `diag`, the diagonal view and `fill`,
 * `put`, `floorDiv`, `mod`, `mul`, `add`, `clip` and `where`.
 *
 * ```ts
 * const grid = indices([2, 3], { stream });               // int64 [2, 2, 3]: grid[0] the rows, grid[1] the columns
 * const [r, c] = ix(rows, cols);                          // views [n, 1] and [1, m]: they broadcast to [n, m]
 * const [t, u] = triuIndices(4, { k: 1, stream });        // int64: the positions above the diagonal
 * const [i, j] = unravelIndex(flat, [3, 4]);              // int64 coordinates of flat positions
 * fillDiagonal(m, 0);                                     // m's main diagonal set to 0, in place
 * const y = select([x.lt(0), x.gt(9)], [0, 9], { default: x });
 * ```
 *
 * Index results are int64 (NumPy's intp). Positions given as JavaScript numbers are checked on the host (IndexError);
 * positions in a DeviceArray are checked on the device, as `take`'s are: the first one out of range is recorded and
 * the next synchronised read on the stream (`toTypedArray`, `toTypedArraySync`, `item`) throws the IndexError.
 *
 * @module
 */
import { DeviceArray, checkWritable, encodeElement, operationStream, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import { dtypeOf, dtypes, type DType } from "../dtype.ts";
import { DTypeError, IndexError, ShapeMismatchError } from "../errors.ts";
import { broadcastShapes, showShape } from "../broadcast.ts";
import { checkShape, contiguousStrides, elementCount } from "../layout.ts";
import type { ArrayOperand } from "../methods.ts";
import type { DTypeArgument } from "../options.ts";
import { operationType } from "../promotion.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ArgumentError } from "../../../errors/base.ts";
import type { Stream } from "../../stream.ts";
import { add, floorDiv, mod, mul } from "./arithmetic.ts";
import { castInto } from "./cast.ts";
import { arange, castScalar, diag, scalarDType, tri } from "./creation.ts";
import { checkIndexRange, nonzero, put } from "./indexing.ts";
import { logicalNot } from "./math.ts";
import { clip, where } from "./selection.ts";
import { broadcastTo, checkArray, ownedView, ravel, viewWith } from "./shape.ts";

/** Options of `indices`: the dtype, whether the grid is sparse, and the stream (required). */
export interface IndicesOptions extends ArrayOperationOptions {
  /** The dtype of the coordinates (default int64, NumPy's `int`): any dtype `astype` converts int64 into. */
  readonly dtype?: DTypeArgument;
  /** One array per axis, of extent 1 on every other axis, instead of the stacked dense grid (default false). */
  readonly sparse?: boolean;
}

/** Options of `triuIndices` and `trilIndices`: the diagonal, the number of columns, and the stream (required). */
export interface TriangleIndicesOptions extends ArrayOperationOptions {
  /** The diagonal the triangle starts at (default 0; positive above the main diagonal, negative below). */
  readonly k?: number;
  /** The number of columns (default: `n`). */
  readonly m?: number;
}

/** Options of `diagflat`: the diagonal and the stream. */
export interface DiagflatOptions extends ArrayOperationOptions {
  /** The diagonal the values go on (default 0; positive above the main diagonal, negative below). */
  readonly k?: number;
}

/** Options of `fillDiagonal`: whether a tall matrix's diagonal wraps, and the stream. */
export interface FillDiagonalOptions extends ArrayOperationOptions {
  /** For a 2-d array of more rows than columns: go on after a blank row below the end of the diagonal (default false). */
  readonly wrap?: boolean;
}

/** Options of `ravelMultiIndex`: what an index out of range does, and the stream. */
export interface RavelMultiIndexOptions extends ArrayOperationOptions {
  /**
   * "raise" (default: an IndexError, at once for an index given as a number, at the stream's next synchronised read
   * for one in an array), "wrap" (modulo the extent) or "clip" (clamped).
   */
  readonly mode?: "raise" | "wrap" | "clip";
}

/** Options of `select`: the value where no condition holds, and the stream. */
export interface SelectOptions extends ArrayOperationOptions {
  /** The element where no condition holds (default 0): a scalar or an array that broadcasts. */
  readonly default?: ArrayOperand;
}

function checkOptions(options: unknown, what: string, names: string): void {
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { ${names} }, got ${describeValue(options)}`);
}

function checkInteger(v: unknown, what: string, min = -Infinity): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) throw new ArgumentError(`${what} is ${min === 0 ? "a non-negative integer" : "an integer"}, got ${describeValue(v)}`);
  return v;
}

function checkIntegerArray(a: DeviceArray, what: string): void {
  if (a.dtype.kind !== "i" && a.dtype.kind !== "u") throw new DTypeError(`${what} are an integer array, got ${a.dtype.name}; convert them with astype`);
}

// ---- indices, ix ----

/** The shape of axis `k`'s array in an open mesh of `nd` axes: extent `n` on axis `k`, 1 elsewhere. */
function meshShape(nd: number, k: number, n: number): number[] {
  const shape = new Array<number>(nd).fill(1);
  shape[k] = n;
  return shape;
}

/**
 * The coordinates of a grid of shape `dimensions`, as NumPy's `indices`: one array of shape `[ndim, ...dimensions]`
 * whose slice `k` holds coordinate `k` of each position (`grid[k][i0, i1, ...] = ik`), or with `sparse` one array
 * per axis of shape `[1, ..., dimensions[k], ..., 1]` (they broadcast to the grid). int64 unless `dtype` says
 * otherwise (converted from int64 as `astype` converts: an integer dtype too narrow wraps, as NumPy's). A bool grid
 * of an axis longer than 2 is a DTypeError (NumPy's TypeError: bool counts only to 1). Needs `{ stream }`.
 *
 * ```ts
 * indices([2, 3], { stream });                   // [[[0, 0, 0], [1, 1, 1]], [[0, 1, 2], [0, 1, 2]]]
 * const [i, j] = indices([2, 3], { stream, sparse: true });   // [[0], [1]] and [[0, 1, 2]]
 * ```
 */
export function indices(dimensions: readonly number[], options: IndicesOptions & { readonly sparse: true }): DeviceArray[];
export function indices(dimensions: readonly number[], options: IndicesOptions & { readonly sparse?: false }): DeviceArray;
export function indices(dimensions: readonly number[], options: IndicesOptions): DeviceArray | DeviceArray[];
export function indices(dimensions: readonly number[], options: IndicesOptions): DeviceArray | DeviceArray[] {
  const what = "indices";
  checkOptions(options, what, "stream, dtype?, sparse?");
  if (!Array.isArray(dimensions)) throw new TypeError(`${what}: dimensions is a list of extents (the grid's shape), not ${describeValue(dimensions)}; wrap one extent in a list: [${describeValue(dimensions)}]`);
  const dims = checkShape(dimensions, `${what}: dimensions`);
  const dtype = options?.dtype === undefined ? dtypes.int64 : dtypeOf(options.dtype);
  const sparse = options?.sparse ?? false;
  if (typeof sparse !== "boolean") throw new TypeError(`${what}: sparse is a boolean, got ${describeValue(sparse)}`);
  const long = dims.findIndex((n) => n > 2);
  if (dtype === dtypes.bool && long >= 0) {
    throw new DTypeError(`${what}: a bool grid counts only to 1 (False, True), but axis ${long} has extent ${dims[long]}; use an integer dtype`);
  }
  const stream = operationStream(what, options, []);
  const nd = dims.length;
  // Coordinate k as an int64 range seen along axis k (extent 1 elsewhere); closed by the caller.
  const along = (k: number): DeviceArray => {
    const r = arange(dims[k]!, { stream });
    const shape = meshShape(nd, k, dims[k]!);
    return ownedView(r, viewWith(r, shape, contiguousStrides(shape)));
  };
  if (sparse) {
    const out: DeviceArray[] = [];
    try {
      for (let k = 0; k < nd; k++) {
        const r = along(k);
        if (dtype === dtypes.int64) {
          out.push(r);
          continue;
        }
        try {
          const c = DeviceArray.empty(r.shape, dtype, { stream });
          out.push(c);
          castInto(stream, r, c);
        } finally {
          r.close(stream);
        }
      }
    } catch (e) {
      closeAll(out, stream);
      throw e;
    }
    return out;
  }
  const grid = DeviceArray.empty([nd, ...dims], dtype, { stream });
  const slab = elementCount(dims);
  try {
    for (let k = 0; k < nd && slab > 0; k++) {
      const r = along(k);
      try {
        const part = viewWith(grid, dims, contiguousStrides(dims), grid.byteOffset + k * slab * grid.itemsize);
        castInto(stream, broadcastTo(r, dims), part);
      } finally {
        r.close(stream);
      }
    }
  } catch (e) {
    grid.close(stream);
    throw e;
  }
  return grid;
}

/**
 * An open mesh of 1-d sequences, as NumPy's `ix_` (named `ix`: the trailing underscore, shared with `r_`, `c_` and
 * `s_` of NumPy's index tricks, avoids no name here): for `n` sequences, array `k` has `n` axes, extent 1 on every
 * axis but `k`, and they broadcast together to the cross product, so arithmetic over them covers every pair:
 * `take(a, ravelMultiIndex([rows, cols], a.shape))` is NumPy's `a[np.ix_(rows, cols)]`. An integer (or any other
 * non-bool) sequence gives a view of itself; a bool one is a mask, replaced by the positions of its true elements
 * (`nonzero`: an int64 array, which synchronises with the stream). A trailing `{ stream }` names the stream `nonzero`
 * runs on (default: the mask's). Every input is 1-d: ShapeMismatchError otherwise (NumPy's ValueError). Close the
 * results you no longer need: a view frees nothing, a mask's positions are freed with their view.
 *
 * ```ts
 * const [r, c] = ix(rows, cols);            // rows [2], cols [3] → views [2, 1] and [1, 3]
 * const [i, j] = ix(mask, cols);            // mask [T, F, T] → [[0], [2]] (int64), cols as [1, 3]
 * ```
 */
export function ix(...sequences: DeviceArray[]): DeviceArray[];
export function ix(...args: [...sequences: DeviceArray[], options: ArrayOperationOptions]): DeviceArray[];
export function ix(...args: (DeviceArray | ArrayOperationOptions)[]): DeviceArray[] {
  const what = "ix";
  const last = args[args.length - 1];
  const options = last !== undefined && !(last instanceof DeviceArray) && typeof last === "object" && last !== null && !Array.isArray(last) ? (args.pop() as ArrayOperationOptions) : undefined;
  const sequences = args.map((x, k) => {
    if (!(x instanceof DeviceArray)) throw new TypeError(`${what}: sequence ${k} is a 1-d DeviceArray (an index along axis ${k}), not ${describeValue(x)}`);
    checkArray(x, `${what}: sequence ${k}`);
    if (x.ndim !== 1) throw new ShapeMismatchError(`${what}: sequence ${k} has shape ${showShape(x.shape)}; each sequence is 1-d (the indices along one axis of the mesh): ravel it, or pass its rows one by one`);
    return x;
  });
  const nd = sequences.length;
  const masks = sequences.filter((x) => x.dtype === dtypes.bool);
  const stream = masks.length > 0 ? operationStream(what, options, masks) : undefined;
  const out: DeviceArray[] = [];
  try {
    sequences.forEach((x, k) => {
      if (x.dtype !== dtypes.bool) {
        const strides = new Array<number>(nd).fill(0);
        strides[k] = x.strides[0]!;
        out.push(viewWith(x, meshShape(nd, k, x.size), strides));
        return;
      }
      const [positions] = nonzero(x, { stream: stream! });
      const shape = meshShape(nd, k, positions!.size);
      out.push(ownedView(positions!, viewWith(positions!, shape, contiguousStrides(shape))));
    });
  } catch (e) {
    // Views of the inputs free nothing; the positions of a mask are freed with their view.
    if (stream !== undefined) closeAll(out, stream);
    throw e;
  }
  return out;
}

// ---- triuIndices, trilIndices ----

function triangleIndices(what: string, lower: boolean, n: number, options: TriangleIndicesOptions): [DeviceArray, DeviceArray] {
  checkOptions(options, what, "k?, m?, stream");
  checkInteger(n, `${what}: n`, 0);
  const m = options?.m === undefined ? n : checkInteger(options.m, `${what}: m`, 0);
  const k = options?.k === undefined ? 0 : checkInteger(options.k, `${what}: k`);
  const stream = operationStream(what, options, []);
  // The lower triangle from diagonal k is tri(k); the upper one is the complement of tri(k - 1).
  const mask = tri(n, { m, k: lower ? k : k - 1, dtype: "bool", stream });
  try {
    if (lower) return nonzero(mask, { stream }) as [DeviceArray, DeviceArray];
    const upper = logicalNot(mask, { stream });
    try {
      return nonzero(upper, { stream }) as [DeviceArray, DeviceArray];
    } finally {
      upper.close(stream);
    }
  } finally {
    mask.close(stream);
  }
}

/**
 * The row and column indices of the upper triangle of an `[n, m]` matrix (`m` default `n`), from diagonal `k` up, as
 * NumPy's `triu_indices`: two int64 arrays, row-major order. Needs `{ stream }`; synchronises with it (`nonzero`
 * sizes the result).
 *
 * ```ts
 * const [r, c] = triuIndices(3, { k: 1, stream });   // r [0, 0, 1], c [1, 2, 2]
 * ```
 */
export function triuIndices(n: number, options: TriangleIndicesOptions): [DeviceArray, DeviceArray] {
  return triangleIndices("triuIndices", false, n, options);
}

/**
 * The row and column indices of the lower triangle of an `[n, m]` matrix (`m` default `n`), from diagonal `k` down,
 * as NumPy's `tril_indices`: two int64 arrays, row-major order. Needs `{ stream }`; synchronises with it.
 *
 * ```ts
 * const [r, c] = trilIndices(3, { k: -1, stream });  // r [1, 2, 2], c [0, 0, 1]
 * ```
 */
export function trilIndices(n: number, options: TriangleIndicesOptions): [DeviceArray, DeviceArray] {
  return triangleIndices("trilIndices", true, n, options);
}

/** Options of `diagIndices`: the number of axes (default 2) and the stream (required). */
export interface DiagIndicesOptions extends ArrayOperationOptions {
  /** The number of axes of the array the indices are for (default 2). */
  readonly ndim?: number;
}

/**
 * The indices of the main diagonal of an array of `ndim` axes (default 2) each of extent `n`, as NumPy's
 * `diag_indices`: `ndim` int64 arrays `[0, 1, ..., n-1]` (NumPy repeats one array; these are separate arrays, each
 * to be closed). Needs `{ stream }`.
 *
 * ```ts
 * const [r, c] = diagIndices(3, { stream });       // r [0, 1, 2], c [0, 1, 2]
 * ```
 */
export function diagIndices(n: number, options: DiagIndicesOptions): DeviceArray[] {
  const what = "diagIndices";
  checkOptions(options, what, "ndim?, stream");
  checkInteger(n, `${what}: n`, 0);
  const ndim = options?.ndim === undefined ? 2 : checkInteger(options.ndim, `${what}: ndim`, 0);
  const stream = operationStream(what, options, []);
  const list: DeviceArray[] = [];
  try {
    for (let d = 0; d < ndim; d++) list.push(arange(n, { stream }));
  } catch (e) {
    for (const x of list) x.close(stream);
    throw e;
  }
  return list;
}

/**
 * The indices of `a`'s main diagonal, as NumPy's `diag_indices_from`: `a` has at least 2 axes, all of one extent;
 * `diagIndices(a.shape[0], { ndim: a.ndim })` on `a`'s stream (or the options').
 */
export function diagIndicesFrom(a: DeviceArray, options?: ArrayOperationOptions): DeviceArray[] {
  const what = "diagIndicesFrom";
  checkArray(a, what);
  if (a.ndim < 2) throw new ShapeMismatchError(`${what}: the array has ${a.ndim} axis${a.ndim === 1 ? "" : "es"} (shape ${showShape(a.shape)}); it needs at least 2`);
  if (a.shape.some((e) => e !== a.shape[0])) throw new ShapeMismatchError(`${what}: every axis must have one extent, but the shape is ${showShape(a.shape)}`);
  const stream = operationStream(what, options, [a]);
  return diagIndices(a.shape[0]!, { ndim: a.ndim, stream });
}

/** Options of `triuIndicesFrom` and `trilIndicesFrom`: the diagonal and the stream (default the array's). */
export interface TriangleIndicesFromOptions extends ArrayOperationOptions {
  /** The diagonal the triangle starts at (default 0; positive above the main diagonal, negative below). */
  readonly k?: number;
}

/** The indices of the upper triangle of the 2-d `a`, as NumPy's `triu_indices_from`: {@link triuIndices} of `a`'s shape. */
export function triuIndicesFrom(a: DeviceArray, options?: TriangleIndicesFromOptions): [DeviceArray, DeviceArray] {
  return triangleIndicesFrom("triuIndicesFrom", false, a, options);
}

/** The indices of the lower triangle of the 2-d `a`, as NumPy's `tril_indices_from`: {@link trilIndices} of `a`'s shape. */
export function trilIndicesFrom(a: DeviceArray, options?: TriangleIndicesFromOptions): [DeviceArray, DeviceArray] {
  return triangleIndicesFrom("trilIndicesFrom", true, a, options);
}

/** The triangle indices of a matrix `a` (2 axes, as NumPy requires), on its stream. */
function triangleIndicesFrom(what: string, lower: boolean, a: DeviceArray, options: TriangleIndicesFromOptions | undefined): [DeviceArray, DeviceArray] {
  checkArray(a, what);
  if (a.ndim !== 2) throw new ShapeMismatchError(`${what}: the array must have 2 axes, got shape ${showShape(a.shape)}`);
  checkOptions(options, what, "k?, stream?");
  const k = options?.k === undefined ? 0 : checkInteger(options.k, `${what}: k`);
  const stream = operationStream(what, options, [a]);
  return triangleIndices(what, lower, a.shape[0]!, { m: a.shape[1]!, k, stream });
}

// ---- unravelIndex, ravelMultiIndex ----

/** The row-major coordinates of flat positions in an array of `shape` (exported for tests), checked: IndexError. */
export function unravelHost(indices: readonly number[], shape: readonly number[], what = "unravelIndex"): number[][] {
  const size = elementCount(shape);
  const out = shape.map(() => new Array<number>(indices.length));
  indices.forEach((v, j) => {
    if (typeof v !== "number" || !Number.isSafeInteger(v)) throw new TypeError(`${what}: indices are integers, got ${describeValue(v)}`);
    if (v < 0 || v >= size) throw new IndexError(`${what}: index ${v} is out of bounds for array with size ${size} (shape ${showShape(shape)}); give positions from 0 to ${size - 1}`);
    let r = v;
    for (let d = shape.length - 1; d >= 0; d--) {
      out[d]![j] = r % shape[d]!;
      r = Math.floor(r / shape[d]!);
    }
  });
  return out;
}

/** The row-major flat positions of coordinates (one list per axis, of one length) in an array of `shape` (exported for tests). */
export function ravelHost(coords: readonly (readonly number[])[], shape: readonly number[], mode: "raise" | "wrap" | "clip", what = "ravelMultiIndex"): number[] {
  const count = coords[0]?.length ?? 1;
  const out = new Array<number>(count).fill(0);
  shape.forEach((n, d) => {
    coords[d]!.forEach((v, j) => {
      if (typeof v !== "number" || !Number.isSafeInteger(v)) throw new TypeError(`${what}: indices are integers, got ${describeValue(v)}`);
      let c = v;
      if (mode === "wrap") c = n === 0 ? c : ((c % n) + n) % n;
      else if (mode === "clip") c = Math.min(Math.max(c, 0), n - 1);
      if (c < 0 || c >= n) throw new IndexError(`${what}: index ${v} on axis ${d} is out of range for extent ${n} (shape ${showShape(shape)}); give indices from 0 to ${n - 1}, or { mode: "wrap" } / { mode: "clip" }`);
      out[j] = out[j]! * n + c;
    });
  });
  return out;
}

/** `x` as an int64 array (itself when it is one; else a converted copy, `owned`). */
function asInt64(x: DeviceArray, stream: Stream): { array: DeviceArray; owned: boolean } {
  if (x.dtype === dtypes.int64) return { array: x, owned: false };
  const c = DeviceArray.empty(x.shape, dtypes.int64, { stream });
  castInto(stream, x, c);
  return { array: c, owned: true };
}

function closeAll(arrays: readonly DeviceArray[], stream: Stream): void {
  for (const x of arrays) x.close(stream);
}

/**
 * The coordinates of flat positions `indices` in an array of `shape` (row-major), as NumPy's `unravel_index`: one
 * int64 array of `indices`' shape per axis. `indices` is an integer DeviceArray (converted with `floorDiv` and `mod`,
 * two kernels per axis; positions are checked on the device: a negative one or one past the size is an IndexError
 * at the stream's next synchronised read, where NumPy raises a ValueError at once), a number (0-d results) or a list
 * of numbers (1-d results; numbers are checked on the host: an IndexError). Numbers need `{ stream }`.
 *
 * ```ts
 * unravelIndex(asarray([22, 41, 37], { stream }), [7, 6]);  // [[3, 6, 6], [4, 5, 1]]
 * unravelIndex(5, [2, 3], { stream });                       // [1, 2] as 0-d arrays
 * ```
 */
export function unravelIndex(indices: DeviceArray | number | readonly number[], shape: number | readonly number[], options?: ArrayOperationOptions): DeviceArray[] {
  const what = "unravelIndex";
  checkOptions(options, what, "stream?");
  const dims = checkShape(shape, `${what}: shape`);
  if (!(indices instanceof DeviceArray)) {
    const list = typeof indices === "number" ? [indices] : Array.isArray(indices) ? (indices as readonly number[]) : undefined;
    if (list === undefined) throw new TypeError(`${what}: indices are an integer DeviceArray, a number or a list of numbers, not ${describeValue(indices)}`);
    const coords = unravelHost(list, dims, what);
    const stream = operationStream(what, options, []);
    const out: DeviceArray[] = [];
    try {
      for (const c of coords) out.push(DeviceArray.from(BigInt64Array.from(c, (v) => BigInt(v)), { stream, shape: typeof indices === "number" ? [] : [c.length] }));
    } catch (e) {
      closeAll(out, stream);
      throw e;
    }
    return out;
  }
  checkArray(indices, `${what}: indices`);
  checkIntegerArray(indices, `${what}: indices`);
  const size = elementCount(dims);
  if (!Number.isSafeInteger(size)) throw new ArgumentError(`${what}: the shape ${showShape(dims)} has more elements than positions can count`);
  const stream = operationStream(what, options, [indices]);
  checkIndexRange(what, indices, size, stream);
  if (dims.length === 0) return [];
  const out: DeviceArray[] = [];
  let { array: rest, owned } = asInt64(indices, stream);
  try {
    for (let d = dims.length - 1; d >= 1; d--) {
      out.unshift(mod(rest, dims[d]!, { stream }));
      const next = floorDiv(rest, dims[d]!, { stream });
      if (owned) rest.close(stream);
      [rest, owned] = [next, true];
    }
    out.unshift(owned ? rest : rest.copy({ stream }));
    owned = false;
    return out;
  } catch (e) {
    closeAll(out, stream);
    throw e;
  } finally {
    if (owned) rest.close(stream);
  }
}

/**
 * The row-major flat positions of coordinates in an array of `shape`, as NumPy's `ravel_multi_index`: `multiIndex`
 * holds one entry per axis, an integer DeviceArray or a number, broadcast together; an int64 result of their
 * broadcast shape (0-d when every entry is a number; numbers then need `{ stream }`). `mode`: "raise" (default; a
 * number out of range is an IndexError at once; an array's index out of range is found on the device and is an
 * IndexError at the stream's next synchronised read, where NumPy raises a ValueError at once), "wrap" (modulo the
 * extent) or "clip" (clamped to the axis).
 *
 * ```ts
 * ravelMultiIndex([rows, cols], [7, 6]);                   // rows [3, 6, 6], cols [4, 5, 1] → [22, 41, 37]
 * ravelMultiIndex([1, 2], [2, 3], { stream });             // 5, a 0-d array
 * ```
 */
export function ravelMultiIndex(multiIndex: readonly (DeviceArray | number)[], shape: number | readonly number[], options?: RavelMultiIndexOptions): DeviceArray {
  const what = "ravelMultiIndex";
  checkOptions(options, what, "mode?, stream?");
  const mode = options?.mode ?? "raise";
  if (mode !== "raise" && mode !== "wrap" && mode !== "clip") throw new TypeError(`${what}: mode is "raise", "wrap" or "clip", got ${describeValue(mode)}`);
  const dims = checkShape(shape, `${what}: shape`);
  if (!Array.isArray(multiIndex)) throw new TypeError(`${what}: multiIndex is a list of one index per axis (integer DeviceArrays or numbers), not ${describeValue(multiIndex)}`);
  if (multiIndex.length !== dims.length) throw new ArgumentError(`${what}: multiIndex has ${multiIndex.length} entries but the shape ${showShape(dims)} has ${dims.length} axes; give one index per axis`);
  if (!Number.isSafeInteger(elementCount(dims))) throw new ArgumentError(`${what}: the shape ${showShape(dims)} has more elements than positions can count`);
  const arrays: { d: number; a: DeviceArray }[] = [];
  const numbers: number[] = [];
  multiIndex.forEach((x, d) => {
    if (x instanceof DeviceArray) {
      checkArray(x, `${what}: index ${d}`);
      checkIntegerArray(x, `${what}: indices`);
      arrays.push({ d, a: x });
      numbers.push(0);
    } else if (typeof x === "number") {
      // A number checked (raise) or brought into range (wrap, clip) now.
      numbers.push(ravelHost([[x]], [dims[d]!], mode, what)[0]!);
    } else {
      throw new TypeError(`${what}: index ${d} is an integer DeviceArray or a number, not ${describeValue(x)}`);
    }
  });
  if (arrays.length === 0) {
    const flat = numbers.reduce((acc, c, d) => acc * dims[d]! + c, 0);
    const stream = operationStream(what, options, []);
    return DeviceArray.from(BigInt64Array.of(BigInt(flat)), { stream, shape: [] });
  }
  const outShape = broadcastShapes(arrays.map(({ d, a }) => ({ name: `index ${d}`, shape: a.shape })), what);
  const empty = arrays.find(({ d }) => dims[d] === 0);
  if (empty !== undefined && elementCount(outShape) > 0) {
    throw new IndexError(`${what}: axis ${empty.d} of the shape ${showShape(dims)} has extent 0, so no index on it is in range${mode === "raise" ? "" : ` (nor can mode "${mode}" bring one into it)`}`);
  }
  const stream = operationStream(what, options, arrays.map(({ a }) => a));
  const out = DeviceArray.empty(outShape, dtypes.int64, { stream });
  try {
    dims.forEach((n, d) => {
      if (d > 0) mul(out, n, { stream, out });
      const entry = multiIndex[d]!;
      if (!(entry instanceof DeviceArray)) {
        if (d === 0) out.fill(numbers[d]!, { stream });
        else if (numbers[d] !== 0) add(out, numbers[d]!, { stream, out });
        return;
      }
      // Every element of an entry is used when the result is not empty (none when it is: nothing to check).
      if (mode === "raise" && out.size > 0) checkIndexRange(what, entry, n, stream);
      let { array: c, owned } = asInt64(entry, stream);
      try {
        if (mode !== "raise") {
          const fixed = mode === "wrap" ? mod(c, n, { stream }) : clip(c, 0, n - 1, { stream });
          if (owned) c.close(stream);
          [c, owned] = [fixed, true];
        }
        if (d === 0) castInto(stream, broadcastTo(c, outShape), out);
        else add(out, c, { stream, out });
      } finally {
        if (owned) c.close(stream);
      }
    });
  } catch (e) {
    out.close(stream);
    throw e;
  }
  return out;
}

// ---- flatnonzero ----

/**
 * The flat positions of `a`'s non-zero elements, as NumPy's `flatnonzero` (`nonzero(ravel(a))[0]`): a 1-d int64 array.
 * Synchronises with the stream (the count sizes the result).
 *
 * ```ts
 * flatnonzero(m);                           // [[0, 3], [0, 5]] → [1, 3]
 * ```
 */
export function flatnonzero(a: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  const what = "flatnonzero";
  checkArray(a, what);
  checkOptions(options, what, "stream?");
  const stream = operationStream(what, options, [a]);
  const flat = ravel(a, { stream });
  try {
    return nonzero(flat, { stream })[0]!;
  } finally {
    if (flat !== a) flat.close(stream); // ravel's view (closing it frees nothing) or its copy of a non-contiguous a
  }
}

// ---- diagflat, fillDiagonal ----

/**
 * A 2-d array with `v`'s elements (flattened) on diagonal `k` and zeros elsewhere, as NumPy's `diagflat`: of `v`'s
 * dtype, `[n + |k|, n + |k|]` for `n` elements (`diag` of `ravel(v)`).
 *
 * ```ts
 * diagflat(m);                               // [[1, 2], [3, 4]] → a [4, 4] matrix with 1, 2, 3, 4 on its diagonal
 * diagflat(x, { k: 1 });                     // x: [2] → [3, 3], x above the main diagonal
 * ```
 */
export function diagflat(v: DeviceArray, options?: DiagflatOptions): DeviceArray {
  const what = "diagflat";
  checkArray(v, what);
  checkOptions(options, what, "k?, stream?");
  const k = options?.k === undefined ? 0 : checkInteger(options.k, `${what}: k`);
  const stream = operationStream(what, options, [v]);
  const flat = ravel(v, { stream });
  try {
    return diag(flat, { k, stream });
  } finally {
    if (flat !== v) flat.close(stream); // ravel's view (closing it frees nothing) or its copy
  }
}

/** A view of part of an array's diagonal (element units): what `fillDiagonal` writes. */
export interface DiagonalPart {
  readonly shape: number[];
  readonly strides: number[];
  readonly offset: number;
}

/**
 * The views `fillDiagonal` writes for an array of `shape` and `strides` (exported for tests), and the flat
 * (row-major) positions they cover in order: the main diagonal (every axis of one extent beyond 2-d); with `wrap`, a
 * 2-d array of more rows than columns goes on every `m + 1` rows (NumPy's `a.flat[::m + 1]`).
 */
export function fillDiagonalPlan(shape: readonly number[], strides: readonly number[], wrap: boolean): { parts: DiagonalPart[]; positions: number[] } {
  const what = "fillDiagonal";
  if (shape.length < 2) throw new ArgumentError(`${what}: needs an array of at least 2 axes, got shape ${showShape(shape)}`);
  if (shape.length > 2 && shape.some((n) => n !== shape[0])) throw new ArgumentError(`${what}: an array of more than 2 axes needs every axis of one extent, got shape ${showShape(shape)}`);
  const diagonalStride = strides.reduce((s, t) => s + t, 0);
  if (shape.length > 2) {
    const n = shape[0]!;
    // Flat position of (i, i, ..., i): i times the sum of the row-major strides.
    const step = shape.reduce((acc, _, d) => acc + elementCount(shape.slice(d + 1)), 0);
    return { parts: n > 0 ? [{ shape: [n], strides: [diagonalStride], offset: 0 }] : [], positions: [...Array(n).keys()].map((i) => i * step) };
  }
  const [n, m] = [shape[0]!, shape[1]!];
  if (n === 0 || m === 0) return { parts: [], positions: [] };
  const rows = wrap ? n : Math.min(n, m);
  // Row r of the wrapped diagonal is r = j (m + 1) + c for column c < m: B full blocks of m, then the rest.
  const blocks = Math.floor(rows / (m + 1));
  const restStart = blocks * (m + 1);
  const rest = Math.min(rows - restStart, m);
  const parts: DiagonalPart[] = [];
  if (blocks > 0) parts.push({ shape: [blocks, m], strides: [(m + 1) * strides[0]!, diagonalStride], offset: 0 });
  if (rest > 0) parts.push({ shape: [rest], strides: [diagonalStride], offset: restStart * strides[0]! });
  const count = blocks * m + rest;
  return { parts, positions: [...Array(count).keys()].map((k) => k * (m + 1)) };
}

/**
 * Writes `value` on `a`'s main diagonal, in place, as NumPy's `fill_diagonal`: a 2-d array's `a[i, i]`, or `a[i, i,
 * ..., i]` of an array whose axes have one extent. `value` is a scalar (converted as `full` converts it; written with
 * `fill` through diagonal views) or a DeviceArray whose elements are written in turn, repeated when shorter (`put` at
 * the diagonal's flat positions). `wrap`: a tall 2-d array's diagonal goes on after a blank row, as NumPy's.
 *
 * ```ts
 * fillDiagonal(m, 0);                       // zero m's diagonal
 * fillDiagonal(tall, 1, { wrap: true });    // [7, 3]: rows 0-2, then 4-6
 * ```
 */
export function fillDiagonal(a: DeviceArray, value: DeviceArray | ArrayScalar, options?: FillDiagonalOptions): void {
  const what = "fillDiagonal";
  checkArray(a, what);
  checkWritable(a, what);
  checkOptions(options, what, "wrap?, stream?");
  const wrap = options?.wrap ?? false;
  if (typeof wrap !== "boolean") throw new TypeError(`${what}: wrap is a boolean, got ${describeValue(wrap)}`);
  const plan = fillDiagonalPlan(a.shape, a.strides, wrap);
  if (value instanceof DeviceArray) {
    checkArray(value, `${what}: value`);
    if (value.size === 0) return; // NumPy's fill_diagonal with an empty array writes nothing
    put(a, plan.positions, value, options?.stream !== undefined ? { stream: options.stream } : undefined);
    return;
  }
  if (typeof value !== "number" && typeof value !== "bigint" && typeof value !== "boolean" && !Array.isArray(value)) {
    throw new TypeError(`${what}: value is a DeviceArray or a scalar, not ${describeValue(value)}`);
  }
  const v = castScalar(value, a.dtype);
  encodeElement(a.dtype, v);
  const stream = operationStream(what, options, [a]);
  for (const p of plan.parts) viewWith(a, p.shape, p.strides, a.byteOffset + p.offset * a.itemsize).fill(v, { stream });
}

// ---- select ----

/**
 * The element of the first choice whose condition holds, `default` where none does, as NumPy's `select`: `condlist`
 * holds bool DeviceArrays, `choicelist` as many choices (arrays or scalars), all broadcast together; the dtype is the
 * choices' and the default's promoted (scalars weak, as NumPy's). The default is written first, in the result's dtype
 * (a fill, or a conversion of an array), then one `where` per condition, from the last to the first, into the result
 * (in place): each works in the result's dtype and shape.
 *
 * ```ts
 * select([x.lt(3), x.gt(5)], [x, x.mul(x)]);          // [0 .. 9] → [0, 1, 2, 0, 0, 0, 36, 49, 64, 81]
 * select([x.lt(0)], [0], { default: x });               // relu
 * ```
 */
export function select(condlist: readonly DeviceArray[], choicelist: readonly ArrayOperand[], options?: SelectOptions): DeviceArray {
  const what = "select";
  checkOptions(options, what, "default?, stream?");
  if (!Array.isArray(condlist) || !Array.isArray(choicelist)) throw new TypeError(`${what} takes a list of conditions and a list of choices, got ${describeValue(condlist)} and ${describeValue(choicelist)}`);
  if (condlist.length !== choicelist.length) throw new ArgumentError(`${what}: ${condlist.length} conditions but ${choicelist.length} choices; give one choice per condition`);
  if (condlist.length === 0) throw new ArgumentError(`${what}: the lists are empty; give at least one condition and its choice`);
  condlist.forEach((c, k) => {
    checkArray(c, `${what}: condition ${k}`);
    if (c.dtype !== dtypes.bool) throw new DTypeError(`${what}: condition ${k} is ${c.dtype.name}, not bool; compare it (x.ne(0)) or convert it with astype("bool")`);
  });
  const fallback: ArrayOperand = options?.default ?? 0;
  const operands = [...choicelist, fallback];
  operands.forEach((x, k) => {
    if (x instanceof DeviceArray) checkArray(x, k < choicelist.length ? `${what}: choice ${k}` : `${what}: default`);
    else if (typeof x !== "number" && typeof x !== "bigint" && typeof x !== "boolean" && !Array.isArray(x)) {
      throw new TypeError(`${what}: ${k < choicelist.length ? `choice ${k}` : "default"} is a DeviceArray or a scalar, not ${describeValue(x)}`);
    }
  });
  const dtype: DType = operands.some((x) => x instanceof DeviceArray) ? operationType(operands, what) : operationType(operands.map((x) => scalarDType(x as ArrayScalar)), what);
  const shape = broadcastShapes(
    [...condlist.map((c, k) => ({ name: `condition ${k}`, shape: c.shape })), ...operands.flatMap((x, k) => (x instanceof DeviceArray ? [{ name: k < choicelist.length ? `choice ${k}` : "default", shape: x.shape }] : []))],
    what,
  );
  for (const x of operands) if (!(x instanceof DeviceArray)) encodeElement(dtype, castScalar(x, dtype));
  const stream = operationStream(what, options, [...condlist, ...operands]);
  const out = DeviceArray.empty(shape, dtype, { stream });
  try {
    // The default first, in the result's dtype and shape (as NumPy's), then each choice where its condition holds,
    // the last first so that the first condition that holds wins: every where works in out's dtype and shape.
    if (fallback instanceof DeviceArray) castInto(stream, broadcastTo(fallback, shape), out);
    else out.fill(castScalar(fallback, dtype), { stream });
    for (let k = condlist.length - 1; k >= 0; k--) where(condlist[k]!, choicelist[k]!, out, { stream, out });
  } catch (e) {
    out.close(stream);
    throw e;
  }
  return out;
}
