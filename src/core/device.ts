/**
 * `Device`: one object per GPU (the same object for the same ordinal), in the style of cuda.core. Construction
 * touches nothing but cuInit; `setCurrent()` retains the primary context and makes it current, after which the
 * device can create streams and events and allocate memory.
 *
 * @module
 */
import type { CUcontext, CUdevice } from "../bindings/driver.ts";
import { Context, type ContextLimit } from "./context.ts";
import { currentContextHandle, driver, ensureInit, makeCurrent } from "./base/driver-state.ts";
import { DeviceNotInitializedError } from "./base/errors.ts";
import { deviceProperties, type DeviceProperties } from "./properties.ts";
import { Stream, createStream, type StreamOptions } from "./stream.ts";
import { Event, createEvent, type EventOptions } from "./event.ts";
import { builderFromStream, createGraphBuilder, type GraphBuilder } from "./graph/builder.ts";
import type { Buffer } from "./memory/buffer.ts";
import type { MemoryResource } from "./memory/resource.ts";
import { defaultMemoryResource } from "./memory/pool.ts";
import { provideHubLinks } from "./base/hub.ts";
import { enablePeerAccess } from "./memory/peer.ts";
import { INTERNAL } from "./base/internal.ts";
import { processFault, type DeviceFault } from "../bindings/driver-fault.ts";
import { memoryStatsOf, type MemoryStats } from "./memory/stats.ts";

/** A compute capability. */
export interface ComputeCapability {
  readonly major: number;
  readonly minor: number;
}

const devices: Device[] = [];

/** A CUDA device. */
export class Device {
  /** The ordinal. */
  readonly id!: number;
  #context: Context | undefined;
  #properties: DeviceProperties | undefined;
  #name: string | undefined;
  #uuid: string | undefined;
  #memoryResource: MemoryResource | undefined;

  /**
   * The device of an ordinal (the same object every time), or the current context's device when omitted (device 0
   * when no context is current, as the runtime does).
   */
  constructor(id?: number | Device) {
    if (id instanceof Device) return id;
    ensureInit();
    const ordinal = id ?? Device.current?.id ?? 0;
    if (!Number.isInteger(ordinal) || ordinal < 0) {
      throw new RangeError(`a device ordinal is a non-negative integer, not ${String(id)}`);
    }
    const existing = devices[ordinal]; // one that exists already needs no count (cuDeviceGetCount) to check it
    if (existing) return existing;
    const count = Device.count;
    if (ordinal >= count) {
      throw new RangeError(`device ${ordinal} does not exist: this machine has ${count} CUDA device${count === 1 ? "" : "s"}`);
    }
    this.id = ordinal;
    devices[ordinal] = this;
  }

  /** Number of CUDA devices (0 when there is no driver or GPU is not a failure here: it throws the driver's error). */
  static get count(): number {
    ensureInit();
    return driver.cuDeviceGetCount();
  }

  /** Every device. */
  static all(): Device[] {
    return Array.from({ length: Device.count }, (_, i) => new Device(i));
  }

  /** The device of the context current on this thread, or undefined when none is current. */
  static get current(): Device | undefined {
    ensureInit();
    if (currentContextHandle() === null) return undefined;
    const d = devices[driver.cuCtxGetDevice()];
    return d ?? new Device(driver.cuCtxGetDevice());
  }

  /** The CUdevice handle (the ordinal). */
  get handle(): CUdevice {
    return this.id as CUdevice;
  }

  /** The product name ("NVIDIA H200"). */
  get name(): string {
    if (this.#name === undefined) {
      this.#name = driver.cuDeviceGetName(256, this.id);
    }
    return this.#name;
  }

