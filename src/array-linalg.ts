/**
 * `cuda-ts/array/linalg`: NumPy's `numpy.linalg` over DeviceArrays, in the manner of CuPy's `cupy.linalg`:
 * `matmul`, `dot`, `vdot`, `outer` (cuBLAS; bool and integers by a kernel of their own), `einsum` and `tensordot`
 * (sums of products over labelled axes, as a sequence of matmuls) and `solve`, `inv`, `det`, `slogdet`, `cholesky`,
 * `qr`, `svd`, `eigh`, `eigvalsh`, `eig`, `eigvals`, `lstsq` (cuSOLVER), batched over leading axes, synchronous calls
 * (no `await`); `cov` and `corrcoef` (NumPy's covariance and correlation matrices, one matmul each); `cross`, `kron`,
 * `inner` and `matrixPower` (composed of elementwise operations, `tensordot` and `matmul`); `pinv` and `matrixRank`
 * (from the singular values of `svd`, or `eigh` for Hermitian matrices); `polyfit` and `roots` (NumPy's polynomial
 * fit, through `lstsq`, and roots, through `eigvals`).
 *
 * ```ts
 * import { einsum, matmul, solve, svd } from "cuda-ts/array/linalg";
 * const c = matmul(a, b);                          // [..., m, k] · [..., k, n], batches broadcast
 * const scores = einsum("bhqd,bhkd->bhqk", q, k);  // NumPy's subscripts: a batched product, a new array
 * const x = solve(a, b);                           // reads cuSOLVER's info: SingularMatrixError for a singular a
 * const { u, s, vh } = svd(m, { fullMatrices: false });
 * const c = cov(samples, { rowvar: false });        // [observations, variables] → [variables, variables]
 * ```
 *
 * Its own entry point, not part of `cuda-ts/array`: importing it loads the cuBLAS and cuSOLVER binding tables (the
 * libraries themselves load at the first call, whose handles are cached per device).
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export {
  matmul,
  dot,
  vdot,
  outer,
  solve,
  inv,
  det,
  slogdet,
  cholesky,
  qr,
  svd,
  eigh,
  eigvalsh,
  lstsq,
  type MatmulOptions,
  type CholeskyOptions,
  type QrOptions,
  type QrResult,
  type SvdOptions,
  type SvdResult,
  type EighOptions,
  type SlogdetResult,
  type EighResult,
  type LstsqOptions,
  type LstsqResult,
} from "./core/array/linalg/linalg.ts";
export { einsum, tensordot, type EinsumOptions, type TensordotOptions } from "./core/array/linalg/einsum.ts";
export { cov, corrcoef, type CovOptions, type CorrcoefOptions } from "./core/array/linalg/covariance.ts";
export { cross, kron, inner, matrixPower, type CrossOptions } from "./core/array/linalg/products.ts";
export { pinv, matrixRank, type PinvOptions, type MatrixRankOptions } from "./core/array/linalg/singular-values.ts";
export { eig, eigvals, type EigOptions, type EigResult } from "./core/array/linalg/eig.ts";
export { poly, polyfit, roots, type PolyfitCovarianceResult, type PolyfitOptions, type PolyfitResult, type RootsOptions } from "./core/array/linalg/polynomial-fits.ts";
export { SingularMatrixError, NotPositiveDefiniteError, ConvergenceError, SolverInfoError } from "./core/math-errors.ts";
