/**
 * Memory resources: where Buffers come from. The device's default resource is its default memory pool
 * (stream-ordered cuMemAllocFromPoolAsync / cuMemFreeAsync) where the device supports pools, else synchronous
 * cuMemAlloc / cuMemFree.
 *
 * @module
 */
import { CUmemPool_attribute, type CUdeviceptr, type CUmemoryPool } from "../bindings/driver.ts";
import { Buffer } from "./buffer.ts";
import type { Device } from "./device.ts";
import { currentContextHandle, driver, makeCurrent } from "./driver-state.ts";
import type { Stream } from "./stream.ts";

/** Where Buffers come from. */
export interface MemoryResource {
  /** Allocates `size` bytes, ordered on `options.stream` where the resource is stream-ordered. */
  allocate(size: number | bigint, options?: { readonly stream?: Stream }): Buffer;
  /** Frees memory this resource allocated, ordered on `options.stream` where the resource is stream-ordered. */
  deallocate(ptr: CUdeviceptr, size: number, options?: { readonly stream?: Stream }): void;
  /** Whether device code can use the memory. */
  readonly isDeviceAccessible: boolean;
  /** Whether host code can use the memory. */
  readonly isHostAccessible: boolean;
  /** The device ordinal, or -1 for memory not tied to one device. */
  readonly deviceId: number;
}

/** Validates and converts an allocation size. */
export function allocationSize(size: number | bigint): number {
  const n = typeof size === "bigint" ? Number(size) : size;
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`an allocation size is a non-negative integer number of bytes, not ${String(size)}`);
  return n;
}

/** Runs `fn` with `device`'s context current. */
function onDevice<T>(device: Device, fn: () => T): T {
  const previous = currentContextHandle();
  makeCurrent(device.context.handle);
  try {
    return fn();
  } finally {
    makeCurrent(previous);
  }
}

/** Synchronous device memory (cuMemAlloc / cuMemFree), for devices without memory pools. */
export class SynchronousMemoryResource implements MemoryResource {
  readonly isDeviceAccessible = true;
  readonly isHostAccessible = false;
  constructor(readonly device: Device) {}
  get deviceId(): number {
    return this.device.id;
  }
  allocate(size: number | bigint, options: { readonly stream?: Stream } = {}): Buffer {
    const n = allocationSize(size);
    const ptr = n === 0 ? (0n as CUdeviceptr) : onDevice(this.device, () => driver.cuMemAlloc(n));
    return new Buffer(ptr, n, this, options.stream);
  }
  deallocate(ptr: CUdeviceptr, _size: number, options: { readonly stream?: Stream } = {}): void {
    if (ptr === 0n) return;
    options.stream?.sync();
    onDevice(this.device, () => driver.cuMemFree(ptr));
  }
}

/** The device's default memory pool, stream-ordered. */
export class DefaultPoolMemoryResource implements MemoryResource {
  readonly isDeviceAccessible = true;
  readonly isHostAccessible = false;
  readonly pool: CUmemoryPool;
  constructor(readonly device: Device) {
    this.pool = driver.cuDeviceGetDefaultMemPool(device.id);
    // As cuda.core does: keep freed memory in the pool (a release threshold of 0 returns it at every sync).
    const v = new BigUint64Array(new ArrayBuffer(8));
    driver.cuMemPoolGetAttribute(this.pool, CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, v);
    if (v[0] === 0n) {
      v[0] = 0xffffffffffffffffn;
      driver.cuMemPoolSetAttribute(this.pool, CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, v);
    }
  }
  get deviceId(): number {
    return this.device.id;
  }
  allocate(size: number | bigint, options: { readonly stream?: Stream } = {}): Buffer {
    const n = allocationSize(size);
    const stream = options.stream;
    if (stream === undefined) throw new TypeError("allocating from a memory pool is stream-ordered: pass { stream }");
    const ptr = n === 0 ? (0n as CUdeviceptr) : onDevice(this.device, () => driver.cuMemAllocFromPoolAsync(n, this.pool, stream.handle));
    return new Buffer(ptr, n, this, stream);
  }
  deallocate(ptr: CUdeviceptr, _size: number, options: { readonly stream?: Stream } = {}): void {
    if (ptr === 0n) return;
    const stream = options.stream;
    onDevice(this.device, () => {
      if (stream !== undefined && !stream.isClosed) driver.cuMemFreeAsync(ptr, stream.handle);
      else {
        // No live stream to order the free on: free on the legacy default stream after the device is idle.
        driver.cuCtxSynchronize();
        driver.cuMemFreeAsync(ptr, null);
      }
    });
  }
}

/** The resource a device allocates from by default. */
export function defaultMemoryResource(device: Device): MemoryResource {
  return device.properties.memoryPoolsSupported ? new DefaultPoolMemoryResource(device) : new SynchronousMemoryResource(device);
}