  /** The UUID in the usual 8-4-4-4-12 hex form. */
  get uuid(): string {
    if (this.#uuid === undefined) {
      const bytes = new Uint8Array(driver.cuDeviceGetUuid(this.id).bytes.buffer.slice(0, 16));
      const h = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
      this.#uuid = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    }
    return this.#uuid;
  }

  /** The PCI bus id ("0000:1A:00.0"). */
  get pciBusId(): string {
    return driver.cuDeviceGetPCIBusId(64, this.id);
  }

  /** Every CUdevice_attribute, by camelCase name. */
  get properties(): DeviceProperties {
    return (this.#properties ??= deviceProperties(this.id));
  }

  /** The compute capability. */
  get computeCapability(): ComputeCapability {
    return { major: this.properties.computeCapabilityMajor, minor: this.properties.computeCapabilityMinor };
  }

  /** The architecture as NVRTC and ptxas spell it without the prefix ("90" for sm_90). */
  get arch(): string {
    const cc = this.computeCapability;
    return `${cc.major}${cc.minor}`;
  }

  /** Total global memory in bytes. */
  get totalMemory(): bigint {
    return driver.cuDeviceTotalMem(this.id);
  }

  /** Free and total memory of this device in bytes, as the driver sees it now (cuMemGetInfo in its context). */
  memoryInfo(): { readonly free: number; readonly total: number } {
    const [free, total] = this.withContext(() => driver.cuMemGetInfo());
    return { free: Number(free), total: Number(total) };
  }

  /**
   * The sticky fault that ended CUDA in this process (an illegal address, a trap, a device-side assert, ...: its
   * code, when and where it was seen, the last launches), or undefined while CUDA is usable. A fault ends CUDA for the
   * whole process, so every Device reports it; `fault.deviceId` says whose context it was seen in. Errors that leave
   * the context usable (an out-of-memory, an invalid value, a failed compile) are not faults. A server can check it
   * after an error, report it and exit:
   *
   * ```ts
   * const f = device.fault;
   * if (f !== undefined) { log.error({ code: f.codeName, at: f.time, launches: f.launches }); process.exit(70); }
   * ```
   */
  get fault(): DeviceFault | undefined {
    return processFault();
  }

  /**
   * This device's memory as cuda-ts sees it: what live Buffers and arrays hold, their peak, live objects, what the
   * pools keep reserved (and unused), objects freed by finalizers instead of `close()` (leaks), and how often an
   * out-of-memory was saved by a trim or a collection. Answers after a fault too (without the pools' figures).
   */
  memoryStats(): MemoryStats {
    return memoryStatsOf(this.id, processFault() === undefined);
  }

  /** A limit of this device's primary context (see `Context.getLimit`). */
  getLimit(name: ContextLimit): number {
    return this.context.getLimit(name);
  }

  /** Sets a limit of this device's primary context (see `Context.setLimit`). */
  setLimit(name: ContextLimit, value: number | bigint): void {
    this.context.setLimit(name, value);
  }

  /**
   * Makes this device current on the calling thread. Without an argument it retains the device's primary context
   * (once) and makes it current; with a context, it makes that context current and returns the previous one.
   */
  setCurrent(ctx?: Context): Context | undefined {
    if (ctx !== undefined) {
      const previous = currentContextHandle();
      makeCurrent(ctx.handle);
      return previous === null ? undefined : Context.fromHandle(previous);
    }
    if (this.#context === undefined) {
      const handle = driver.cuDevicePrimaryCtxRetain(this.id) as CUcontext;
      this.#context = new Context(INTERNAL, handle, this, true, false);
    }
    makeCurrent(this.#context.handle);
    return undefined;
  }

  /** Whether `setCurrent()` has been called on this device. */
  get isInitialized(): boolean {
    return this.#context !== undefined;
  }

  /** The primary context; throws when `setCurrent()` was never called. */
  get context(): Context {
    if (this.#context === undefined) throw new DeviceNotInitializedError(this.id);
    return this.#context;
  }

  /** Runs `fn` with this device's context current (restoring the previous one). */
  withContext<T>(fn: () => T): T {
    return this.context.run(fn);
  }

  /** Creates a stream on this device (see StreamOptions; non-blocking by default, as in cuda.core). */
  createStream(options?: StreamOptions): Stream {
    return createStream(this.context, options);
  }

  /** Creates a GraphBuilder on a new stream of this device (the builder owns the stream and closes it). */
  createGraphBuilder(): GraphBuilder {
    return createGraphBuilder(this.context);
  }

  /** Creates an event on this device. */
  createEvent(options?: EventOptions): Event {
    return createEvent(this.context, options);
  }

  /** The device's memory resource: its default memory pool where supported, else synchronous allocations. */
  get memoryResource(): MemoryResource {
    void this.context;
    return (this.#memoryResource ??= defaultMemoryResource(this));
  }

  /** Replaces the memory resource `allocate` uses. */
  set memoryResource(mr: MemoryResource) {
    this.#memoryResource = mr;
  }

  /** Allocates device memory through the device's memory resource, ordered on `stream`. */
  allocate(size: number | bigint, options: { stream: Stream }): Buffer {
    return this.memoryResource.allocate(size, options);
  }

  /** Blocks until all work on this device's context has finished. */
  sync(): void {
    this.context.sync();
  }

  /** Whether this device can access `peer`'s memory directly. */
  canAccessPeer(peer: Device): boolean {
    if (peer.id === this.id) return true;
    return driver.cuDeviceCanAccessPeer(this.id, peer.id) !== 0;
  }

  /**
   * Lets this device's kernels and copies use `peer`'s memory directly (cuCtxEnablePeerAccess, and pool access
   * where `peer` allocates from a memory pool). Both devices must have been made current once. Idempotent; throws
   * PeerAccessError when `canAccessPeer(peer)` is false. See peer.ts.
   */
  enablePeerAccess(peer: Device): void {
    enablePeerAccess(this, peer);
  }

  toString(): string {
    return `Device(${this.id})`;
  }

  /** Equality by ordinal. */
  equals(other: Device): boolean {
    return other.id === this.id;
  }
}

// The hub: files below this one hold ordinals and reach Device (and the graph builder a stream makes) through here.
provideHubLinks({ Device, graphBuilderFromStream: builderFromStream });
