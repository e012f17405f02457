/**
 * `Buffer`: a span of memory (device, pinned, managed) owned by a memory resource. Copies between buffers and
 * to/from TypedArrays and ArrayBuffers are ordered on a stream; `fill` sets 1-, 2- or 4-byte patterns. Memory the
 * host can reach (pinned, managed) is also visible without copying: `asTypedArray(Float32Array)`,
 * `asArrayBuffer()`; those views are detached when the buffer is closed (memory-view.ts says how).
 *
 * @module
 */
import { CUpointer_attribute, type CUdeviceptr } from "../../bindings/driver.ts";
import { ffi } from "../../ffi/index.ts";
import type { NativePointer } from "../../ffi/types.ts";
import type { Device } from "../device.ts";
import { deviceOf } from "../base/hub.ts";
import { driver, sizeArgument } from "../base/driver-state.ts";
import { ClosedError } from "../base/errors.ts";
import { trackLazily, untrack } from "../base/lifetime.ts";
import { faulted } from "../base/fault.ts";
import { forgetReclaimable, noteAllocated, noteFreed, noteResized, rememberReclaimable, type Reclaimable } from "./stats.ts";
import { adoptIntoScope, closedError, scopeDepth } from "./scope.ts";
import type { IPCBufferDescriptor } from "./ipc.ts";
import type { IpcMemoryResource, MemoryResource } from "./resource.ts";
import { HostViewSlot, makeView, type HostViewConstructor } from "./view.ts";
import { copyOrdered, needsOrderedCopy, type CopyOptions } from "./copy.ts";
import { Stream, captureSinkOf, keepAliveOn, streamOptionOf } from "../stream.ts";
import { takeStream, takeStreamOption, type StreamSpec } from "../base/stream-arg.ts";
import { describeValue } from "../../errors/describe.ts";
import { argumentsChanged } from "../base/epoch.ts";
import { INTERNAL, checkInternal, type Internal } from "../base/internal.ts";

/** The kinds of foreign memory `Buffer.fromHandle` wraps: device memory, page-locked host memory, managed memory. */
export type ForeignMemoryType = "device" | "pinned" | "managed";

/** Options of {@link Buffer.fromHandle}. */
export interface FromHandleOptions {
  /** The resource that frees the memory at close(). */
  readonly memoryResource?: MemoryResource;
  /** What keeps borrowed memory alive (kept by the buffer). */
  readonly owner?: unknown;
  /**
   * Foreign memory only: its kind (default "device"). "pinned" and "managed" memory is host-accessible
   * (`asArrayBuffer`, copies through cuMemcpy), and exports as such (DLPack kDLCUDAHost, kDLCUDAManaged).
   */
  readonly memoryType?: ForeignMemoryType;
  /** Foreign memory only: the device ordinal it belongs to (default: asked of the driver when needed). */
  readonly deviceId?: number;
}

/** Host memory a buffer can copy to or from. */
export type HostMemory = ArrayBuffer | ArrayBufferView;

/** Options of stream-ordered buffer operations. */
export interface StreamArg {
  /** The stream the operation is ordered on. */
  readonly stream: Stream;
}

function hostBytes(v: HostMemory): { pointer: NativePointer | null; byteLength: number } {
  const byteLength = v.byteLength;
  return { pointer: byteLength === 0 ? null : ffi.pointerOf(v), byteLength };
}

/** A span of memory. */
/**
 * @internal Writes an open buffer's device pointer at `offset` (two 32-bit stores, no BigInt) and returns true;
 * returns false for a closed buffer. Module state of Buffer, for launch's argument packing.
 */
const NO_STREAM: { readonly stream?: Stream } = Object.freeze({});
const DEALLOCATION_STREAM: StreamSpec & { readonly optional: true } = Object.freeze({ name: "deallocationStream", optional: true });

export let writeDevicePointer: (buffer: Buffer, dv: DataView, offset: number) => boolean;

