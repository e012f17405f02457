/**
 * Differences of neighbours and what is built on them, as NumPy has them: `diff` (along an axis), `ediff1d` (of the
 * flattened array, with values before and after), `gradient` (central differences inside, one-sided at the edges),
 * `trapezoid` (the trapezoidal rule), `unwrap` (phase unwrapping), and `meshgrid` (coordinate arrays from 1-d
 * vectors). All are composed of views, elementwise operations (`sub`, `mul`, `div`, `mod`, `where`, ...), `sum`,
 * `cumsum` and copies: no kernel of their own.
 *
 * @module
 */
import { DeviceArray, encodeElement, operationStream, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { AxisError, DTypeError, ShapeMismatchError } from "../errors.ts";
import { broadcastShapes, normalizeAxis } from "../broadcast.ts";
import { dtypes, type DType } from "../dtype.ts";
import { contiguousStrides, type SliceSpec } from "../layout.ts";
import type { ArrayOperand } from "../methods.ts";
import { sum } from "../reductions.ts";
import { full, scalarDType } from "./creation.ts";
import { add, div, eq, gt, logicalAnd, lt, mod, mul, ne, sub } from "./arithmetic.ts";
import { castInto, astype } from "./cast.ts";
import { checkArrayArgument, checkOneDevice, checkOperand } from "./elementwise.ts";
import { abs, neg } from "./math.ts";
import { cumsum } from "./scan.ts";
import { where } from "./selection.ts";
import { all } from "./statistics.ts";
import { broadcastTo, concatenate, ownedView, ravel, reshape, viewWith } from "./shape.ts";
import { canCastSameKind, operationType } from "../promotion.ts";
import { withTemporaries } from "./temporaries.ts";

/** Slice specs taking `spec` along `axis` (every axis before it whole): `a.slice(...along(axis, [1, null]))`. */
function along(axis: number, spec: SliceSpec): SliceSpec[] {
  return [...Array<null>(axis).fill(null), spec];
}

/** Options of `diff`. */
export interface DiffOptions extends ArrayOperationOptions {
  /** How many times to take differences (default 1; 0 gives a copy). */
  readonly n?: number;
  /** The axis (default -1, the last). */
  readonly axis?: number;
  /** Values put before the array along the axis first: a scalar (broadcast) or an array of the other axes' extents. */
  readonly prepend?: DeviceArray | ArrayScalar;
  /** Values put after it, likewise. */
  readonly append?: DeviceArray | ArrayScalar;
}

/**
 * The `n`-th differences along `axis`, as NumPy's `diff`: `out[i] = a[i + 1] - a[i]`, repeated `n` times, the axis
 * `n` shorter (bool arrays give `a[i + 1] != a[i]`, as NumPy's). `prepend`/`append` extend the array along the axis
 * first. A new array; does not wait for the stream.
 *
 * ```ts
 * diff(x);                          // [1, 4, 9, 16] → [3, 5, 7]
 * diff(x, { n: 2 });                // [2, 2]
 * diff(t, { axis: 0, prepend: 0 }); // same length as t along axis 0
 * ```
 */
export function diff(a: DeviceArray, options?: DiffOptions): DeviceArray {
  const what = "diff";
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(a)}`);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { n?, axis?, prepend?, append?, stream? }, got ${describeValue(options)}`);
  if (a.ndim === 0) throw new ShapeMismatchError(`${what}: a 0-d array has no axis to take differences along; pass an array of at least one axis`);
  const n = options?.n ?? 1;
  if (!Number.isSafeInteger(n) || n < 0) throw new ArgumentError(`${what}: n is a non-negative integer, got ${describeValue(n)}`);
  const axis = normalizeAxis(options?.axis ?? -1, a.ndim, what);
  const stream = operationStream(what, options, [a, ...[options?.prepend, options?.append].filter((x): x is DeviceArray => x instanceof DeviceArray)]);
  const temps: DeviceArray[] = [];
  try {
    let cur = a;
    if (options?.prepend !== undefined || options?.append !== undefined) {
      const dtype = operationType([a, ...[options.prepend, options.append].filter((x) => x !== undefined)], what);
      const part = (x: DeviceArray | ArrayScalar): DeviceArray => {
        const shape = a.shape.map((e, d) => (d === axis ? (x instanceof DeviceArray && x.ndim === a.ndim ? x.shape[d]! : 1) : e));
        const arr = x instanceof DeviceArray ? x : full(shape, x, { dtype, stream });
        if (!(x instanceof DeviceArray)) temps.push(arr);
        return x instanceof DeviceArray && x.ndim !== a.ndim ? broadcastTo(x, shape) : arr;
      };
      const pieces = [...(options.prepend !== undefined ? [part(options.prepend)] : []), a, ...(options.append !== undefined ? [part(options.append)] : [])];
      cur = concatenate(pieces, { axis, dtype, stream });
      temps.push(cur);
    }
    if (n === 0) return cur === a ? a.copy({ stream }) : (temps.pop() as DeviceArray);
    for (let k = 1; ; k++) {
      const len = cur.shape[axis]!;
      const next = cur.slice(...along(axis, [1, null]));
      const prev = cur.slice(...along(axis, [0, Math.max(0, len - 1)]));
      const d = cur.dtype.kind === "b" ? ne(next, prev, { stream }) : sub(next, prev, { stream });
      if (k === n) return d;
      temps.push(d);
      cur = d;
    }
  } finally {
    for (const t of temps) t.close(stream);
  }
}

