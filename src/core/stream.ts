/**
 * Streams: queues of work on a device. Created with `Device.createStream()`, or wrapped with
 * `Stream.fromHandle()`; the legacy and per-thread default streams are module-level objects.
 *
 * @module
 */
import { CU_STREAM_LEGACY, CU_STREAM_PER_THREAD, CUresult, CUstream_flags, cudaError, type CUstream, type Raw } from "../bindings/driver.ts";
import { ffi } from "../ffi/index.ts";
import { Context } from "./context.ts";
import type { Device } from "./device.ts";
import { addressKey, currentContextHandle, driver, ensureInit, withCurrentContext } from "./base/driver-state.ts";
import { uncheckedNative } from "../bindings/binding.ts";
import { ClosedError, NoContextError } from "./base/errors.ts";
import { faulted } from "./base/fault.ts";
import { EventNotRecordedError } from "./event-errors.ts";
import { Event, createEvent, recordEvent, type EventOptions } from "./event.ts";
import type { GraphBuilder } from "./graph/builder.ts";
import { graphBuilderFromStream } from "./base/hub.ts";
import { launchHostFunction, type HostFunction } from "./host-callback.ts";
import { IdentityMap, track, untrack } from "./base/lifetime.ts";
import { waitForEvent } from "./base/waiting.ts";
import { describeValue } from "../errors/describe.ts";
import { INTERNAL, checkInternal, type Internal } from "./base/internal.ts";

/** Options of a new stream. */
export interface StreamOptions {
  /** Does not synchronise with the legacy default stream (CU_STREAM_NON_BLOCKING). Default true, as in cuda.core. */
  readonly nonBlocking?: boolean;
  /**
   * Priority: lower numbers are higher priorities, within the context's range (`cuCtxGetStreamPriorityRange`);
   * default the least priority (0).
   */
  readonly priority?: number;
}

const streams = new IdentityMap<Stream>();
const CU_STREAM_NON_BLOCKING = CUstream_flags.CU_STREAM_NON_BLOCKING;

/** A CUDA stream. */
/** What a capturing GraphBuilder keeps alive for the graph: the objects captured work references. */
export interface CaptureSink {
  push(...values: unknown[]): void;
}

/** @internal `{ stream }`, frozen and made once per stream (for options objects on hot paths). */
export let streamOptionOf: (stream: Stream) => { readonly stream: Stream };
/** @internal The sink of the GraphBuilder capturing `stream`, if one is (module state of Stream). */
export let captureSinkOf: (stream: Stream) => CaptureSink | undefined;
/** @internal Set by a GraphBuilder when it starts and stops capturing `stream`. */
export let setCaptureSink: (stream: Stream, sink: CaptureSink | undefined) => void;
/** @internal The address of the stream's context (0 for the default streams, which use the current one). */
export let streamContextAddress: (stream: Stream) => number;
/**
 * @internal Keeps host memory alive until `stream` is synchronised (while captured: as long as the graph).
 */
export let keepAliveOn: (stream: Stream, value: unknown) => void;

const CUDA_ERROR_NOT_READY = CUresult.CUDA_ERROR_NOT_READY;
let streamQuery: Raw["cuStreamQuery"] | undefined;

export class Stream {
  #handle: CUstream;
  #closed = false;
  readonly #owned: boolean;
  readonly #context: Context | undefined;
  /** Host memory an asynchronous copy still reads or writes; released at the next sync. */
  #inFlight: unknown[] = [];
  /** How many entries of this `#inFlight` list a completed `done()` has released already (they are gone from it). */
  #released = 0;
  /**
   * Set by a GraphBuilder while it captures this stream: what the captured work references (kernels, buffers,
   * host memory) is kept there, as long as the graph, instead of until the next sync.
   */
  #captureSink: CaptureSink | undefined = undefined;

  /** `{ stream: this }`, frozen, made once: the options object stream-ordered calls pass on. */
  #asOption: { readonly stream: Stream } | undefined;

