/**
 * What the object layer shares about the driver: one-time initialisation, the raw and checked tables, and the
 * current context of this thread (read from the driver, never cached across calls that other code could make).
 *
 * @module
 */
import { driver, type CUcontext } from "../../bindings/driver.ts";
import { ffi, Scratch } from "../../ffi/index.ts";

let initialised = false;

/** Calls cuInit(0) once per process. */
export function ensureInit(): void {
  if (initialised) return;
  driver.cuInit(0);
  initialised = true;
}

const scratch = new Scratch(16);
const slot0 = scratch.pointerAt(0);

/** The context current on this thread (cuCtxGetCurrent), without allocating when it is unchanged. */
export function currentContextHandle(): CUcontext {
  const r = driver.raw.cuCtxGetCurrent(slot0);
  if (r !== 0) driver.cuCtxGetCurrent(); // throws the typed error
  return scratch.readPointer(0) as CUcontext;
}

/** Makes `handle` current on this thread when it is not already. */
export function makeCurrent(handle: CUcontext): void {
  if (!ffi.samePointer(currentContextHandle(), handle)) driver.cuCtxSetCurrent(handle);
}

/**
 * Runs `fn` with the context `handle` current on this thread, then makes the previous context current again (the
 * one "make current, run, restore" of the object layer; `Context.run` and `Device.withContext` are it too). When
 * `handle` is already current it is not set again.
 */
export function withCurrentContext<T>(handle: CUcontext, fn: () => T): T {
  const previous = currentContextHandle();
  if (!ffi.samePointer(previous, handle)) driver.cuCtxSetCurrent(handle);
  try {
    return fn();
  } finally {
    makeCurrent(previous);
  }
}

/** A numeric key for a handle (for maps and comparisons). */
export function addressKey(p: unknown): number {
  return ffi.addressOf(p as Parameters<typeof ffi.addressOf>[0]);
}

export { driver };