/** Options of `ediff1d`. */
export interface Ediff1dOptions extends ArrayOperationOptions {
  /** Values put after the differences: a scalar, or an array of any shape (flattened). */
  readonly toEnd?: DeviceArray | ArrayScalar;
  /** Values put before the differences, likewise. */
  readonly toBegin?: DeviceArray | ArrayScalar;
}

/**
 * The differences of neighbours of the flattened array, as NumPy's `ediff1d`: `a.flat[i + 1] - a.flat[i]`, with
 * `toBegin` before and `toEnd` after (scalars, or arrays of any shape read flattened). A new 1-d array of `a`'s dtype
 * (an empty `a` or one of one element gives only the extra values). The extra values must convert to `a`'s dtype
 * under NumPy's "same_kind" rule (`canCastSameKind`: an int64 scalar for a float32 or int8 array, not a float for an
 * integer array, not a signed integer for an unsigned array) and are then converted as `astype` converts (wrapping
 * into integers, as NumPy's). Does not wait for the stream.
 *
 * ```ts
 * ediff1d(x);                                    // [1, 2, 4, 7, 0] → [1, 2, 3, -7]
 * ediff1d(x, { toBegin: -99, toEnd: ends });      // [-99, 1, 2, 3, -7, ...ends]
 * ```
 *
 * @throws DTypeError for a bool `a` (bool arrays have no subtraction, as in NumPy), or an extra value whose dtype
 * does not convert to `a`'s under "same_kind" (NumPy's TypeError).
 * @throws DeviceMismatchError when the arrays are on different devices.
 */
export function ediff1d(a: DeviceArray, options?: Ediff1dOptions): DeviceArray {
  const what = "ediff1d";
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(a)}`);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { toBegin?, toEnd?, stream? }, got ${describeValue(options)}`);
  checkArrayArgument(a, what, "a");
  if (a.dtype.kind === "b") {
    throw new DTypeError(`${what}: a is bool, and bool arrays have no subtraction (NumPy refuses it too); convert it first (astype("int8")), or use diff, which gives a[i + 1] != a[i]`);
  }
  // Each extra part: its values, their dtype (a scalar's as NumPy's array of it) and count, checked before the stream.
  const part = (name: "toBegin" | "toEnd"): { value: DeviceArray | ArrayScalar; dtype: DType; count: number } | undefined => {
    const value = options?.[name];
    if (value === undefined) return undefined;
    const x = value instanceof DeviceArray ? checkArrayArgument(value, what, name) : checkOperand(value, what, name);
    const dtype = x instanceof DeviceArray ? x.dtype : scalarDType(x as ArrayScalar);
    if (!(x instanceof DeviceArray)) encodeElement(dtype, x); // a bigint past int64: DTypeError before the stream
    if (!canCastSameKind(dtype, a.dtype)) {
      throw new DTypeError(
        `${what}: ${name} is ${x instanceof DeviceArray ? "a" : "a scalar of"} ${dtype.name}${x instanceof DeviceArray ? " array" : ""}, which does not convert to a's ${a.dtype.name} under NumPy's "same_kind" rule; pass values of a's kind (astype them first)`,
      );
    }
    return { value: x as DeviceArray | ArrayScalar, dtype, count: x instanceof DeviceArray ? x.size : 1 };
  };
  const begin = part("toBegin");
  const end = part("toEnd");
  const arrays = [a, begin?.value, end?.value].filter((x): x is DeviceArray => x instanceof DeviceArray);
  checkOneDevice(what, [["a", a], ["toBegin", begin?.value instanceof DeviceArray ? begin.value : undefined], ["toEnd", end?.value instanceof DeviceArray ? end.value : undefined]]);
  const stream = operationStream(what, options, arrays);
  const nBegin = begin?.count ?? 0;
  const nDiff = Math.max(a.size - 1, 0);
  const nEnd = end?.count ?? 0;
  const out = DeviceArray.empty([nBegin + nDiff + nEnd], a.dtype, { stream });
  const temps: DeviceArray[] = [];
  try {
    // One part of the result: an array's elements converted into their slice, or a scalar converted into its element.
    const put = (p: { value: DeviceArray | ArrayScalar; dtype: DType; count: number } | undefined, at: number): void => {
      if (p === undefined || p.count === 0) return;
      const dst = out.slice([at, at + p.count]);
      if (p.value instanceof DeviceArray) castInto(stream, p.value, viewWith(dst, p.value.shape, contiguousStrides(p.value.shape)));
      else if (p.dtype === a.dtype) dst.fill(p.value, { stream });
      else {
        const s = full([1], p.value, { stream, dtype: p.dtype });
        temps.push(s);
        castInto(stream, s, dst);
      }
    };
    put(begin, 0);
    if (nDiff > 0) {
      const flat = ravel(a, { stream });
      if (flat.base === undefined) temps.push(flat); // ravel's own copy of a strided a
      sub(flat.slice([1, nDiff + 1]), flat.slice([0, nDiff]), { stream, out: out.slice([nBegin, nBegin + nDiff]) });
    }
    put(end, nBegin + nDiff);
    return out;
  } catch (e) {
    out.close(stream);
    throw e;
  } finally {
    for (const t of temps) t.close(stream);
  }
}

