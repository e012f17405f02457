/**
 * NumPy's `polyfit` (least-squares polynomial fits, through `lstsq`) and `roots` (a polynomial's roots, the
 * eigenvalues of its companion matrix, through `eigvals`) over DeviceArrays. Coefficients are highest power first,
 * as `polyval` of `cuda-ts/array` reads them.
 *
 * ```ts
 * import { polyfit, roots } from "cuda-ts/array/linalg";
 * const c = polyfit(x, y, 2);             // [a, b, c] of the best a·x² + b·x + c
 * const r = roots([1, -3, 2], { stream }); // [2, 1]
 * ```
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import type { Stream } from "../../stream.ts";
import { astype, castInto } from "../ops/cast.ts";
import { dtypes, type DType } from "../dtype.ts";
import { DTypeError, ShapeMismatchError } from "../errors.ts";
import { sum } from "../reductions.ts";
import { div, mul } from "../ops/arithmetic.ts";
import { sqrt } from "../ops/math.ts";
import { expandDims } from "../ops/shape.ts";
import { vander } from "../ops/creation.ts";
import { withTemporaries } from "../ops/temporaries.ts";
import { checkOneDevice } from "../ops/elementwise.ts";
import { inv, lstsq, matmul } from "./linalg.ts";
import { eigvals } from "./eig.ts";
import { machineEpsilon } from "./plan.ts";
import { checkOperand, checkOptions } from "./arguments.ts";
import { showShape } from "../broadcast.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { complexDivide, floatOf, hostCoefficients, hostRounding, uploadCoefficients } from "../ops/polynomials.ts";

/** Options of {@link polyfit}. */
export interface PolyfitOptions extends ArrayOperationOptions {
  /** Singular values of the scaled Vandermonde matrix at most `rcond` times the largest count as zero (default: `x.length` × the machine epsilon of `x`'s float dtype, NumPy's: float64's for integers, 2⁻¹⁰ for float16). */
  readonly rcond?: number;
  /** Weights of the samples, a 1-d array as long as `x` (each residual is multiplied by its weight; NumPy's `w`). */
  readonly w?: DeviceArray;
  /** Whether to return the least-squares diagnostics beside the coefficients (default false: the coefficients alone). */
  readonly full?: boolean;
  /**
   * Whether to return the covariance matrix of the coefficients beside them (NumPy's `cov`; default false). `true`
   * scales it by the residuals' variance, the sum of squared residuals over `x.length - (deg + 1)` (which needs more
   * samples than coefficients and a full rank); `"unscaled"` leaves that factor out, for weights that are already
   * 1/σ. Ignored under `full: true`, as in NumPy.
   */
  readonly cov?: boolean | "unscaled";
}

/** What {@link polyfit} returns with `cov`: NumPy's `(p, V)`, named. */
export interface PolyfitCovarianceResult {
  /** The coefficients, highest power first: `[deg + 1]`, or `[deg + 1, k]` for a `y` of `k` columns. */
  readonly coefficients: DeviceArray;
  /**
   * Their covariance matrix `[deg + 1, deg + 1]` (its diagonal is each coefficient's variance), or `[deg + 1,
   * deg + 1, k]` for a `y` of `k` columns; float64 for real `x`, complex128 for complex.
   */
  readonly covariance: DeviceArray;
}

/** What {@link polyfit} returns with `full: true`: NumPy's five values, named. */
export interface PolyfitResult {
  /** The coefficients, highest power first: `[deg + 1]`, or `[deg + 1, k]` for a `y` of `k` columns. */
  readonly coefficients: DeviceArray;
  /** The sum of squared residuals per column of `y` (empty when the fit is exact or the rank is short, as `lstsq`'s). */
  readonly residuals: DeviceArray;
  /** The rank of the scaled Vandermonde matrix: below `deg + 1`, the fit is badly conditioned (NumPy warns). */
  readonly rank: number;
  /** Its singular values, descending. */
  readonly singularValues: DeviceArray;
  /** The cut-off used. */
  readonly rcond: number;
}

