/**
 * Arrays built by JavaScript functions and from nested lists of arrays, as NumPy's (and CuPy's) functions of these
 * names: `fromfunction` (a function of the coordinate grids), `applyAlongAxis` (a function of each 1-d slice, the
 * results stacked), `applyOverAxes` (a function of the array and one axis, over several axes) and `block` (a nested
 * list of arrays joined along the last axes).
 *
 * ```ts
 * const hilbert = fromfunction((i, j) => div(1, add(add(i, j), 1)), [4, 4], { stream });
 * const ranks = applyAlongAxis((row) => argsort(argsort(row)), 1, scores);
 * const m = block([[a, b], [c, d]]);                  // a 2×2 block matrix
 * ```
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import { describeValue } from "../../../errors/describe.ts";
import { DTypeError, ShapeMismatchError } from "../errors.ts";
import { normalizeAxis } from "../broadcast.ts";
import type { DType } from "../dtype.ts";
import type { DTypeArgument } from "../options.ts";
import { indices, unravelHost } from "./index-helpers.ts";
import { mayShareMemory } from "./overlap.ts";
import { astype, castInto } from "./cast.ts";
import { copyto } from "./copyto.ts";
import { extract } from "./indexing.ts";
import { place } from "./inserting.ts";
import { logicalOr } from "./arithmetic.ts";
import { logicalNot } from "./math.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { checkArrayArgument } from "./elementwise.ts";
import { castScalar, full, scalarDType } from "./creation.ts";
import { iinfo } from "../dtype-info.ts";
import { broadcastTo, concatenate, expandDims, moveaxis, ownedView, reshape, transpose } from "./shape.ts";
import { withTemporaries } from "./temporaries.ts";

/** Options of `fromfunction`: the coordinates' dtype (default float64, NumPy's) and the stream (required). */
export interface FromfunctionOptions extends ArrayOperationOptions {
  /** The dtype of the coordinate arrays passed to the function (default float64, as NumPy's). */
  readonly dtype?: DTypeArgument;
}

/** Whether `a` is `root` or a view of it, directly or through other views. */
function viewOf(a: DeviceArray, root: DeviceArray): boolean {
  for (let b: DeviceArray | undefined = a; b !== undefined; b = b.base) if (b === root) return true;
  return false;
}

/**
 * What `fn` returns when called with the coordinate arrays of a grid of `shape`, as NumPy's `fromfunction`: `fn`
 * gets one array per axis (`coords[d]` holds each element's index along axis `d`, of `shape`, in `dtype`, default
 * float64) and computes with them. The coordinate arrays are freed after `fn` returns, in the order of `stream`
 * after the streams of the arrays `fn` returned (work `fn` queued on another stream that reads them but returns
 * nothing is not waited for); a result that is one of them, or a view of one (the result itself, or an element of
 * a list it returns), is returned as a copy.
 *
 * ```ts
 * const dist = fromfunction((i, j) => hypot(sub(i, 4), sub(j, 4)), [9, 9], { stream });
 * const eye = fromfunction((i, j) => eq(i, j), [3, 3], { stream, dtype: "int32" });   // bool [3, 3]
 * ```
 *
 * @throws What `indices` throws for a bad shape or dtype, and whatever `fn` throws.
 */
