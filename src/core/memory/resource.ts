/**
 * Memory resources: where Buffers come from. {@link MemoryResource} is the one interface; the implementations are
 *
 * - `DeviceMemoryResource` (memory-pool.ts): the device's default pool, or a new pool (releaseThreshold, maxSize,
 *   ipcEnabled). Each device allocates from its default pool unless `device.memoryResource` is replaced.
 * - `PinnedMemoryResource` (memory-pinned.ts): a pool of page-locked host memory, host- and device-accessible.
 * - `ManagedMemoryResource` (memory-managed.ts): managed (unified) memory with prefetch and advice.
 * - `LegacyPinnedMemoryResource` (memory-pinned.ts): cuMemAllocHost / cuMemFreeHost.
 * - `VirtualMemoryResource` (memory-virtual.ts): cuMemCreate / cuMemMap allocations that can grow.
 * - {@link SynchronousMemoryResource}: cuMemAlloc / cuMemFree, for devices without memory pools.
 *
 * @module
 */
import type { CUdeviceptr } from "../../bindings/driver.ts";
import { Buffer } from "./buffer.ts";
import type { Device } from "../device.ts";
import { driver, withCurrentContext } from "../base/driver-state.ts";
import type { IPCBufferDescriptor } from "./ipc.ts";
import type { Stream } from "../stream.ts";
import { describeValue } from "../../errors/describe.ts";
import { INTERNAL } from "../base/internal.ts";
import { isOutOfMemory, recoverOutOfMemory } from "./out-of-memory.ts";

/** Options of `allocate` and `deallocate`. */
export interface AllocateOptions {
  /** The stream the operation is ordered on (required by stream-ordered resources: the pools). */
  readonly stream?: Stream;
}

/** Where Buffers come from. */
export interface MemoryResource {
  /** Allocates `size` bytes, ordered on `options.stream` where the resource is stream-ordered. */
  allocate(size: number | bigint, options?: AllocateOptions): Buffer;
  /** Frees memory this resource allocated, ordered on `options.stream` where the resource is stream-ordered. */
  deallocate(ptr: CUdeviceptr, size: number, options?: AllocateOptions): void;
  /** Whether device code can use the memory. */
  readonly isDeviceAccessible: boolean;
  /** Whether host code can use the memory (then `buffer.asTypedArray()` works). */
  readonly isHostAccessible: boolean;
  /** Whether the memory is managed (unified) memory. Absent means false. */
  readonly isManaged?: boolean;
  /** The device ordinal, or -1 for memory not tied to one device. */
  readonly deviceId: number;
}

/** A resource whose buffers can be shared with other processes (an IPC-enabled pool). */
export interface IpcMemoryResource extends MemoryResource {
  /** Whether the pool was created with `ipcEnabled`. */
  readonly isIpcEnabled: boolean;
  /** The descriptor of one of this pool's buffers. */
  exportBuffer(buffer: Buffer): IPCBufferDescriptor;
  /** Opens a buffer of this (imported) pool from its descriptor. */
  importBuffer(descriptor: IPCBufferDescriptor, options: { readonly stream: Stream }): Buffer;
}

const SIZE_T_MAX = 0xffff_ffff_ffff_ffffn;

/**
 * Checks an allocation size: a whole number of bytes from 0 to 2^64-1, as a number or a bigint. Sizes beyond what
 * the device could hold are not refused here: the driver answers them (with CUDA_ERROR_OUT_OF_MEMORY, a CudaError).
 * Returns a number where the size is a safe integer (every size a real allocation can have), else a bigint.
 */
export function allocationSize(size: number | bigint): number | bigint {
  if (typeof size === "number") {
    if (Number.isSafeInteger(size) && size >= 0) return size;
    if (Number.isInteger(size) && size >= 0 && size <= 2 ** 64 - 2 ** 11) return BigInt(size);
  } else if (typeof size === "bigint") {
    if (size >= 0n && size <= SIZE_T_MAX) return size <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(size) : size;
  }
  throw new RangeError(
    `an allocation size is a whole number of bytes from 0 to 2^64-1 (a number or a bigint), not ${describeValue(size)}` +
      (typeof size === "number" && Number.isInteger(size) && size > 0 ? ": that is more than 64 bits can count; pass a bigint ≤ 2n**64n-1n" : ""),
  );
}

/** Synchronous device memory (cuMemAlloc / cuMemFree), for devices without memory pools. */
export class SynchronousMemoryResource implements MemoryResource {
  readonly isDeviceAccessible = true;
  readonly isHostAccessible = false;
  readonly isManaged = false;
  constructor(readonly device: Device) {}
  get deviceId(): number {
    return this.device.id;
  }
  allocate(size: number | bigint, options: AllocateOptions = {}): Buffer {
    const n = allocationSize(size);
    if (n === 0) return new Buffer(INTERNAL, 0n as CUdeviceptr, 0, this, options.stream);
    const ctx = this.device.context.handle;
    const alloc = (): CUdeviceptr => withCurrentContext(ctx, () => driver.cuMemAlloc(n));
    let ptr: CUdeviceptr;
    try {
      ptr = alloc();
    } catch (e) {
      if (!isOutOfMemory(e)) throw e;
      ptr = recoverOutOfMemory(
        e,
        {
          deviceId: this.device.id,
          bytes: n,
          sync: () => withCurrentContext(ctx, () => driver.cuCtxSynchronize()),
          memoryInfo: () => withCurrentContext(ctx, () => driver.cuMemGetInfo()).map(Number) as [number, number],
        },
        alloc,
      );
    }
    return new Buffer(INTERNAL, ptr, Number(n), this, options.stream);
  }
  deallocate(ptr: CUdeviceptr, _size: number, options: AllocateOptions = {}): void {
    if (ptr === 0n) return;
    if (options.stream !== undefined && !options.stream.isClosed) options.stream.sync();
    withCurrentContext(this.device.context.handle, () => driver.cuMemFree(ptr));
  }
}
