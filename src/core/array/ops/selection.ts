/**
 * Selection of `cuda-ts/array`: `where` (elements from one array or another by a condition), `choose` (elements from
 * one of several arrays by an index array) and `clip` (elements limited to bounds), with broadcasting, NumPy's
 * promotion (scalars weak) and an optional `out`.
 *
 * ```ts
 * const relu = where(x.gt(0), x, 0);
 * const picked = choose(k, [a, b, c]);                  // a, b or c by k's entries 0, 1, 2
 * const unit = x.clip(-1, 1);
 * ```
 *
 * @module
 */
import { DeviceArray, checkWritable, encodeElement, operationStream, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { DTypeError, ShapeMismatchError } from "../errors.ts";
import { broadcastShapes, showShape } from "../broadcast.ts";
import { elementCount, sameShape } from "../layout.ts";
import { operationType } from "../promotion.ts";
import type { ElementwiseOptions } from "../options.ts";
import { provideArrayMethods, type ArrayOperand } from "../methods.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { eq, ge, mod } from "./arithmetic.ts";
import { ROUNDING_PREAMBLE, castExpression, castInto, fromWorking, toWorking, workingType } from "./cast.ts";
import { castScalar, scalarDType } from "./creation.ts";
import { broadcastOf, cachedKernel, checkOperand, checkOut, launchInto, scalarFor } from "./elementwise.ts";
import { checkIndexRange, nonzero } from "./indexing.ts";
import { mayShareMemory } from "./overlap.ts";
import { broadcastTo, viewWith } from "./shape.ts";

/** Options of `choose`: what an entry out of range does, where the result goes, and the stream. */
export interface ChooseOptions extends ArrayOperationOptions {
  /**
   * "raise" (default: an entry outside [0, n) is found on the device and is an IndexError at the stream's next
   * synchronised read; the result holds choice 0 there), "wrap" (modulo n) or "clip" (clamped to [0, n - 1]).
   */
  readonly mode?: "raise" | "wrap" | "clip";
  /** The array the result is written into: the broadcast shape, any dtype (converted into, as NumPy's). */
  readonly out?: DeviceArray;
}

/**
 * `x` where `condition` is true (non-zero), `y` elsewhere: the three broadcast together; the result has the dtype `x`
 * and `y` promote to (scalars weak; two scalars take NumPy's defaults: int64, float64, complex128).
 *
 * ```ts
 * const relu = where(x.gt(0), x, 0);
 * ```
 */
export function where(condition: ArrayOperand, x: ArrayOperand, y: ArrayOperand, options?: ElementwiseOptions): DeviceArray;
/** With the condition alone: the indices of its non-zero elements, one int64 array per axis (as {@link nonzero}). */
export function where(condition: DeviceArray): DeviceArray[];
export function where(condition: ArrayOperand, x?: ArrayOperand, y?: ArrayOperand, options?: ElementwiseOptions): DeviceArray | DeviceArray[] {
  const what = "where";
  if (x === undefined && y === undefined && options === undefined) {
    if (!(condition instanceof DeviceArray)) throw new TypeError(`where(condition) takes a DeviceArray, not ${describeValue(condition)}`);
    return nonzero(condition);
  }
  if (x === undefined || y === undefined) throw new TypeError("where takes a condition alone (the indices of its non-zero elements) or a condition, x and y");
  checkOperand(condition, what, "condition");
  checkOperand(x, what, "x");
  checkOperand(y, what, "y");
  if (!(condition instanceof DeviceArray) && !(x instanceof DeviceArray) && !(y instanceof DeviceArray)) {
    throw new DTypeError("where: at least one of condition, x and y must be a DeviceArray (the shape and the stream come from it)");
  }
  const r = x instanceof DeviceArray || y instanceof DeviceArray ? operationType([x, y], what) : operationType([scalarDType(x as ArrayScalar), scalarDType(y as ArrayScalar)], what);
  const shape = broadcastOf([condition, x, y], ["condition", "x", "y"], what);
  const out = checkOut(options, shape, r, what);
  const tc = condition instanceof DeviceArray ? condition.dtype : dtypes.bool;
  const tx = x instanceof DeviceArray ? x.dtype : r;
  const ty = y instanceof DeviceArray ? y.dtype : r;
  const to = out?.dtype ?? r;
  const k = cachedKernel(`where|${tc.name}|${tx.name}|${ty.name}|${r.name}|${to.name}`, () => {
    const pick = (v: string, t: DType): string => (r === to ? castExpression(v, t, to) : castExpression(castExpression(v, t, r), r, to));
    const body = `z = ${castExpression("c", tc, dtypes.bool)} ? ${pick("x", tx)} : ${pick("y", ty)}`;
    return new ElementwiseKernel(`${tc.name} c, ${tx.name} x, ${ty.name} y`, `${to.name} z`, body, `cuda_ts_where_${tc.name}_${tx.name}_${ty.name}_${r.name}_${to.name}`);
  });
  const stream = operationStream(what, options, [condition, x, y, out]);
  const args = [condition instanceof DeviceArray ? condition : scalarFor(condition, dtypes.bool), x instanceof DeviceArray ? x : scalarFor(x, r), y instanceof DeviceArray ? y : scalarFor(y, r)];
  return launchInto(k, stream, args, out);
}

/**
 * Each element limited to `[low, high]` (`minimum(maximum(a, low), high)`: NaN stays NaN; low above high gives high);
 * either bound may be null (no limit) or an array that broadcasts. The dtype of `a` and the bounds promoted (scalars
 * weak). Not for complex. Also `a.clip(low, high)`.
 */
export function clip(a: DeviceArray, low: ArrayOperand | null, high: ArrayOperand | null, options?: ElementwiseOptions): DeviceArray {
  const what = "clip";
  if (!(a instanceof DeviceArray)) throw new TypeError(`clip takes a DeviceArray, not ${describeValue(a)}`);
  if (low !== null) checkOperand(low, what, "low");
  if (high !== null) checkOperand(high, what, "high");
  const bounds = [low, high].filter((v): v is ArrayOperand => v !== null);
  const r = operationType([a, ...bounds], what);
  if (r.kind === "c") throw new DTypeError("clip: complex numbers are not ordered; clip their real parts or magnitudes");
  const shape = broadcastOf([a, ...bounds], ["a", ...(low !== null ? ["low"] : []), ...(high !== null ? ["high"] : [])], what);
  const out = checkOut(options, shape, r, what);
  const tl = low === null ? undefined : low instanceof DeviceArray ? low.dtype : r;
  const th = high === null ? undefined : high instanceof DeviceArray ? high.dtype : r;
  const to = out?.dtype ?? r;
  const k = cachedKernel(`clip|${a.dtype.name}|${tl?.name ?? "-"}|${th?.name ?? "-"}|${r.name}|${to.name}`, () => {
    const w = workingType(r);
    const params = [`${a.dtype.name} x`, ...(tl !== undefined ? [`${tl.name} lo`] : []), ...(th !== undefined ? [`${th.name} hi`] : [])];
    let v = "_cx";
    const lines = [`const ${w} _cx = ${toWorking("x", a.dtype, r)};`];
    if (tl !== undefined) {
      lines.push(`const ${w} _cl = ${toWorking("lo", tl, r)};`);
      v = `((${v} > _cl || ${v} != ${v}) ? ${v} : _cl)`;
      lines.push(`const ${w} _cm = ${v};`);
      v = "_cm";
    }
    if (th !== undefined) {
      lines.push(`const ${w} _ch = ${toWorking("hi", th, r)};`);
      v = `((${v} < _ch || ${v} != ${v}) ? ${v} : _ch)`;
    }
    lines.push(`z = ${fromWorking(v, r, to)}`);
    return new ElementwiseKernel(params.join(", "), `${to.name} z`, lines.join(" "), `cuda_ts_clip_${a.dtype.name}_${tl?.name ?? "none"}_${th?.name ?? "none"}_${r.name}_${to.name}`, {
      preamble: ROUNDING_PREAMBLE,
    });
  });
  const stream = operationStream(what, options, [a, ...bounds, out]);
  const args: ArrayOperand[] = [a];
  if (low !== null) args.push(low instanceof DeviceArray ? low : scalarFor(low, r));
  if (high !== null) args.push(high instanceof DeviceArray ? high : scalarFor(high, r));
  return launchInto(k, stream, args, out);
}

// ---- choose ----

/** The largest entry an index of `dtype` holds (no choice beyond it can be picked). */
function largestEntry(dtype: DType): number {
  if (dtype.kind === "b") return 1;
  if (dtype.itemsize >= 8) return Number.MAX_SAFE_INTEGER;
  return dtype.kind === "u" ? 2 ** (8 * dtype.itemsize) - 1 : 2 ** (8 * dtype.itemsize - 1) - 1;
}

/** `choices` as a list: a DeviceArray's views along its first axis, or the list itself, checked. */
function choiceList(choices: unknown, what: string): ArrayOperand[] {
  if (choices instanceof DeviceArray) {
    if (choices.isClosed) throw new ShapeMismatchError(`${what}: the choices array (${choices.dtype.name} ${showShape(choices.shape)}) was closed`);
    if (choices.ndim === 0) throw new ArgumentError(`${what}: a 0-d choices array holds no list of choices; pass a list of arrays, or an array whose first axis counts the choices`);
    const [n, ...rest] = choices.shape;
    return [...Array(n!).keys()].map((k) => viewWith(choices, rest, choices.strides.slice(1), choices.byteOffset + k * choices.strides[0]! * choices.itemsize));
  }
  if (!Array.isArray(choices)) throw new TypeError(`${what}: choices is a list of arrays or scalars, or one array whose first axis counts them; got ${describeValue(choices)}`);
  choices.forEach((x: unknown, k) => {
    if (x instanceof DeviceArray) {
      if (x.isClosed) throw new ShapeMismatchError(`${what}: choice ${k} (${x.dtype.name} ${showShape(x.shape)}) was closed`);
    } else if (typeof x !== "number" && typeof x !== "bigint" && typeof x !== "boolean" && !Array.isArray(x)) {
      throw new TypeError(`${what}: choice ${k} is a DeviceArray or a scalar, not ${describeValue(x)}`);
    }
  });
  return choices as ArrayOperand[];
}

/**
 * The element of choice `a[i]` at each position, as NumPy's `choose`: `a` is an integer (or bool) array whose entries
 * count from 0, `choices` a list of arrays or scalars (or one array whose first axis counts them), all broadcast
 * together; the dtype is the choices' promoted (scalars weak). `mode` decides what an entry outside [0, n) does:
 * "raise" (default; found on the device, as `take`'s indices, and an IndexError at the stream's next synchronised
 * read; NumPy raises a ValueError at once), "wrap" (modulo n) or "clip" (clamped). The result is choice 0, then each
 * later choice written where `a` equals its number (`eq` and an in-place `where` per choice, into `out` or a new
 * array; through a temporary when `out` shares memory with an operand).
 *
 * ```ts
 * choose(k, [a, b, c]);                         // k [2, 0, 1] → [c[0], a[1], b[2]]
 * choose(k, [x, 0], { mode: "clip" });          // x where k <= 0, 0 where k >= 1
 * ```
 */
export function choose(a: DeviceArray, choices: DeviceArray | readonly ArrayOperand[], options?: ChooseOptions): DeviceArray {
  const what = "choose";
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray of indices first, not ${describeValue(a)}`);
  if (a.isClosed) throw new ShapeMismatchError(`${what}: the index array (${a.dtype.name} ${showShape(a.shape)}) was closed`);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { mode?, out?, stream? }, got ${describeValue(options)}`);
  const mode = options?.mode ?? "raise";
  if (mode !== "raise" && mode !== "wrap" && mode !== "clip") throw new TypeError(`${what}: mode is "raise", "wrap" or "clip", got ${describeValue(mode)}`);
  if (a.dtype.kind !== "i" && a.dtype.kind !== "u" && a.dtype.kind !== "b") {
    throw new DTypeError(`${what}: the index array is an integer array (its entries pick the choices), got ${a.dtype.name}; convert it with astype("int64")`);
  }
  if (a.dtype === dtypes.uint64) throw new DTypeError(`${what}: a uint64 index array does not convert safely to int64 (NumPy refuses it too); convert it with astype("int64")`);
  const list = choiceList(choices, what);
  const n = list.length;
  if (n === 0) throw new ArgumentError(`${what}: no choices; give at least one array or scalar to choose from`);
  const arrays = list.filter((x): x is DeviceArray => x instanceof DeviceArray);
  const dtype: DType = arrays.length > 0 ? operationType(list, what) : operationType(list.map((x) => scalarDType(x as ArrayScalar)), what);
  for (const x of list) if (!(x instanceof DeviceArray)) encodeElement(dtype, castScalar(x, dtype));
  const shape = broadcastShapes(
    [{ name: "the index array", shape: a.shape }, ...list.flatMap((x, k) => (x instanceof DeviceArray ? [{ name: `choice ${k}`, shape: x.shape }] : []))],
    what,
  );
  const given = options?.out;
  if (given !== undefined) {
    if (!(given instanceof DeviceArray)) throw new TypeError(`${what}: out is a DeviceArray, not ${describeValue(given)}`);
    if (given.isClosed) throw new ShapeMismatchError(`${what}: out (${given.dtype.name} ${showShape(given.shape)}) was closed`);
    checkWritable(given, `${what}: out`);
    if (!sameShape(given.shape, shape)) throw new ShapeMismatchError(`${what}: out has shape ${showShape(given.shape)} but the result has shape ${showShape(shape)}; give out the broadcast shape`);
  }
  const stream = operationStream(what, options, [a, ...arrays, ...(given !== undefined ? [given] : [])]);
  if (elementCount(shape) === 0) return given ?? DeviceArray.empty(shape, dtype, { stream });
  // The result is built in place: straight into out when it is of the result's dtype and shares no memory with an
  // operand (a later choice would read what an earlier one wrote), else in a new array.
  const direct = given !== undefined && given.dtype === dtype && !mayShareMemory(given, a) && !arrays.some((x) => mayShareMemory(given, x));
  const temps: DeviceArray[] = [];
  const res = direct ? given : DeviceArray.empty(shape, dtype, { stream });
  try {
    let idx = a;
    if (a.dtype === dtypes.bool) {
      idx = DeviceArray.empty(a.shape, dtypes.uint8, { stream });
      temps.push(idx);
      castInto(stream, a, idx);
    }
    if (mode === "raise") checkIndexRange(what, idx, n, stream);
    else if (mode === "wrap" && n > 1) {
      const w = DeviceArray.empty(a.shape, dtypes.int64, { stream });
      temps.push(w);
      castInto(stream, idx, w);
      mod(w, n, { stream, out: w });
      idx = w;
    }
    const first = list[0]!;
    if (first instanceof DeviceArray) castInto(stream, broadcastTo(first, shape), res);
    else res.fill(castScalar(first, dtype), { stream });
    // Choice k where the entry is k ("clip": the last choice also where it is larger; below 0 keeps choice 0).
    // (No entry of `a`'s dtype reaches past its largest value: bool entries are 0 or 1; "wrap" brought them below n.)
    const top = Math.min(n - 1, mode === "wrap" ? n - 1 : largestEntry(a.dtype));
    if (top >= 1) {
      const mask = DeviceArray.empty(idx.shape, dtypes.bool, { stream });
      temps.push(mask);
      for (let k = 1; k <= top; k++) {
        if (mode === "clip" && k === n - 1) ge(idx, k, { stream, out: mask });
        else eq(idx, k, { stream, out: mask });
        where(mask, list[k]!, res, { stream, out: res });
      }
    }
    if (given !== undefined && res !== given) {
      castInto(stream, res, given);
      res.close(stream);
      return given;
    }
    return res;
  } catch (e) {
    if (res !== given) res.close(stream);
    throw e;
  } finally {
    for (const t of temps) t.close(stream);
  }
}

provideArrayMethods({ clip: (self, low, high, options) => clip(self, low, high, options) });
