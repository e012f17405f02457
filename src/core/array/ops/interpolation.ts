/**
 * NumPy's `interp`: one-dimensional piecewise-linear interpolation of sample points `(xp, fp)` at `x`, as a function
 * of `cuda-ts/array`.
 *
 * ```ts
 * interp(x, xp, fp);                          // float64, x's shape
 * interp(x, xp, fp, { left: 0, right: 0 });   // 0 outside [xp[0], xp[-1]]
 * interp(angles, xp, fp, { period: 360 });    // x and xp taken modulo 360
 * ```
 *
 * One elementwise kernel: for each `x`, the binary search of `searchsorted(xp, x, { side: "right" })` (the same device
 * function, comparing in float64) finds the last `j` with `xp[j] <= x`, and the value is computed from `xp` and `fp`
 * (passed raw) as NumPy's C code computes it, in float64 without fused multiply-adds, so results are NumPy's to the
 * bit: `slope = (fp[j+1] - fp[j]) / (xp[j+1] - xp[j])`, `slope * (x - xp[j]) + fp[j]`; `fp[j]` where `x` is `xp[j]`
 * (and at `xp[-1]`); where that gives NaN (an infinite slope), `slope * (x - xp[j+1]) + fp[j+1]`, then `fp[j]` if the
 * two values are equal. A NaN `x` gives NaN. Complex `fp` interpolates the real and imaginary parts apart, with
 * NumPy's `(fp[j+1] - fp[j]) * (1 / (xp[j+1] - xp[j]))` slopes.
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { DTypeError, ShapeMismatchError } from "../errors.ts";
import type { ArrayOperand } from "../methods.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { add, mod, sub } from "./arithmetic.ts";
import { astype, castExpression } from "./cast.ts";
import { cachedKernel, checkArrayArgument, checkOneDevice, checkOperand, launchInto } from "./elementwise.ts";
import { take } from "./indexing.ts";
import { searchPreamble } from "./search.ts";
import { concatenate } from "./shape.ts";
import { argsort } from "./sort.ts";

/** Options of `interp`. */
export interface InterpOptions extends ArrayOperationOptions {
  /** The value for `x` below `xp[0]` (default `fp[0]`): a number, or `[re, im]` for a complex `fp`. */
  readonly left?: number | readonly [number, number];
  /** The value for `x` above `xp[-1]` (default `fp[-1]`): a number, or `[re, im]` for a complex `fp`. */
  readonly right?: number | readonly [number, number];
  /**
   * The period of the x-coordinates (a finite non-zero number; its sign is ignored): `x` and `xp` are taken modulo it
   * (in float64), `xp` need not be increasing, and `left` and `right` are ignored, as NumPy's.
   */
  readonly period?: number;
}

/**
 * The device functions of the interpolation (exported for tests: no GPU needed): `_ct_interp(x, xp, fp, n, lval,
 * rval)`, the value at `x` (a double) of the `n` sample points in `xp` (of dtype `txp`) and `fp` (of dtype `tfp`),
 * as `r` (float64, or complex128 for complex `fp`), with `searchPreamble`'s search on the right side in float64.
 */
export function interpPreamble(txp: DType, tfp: DType, r: DType): string {
  const R = r.ctype;
  const complex = r.kind === "c";
  const lines = [
    searchPreamble(txp, dtypes.float64, "right"),
    `__device__ __forceinline__ double _ct_xp(const ${txp.ctype}* __restrict__ xp, const long long k) { return ${castExpression("xp[k]", txp, dtypes.float64)}; }`,
    `__device__ __forceinline__ ${R} _ct_fp(const ${tfp.ctype}* __restrict__ fp, const long long k) { return ${castExpression("fp[k]", tfp, r)}; }`,
    "// One real value between (xj, fj) and (xj1, fj1) at x, as NumPy's arr_interp: no fused multiply-add; where the",
    "// line from the left gives NaN, the line from the right, then fj if the two values are equal.",
    "__device__ __forceinline__ double _ct_line(const double slope, const double x, const double xj, const double xj1, const double fj, const double fj1) {",
    "  double y = __dadd_rn(__dmul_rn(slope, x - xj), fj);",
    "  if (y != y) {",
    "    y = __dadd_rn(__dmul_rn(slope, x - xj1), fj1);",
    "    if (y != y && fj == fj1) y = fj;",
    "  }",
    "  return y;",
    "}",
    `__device__ ${R} _ct_interp(const double x, const ${txp.ctype}* __restrict__ xp, const ${tfp.ctype}* __restrict__ fp, const long long n, const ${R} lval, const ${R} rval) {`,
    "  if (n == 1) {",
    "    const double x0 = _ct_xp(xp, 0);",
    "    return x < x0 ? lval : (x > x0 ? rval : _ct_fp(fp, 0));",
    "  }",
    complex ? `  if (x != x) return ${R}(x, 0.0);` : "  if (x != x) return x;",
    "  if (x > _ct_xp(xp, n - 1)) return rval;",
    "  if (x < _ct_xp(xp, 0)) return lval;",
    "  // The last j with xp[j] <= x: searchsorted on the right, less one.",
    "  const long long j = _ct_search(xp, x, n) - 1;",
    "  if (j >= n - 1) return _ct_fp(fp, n - 1);",
    "  const double xj = _ct_xp(xp, j);",
    `  const ${R} fj = _ct_fp(fp, j);`,
    "  if (xj == x) return fj;",
    "  const double xj1 = _ct_xp(xp, j + 1);",
    `  const ${R} fj1 = _ct_fp(fp, j + 1);`,
    ...(complex
      ? [
          "  const double inv = 1.0 / (xj1 - xj);",
          `  return ${R}(_ct_line((fj1.real() - fj.real()) * inv, x, xj, xj1, fj.real(), fj1.real()), _ct_line((fj1.imag() - fj.imag()) * inv, x, xj, xj1, fj.imag(), fj1.imag()));`,
        ]
      : ["  return _ct_line((fj1 - fj) / (xj1 - xj), x, xj, xj1, fj, fj1);"]),
    "}",
    "",
  ];
  return lines.join("\n");
}

