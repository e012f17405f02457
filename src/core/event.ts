/**
 * Events: markers in a stream's work, for ordering streams and timing work.
 *
 * @module
 */
import { CUevent_flags, CUresult, type CUevent } from "../bindings/driver.ts";
import type { Context } from "./context.ts";
import type { Device } from "./device.ts";
import { driver, leaveContext, withCurrentContext } from "./base/driver-state.ts";
import { enterContextOf } from "./context.ts";
import { ClosedError } from "./base/errors.ts";
import { faulted } from "./base/fault.ts";
import { EventTimingError } from "./event-errors.ts";
import { IPCFormatError } from "./memory/ipc-errors.ts";
import { trackLazily, untrack } from "./base/lifetime.ts";
import type { Stream } from "./stream.ts";
import { waitForEvent } from "./base/waiting.ts";
import { INTERNAL, checkInternal, type Internal } from "./base/internal.ts";

/** Options of a new event. */
export interface EventOptions {
  /** Record timestamps (needed for elapsed time). Default false: timing costs a little on every record. */
  readonly timing?: boolean;
  /** Block the calling thread in `sync()` instead of spinning (CU_EVENT_BLOCKING_SYNC). Default false. */
  readonly blockingSync?: boolean;
  /** Usable from another process (CU_EVENT_INTERPROCESS); needs timing off. Default false. */
  readonly ipc?: boolean;
}

const CU_EVENT_BLOCKING_SYNC = CUevent_flags.CU_EVENT_BLOCKING_SYNC;
const CU_EVENT_DISABLE_TIMING = CUevent_flags.CU_EVENT_DISABLE_TIMING;
const CU_EVENT_INTERPROCESS = CUevent_flags.CU_EVENT_INTERPROCESS;
const CUDA_ERROR_NOT_READY = CUresult.CUDA_ERROR_NOT_READY;

function bool(name: string, v: unknown, fallback: boolean): boolean {
  if (v === undefined) return fallback;
  if (typeof v !== "boolean") throw new TypeError(`EventOptions.${name} must be a boolean, not ${typeof v}`);
  return v;
}

/** The CUevent flags of `options`, checked (TypeError on a bad option). */
function flagsOf(options: EventOptions): number {
  if (options === null || typeof options !== "object") throw new TypeError(`EventOptions must be an object ({ timing, blockingSync, ipc }), not ${options === null ? "null" : typeof options}`);
  const timing = bool("timing", options.timing, false);
  const blocking = bool("blockingSync", options.blockingSync, false);
  const ipc = bool("ipc", options.ipc, false);
  if (ipc && timing) throw new TypeError("an IPC event cannot record timing: create it with { ipc: true, timing: false }");
  return (timing ? 0 : CU_EVENT_DISABLE_TIMING) | (blocking ? CU_EVENT_BLOCKING_SYNC : 0) | (ipc ? CU_EVENT_INTERPROCESS : 0);
}

/** @internal Creates an event in a context (what `device.createEvent()` and `stream.record()` do). */
export let createEvent: (context: Context, options?: EventOptions) => Event;
/** @internal Records `event` on `stream` (what `stream.record(event)` does). */
export let recordEvent: (event: Event, stream: Stream) => void;
/** @internal Marks `event` recorded by something other than a stream (a graph's event-record node). */
export let markEventRecorded: (event: Event) => void;

/** A CUDA event. */
export class Event {
  #handle: CUevent;
  #closed = false;
  #recorded = false;
  /** The context the event belongs to. */
  readonly context: Context;
  /** Whether elapsed time can be measured with this event. */
  readonly isTimingEnabled: boolean;
  /** Whether `sync()` blocks instead of spinning. */
  readonly isBlockingSync: boolean;
  /** Whether the event can be shared with another process. */
  readonly isIpcEnabled: boolean;

