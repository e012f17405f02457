/**
 * The errors of `profile()`, apart so that importing cuda-ts does not load the CUPTI tables.
 *
 * @module
 */

/** A second `profile()` started while one was running: CUPTI's activity state is one per process. */
export class ProfilerBusyError extends Error {
  constructor() {
    super("profile(): another profile() is running in this process (CUPTI's activity collection is process-wide). Await it first, or profile both parts in one call.");
    this.name = "ProfilerBusyError";
  }
}

/** A bad option of `profile()`. */
export class ProfileOptionError extends TypeError {
  constructor(what: string, expected: string, got: unknown) {
    super(`profile(): ${what} must be ${expected}; got ${typeof got === "string" ? JSON.stringify(got) : String(got)}.`);
    this.name = "ProfileOptionError";
  }
}

