/**
 * Waiting without blocking the JavaScript thread.
 *
 * - Deno: `cuEventSynchronize` runs as a non-blocking FFI call on one of Deno's worker threads and resolves a
 *   Promise when the event completes. Latency: the driver's wake-up plus Deno's hand-back to the event loop
 *   (tens of microseconds).
 * - Bun: bun:ffi has no non-blocking calls, so the event is polled with `cuEventQuery` (a few hundred nanoseconds
 *   a poll): 16 polls on `setImmediate` (covers work that finishes within ~50 µs), then `setTimeout` with a delay
 *   that doubles from 1 ms to at most 2 ms; once the query says done, one `cuEventSynchronize` (which returns at
 *   once) lets the driver finish its completion work as it does on Deno. Latency after completion: under 2 ms; CPU
 *   cost: about one poll per ms.
 *
 * Either way timers and I/O keep running while a stream or event is awaited.
 *
 * @module
 */
import type { CUevent } from "../../bindings/driver.ts";
import { CUresult, cudaError } from "../../bindings/driver.ts";
import { throwIfFaulted } from "../../bindings/driver-fault.ts";
import { ffi } from "../../ffi/index.ts";
import { driver } from "./driver-state.ts";

const CUDA_ERROR_NOT_READY = CUresult.CUDA_ERROR_NOT_READY;
const CUDA_ERROR_INVALID_CONTEXT = CUresult.CUDA_ERROR_INVALID_CONTEXT;

const tick = (): Promise<void> =>
  new Promise((resolve) => {
    const si = (globalThis as { setImmediate?: (fn: () => void) => void }).setImmediate;
    if (si) si(resolve);
    else setTimeout(resolve, 0);
  });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function poll(event: CUevent, what: string): Promise<void> {
  let polls = 0;
  let delay = 1;
  for (;;) {
    const r = driver.raw.cuEventQuery(event);
    if (r === 0) {
      // Done. Synchronise once too (it returns at once): the driver does its completion work there (a
      // stream-ordered pool gets back what was freed before the event), so Bun leaves the state Deno's
      // cuEventSynchronize leaves.
      const s = driver.raw.cuEventSynchronize(event);
      if (s !== 0) throw cudaError(s, what);
      return;
    }
    if (r !== CUDA_ERROR_NOT_READY) throw cudaError(r, what);
    if (++polls <= 16) await tick();
    else {
      await sleep(delay);
      delay = Math.min(delay * 2, 2);
    }
  }
}

let nonblockingBroken = false;

/** Resolves when `event` has completed; rejects with CudaError if the work failed. */
export async function waitForEvent(event: CUevent, what: string): Promise<void> {
  throwIfFaulted(what);
  if (ffi.supportsNonblocking && !nonblockingBroken) {
    const sync = driver.nonblocking("cuEventSynchronize");
    const r = await sync(event);
    if (r === 0) return;
    // A worker thread without a current context cannot synchronise on some drivers: fall back to polling.
    if (r === CUDA_ERROR_INVALID_CONTEXT) nonblockingBroken = true;
    else throw cudaError(r, what);
  }
  return poll(event, what);
}

/** How this runtime waits (for documentation and `cuda-ts doctor`). */
export const waitingStrategy: string = ffi.supportsNonblocking
  ? "non-blocking FFI call (cuEventSynchronize on a Deno worker thread)"
  : "polling cuEventQuery (setImmediate ×16, then setTimeout backing off from 1 ms to 2 ms)";