/**
 * A spacing argument of `gradient`: a number or a 0-d array (one spacing along the axis), or a 1-d array (the
 * coordinates of the samples along it).
 */
export type GradientSpacing = number | DeviceArray;

/** Options of `gradient`, its last argument. */
export interface GradientOptions extends ArrayOperationOptions {
  /** The axis or axes, in the order of the results (default: every axis). */
  readonly axis?: number | readonly number[];
  /** The order of the one-sided differences at the edges: 1 (default) or 2. */
  readonly edgeOrder?: 1 | 2;
}

/**
 * The gradient of `f` along each of its axes (or those of `axis`), as NumPy's `gradient`: second-order central
 * differences inside, one-sided differences of order `edgeOrder` (1 or 2) at the two edges. One array for one axis
 * (a 1-d `f`, or one `axis`), a list of arrays, one per axis in order, otherwise (an empty list for a 0-d `f`). Each
 * has `f`'s shape and dtype, float64 for integer `f`.
 *
 * The spacing arguments after `f`: none (1 along every axis), one scalar for every axis, or one per axis, each a
 * number or 0-d array (a uniform spacing) or a 1-d array of the samples' coordinates along the axis (as long as the
 * axis; integers are read as float64). Coordinates are used with NumPy's formulas for uneven spacing, unless their
 * differences are all equal, which NumPy tests and then takes as a uniform spacing: so does this function, which
 * reads one boolean back from the device per coordinate array (it waits for the stream there). The values are
 * NumPy's expressions computed with this library's elementwise operations, in NumPy's dtypes and order. Does not
 * wait for the stream otherwise.
 *
 * ```ts
 * gradient(f);                               // [1, 2, 4, 7, 11, 16] → [1, 1.5, 2.5, 3.5, 4.5, 5]
 * gradient(f, 2);                            // spacing 2: [0.5, 0.75, ...]
 * gradient(f, x, { edgeOrder: 2 });          // at the coordinates x
 * const [gy, gx] = gradient(m) as DeviceArray[];   // a 2-d m: one array per axis
 * ```
 *
 * @throws DTypeError for a bool `f` (bool arrays have no subtraction, as in NumPy), or bool coordinates, or complex
 * ones with a real `f`.
 * @throws ShapeMismatchError for an axis shorter than `edgeOrder + 1`, or coordinates that are not 1-d or not as
 * long as their axis.
 * @throws ArgumentError for a number of spacings other than 0, 1 scalar or one per axis, or an `edgeOrder` other
 * than 1 or 2.
 * @throws AxisError for an axis out of range or named twice.
 */
