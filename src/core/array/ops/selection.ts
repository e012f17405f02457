/**
 * Selection of `cuda-ts/array`: `where` (elements from one array or another by a condition) and `clip` (elements
 * limited to bounds), with broadcasting, NumPy's promotion (scalars weak) and an optional `out`.
 *
 * ```ts
 * const relu = where(x.gt(0), x, 0);
 * const unit = x.clip(-1, 1);
 * ```
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayScalar } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { DTypeError } from "../errors.ts";
import { resultType } from "../promotion.ts";
import type { ElementwiseOptions } from "../options.ts";
import { provideArrayMethods, type ArrayOperand } from "../methods.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { ROUNDING_PREAMBLE, castExpression, fromWorking, toWorking, workingType } from "./cast.ts";
import { broadcastOf, cachedKernel, checkOperand, checkOut, launchInto, scalarFor } from "./elementwise.ts";
import { nonzero } from "./indexing.ts";

/** The dtype a lone scalar has when no array gives one (NumPy's defaults: int64, float64, complex128). */
function defaultDType(v: ArrayScalar): DType {
  if (typeof v === "boolean") return dtypes.bool;
  if (typeof v === "bigint") return dtypes.int64;
  if (typeof v === "number") return Number.isInteger(v) ? dtypes.int64 : dtypes.float64;
  return dtypes.complex128;
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
  const r = x instanceof DeviceArray || y instanceof DeviceArray ? resultType([x, y], what) : resultType([defaultDType(x as ArrayScalar), defaultDType(y as ArrayScalar)], what);
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
  const r = resultType([a, ...bounds], what);
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

provideArrayMethods({ clip: (self, low, high, options) => clip(self, low, high, options) });