export function fromfunction<R>(fn: (...coords: DeviceArray[]) => R, shape: readonly number[], options: FromfunctionOptions): R {
  const what = "fromfunction";
  if (typeof fn !== "function") throw new TypeError(`${what}: fn is a function of the coordinate arrays, not ${describeValue(fn)}`);
  if (options === null || typeof options !== "object" || Array.isArray(options)) throw new TypeError(`${what} takes options { stream, dtype? }, got ${describeValue(options)}`);
  const grid = indices(shape, { ...options, dtype: options.dtype ?? "float64", sparse: false });
  const stream = operationStream(what, options, [grid]);
  try {
    const coords = Array.from({ length: shape.length }, (_, d) => grid.slice(d));
    const result = fn(...coords);
    // A result that is the grid or a view of it (empty ones too) is copied out before the grid is freed.
    const copy = (a: DeviceArray): DeviceArray => (viewOf(a, grid) || (!a.isClosed && a.size > 0 && mayShareMemory(a, grid)) ? a.copy({ stream }) : a);
    const results = result instanceof DeviceArray ? [result] : Array.isArray(result) ? result.filter((r: unknown): r is DeviceArray => r instanceof DeviceArray) : [];
    // The grid is freed in `stream`'s order: first it waits for the streams fn's results were made on, which may
    // still be reading the grid.
    operationStream(what, { stream }, results.filter((r) => !r.isClosed));
    if (result instanceof DeviceArray) return copy(result) as R;
    if (Array.isArray(result)) return result.map((r: unknown) => (r instanceof DeviceArray ? copy(r) : r)) as R;
    return result;
  } finally {
    grid.close(stream);
  }
}

/**
 * A result of `applyAlongAxis`'s function: an array; a number (a 0-d float64 result: a JavaScript number is a
 * double, as a Python float), a bigint (int64) or a boolean; or a list of numbers (a 1-d float64 result).
 */
export type AlongAxisResult = DeviceArray | number | bigint | boolean | readonly number[];

/**
 * `fn` applied to each 1-d slice of `a` along `axis`, the results stacked, as NumPy's `apply_along_axis`: the result
 * has `a`'s shape with `axis` replaced by the shape of `fn`'s first result (a scalar result removes the axis), in
 * its dtype; later results are broadcast to that shape and converted to that dtype, as NumPy assigns them into its
 * buffer. `fn` gets views of `a` (do not close them) and returns a new array or a scalar (see
 * {@link AlongAxisResult}); each array it returns is closed once copied, unless it is `a` or a view of it (return a
 * new array, not a view of one it made). One call of `fn` per slice, from JavaScript: for work a single operation
 * does along an axis (`sum`, `sort`, `cumsum`, ...), pass `axis` to it instead.
 *
 * ```ts
 * applyAlongAxis((r) => polyval(p, r), 1, x);                 // the same shape as x
 * applyAlongAxis((col) => quantile(col, 0.9), 0, m);          // one value per column
 * ```
 *
 * @throws AxisError for an axis out of range (any axis of a 0-d array); ShapeMismatchError when an axis other than
 * `axis` has extent 0 (no slices: NumPy's ValueError), or when a result does not broadcast to the first's shape.
 */
