/**
 * `VirtualMemoryResource`: allocations built from the CUDA virtual memory management API (physical memory from
 * `cuMemCreate`, an address range from `cuMemAddressReserve`, joined with `cuMemMap` and opened with
 * `cuMemSetAccess`), sized in multiples of the allocation granularity, and growable in place:
 * `mr.grow(buffer, newSize)` (cuda.core's `modify_allocation`) maps more physical memory after the existing range
 * when the addresses there are free, so the buffer keeps its address and contents; otherwise it reserves a larger
 * range elsewhere and maps the same physical memory there too (no copy), so the contents stay and only the address
 * changes. Host views made before a grow are detached.
 *
 * @module
 */
import { CUmemAccessDesc_st, CUmemAllocationProp_st, CUmemLocationType, type CUdeviceptr, type CUmemGenericAllocationHandle } from "../../bindings/driver.ts";
import { Scratch } from "../../ffi/index.ts";
import { Buffer, relocateBuffer } from "./buffer.ts";
import type { Device } from "../device.ts";
import { deviceOf } from "../base/hub.ts";
import { driver, withCurrentContext } from "../base/driver-state.ts";
import { allocationSize, type AllocateOptions, type MemoryResource } from "./resource.ts";
import { alignUp, growthPlan, resolveVirtualOptions, type ResolvedVirtualOptions, type VirtualMemoryResourceOptions } from "./virtual-options.ts";
import { DeviceFeatureError } from "./errors.ts";
import { INTERNAL } from "../base/internal.ts";

interface Chunk {
  /** Offset from the allocation's base. */
  readonly offset: bigint;
  readonly size: bigint;
  readonly handle: CUmemGenericAllocationHandle;
}

interface Allocation {
  base: bigint;
  /** Bytes mapped (a multiple of the granularity). */
  mapped: bigint;
  chunks: Chunk[];
  /** Address ranges reserved for this allocation (each freed separately). */
  reservations: { ptr: bigint; size: bigint }[];
}

const out = new Scratch(8);

/** Undo steps run in reverse when a multi-step operation fails. */
class Undo {
  readonly #steps: (() => void)[] = [];
  add(step: () => void): void {
    this.#steps.push(step);
  }
  run(): void {
    for (const s of this.#steps.reverse()) {
      try {
        s();
      } catch {
        // Best effort: the original failure is what the caller sees.
      }
    }
  }
}

/** Virtual-memory allocations on a device (or host memory mapped for it), growable with {@link VirtualMemoryResource.grow}. */
export class VirtualMemoryResource implements MemoryResource {
  /** The device whose context runs the calls (and, for "device" locations, where the memory is). */
  readonly device: Device;
  readonly #o: ResolvedVirtualOptions;
  readonly #allocations = new Map<bigint, Allocation>();
  #granularity: bigint | undefined;

  constructor(device: Device | number, options?: VirtualMemoryResourceOptions) {
    this.device = deviceOf(device);
    this.#o = resolveVirtualOptions(options);
    if (this.#o.location === "device" && this.device.properties.virtualMemoryManagementSupported === 0) {
      throw new DeviceFeatureError(`device ${this.device.id} (${this.device.name}) does not support virtual memory management: use DeviceMemoryResource`);
    }
    if (this.#o.gpuDirectRdma && this.device.properties.gpuDirectRdmaSupported === 0) {
      throw new DeviceFeatureError(`device ${this.device.id} does not support GPUDirect RDMA: leave gpuDirectRdma off`);
    }
  }

  get isDeviceAccessible(): boolean {
    return this.#o.location === "device" || this.#o.peerAccess !== 0;
  }
  get isHostAccessible(): boolean {
    return this.#o.location !== "device";
  }
  get isManaged(): boolean {
    return false;
  }
  /** The device ordinal for device memory, -1 for host memory. */
  get deviceId(): number {
    return this.#o.location === "device" ? this.device.id : -1;
  }

