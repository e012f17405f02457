/**
 * NumPy's `cov` and `corrcoef` (without frequency or analytic weights): the variables' means subtracted from a
 * contiguous copy of the observations, then one matrix product `X · Xᴴ` (cuBLAS) divided by `N - ddof`; `corrcoef`
 * divides that by the outer product of the standard deviations on its diagonal. Every check comes before anything is
 * queued on the stream.
 *
 * ```ts
 * const c = cov(samples);                          // [variables, observations] → [variables, variables]
 * const r = corrcoef(table, { rowvar: false });    // one variable per column
 * ```
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypeOf, dtypes, type DType } from "../dtype.ts";
import { DTypeError, ShapeMismatchError } from "../errors.ts";
import type { DTypeArgument } from "../options.ts";
import { mean } from "../reductions.ts";
import { astype } from "../ops/cast.ts";
import { div, sub } from "../ops/arithmetic.ts";
import { conj, imag, real, sqrt } from "../ops/math.ts";
import { clip } from "../ops/selection.ts";
import { concatenate, diagonal, ownedView, viewWith } from "../ops/shape.ts";
import { matmul } from "./linalg.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { checkFlag, checkOptions } from "./arguments.ts";

/** Options of {@link cov}. */
export interface CovOptions extends ArrayOperationOptions {
  /** More variables, stacked below `m`'s (the same layout as `m`, and the same number of observations). */
  readonly y?: DeviceArray;
  /** Whether each row is a variable and each column an observation (default true); false: the other way round. */
  readonly rowvar?: boolean;
  /** Whether the divisor is `N` (true) rather than `N - 1` (default false); a `ddof` overrides it. */
  readonly bias?: boolean;
  /** An integer: the divisor is `N - ddof` (default 1, or 0 with `bias`). */
  readonly ddof?: number;
  /** The dtype the copy of the observations and the result are in: a float or complex one (default: float64, complex128 for complex input). */
  readonly dtype?: DTypeArgument;
}

/** Options of {@link corrcoef}. */
export interface CorrcoefOptions extends ArrayOperationOptions {
  /** More variables, stacked below `x`'s (the same layout as `x`, and the same number of observations). */
  readonly y?: DeviceArray;
  /** Whether each row is a variable and each column an observation (default true); false: the other way round. */
  readonly rowvar?: boolean;
}