export function applyAlongAxis(fn: (slice: DeviceArray, index: number) => AlongAxisResult, axis: number, a: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  const what = "applyAlongAxis";
  if (typeof fn !== "function") throw new TypeError(`${what}: fn is a function of a 1-d slice, not ${describeValue(fn)}`);
  checkArrayArgument(a, what, "the array");
  if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) throw new TypeError(`${what} takes options { stream? }, got ${describeValue(options)}`);
  const ax = normalizeAxis(axis, a.ndim, what);
  // The slices are the last axis of `a` with `axis` moved last; the other axes are iterated in row-major order.
  const moved = moveaxis(a, ax, -1);
  const outer = moved.shape.slice(0, -1);
  const count = outer.reduce((p, n) => p * n, 1);
  if (count === 0) throw new ShapeMismatchError(`${what}: the array has shape [${a.shape.join(", ")}], so there is no 1-d slice along axis ${ax} to apply the function to (NumPy refuses it too)`);
  const stream = operationStream(what, options, [a]);
  // The coordinates of slice k among the other axes (row-major).
  const indexOf = (k: number): number[] => unravelHost([k], outer, what).map((axis) => axis[0]!);
  // `a` itself and its views (fn's argument, say) are never closed; fn's own arrays are, once copied.
  const ofA = (r: DeviceArray): boolean => viewOf(r, a) || (a.base !== undefined && viewOf(r, a.base)) || (r.size > 0 && mayShareMemory(r, a));
  const call = (k: number): { r: DeviceArray; own: boolean } => {
    const r = fn(moved.slice(...indexOf(k)), k);
    if (r instanceof DeviceArray) {
      checkArrayArgument(r, what, `the result for slice ${k}`);
      return { r, own: !ofA(r) };
    }
    if (typeof r === "number") return { r: full([], r, { stream, dtype: "float64" }), own: true };
    if (typeof r === "bigint" || typeof r === "boolean") return { r: full([], r, { stream, dtype: scalarDType(r).name }), own: true };
    if (Array.isArray(r) && r.every((v) => typeof v === "number")) return { r: DeviceArray.from(Float64Array.from(r as number[]), { stream }), own: true };
    throw new TypeError(`${what}: fn returned ${describeValue(r)} for slice ${k}; return a DeviceArray, a number, a bigint, a boolean or a list of numbers`);
  };
  const first = call(0);
  let buffer: DeviceArray | undefined;
  try {
    buffer = DeviceArray.empty([...outer, ...first.r.shape], first.r.dtype, { stream });
    const out = buffer;
    const put = (k: number, res: { r: DeviceArray; own: boolean }): void => {
      try {
        let r = res.r;
        if (r.ndim !== first.r.ndim || r.shape.some((n, d) => n !== first.r.shape[d])) {
          // Assigned into the buffer as NumPy assigns: broadcast to the first result's shape.
          try {
            r = broadcastTo(r, first.r.shape);
          } catch {
            throw new ShapeMismatchError(`${what}: fn returned shape [${first.r.shape.join(", ")}] for slice 0 but [${res.r.shape.join(", ")}] for slice ${k}, which does not broadcast to it; return one shape for every slice`);
          }
        }
        if (r.size === 0) return;
        const dst = outer.length > 0 ? out.slice(...indexOf(k)) : out;
        castInto(stream, r, dst);
      } finally {
        if (res.own) res.r.close(stream);
      }
    };
    put(0, first);
    for (let k = 1; k < count; k++) put(k, call(k));
  } catch (e) {
    if (first.own && !first.r.isClosed) first.r.close(stream);
    buffer?.close(stream);
    throw e;
  }
  // The result's axes where `axis` was: [outer before axis, result axes, outer after axis].
  const rn = buffer.ndim - outer.length;
  const order = [...Array(ax).keys(), ...Array.from({ length: rn }, (_, j) => outer.length + j), ...Array.from({ length: outer.length - ax }, (_, j) => ax + j)];
  return order.every((d, j) => d === j) ? buffer : ownedView(buffer, transpose(buffer, order));
}

/** Whether `x` is `y`, a view of it or of its base, or shares memory with it. */
function related(x: DeviceArray, y: DeviceArray): boolean {
  return x === y || viewOf(x, y) || (y.base !== undefined && viewOf(x, y.base)) || (x.size > 0 && y.size > 0 && mayShareMemory(x, y));
}

/**
 * `fn` applied over each of `axes` in turn, as NumPy's `apply_over_axes`: `fn(value, axis)` is called with `a`
 * first and then with each result, and must return an array of the same number of axes or one fewer (then the axis
 * is put back with extent 1, so the result keeps `a`'s number of axes). Negative axes count from the end of `a`'s.
 * Arrays `fn` made that a later call replaced are closed (not `a`, nor arrays the result is a view of).
 *
 * ```ts
 * applyOverAxes((x, axis) => sum(x, { axis }), a, [0, 2]);   // sums over axes 0 and 2, keepdims-style
 * ```
 *
 * @throws ShapeMismatchError when `fn` returns an array whose number of axes is neither the input's nor one fewer
 * (NumPy's ValueError); TypeError when it returns something other than a DeviceArray.
 */
