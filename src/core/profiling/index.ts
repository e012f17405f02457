/**
 * Observability for the GPU's work: `profiler` (the driver's capture range for Nsight) and `profile()` (kernel,
 * memcpy and memset timings through CUPTI, with no profiler attached). NVTX is `src/core/nvtx`.
 *
 * ```ts
 * import { profile } from "cuda-ts";
 * const { kernels, memcpys, result } = await profile(async () => {
 *   launch(stream, config, kernel, x, y, u32(n));
 *   await stream.done();
 *   return 42;
 * });
 * for (const k of kernels) console.log(k.name, k.grid, k.block, k.duration, "ns");
 * ```
 *
 * How `profile()` works: the first call of a process loads libcupti (the pathfinder's places: a toolkit's
 * `extras/CUPTI/lib64`, NVIDIA's `nvidia-cuda-cupti` wheel, conda; `CUDA_TS_CUPTI_PATH`) and the CUPTI tables
 * (imported then, not with cuda-ts), and registers two buffer callbacks with `cuptiActivityRegisterCallbacks`,
 * kept for the life of the process. Each call enables `CONCURRENT_KERNEL`, `MEMCPY` and `MEMSET` (or the `kinds`
 * asked for), runs the function, waits for the current context's work (`cuCtxSynchronize`, unless
 * `synchronize: false`), disables the kinds and flushes with `cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)`:
 * CUPTI hands its buffers back through the completion callback before that call returns, and the records are
 * parsed in the callback, by the layouts of the generated tables of the CUPTI version loaded
 * (`CUpti_ActivityKernel10`, `CUpti_ActivityMemcpy6`, `CUpti_ActivityMemset4` for CUDA 13; `Kernel9`, `Memcpy5`,
 * `Memset4` for 12). Timestamps are CUPTI's clock (`cuptiGetTimestamp`, ns), durations ns.
 *
 * **Threads.** CUPTI calls the buffer callbacks on the thread that makes the CUDA call or the flush, and may also
 * hand a full buffer back from its own worker thread.
 * - Deno: the callbacks are thread-safe ones, and the flush runs as a non-blocking FFI call on a worker thread
 *   while the JavaScript thread waits in the event loop: a callback from any thread is run on the JavaScript thread,
 *   and nothing can deadlock (test/profiling checks the cross-thread path with a fake libcupti).
 * - Bun: its FFI callbacks must not be called from another thread (src/ffi), so the flush is a plain call on the
 *   JavaScript thread, and buffers are large (`bufferBytes`, 8 MiB by default: ~38 000 kernel records each) so that
 *   none fills inside a scope. A scope that records more should be split into several `profile()` calls or be
 *   given larger buffers.
 *
 * One `profile()` at a time per process (CUPTI's activity state is process-wide): another while one runs is a
 * {@link ProfilerBusyError}. Where a profiler already owns CUPTI (Nsight Systems, Nsight Compute), enabling fails
 * with a `CUPTIError`.
 *
 * @module
 */
import type { ProfileOptions, ProfileResult } from "./types.ts";
import { importLater } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";

export * as profiler from "./profiler.ts";
export type { CaptureRange } from "./profiler.ts";
export { ProfilerBusyError, ProfileOptionError } from "./errors.ts";
export type {
  ActivityKind,
  KernelActivity,
  MemcpyActivity,
  MemcpyDirection,
  MemsetActivity,
  ProfileOptions,
  ProfileResult,
  StreamActivity,
  StreamLike,
} from "./types.ts";

/**
 * Runs `fn` with CUPTI's activity collection on and returns what ran on the GPU meanwhile: kernels (name, grid,
 * block, start, end, duration, stream, correlation id), memcpys (direction, bytes, times, stream) and memsets.
 *
 * @param fn - the work to time; it may be async. Launch on any stream; await its completion or leave it to
 *   `synchronize` (by default the current context's work is waited for).
 * @param options - kinds to collect, whether to synchronize, buffer size.
 * @returns the function's result and the activity records (`forStream(stream)` picks one stream's).
 * @throws {@link ProfilerBusyError} while another `profile()` runs; {@link ProfileOptionError} for bad options;
 *   `LibraryNotFoundError` when libcupti is not found; `CUPTIError` when CUPTI refuses (another profiler owns it).
 *   An exception of `fn` is rethrown after collection is switched off.
 */
export async function profile<T>(fn: () => T | Promise<T>, options?: ProfileOptions): Promise<ProfileResult<Awaited<T>>> {
  const { profile: run } = await importLater<typeof import("./activity.ts")>(ownModuleUrl("src/core/profiling/activity"), "profile (CUPTI)");
  return run(fn, options);
}
