/**
 * NumPy's `linalg.eig` and `linalg.eigvals` over DeviceArrays: the eigenvalues and right eigenvectors of general
 * (non-symmetric, non-Hermitian) square matrices, through cuSOLVER's `cusolverDnXgeev` (LAPACK's geev: balancing,
 * Hessenberg reduction, the QR algorithm; a hybrid CPU-GPU routine).
 *
 * What cuSOLVER's geev does and does not do, and how these functions use it:
 * - It computes right eigenvectors only (`jobvl` must be "no vectors"): NumPy's `eig` returns right ones, so that is
 *   all that is asked for.
 * - It takes A column-major. A row-major matrix's bytes are Aᵀ column-major, whose eigenvalues are A's but whose right
 *   eigenvectors are not (they are A's left ones, conjugated), and whose eigenvalues could come in another order than
 *   NumPy's; so each matrix is copied transposed first, and the column-major eigenvectors transposed back.
 * - For real A, W may be complex (its "mixed real-complex" interface, used here): every eigenvalue in W, both of each
 *   complex-conjugate pair (positive imaginary part first, as LAPACK orders them), computed in real arithmetic. The
 *   eigenvectors stay real and packed as LAPACK's: a real eigenvalue's vector is its column; a pair's columns j, j+1
 *   hold the real and imaginary parts of the vector of w[j], and w[j+1]'s is its conjugate. A kernel unpacks them.
 * - Its data types: A, VR and the compute type of one dtype (float32, float64, complex64, complex128), W that dtype
 *   or, for real A, the complex dtype of its precision. No half precision.
 *
 * The result's dtype follows NumPy's rule, which depends on the values: for real input, real eigenvalues and
 * eigenvectors when every imaginary part of every eigenvalue of the batch is exactly zero, complex ones otherwise;
 * complex input gives complex results. Deciding this reads the eigenvalues back, after the wait for cuSOLVER's
 * `info` that every decomposition here makes anyway.
 *
 * @module
 */
import { cusolver } from "../../../bindings/cusolver.ts";
import { cusolverEigMode_t } from "../../../../generated/cuda-13.0/cusolver/enums.ts";
import { DeviceArray, type ArrayOperationOptions } from "../device-array.ts";
import type { DType } from "../dtype.ts";
import { elementCount } from "../layout.ts";
import { complexOf, operationType } from "../promotion.ts";
import { contextScope } from "../../base/context-scope.ts";
import type { Stream } from "../../stream.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { ConvergenceError, type SolverInfoError } from "../../math-errors.ts";
import { infoError } from "../../math/solver/errors.ts";
import { contiguousAs, flatReal, kernelOf, stridedView, swapLastTwo } from "../math-shared.ts";
import type { KernelSpec } from "../math-kernels.ts";
import { isfinite } from "../ops/math.ts";
import { all } from "../ops/statistics.ts";
import { at, closeAll, DATA_TYPES, setUp, transposedBack, Workspace } from "./linalg.ts";
import { solverDtype } from "./plan.ts";
import { checkOperand, matrices } from "./arguments.ts";

/** Options of {@link eig} and {@link eigvals}: the stream (default: the array's). */
export interface EigOptions extends ArrayOperationOptions {}

/** eig's result: a · eigenvectors = eigenvectors · diag(eigenvalues). */
export interface EigResult {
  /**
   * [..., n], in the order geev finds them (not sorted); a complex-conjugate pair of a real matrix comes together,
   * the positive imaginary part first. Real when the input is real and every eigenvalue of the batch is; complex
   * otherwise.
   */
  readonly eigenvalues: DeviceArray;
  /** [..., n, n]: column j is the (unit-norm) eigenvector of eigenvalue j; the eigenvalues' dtype. */
  readonly eigenvectors: DeviceArray;
}

const GEEV = "cusolverDnXgeev";
const EIG_VECTOR = cusolverEigMode_t.CUSOLVER_EIG_MODE_VECTOR;
const EIG_NOVECTOR = cusolverEigMode_t.CUSOLVER_EIG_MODE_NOVECTOR;

/**
 * @internal The complex eigenvectors of real matrices from geev's packed real ones: one thread per element of the
 * row-major result [count, n, n] (element (row, col) is component `row` of eigenvector `col`). `vr` holds the
 * column-major vectors of each matrix, `w` its complex eigenvalues: a real eigenvalue's vector is column `col`; a
 * positive imaginary part starts a pair, columns col and col+1 being the real and imaginary parts; a negative one
 * ends it, the conjugate of the vector of column col-1 (real part col-1, imaginary part col, negated).
 */