/**
 * The interpolation kernel (exported for tests: no GPU needed): `raw txp xp, raw tfp fp, tx x, int64 len` and, where
 * given, `r left`, `r right` in, `r z` out; `fp[0]` and `fp[len - 1]` stand in for a missing `left` and `right`.
 */
export function interpKernel(txp: DType, tfp: DType, tx: DType, r: DType, left: boolean, right: boolean): ElementwiseKernel {
  return cachedKernel(`interp|${txp.name}|${tfp.name}|${tx.name}|${r.name}|${left ? "l" : ""}${right ? "r" : ""}`, () => {
    const inParams = [`raw ${txp.name} xp`, `raw ${tfp.name} fp`, `${tx.name} x`, "int64 len", ...(left ? [`${r.name} left`] : []), ...(right ? [`${r.name} right`] : [])];
    const lval = left ? "left" : "_ct_fp(fp, 0)";
    const rval = right ? "right" : "_ct_fp(fp, len - 1)";
    const body = `z = _ct_interp(${castExpression("x", tx, dtypes.float64)}, xp, fp, len, ${lval}, ${rval})`;
    const ends = `${left ? "l" : ""}${right ? "r" : ""}`;
    return new ElementwiseKernel(inParams.join(", "), `${r.name} z`, body, `cuda_ts_interp_${txp.name}_${tfp.name}_${tx.name}${ends === "" ? "" : `_${ends}`}`, {
      preamble: interpPreamble(txp, tfp, r),
    });
  });
}

/** `left` or `right` as the kernel's scalar of the result's dtype `r`: a number, or `[re, im]` for a complex result. */
function checkEnd(v: unknown, r: DType, what: string, name: string): ArrayScalar | undefined {
  if (v === undefined) return undefined;
  if (typeof v === "number") return r.kind === "c" ? [v, 0] : v;
  if (Array.isArray(v) && v.length === 2 && v.every((p) => typeof p === "number")) {
    if (r.kind !== "c") throw new DTypeError(`${what}: ${name} is complex ([${String(v)}]) but fp is real; give a number, or a complex fp`);
    return [v[0] as number, v[1] as number];
  }
  throw new ArgumentError(`${what}: ${name} is a number${r.kind === "c" ? " or [re, im]" : ""}, got ${describeValue(v)}`);
}

/** `x` modulo `p` (positive) as NumPy's float64 remainder (the divisor's sign; a zero is +0). */
function hostRemainder(x: number, p: number): number {
  const m = x % p;
  return m === 0 ? 0 : m < 0 ? m + p : m;
}

/**
 * The one-dimensional piecewise-linear interpolant of the sample points `(xp, fp)` at `x`, as NumPy's `interp`: a
 * float64 array of `x`'s shape (a 0-d array for a scalar `x`), complex128 for a complex `fp`. `xp` is 1-d and
 * increasing (not checked, as NumPy does not check it), `fp` 1-d of the same length; `x` below `xp[0]` gives `left`
 * (default `fp[0]`), above `xp[-1]` gives `right` (default `fp[-1]`), NaN gives NaN. The values are NumPy's to the bit
 * (see the module's description). With `period`, `x` and `xp` are taken modulo `|period|` in float64, `xp` is sorted
 * (stably, where NumPy's sort is not: this differs only for `xp` values equal modulo the period) and extended by its
 * last point less the period before and its first point plus the period after, as NumPy's; `left` and `right` are
 * ignored then. A new array; does not wait for the stream.
 *
 * ```ts
 * const xp = ca.asarray([1, 2, 3], { stream });
 * const fp = ca.asarray([3, 2, 0], { stream });
 * ca.interp(ca.asarray([0, 1, 1.5, 2.72, 3.14], { stream }), xp, fp);   // [3, 3, 2.5, 0.56, 0]
 * ca.interp(3.14, xp, fp, { right: -99 });                               // -99 (a 0-d array)
 * ```
 *
 * @throws ShapeMismatchError when `xp` or `fp` is not 1-d, `xp` is empty, or `fp`'s length is not `xp`'s.
 * @throws DTypeError for a complex `x` or `xp`, or a complex `left` or `right` with a real `fp`.
 * @throws ArgumentError for a `left` or `right` that is not a number (or `[re, im]`), or a `period` that is zero or
 * not a finite number.
 * @throws DeviceMismatchError when the arrays are on different devices.
 */