  private constructor(handle: CUevent, context: Context, flags: number) {
    this.#handle = handle;
    this.context = context;
    this.isTimingEnabled = (flags & CU_EVENT_DISABLE_TIMING) === 0;
    this.isBlockingSync = (flags & CU_EVENT_BLOCKING_SYNC) !== 0;
    this.isIpcEnabled = (flags & CU_EVENT_INTERPROCESS) !== 0;
    trackLazily(this, "Event", Event.#release);
  }

  /** The release of a forgotten event (see lifetime.ts): destroys the handle, keeping a created context alive until then. */
  static #release(e: Event): () => void {
    const h = e.#handle;
    if (e.context.isPrimary) return () => driver.cuEventDestroy(h); // the primary context lives as long as the process
    const ctx = e.context;
    return () => {
      void ctx;
      driver.cuEventDestroy(h);
    };
  }

  static {
    createEvent = (context, options) => {
      const flags = options === undefined ? CU_EVENT_DISABLE_TIMING : flagsOf(options);
      const previous = enterContextOf(context);
      let handle: CUevent;
      try {
        handle = driver.cuEventCreate(flags);
      } finally {
        leaveContext(previous);
      }
      return new Event(handle, context, flags);
    };
    recordEvent = (e, stream) => {
      driver.cuEventRecord(e.handle, stream.handle);
      e.#recorded = true;
    };
    markEventRecorded = (e) => {
      e.#recorded = true;
    };
  }