  static {
    streamOptionOf = (s) => (s.#asOption ??= Object.freeze({ stream: s }));
    captureSinkOf = (s) => s.#captureSink;
    setCaptureSink = (s, sink) => {
      s.#captureSink = sink;
    };
    streamContextAddress = (s) => s.#contextAddress;
    keepAliveOn = (s, value) => {
      if (s.#captureSink !== undefined) s.#captureSink.push(value);
      else s.#inFlight.push(value);
    };
  }
  readonly #contextAddress: number;

  /**
   * Reserved to cuda-ts (the token is not exported): use `device.createStream()`, `context.createStream()` or
   * `Stream.fromHandle`.
   */
  constructor(token: Internal, handle: CUstream, context: Context | undefined, owned: boolean) {
    checkInternal(token, "Stream", "device.createStream() or Stream.fromHandle");
    this.#handle = handle;
    this.#context = context;
    this.#owned = owned;
    this.#contextAddress = context === undefined ? 0 : ffi.addressOf(context.handle);
    if (handle !== null && !isSpecial(handle)) streams.set(addressKey(handle), this);
    if (owned && context !== undefined) {
      const h = handle;
      const ctx = context; // keeps the context alive as long as the stream
      track(this, "Stream", () => {
        void ctx;
        driver.cuStreamDestroy(h);
      });
    }
  }

  /**
   * The Stream object of a stream created elsewhere (the same object for the same live handle). The stream is
   * borrowed: closing the object does not destroy it.
   */
  static fromHandle(handle: CUstream, context?: Context): Stream {
    ensureInit();
    if (handle === null || isSpecial(handle)) return handle === null ? LEGACY_DEFAULT_STREAM : specialStream(handle);
    const existing = streams.get(addressKey(handle));
    if (existing !== undefined) return existing;
    const ctx = context ?? Context.fromHandle(driver.cuStreamGetCtx(handle));
    return new Stream(INTERNAL, handle, ctx, false);
  }

  /** The CUstream handle. */
  get handle(): CUstream {
    if (this.#closed) throw new ClosedError("this Stream", "use its handle");
    return this.#handle;
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** The context the stream belongs to (the current one for the default streams). */
  get context(): Context {
    if (this.#context !== undefined) return this.#context;
    const h = currentContextHandle();
    if (h === null) throw new NoContextError("the default streams use the current context, and no context is current: call device.setCurrent() first");
    return Context.fromHandle(h);
  }

  /** The device the stream belongs to. */
  get device(): Device {
    return this.context.device;
  }

  /** Whether the stream does not synchronise with the legacy default stream. */
  get isNonBlocking(): boolean {
    return (driver.cuStreamGetFlags(this.handle) & CU_STREAM_NON_BLOCKING) !== 0;
  }

  /** The stream's priority. */
  get priority(): number {
    return driver.cuStreamGetPriority(this.handle);
  }

  /**
   * Blocks the calling thread until the stream's work has finished. On Deno, not while host functions
   * (`launchHostFunction`, graph host callbacks) are pending on it: they need this thread, so await `done()` instead.
   */
  sync(): void {
    driver.cuStreamSynchronize(this.handle);
    if (this.#inFlight.length !== 0 || this.#released !== 0) {
      this.#inFlight = [];
      this.#released = 0;
    }
  }

  /** Whether all work queued so far has finished (never blocks). */
  query(): boolean {
    const r = (streamQuery ??= uncheckedNative(driver, "cuStreamQuery"))(this.handle);
    if (r === 0) return true;
    if (r === CUDA_ERROR_NOT_READY) return false;
    throw cudaError(r, "cuStreamQuery");
  }

  /** Resolves when the work queued so far has finished, without blocking the JavaScript thread (see waiting.ts). */
  async done(): Promise<void> {
    const event = this.record(); // timing off: the default
    // What was kept alive before the event is released when it completes; what work queued meanwhile keeps alive
    // (pushed after these) stays until its own completion is known. Counted from the list's start, released
    // entries included, so that done() calls completing out of order release each entry once.
    const keep = this.#inFlight;
    const upTo = this.#released + keep.length;
    try {
      await waitForEvent(event.handle, "Stream.done");
    } finally {
      event.close();
    }
    if (this.#inFlight === keep && upTo > this.#released) {
      keep.splice(0, upTo - this.#released);
      this.#released = upTo;
    }
  }

  /** Records an event on the stream (a new one unless `event` is given) and returns it. */
  record(event?: Event, options?: EventOptions): Event {
    const e = event ?? createEvent(this.context, options);
    recordEvent(e, this);
    return e;
  }

  /**
   * Makes future work on this stream wait for an event, or for everything queued so far on another stream (through
   * a temporary event, as cuda.core does).
   */
  wait(target: Event | Stream): void {
    if (target instanceof Event) {
      if (!target.isRecorded) throw new EventNotRecordedError("cannot wait on an event that was never recorded: record it on a stream first");
      driver.cuStreamWaitEvent(this.handle, target.handle, 0);
      return;
    }
    if (!(target instanceof Stream)) throw new TypeError(`Stream.wait takes an Event or a Stream, not ${describeValue(target)}`);
    const e = target.record(); // timing off: the default
    try {
      driver.cuStreamWaitEvent(this.handle, e.handle, 0);
    } finally {
      e.close();
    }
  }

  /**
   * A GraphBuilder that captures the work queued on this stream (`builder.beginBuilding()` ... `endBuilding()`).
   * The stream is borrowed: closing the builder does not close it.
   */
  createGraphBuilder(): GraphBuilder {
    return graphBuilderFromStream(this);
  }

  /**
   * Queues a JavaScript function: it runs on the host once the work queued before it has finished, and work queued
   * after it waits until it returns (`cuLaunchHostFunc`). The function must not call CUDA.
   *
   * - Deno: runs it (the driver's thread hands the call to the JavaScript thread and waits). While it is pending,
   *   wait with `await stream.done()`, never `stream.sync()` (or another synchronous wait on work behind it): a
   *   blocked JavaScript thread cannot run the function, and the driver waits for it forever.
   * - Bun: throws UnsupportedOnRuntimeError (from the ffi layer's errors) and queues nothing: Bun's thread-safe
   *   callbacks crash when CUDA's threads call them, and do not wait for the JavaScript function.
   *
   * See host-callback.ts for the details.
   */
  launchHostFunction(fn: HostFunction): void {
    launchHostFunction(this, this.#captureSink, fn);
  }

  /** Destroys a stream this object created (pending work still runs); closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#handle !== null && !isSpecial(this.#handle)) streams.delete(addressKey(this.#handle), this);
    if (this.#owned) {
      untrack(this);
      // After a sticky fault the stream went with the context: nothing to release, nothing to throw.
      if (faulted()) return;
      withCurrentContext(this.#context!.handle, () => driver.cuStreamDestroy(this.#handle));
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** Equality by handle. */
  equals(other: Stream): boolean {
    return ffi.samePointer(this.#handle, other.#handle);
  }

  toString(): string {
    return `Stream(0x${ffi.addressOf(this.#handle).toString(16)})`;
  }
}

function isSpecial(handle: CUstream): boolean {
  const a = ffi.addressOf(handle);
  return a === 1 || a === 2;
}

/** The legacy default stream (CU_STREAM_LEGACY): synchronises with every blocking stream of its context. */
export const LEGACY_DEFAULT_STREAM: Stream = new Stream(INTERNAL, ffi.pointerFromAddress(CU_STREAM_LEGACY) as CUstream, undefined, false);
/** The per-thread default stream (CU_STREAM_PER_THREAD). */
export const PER_THREAD_DEFAULT_STREAM: Stream = new Stream(INTERNAL, ffi.pointerFromAddress(CU_STREAM_PER_THREAD) as CUstream, undefined, false);

function specialStream(handle: CUstream): Stream {
  return ffi.addressOf(handle) === 2 ? PER_THREAD_DEFAULT_STREAM : LEGACY_DEFAULT_STREAM;
}

/** Creates a stream in a context (what `device.createStream()` and `context.createStream()` do). */
export function createStream(context: Context, options: StreamOptions = {}): Stream {
  const nonBlocking = options.nonBlocking ?? true;
  if (typeof nonBlocking !== "boolean") throw new TypeError(`StreamOptions.nonBlocking must be a boolean, not ${typeof nonBlocking}`);
  const flags = nonBlocking ? CU_STREAM_NON_BLOCKING : 0;
  return context.run(() => {
    let priority = 0;
    if (options.priority !== undefined) {
      const [least, greatest] = driver.cuCtxGetStreamPriorityRange();
      priority = options.priority;
      if (!Number.isInteger(priority) || priority > least || priority < greatest) {
        throw new RangeError(
          `stream priority ${String(options.priority)} is outside this context's range: ${greatest} (highest) to ${least} (lowest)`,
        );
      }
    }
    const handle = driver.cuStreamCreateWithPriority(flags, priority);
    return new Stream(INTERNAL, handle, context, true);
  });
}
