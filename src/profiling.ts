/**
 * `cuda-ts/profiling`: NVTX ranges and marks (what Nsight Systems shows), the profiler's capture range, and kernel,
 * copy and memset timings through CUPTI ({@link profile}). CUPTI's tables load on the first `profile()`.
 *
 * ```ts
 * import { nvtx, profile } from "cuda-ts/profiling";
 * using _ = nvtx.range("step");
 * const { kernels } = await profile(() => work(stream));
 * ```
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export * as nvtx from "./core/nvtx/index.ts";
export { RegisteredString, type NvtxRange, type EventOptions as NvtxEventOptions, type NvtxStatus } from "./core/nvtx/nvtx.ts";
export {
  profile,
  profiler,
  type CaptureRange,
  type ActivityKind,
  type KernelActivity,
  type MemcpyActivity,
  type MemcpyDirection,
  type MemsetActivity,
  type ProfileOptions,
  type ProfileResult,
  type StreamActivity,
} from "./core/profiling/index.ts";
