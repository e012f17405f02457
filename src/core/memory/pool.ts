/**
 * Stream-ordered memory pools (`cuMemAllocFromPoolAsync` / `cuMemFreeAsync`): the shared base
 * {@link MemoryPoolResource} (attributes, IPC, closing) and {@link DeviceMemoryResource}, the device's pool.
 *
 * @module
 */
import {
  CUmemAccess_flags,
  CUmemAccessDesc_st,
  CUmemAllocationHandleType,
  CUmemAllocationType,
  CUmemLocationType,
  CUmemPoolProps_st,
  type CUdeviceptr,
  type CUmemoryPool,
} from "../../bindings/driver.ts";
import { ffi, Scratch } from "../../ffi/index.ts";
import { Buffer } from "./buffer.ts";
import { enterContextOf, type Context } from "../context.ts";
import type { Device } from "../device.ts";
import { deviceOf } from "../base/hub.ts";
import { driver, withCurrentContext, leaveContext, sizeArgument } from "../base/driver-state.ts";
import { ClosedError, NoContextError } from "../base/errors.ts";
import { DeviceFeatureError } from "./errors.ts";
import { IPCAllocationHandle, IPCBufferDescriptor, newUuid } from "./ipc.ts";
import { closeFd, dupFd } from "../../ffi/libc-socket.ts";
import { resolveDevicePoolOptions, type DeviceMemoryResourceOptions } from "./options.ts";
import { MemoryPoolAttributes, ULLONG_MAX } from "./pool-attributes.ts";
import { allocationSize, SynchronousMemoryResource, type AllocateOptions, type IpcMemoryResource, type MemoryResource } from "./resource.ts";
import type { Stream } from "../stream.ts";
import { takeStreamOption } from "../base/stream-arg.ts";
import { platform } from "../../host.ts";
import { INTERNAL, checkInternal, type Internal } from "../base/internal.ts";
import { notePool, type PoolUsage } from "./stats.ts";
import { isOutOfMemory, recoverOutOfMemory } from "./out-of-memory.ts";

/** How a pool resource starts: a pool handle and what it owns. @internal */
export interface PoolInit {
  readonly pool: CUmemoryPool;
  /** Destroy the pool on close. */
  readonly owned: boolean;
  /** IPC state: the exported handle (exporter) or the UUID it was imported under (importer). */
  readonly ipc?: { readonly handle?: IPCAllocationHandle; readonly uuid: string | undefined; readonly mapped: boolean };
  /** The context for frees that have no live stream. */
  readonly context?: Context;
}

/** The properties of a new pool. @internal */
export interface PoolProps {
  readonly allocType: CUmemAllocationType;
  readonly locationType: CUmemLocationType;
  readonly locationId: number;
  readonly ipcEnabled: boolean;
  readonly maxSize: bigint;
}

/** The handle type of IPC-enabled pools: POSIX file descriptors (Linux only, as in cuda.core). */
const IPC_HANDLE_TYPE = CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;

function checkIpcPlatform(): void {
  if (platform !== "linux") throw new DeviceFeatureError(`IPC-enabled pools need Linux (POSIX file descriptor handles); this is ${platform}`);
}

/** Creates a pool. @internal */
export function createPool(props: PoolProps): CUmemoryPool {
  if (props.ipcEnabled) checkIpcPlatform();
  const p = new CUmemPoolProps_st();
  p.allocType = props.allocType;
  p.handleTypes = props.ipcEnabled ? IPC_HANDLE_TYPE : CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_NONE;
  p.location.type = props.locationType;
  p.location.id = props.locationId;
  p.maxSize = props.maxSize;
  return driver.cuMemPoolCreate(p);
}

const fdSlot = new Scratch(8);

/** Exports a pool as a file descriptor, wrapped with a new UUID. @internal */
export function exportPool(pool: CUmemoryPool): IPCAllocationHandle {
  fdSlot.i32[0] = -1;
  driver.cuMemPoolExportToShareableHandle(fdSlot.pointer, pool, IPC_HANDLE_TYPE, 0);
  return new IPCAllocationHandle(INTERNAL, fdSlot.i32[0]!, newUuid());
}