export function applyOverAxes(fn: (value: DeviceArray, axis: number) => DeviceArray, a: DeviceArray, axes: number | readonly number[]): DeviceArray {
  const what = "applyOverAxes";
  if (typeof fn !== "function") throw new TypeError(`${what}: fn is a function of (array, axis), not ${describeValue(fn)}`);
  checkArrayArgument(a, what, "the array");
  const list = typeof axes === "number" ? [axes] : Array.isArray(axes) ? [...(axes as readonly number[])] : undefined;
  if (list === undefined || !list.every((x) => Number.isSafeInteger(x))) throw new TypeError(`${what}: axes is an integer or a list of integers, not ${describeValue(axes)}`);
  const n = a.ndim;
  let value = a;
  // The new array fn made whose memory backs `value`, if any: closed (in the order of the stream of the result that
  // read it) once a later result no longer needs it. Views fn returns of arrays it holds elsewhere are left alone.
  let root: DeviceArray | undefined;
  try {
    for (const given of list) {
      const axis = given < 0 ? given + n : given;
      const res = fn(value, axis);
      if (!(res instanceof DeviceArray)) throw new TypeError(`${what}: fn returned ${describeValue(res)} for axis ${given}; return a DeviceArray`);
      const made = res.base === undefined && !related(res, a) && !related(res, value) && (root === undefined || !related(res, root));
      let next: DeviceArray;
      try {
        if (res.ndim === value.ndim) next = res;
        else if (res.ndim === value.ndim - 1) {
          const expanded = expandDims(res, axis);
          // A new array hands its memory to the expanded view, which then frees it when closed.
          next = made ? ownedView(res, expanded) : expanded;
        } else {
          throw new ShapeMismatchError(`${what}: fn returned ${res.ndim} axes (shape [${res.shape.join(", ")}]) for an input of ${value.ndim} along axis ${given}; return the same number of axes or one fewer`);
        }
      } catch (e) {
        if (made) res.close();
        throw e;
      }
      const nextRoot = made ? next : related(next, a) ? undefined : root !== undefined && related(next, root) ? root : undefined;
      if (root !== undefined && nextRoot !== root) root.close(next.stream);
      root = nextRoot;
      value = next;
    }
  } catch (e) {
    root?.close();
    throw e;
  }
  return value;
}

/**
 * A piece's value converted as NumPy's assignment converts a Python scalar: an integer outside an integer dtype's
 * range, NaN or an infinity into integers, and a complex value into a real dtype are refused.
 */
function pieceValue(value: ArrayScalar, dtype: DType, i: number): ArrayScalar {
  let v: ArrayScalar;
  try {
    v = castScalar(value, dtype);
  } catch (e) {
    throw new DTypeError(`piecewise: piece ${i}'s value: ${(e as Error).message}`);
  }
  if (dtype.kind === "i" || dtype.kind === "u") {
    const { min, max } = iinfo(dtype);
    const whole = typeof value === "bigint" ? value : typeof value === "number" && Number.isInteger(value) ? BigInt(value) : undefined;
    if (whole !== undefined && (whole < BigInt(min) || whole > BigInt(max))) {
      throw new DTypeError(`piecewise: piece ${i}'s value ${String(value)} is outside ${dtype.name}'s range (${min} to ${max}); the result has x's dtype, so convert x first (x.astype(...)) or give a value in range`);
    }
  }
  return v;
}

/** A piece of {@link piecewise}: a value, or a function of the selected elements giving their new values. */
export type Piece = ArrayScalar | ((values: DeviceArray) => DeviceArray | ArrayScalar);

/**
 * `x` evaluated piece by piece, as NumPy's `piecewise`: a new array of `x`'s shape and dtype, zero where no
 * condition holds, and where `condlist[i]` holds, `funclist[i]`: a value, or a function called with the 1-d array of
 * `x`'s elements there (row-major) that returns as many values (or one). One more function than conditions is the
 * value where none holds. Later pieces overwrite earlier ones where conditions overlap. `condlist` is a list of
 * arrays of `x`'s shape (non-zero is true), or one such array, or one array with a leading axis of conditions.
 * Values are converted to `x`'s dtype as NumPy's assignment converts them (1.5 into an int32 `x` is 1; 300 into an
 * int8 `x` is a DTypeError, as NumPy's OverflowError). An array a function returns is closed once written, unless it
 * is `x`, a condition, the values it got, or a view of one of them. Reads each function's element count back (a
 * synchronisation per function piece).
 *
 * ```ts
 * piecewise(x, [lt(x, 0), ge(x, 0)], [(v) => neg(v), (v) => sqrt(v)]);   // |x| below 0, √x above
 * piecewise(x, [lt(x, 0)], [-1, 1]);                                        // a sign: -1, else 1
 * ```
 *
 * @throws ArgumentError for no conditions, or a `funclist` of neither as many pieces as conditions nor one more
 * (NumPy's IndexError, ValueError); ShapeMismatchError for a condition not of `x`'s shape, or a function result that
 * is not 1-d of the right size (or one value); DTypeError for a value `x`'s dtype cannot hold.
 */