/** Options of {@link roots}. */
export type RootsOptions = ArrayOperationOptions;

/** `a` as NumPy's `a + 0.0`: a float64 copy (a temporary) for bool and integers, `a` itself for floats. */
function asFloat(a: DeviceArray, stream: Stream, temp: <A extends DeviceArray>(x: A) => A): DeviceArray {
  return floatOf(a.dtype) === a.dtype ? a : temp(astype(a, "float64", { stream }));
}

/**
 * The polynomial of degree `deg` that best fits the samples `(x, y)` in the least-squares sense, as NumPy's
 * `polyfit`: its coefficients, highest power first (`[deg + 1]`, or one column per column of a 2-d `y`). The
 * Vandermonde matrix of `x` is scaled to unit columns, solved with `lstsq` (through the SVD), and the solution
 * scaled back. Dtypes are NumPy's: `x`, `y` and `w` are read as floats (integers and bool as float64, NumPy's
 * `+ 0.0`), the Vandermonde matrix is float64 for real `x` (even float32), complex128 for complex, and the weighted
 * `y` keeps its dtype (NumPy weights it in place). Waits for the stream (`lstsq` reads the rank). NumPy warns (RankWarning) when the rank is below
 * `deg + 1`; here `full: true` returns the rank to check.
 *
 * ```ts
 * const [a, b] = await polyfit(t, distance, 1).toList() as number[];   // a straight line
 * const { coefficients, residuals, rank } = polyfit(x, y, 3, { full: true });
 * const { coefficients: c, covariance } = polyfit(x, y, 1, { cov: true }); // variances on its diagonal
 * ```
 *
 * @throws ShapeMismatchError for an `x` that is not 1-d or is empty, a `y` that is not 1-d or 2-d, or lengths that
 * differ (NumPy's TypeErrors); ArgumentError for a `deg` that is not a non-negative integer; DTypeError for complex
 * weights of a real `x` or `y` (NumPy's casting error); ArgumentError for a scaled `cov` with no more samples than
 * coefficients, or of a fit whose rank is short (no residuals to scale by: NumPy fails there too).
 */