export function gradient(f: DeviceArray, ...args: (GradientSpacing | GradientOptions)[]): DeviceArray | DeviceArray[] {
  const what = "gradient";
  if (!(f instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(f)}`);
  checkArrayArgument(f, what, "f");
  const last = args[args.length - 1];
  const options = typeof last === "object" && last !== null && !(last instanceof DeviceArray) ? (last as GradientOptions) : undefined;
  const spacing = (options === undefined ? args : args.slice(0, -1)) as unknown[];
  spacing.forEach((s, i) => {
    if (s instanceof DeviceArray) checkArrayArgument(s, what, `spacing ${i}`);
    else if (typeof s !== "number") throw new TypeError(`${what}: spacing ${i} is a number or a DeviceArray (0-d: one spacing; 1-d: coordinates), got ${describeValue(s)}`);
  });
  if (f.dtype.kind === "b") {
    throw new DTypeError(`${what}: f is bool, and bool arrays have no subtraction (NumPy refuses it too); convert it first (astype("float64"))`);
  }
  const axisOption = options?.axis;
  let axes: number[];
  if (axisOption === undefined || axisOption === null) axes = [...Array(f.ndim).keys()];
  else {
    const list: unknown[] | undefined = typeof axisOption === "number" ? [axisOption] : Array.isArray(axisOption) ? [...(axisOption as readonly unknown[])] : undefined;
    if (list === undefined) throw new AxisError(`${what}: axis is a number or a list of numbers, got ${describeValue(axisOption)}`);
    axes = list.map((a) => normalizeAxis(a, f.ndim, what));
    if (new Set(axes).size !== axes.length) throw new AxisError(`${what}: an axis is named twice in [${list.join(", ")}]; name each once`);
  }
  const edgeOrder = options?.edgeOrder ?? 1;
  if (edgeOrder !== 1 && edgeOrder !== 2) throw new ArgumentError(`${what}: edgeOrder is 1 or 2 (the order of the one-sided differences at the edges), got ${describeValue(edgeOrder)}`);
  const spacings = spacing as GradientSpacing[];
  let per: GradientSpacing[];
  if (spacings.length === 0) per = axes.map(() => 1);
  else if (spacings.length === 1 && (typeof spacings[0] === "number" || spacings[0]!.ndim === 0)) per = axes.map(() => spacings[0]!);
  else if (spacings.length === axes.length) per = spacings;
  else {
    throw new ArgumentError(
      `${what}: give no spacing (1 along every axis), one scalar for every axis, or one spacing per axis (${axes.length}); got ${spacings.length} spacing argument${spacings.length === 1 ? "" : "s"}`,
    );
  }
  per.forEach((s, i) => {
    if (!(s instanceof DeviceArray)) return;
    const axis = axes[i]!;
    if (s.ndim > 1) throw new ShapeMismatchError(`${what}: the spacing along axis ${axis} has shape [${s.shape.join(", ")}]; give a number, a 0-d array or 1-d coordinates`);
    if (s.ndim === 1 && s.size !== f.shape[axis]) {
      throw new ShapeMismatchError(`${what}: the coordinates along axis ${axis} are ${s.size} but the axis has ${f.shape[axis]} samples; give one coordinate per sample`);
    }
    if (s.dtype.kind === "b") throw new DTypeError(`${what}: the spacing along axis ${axis} is bool; give numbers (astype("float64"))`);
    if (s.dtype.kind === "c" && f.dtype.kind !== "c") throw new DTypeError(`${what}: the spacing along axis ${axis} is ${s.dtype.name} but f is real; give real coordinates`);
  });
  for (const axis of axes) {
    if (f.shape[axis]! < edgeOrder + 1) {
      throw new ShapeMismatchError(
        `${what}: axis ${axis} has ${f.shape[axis]} sample${f.shape[axis] === 1 ? "" : "s"}, too few for a gradient with edgeOrder ${edgeOrder}: at least ${edgeOrder + 1} are needed`,
      );
    }
  }
  if (axes.length === 0) return []; // a 0-d f: no axis, no gradient (NumPy's empty tuple)
  const otype = f.dtype.kind === "f" || f.dtype.kind === "c" ? f.dtype : dtypes.float64;
  const arrays = per.filter((s): s is DeviceArray => s instanceof DeviceArray);
  checkOneDevice(what, [["f", f], ...arrays.map((s, i) => [`spacing ${i}`, s] as const)]);
  const stream = operationStream(what, options, [f, ...arrays]);
  const o = { stream };
  const results: DeviceArray[] = [];
  try {
    return withTemporaries(stream, (keep) => {
      // Integers in float64 first, as NumPy (no wrapping differences).
      const g = f.dtype.kind === "i" || f.dtype.kind === "u" ? keep(astype(f, "float64", o)) : f;
      axes.forEach((axis, i) => {
        const out = DeviceArray.empty(f.shape, otype, o);
        results.push(out);
        const n = f.shape[axis]!;
        const F = (spec: SliceSpec): DeviceArray => g.slice(...along(axis, spec));
        const at = (spec: SliceSpec): DeviceArray => out.slice(...along(axis, spec));
        const s = per[i]!;
        let uniform: number | DeviceArray | undefined;
        let steps: DeviceArray | undefined;
        if (typeof s === "number") uniform = s;
        else if (s.ndim === 0) {
          // An integer 0-d spacing in float64, as NumPy's float arithmetic with it gives (2. * dx, -1.5 / dx).
          uniform = s.dtype.kind === "i" || s.dtype.kind === "u" ? keep(astype(s, "float64", o)) : s;
        } else {
          const coords = s.dtype.kind === "i" || s.dtype.kind === "u" ? keep(astype(s, "float64", o)) : s;
          const d = keep(diff(coords, o));
          // NumPy's test: equal differences make the spacing the scalar d[0] (its uniform formulas). Read back.
          const same = keep(all(keep(eq(d, d.slice(0), o)), o));
          if ((same.toTypedArraySync(o) as Uint8Array)[0] !== 0) uniform = d.slice(0);
          else steps = d;
        }
        if (n > 2) {
          if (uniform !== undefined) {
            // (f[2:] - f[:-2]) / (2 * dx)
            const twice = typeof uniform === "number" ? 2 * uniform : keep(mul(2, uniform, o));
            div(keep(sub(F([2, null]), F([0, n - 2]), o)), twice, { stream, out: at([1, n - 1]) });
          } else {
            // a * f[:-2] + b * f[1:-1] + c * f[2:], the coefficients from the neighbouring steps dx1 and dx2.
            const dx1 = steps!.slice([0, n - 2]);
            const dx2 = steps!.slice([1, n - 1]);
            const sum12 = keep(add(dx1, dx2, o));
            const shape = f.shape.map((e, d) => (d === axis ? n - 2 : 1));
            const a = reshape(keep(div(keep(neg(dx2, o)), keep(mul(dx1, sum12, o)), o)), shape);
            const b = reshape(keep(div(keep(sub(dx2, dx1, o)), keep(mul(dx1, dx2, o)), o)), shape);
            const c = reshape(keep(div(dx1, keep(mul(dx2, sum12, o)), o)), shape);
            const ab = keep(add(keep(mul(a, F([0, n - 2]), o)), keep(mul(b, F([1, n - 1]), o)), o));
            add(ab, keep(mul(c, F([2, null]), o)), { stream, out: at([1, n - 1]) });
          }
        }
        if (edgeOrder === 1) {
          // (f[1] - f[0]) / dx[0] and (f[-1] - f[-2]) / dx[-1]
          div(keep(sub(F(1), F(0), o)), uniform ?? steps!.slice(0), { stream, out: at(0) });
          div(keep(sub(F(n - 1), F(n - 2), o)), uniform ?? steps!.slice(n - 2), { stream, out: at(n - 1) });
          return;
        }
        // Second order: a * f[0] + b * f[1] + c * f[2] and a * f[-3] + b * f[-2] + c * f[-1].
        let first: [ArrayOperand, ArrayOperand, ArrayOperand];
        let lastThree: [ArrayOperand, ArrayOperand, ArrayOperand];
        if (typeof uniform === "number") {
          first = [-1.5 / uniform, 2 / uniform, -0.5 / uniform];
          lastThree = [0.5 / uniform, -2 / uniform, 1.5 / uniform];
        } else if (uniform !== undefined) {
          const u = uniform;
          first = [keep(div(-1.5, u, o)), keep(div(2, u, o)), keep(div(-0.5, u, o))];
          lastThree = [keep(div(0.5, u, o)), keep(div(-2, u, o)), keep(div(1.5, u, o))];
        } else {
          // NumPy's: dx1, dx2 the first two steps (then the last two).
          const [p, q] = [steps!.slice(0), steps!.slice(1)];
          const pq = keep(add(p, q, o));
          first = [
            keep(div(keep(neg(keep(add(keep(mul(2, p, o)), q, o)), o)), keep(mul(p, pq, o)), o)), // -(2 dx1 + dx2) / (dx1 (dx1 + dx2))
            keep(div(pq, keep(mul(p, q, o)), o)), // (dx1 + dx2) / (dx1 dx2)
            keep(div(keep(neg(p, o)), keep(mul(q, pq, o)), o)), // -dx1 / (dx2 (dx1 + dx2))
          ];
          const [r, t] = [steps!.slice(n - 3), steps!.slice(n - 2)];
          const rt = keep(add(r, t, o));
          lastThree = [
            keep(div(t, keep(mul(r, rt, o)), o)), // dx2 / (dx1 (dx1 + dx2))
            keep(div(keep(neg(rt, o)), keep(mul(r, t, o)), o)), // -(dx2 + dx1) / (dx1 dx2)
            keep(div(keep(add(keep(mul(2, t, o)), r, o)), keep(mul(t, rt, o)), o)), // (2 dx2 + dx1) / (dx2 (dx1 + dx2))
          ];
        }
        const edge = (c: [ArrayOperand, ArrayOperand, ArrayOperand], f0: DeviceArray, f1: DeviceArray, f2: DeviceArray, into: DeviceArray): void => {
          const ab = keep(add(keep(mul(c[0], f0, o)), keep(mul(c[1], f1, o)), o));
          add(ab, keep(mul(c[2], f2, o)), { stream, out: into });
        };
        edge(first, F(0), F(1), F(2), at(0));
        edge(lastThree, F(n - 3), F(n - 2), F(n - 1), at(n - 1));
      });
      return axes.length === 1 ? results[0]! : results;
    });
  } catch (e) {
    for (const r of results) r.close(stream);
    throw e;
  }
}

/** Options of `trapezoid`. */
export interface TrapezoidOptions extends ArrayOperationOptions {
  /**
   * The sample points: 1-d (one per sample along `axis`, or any length whose differences broadcast against the
   * pairs of samples, as NumPy's), or of `y`'s number of axes (its differences along `axis` broadcast against the
   * pairs). Given, `dx` is not used.
   */
  readonly x?: DeviceArray;
  /** The spacing of the samples when `x` is not given (default 1). */
  readonly dx?: number;
  /** The axis integrated along (default -1, the last). */
  readonly axis?: number;
}

/**
 * The integral of `y` along `axis` by the trapezoidal rule, as NumPy 2's `trapezoid`: `sum(d * (y[1:] + y[:-1]) / 2)`
 * along the axis, `d` the differences of `x` (`diff(x)`) or the spacing `dx`. The result has `y`'s shape without the
 * axis (a 0-d array for a 1-d `y`; NumPy gives a scalar) and NumPy's dtype, that of the expression: float64 for
 * integer and bool `y` with a number `dx`, the float or complex dtype of `y` otherwise, promoted with `x`'s when `x`
 * is given (float32 `y` with int32 `x`: float64). Fewer than two samples give 0. Integer samples are added in their
 * own dtype first (`int8` 100 + 100 wraps, as NumPy's), bool ones as `or`. Does not wait for the stream.
 *
 * ```ts
 * trapezoid(y);                            // [1, 2, 3] → 4 (a 0-d float64 array)
 * trapezoid(y, { x });                     // samples at x: [4, 6, 8] → 8 for y [1, 2, 3]
 * trapezoid(m, { dx: 0.5, axis: 0 });      // one integral per column
 * ```
 *
 * @throws AxisError for an axis out of range (a 0-d `y` has none).
 * @throws ShapeMismatchError (a BroadcastError) when `x`'s differences do not broadcast against the pairs of
 * samples, or `x` has neither one axis nor `y`'s number.
 * @throws DeviceMismatchError when `y` and `x` are on different devices.
 */
export function trapezoid(y: DeviceArray, options?: TrapezoidOptions): DeviceArray {
  const what = "trapezoid";
  if (!(y instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(y)}`);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { x?, dx?, axis?, stream? }, got ${describeValue(options)}`);
  checkArrayArgument(y, what, "y");
  if (y.ndim === 0) throw new AxisError(`${what}: y is a 0-d array and has no axis to integrate along; pass an array of at least one axis`);
  const axis = normalizeAxis(options?.axis ?? -1, y.ndim, what);
  const dx = options?.dx ?? 1;
  if (typeof dx !== "number") throw new ArgumentError(`${what}: dx (the spacing) is a number, got ${describeValue(dx)}`);
  const x = options?.x === undefined ? undefined : checkArrayArgument(options.x, what, "x");
  const n = y.shape[axis]!;
  const pairs = y.shape.map((e, d) => (d === axis ? Math.max(n - 1, 0) : e));
  // The shape of x's differences as they meet the pairs of samples (NumPy's broadcasting decides the rest).
  let steps: number[] | undefined;
  if (x !== undefined) {
    if (x.ndim === 1) steps = y.shape.map((_, d) => (d === axis ? Math.max(x.size - 1, 0) : 1));
    else if (x.ndim === y.ndim) steps = x.shape.map((e, d) => (d === axis ? Math.max(e - 1, 0) : e));
    else {
      throw new ShapeMismatchError(`${what}: x has shape [${x.shape.join(", ")}]; give 1-d sample points or an array of y's ${y.ndim} axes (y has shape [${y.shape.join(", ")}])`);
    }
    if (x.ndim === 1 && steps[axis] !== pairs[axis] && steps[axis] !== 1 && pairs[axis] !== 1) {
      throw new ShapeMismatchError(`${what}: x has ${x.size} sample points but y has ${n} samples along axis ${axis}; give one point per sample`);
    }
    broadcastShapes([{ name: "the differences of x", shape: steps }, { name: "the pairs of samples of y", shape: pairs }], what);
  }
  checkOneDevice(what, [["y", y], ["x", x]]);
  const stream = operationStream(what, options, [y, x]);
  return withTemporaries(stream, (keep) => {
    const total = keep(add(y.slice(...along(axis, [1, null])), y.slice(...along(axis, [0, Math.max(n - 1, 0)])), { stream }));
    let weighted: DeviceArray;
    if (x !== undefined) {
      const d = keep(x.ndim === 1 ? diff(x, { stream }) : diff(x, { axis, stream }));
      weighted = keep(mul(x.ndim === 1 ? reshape(d, steps!) : d, total, { stream }));
    } else if (dx === 1 && total.dtype.kind !== "c") {
      // 1 * v is v (and bool's or, made int64 by NumPy's 1 *, divides to the same float64): one pass saved. A
      // complex v keeps the product (NumPy's (1 + 0j) * v makes NaN of an infinite part's partner).
      weighted = total;
    } else {
      // NumPy's dx is a float (1.0): integer and bool sums are multiplied in float64, not in their own dtype.
      const exact = total.dtype.kind === "b" || total.dtype.kind === "i" || total.dtype.kind === "u" ? keep(astype(total, "float64", { stream })) : total;
      weighted = keep(mul(dx, exact, { stream }));
    }
    const halves = keep(div(weighted, 2, { stream }));
    return sum(halves, { axis, stream });
  });
}