/** Maps a pool exported by another process. Closes a received handle; leaves a plain descriptor number open. @internal */
export function importPool(handle: IPCAllocationHandle | number, what: string): { pool: CUmemoryPool; uuid: string | undefined } {
  checkIpcPlatform();
  let fd: number;
  let uuid: string | undefined;
  if (handle instanceof IPCAllocationHandle) {
    fd = handle.fd;
    uuid = handle.uuid;
  } else if (typeof handle === "number" && Number.isInteger(handle) && handle >= 0) {
    fd = dupFd(handle);
  } else {
    throw new TypeError(`${what} takes an IPCAllocationHandle (from IpcChannel.receiveAllocationHandle) or a file descriptor number, not ${String(handle)}`);
  }
  try {
    driver.cuInit(0);
    const pool = driver.cuMemPoolImportFromShareableHandle(ffi.pointerFromAddress(fd), IPC_HANDLE_TYPE, 0);
    return { pool, uuid };
  } finally {
    // The driver holds its own reference once the pool is mapped (or the import failed): the descriptor is done.
    if (handle instanceof IPCAllocationHandle) handle.close();
    else closeFd(fd);
  }
}

/** Grants devices access to a pool's memory (cuMemPoolSetAccess). @internal */
export function setPoolAccess(pool: CUmemoryPool, deviceIds: readonly number[], flags: CUmemAccess_flags = CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE): void {
  if (deviceIds.length === 0) return;
  const mem = new ArrayBuffer(deviceIds.length * CUmemAccessDesc_st.$size + 4);
  deviceIds.forEach((id, i) => {
    const d = new CUmemAccessDesc_st(mem, i * CUmemAccessDesc_st.$size);
    d.location.type = CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = id;
    d.flags = flags;
  });
  driver.cuMemPoolSetAccess(pool, mem, deviceIds.length);
}

/** Registered pools by UUID (exporters and importers), so one process maps a pool once. */
const registry = new Map<string, WeakRef<MemoryPoolResource>>();

/** The registered resource of a UUID (one mapping per pool per process). */
export function registered(uuid: string | undefined): MemoryPoolResource | undefined {
  if (uuid === undefined) return undefined;
  const r = registry.get(uuid)?.deref();
  if (r === undefined || r.isClosed) {
    registry.delete(uuid);
    return undefined;
  }
  return r;
}

/** Sets a new pool's release threshold; the default pool's 0 becomes "never release" (as cuda.core does). @internal */
export function applyReleaseThreshold(attributes: MemoryPoolAttributes, threshold: bigint | undefined, raiseZero: boolean): void {
  if (threshold !== undefined) attributes.releaseThreshold = threshold;
  else if (raiseZero && attributes.releaseThreshold === 0n) attributes.releaseThreshold = ULLONG_MAX;
}

/** Whether `handle` is `resource`'s own exported handle (which it keeps open). */
export function ownsHandle(resource: MemoryPoolResource, handle: unknown): boolean {
  return handle !== undefined && ipcOf(resource)?.handle === handle;
}

let ipcOf: (resource: MemoryPoolResource) => PoolInit["ipc"];

/**
 * What every pool resource shares: stream-ordered allocation from `handle`, attributes, IPC and closing. Concrete
 * resources: {@link DeviceMemoryResource}, `PinnedMemoryResource`, `ManagedMemoryResource`.
 */
export abstract class MemoryPoolResource implements IpcMemoryResource {
  #pool: CUmemoryPool | undefined;
  readonly #owned: boolean;
  readonly #ipc: PoolInit["ipc"];
  #context: Context | undefined;
  #attributes: MemoryPoolAttributes | undefined;

  static {
    ipcOf = (r) => r.#ipc;
  }

  /** Whether device code can use the memory. */
  abstract readonly isDeviceAccessible: boolean;
  /** Whether host code can use the memory. */
  abstract readonly isHostAccessible: boolean;
  /** Whether the memory is managed memory. */
  abstract readonly isManaged: boolean;
  /** The device ordinal, or -1. */
  abstract readonly deviceId: number;

  /**
   * Reserved to cuda-ts (the token is not exported): subclasses pass it; users construct DeviceMemoryResource or PinnedMemoryResource.
   */
  constructor(token: Internal, init: PoolInit) {
    checkInternal(token, "MemoryPoolResource", "DeviceMemoryResource, PinnedMemoryResource or DefaultPoolMemoryResource");
    this.#pool = init.pool;
    this.#owned = init.owned;
    this.#ipc = init.ipc;
    this.#context = init.context;
    const uuid = init.ipc?.uuid;
    if (uuid !== undefined) registry.set(uuid, new WeakRef(this));
  }

