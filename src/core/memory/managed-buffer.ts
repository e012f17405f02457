/**
 * `ManagedBuffer`: a managed (unified-memory) Buffer with its advice as properties, as cuda.core's ManagedBuffer:
 * `readMostly`, `preferredLocation`, `accessedBy`, `lastPrefetchLocation` (read back with
 * `cuMemRangeGetAttribute`, set with `cuMemAdvise`), and `prefetch`, `discard`, `discardPrefetch` on a stream.
 * `prefetchBatch`, `discardBatch` and `discardPrefetchBatch` do the same for many buffers in one driver call
 * (CUDA 13's `cuMemPrefetchBatchAsync`, `cuMemDiscardBatchAsync`, `cuMemDiscardAndPrefetchBatchAsync`); on an older
 * driver they are a DeviceFeatureError (prefetch falls back to one `cuMemPrefetchAsync` per buffer).
 *
 * Measured on an H200 with the 13.0 driver (580): advice works on `cuMemAllocManaged` memory only; memory from a
 * managed pool answers CUDA_ERROR_NOT_SUPPORTED, reported as a ManagedAdviceError naming `{ pool: false }`.
 *
 * @module
 */
import { CUmem_range_attribute, CUmemLocationType, type CUdeviceptr } from "../../bindings/driver.ts";
import { CudaError } from "../../bindings/errors.ts";
import { formatCudaVersion } from "../../bindings/describe.ts";
import { Buffer } from "./buffer.ts";
import { driver, withCurrentContext } from "../base/driver-state.ts";
import { describeValue } from "../../errors/describe.ts";
import { ClosedError } from "../base/errors.ts";
import { DeviceFeatureError, ManagedAdviceError } from "./errors.ts";
import { locationRecord, resolveAdvice, resolveLocation, type ManagedAdvice, type MemoryLocation, type MemoryLocationType } from "./location.ts";
import type { Stream } from "../stream.ts";
import { takeStreamOption } from "../base/stream-arg.ts";
import type { Context } from "../context.ts";

/** A location read back from the driver: `{ type, id }` (`id` -1 where the type has none). */
export interface ReadLocation {
  readonly type: MemoryLocationType | "none";
  readonly id: number;
}

const TYPE_NAMES: Readonly<Record<number, MemoryLocationType | "none">> = {
  [CUmemLocationType.CU_MEM_LOCATION_TYPE_INVALID]: "none",
  [CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE]: "device",
  [CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST]: "host",
  [CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST_NUMA]: "host-numa",
  [CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT]: "host-numa-current",
};

/** The stream option of the managed operations. */
export interface ManagedStreamOptions {
  /** The stream the operation is ordered on. */
  readonly stream: Stream;
}

function managedBuffer(b: unknown, what: string): Buffer {
  const buffer = b instanceof ManagedBuffer ? b.buffer : b;
  if (!(buffer instanceof Buffer)) throw new TypeError(`${what} takes a ManagedBuffer or a managed Buffer, not ${describeValue(b)}`);
  if (buffer.isClosed) throw new ClosedError("this Buffer", what);
  if (!buffer.isManaged) {
    throw new TypeError(`${what} needs managed memory; this Buffer comes from ${buffer.memoryResource?.constructor.name ?? "foreign memory"}: allocate it from a ManagedMemoryResource`);
  }
  return buffer;
}

function adviceError(e: unknown, advice: string): unknown {
  if (e instanceof CudaError && e.codeName === "CUDA_ERROR_NOT_SUPPORTED") {
    return new ManagedAdviceError(
      `${advice}: the driver does not support this advice on this memory (CUDA_ERROR_NOT_SUPPORTED); memory from a managed pool takes no advice on some drivers: ` +
        "allocate from new ManagedMemoryResource({ pool: false }) (cuMemAllocManaged)",
      e,
    );
  }
  return e;
}

/**
 * A managed buffer with its advice as properties. Made by `ManagedMemoryResource.allocateManaged(size, options)`
 * or `ManagedBuffer.from(buffer)` over any managed Buffer; `close()` frees the buffer.
 */
export class ManagedBuffer {
  /** The memory. */
  readonly buffer: Buffer;

  private constructor(buffer: Buffer) {
    this.buffer = buffer;
  }

  /** Wraps a managed Buffer (TypeError for other memory). */
  static from(buffer: Buffer): ManagedBuffer {
    return new ManagedBuffer(managedBuffer(buffer, "ManagedBuffer.from"));
  }

  /** The address. */
  get handle(): CUdeviceptr {
    return this.buffer.handle;
  }

  /** Size in bytes. */
  get size(): number {
    return this.buffer.size;
  }

  /** Whether the buffer was closed. */
  get isClosed(): boolean {
    return this.buffer.isClosed;
  }