export function polyfit(x: DeviceArray, y: DeviceArray, deg: number, options: PolyfitOptions & { readonly full: true }): PolyfitResult;
export function polyfit(x: DeviceArray, y: DeviceArray, deg: number, options: PolyfitOptions & { readonly full?: false; readonly cov: true | "unscaled" }): PolyfitCovarianceResult;
export function polyfit(x: DeviceArray, y: DeviceArray, deg: number, options?: PolyfitOptions & { readonly full?: false; readonly cov?: false }): DeviceArray;
export function polyfit(x: DeviceArray, y: DeviceArray, deg: number, options?: PolyfitOptions): DeviceArray | PolyfitResult | PolyfitCovarianceResult;
export function polyfit(x: DeviceArray, y: DeviceArray, deg: number, options?: PolyfitOptions): DeviceArray | PolyfitResult | PolyfitCovarianceResult {
  const action = "polyfit";
  checkOperand(x, "x", action);
  checkOperand(y, "y", action);
  const opts = checkOptions(options, action, "rcond?, w?, full?, cov?, stream?");
  if (typeof deg !== "number" || !Number.isSafeInteger(deg) || deg < 0) throw new ArgumentError(`${action}: deg is a non-negative integer, got ${describeValue(deg)}`);
  if (x.ndim !== 1) throw new ShapeMismatchError(`${action}: x is a 1-d array of sample points, not shape ${showShape(x.shape)}`);
  if (x.size === 0) throw new ShapeMismatchError(`${action}: x is empty; give at least one sample`);
  if (y.ndim !== 1 && y.ndim !== 2) throw new ShapeMismatchError(`${action}: y is a 1-d array of values, or 2-d (one fit per column), not shape ${showShape(y.shape)}`);
  if (y.shape[0] !== x.shape[0]) throw new ShapeMismatchError(`${action}: x has ${x.shape[0]} samples and y ${y.shape[0]}; give them the same length`);
  const w = opts.w === undefined ? undefined : checkOperand(opts.w, "w", action);
  if (w !== undefined) {
    if (w.ndim !== 1 || w.shape[0] !== x.shape[0]) throw new ShapeMismatchError(`${action}: w is a 1-d array of ${x.shape[0]} weights, one per sample, not shape ${showShape(w.shape)}`);
  }
  const rcondOption = opts.rcond;
  if (rcondOption !== undefined && (typeof rcondOption !== "number" || !(rcondOption >= 0))) throw new ArgumentError(`${action}: rcond is a non-negative number, got ${describeValue(rcondOption)}`);
  const full = opts.full ?? false;
  if (typeof full !== "boolean") throw new ArgumentError(`${action}: full is a boolean, got ${describeValue(full)}`);
  const cov = opts.cov ?? false;
  if (cov !== true && cov !== false && cov !== "unscaled") throw new ArgumentError(`${action}: cov is true, false or "unscaled", got ${describeValue(cov)}`);
  const order = deg + 1;
  if (cov === true && !full && x.size <= order) {
    throw new ArgumentError(`${action}: the covariance is scaled by the residuals over x.length - (deg + 1), so it needs more than ${order} samples, and x has ${x.size}; give more samples, a lower deg, or cov: "unscaled"`);
  }
  const rcond = rcondOption ?? x.size * machineEpsilon(floatOf(x.dtype));
  if (w !== undefined && w.dtype.kind === "c" && (x.dtype.kind !== "c" || y.dtype.kind !== "c")) {
    throw new DTypeError(`${action}: w is ${w.dtype.name}, and complex weights cannot multiply the real ${x.dtype.kind === "c" ? "y" : "x"} in place (NumPy's casting error); pass real weights, or complex x and y`);
  }
  const arrays = [x, y, ...(w !== undefined ? [w] : [])];
  const stream = operationStream(action, options, arrays);
  checkOneDevice(action, [["x", x], ["y", y], ["w", w]], stream);
  return withTemporaries(stream, (temp) => {
    // NumPy's x + 0.0, y + 0.0, w + 0.0: integers and bool as float64 (vander and the products stay floats).
    const xf = asFloat(x, stream, temp);
    const yf = asFloat(y, stream, temp);
    let lhs = temp(vander(xf, { N: order, stream }));
    let rhs = yf;
    if (w !== undefined) {
      // NumPy weights in place (lhs *= w[:, None], rhs *= w): each keeps its dtype.
      const wf = asFloat(w, stream, temp);
      const column = expandDims(wf, 1);
      lhs = temp(mul(lhs, column, { stream }));
      rhs = temp(mul(yf, yf.ndim === 2 ? column : wf, { stream }));
      if (rhs.dtype !== yf.dtype) rhs = temp(astype(rhs, yf.dtype.name, { stream }));
    }
    // Unit columns: scale = sqrt(sum(lhs * lhs, axis 0)), as NumPy's (for complex x, lhs * lhs, not |lhs|²).
    const scale = temp(sqrt(temp(sum(temp(mul(lhs, lhs, { stream })), { axis: 0, stream })), { stream }));
    lhs = temp(div(lhs, scale, { stream }));
    const r = lstsq(lhs, rhs, { rcond, stream });
    temp(r.x);
    let coefficients: DeviceArray;
    try {
      coefficients = div(r.x, r.x.ndim === 2 ? expandDims(scale, 1) : scale, { stream });
    } catch (e) {
      r.residuals.close(stream);
      r.singularValues.close(stream);
      throw e;
    }
    if (full) return { coefficients, residuals: r.residuals, rank: r.rank, singularValues: r.singularValues, rcond };
    temp(r.residuals);
    r.singularValues.close(stream);
    if (cov === false) return coefficients;
    try {
      return { coefficients, covariance: covariance(lhs, scale, r.residuals, cov === "unscaled" ? undefined : x.size - order, y.ndim === 2, stream, temp) };
    } catch (e) {
      coefficients.close(stream);
      throw e;
    }
  });
}

