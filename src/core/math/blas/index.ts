/**
 * cuda-ts/math/blas: dense linear algebra on DeviceArrays through cuBLAS and cuBLASLt.
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
} from "./blas.ts";
export { BlasLt, MatmulPlan, type BlasLtActivation, type BlasLtOptions, type MatmulOptions } from "./blaslt.ts";
export { BlasDeviceError } from "../../errors.ts";
export { DEFAULT_WORKSPACE_BYTES, type BlasWorkspaceOptions } from "./common.ts";
export { type BlasComputeType, type BlasScalar, matrixStorage, planGemm, type GemmPlan, type MatrixStorage } from "./plan.ts";
export { CUBLASError } from "../../../bindings/errors.ts";
