/**
 * `profiler.start()` / `profiler.stop()`: the driver's `cuProfilerStart` / `cuProfilerStop`, which bound the capture
 * range of a profiler that is told to honour it (Nsight Systems: `nsys profile --capture-range=cudaProfilerApi`;
 * Nsight Compute: `ncu --profile-from-start off`). Without a profiler attached they do nothing (CUDA_SUCCESS).
 *
 * ```ts
 * import { profiler } from "cuda-ts";
 * {
 *   using _ = profiler.capture();   // cuProfilerStart now, cuProfilerStop at the end of the block
 *   step();
 * }
 * ```
 *
 * @module
 */
import { ensureInit, currentContextHandle, driver } from "../base/driver-state.ts";
import { NoContextError } from "../base/errors.ts";

function requireContext(what: string): void {
  ensureInit();
  if (currentContextHandle() === null) {
    throw new NoContextError(`profiler.${what}() needs a current CUDA context (cuProfiler${what === "start" ? "Start" : "Stop"} acts on it): call device.setCurrent() first.`);
  }
}

/**
 * Starts the profiler's capture range on the current context (`cuProfilerStart`).
 *
 * @throws {@link NoContextError} without a current context; `CudaError` from the driver.
 */
export function start(): void {
  requireContext("start");
  driver.cuProfilerStart();
}

/**
 * Stops the profiler's capture range on the current context (`cuProfilerStop`), flushing what it collected.
 *
 * @throws {@link NoContextError} without a current context; `CudaError` from the driver.
 */
export function stop(): void {
  requireContext("stop");
  driver.cuProfilerStop();
}

/** A capture range that stops when disposed. */
export interface CaptureRange extends Disposable {
  /** Stops the capture range (once; later calls do nothing). */
  stop(): void;
}

/**
 * Starts a capture range and returns it: `using _ = profiler.capture()` stops it at the end of the block.
 *
 * @throws as {@link start}.
 */
export function capture(): CaptureRange {
  start();
  let open = true;
  const close = (): void => {
    if (!open) return;
    open = false;
    stop();
  };
  return { stop: close, [Symbol.dispose]: close };
}