/** Options of `unwrap`. */
export interface UnwrapOptions extends ArrayOperationOptions {
  /** Jumps smaller than this are left alone (default `period / 2`; a smaller value acts as `period / 2`). */
  readonly discont?: number;
  /** The axis unwrapped along (default -1, the last). */
  readonly axis?: number;
  /** The period of the values (default 2π). */
  readonly period?: number;
}

/**
 * `p` unwrapped along `axis`, as NumPy's `unwrap`: wherever neighbours differ by more than `max(discont, period / 2)`,
 * the later values are shifted by whole periods so that the difference is its equivalent in `[-period/2, period/2]`.
 * NumPy's algorithm in this library's operations: `dd = diff(p)`, `ddmod = mod(dd + period/2, period) - period/2`
 * (`+period/2` where that gives `-period/2` for a positive `dd`), the correction `ddmod - dd` (0 where `|dd| <
 * discont`), its running sum (`cumsum`) added to `p[1:]`; `p[0]` is kept. The result has `p`'s shape and the dtype
 * `p` promotes to with `period` (a JavaScript number, weak as NumPy's Python scalars: float64 for integer or bool `p`
 * with the default period, `p`'s dtype for float `p` and for integer `p` with an integral period, which unwraps in
 * integers as NumPy does for a Python int). A NaN makes every later value NaN, as in NumPy. Does not wait for the
 * stream.
 *
 * ```ts
 * unwrap(phase);                               // [0, 3, 6.5, 0.5] → [0, 3, 0.2168..., 0.5]
 * unwrap(degrees, { period: 360 });
 * unwrap(m, { axis: 0 });                      // each column
 * ```
 *
 * @throws DTypeError for a complex `p` (NumPy's `mod` has none), or an integer `p` and an integral `period` whose
 * half is outside `p`'s dtype (an unsigned `p` with a period of 2 or more: NumPy's OverflowError).
 * @throws ShapeMismatchError for a 0-d `p`; AxisError for an axis out of range.
 * @throws ArgumentError for a `period` or `discont` that is not a number.
 */