  /** The CUevent handle. */
  get handle(): CUevent {
    if (this.#closed) throw new ClosedError("this Event", "use its handle");
    return this.#handle;
  }

  /** The device the event belongs to. */
  get device(): Device {
    return this.context.device;
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Whether the event has been recorded on a stream. */
  get isRecorded(): boolean {
    return this.#recorded;
  }

  /** Blocks until the work before the event's last record has finished. */
  sync(): void {
    driver.cuEventSynchronize(this.handle);
  }

  /** Whether the work before the event's last record has finished (never blocks). */
  get isDone(): boolean {
    return driver.cuEventQuery(this.handle) === 0;
  }

  /** Resolves when the event completes, without blocking the JavaScript thread. */
  done(): Promise<void> {
    return waitForEvent(this.handle, "Event.done");
  }

  /**
   * Milliseconds from `start` to `end`, both recorded and complete, both created with `{ timing: true }`.
   * Throws EventTimingError (saying which of these is missing) otherwise.
   */
  static elapsedTime(start: Event, end: Event): number {
    for (const [which, e] of [["start", start], ["end", end]] as const) {
      if (!e.isTimingEnabled) {
        throw new EventTimingError(`the ${which} event was created without timing: create both events with { timing: true }`);
      }
      if (!e.#recorded) throw new EventTimingError(`the ${which} event was never recorded: record both events on a stream first`);
    }
    try {
      return driver.cuEventElapsedTime(start.handle, end.handle);
    } catch (e) {
      if ((e as { code?: number }).code === CUDA_ERROR_NOT_READY) {
        throw new EventTimingError("the work between the events has not finished: call end.sync() (or await end.done()) first");
      }
      throw e;
    }
  }

  /** Milliseconds since `start` (see {@link Event.elapsedTime}). */
  since(start: Event): number {
    return Event.elapsedTime(start, this);
  }

  /**
   * A descriptor of this event for another process (`cuIpcGetEventHandle`): send `toBytes()` over an IpcChannel
   * (`channel.send(event.ipcDescriptor.toBytes())`); the other process opens it with {@link Event.fromIpcDescriptor}
   * and can wait on it (`stream.wait(event)`, `event.sync()`) while this process records it. The event must be made
   * with `{ ipc: true }` (which needs timing off); a TypeError says so otherwise.
   */
  get ipcDescriptor(): IPCEventDescriptor {
    if (!this.isIpcEnabled) {
      throw new TypeError("this Event was not made for IPC: create it with { ipc: true } (device.createEvent({ ipc: true }); timing stays off)");
    }
    const h = this.handle;
    const record = withCurrentContext(this.context.handle, () => driver.cuIpcGetEventHandle(h));
    return new IPCEventDescriptor(INTERNAL, record.$bytes());
  }

  /**
   * Opens an event another process shared (`cuIpcOpenEventHandle`) in `context` (the importer's context on the same
   * device). Closing it releases this process's handle only. The exporter must keep its event alive meanwhile.
   */
  static fromIpcDescriptor(descriptor: IPCEventDescriptor, context: Context): Event {
    if (!(descriptor instanceof IPCEventDescriptor)) {
      throw new TypeError("Event.fromIpcDescriptor takes an IPCEventDescriptor (IPCEventDescriptor.fromBytes(bytes) of what event.ipcDescriptor.toBytes() gave)");
    }
    const handle = withCurrentContext(context.handle, () => driver.cuIpcOpenEventHandle(descriptor.payload));
    const e = new Event(handle, context, CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS);
    e.#recorded = true; // recorded by the exporter; waiting on it before then returns at once, as in CUDA
    return e;
  }

  /** Destroys the event; closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    untrack(this);
    if (faulted()) return; // after a sticky fault the event went with the context: nothing to release
    void this.context.handle; // a closed context's events went with it: ClosedError
    // cuEventDestroy needs no current context (the event names its own, as the garbage-collection release relies
    // on too): the current context is neither read nor changed.
    driver.cuEventDestroy(this.#handle);
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

const EVENT_MAGIC = 0x45564349; // "ICVE"
const EVENT_VERSION = 1;
/** The bytes of an {@link IPCEventDescriptor}: magic, version, the 64-byte CUipcEventHandle. */
export const EVENT_DESCRIPTOR_BYTES = 72;

/** Describes an IPC event for another process: serializable with `toBytes()` / `fromBytes()`. */
export class IPCEventDescriptor {
  /** The 64 bytes of the CUipcEventHandle. */
  readonly payload: Uint8Array;

  /** Reserved to cuda-ts (the token is not exported): use `event.ipcDescriptor` or `IPCEventDescriptor.fromBytes()`. */
  constructor(token: Internal, payload: Uint8Array) {
    checkInternal(token, "IPCEventDescriptor", "event.ipcDescriptor or IPCEventDescriptor.fromBytes()");
    if (!(payload instanceof Uint8Array) || payload.length !== 64) throw new IPCFormatError(`an event handle is 64 bytes (CUipcEventHandle), not ${String((payload as { length?: unknown })?.length)}`);
    this.payload = payload.slice();
  }

  /** The descriptor as {@link EVENT_DESCRIPTOR_BYTES} bytes. */
  toBytes(): Uint8Array {
    const out = new Uint8Array(EVENT_DESCRIPTOR_BYTES);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, EVENT_MAGIC, true);
    dv.setUint32(4, EVENT_VERSION, true);
    out.set(this.payload, 8);
    return out;
  }

  /** Reads a descriptor from the bytes `toBytes()` gave (IPCFormatError for anything else). */
  static fromBytes(bytes: Uint8Array): IPCEventDescriptor {
    if (!(bytes instanceof Uint8Array) || bytes.length !== EVENT_DESCRIPTOR_BYTES) {
      throw new IPCFormatError(`an event descriptor is ${EVENT_DESCRIPTOR_BYTES} bytes, not ${bytes instanceof Uint8Array ? bytes.length : typeof bytes}: was it made by event.ipcDescriptor.toBytes()?`);
    }
    const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (dv.getUint32(0, true) !== EVENT_MAGIC) throw new IPCFormatError("these bytes are not an event descriptor (wrong magic): was it made by event.ipcDescriptor.toBytes()?");
    const v = dv.getUint32(4, true);
    if (v !== EVENT_VERSION) throw new IPCFormatError(`an event descriptor of version ${v}; this cuda-ts reads version ${EVENT_VERSION}`);
    return new IPCEventDescriptor(INTERNAL, bytes.slice(8));
  }

  toString(): string {
    return "IPCEventDescriptor";
  }
}
