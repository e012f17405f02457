/**
 * A `using` scope that makes a context current on this thread and makes the previous one current again when the
 * scope ends: `using _ = contextScope(handle);` in place of `enterContext`/`leaveContext` in a try/finally. When the
 * context is current already nothing is set, and nothing is allocated (the scope is a shared no-op).
 *
 * @module
 */
import type { CUcontext } from "../../bindings/driver.ts";
import { enterContext, leaveContext, UNCHANGED } from "./driver-state.ts";

/** The scope returned when the context was current already. */
const NOTHING_TO_RESTORE: Disposable = Object.freeze({ [Symbol.dispose](): void {} });

/** The scope that makes `previous` current again. */
class Restore implements Disposable {
  readonly #previous: CUcontext;
  constructor(previous: CUcontext) {
    this.#previous = previous;
  }
  [Symbol.dispose](): void {
    leaveContext(this.#previous);
  }
}

/**
 * Makes `handle` current (when it is not already) until the returned scope is disposed, then restores the context
 * that was current before. `address` is the handle's address when the caller keeps it (skips reading it again).
 */
export function contextScope(handle: CUcontext, address?: number): Disposable {
  const previous = address === undefined ? enterContext(handle) : enterContext(handle, address);
  return previous === UNCHANGED ? NOTHING_TO_RESTORE : new Restore(previous);
}