  #context(): Context | undefined {
    try {
      return this.buffer.device.context;
    } catch {
      return undefined;
    }
  }

  #run<T>(fn: () => T): T {
    const ctx = this.#context();
    return ctx === undefined ? fn() : withCurrentContext(ctx.handle, fn);
  }

  #attribute(attribute: number, out: Int32Array): Int32Array {
    const b = managedBuffer(this.buffer, "read a managed range attribute");
    if (b.size === 0) return out;
    this.#run(() => driver.cuMemRangeGetAttribute(out, out.byteLength, attribute as never, b.handle, b.size));
    return out;
  }

  #advise(advice: ManagedAdvice, location?: MemoryLocation): void {
    const b = managedBuffer(this.buffer, `advise ${advice}`);
    const a = resolveAdvice(advice, location);
    if (b.size === 0) return;
    try {
      this.#run(() => driver.cuMemAdvise(b.handle, b.size, a.advice, a.location));
    } catch (e) {
      throw adviceError(e, `ManagedBuffer ${advice}`);
    }
  }

  /** Whether the range is read-mostly (read copies on every processor that reads it). */
  get readMostly(): boolean {
    return this.#attribute(CUmem_range_attribute.CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, new Int32Array(1))[0] !== 0;
  }
  set readMostly(value: boolean) {
    if (typeof value !== "boolean") throw new TypeError(`readMostly is a boolean, not ${describeValue(value)}`);
    this.#advise(value ? "read-mostly" : "unset-read-mostly");
  }

  /** Where the pages prefer to live (`{ type: "none", id: -1 }` when no preference is set). */
  get preferredLocation(): ReadLocation {
    const t = this.#attribute(CUmem_range_attribute.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, new Int32Array(1))[0]!;
    const id = this.#attribute(CUmem_range_attribute.CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, new Int32Array(1))[0]!;
    const type = TYPE_NAMES[t] ?? "none";
    return { type, id: type === "device" || type === "host-numa" ? id : -1 };
  }
  set preferredLocation(location: MemoryLocation | undefined) {
    if (location === undefined) this.#advise("unset-preferred-location");
    else this.#advise("preferred-location", location);
  }

  /** The device ordinals (and -1 for the host) that keep a mapping of the range (CU_MEM_ADVISE_SET_ACCESSED_BY). */
  get accessedBy(): number[] {
    const n = Math.max(1, driver.cuDeviceGetCount()) + 1;
    const out = this.#attribute(CUmem_range_attribute.CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, new Int32Array(n).fill(-2));
    return [...out].filter((d) => d !== -2);
  }

  /** Keeps a mapping of the range for `location` (a Device, an ordinal, "host"). */
  addAccessedBy(location: MemoryLocation): void {
    this.#advise("accessed-by", location);
  }

  /** Drops the mapping `addAccessedBy` asked for. */
  removeAccessedBy(location: MemoryLocation): void {
    this.#advise("unset-accessed-by", location);
  }

  /** Where the range was last prefetched to (`{ type: "none", id: -1 }` when never, or not all of it). */
  get lastPrefetchLocation(): ReadLocation {
    const t = this.#attribute(CUmem_range_attribute.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, new Int32Array(1))[0]!;
    const id = this.#attribute(CUmem_range_attribute.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, new Int32Array(1))[0]!;
    const type = TYPE_NAMES[t] ?? "none";
    return { type, id: type === "device" || type === "host-numa" ? id : -1 };
  }

  /** Migrates the pages to `location` ahead of use, ordered on `options.stream` (`cuMemPrefetchAsync`). */
  prefetch(location: MemoryLocation, options: ManagedStreamOptions): void {
    const stream = takeStreamOption(options, "ManagedBuffer.prefetch");
    const b = managedBuffer(this.buffer, "prefetch");
    const loc = locationRecord(location, "prefetch");
    if (b.size === 0) return;
    withCurrentContext(stream.context.handle, () => driver.cuMemPrefetchAsync(b.handle, b.size, loc, 0, stream.handle));
  }

  /** Discards the contents (the pages need not be kept or migrated; reads after return unspecified values). CUDA 13+. */
  discard(options: ManagedStreamOptions): void {
    discardBatch([this], options);
  }

  /** Discards the contents and prefetches the (now contentless) pages to `location`. CUDA 13+. */
  discardPrefetch(location: MemoryLocation, options: ManagedStreamOptions): void {
    discardPrefetchBatch([this], location, options);
  }

  /** Frees the buffer (on `stream`, default its deallocation stream). */
  close(stream?: Stream): void {
    this.buffer.close(stream);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  toString(): string {
    return `ManagedBuffer(${this.buffer.size} bytes)`;
  }
}

/** What the batch calls take: ManagedBuffers or managed Buffers. */
export type ManagedBufferLike = ManagedBuffer | Buffer;