export const GEEV_VECTORS: KernelSpec = {
  name: "cuda_ts_linalg_geev_vectors",
  inParams: "raw R vr, raw C w, int64 n",
  outParams: "C v",
  body:
    "const long long nn = n * n, e = (long long)i, b = e / nn, row = (e % nn) / n, col = e % n; " +
    "const R* m = vr + b * nn; const R im = w[b * n + col].imag(); " +
    "if (im > R(0) && col + 1 < n) v = C(m[col * n + row], m[(col + 1) * n + row]); " +
    "else if (im < R(0) && col > 0) v = C(m[(col - 1) * n + row], -m[col * n + row]); " +
    "else v = C(m[col * n + row], R(0))",
};

/**
 * The eigenvalues and right eigenvectors of each square matrix of `a` [..., n, n] (NumPy's `linalg.eig`, through
 * cuSOLVER's geev): `a · v[:, j] = w[j] · v[:, j]` with every eigenvector of unit norm (its largest component real,
 * as LAPACK's). The eigenvalues are not sorted, and for a defective matrix the eigenvectors are not independent.
 *
 * Dtypes: float32, float64, complex64 and complex128 are computed as they are, bool and integers in float64; float16
 * and bfloat16 are refused (DTypeError: cast to float32). As NumPy's, the result's dtype depends on the values: a
 * real input gives real eigenvalues and eigenvectors when every eigenvalue of the whole batch is real (an imaginary
 * part of exactly zero), and complex ones (complex64 for float32, complex128 for float64) otherwise; a complex input
 * always gives complex results. A complex-conjugate pair's eigenvectors are conjugates of one another. float32 and
 * complex64 are computed in single precision, as CuPy's and the other decompositions here; NumPy computes every dtype
 * in double precision and rounds the results, so its float32 eigenvalues are more accurate, and for nearly repeated
 * eigenvalues its real-or-complex decision can differ: cast to float64 first for NumPy's values.
 *
 * Waits for the stream twice: to check that every element is finite (NumPy refuses NaN and infinity:
 * ArgumentError), and to read cuSOLVER's `info` and the eigenvalues (ConvergenceError when the QR algorithm did not
 * converge for a matrix). Needs the cuSOLVER of CUDA 13: NVIDIA added geev in CUDA 12.6 Update 2, but the CUDA 12
 * binding tables here are 12.4's, which lack it, so a CUDA 12 cuSOLVER throws FunctionVersionError at the first call.
 *
 * ```ts
 * const { eigenvalues, eigenvectors } = eig(a);   // a [3, 3] float64 → [3] and [3, 3], float64 or complex128
 * ```
 */
export function eig(a: DeviceArray, options?: EigOptions): EigResult {
  const r = eigImpl(a, options, true, "eig");
  return { eigenvalues: r.w, eigenvectors: r.v! };
}

/**
 * The eigenvalues of each square matrix of `a` [..., n, n] (NumPy's `linalg.eigvals`): as {@link eig} without the
 * eigenvectors, the same dtypes (real for a real input whose eigenvalues are all real, complex otherwise), the same
 * waits and errors.
 */
export function eigvals(a: DeviceArray, options?: EigOptions): DeviceArray {
  return eigImpl(a, options, false, "eigvals").w;
}

function eigImpl(a: DeviceArray, options: EigOptions | undefined, vectors: boolean, action: string): { w: DeviceArray; v: DeviceArray | undefined } {
  checkOperand(a, "a", action);
  const { n, batch } = matrices(a, "a", action, true);
  // The dtype first: half precision is refused before a stream is looked for.
  solverDtype(operationType([a], action), action);
  const call = setUp(action, options, [a]);
  const { stream, solver, dataType, dtype } = call;
  const { handle: h, params } = solver;
  const count = elementCount(batch);
  const complexInput = dtype.kind === "c";
  // W is complex for real A too (geev's mixed real-complex interface): every eigenvalue, both of each pair.
  const wDtype = complexInput ? dtype : complexOf(dtype);
  const wType = DATA_TYPES[wDtype.name]!;
  // LAPACK's column-major A: each matrix copied transposed.
  const A = contiguousAs(a.transpose(swapLastTwo(a.ndim)), dtype, stream);
  let W: DeviceArray | undefined;
  let VR: DeviceArray | undefined;
  let info: DeviceArray | undefined;
  try {
    if (A.size > 0) checkFinite(A, action, stream);
    W = DeviceArray.empty([...batch, n], wDtype, { stream });
    VR = vectors ? DeviceArray.empty([...batch, n, n], dtype, { stream }) : undefined; // column-major n×n each
    info = DeviceArray.zeros([Math.max(1, count)], "int32", { stream });
    if (count > 0 && n > 0) {
      const jobvr = vectors ? EIG_VECTOR : EIG_NOVECTOR;
      const ldvr = vectors ? n : 1;
      const vr = (i: number) => (VR === undefined ? null : at(VR, i, n * n));
      using ws = new Workspace(stream);
      using _ = contextScope(stream.context.handle);
      // No left eigenvectors (geev computes none): VL null, ldvl 1.
      const [dev, host] = cusolver.cusolverDnXgeev_bufferSize(h, params, EIG_NOVECTOR, jobvr, n, dataType, at(A, 0, n * n), n, wType, at(W, 0, n), dataType, null, 1, dataType, vr(0), ldvr, dataType);
      const dw = ws.device(dev);
      const hw = ws.host(host);
      for (let i = 0; i < count; i++) {
        cusolver.cusolverDnXgeev(h, params, EIG_NOVECTOR, jobvr, n, dataType, at(A, i, n * n), n, wType, at(W, i, n), dataType, null, 1, dataType, vr(i), ldvr, dataType, dw, dev, hw, host, at(info, i, 1));
      }
    }
  } catch (e) {
    closeAll(stream, A, W, VR, info);
    throw e;
  }
  A.close(stream);
  try {
    checkGeevInfo(info, n, stream);
  } catch (e) {
    closeAll(stream, W, VR);
    throw e;
  }
  return results(W, VR, dtype, batch, count, n, stream);
}