  /** The allocation properties of new physical memory. */
  #prop(): CUmemAllocationProp_st {
    const p = new CUmemAllocationProp_st();
    p.type = this.#o.allocationType;
    p.requestedHandleTypes = this.#o.handleType;
    p.location.type = this.#o.locationType;
    p.location.id = this.#o.location === "device" ? this.device.id : this.#o.numaId;
    p.allocFlags.gpuDirectRDMACapable = this.#o.gpuDirectRdma ? 1 : 0;
    return p;
  }

  /** The size unit of allocations (bytes), as the driver reports it for these options. */
  get granularity(): bigint {
    return (this.#granularity ??= withCurrentContext(this.device.context.handle, () => driver.cuMemGetAllocationGranularity(this.#prop(), this.#o.granularityFlag)));
  }

  #alignment(): bigint {
    return this.#o.addressAlignment === 0n ? this.granularity : this.#o.addressAlignment;
  }

  /** The access descriptors: the owner location, then the device (for host memory) and the peers. */
  #access(): { mem: ArrayBuffer; count: number } {
    const entries: { type: CUmemLocationType; id: number; flags: number }[] = [];
    const o = this.#o;
    if (o.selfAccess !== 0) entries.push({ type: o.locationType, id: o.location === "device" ? this.device.id : o.numaId, flags: o.selfAccess });
    if (o.peerAccess !== 0) {
      const devices = o.location === "device" ? o.peers : [this.device.id, ...o.peers];
      for (const id of new Set(devices)) {
        if (o.location === "device" && id === this.device.id) continue;
        entries.push({ type: CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, id, flags: o.peerAccess });
      }
    }
    const mem = new ArrayBuffer(Math.max(1, entries.length) * CUmemAccessDesc_st.$size + 4);
    entries.forEach((e, i) => {
      const d = new CUmemAccessDesc_st(mem, i * CUmemAccessDesc_st.$size);
      d.location.type = e.type;
      d.location.id = e.id;
      d.flags = e.flags as CUmemAccessDesc_st["flags"];
    });
    return { mem, count: entries.length };
  }

  #setAccess(ptr: bigint, size: bigint): void {
    const a = this.#access();
    if (a.count > 0) driver.cuMemSetAccess(ptr as CUdeviceptr, size, a.mem, a.count);
  }

  /** Creates physical memory and maps it at `ptr`; registers the undo steps. */
  #mapNew(ptr: bigint, size: bigint, undo: Undo): CUmemGenericAllocationHandle {
    const handle = driver.cuMemCreate(size, this.#prop(), 0);
    undo.add(() => driver.cuMemRelease(handle));
    driver.cuMemMap(ptr as CUdeviceptr, size, 0, handle, 0);
    undo.add(() => driver.cuMemUnmap(ptr as CUdeviceptr, size));
    return handle;
  }

  /**
   * Allocates at least `size` bytes (the physical memory is rounded up to the granularity; the Buffer's size is
   * `size`). Synchronous: `options.stream` is only recorded as the buffer's default stream for `close`.
   */
  allocate(size: number | bigint, options: AllocateOptions = {}): Buffer {
    const n = allocationSize(size);
    if (n === 0) return new Buffer(INTERNAL, 0n as CUdeviceptr, 0, this, options.stream);
    return new Buffer(INTERNAL, this.#create(n) as CUdeviceptr, Number(n), this, options.stream);
  }

  /** Reserves, creates, maps and opens at least `n` bytes; returns the base address. */
  #create(n: number | bigint): bigint {
    return withCurrentContext(this.device.context.handle, () => {
      const aligned = alignUp(BigInt(n), this.granularity);
      const undo = new Undo();
      try {
        const base = driver.cuMemAddressReserve(aligned, this.#alignment(), this.#o.addressHint as CUdeviceptr, 0) as bigint;
        undo.add(() => driver.cuMemAddressFree(base as CUdeviceptr, aligned));
        const handle = this.#mapNew(base, aligned, undo);
        this.#setAccess(base, aligned);
        this.#allocations.set(base, { base, mapped: aligned, chunks: [{ offset: 0n, size: aligned, handle }], reservations: [{ ptr: base, size: aligned }] });
        return base;
      } catch (e) {
        undo.run();
        throw e;
      }
    });
  }

  /**
   * Unmaps and releases an allocation. With a live stream it waits for that stream first; without one, for the
   * whole context (unmapping memory a kernel still uses would fault).
   */
  deallocate(ptr: CUdeviceptr, _size: number, options: AllocateOptions = {}): void {
    if (ptr === 0n) return;
    const a = this.#allocations.get(ptr);
    if (a === undefined) throw new RangeError(`0x${ptr.toString(16)} is not an allocation of this VirtualMemoryResource (freed already?)`);
    withCurrentContext(this.device.context.handle, () => {
      if (options.stream !== undefined && !options.stream.isClosed) options.stream.sync();
      else driver.cuCtxSynchronize();
      this.#allocations.delete(ptr);
      release(a);
    });
  }

  /**
   * Grows `buffer` (allocated here) to `newSize` bytes, keeping its contents: in place when the address range after
   * it is free (the address stays), else by mapping the same physical memory into a larger new range (no copy; the
   * address changes, `buffer.handle` says the new one). Returns `buffer`. Shrinking is not supported; a size that
   * still fits the mapped granules only changes `buffer.size`. Work still using the old address must be finished
   * (the context is synchronised before an old range is unmapped).
   */
  grow(buffer: Buffer, newSize: number | bigint): Buffer {
    if (!(buffer instanceof Buffer)) throw new TypeError("grow takes a Buffer allocated by this VirtualMemoryResource");
    if (buffer.memoryResource !== this) throw new TypeError(`this Buffer was not allocated by this VirtualMemoryResource (it comes from ${buffer.memoryResource?.constructor.name ?? "foreign memory"})`);
    const n = allocationSize(newSize);
    if (n < buffer.size) throw new RangeError(`grow makes buffers larger: ${n} bytes is less than the buffer's ${buffer.size}; allocate a smaller buffer and copy instead`);
    if (buffer.size === 0) {
      if (n > 0) relocateBuffer(buffer, this.#create(n) as CUdeviceptr, Number(n));
      return buffer;
    }
    const base = buffer.handle as bigint;
    const a = this.#allocations.get(base);
    if (a === undefined) throw new RangeError(`0x${base.toString(16)} is not a live allocation of this VirtualMemoryResource`);
    withCurrentContext(this.device.context.handle, () => {
      const plan = growthPlan(a.mapped, BigInt(n), this.granularity);
      if (plan.extra > 0n && !this.#growInPlace(a, plan.extra)) this.#growByRemapping(a, plan.extra);
    });
    relocateBuffer(buffer, a.base as CUdeviceptr, Number(n));
    return buffer;
  }

  /** cuda.core's name for {@link VirtualMemoryResource.grow}. */
  modifyAllocation(buffer: Buffer, newSize: number | bigint): Buffer {
    return this.grow(buffer, newSize);
  }

  /** Tries to reserve the range right after the allocation and map `extra` bytes there. */
  #growInPlace(a: Allocation, extra: bigint): boolean {
    const want = a.base + a.mapped;
    out.u64[0] = 0n;
    const r = driver.raw.cuMemAddressReserve(out.pointer, extra, this.#alignment(), want as CUdeviceptr, 0);
    if (r !== 0) return false;
    const got = out.u64[0]!;
    if (got !== want) {
      driver.cuMemAddressFree(got as CUdeviceptr, extra);
      return false;
    }
    const undo = new Undo();
    undo.add(() => driver.cuMemAddressFree(got as CUdeviceptr, extra));
    try {
      const handle = this.#mapNew(got, extra, undo);
      this.#setAccess(got, extra);
      a.chunks.push({ offset: a.mapped, size: extra, handle });
      a.reservations.push({ ptr: got, size: extra });
      a.mapped += extra;
      return true;
    } catch (e) {
      undo.run();
      throw e;
    }
  }

  /** Reserves a larger range elsewhere, maps the existing physical memory and `extra` new bytes into it, drops the old range. */
  #growByRemapping(a: Allocation, extra: bigint): void {
    const total = a.mapped + extra;
    const undo = new Undo();
    let base: bigint;
    let handle: CUmemGenericAllocationHandle;
    try {
      base = driver.cuMemAddressReserve(total, this.#alignment(), 0n as CUdeviceptr, 0) as bigint;
      const b = base;
      undo.add(() => driver.cuMemAddressFree(b as CUdeviceptr, total));
      for (const c of a.chunks) {
        driver.cuMemMap((b + c.offset) as CUdeviceptr, c.size, 0, c.handle, 0);
        undo.add(() => driver.cuMemUnmap((b + c.offset) as CUdeviceptr, c.size));
      }
      handle = this.#mapNew(b + a.mapped, extra, undo);
      this.#setAccess(b, total);
    } catch (e) {
      undo.run();
      throw e;
    }
    // The new range is complete: retire the old one once nothing uses it.
    driver.cuCtxSynchronize();
    for (const c of a.chunks) driver.cuMemUnmap((a.base + c.offset) as CUdeviceptr, c.size);
    for (const r of a.reservations) driver.cuMemAddressFree(r.ptr as CUdeviceptr, r.size);
    this.#allocations.delete(a.base);
    a.chunks.push({ offset: a.mapped, size: extra, handle });
    a.reservations = [{ ptr: base, size: total }];
    a.base = base;
    a.mapped = total;
    this.#allocations.set(base, a);
  }

  /** Bytes of physical memory mapped for a buffer of this resource (its size rounded up to the granularity). */
  mappedSize(buffer: Buffer): bigint {
    const a = this.#allocations.get(buffer.handle as bigint);
    if (a === undefined) throw new RangeError("this Buffer is not a live allocation of this VirtualMemoryResource");
    return a.mapped;
  }

  toString(): string {
    return `VirtualMemoryResource(device ${this.device.id}, ${this.#o.location})`;
  }
}

function release(a: Allocation): void {
  for (const c of a.chunks) driver.cuMemUnmap((a.base + c.offset) as CUdeviceptr, c.size);
  for (const c of a.chunks) driver.cuMemRelease(c.handle);
  for (const r of a.reservations) driver.cuMemAddressFree(r.ptr as CUdeviceptr, r.size);
}