export function interp(x: ArrayOperand, xp: DeviceArray, fp: DeviceArray, options?: InterpOptions): DeviceArray {
  const what = "interp";
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { left?, right?, period?, stream? }, got ${describeValue(options)}`);
  checkOperand(x, what, "x");
  if (x instanceof DeviceArray) checkArrayArgument(x, what, "x");
  checkArrayArgument(xp, what, "xp");
  checkArrayArgument(fp, what, "fp");
  if (xp.ndim !== 1) throw new ShapeMismatchError(`${what}: xp is a 1-d array of sample points, got shape [${xp.shape.join(", ")}]`);
  if (fp.ndim !== 1) throw new ShapeMismatchError(`${what}: fp is a 1-d array of sample values, got shape [${fp.shape.join(", ")}]`);
  if (xp.size === 0) throw new ShapeMismatchError(`${what}: xp is empty; give at least one sample point`);
  if (fp.size !== xp.size) throw new ShapeMismatchError(`${what}: fp has ${fp.size} values but xp has ${xp.size} points; give one value per point`);
  if (xp.dtype.kind === "c") throw new DTypeError(`${what}: xp is ${xp.dtype.name}; the sample points are real`);
  const tx = x instanceof DeviceArray ? x.dtype : Array.isArray(x) ? dtypes.complex128 : dtypes.float64;
  if (tx.kind === "c") throw new DTypeError(`${what}: x is ${x instanceof DeviceArray ? x.dtype.name : "a complex number"}; interpolation is at real points`);
  const r = fp.dtype.kind === "c" ? dtypes.complex128 : dtypes.float64;
  const period = options?.period;
  if (period !== undefined && (typeof period !== "number" || !Number.isFinite(period) || period === 0)) {
    throw new ArgumentError(`${what}: period is a finite non-zero number, got ${describeValue(period)}`);
  }
  const left = period === undefined ? checkEnd(options?.left, r, what, "left") : undefined;
  const right = period === undefined ? checkEnd(options?.right, r, what, "right") : undefined;
  const values = x instanceof DeviceArray ? x : undefined;
  const arrays = [["x", values], ["xp", xp], ["fp", fp]] as const;
  checkOneDevice(what, arrays);
  const stream = operationStream(what, options, [values, xp, fp]);
  checkOneDevice(what, arrays, stream);
  const temps: DeviceArray[] = [];
  const keep = (t: DeviceArray): DeviceArray => {
    temps.push(t);
    return t;
  };
  try {
    let at: DeviceArray | number = values ?? Number(x as number | bigint | boolean);
    let points = xp;
    let samples = fp;
    if (period !== undefined) {
      // NumPy's periodic form: x and xp modulo the period in float64, xp sorted, one point added at each end.
      const p = Math.abs(period);
      const n = xp.size;
      const wide = (a: DeviceArray): DeviceArray => (a.dtype === dtypes.float64 ? a : keep(astype(a, "float64", { stream })));
      at = values === undefined ? hostRemainder(at as number, p) : keep(mod(wide(values), p, { stream }));
      const reduced = keep(mod(wide(xp), p, { stream }));
      const order = keep(argsort(reduced, { stream }));
      const sortedXp = keep(take(reduced, order, { stream }));
      const sortedFp = keep(take(fp, order, { stream }));
      const first = keep(add(sortedXp.subarray(0, 1), p, { stream }));
      const last = keep(sub(sortedXp.subarray(n - 1, n), p, { stream }));
      points = keep(concatenate([last, sortedXp, first], { stream }));
      samples = keep(concatenate([sortedFp.subarray(n - 1, n), sortedFp, sortedFp.subarray(0, 1)], { stream }));
    }
    // The kernel reads the sample points and values raw: contiguous copies of other views.
    if (!points.isContiguous) points = keep(points.copy({ stream }));
    if (!samples.isContiguous) samples = keep(samples.copy({ stream }));
    const k = interpKernel(points.dtype, samples.dtype, at instanceof DeviceArray ? at.dtype : dtypes.float64, r, left !== undefined, right !== undefined);
    const args: ArrayOperand[] = [points, samples, at, BigInt(points.size), ...(left !== undefined ? [left] : []), ...(right !== undefined ? [right] : [])];
    return launchInto(k, stream, args, at instanceof DeviceArray ? undefined : DeviceArray.empty([], r, { stream }));
  } finally {
    for (const t of temps) t.close(stream);
  }
}