export function unwrap(p: DeviceArray, options?: UnwrapOptions): DeviceArray {
  const what = "unwrap";
  if (!(p instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(p)}`);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { discont?, axis?, period?, stream? }, got ${describeValue(options)}`);
  checkArrayArgument(p, what, "p");
  if (p.ndim === 0) throw new ShapeMismatchError(`${what}: a 0-d array has no axis to unwrap along; pass an array of at least one axis`);
  const axis = normalizeAxis(options?.axis ?? -1, p.ndim, what);
  const period = options?.period ?? 2 * Math.PI;
  if (typeof period !== "number") throw new ArgumentError(`${what}: period is a number, got ${describeValue(period)}`);
  if (options?.discont !== undefined && typeof options.discont !== "number") throw new ArgumentError(`${what}: discont is a number, got ${describeValue(options.discont)}`);
  if (p.dtype.kind === "c") throw new DTypeError(`${what}: p is ${p.dtype.name}; unwrapping takes real values (NumPy's mod has no complex loop): unwrap the angle (angle(p)) instead`);
  // diff(p) has p's dtype (bool: bool), so NumPy's result_type(dd, period) is p's with the period.
  const dtype = operationType([p.dtype, period], what);
  const integral = dtype.kind === "i" || dtype.kind === "u";
  // Python's divmod(period, 2) for an integer dtype; period / 2 otherwise (the boundary always ambiguous then).
  const high = integral ? Math.floor(period / 2) : period / 2;
  const ambiguous = integral ? period - 2 * high === 0 : true;
  const low = -high;
  // The scalars meet arrays of dtype: each must fit it (NumPy's OverflowError), checked before the stream.
  if (integral) operationType([dtype, low, high, period], what);
  const discont = options?.discont ?? period / 2;
  const stream = operationStream(what, options, [p]);
  const n = p.shape[axis]!;
  if (n <= 1 || p.size === 0) return astype(p, dtype, { stream });
  const o = { stream };
  let up: DeviceArray | undefined;
  try {
    return withTemporaries(stream, (keep) => {
      const dd = keep(diff(p, { axis, stream }));
      const ddmod = keep(add(keep(mod(keep(sub(dd, low, o)), period, o)), low, o));
      if (ambiguous) where(keep(logicalAnd(keep(eq(ddmod, low, o)), keep(gt(dd, 0, o)), o)), high, ddmod, { stream, out: ddmod });
      const correction = keep(sub(ddmod, dd, o));
      where(keep(lt(keep(abs(dd, o)), discont, o)), 0, correction, { stream, out: correction });
      const running = keep(cumsum(correction, { axis, stream }));
      up = DeviceArray.empty(p.shape, dtype, o);
      castInto(stream, p.slice(...along(axis, [0, 1])), up.slice(...along(axis, [0, 1])));
      add(p.slice(...along(axis, [1, null])), running, { stream, out: up.slice(...along(axis, [1, null])) });
      return up;
    });
  } catch (e) {
    up?.close(stream);
    throw e;
  }
}