  /** The CUmemoryPool handle. */
  get handle(): CUmemoryPool {
    if (this.#pool === undefined) throw new ClosedError(`this ${this.constructor.name}`, "use its pool");
    return this.#pool;
  }

  /** The CUmemoryPool handle (the name DefaultPoolMemoryResource used; peer access reads it). */
  get pool(): CUmemoryPool {
    return this.handle;
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#pool === undefined;
  }

  /** Whether this object created the pool (and destroys it on close). */
  get isHandleOwned(): boolean {
    return this.#owned;
  }

  /** Whether the pool was created with `ipcEnabled` (or mapped from another process). */
  get isIpcEnabled(): boolean {
    return this.#ipc !== undefined;
  }

  /** Whether the pool was mapped from another process (then it cannot allocate, only open shared buffers). */
  get isMapped(): boolean {
    return this.#ipc?.mapped ?? false;
  }

  /** The pool's UUID, the same in every process that maps it (IPC-enabled pools; undefined otherwise). */
  get uuid(): string | undefined {
    return this.#ipc?.uuid;
  }

  /** The pool's attributes (usage counters, release threshold, reuse flags), read live. */
  get attributes(): MemoryPoolAttributes {
    void this.handle;
    return (this.#attributes ??= new MemoryPoolAttributes(INTERNAL, () => this.handle));
  }

  /**
   * The pool's shareable handle (IPC-enabled pools): send it with `IpcChannel.sendAllocationHandle`. Owned by this
   * resource: it stays open until the resource closes.
   */
  get allocationHandle(): IPCAllocationHandle {
    void this.handle;
    const h = this.#ipc?.handle;
    if (h === undefined) {
      throw new TypeError(
        this.isMapped
          ? `this ${this.constructor.name} was mapped from another process: only the exporting process has its allocation handle`
          : `this ${this.constructor.name} is not IPC-enabled: create it with { ipcEnabled: true }`,
      );
    }
    return h;
  }

  /** The context an allocation on `stream` runs in. */
  protected abstract allocationContext(stream: Stream): Context;

  /** The resource the pool's Buffers report (and free through): this one, unless a wrapper owns the pool. */
  protected bufferResource(): MemoryResource {
    return this;
  }

  /** Allocates `size` bytes from the pool, ordered on `options.stream`. */
  allocate(size: number | bigint, options?: AllocateOptions): Buffer {
    const n = allocationSize(size);
    const stream = takeStreamOption(options, "allocate", this);
    const pool = this.handle;
    if (this.isMapped) {
      throw new TypeError(`cannot allocate from a ${this.constructor.name} mapped from another process: allocate in the exporting process and share the buffer`);
    }
    if (n === 0) return new Buffer(INTERNAL, 0n as CUdeviceptr, 0, this.bufferResource(), stream);
    const ctx = this.allocationContext(stream);
    if (this.#context === undefined) {
      this.#context = ctx;
      if (this.deviceId >= 0) notePool(this.#poolUsage());
    }
    let ptr: CUdeviceptr;
    try {
      ptr = allocateFromPool(ctx, n, pool, stream);
    } catch (e) {
      if (!isOutOfMemory(e)) throw e;
      ptr = recoverOutOfMemory(
        e,
        {
          deviceId: this.deviceId,
          bytes: n,
          sync: () => withCurrentContext(ctx.handle, () => driver.cuCtxSynchronize()),
          memoryInfo: () => withCurrentContext(ctx.handle, () => driver.cuMemGetInfo()).map(Number) as [number, number],
        },
        () => allocateFromPool(ctx, n, pool, stream),
      );
    }
    return new Buffer(INTERNAL, ptr, Number(n), this.bufferResource(), stream);
  }

  #usage: PoolUsage | undefined;
  /** What the memory statistics read of this pool (and trim on an out-of-memory). */
  #poolUsage(): PoolUsage {
    if (this.#usage !== undefined) return this.#usage;
    const handle = this.handle;
    const attributes = this.attributes;
    return (this.#usage = {
      deviceId: this.deviceId,
      key: ffi.addressOf(handle),
      usage: () => [Number(attributes.reservedMemCurrent), Number(attributes.usedMemCurrent)],
      trimTo: (bytes) => driver.cuMemPoolTrimTo(handle, bytes),
    });
  }

  /**
   * Frees a buffer's memory, ordered on `options.stream`. Without a live stream it waits for the context to be
   * idle and frees at once. Works after the resource is closed (the driver keeps a destroyed pool until its last
   * allocation is freed).
   */
  deallocate(ptr: CUdeviceptr, _size: number, options?: AllocateOptions): void {
    if (ptr === 0n) return;
    const stream = options?.stream;
    if (stream !== undefined && !stream.isClosed) {
      const previous = enterContextOf(this.#context ?? stream.context);
      try {
        driver.cuMemFreeAsync(ptr, stream.handle);
      } finally {
        leaveContext(previous);
      }
      return;
    }
    const ctx = this.#context;
    const free = (): void => {
      driver.cuCtxSynchronize();
      driver.cuMemFreeAsync(ptr, null);
    };
    if (ctx !== undefined) withCurrentContext(ctx.handle, free);
    else free();
  }

  /** Returns reserved memory above `minBytesToKeep` to the system (cuMemPoolTrimTo). */
  trimTo(minBytesToKeep: number | bigint = 0): void {
    driver.cuMemPoolTrimTo(this.handle, minBytesToKeep);
  }

  /** The descriptor of one of this pool's buffers (IPC-enabled pools). Synchronise its allocation first. */
  exportBuffer(buffer: Buffer): IPCBufferDescriptor {
    if (!(buffer instanceof Buffer)) throw new TypeError("exportBuffer takes a Buffer");
    if (buffer.memoryResource !== this) throw new TypeError(`this buffer was not allocated by this ${this.constructor.name}`);
    const uuid = this.#ipc?.uuid;
    if (this.#ipc === undefined || uuid === undefined) {
      throw new TypeError(`this ${this.constructor.name} is not IPC-enabled: create it with { ipcEnabled: true } to share its buffers`);
    }
    const ctx = this.#context;
    if (ctx === undefined) throw new NoContextError(`no context is known for this ${this.constructor.name} yet: allocate the buffer from it first`);
    const data = withCurrentContext(ctx.handle, () => driver.cuMemPoolExportPointer(buffer.handle));
    return new IPCBufferDescriptor(INTERNAL, data.$bytes(), buffer.size, uuid);
  }

  /** Opens a shared buffer of this pool (mapped from the exporter) from its descriptor. */
  importBuffer(descriptor: IPCBufferDescriptor, options: { readonly stream: Stream }): Buffer {
    if (!(descriptor instanceof IPCBufferDescriptor)) {
      throw new TypeError("importBuffer takes an IPCBufferDescriptor (IPCBufferDescriptor.fromBytes(bytes) on the bytes the exporter sent)");
    }
    const stream = takeStreamOption(options, "Buffer.fromIpcDescriptor");
    const pool = this.handle;
    if (!this.isIpcEnabled) throw new TypeError(`this ${this.constructor.name} is not IPC-enabled: map the exporter's pool with fromAllocationHandle first`);
    const uuid = this.#ipc?.uuid;
    if (uuid !== undefined && descriptor.poolUuid !== uuid) {
      throw new RangeError(`this buffer belongs to pool ${descriptor.poolUuid}, but this resource maps pool ${uuid}: pass the resource made from that pool's allocation handle`);
    }
    const ctx = this.allocationContext(stream);
    this.#context ??= ctx;
    const bytes = new Uint8Array(new ArrayBuffer(64));
    bytes.set(descriptor.payload);
    const ptr = withCurrentContext(ctx.handle, () => driver.cuMemPoolImportPointer(pool, bytes));
    return new Buffer(INTERNAL, ptr, descriptor.size, this, stream);
  }

  /**
   * Releases this object's pool: an owned pool is destroyed (the driver frees it once its last allocation is
   * freed), a borrowed one (the device's default) is only forgotten; an exported handle is closed. Buffers already
   * allocated stay valid and can still be closed. Closing twice is harmless.
   */
  close(): void {
    const pool = this.#pool;
    if (pool === undefined) return;
    this.#pool = undefined;
    const uuid = this.#ipc?.uuid;
    if (uuid !== undefined && registry.get(uuid)?.deref() === this) registry.delete(uuid);
    this.#ipc?.handle?.close();
    if (this.#owned) driver.cuMemPoolDestroy(pool);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  toString(): string {
    return `${this.constructor.name}(${this.#pool === undefined ? "closed" : `pool 0x${ffi.addressOf(this.#pool).toString(16)}`})`;
  }

}

let pendingInit: PoolInit | undefined;

/**
 * Device memory from a stream-ordered pool. Without options: the device's current pool (by default the device's
 * default pool; not owned, never destroyed), with its release threshold raised from 0 to "never" as cuda.core
 * does. With options: a new pool on the device (owned), optionally IPC-enabled.
 *
 * The device must have been made current once (`device.setCurrent()`).
 */
export class DeviceMemoryResource extends MemoryPoolResource {
  /** The device the memory is on. */
  readonly device: Device;

  constructor(device: Device | number, options?: DeviceMemoryResourceOptions) {
    const dev = deviceOf(device);
    super(INTERNAL, pendingInit ?? devicePoolInit(dev, options));
    pendingInit = undefined;
    this.device = dev;
    if (!this.isMapped) {
      const threshold = options === undefined ? undefined : resolveDevicePoolOptions(options).releaseThreshold;
      applyReleaseThreshold(this.attributes, threshold, options === undefined);
    }
  }

  get isDeviceAccessible(): boolean {
    return true;
  }
  get isHostAccessible(): boolean {
    return false;
  }
  get isManaged(): boolean {
    return false;
  }
  get deviceId(): number {
    return this.device.id;
  }

  protected allocationContext(_stream: Stream): Context {
    return this.device.context;
  }

  /**
   * Maps a device pool exported by another process (its allocation handle, received with
   * `IpcChannel.receiveAllocationHandle`). The handle is closed once mapped. A pool this process already maps is
   * returned as is.
   */
  static fromAllocationHandle(device: Device | number, handle: IPCAllocationHandle | number): DeviceMemoryResource {
    const existing = registered(handle instanceof IPCAllocationHandle ? handle.uuid : undefined);
    if (existing instanceof DeviceMemoryResource) {
      if (handle instanceof IPCAllocationHandle && !ownsHandle(existing, handle)) handle.close();
      return existing;
    }
    const dev = deviceOf(device);
    const context = dev.context;
    const { pool, uuid } = importPool(handle, "DeviceMemoryResource.fromAllocationHandle");
    pendingInit = { pool, owned: true, ipc: { uuid, mapped: true }, context };
    try {
      return new DeviceMemoryResource(dev);
    } finally {
      pendingInit = undefined;
    }
  }

  override toString(): string {
    return `DeviceMemoryResource(device ${this.device.id}${this.isMapped ? ", mapped" : ""}${this.isClosed ? ", closed" : ""})`;
  }
}

function devicePoolInit(dev: Device, options: DeviceMemoryResourceOptions | undefined): PoolInit {
  const context = dev.context;
  if (options === undefined) return { pool: driver.cuDeviceGetMemPool(dev.id), owned: false, context };
  const o = resolveDevicePoolOptions(options);
  const pool = createPool({
    allocType: CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED,
    locationType: CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE,
    locationId: dev.id,
    ipcEnabled: o.ipcEnabled,
    maxSize: o.maxSize,
  });
  if (!o.ipcEnabled) return { pool, owned: true, context };
  try {
    const handle = exportPool(pool);
    return { pool, owned: true, ipc: { handle, uuid: handle.uuid, mapped: false }, context };
  } catch (e) {
    driver.cuMemPoolDestroy(pool);
    throw e;
  }
}

/** cuMemAllocFromPoolAsync in `ctx`. */
function allocateFromPool(ctx: Context, n: number | bigint, pool: CUmemoryPool, stream: Stream): CUdeviceptr {
  const previous = enterContextOf(ctx);
  try {
    return driver.cuMemAllocFromPoolAsync(typeof n === "number" ? sizeArgument(n) : n, pool, stream.handle);
  } finally {
    leaveContext(previous);
  }
}

/**
 * The resource a device allocates from by default: its current memory pool (a DeviceMemoryResource without
 * options) where the device supports pools, else synchronous allocations.
 */
export function defaultMemoryResource(device: Device): MemoryResource {
  return device.properties.memoryPoolsSupported ? new DeviceMemoryResource(device) : new SynchronousMemoryResource(device);
}

/**
 * The device's default pool.
 * @deprecated Use `DeviceMemoryResource` (without options it is the device's default pool).
 */
export { DeviceMemoryResource as DefaultPoolMemoryResource };
