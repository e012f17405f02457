/**
 * CUDA contexts: the device's primary context (what `Device.setCurrent()` retains) and contexts created with
 * cuCtxCreate. Streams, events, buffers and loaded code belong to a context and keep it alive.
 *
 * @module
 */
import { CUlimit, type CUcontext } from "../bindings/driver.ts";
import { addressKey, currentContextHandle, driver, ensureInit, enterContext, makeCurrent, withCurrentContext } from "./base/driver-state.ts";
import { ffi } from "../ffi/index.ts";
import { ClosedError } from "./base/errors.ts";
import { faulted } from "./base/fault.ts";
import { IdentityMap, track, untrack } from "./base/lifetime.ts";
import type { Device } from "./device.ts";
import { deviceOf } from "./base/hub.ts";
import { INTERNAL, checkInternal, type Internal } from "./base/internal.ts";

const contexts = new IdentityMap<Context>();

/** The context limits (cuCtxGetLimit / cuCtxSetLimit), by name. */
export const CONTEXT_LIMITS = Object.freeze({
  /** Stack bytes per GPU thread. */
  stackSize: CUlimit.CU_LIMIT_STACK_SIZE,
  /** Bytes of the FIFO device-side printf writes into. */
  printfFifoSize: CUlimit.CU_LIMIT_PRINTF_FIFO_SIZE,
  /** Bytes of the heap device-side malloc allocates from. */
  mallocHeapSize: CUlimit.CU_LIMIT_MALLOC_HEAP_SIZE,
  /** Nesting depth of device-runtime grid synchronisation. */
  devRuntimeSyncDepth: CUlimit.CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH,
  /** Outstanding device-runtime launches. */
  devRuntimePendingLaunchCount: CUlimit.CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT,
  /** L2 fetch granularity in bytes (a hint). */
  maxL2FetchGranularity: CUlimit.CU_LIMIT_MAX_L2_FETCH_GRANULARITY,
  /** Bytes of L2 set aside for persisting accesses. */
  persistingL2CacheSize: CUlimit.CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
});

/** The name of a context limit. */
export type ContextLimit = keyof typeof CONTEXT_LIMITS;

function limitOf(name: unknown): CUlimit {
  if (typeof name !== "string" || !Object.hasOwn(CONTEXT_LIMITS, name)) {
    throw new RangeError(`expected a context limit (${Object.keys(CONTEXT_LIMITS).join(", ")}), got ${JSON.stringify(name)}`);
  }
  return CONTEXT_LIMITS[name as ContextLimit];
}

/**
 * @internal Makes `context` current for one driver call and returns what to restore (pass it to `leaveContext`);
 * the hot paths' form of {@link enterContext}, comparing the context's address kept from its construction.
 * ClosedError for a closed context.
 */
export let enterContextOf: (context: Context) => ReturnType<typeof enterContext>;

/** A CUDA context. Not constructed directly: see `Device.setCurrent()`, `Device.createContext()`, `Context.fromHandle()`. */
export class Context {
  #handle: CUcontext;
  #closed = false;
  /** The device the context is on. */
  readonly device: Device;
  /** Whether this is the device's primary context. */
  readonly isPrimary: boolean;
  /** Whether this object owns the context (created it) and destroys it on close. */
  readonly #owned: boolean;
  /** The handle's address (what enterContext compares the current context with). */
  readonly #address: number;

  static {
    enterContextOf = (c) => {
      if (c.#closed) throw new ClosedError("this Context", "use its handle");
      return enterContext(c.#handle, c.#address);
    };
  }

  /** Reserved to cuda-ts (the token is not exported): use `device.context` or `Context.fromHandle`. */
  constructor(token: Internal, handle: CUcontext, device: Device, isPrimary: boolean, owned: boolean) {
    checkInternal(token, "Context", "device.context or Context.fromHandle");
    this.#handle = handle;
    this.#address = ffi.addressOf(handle);
    this.device = device;
    this.isPrimary = isPrimary;
    this.#owned = owned;
    contexts.set(this.#address, this);
    if (owned) {
      const h = handle;
      track(this, "Context", () => driver.cuCtxDestroy(h));
    }
  }

  /** The CUcontext handle. */
  get handle(): CUcontext {
    if (this.#closed) throw new ClosedError("this Context", "use its handle");
    return this.#handle;
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Makes this context current on the calling thread. */
  setCurrent(): void {
    makeCurrent(this.handle);
  }

  /** Makes this context current on the calling thread (for the duration of `fn`, then restores). */
  run<T>(fn: () => T): T {
    return withCurrentContext(this.handle, fn);
  }

  /** A limit of this context, in bytes or counts (cuCtxGetLimit): `ctx.getLimit("mallocHeapSize")`. */
  getLimit(name: ContextLimit): number {
    const limit = limitOf(name);
    return Number(this.run(() => driver.cuCtxGetLimit(limit)));
  }

  /**
   * Sets a limit of this context (cuCtxSetLimit): `ctx.setLimit("printfFifoSize", 1 << 24)`. The driver may round
   * it; read it back with getLimit. Some limits can only be set before the first launch that uses them.
   */
  setLimit(name: ContextLimit, value: number | bigint): void {
    const limit = limitOf(name);
    if ((typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) && (typeof value !== "bigint" || value < 0n)) {
      throw new RangeError(`Context.setLimit(${name}): expected a non-negative integer, got ${String(value)}`);
    }
    this.run(() => driver.cuCtxSetLimit(limit, value));
  }

  /** Blocks until every operation of this context has finished. */
  sync(): void {
    this.run(() => driver.cuCtxSynchronize());
  }

  /**
   * Destroys a context this object created; for the primary context and borrowed handles it only marks the object
   * closed (the primary context lives as long as the process, as in cuda.core). Closing twice is harmless.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    contexts.delete(this.#address, this);
    if (this.#owned) {
      untrack(this);
      if (faulted()) return; // after a sticky fault: nothing to release, nothing to throw
      driver.cuCtxDestroy(this.#handle);
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** The Context object of a handle (the same object for the same live handle). */
  static fromHandle(handle: CUcontext): Context {
    ensureInit();
    const existing = contexts.get(addressKey(handle));
    if (existing !== undefined) return existing;
    // Which device? Ask the driver with the context current.
    const ordinal = withCurrentContext(handle, () => driver.cuCtxGetDevice());
    return new Context(INTERNAL, handle, deviceOf(ordinal), false, false);
  }

  /** The context current on the calling thread, or undefined when there is none. */
  static current(): Context | undefined {
    ensureInit();
    const h = currentContextHandle();
    return h === null ? undefined : Context.fromHandle(h);
  }

  equals(other: Context): boolean {
    return this.#address === other.#address;
  }
}

