/**
 * What an allocation does when the driver answers CUDA_ERROR_OUT_OF_MEMORY, before it gives up (as CuPy's pool and
 * CUDA.jl do): it waits for the device, trims the unused memory of the device's pools and retries; then, where the
 * runtime offers a collector (`Bun.gc(true)`; `globalThis.gc` under Deno's `--v8-flags=--expose-gc`), it collects,
 * frees the memory of the buffers the collector cleared (stats.ts), trims again and retries once more. Only then
 * does it throw {@link OutOfMemoryError}, with the figures a user needs (PyTorch's message is the model).
 *
 * @module
 */
import { CUresult } from "../../bindings/driver.ts";
import { CudaError } from "../../bindings/errors.ts";
import { runtimeName } from "../../host.ts";
import { OutOfMemoryError, type OutOfMemoryReport } from "./errors.ts";
import { collectDroppedBuffers, collector, memoryStatsOf, noteOutOfMemory, poolsOf } from "./stats.ts";

const CUDA_ERROR_OUT_OF_MEMORY = CUresult.CUDA_ERROR_OUT_OF_MEMORY;

/** Whether `e` is the driver's out-of-memory (and not already an OutOfMemoryError). */
export function isOutOfMemory(e: unknown): e is CudaError {
  return e instanceof CudaError && e.code === CUDA_ERROR_OUT_OF_MEMORY && !(e instanceof OutOfMemoryError);
}

/** What the allocator gives the recovery: how to wait for the device and read its memory, in its context. */
export interface OutOfMemoryContext {
  readonly deviceId: number;
  readonly bytes: number | bigint;
  /** Waits for the device's work (frees ordered on streams complete), in the allocation's context. */
  readonly sync: () => void;
  /** cuMemGetInfo in the allocation's context: [free, total]. */
  readonly memoryInfo: () => readonly [number, number];
}

function trimPools(deviceId: number): void {
  for (const p of poolsOf(deviceId)) {
    try {
      p.trimTo(0);
    } catch {
      // A closed or mapped pool: nothing to trim there.
    }
  }
}

function quietly(fn: () => void): void {
  try {
    fn();
  } catch {
    // The retry answers for the device: a failing wait or trim only means less was freed.
  }
}

/**
 * Recovers from `error` (an out-of-memory of `retry`'s allocation) as the module documentation says, returning
 * what `retry` returns, or throws {@link OutOfMemoryError}.
 */
export function recoverOutOfMemory<T>(error: CudaError, context: OutOfMemoryContext, retry: () => T): T {
  const { deviceId } = context;
  quietly(context.sync);
  trimPools(deviceId);
  try {
    const r = retry();
    noteOutOfMemory(deviceId, "trim");
    return r;
  } catch (e) {
    if (!isOutOfMemory(e)) throw e;
  }
  const freed = collectDroppedBuffers();
  if (freed !== undefined) {
    quietly(context.sync);
    trimPools(deviceId);
    try {
      const r = retry();
      noteOutOfMemory(deviceId, "collection");
      return r;
    } catch (e) {
      if (!isOutOfMemory(e)) throw e;
    }
  }
  noteOutOfMemory(deviceId, "thrown");
  throw outOfMemoryError(error, context, freed !== undefined);
}

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** Bytes for a person: GiB or MiB with two decimals, or bytes. */
export function formatBytes(n: number | undefined): string {
  if (n === undefined) return "(unknown)";
  if (n >= GiB) return `${(n / GiB).toFixed(2)} GiB`;
  if (n >= MiB) return `${(n / MiB).toFixed(2)} MiB`;
  return `${n} bytes`;
}

function outOfMemoryError(error: CudaError, context: OutOfMemoryContext, collected: boolean): OutOfMemoryError {
  let free: number | undefined;
  let total: number | undefined;
  try {
    [free, total] = context.memoryInfo();
  } catch {
    // Left unknown.
  }
  const stats = memoryStatsOf(context.deviceId, true);
  const requested = Number(context.bytes);
  const report: OutOfMemoryReport = Object.freeze({
    requestedBytes: requested,
    freeBytes: free,
    totalBytes: total,
    bytesInUse: stats.bytesInUse,
    liveObjects: stats.liveObjects,
    poolReservedUnusedBytes: stats.poolReservedUnusedBytes,
    collected,
  });
  const noCollector =
    runtimeName === "deno"
      ? " Deno gives cuda-ts no collector to run: start it with `deno run --v8-flags=--expose-gc ...` so that dropped arrays are collected before this error."
      : runtimeName === "bun"
        ? ""
        : " This runtime gives cuda-ts no collector to run (start Node with --expose-gc).";
  const message =
    `${error.codeName}: out of memory allocating ${formatBytes(requested)} on device ${context.deviceId} (${error.functionName}). ` +
    `The device has ${formatBytes(free)} free of ${formatBytes(total)}; this process's live arrays and buffers hold ` +
    `${formatBytes(stats.bytesInUse)} in ${stats.liveObjects} object${stats.liveObjects === 1 ? "" : "s"}; its pools keep ` +
    `${formatBytes(stats.poolReservedUnusedBytes)} reserved but unused. cuda-ts trimmed the pools${collected ? ", collected garbage to free dropped arrays" : ""} and retried.` +
    (collected || collector() !== undefined ? "" : noCollector) +
    " Free memory you no longer need: close() arrays and buffers (or make them with `using`), run temporaries inside scope(() => ...), " +
    "trim a pool's cache (resource.trimTo(0)), or work in smaller batches." +
    (total !== undefined && requested > total ? ` The size asked for is more than the device holds (${formatBytes(total)}).` : "");
  return new OutOfMemoryError(error, context.deviceId, report, message);
}