export function piecewise(x: DeviceArray, condlist: DeviceArray | readonly DeviceArray[], funclist: readonly Piece[], options?: ArrayOperationOptions): DeviceArray {
  const what = "piecewise";
  checkArrayArgument(x, what, "x");
  if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) throw new TypeError(`${what} takes options { stream? }, got ${describeValue(options)}`);
  let conds: DeviceArray[];
  if (condlist instanceof DeviceArray) {
    checkArrayArgument(condlist, what, "the conditions");
    conds = condlist.ndim === x.ndim + 1 ? Array.from({ length: condlist.shape[0]! }, (_, i) => condlist.slice(i)) : [condlist];
  } else if (Array.isArray(condlist)) {
    conds = [...(condlist as readonly DeviceArray[])];
    conds.forEach((c, i) => checkArrayArgument(c, what, `condition ${i}`));
  } else {
    throw new TypeError(`${what}: condlist is a bool array of x's shape or a list of them, not ${describeValue(condlist)}`);
  }
  conds.forEach((c, i) => {
    if (c.ndim !== x.ndim || c.shape.some((n, d) => n !== x.shape[d])) {
      throw new ShapeMismatchError(`${what}: condition ${i} has shape [${c.shape.join(", ")}] but x has [${x.shape.join(", ")}]; give conditions of x's shape`);
    }
  });
  if (!Array.isArray(funclist)) throw new TypeError(`${what}: funclist is a list of values or functions, not ${describeValue(funclist)}`);
  const n = conds.length;
  if (n === 0) throw new ArgumentError(`${what}: condlist is empty; give at least one condition (a bool array of x's shape)`);
  if (funclist.length !== n && funclist.length !== n + 1) {
    throw new ArgumentError(`${what}: ${n} condition${n === 1 ? "" : "s"} take ${n} pieces, or ${n + 1} with the last for where none holds; got ${funclist.length}`);
  }
  funclist.forEach((piece, i) => {
    if (typeof piece !== "function") pieceValue(piece, x.dtype, i);
  });
  const stream = operationStream(what, options, [x, ...conds]);
  const y = DeviceArray.zeros(x.shape, x.dtype, { stream });
  try {
    withTemporaries(stream, (temp) => {
      const masks = conds.map((c) => (c.dtype.name === "bool" ? c : temp(astype(c, "bool", { stream }))));
      if (funclist.length === n + 1) {
        let some: DeviceArray | undefined;
        for (const m of masks) some = some === undefined ? m : temp(logicalOr(some, m, { stream }));
        masks.push(some === undefined ? temp(DeviceArray.full(x.shape, true, "bool", { stream })) : temp(logicalNot(some, { stream })));
      }
      const assign = (value: ArrayScalar, mask: DeviceArray, i: number): void => {
        copyto(y, pieceValue(value, y.dtype, i), { where: mask, casting: "unsafe", stream });
      };
      const protectedArrays = [x, ...conds, ...masks];
      masks.forEach((mask, i) => {
        const piece = funclist[i]!;
        if (typeof piece !== "function") {
          assign(piece, mask, i);
          return;
        }
        const values = temp(extract(mask, x, { stream }));
        if (values.size === 0) return;
        const r = piece(values);
        if (!(r instanceof DeviceArray)) {
          assign(r, mask, i);
          return;
        }
        checkArrayArgument(r, what, `piece ${i}'s result`);
        // What the function made is closed once written; never x, the conditions, or the values it got.
        if (!related(r, values) && !protectedArrays.some((p) => related(r, p))) temp(r);
        if (r.ndim > 1 || (r.size !== values.size && r.size !== 1)) {
          throw new ShapeMismatchError(`${what}: piece ${i} got ${values.size} values and returned shape [${r.shape.join(", ")}]; return a 1-d array of one value per element it got, or one value for all`);
        }
        const converted = r.dtype === y.dtype ? r : temp(astype(r, y.dtype.name, { stream }));
        if (r.size === 1) {
          copyto(y, converted.reshape([]), { where: mask, stream });
          return;
        }
        const flat = converted.ndim === 1 ? converted : reshape(converted, [converted.size], { stream });
        if (!related(flat, converted)) temp(flat);
        place(y, mask, flat, { stream });
      });
    });
  } catch (e) {
    y.close(stream);
    throw e;
  }
  return y;
}

