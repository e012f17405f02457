/**
 * `cuda-ts/math`: the CUDA math libraries over DeviceArrays: random numbers (cuRAND), FFTs (cuFFT), dense solvers
 * (cuSOLVER) and sparse matrices (cuSPARSE). Each library's tables load when its first object is made (`await
 * Rng.create(...)`), never at import. Dense linear algebra (cuBLAS, cuBLASLt) is `cuda-ts/math/blas`.
 *
 * ```ts
 * import { Rng } from "cuda-ts/math";
 * using rng = await Rng.create({ stream, generator: "philox", seed: 42 });
 * rng.uniform(x);
 * ```
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export { Rng, RNG_GENERATORS, RNG_ORDERINGS, type RngGenerator, type RngOrdering, type RngOptions, type NormalOptions } from "./core/math/rng/rng.ts";
export { Fft, FftPlan, type FftDType, type FftOptions, type FftForwardOptions, type FftInverseOptions } from "./core/math/fft/fft.ts";
export type { FftKind, FftPrecision, FftPlanSpec, FftLayout } from "./core/math/fft/layout.ts";
export {
  Solver,
  type SolverDType,
  type SolverOptions,
  type TriangleOptions,
  type LuFactorization,
  type CholeskyFactorization,
  type SolverResults,
} from "./core/math/solver/solver.ts";
export {
  Sparse,
  SparseMatrix,
  type SparseOptions,
  type SparseValueDType,
  type SparseIndexDType,
  type SparseOperation,
  type SparseScalar,
  type SparseLayout,
  type CsrInit,
  type CooInit,
  type SparseProductOptions,
} from "./core/math/sparse/sparse.ts";
export { CURANDError, CUFFTError, CUSOLVERError, CUSPARSEError } from "./bindings/errors.ts";