/**
 * @internal Takes a buffer out of the garbage-collection release for good (memory a graph owns: see
 * graph-memory-resource.ts): neither a new deallocation stream nor a relocation registers it again.
 */
export let releaseNeverOnCollect: (buffer: Buffer) => void;

/**
 * @internal For resources that move or grow an allocation in place (VirtualMemoryResource.grow): `buffer` now spans
 * `size` bytes at `handle`. Host views made before are detached.
 */
export let relocateBuffer: (buffer: Buffer, handle: CUdeviceptr, size: number) => void;

export class Buffer {
  #handle: CUdeviceptr;
  #closed = false;
  #size: number;
  /** Host views (host-accessible memory), made on first use. */
  #views: HostViewSlot | undefined;
  /** The resource that allocated it (undefined for foreign memory). */
  readonly memoryResource: MemoryResource | undefined;
  /** An object that owns the memory and must stay alive with the buffer (foreign memory). */
  readonly owner: unknown;
  /** The stream the allocation was ordered on: the default for `close()`. */
  #allocationStream: Stream | undefined;
  /** The device pointer's low and high 32 bits, for launches to store without BigInt (split on first use). */
  #lo = 0;
  #hi = 0;
  #split = false;
  /** The size as copies hand it to the driver (sizeArgument: a bigint on Deno), made on first use. */
  #byteCount: number | bigint | undefined;
  /** Whether a forgotten buffer is freed at garbage collection (through its resource). */
  #collectable: boolean;
  /** The device the memory statistics count it on (-1: not counted). */
  #statsDevice = -1;
  /** Its allocation site's token (`CUDA_TS_DEBUG=leaks`), or 0. */
  #site = 0;
  /** Its entry in the reclaim of dropped buffers (stats.ts), once it left the nursery. */
  #reclaim: Reclaimable | undefined;
  /** Foreign memory (no resource): what kind it is, as `fromHandle` was told. */
  #foreignType: ForeignMemoryType = "device";
  /** Foreign memory: its device ordinal where `fromHandle` was told (-1: ask the driver). */
  #foreignDevice = -1;

