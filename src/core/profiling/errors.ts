/**
 * The errors of `profile()`: a bad option, a second `profile()` while one runs, `profile()` on Bun. Each is re-exported
 * by src/core/errors.ts, the root's one import path for errors.
 *
 * @module
 */
import { ArgumentError, InvalidStateError, UnsupportedError } from "../../errors/base.ts";

/** A bad option of `profile()`. */
export class ProfileOptionError extends ArgumentError {
  constructor(what: string, expected: string, got: unknown) {
    super(`profile(): ${what} must be ${expected}; got ${typeof got === "string" ? JSON.stringify(got) : String(got)}.`);
    this.name = "ProfileOptionError";
  }
}

/** A second `profile()` started while one was running: CUPTI's activity state is one per process. */
export class ProfilerBusyError extends InvalidStateError {
  constructor() {
    super("profile(): another profile() is running in this process (CUPTI's activity collection is process-wide). Await it first, or profile both parts in one call.");
    this.name = "ProfilerBusyError";
  }
}

/**
 * `profile()` on Bun: CUPTI delivers its activity buffers from a thread of its own, and Bun's callbacks cannot be
 * entered from another thread (on the H200, a `profile()` under Bun hung). Use Deno for kernel timings, or CUDA
 * events (`Event.elapsedTime`). `CUDA_TS_BUN_CUPTI=1` lifts the refusal, at the risk of a hang.
 */
export class ProfilerUnsupportedError extends UnsupportedError {
  constructor() {
    super(
      "profile(): CUPTI's activity buffers come back on a thread of CUPTI's own, which Bun's FFI callbacks cannot take (a profile() under Bun hung on the H200). " +
        "Run it under Deno, or time kernels with CUDA events (Event.elapsedTime); CUDA_TS_BUN_CUPTI=1 lifts this refusal at the risk of a hang.",
    );
    this.name = "ProfilerUnsupportedError";
  }
}