/** Options of `meshgrid`. */
export interface MeshgridOptions extends ArrayOperationOptions {
  /** "xy" (default: Cartesian, the first two outputs' axes swapped, as NumPy's) or "ij" (matrix indexing). */
  readonly indexing?: "xy" | "ij";
  /** Views with extent 1 on every axis but their own, instead of full arrays (default false). */
  readonly sparse?: boolean;
  /**
   * Whether the full arrays are copies (default true); false gives read-only views of the inputs broadcast (stride 0), or of a
   * flattened copy of an input whose strides allow no flat view (that view owns the copy: closing it frees it).
   */
  readonly copy?: boolean;
}

/**
 * Coordinate arrays from 1-d coordinate vectors, as NumPy's `meshgrid`: for inputs of lengths n0, n1, ..., every
 * output has shape [n1, n0, ...] ("xy", the default) or [n0, n1, ...] ("ij"), output i varying along input i's axis.
 * Inputs of more than one axis are read flattened. New arrays (views with `sparse` or `copy: false`).
 *
 * ```ts
 * const [X, Y] = meshgrid([x, y]);               // X[j, i] = x[i], Y[j, i] = y[j]
 * const [I, J] = meshgrid([x, y], { indexing: "ij" });
 * ```
 */
export function meshgrid(arrays: readonly DeviceArray[], options?: MeshgridOptions): DeviceArray[] {
  const what = "meshgrid";
  if (!Array.isArray(arrays)) throw new TypeError(`${what} takes a list of DeviceArrays, not ${describeValue(arrays)}`);
  arrays.forEach((x, i) => {
    if (!(x instanceof DeviceArray)) throw new TypeError(`${what}: input ${i} is a DeviceArray, not ${describeValue(x)}`);
  });
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { indexing?, sparse?, copy?, stream? }, got ${describeValue(options)}`);
  const indexing = options?.indexing ?? "xy";
  if (indexing !== "xy" && indexing !== "ij") throw new ArgumentError(`${what}: indexing is "xy" or "ij", got ${describeValue(indexing)}`);
  const nd = arrays.length;
  if (nd === 0) return [];
  const sizes = arrays.map((x) => x.size);
  // The axis of input i in the outputs: "xy" swaps the first two.
  const axisOf = (i: number): number => (indexing === "xy" && nd > 1 && i < 2 ? 1 - i : i);
  const shape = new Array<number>(nd);
  sizes.forEach((s, i) => (shape[axisOf(i)] = s));
  const stream = operationStream(what, options, arrays);
  return arrays.map((x, i) => {
    const own = new Array<number>(nd).fill(1);
    own[axisOf(i)] = sizes[i]!;
    // Input i seen along its own axis: a view where its strides allow (reshape copies otherwise).
    const along = reshape(x, own, { stream });
    if (options?.sparse === true) return along;
    const wide = broadcastTo(along, shape);
    // Over a copy reshape made (an input whose strides allow no view), the view owns the copy: closing it frees it.
    if (options?.copy === false) return along.base === undefined ? ownedView(along, wide) : wide;
    const out = wide.copy({ stream });
    if (along.base === undefined) along.close(stream); // reshape's own copy (a view always has a base)
    return out;
  });
}
