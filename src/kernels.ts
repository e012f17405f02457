/**
 * `cuda-ts/kernels`: kernels written from a line of C++, as CuPy writes them: {@link ElementwiseKernel} and
 * {@link ReductionKernel}, compiled by NVRTC on first use per type and cached.
 *
 * ```ts
 * import { ElementwiseKernel } from "cuda-ts/kernels";
 * const axpy = new ElementwiseKernel("T a, T x, T y", "T z", "z = a * x + y", "axpy");
 * const bias = axpy.launch(stream, 1, m, row);            // [n, k] and [k] broadcast; views welcome
 * const colSums = sum.launch(stream, m, { axis: 0 });     // a ReductionKernel along an axis
 * ```
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export { ElementwiseKernel, type StridedShape } from "./core/kernels/elementwise.ts";
export { ReductionKernel, REDUCTION_BLOCK, type ReductionOptions, type ReductionCallOptions, type ReductionArguments, type AxisShape } from "./core/kernels/reduction.ts";
export { builderStats, type BuilderOptions } from "./core/kernels/compile.ts";
export type { BuilderArgument, KernelParam } from "./core/kernels/params.ts";