/**
 * NumPy's covariance of the fitted coefficients: inv(lhsᵀ·lhs) (not conjugated, as NumPy's `dot(lhs.T, lhs)`) over
 * the outer product of the column scales, times the residuals over `dof` (one matrix per column of a 2-d `y`, the
 * columns last); without `dof`, unscaled.
 */
function covariance(lhs: DeviceArray, scale: DeviceArray, residuals: DeviceArray, dof: number | undefined, columns: boolean, stream: Stream, temp: <A extends DeviceArray>(x: A) => A): DeviceArray {
  if (dof !== undefined && residuals.size === 0) {
    throw new ArgumentError(`polyfit: the fit's rank is below deg + 1 (${scale.size}), so there are no residuals to scale the covariance by; give more distinct samples, a lower deg, or cov: "unscaled"`);
  }
  const base = temp(inv(temp(matmul(lhs.T, lhs, { stream })), { stream }));
  const scales = temp(mul(expandDims(scale, 1), expandDims(scale, 0), { stream }));
  if (dof === undefined) return div(base, scales, { stream });
  const unscaled = temp(div(base, scales, { stream }));
  const factor = temp(div(residuals, dof, { stream }));
  return mul(columns ? expandDims(unscaled, 2) : unscaled, factor, { stream });
}

/**
 * The roots of a polynomial, as NumPy's `roots`: `p` holds its coefficients, highest power first (a 1-d
 * DeviceArray, a 0-d one as one coefficient, or a list of numbers). Leading zeros are dropped, trailing zeros give
 * roots at 0 (appended last), and the other roots are the eigenvalues of the companion matrix, whose first row is
 * `-p[1:] / p[0]` computed in `p`'s precision, as NumPy computes it. As NumPy's `eigvals`, the eigenvalues are
 * computed in double precision (`eigvals` of a float64 or complex128 matrix) whatever `p`'s precision, and given in
 * it: real (float64, float32 for float32 coefficients) when every root is real, complex (complex128, complex64)
 * otherwise; integer and bool coefficients count as float64. A constant (or all-zero) polynomial has no roots: an
 * empty float64 array. Reads `p` back and waits for the stream (the companion matrix is built on the host: its size
 * is the degree). The roots come in cuSOLVER's order, which need not be NumPy's.
 *
 * ```ts
 * roots([1, -3, 2], { stream });     // [2, 1]
 * roots([1, 0, 1], { stream });      // [0+1j, 0-1j] (complex128)
 * ```
 *
 * @throws ShapeMismatchError for a `p` of more than one axis; DTypeError for float16 or bfloat16 coefficients of a
 * polynomial of degree 1 or more (no eigensolver takes half precision; NumPy refuses them too).
 */