  static {
    relocateBuffer = (b, handle, size) => b.#relocate(handle, size);
    releaseNeverOnCollect = (b) => {
      b.#collectable = false;
      untrack(b);
      forgetReclaimable(b.#reclaim);
      b.#reclaim = undefined;
    };
    writeDevicePointer = (b, dv, offset) => {
      if (b.#closed) return false;
      if (!b.#split) b.#splitAddress();
      dv.setUint32(offset, b.#lo, true);
      dv.setUint32(offset + 4, b.#hi, true);
      return true;
    };
  }

  /**
   * Reserved to cuda-ts (the token is not exported): use a memory resource's `allocate`, or `Buffer.fromHandle`
   * (which a memory resource of your own uses to make its buffers).
   */
  constructor(token: Internal, handle: CUdeviceptr, size: number, memoryResource: MemoryResource | undefined, stream: Stream | undefined, owner?: unknown) {
    checkInternal(token, "Buffer", "a memory resource's allocate, or Buffer.fromHandle");
    this.#handle = handle;
    this.#size = size;
    this.memoryResource = memoryResource;
    this.#allocationStream = stream;
    this.owner = owner;
    this.#collectable = memoryResource !== undefined;
    if (this.#collectable) {
      this.#track();
      const device = memoryResource!.deviceId;
      if (device >= 0) {
        this.#statsDevice = device;
        this.#site = noteAllocated(device, size);
      }
    }
    if (scopeDepth !== 0) adoptIntoScope(this);
  }

  #splitAddress(): void {
    this.#lo = Number(this.#handle & 0xffffffffn);
    this.#hi = Number(this.#handle >> 32n);
    this.#split = true;
  }

  /** Registers the release of the current allocation for garbage collection. */
  #track(): void {
    trackLazily(this, "Buffer", Buffer.#release);
  }

  /**
   * The release of a forgotten buffer (see lifetime.ts): frees the allocation through its resource, once, whether
   * its finalizer runs it or an out-of-memory's collection does first (stats.ts: the reclaim of dropped buffers).
   */
  static #release(b: Buffer): () => void {
    const mr = b.memoryResource!;
    const h = b.#handle;
    const size = b.#size;
    const s = b.#allocationStream;
    const device = b.#statsDevice;
    const site = b.#site;
    let done = false;
    const release = (): void => {
      if (done) return;
      done = true;
      forgetReclaimable(entry);
      noteFreed(device, size, true, site);
      mr.deallocate(h, size, s === undefined || s.isClosed ? NO_STREAM : streamOptionOf(s));
    };
    const entry: Reclaimable = { ref: new WeakRef(b), release };
    forgetReclaimable(b.#reclaim);
    b.#reclaim = entry;
    rememberReclaimable(entry);
    return release;
  }

  /** See relocateBuffer. */
  #relocate(handle: CUdeviceptr, size: number): void {
    if (this.#closed) throw new ClosedError("this Buffer", "be resized");
    this.#views?.release();
    this.#handle = handle;
    if (this.#statsDevice >= 0) noteResized(this.#statsDevice, this.#size, size);
    this.#size = size;
    this.#split = false;
    this.#byteCount = undefined;
    argumentsChanged();
    if (this.#collectable) {
      untrack(this);
      this.#track();
    }
  }

  /**
   * Opens a buffer another process shared (see memory-ipc.ts): `mr` is the same pool mapped into this process
   * (`DeviceMemoryResource.fromAllocationHandle`), `descriptor` what the exporter's `buffer.ipcDescriptor` gave.
   * Closing the returned buffer releases this process's mapping only.
   */
  static fromIpcDescriptor(mr: IpcMemoryResource, descriptor: IPCBufferDescriptor, options: StreamArg): Buffer {
    if (mr === null || typeof mr !== "object" || typeof (mr as Partial<IpcMemoryResource>).importBuffer !== "function") {
      throw new TypeError("Buffer.fromIpcDescriptor takes an IPC-enabled pool resource (DeviceMemoryResource.fromAllocationHandle(...)) first");
    }
    return mr.importBuffer(descriptor, { stream: takeStreamOption(options, "Buffer.fromIpcDescriptor") });
  }

  /**
   * Wraps memory allocated elsewhere. With `memoryResource`, close() frees it through that resource; with `owner`
   * (or neither), the memory is borrowed and close() only forgets it; `memoryType` ("device", "pinned", "managed")
   * and `deviceId` say what borrowed memory is.
   */
  static fromHandle(handle: CUdeviceptr | bigint | number, size: number, options: FromHandleOptions = {}): Buffer {
    if (options.memoryResource !== undefined && options.owner !== undefined) {
      throw new TypeError("Buffer.fromHandle takes a memoryResource or an owner, not both");
    }
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`size must be a non-negative integer, not ${size}`);
    const type = options.memoryType;
    const id = options.deviceId;
    if (type !== undefined && type !== "device" && type !== "pinned" && type !== "managed") {
      throw new TypeError(`Buffer.fromHandle: memoryType is "device", "pinned" or "managed", not ${describeValue(type)}`);
    }
    if (id !== undefined && (!Number.isSafeInteger(id) || id < 0)) throw new RangeError(`Buffer.fromHandle: deviceId must be a device ordinal, not ${describeValue(id)}`);
    if (options.memoryResource !== undefined && (type !== undefined || id !== undefined)) {
      throw new TypeError("Buffer.fromHandle: memoryType and deviceId describe foreign memory; a buffer with a memoryResource is what its resource says");
    }
    const b = new Buffer(INTERNAL, BigInt(handle) as CUdeviceptr, size, options.memoryResource, undefined, options.owner);
    if (type !== undefined) b.#foreignType = type;
    if (id !== undefined) b.#foreignDevice = id;
    return b;
  }

  /** The device pointer (CUdeviceptr). */
  get handle(): CUdeviceptr {
    if (this.#closed) throw closedError(this, "this Buffer", "use its memory");
    return this.#handle;
  }

  /** Size in bytes. */
  get size(): number {
    return this.#size;
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /**
   * The stream `close()` (and `using`, and the garbage-collection release) frees the memory on when no stream is
   * passed: the allocation stream, until set (as cuda.core's Buffer keeps its deallocation stream). Set it to the
   * stream that last uses the memory, so a stream-ordered free waits for that work; `undefined` frees without
   * stream order (the resource's synchronous path).
   */
  get deallocationStream(): Stream | undefined {
    return this.#allocationStream;
  }
  set deallocationStream(stream: Stream | undefined) {
    takeStream(stream, "Buffer", DEALLOCATION_STREAM);
    if (this.#closed) throw new ClosedError("this Buffer", "set its deallocation stream");
    this.#allocationStream = stream;
    if (this.#collectable) {
      // The garbage-collection release captured the old stream: register it anew.
      untrack(this);
      this.#track();
    }
  }

  /** The device the memory is on (the resource's device; for foreign memory, asked of the driver). */
  get device(): Device {
    return deviceOf(this.deviceId);
  }

  /** The ordinal of the device the memory is on (as {@link Buffer.device}, without making a Device). */
  get deviceId(): number {
    const id = this.memoryResource?.deviceId ?? this.#foreignDevice;
    return id >= 0 ? id : pointerDevice(this.handle);
  }

  /** Whether device code can read and write the memory. */
  get isDeviceAccessible(): boolean {
    return this.memoryResource?.isDeviceAccessible ?? true;
  }

  /** Whether host code can read and write the memory (pinned or managed; foreign memory: as `fromHandle` was told). */
  get isHostAccessible(): boolean {
    return this.memoryResource !== undefined ? this.memoryResource.isHostAccessible : this.#foreignType !== "device";
  }

  /** Whether the memory is managed (unified) memory, migrating between host and devices. */
  get isManaged(): boolean {
    return this.memoryResource !== undefined ? (this.memoryResource.isManaged ?? false) : this.#foreignType === "managed";
  }

  /**
   * The memory as an ArrayBuffer, without copying (host-accessible buffers only: pinned, managed, host-located).
   * The same ArrayBuffer every time until the buffer is closed or resized; then it is detached (length 0) so no
   * view can reach freed memory. Host access is not stream-ordered: synchronise the streams that write the memory
   * (including the allocating stream of a pool buffer) before reading or writing it here.
   *
   * @throws TypeError when the memory is not host-accessible (copy with `copyTo` instead).
   */
  asArrayBuffer(): ArrayBuffer {
    const handle = this.handle;
    if (!this.isHostAccessible) {
      throw new TypeError(
        `this Buffer's memory is not host-accessible (its resource is ${this.memoryResource?.constructor.name ?? "none: foreign memory"}): allocate from a PinnedMemoryResource, ManagedMemoryResource or LegacyPinnedMemoryResource, or copy it with buffer.copyTo(hostArray, { stream })`,
      );
    }
    return (this.#views ??= new HostViewSlot()).get(this, BigInt(handle), this.#size);
  }

  /**
   * The memory as a typed array (or DataView) of `type`, without copying: `buffer.asTypedArray(Float32Array)`.
   * The size must be a whole number of elements. See {@link Buffer.asArrayBuffer} for when the view works.
   */
  asTypedArray<T extends ArrayBufferView>(type: HostViewConstructor<T>): T {
    return makeView(this.asArrayBuffer(), type);
  }

  /**
   * A descriptor another process can open with `Buffer.fromIpcDescriptor` (the resource must be IPC-enabled).
   * Synchronise the allocating stream before sending it.
   */
  get ipcDescriptor(): IPCBufferDescriptor {
    const mr = this.memoryResource as Partial<IpcMemoryResource> | undefined;
    if (mr === undefined || typeof mr.exportBuffer !== "function") {
      throw new TypeError(
        `this Buffer comes from ${this.memoryResource?.constructor.name ?? "foreign memory"}, which cannot share memory between processes: allocate from a DeviceMemoryResource or PinnedMemoryResource created with { ipcEnabled: true }`,
      );
    }
    return mr.exportBuffer(this);
  }

  /**
   * Copies this buffer into another buffer or into host memory, ordered on `stream`. Sizes must be equal. Host
   * memory is kept alive until the stream is synchronised (`stream.sync()` or `await stream.done()`); read it
   * only after that. Between buffers of different devices, and with `peerStream`, see {@link CopyOptions}
   * (peer-copy.ts): peer-to-peer where the GPUs allow it, else staged through pinned host memory.
   */
  copyTo(dst: Buffer | HostMemory, options: CopyOptions): void {
    const stream = takeStreamOption(options, "Buffer.copyTo");
    if (dst instanceof Buffer) {
      checkSizes(this.size, dst.size, "copyTo: the destination buffer");
      if (needsOrderedCopy(this, dst, options)) copyOrdered(this, dst, options);
      else if (this.size > 0) driver.cuMemcpyAsync(dst.handle, this.handle, (this.#byteCount ??= sizeArgument(this.#size)), stream.handle);
      captureSinkOf(stream)?.push(this, dst); // captured into a graph: the graph keeps both alive
      return;
    }
    const host = hostBytes(checkHost(dst, "copyTo"));
    checkSizes(this.size, host.byteLength, "copyTo: the destination host memory");
    if (this.size === 0) return;
    if (this.isHostAccessible) driver.cuMemcpyAsync(hostAddress(host.pointer), this.handle, (this.#byteCount ??= sizeArgument(this.#size)), stream.handle);
    else driver.cuMemcpyDtoHAsync(host.pointer, this.handle, (this.#byteCount ??= sizeArgument(this.#size)), stream.handle);
    keepAliveOn(stream, dst);
    captureSinkOf(stream)?.push(this);
  }

  /**
   * Copies another buffer or host memory into this buffer, ordered on `stream`. Sizes must be equal. Between
   * buffers of different devices, and with `peerStream`, see {@link CopyOptions} (peer-copy.ts).
   */
  copyFrom(src: Buffer | HostMemory, options: CopyOptions): void {
    const stream = takeStreamOption(options, "Buffer.copyFrom");
    if (src instanceof Buffer) {
      checkSizes(this.size, src.size, "copyFrom: the source buffer");
      if (needsOrderedCopy(src, this, options)) copyOrdered(src, this, options);
      else if (this.size > 0) driver.cuMemcpyAsync(this.handle, src.handle, (this.#byteCount ??= sizeArgument(this.#size)), stream.handle);
      captureSinkOf(stream)?.push(this, src); // captured into a graph: the graph keeps both alive
      return;
    }
    const host = hostBytes(checkHost(src, "copyFrom"));
    checkSizes(this.size, host.byteLength, "copyFrom: the source host memory");
    if (this.size === 0) return;
    if (this.isHostAccessible) driver.cuMemcpyAsync(this.handle, hostAddress(host.pointer), (this.#byteCount ??= sizeArgument(this.#size)), stream.handle);
    else driver.cuMemcpyHtoDAsync(this.handle, host.pointer, (this.#byteCount ??= sizeArgument(this.#size)), stream.handle);
    keepAliveOn(stream, src);
    captureSinkOf(stream)?.push(this);
  }

  /**
   * Fills the buffer with a pattern, ordered on `stream`: a number in [0, 256) is one byte; a 1-, 2- or 4-byte
   * ArrayBufferView (Uint8Array.of(7), Uint16Array.of(x), Float32Array.of(1.5), ...) is repeated. The buffer's
   * size must be a multiple of the pattern's.
   */
  fill(value: number | ArrayBufferView, options: StreamArg): void {
    const stream = takeStreamOption(options, "Buffer.fill");
    let width: number;
    let bits: number;
    if (typeof value === "number") {
      if (!Number.isInteger(value) || value < 0 || value > 255) {
        throw new RangeError(`Buffer.fill: a number pattern is one byte (an integer 0..255), not ${value}; pass a 2- or 4-byte typed array for wider patterns`);
      }
      width = 1;
      bits = value;
    } else if (ArrayBuffer.isView(value)) {
      width = value.byteLength;
      const dv = new DataView(value.buffer, value.byteOffset, value.byteLength);
      if (width === 1) bits = dv.getUint8(0);
      else if (width === 2) bits = dv.getUint16(0, true);
      else if (width === 4) bits = dv.getUint32(0, true);
      else throw new RangeError(`Buffer.fill: a pattern is 1, 2 or 4 bytes, not ${width}`);
    } else {
      throw new TypeError(`Buffer.fill takes a byte value or a 1/2/4-byte typed array, not ${describeValue(value)}`);
    }
    if (this.size % width !== 0) {
      throw new RangeError(`Buffer.fill: the buffer's ${this.size} bytes are not a multiple of the ${width}-byte pattern`);
    }
    const n = this.size / width;
    if (n === 0) return;
    if (width === 1) driver.cuMemsetD8Async(this.handle, bits, n, stream.handle);
    else if (width === 2) driver.cuMemsetD16Async(this.handle, bits, n, stream.handle);
    else driver.cuMemsetD32Async(this.handle, bits, n, stream.handle);
    captureSinkOf(stream)?.push(this);
  }

  /**
   * Frees the memory through its resource, ordered on `stream` (default: the stream it was allocated on).
   * Borrowed memory is only forgotten. Closing twice is harmless.
   */
  close(stream?: Stream): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#split = false;
    argumentsChanged();
    this.#views?.release();
    if (this.memoryResource !== undefined) {
      untrack(this);
      forgetReclaimable(this.#reclaim);
      this.#reclaim = undefined;
      if (this.#statsDevice >= 0) noteFreed(this.#statsDevice, this.#size, false, this.#site);
      // After a sticky fault the memory went with the context: nothing to free, nothing to throw.
      if (faulted()) {
        this.#allocationStream = undefined;
        return;
      }
      const s = stream ?? this.#allocationStream;
      this.memoryResource.deallocate(this.#handle, this.#size, s === undefined || s.isClosed ? NO_STREAM : streamOptionOf(s));
    }
    this.#allocationStream = undefined;
  }

  [Symbol.dispose](): void {
    this.close();
  }

  toString(): string {
    return `Buffer(0x${this.#handle.toString(16)}, ${this.#size} bytes)`;
  }
}

/**
 * A JavaScript memory address as a unified (UVA) address. Host-accessible buffers (host-located pool memory in
 * particular, which cuMemcpyHtoD/DtoH refuse as "not device memory") copy with cuMemcpyAsync, which infers the
 * direction from the two addresses.
 */
function hostAddress(p: NativePointer | null): CUdeviceptr {
  return (p === null ? 0n : ffi.bigAddressOf(p)) as CUdeviceptr;
}

function checkSizes(mine: number, theirs: number, what: string): void {
  if (mine !== theirs) throw new RangeError(`${what} holds ${theirs} bytes but this buffer holds ${mine}; sizes must be equal`);
}

function checkHost(v: unknown, action: string): HostMemory {
  if (v instanceof ArrayBuffer || ArrayBuffer.isView(v)) return v;
  throw new TypeError(`Buffer.${action} takes a Buffer, an ArrayBuffer or a typed array, not ${describeValue(v)}`);
}

const CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL;

function pointerDevice(ptr: CUdeviceptr): number {
  const out = new Int32Array(new ArrayBuffer(8));
  driver.cuPointerGetAttribute(out, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr);
  return out[0]!;
}