/** The eigenvalues and eigenvectors in NumPy's dtypes, from W and the column-major VR (both closed unless returned). */
function results(W: DeviceArray, VR: DeviceArray | undefined, dtype: DType, batch: readonly number[], count: number, n: number, stream: Stream): { w: DeviceArray; v: DeviceArray | undefined } {
  let w: DeviceArray | undefined;
  let v: DeviceArray | undefined;
  try {
    if (dtype.kind !== "c" && imaginaryPartsZero(W, stream)) {
      // Every eigenvalue real: their real parts, and VR's columns (each a real eigenvector) as they are.
      w = DeviceArray.empty([...batch, n], dtype, { stream });
      if (w.size > 0) stridedView(flatReal(W), [w.size], [2]).copyTo(stridedView(w, [w.size], [1]), { stream });
      if (VR !== undefined) v = transposedBack(VR, count, n, n, batch, stream);
    } else {
      w = W;
      if (VR !== undefined && dtype.kind === "c") v = transposedBack(VR, count, n, n, batch, stream);
      else if (VR !== undefined) {
        // Real input, complex eigenvalues: the packed real vectors unpacked into complex columns, row-major.
        v = DeviceArray.empty([...batch, n, n], W.dtype, { stream });
        if (v.size > 0) kernelOf(GEEV_VECTORS).launch(stream, VR, W, n, v);
      }
    }
  } catch (e) {
    closeAll(stream, w === W ? undefined : w, v, W, VR);
    throw e;
  }
  closeAll(stream, w === W ? undefined : W, VR);
  return { w, v };
}

/** Whether every eigenvalue in W (complex) has an imaginary part of exactly zero: NumPy's test for a real result. */
function imaginaryPartsZero(W: DeviceArray, stream: Stream): boolean {
  if (W.size === 0) return true;
  const parts = W.toTypedArraySync({ stream }) as Float32Array | Float64Array; // real, imaginary, real, ...
  for (let k = 1; k < parts.length; k += 2) if (parts[k] !== 0) return false;
  return true;
}

/** Refuses NaN and infinity as NumPy's eig does (its LinAlgError "Array must not contain infs or NaNs"); waits. */
function checkFinite(A: DeviceArray, action: string, stream: Stream): void {
  const finite = isfinite(A, { stream });
  let every: DeviceArray | undefined;
  let ok: boolean;
  try {
    every = all(finite, { stream });
    ok = (every.toTypedArraySync({ stream }) as Uint8Array)[0] !== 0;
  } finally {
    closeAll(stream, finite, every);
  }
  if (!ok) throw new ArgumentError(`${action}: a must hold finite numbers (NumPy's ${action} refuses NaN and infinity too), but holds NaN or infinity; replace them first (nanToNum, or where with isfinite)`);
}

/**
 * Reads geev's `info` of every matrix back (waits for the stream) and throws the first failure's error: for info
 * i > 0 a ConvergenceError (the QR algorithm did not find eigenvalues 1..i; NumPy's "Eigenvalues did not converge").
 */
function checkGeevInfo(info: DeviceArray, n: number, stream: Stream): void {
  let values: Int32Array;
  try {
    values = info.toTypedArraySync({ stream }) as Int32Array;
  } finally {
    info.close(stream);
  }
  for (let i = 0; i < values.length; i++) {
    const code = values[i]!;
    if (code === 0) continue;
    let e: SolverInfoError;
    if (code > 0) {
      e = new ConvergenceError(GEEV, code);
      e.message = `${GEEV}: the QR algorithm did not converge (info ${code}): eigenvalues 1 to ${code} of ${n} were not found and no eigenvectors were computed (NumPy's "Eigenvalues did not converge"); computing in float64, or scaling the matrix, may help`;
    } else {
      e = infoError(GEEV, code, n)!;
    }
    if (values.length > 1) e.message = `matrix ${i} of the batch: ${e.message}`;
    throw e;
  }
}