export function roots(p: DeviceArray | readonly number[], options?: RootsOptions): DeviceArray {
  const action = "roots";
  checkOptions(options, action, "stream?");
  let values: number[] | undefined;
  let dtype: DType = dtypes.float64;
  if (p instanceof DeviceArray) {
    checkOperand(p, "p", action);
    if (p.ndim > 1) throw new ShapeMismatchError(`${action}: p is a 1-d array of coefficients (highest power first), not shape ${showShape(p.shape)}`);
    dtype = floatOf(p.dtype);
  } else {
    if (!Array.isArray(p) || !p.every((v) => typeof v === "number")) throw new TypeError(`${action}: p is a 1-d DeviceArray or a list of numbers (highest power first), got ${describeValue(p)}`);
    values = [...p];
  }
  const complex = dtype.kind === "c";
  const single = dtype.name === "float32" || dtype.name === "complex64";
  const stream = operationStream(action, options, p instanceof DeviceArray ? [p] : []);
  if (p instanceof DeviceArray) checkOneDevice(action, [["p", p]], stream);
  // The coefficients on the host, as [re, im] pairs.
  let coef: [number, number][];
  if (values !== undefined) coef = values.map((v) => [v, 0]);
  else coef = hostCoefficients(p as DeviceArray, stream);
  const nonzero = coef.flatMap(([re, im], j) => (re !== 0 || im !== 0 ? [j] : []));
  if (nonzero.length === 0) return DeviceArray.empty([0], "float64", { stream });
  const first = nonzero[0]!;
  const last = nonzero[nonzero.length - 1]!;
  const trailing = coef.length - last - 1;
  const q = coef.slice(first, last + 1);
  const n = q.length - 1;
  if (n === 0) return DeviceArray.zeros([trailing], "float64", { stream });
  if (dtype.name === "float16" || dtype.name === "bfloat16") {
    throw new DTypeError(`${action}: p is ${dtype.name}, and no eigensolver takes half precision (NumPy refuses it too); convert it first (astype("float32"))`);
  }
  // The companion matrix in double precision: ones below the diagonal, -q[1:] / q[0] in the first row, each quotient
  // rounded to p's precision as NumPy's division in that dtype rounds it.
  const round = single ? Math.fround : (v: number): number => v;
  const [a, b] = q[0]!;
  const row = q.slice(1).map(([re, im]) => complexDivide(-re, -im, a, b).map(round) as [number, number]);
  const size = complex ? 2 : 1;
  const host = new Float64Array(n * n * size);
  for (let j = 0; j < n; j++) {
    host[j * size] = row[j]![0];
    if (complex) host[j * size + 1] = row[j]![1];
  }
  for (let i = 1; i < n; i++) host[(i * n + i - 1) * size] = 1;
  return withTemporaries(stream, (temp) => {
    const companion = temp(DeviceArray.from(host, { stream, dtype: complex ? "complex128" : "float64", shape: [n, n] }));
    const r = eigvals(companion, { stream });
    // In p's precision: float32 or complex64 for single-precision coefficients; the trailing zeros' roots after.
    const to = single ? (r.dtype.kind === "c" ? dtypes.complex64 : dtypes.float32) : r.dtype;
    if (trailing === 0 && to === r.dtype) return r;
    temp(r);
    const out = DeviceArray.zeros([n + trailing], to, { stream });
    try {
      castInto(stream, r, out.slice([0, n]));
    } catch (e) {
      out.close(stream);
      throw e;
    }
    return out;
  });
}

/** NumPy's `mintypecode` for `poly`: float32 and complex64 stay, complex128 stays, everything else is float64. */
function polyDtype(d: DType): DType {
  return d.name === "float32" || d.name === "complex64" || d.name === "complex128" ? d : dtypes.float64;
}