const BATCH_VERSION = 13000;

function needBatch(what: string): void {
  const v = driver.driverVersion();
  if (v < BATCH_VERSION) throw new DeviceFeatureError(`${what} needs a CUDA 13.0 driver (cuMem*BatchAsync); this driver supports CUDA ${formatCudaVersion(v)}`);
}

interface Batch {
  readonly count: number;
  /** The indices of the buffers in the batch (zero-size buffers are left out). */
  readonly kept: readonly number[];
  readonly dptrs: BigUint64Array;
  readonly sizes: BigUint64Array;
}

function batchOf(buffers: unknown, what: string): Batch {
  if (!Array.isArray(buffers)) throw new TypeError(`${what} takes an array of ManagedBuffers (or managed Buffers), not ${describeValue(buffers)}`);
  const all = buffers.map((b, i) => managedBuffer(b, `${what} (item ${i})`));
  const kept = all.flatMap((b, i) => (b.size > 0 ? [i] : []));
  const list = kept.map((i) => all[i]!);
  return { count: list.length, kept, dptrs: BigUint64Array.from(list, (b) => BigInt(b.handle)), sizes: BigUint64Array.from(list, (b) => BigInt(b.size)) };
}

/** One location for every buffer, or one per buffer: the records and their start indices. */
function locationsOf(location: MemoryLocation | readonly MemoryLocation[], count: number, kept: readonly number[], what: string): { locs: Uint8Array; idxs: BigUint64Array; n: number } {
  const given = Array.isArray(location) ? (location as readonly MemoryLocation[]) : [location as MemoryLocation];
  if (Array.isArray(location) && given.length !== count) throw new RangeError(`${what}: ${given.length} locations for ${count} buffers: give one location, or one per buffer`);
  const list = Array.isArray(location) ? kept.map((i) => given[i]!) : given;
  const locs = new Uint8Array(8 * list.length);
  list.forEach((l, i) => locs.set(locationRecord(resolveLocation(l, what), what).$bytes(), 8 * i));
  return { locs, idxs: BigUint64Array.from(list, (_, i) => BigInt(i)), n: list.length };
}

/**
 * Prefetches many managed buffers in one call (`cuMemPrefetchBatchAsync`): to one location, or one location per
 * buffer. On a driver older than CUDA 13 it prefetches them one by one.
 */
export function prefetchBatch(buffers: readonly ManagedBufferLike[], location: MemoryLocation | readonly MemoryLocation[], options: ManagedStreamOptions): void {
  const stream = takeStreamOption(options, "prefetchBatch");
  const b = batchOf(buffers, "prefetchBatch");
  const l = locationsOf(location, buffers.length, b.kept, "prefetchBatch");
  if (b.count === 0) return;
  withCurrentContext(stream.context.handle, () => {
    if (driver.driverVersion() < BATCH_VERSION) {
      const list = Array.isArray(location) ? location : buffers.map(() => location as MemoryLocation);
      buffers.forEach((buf, i) => {
        const m = managedBuffer(buf, "prefetchBatch");
        if (m.size > 0) driver.cuMemPrefetchAsync(m.handle, m.size, locationRecord(list[i]!, "prefetchBatch"), 0, stream.handle);
      });
      return;
    }
    driver.cuMemPrefetchBatchAsync(b.dptrs, b.sizes, b.count, l.locs, l.idxs, l.n, 0, stream.handle);
  });
}

/** Discards the contents of many managed buffers in one call (`cuMemDiscardBatchAsync`, CUDA 13+). */
export function discardBatch(buffers: readonly ManagedBufferLike[], options: ManagedStreamOptions): void {
  const stream = takeStreamOption(options, "discardBatch");
  const b = batchOf(buffers, "discardBatch");
  needBatch("discardBatch");
  if (b.count === 0) return;
  withCurrentContext(stream.context.handle, () => driver.cuMemDiscardBatchAsync(b.dptrs, b.sizes, b.count, 0, stream.handle));
}

/** Discards many managed buffers' contents and prefetches their pages (`cuMemDiscardAndPrefetchBatchAsync`, CUDA 13+). */
export function discardPrefetchBatch(buffers: readonly ManagedBufferLike[], location: MemoryLocation | readonly MemoryLocation[], options: ManagedStreamOptions): void {
  const stream = takeStreamOption(options, "discardPrefetchBatch");
  const b = batchOf(buffers, "discardPrefetchBatch");
  const l = locationsOf(location, buffers.length, b.kept, "discardPrefetchBatch");
  needBatch("discardPrefetchBatch");
  if (b.count === 0) return;
  withCurrentContext(stream.context.handle, () => driver.cuMemDiscardAndPrefetchBatchAsync(b.dptrs, b.sizes, b.count, l.locs, l.idxs, l.n, 0, stream.handle));
}