/** `a` as a [variables, observations] view, as NumPy's `cov` reads it (a 1-d array is one variable). */
function variables(a: unknown, name: string, rowvar: boolean, what: string): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what}: ${name} is a DeviceArray, not ${describeValue(a)}`);
  if (a.ndim > 2) throw new ShapeMismatchError(`${what}: ${name} has shape [${a.shape.join(", ")}]; pass a 1-d or 2-d array (one variable per row, or per column with rowvar false)`);
  const rows = a.ndim === 2 ? a : viewWith(a, [1, a.size], a.ndim === 1 ? [0, a.strides[0]!] : [0, 0]);
  return !rowvar && rows.shape[0] !== 1 ? rows.T : rows;
}

/** The dtype `cov` computes in: the requested one (float or complex), else float64 (complex128 for complex input), as NumPy's. */
function covarianceDType(requested: unknown, operands: readonly DeviceArray[], what: string): DType {
  const complex = operands.some((a) => a.dtype.kind === "c");
  if (requested === undefined) return complex ? dtypes.complex128 : dtypes.float64;
  const d = dtypeOf(requested as DTypeArgument);
  if (d.kind !== "f" && d.kind !== "c") throw new DTypeError(`${what}: dtype is ${d.name}, but the means and covariances are fractions; pass a float or complex dtype`);
  if (complex && d.kind !== "c") throw new DTypeError(`${what}: the input is complex and dtype ${d.name} would drop the imaginary parts; pass a complex dtype, or take real() first`);
  return d;
}

/**
 * The covariance matrix of the variables of `m` (and `y`), as NumPy's `cov` without weights: each row of a 2-d `m`
 * is a variable and each column an observation (`rowvar: false`: the other way round); a 1-d `m` is one variable.
 * The result is `[V, V]` for V variables, `c[i, j] = Σₖ (xᵢₖ - x̄ᵢ)·conj(xⱼₖ - x̄ⱼ) / (N - ddof)` over the N
 * observations; a 0-d array for a single variable, as NumPy's. `ddof` defaults to 1 (0 with `bias`); where
 * `N - ddof <= 0` the division is by 0 (infinities and NaN), as NumPy's (which warns).
 *
 * Dtypes: float64 for bool, integer and float input (float16 and float32 too, as NumPy's), complex128 for complex;
 * `dtype` asks for another float or complex one. One contiguous copy of the observations, one mean, one product.
 *
 * Errors, before anything is queued: a TypeError for a non-array or a non-boolean flag, a ShapeMismatchError for an
 * array of more than 2 axes or a `y` of another number of observations, an ArgumentError for a `ddof` that is not an
 * integer, a DTypeError for a `dtype` that is not float or complex (or is real for complex input).
 *
 * ```ts
 * const c = cov(x);                               // x: [3, 100], 3 variables → [3, 3] float64
 * const p = cov(a, { y: b, bias: true });         // a's and b's variables together, divided by N
 * const s = cov(samples, { rowvar: false });      // samples: [observations, variables]
 * ```
 */
export function cov(m: DeviceArray, options?: CovOptions): DeviceArray {
  return covariance("cov", m, options);
}

/** {@link cov}, its errors named after `what` (cov, or corrcoef, which builds on it). */
function covariance(what: "cov" | "corrcoef", m: DeviceArray, options: CovOptions | undefined): DeviceArray {
  const o = checkOptions(options, what, what === "cov" ? "y?, rowvar?, bias?, ddof?, dtype?, stream?" : "y?, rowvar?, stream?");
  const rowvar = checkFlag(o.rowvar, "rowvar", true, what);
  const bias = checkFlag(o.bias, "bias", false, what);
  const ddof = o.ddof ?? (bias ? 0 : 1);
  if (typeof ddof !== "number" || !Number.isInteger(ddof)) throw new ArgumentError(`${what}: ddof is an integer, got ${describeValue(ddof)}`);
  const x = variables(m, "m", rowvar, what);
  const y = o.y === undefined ? undefined : variables(o.y, "y", rowvar, what);
  const n = x.shape[1]!;
  if (y !== undefined && y.shape[1] !== n) {
    throw new ShapeMismatchError(`${what}: m has ${n} observations but y has ${y.shape[1]}; pass a y of ${n} observations${rowvar ? " (columns)" : " (rows, with rowvar false)"}`);
  }
  const operands = y === undefined ? [m] : [m, o.y as DeviceArray];
  const dtype = covarianceDType(o.dtype, operands, what);
  const stream = operationStream(what, options, operands);
  // The observations, a contiguous copy in the result's dtype: centred in place.
  using centred = y === undefined ? astype(x, dtype, { stream }) : concatenate([x, y], { axis: 0, dtype, stream });
  using means = mean(centred, { axis: 1, keepdims: true, stream });
  sub(centred, means, { stream, out: centred });
  using conjugate = dtype.kind === "c" ? conj(centred, { stream }) : undefined;
  const c = matmul(centred, (conjugate ?? centred).T, { stream });
  try {
    div(c, Math.max(n - ddof, 0), { stream, out: c });
  } catch (e) {
    c.close(stream);
    throw e;
  }
  return c.shape[0] === 1 ? ownedView(c, viewWith(c, [], [])) : c;
}

/**
 * The Pearson correlation coefficients of the variables of `x` (and `y`), as NumPy's `corrcoef`: {@link cov}
 * divided by the outer product of the standard deviations on its diagonal, `r[i, j] = c[i, j] / √(c[i, i]·c[j, j])`,
 * real parts (and imaginary parts, for complex) clipped to [-1, 1]. Layout, dtypes and errors as {@link cov}
 * (float64, or complex128 for complex input); a single variable gives a 0-d 1 (NaN where it does not vary), a
 * variable that does not vary a row and column of NaN.
 *
 * ```ts
 * const r = corrcoef(x);                        // x: [3, 100] → [3, 3], ones on the diagonal
 * const r2 = corrcoef(a, { y: b });             // a's and b's variables together
 * ```
 */
export function corrcoef(x: DeviceArray, options?: CorrcoefOptions): DeviceArray {
  const what = "corrcoef";
  const o = checkOptions(options, what, "y?, rowvar?, stream?") as CorrcoefOptions;
  // The divisor of the covariances cancels: cov's default ddof.
  const c = covariance(what, x, { ...(o.y === undefined ? {} : { y: o.y }), ...(o.rowvar === undefined ? {} : { rowvar: o.rowvar }), ...(o.stream === undefined ? {} : { stream: o.stream }) });
  const stream = operationStream(what, options, [c]);
  try {
    if (c.ndim === 0) return div(c, c, { stream, out: c });
    const v = c.shape[0]!;
    using deviations = sqrt(real(diagonal(c)), { stream });
    div(c, deviations.reshape(v, 1), { stream, out: c });
    div(c, deviations.reshape(1, v), { stream, out: c });
    const re = real(c);
    clip(re, -1, 1, { stream, out: re });
    if (c.dtype.kind === "c") {
      const im = imag(c);
      clip(im, -1, 1, { stream, out: im });
    }
    return c;
  } catch (e) {
    // Nothing of the covariances reaches the caller: freed in stream order.
    c.close(stream);
    throw e;
  }
}
