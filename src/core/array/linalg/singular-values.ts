/**
 * NumPy's `linalg.pinv` and `linalg.matrix_rank` over DeviceArrays, composed of `svd` (or, for Hermitian matrices,
 * `eigh` and `eigvalsh`) and elementwise operations and reductions on the singular values: nothing is read back, the
 * cut-off between "large" and "zero" singular values is computed per matrix on the device. Every check comes before
 * anything is queued; the tolerances are worked out on the host ({@link pinvCutoff}, {@link rankTolerance}: exported
 * for tests, no GPU needed).
 *
 * ```ts
 * const p = pinv(a);                    // [..., m, n] → [..., n, m]
 * const r = matrixRank(a);              // int64 [...]: a 0-d array for one matrix
 * ```
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { ShapeMismatchError } from "../errors.ts";
import { elementCount } from "../layout.ts";
import { realOf, operationType } from "../promotion.ts";
import { max } from "../reductions.ts";
import { astype } from "../ops/cast.ts";
import { div, gt, mul } from "../ops/arithmetic.ts";
import { abs, conj } from "../ops/math.ts";
import { where } from "../ops/selection.ts";
import { any, countNonzero } from "../ops/statistics.ts";
import { expandDims, swapaxes } from "../ops/shape.ts";
import { eigh, eigvalsh, matmul, svd } from "./linalg.ts";
import { machineEpsilon, solverDtype } from "./plan.ts";
import type { Stream } from "../../stream.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { checkFlag, checkOperand, checkOptions, matrices } from "./arguments.ts";
import { showShape } from "../broadcast.ts";

/** Options of {@link pinv}. */
export interface PinvOptions extends ArrayOperationOptions {
  /**
   * Singular values at most `rcond` times each matrix's largest count as zero (default 1e-15, NumPy's). Only one of
   * `rcond` and `rtol` may be given.
   */
  readonly rcond?: number;
  /**
   * As `rcond` (the Array API's name, NumPy 2's keyword); `null` asks for the Array API's default, `max(m, n) · eps`
   * of the dtype computed in.
   */
  readonly rtol?: number | null;
  /** Whether each matrix is Hermitian (real symmetric), its lower triangle read (eigh instead of the SVD; default false). */
  readonly hermitian?: boolean;
}

/** Options of {@link matrixRank}. */
export interface MatrixRankOptions extends ArrayOperationOptions {
  /** An absolute tolerance: the singular values above it are counted (default: `rtol` times each matrix's largest). */
  readonly tol?: number;
  /** A tolerance relative to each matrix's largest singular value (default `max(m, n) · eps`). Only one of `tol` and `rtol` may be given. */
  readonly rtol?: number;
  /** Whether each matrix is Hermitian (real symmetric), its lower triangle read (eigenvalues instead of the SVD; default false). */
  readonly hermitian?: boolean;
}

function checkNumber(value: unknown, name: string, what: string, nullable = false): void {
  if (value === undefined || (nullable && value === null)) return;
  if (typeof value !== "number" || Number.isNaN(value)) throw new TypeError(`${what}: ${name} is a number${nullable ? " (or null)" : ""}, got ${describeValue(value)}`);
}

/** `a`'s stack of matrices (see {@link matrices}), square where `hermitian` asks it. */
function stackOf(a: DeviceArray, what: string, hermitian: boolean): { batch: number[]; m: number; n: number } {
  const stack = matrices(a, "a", what, false);
  if (hermitian && stack.m !== stack.n) throw new ShapeMismatchError(`${what}: with hermitian, a must be square ([..., n, n]), not shape ${showShape(a.shape)}`);
  return stack;
}

/**
 * @internal pinv's relative cut-off as NumPy 2's `pinv` works it out: `rcond`, else `rtol`, else 1e-15; `rtol: null`
 * is `max(m, n) · eps` of `dtype` (the dtype computed in). ArgumentError when both are given.
 */
export function pinvCutoff(rcond: number | undefined, rtol: number | null | undefined, m: number, n: number, dtype: DType, what = "pinv"): number {
  if (rcond !== undefined && rtol !== undefined) throw new ArgumentError(`${what}: rcond and rtol are one setting under two names; give one of them`);
  if (rcond !== undefined) return rcond;
  if (rtol === undefined) return 1e-15;
  return rtol === null ? Math.max(m, n) * machineEpsilon(dtype) : rtol;
}

/**
 * @internal matrix_rank's tolerance as NumPy 2 works it out: `{ absolute: tol }` when `tol` is given, else `{ relative:
 * rtol }` (default `max(m, n) · eps` of the singular values' dtype, `given` false). ArgumentError when both are given.
 */