/** Lexicographic order of complex values (real part, then imaginary), as NumPy sorts them. */
function complexOrder(a: readonly [number, number], b: readonly [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}

/**
 * @internal The coefficients of the monic polynomial with roots `zeros` ([re, im] pairs), as NumPy's `poly` computes
 * them in `dt`: one convolution with `[1, -z]` per root, each product and sum rounded to `dt` (NumPy's BLAS may fuse
 * a complex product's multiply and add, so complex coefficients can differ from NumPy's in the last bit); a complex result
 * whose roots come in conjugate pairs is given real (and its dtype the real one).
 */
export function polyFromRoots(zeros: readonly (readonly [number, number])[], dt: DType): { coefficients: [number, number][]; dtype: DType } {
  const R = hostRounding(dt);
  const complex = dt.kind === "c";
  let a: [number, number][] = [[1, 0]];
  // A complex product, each product rounded and then their sum (a real one: one rounded product).
  const times = ([ar, ai]: readonly [number, number], [br, bi]: readonly [number, number]): [number, number] =>
    complex ? [R(R(ar * br) - R(ai * bi)), R(R(ar * bi) + R(ai * br))] : [R(ar * br), 0];
  for (const [zr, zi] of zeros) {
    const minusZ: [number, number] = [-R(zr), complex ? -R(zi) : 0];
    const next: [number, number][] = new Array(a.length + 1);
    for (let i = 0; i <= a.length; i++) {
      // NumPy's convolution as a dot product from +0: + a[i-1]·(-z), then + a[i]·1 (for complex a[i]·(1+0j), which
      // turns an infinity's other part NaN as NumPy's does).
      let acc: [number, number] = [0, 0];
      if (i > 0) {
        const [pr, pi] = times(a[i - 1]!, minusZ);
        acc = [R(acc[0] + pr), R(acc[1] + pi)];
      }
      if (i < a.length) {
        const [cr, ci] = complex ? times(a[i]!, [1, 0]) : a[i]!;
        acc = [R(acc[0] + cr), R(acc[1] + ci)];
      }
      next[i] = acc;
    }
    a = next;
  }
  if (complex) {
    const sorted = zeros.map(([re, im]) => [R(re), R(im)] as [number, number]).sort(complexOrder);
    const conjugates = sorted.map(([re, im]) => [re, -im] as [number, number]).sort(complexOrder);
    if (sorted.every(([re, im], k) => re === conjugates[k]![0] && im === conjugates[k]![1])) {
      return { coefficients: a.map(([re]) => [re, 0]), dtype: dt.name === "complex64" ? dtypes.float32 : dtypes.float64 };
    }
  }
  return { coefficients: a, dtype: dt };
}

/**
 * The coefficients of the monic polynomial whose roots are `seqOfZeros`, as NumPy's `poly` (the inverse of
 * `roots`): a 1-d array or a list of numbers is the roots, a square matrix stands for its eigenvalues (its
 * characteristic polynomial, through `eigvals`). Computed on the host as NumPy computes it (complex coefficients
 * to within the last bit, where NumPy's BLAS fuses operations), one convolution with `[1, -z]` per root, in float64 (float32, complex64, complex128 roots keep their dtype; integers, bool and half
 * precision become float64); complex roots in conjugate pairs give real coefficients. No roots give the 0-d 1.0
 * (NumPy's `1.0`). Reads the roots back, so it waits for the stream.
 *
 * ```ts
 * poly([1, 2], { stream });          // [1, -3, 2]: (x - 1)(x - 2)
 * poly(matrix);                      // its characteristic polynomial
 * ```
 *
 * @throws ShapeMismatchError for an array that is neither 1-d nor a non-empty square matrix (NumPy's ValueError).
 */
export function poly(seqOfZeros: DeviceArray | readonly number[], options?: RootsOptions): DeviceArray {
  const action = "poly";
  checkOptions(options, action, "stream?");
  if (!(seqOfZeros instanceof DeviceArray)) {
    if (!Array.isArray(seqOfZeros) || !seqOfZeros.every((v) => typeof v === "number")) throw new TypeError(`${action}: seqOfZeros is a DeviceArray or a list of numbers (the roots), got ${describeValue(seqOfZeros)}`);
  } else {
    checkOperand(seqOfZeros, "seqOfZeros", action);
    const [n0, n1] = seqOfZeros.shape;
    if (seqOfZeros.ndim > 1 && !(seqOfZeros.ndim === 2 && n0 === n1 && n0 !== 0)) {
      throw new ShapeMismatchError(`${action}: seqOfZeros is a 1-d array of roots or a non-empty square matrix, not shape ${showShape(seqOfZeros.shape)}`);
    }
  }
  const stream = operationStream(action, options, seqOfZeros instanceof DeviceArray ? [seqOfZeros] : []);
  let zeros: [number, number][];
  let dt: DType;
  if (!(seqOfZeros instanceof DeviceArray)) {
    zeros = seqOfZeros.map((v) => [v, 0]);
    dt = dtypes.float64;
  } else if (seqOfZeros.ndim === 2) {
    checkOneDevice(action, [["seqOfZeros", seqOfZeros]], stream);
    const values = eigvals(seqOfZeros, { stream });
    try {
      zeros = hostCoefficients(values, stream);
      dt = values.dtype;
    } finally {
      values.close(stream);
    }
  } else {
    checkOneDevice(action, [["seqOfZeros", seqOfZeros]], stream);
    zeros = hostCoefficients(seqOfZeros, stream);
    dt = polyDtype(seqOfZeros.dtype);
  }
  if (zeros.length === 0) return DeviceArray.full([], 1, "float64", { stream });
  const { coefficients, dtype } = polyFromRoots(zeros, dt);
  return uploadCoefficients(coefficients, dtype, stream);
}
