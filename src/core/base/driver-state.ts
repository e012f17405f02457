/**
 * What the object layer shares about the driver: one-time initialisation, the raw and checked tables, and the
 * current context of this thread (read from the driver, never cached across calls that other code could make).
 *
 * @module
 */
import { driver, type CUcontext, type Raw } from "../../bindings/driver.ts";
import { uncheckedNative } from "../../bindings/binding.ts";
import { ffi, Scratch } from "../../ffi/index.ts";
import { runtimeName } from "../../host.ts";

let initialised = false;

/** Calls cuInit(0) once per process. */
export function ensureInit(): void {
  if (initialised) return;
  driver.cuInit(0);
  initialised = true;
}

const scratch = new Scratch(16);
const slot0 = scratch.pointerAt(0);
const words = scratch.u32; // the slot as two 32-bit halves, low first (every CUDA host is little-endian)
let ctxGetCurrent: Raw["cuCtxGetCurrent"] | undefined;

/** Reads the current context into the scratch slot (cuCtxGetCurrent, resolved once); throws the typed error. */
function readCurrent(): void {
  const r = (ctxGetCurrent ??= uncheckedNative(driver, "cuCtxGetCurrent"))(slot0);
  if (r !== 0) driver.cuCtxGetCurrent(); // throws the typed error
}

/** The context current on this thread (cuCtxGetCurrent), without allocating when it is unchanged. */
export function currentContextHandle(): CUcontext {
  readCurrent();
  return scratch.readPointer(0) as CUcontext;
}

/** Makes `handle` current on this thread when it is not already. */
export function makeCurrent(handle: CUcontext): void {
  if (!ffi.samePointer(currentContextHandle(), handle)) driver.cuCtxSetCurrent(handle);
}

/** What {@link enterContext} returns when the context was already current: nothing to restore. */
export const UNCHANGED: unique symbol = Symbol("the context was already current");

/**
 * The first half of {@link withCurrentContext}, for hot paths that run one driver call and cannot afford a
 * closure: makes `handle` current and returns the context to restore, or {@link UNCHANGED} when it was current
 * already. Pair it with {@link leaveContext} in a `finally`. `address` is the handle's address, when the caller
 * keeps it (a Context does: see `enterContextOf`).
 */
export function enterContext(handle: CUcontext, address: number = ffi.addressOf(handle)): CUcontext | typeof UNCHANGED {
  readCurrent();
  // Compared as addresses read from the slot: no pointer object is looked up when the context is current already.
  if (words[0]! + words[1]! * 4294967296 === address) return UNCHANGED;
  const previous = scratch.readPointer(0) as CUcontext;
  driver.cuCtxSetCurrent(handle);
  return previous;
}

/** The second half of {@link withCurrentContext}: makes `previous` current again unless it was {@link UNCHANGED}. */
export function leaveContext(previous: CUcontext | typeof UNCHANGED): void {
  if (previous !== UNCHANGED) driver.cuCtxSetCurrent(previous);
}

/**
 * Runs `fn` with the context `handle` current on this thread, then makes the previous context current again (the
 * one "make current, run, restore" of the object layer; `Context.run` and `Device.withContext` are it too, and the
 * hot paths use its two halves, {@link enterContext} and {@link leaveContext}). When `handle` is already current it
 * is not set again; when `fn` itself changes the current context, the previous one is restored all the same.
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

/**
 * A byte count as a 64-bit (size_t) argument of a hot driver call: a bigint on Deno, whose FFI takes a 64-bit
 * parameter given as a number on its slow path (~150-300 ns more per call on the CPU machine) and a bigint on its
 * fast one; the number itself on Bun, which takes a number faster than a bigint.
 */
export const sizeArgument: (bytes: number) => number | bigint = runtimeName === "deno" ? (n) => BigInt(n) : (n) => n;

/** A numeric key for a handle (for maps and comparisons). */
export function addressKey(p: unknown): number {
  return ffi.addressOf(p as Parameters<typeof ffi.addressOf>[0]);
}

export { driver };