export function rankTolerance(tol: number | undefined, rtol: number | undefined, m: number, n: number, dtype: DType, what = "matrixRank"): { absolute: number } | { relative: number; given: boolean } {
  if (tol !== undefined && rtol !== undefined) throw new ArgumentError(`${what}: tol (absolute) and rtol (relative) are two ways to set one threshold; give one of them`);
  if (tol !== undefined) return { absolute: tol };
  if (rtol !== undefined) return { relative: rtol, given: true };
  return { relative: Math.max(m, n) * machineEpsilon(dtype), given: false };
}

/**
 * A float32 array of singular values (or their maxima) as float64, where NumPy compares them with a float64 threshold
 * (a tolerance given as an array is a strong float64 operand in NumPy 2's promotion); kept in `temps`.
 */
function asFloat64(x: DeviceArray, stream: Stream, temps: DeviceArray[]): DeviceArray {
  if (x.dtype === dtypes.float64) return x;
  const y = astype(x, dtypes.float64, { stream });
  temps.push(y);
  return y;
}

/**
 * The Moore-Penrose pseudo-inverse of each matrix of `a` [..., m, n], NumPy 2's `linalg.pinv`: `a⁺ = V · Σ⁺ · Uᴴ`
 * from the SVD `a = U · Σ · Vᴴ`, with `Σ⁺` the reciprocals of the singular values above `rcond` times each matrix's
 * largest and zeros for the others; shape [..., n, m]. The cut-off is `rcond` (default 1e-15, NumPy's), or `rtol`,
 * its Array API name (`rtol: null`: `max(m, n) · eps`); a number (NumPy also takes an array that broadcasts against
 * the stack). `hermitian: true` reads each matrix as Hermitian from its lower triangle and uses `eigh` instead (`a⁺ =
 * V · diag(1/λ) · Vᴴ` over the eigenvalues whose magnitude is above the cut-off).
 *
 * Dtypes as `svd`: float32 and complex64 stay, float64 and complex128 too; bool and integers are computed in float64;
 * float16 and bfloat16 are refused. An empty stack or matrices of 0 rows or columns give an empty [..., n, m] of that
 * dtype (NumPy keeps an integer input's dtype for an empty matrix; this is float64 as for any other integer input).
 * Waits for the stream (`svd` and `eigh` read cuSOLVER's info: ConvergenceError). Temporaries are freed in stream
 * order, also when a step throws.
 *
 * Errors, before anything is queued: TypeError for a non-array, a flag that is not boolean or a cut-off that is not a
 * number, ArgumentError for both `rcond` and `rtol`, ShapeMismatchError for fewer than 2 axes (or a non-square
 * matrix with `hermitian`), DTypeError for float16 and bfloat16.
 *
 * ```ts
 * const p = pinv(a);                         // a [5, 3] → p [3, 5]; p·a ≈ I for full column rank
 * const x = matmul(pinv(a), b);              // the least-squares solution of minimal norm
 * const q = pinv(cov, { hermitian: true, rtol: null });
 * ```
 */
export function pinv(a: DeviceArray, options?: PinvOptions): DeviceArray {
  const what = "pinv";
  checkOperand(a, "a", what);
  const o = checkOptions(options, what, "rcond?, rtol?, hermitian?, stream?");
  const hermitian = checkFlag(o.hermitian, "hermitian", false, what);
  checkNumber(o.rcond, "rcond", what);
  checkNumber(o.rtol, "rtol", what, true);
  const { batch, m, n } = stackOf(a, what, hermitian);
  const dtype = solverDtype(operationType([a], what), what);
  const r = pinvCutoff(o.rcond as number | undefined, o.rtol as number | null | undefined, m, n, dtype, what);
  const stream = operationStream(what, options, [a]);
  const op = { stream };
  if (elementCount(batch) * m * n === 0) return DeviceArray.empty([...batch, n, m], dtype, op);
  const temps: DeviceArray[] = [];
  const keep = (x: DeviceArray): DeviceArray => (temps.push(x), x);
  /** The reciprocals of `values` whose magnitudes `mags` are above r·max(mags) per matrix, zeros for the others. */
  const reciprocals = (values: DeviceArray, mags: DeviceArray): DeviceArray => {
    const largest = keep(max(mags, { axis: -1, keepdims: true, stream }));
    // NumPy 2: the cut-off is a float64 array (rcond as an array, a strong operand), compared in float64.
    const cutoff = keep(mul(asFloat64(largest, stream, temps), r, op));
    const large = keep(gt(mags, cutoff, op));
    const inverse = keep(div(1, values, op));
    return keep(where(large, inverse, 0, op));
  };
  try {
    if (hermitian) {
      const { eigenvalues, eigenvectors } = eigh(a, op);
      keep(eigenvalues);
      keep(eigenvectors);
      const inverse = reciprocals(eigenvalues, keep(abs(eigenvalues, op)));
      // V · diag(1/λ) · Vᴴ: V's columns scaled, times Vᴴ.
      const scaled = keep(mul(eigenvectors, expandDims(inverse, -2), op));
      const vt = swapaxes(eigenvectors, -1, -2);
      return matmul(scaled, dtype.kind === "c" ? keep(conj(vt, op)) : vt, op);
    }
    // NumPy's order: the SVD of conj(a) = conj(U)·Σ·conj(Vᴴ), whose factors transposed are V and Uᴴ.
    const source = dtype.kind === "c" ? keep(conj(a, op)) : a;
    const { u, s, vh } = svd(source, { stream, fullMatrices: false });
    keep(u);
    keep(s);
    keep(vh);
    const inverse = reciprocals(s, s);
    // Vᴴ's transpose [..., n, k] times Σ⁺ · Uᴴ [..., k, m].
    const scaled = keep(mul(expandDims(inverse, -1), swapaxes(u, -1, -2), op));
    return matmul(swapaxes(vh, -1, -2), scaled, op);
  } finally {
    for (const t of temps) t.close(stream);
  }
}

