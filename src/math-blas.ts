/**
 * `cuda-ts/math/blas`: dense linear algebra on DeviceArrays through cuBLAS and cuBLASLt.
 *
 * ```ts
 * import { Blas, BlasLt } from "cuda-ts/math/blas";
 * using blas = new Blas({ stream });
 * blas.gemm(a, b, c);                                   // c = a·b, row-major arrays and their views
 * using lt = new BlasLt({ stream });
 * lt.matmul(x, w.T, y, { bias, activation: "gelu" });   // y = gelu(x·wᵀ + bias), planned once per shape
 * ```
 *
 * Its own entry point, not part of `cuda-ts`: importing it loads the cuBLAS and cuBLASLt binding tables (the
 * libraries themselves load at the first handle), which the root import should not pay for.
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export {
  Blas,
  type BlasEmulationStrategy,
  type BlasMathMode,
  type BlasOptions,
  type BlasPointerMode,
  type BlasResult,
  type BlasScalarArgument,
  type DotOptions,
  type GemmOptions,
  type GemvOptions,
  type ReductionOptions,
} from "./core/math/blas/blas.ts";
export { BlasLt, MatmulPlan, type BlasLtActivation, type BlasLtOptions, type MatmulOptions } from "./core/math/blas/blaslt.ts";
export { DEFAULT_WORKSPACE_BYTES, type BlasWorkspaceOptions } from "./core/math/blas/common.ts";
export { type BlasComputeType, type BlasScalar, matrixStorage, planGemm, type GemmPlan, type MatrixStorage } from "./core/math/blas/plan.ts";
export { CUBLASError } from "./bindings/errors.ts";
