/**
 * Page-locked host memory, reachable from the host (as a TypedArray, without copying) and from devices:
 * {@link PinnedMemoryResource} (a stream-ordered pool located on the host, CUDA 12.6+ drivers) and
 * {@link LegacyPinnedMemoryResource} (`cuMemHostAlloc` / `cuMemFreeHost`, synchronous, any driver).
 *
 * @module
 */
import { CU_MEMHOSTALLOC_DEVICEMAP, CU_MEMHOSTALLOC_PORTABLE, CUmemAllocationType, CUmemLocationType, type CUdeviceptr } from "../../bindings/driver.ts";
import { ffi } from "../../ffi/index.ts";
import { Buffer } from "./buffer.ts";
import { Context } from "../context.ts";
import { allDevices } from "../base/hub.ts";
import { driver, withCurrentContext } from "../base/driver-state.ts";
import type { IPCAllocationHandle } from "./ipc.ts";
import { resolvePinnedOptions, type PinnedMemoryResourceOptions } from "./options.ts";
import { applyReleaseThreshold, createPool, exportPool, importPool, MemoryPoolResource, ownsHandle, registered, setPoolAccess, type PoolInit } from "./pool.ts";
import { allocationSize, type AllocateOptions, type MemoryResource } from "./resource.ts";
import type { Stream } from "../stream.ts";
import { NoContextError } from "../base/errors.ts";
import { INTERNAL } from "../base/internal.ts";

let pendingInit: PoolInit | undefined;

function currentContext(what: string): Context {
  const ctx = Context.current();
  if (ctx === undefined) throw new NoContextError(`${what} needs a current context: call device.setCurrent() first`);
  return ctx;
}

/**
 * Pinned host memory from a stream-ordered pool located on the host (`CU_MEM_LOCATION_TYPE_HOST`, or
 * `CU_MEM_LOCATION_TYPE_HOST_NUMA` with `numaId` or `ipcEnabled`). Every device (or those in `accessibleBy`) is
 * granted read-write access, so kernels can use the memory directly. Always a new pool, owned by this resource.
 *
 * Host access through `buffer.asTypedArray()` is not stream-ordered: synchronise the allocating stream, and any
 * stream whose kernels or copies touch the memory, before reading or writing it from JavaScript.
 */
export class PinnedMemoryResource extends MemoryPoolResource {
  /** The host NUMA node the memory is on, or -1 for anywhere on the host. */
  readonly numaId: number;

  constructor(options?: PinnedMemoryResourceOptions) {
    const o = resolvePinnedOptions(options);
    super(INTERNAL, pendingInit ?? pinnedPoolInit(o));
    pendingInit = undefined;
    this.numaId = o.numaId;
    if (!this.isMapped) applyReleaseThreshold(this.attributes, o.releaseThreshold, false);
  }

  get isDeviceAccessible(): boolean {
    return true;
  }
  get isHostAccessible(): boolean {
    return true;
  }
  get isManaged(): boolean {
    return false;
  }
  /** -1: pinned memory is host memory, not one device's. */
  get deviceId(): number {
    return -1;
  }

  protected allocationContext(stream: Stream): Context {
    return stream.context;
  }

  /**
   * Maps a pinned pool exported by another process (its allocation handle). The handle is closed once mapped. A
   * pool this process already maps is returned as is.
   */
  static fromAllocationHandle(handle: IPCAllocationHandle | number): PinnedMemoryResource {
    const uuid = typeof handle === "number" ? undefined : handle.uuid;
    const existing = registered(uuid);
    if (existing instanceof PinnedMemoryResource) {
      if (typeof handle !== "number" && !ownsHandle(existing, handle)) handle.close();
      return existing;
    }
    const context = Context.current();
    const { pool, uuid: id } = importPool(handle, "PinnedMemoryResource.fromAllocationHandle");
    try {
      // Access is per process: this process's devices need it too.
      setPoolAccess(pool, allDevices().map((d) => d.id));
    } catch (e) {
      driver.cuMemPoolDestroy(pool);
      throw e;
    }
    pendingInit = { pool, owned: true, ipc: { uuid: id, mapped: true }, ...(context === undefined ? {} : { context }) };
    try {
      return new PinnedMemoryResource();
    } finally {
      pendingInit = undefined;
    }
  }
}

function pinnedPoolInit(o: ReturnType<typeof resolvePinnedOptions>): PoolInit {
  const pool = createPool({
    allocType: CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED,
    locationType: o.location === "host" ? CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST : CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST_NUMA,
    locationId: o.numaId,
    ipcEnabled: o.ipcEnabled,
    maxSize: o.maxSize,
  });
  try {
    setPoolAccess(pool, o.accessibleBy ?? allDevices().map((d) => d.id));
    const context = Context.current();
    const base = context === undefined ? {} : { context };
    if (!o.ipcEnabled) return { pool, owned: true, ...base };
    const handle = exportPool(pool);
    return { pool, owned: true, ipc: { handle, uuid: handle.uuid, mapped: false }, ...base };
  } catch (e) {
    driver.cuMemPoolDestroy(pool);
    throw e;
  }
}


/**
 * Pinned host memory from `cuMemHostAlloc` (portable, mapped) and `cuMemFreeHost`: synchronous, works on every
 * driver. `allocate` takes an optional stream (only recorded: the buffer's default stream for `close`);
 * `deallocate` with a stream waits for that stream first, so pending copies finish before the memory goes.
 */
export class LegacyPinnedMemoryResource implements MemoryResource {
  readonly isDeviceAccessible = true;
  readonly isHostAccessible = true;
  readonly isManaged = false;
  /** -1: pinned memory is host memory, not one device's. */
  readonly deviceId = -1;
  #context: Context | undefined;

  /** Allocations happen in `context` (default: the context current at the first allocation). */
  constructor(context?: Context) {
    this.#context = context;
  }

  allocate(size: number | bigint, options: AllocateOptions = {}): Buffer {
    const n = allocationSize(size);
    const ctx = (this.#context ??= options.stream?.context ?? currentContext("LegacyPinnedMemoryResource.allocate"));
    const ptr = n === 0 ? (0n as CUdeviceptr) : (ffi.bigAddressOf(withCurrentContext(ctx.handle, () => driver.cuMemHostAlloc(n, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP))) as CUdeviceptr);
    return new Buffer(INTERNAL, ptr, Number(n), this, options.stream);
  }

  deallocate(ptr: CUdeviceptr, _size: number, options: AllocateOptions = {}): void {
    if (ptr === 0n) return;
    if (options.stream !== undefined && !options.stream.isClosed) options.stream.sync();
    const ctx = this.#context;
    const free = (): void => driver.cuMemFreeHost(ffi.pointerFromAddress(ptr));
    if (ctx !== undefined && !ctx.isClosed) withCurrentContext(ctx.handle, free);
    else free();
  }

  toString(): string {
    return "LegacyPinnedMemoryResource()";
  }
}