/**
 * The rank of each matrix of `a` [..., m, n], NumPy 2's `linalg.matrix_rank`: the number of singular values above a
 * tolerance, an int64 array of shape [...] (0-d for one matrix). The tolerance is `tol` (absolute), or `rtol` times
 * each matrix's largest singular value, `rtol` by default `max(m, n) · eps` (eps of the singular values' dtype: 2⁻²³
 * for float32 and complex64, 2⁻⁵² otherwise), MATLAB's and NumPy's default. `hermitian: true` reads each matrix as
 * Hermitian from its lower triangle and counts the eigenvalues' magnitudes instead (`eigvalsh`). A 1-d or 0-d `a` is
 * rank 1 unless all its elements are 0 (NumPy returns a Python int there; this a 0-d int64 array). Matrices of 0 rows
 * or columns have rank 0.
 *
 * Composed on the device (the singular values, their maximum, a comparison, a count): nothing is read back, but `svd`
 * and `eigvalsh` wait for the stream to read cuSOLVER's info (ConvergenceError). Dtypes as `svd` (bool and integers in
 * float64, float16 and bfloat16 refused; any dtype for a 1-d `a`).
 *
 * Errors, before anything is queued: TypeError for a non-array, a flag that is not boolean or a tolerance that is not
 * a number, ArgumentError for both `tol` and `rtol`, ShapeMismatchError for a non-square matrix with `hermitian`,
 * DTypeError for float16 and bfloat16 matrices.
 *
 * ```ts
 * const r = matrixRank(a);                      // [4, 4] → int64 [], e.g. 3 for a singular matrix
 * const rs = matrixRank(stack, { rtol: 1e-8 }); // [b, m, n] → int64 [b]
 * ```
 */
export function matrixRank(a: DeviceArray, options?: MatrixRankOptions): DeviceArray<"int64"> {
  const what = "matrixRank";
  checkOperand(a, "a", what);
  const o = checkOptions(options, what, "tol?, rtol?, hermitian?, stream?");
  const hermitian = checkFlag(o.hermitian, "hermitian", false, what);
  checkNumber(o.tol, "tol", what);
  checkNumber(o.rtol, "rtol", what);
  if (a.ndim < 2) {
    rankTolerance(o.tol as number | undefined, o.rtol as number | undefined, 0, 0, dtypes.float64, what);
    const stream = operationStream(what, options, [a]);
    const nonzero = any(a, { stream });
    try {
      return astype(nonzero, dtypes.int64, { stream });
    } finally {
      nonzero.close(stream);
    }
  }
  const { batch, m, n } = stackOf(a, what, hermitian);
  const dtype = solverDtype(operationType([a], what), what);
  const tolerance = rankTolerance(o.tol as number | undefined, o.rtol as number | undefined, m, n, realOf(dtype), what);
  const stream = operationStream(what, options, [a]);
  const op = { stream };
  if (elementCount(batch) * Math.min(m, n) === 0) return DeviceArray.zeros(batch, dtypes.int64, op);
  const temps: DeviceArray[] = [];
  const keep = (x: DeviceArray): DeviceArray => (temps.push(x), x);
  try {
    const s = hermitian ? keep(abs(keep(eigvalsh(a, op)), op)) : keep(svd(a, { stream, computeUv: false }));
    let above: DeviceArray;
    if ("absolute" in tolerance) {
      // NumPy 2 compares with tol as a float64 array.
      above = keep(gt(asFloat64(s, stream, temps), tolerance.absolute, op));
    } else {
      const largest = keep(max(s, { axis: -1, keepdims: true, stream }));
      // The default rtol is a Python float in NumPy (a weak scalar: float32 stays float32); a given one a float64 array.
      const threshold = keep(mul(tolerance.given ? asFloat64(largest, stream, temps) : largest, tolerance.relative, op));
      above = keep(gt(s, threshold, op));
    }
    return countNonzero(above, { axis: -1, stream });
  } finally {
    for (const t of temps) t.close(stream);
  }
}