/** A nested list of arrays for `block`: arrays at the innermost level, every branch of one depth. */
export type BlockList = DeviceArray | readonly BlockList[];

/**
 * The array assembled from a nested list of blocks, as NumPy's `block`: the innermost lists are joined along the last
 * axis, the lists of those along the second-to-last, and so on; each block first gets leading axes of extent 1 up to
 * the larger of the nesting depth and the largest block's number of axes (so 1-d blocks are rows). Each join
 * promotes the dtypes of what it joins, as NumPy's `block` does for arrays of up to 65,536 elements (in `[[int8,
 * uint8], [float16]]` the first row is int16 before it meets float16: float32); NumPy promotes all blocks at once for
 * larger ones (float16 there). A new array; does not wait for the stream.
 *
 * ```ts
 * block([a, b]);                          // concatenate([a, b], { axis: -1 })
 * block([[A, B], [C, D]]);                // a 2×2 block matrix
 * block([[A, zeros([2, 3])], [ones([1, 2]), x]]);
 * ```
 *
 * @throws ShapeMismatchError for an empty list, lists of mismatched depths, or blocks whose extents do not line up
 * (NumPy's ValueError); TypeError for a leaf that is not a DeviceArray.
 */
export function block(arrays: BlockList, options?: ArrayOperationOptions): DeviceArray {
  const what = "block";
  if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) throw new TypeError(`${what} takes options { stream? }, got ${describeValue(options)}`);
  // The nesting depth (uniform), the leaves, and the most axes a leaf has.
  const leaves: DeviceArray[] = [];
  const depthOf = (x: BlockList, path: string): number => {
    if (x instanceof DeviceArray) {
      checkArrayArgument(x, what, `the block at ${path || "the top"}`);
      leaves.push(x);
      return 0;
    }
    if (!Array.isArray(x)) throw new TypeError(`${what}: the block at ${path || "the top"} is a DeviceArray or a list of blocks, not ${describeValue(x)}`);
    if (x.length === 0) throw new ShapeMismatchError(`${what}: the list at ${path || "the top"} is empty; every list needs at least one block`);
    const depths = (x as readonly BlockList[]).map((y, k) => depthOf(y, `${path}[${k}]`));
    if (depths.some((d) => d !== depths[0])) throw new ShapeMismatchError(`${what}: the lists at ${path || "the top"} are nested to different depths (${depths.join(", ")}); nest every block equally deep`);
    return depths[0]! + 1;
  };
  const depth = depthOf(arrays, "");
  const ndim = Math.max(depth, ...leaves.map((l) => l.ndim));
  const stream = operationStream(what, options, leaves);
  // A block with leading axes of extent 1 up to `ndim` (a view).
  const lifted = (x: DeviceArray): DeviceArray => (x.ndim === ndim ? x : expandDims(x, [...Array(ndim - x.ndim).keys()]));
  if (depth === 0) return lifted(arrays as DeviceArray).copy({ stream });
  return withTemporaries(stream, (temp) => {
    const join = (x: BlockList, level: number): DeviceArray => {
      if (x instanceof DeviceArray) return lifted(x);
      const parts = (x as readonly BlockList[]).map((y) => join(y, level + 1));
      const joined = concatenate(parts, { axis: -(depth - level), stream });
      return level === 0 ? joined : temp(joined);
    };
    return join(arrays, 0);
  });
}
