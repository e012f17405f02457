/**
 * Managed (unified) memory: one address valid on the host and on every device, migrated on demand or ahead of
 * time with `prefetch`, steered with `advise`. {@link ManagedMemoryResource} uses a stream-ordered managed pool
 * where the driver has them (CUDA 13: `cuMemPoolCreate` with `CU_MEM_ALLOCATION_TYPE_MANAGED`), else
 * `cuMemAllocManaged`.
 *
 * Host access (`buffer.asTypedArray()`) must not overlap kernels that touch the memory; on systems without
 * concurrent managed access (`device.properties.concurrentManagedAccess === 0`) it must not overlap any kernel.
 *
 * @module
 */
import { CUmemAllocationType, CUmemAttach_flags, CUmemLocationType, type CUdeviceptr } from "../../bindings/driver.ts";
import { CudaError } from "../../bindings/errors.ts";
import { formatCudaVersion } from "../../bindings/describe.ts";
import { Buffer } from "./buffer.ts";
import { Context } from "../context.ts";
import { driver, withCurrentContext } from "../base/driver-state.ts";
import { ClosedError, NoContextError } from "../base/errors.ts";
import { ManagedAdviceError } from "./errors.ts";
import { locationRecord, resolveAdvice, type ManagedAdvice, type MemoryLocation } from "./location.ts";
import { resolveManagedOptions, type ManagedMemoryResourceOptions, type ResolvedManagedOptions } from "./options.ts";
import type { MemoryPoolAttributes } from "./pool-attributes.ts";
import { applyReleaseThreshold, createPool, MemoryPoolResource } from "./pool.ts";
import { allocationSize, type AllocateOptions, type MemoryResource } from "./resource.ts";
import type { Stream } from "../stream.ts";
import { takeStreamOption } from "../base/stream-arg.ts";
import { ManagedBuffer } from "./managed-buffer.ts";
import { INTERNAL } from "../base/internal.ts";

const CU_MEM_ATTACH_GLOBAL = CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL;

const PREFERRED_TYPES = {
  none: CUmemLocationType.CU_MEM_LOCATION_TYPE_NONE,
  device: CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE,
  host: CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST,
  "host-numa": CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST_NUMA,
} as const;

/** The managed pool behind a ManagedMemoryResource (allocations run in the stream's context). */
class ManagedPool extends MemoryPoolResource {
  owner: MemoryResource | undefined;
  protected override bufferResource(): MemoryResource {
    return this.owner ?? this;
  }
  get isDeviceAccessible(): boolean {
    return true;
  }
  get isHostAccessible(): boolean {
    return true;
  }
  get isManaged(): boolean {
    return true;
  }
  get deviceId(): number {
    return -1;
  }
  protected allocationContext(stream: Stream): Context {
    return stream.context;
  }
}

function tryManagedPool(o: ResolvedManagedOptions): { pool: ManagedPool | undefined; reason: string } {
  if (!o.pool) return { pool: undefined, reason: "pool: false was asked for" };
  const version = driver.cuDriverGetVersion();
  if (version < 13000) return { pool: undefined, reason: `the driver supports CUDA ${formatCudaVersion(version)}; managed pools need 13.0` };
  try {
    const handle = createPool({
      allocType: CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_MANAGED,
      locationType: PREFERRED_TYPES[o.preferred.type],
      locationId: o.preferred.id,
      ipcEnabled: false,
      maxSize: 0n,
    });
    const context = Context.current();
    return { pool: new ManagedPool(INTERNAL, { pool: handle, owned: true, ...(context === undefined ? {} : { context }) }), reason: "" };
  } catch (e) {
    if (e instanceof CudaError && (e.codeName === "CUDA_ERROR_NOT_SUPPORTED" || e.codeName === "CUDA_ERROR_INVALID_VALUE")) {
      return { pool: undefined, reason: `cuMemPoolCreate refused a managed pool (${e.codeName})` };
    }
    throw e;
  }
}

/**
 * Managed memory. A stream-ordered managed pool where the driver has them (and `pool` is not false), else
 * `cuMemAllocManaged` (then `allocate` records the stream but allocates at once, and `deallocate` waits for the
 * stream before `cuMemFree`). `usesPool` says which; `fallbackReason` why not a pool. Measured on an H200 with the
 * 13.0 driver (580): prefetch works on both, `cuMemAdvise` only on cuMemAllocManaged memory (pool memory gives
 * CUDA_ERROR_NOT_SUPPORTED, reported as {@link ManagedAdviceError}).
 */
export class ManagedMemoryResource implements MemoryResource {
  readonly isDeviceAccessible = true;
  readonly isHostAccessible = true;
  readonly isManaged = true;
  readonly #pool: ManagedPool | undefined;
  readonly #options: ResolvedManagedOptions;
  /** Why the resource does not use a pool ("" when it does). */
  readonly fallbackReason: string;
  #context: Context | undefined;
  #closed = false;

  constructor(options?: ManagedMemoryResourceOptions) {
    this.#options = resolveManagedOptions(options);
    const { pool, reason } = tryManagedPool(this.#options);
    this.#pool = pool;
    if (pool !== undefined) pool.owner = this;
    this.fallbackReason = reason;
    this.#context = Context.current();
    if (pool !== undefined) applyReleaseThreshold(pool.attributes, this.#options.releaseThreshold, false);
  }

  /** Whether allocations come from a managed pool (else from cuMemAllocManaged). */
  get usesPool(): boolean {
    return this.#pool !== undefined;
  }

  /** The preferred device ordinal, or -1 when the preferred location is not a device (or none). */
  get deviceId(): number {
    return this.#options.preferred.type === "device" ? this.#options.preferred.id : -1;
  }

  /** The preferred location given at creation: `{ type: "none" | "device" | "host" | "host-numa", id }`. */
  get preferredLocation(): ResolvedManagedOptions["preferred"] {
    return this.#options.preferred;
  }

  /** The pool's attributes (pools only). */
  get attributes(): MemoryPoolAttributes {
    if (this.#pool === undefined) throw new TypeError(`this ManagedMemoryResource has no pool (${this.fallbackReason}), so no pool attributes`);
    return this.#pool.attributes;
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Allocates `size` bytes of managed memory (ordered on `options.stream` with a pool; a stream is required then). */
  allocate(size: number | bigint, options: AllocateOptions = {}): Buffer {
    if (this.#closed) throw new ClosedError("this ManagedMemoryResource", "allocate");
    if (this.#pool !== undefined) return this.#pool.allocate(size, options);
    const n = allocationSize(size);
    const ctx = (this.#context ??= options.stream?.context ?? Context.current());
    if (ctx === undefined) throw new NoContextError("ManagedMemoryResource.allocate needs a current context: call device.setCurrent() or pass { stream }");
    const ptr = n === 0 ? (0n as CUdeviceptr) : withCurrentContext(ctx.handle, () => driver.cuMemAllocManaged(n, CU_MEM_ATTACH_GLOBAL));
    return new Buffer(INTERNAL, ptr, Number(n), this, options.stream);
  }

  /**
   * Allocates like `allocate` and returns a {@link ManagedBuffer}: the buffer with its advice as properties
   * (`readMostly`, `preferredLocation`, `accessedBy`), `prefetch`, `discard` and `discardPrefetch`.
   */
  allocateManaged(size: number | bigint, options: AllocateOptions = {}): ManagedBuffer {
    return ManagedBuffer.from(this.allocate(size, options));
  }

  /** Frees managed memory this resource allocated. */
  deallocate(ptr: CUdeviceptr, size: number, options: AllocateOptions = {}): void {
    if (ptr === 0n) return;
    if (this.#pool !== undefined) {
      this.#pool.deallocate(ptr, size, options);
      return;
    }
    if (options.stream !== undefined && !options.stream.isClosed) options.stream.sync();
    const ctx = this.#context;
    if (ctx !== undefined && !ctx.isClosed) withCurrentContext(ctx.handle, () => driver.cuMemFree(ptr));
    else driver.cuMemFree(ptr);
  }

  /**
   * Migrates a managed buffer's pages to `location` (a Device or ordinal, "host", ...) ahead of use, ordered on
   * `options.stream`.
   */
  prefetch(buffer: Buffer, location: MemoryLocation, options: { readonly stream: Stream }): void {
    const stream = takeStreamOption(options, "ManagedMemoryResource.prefetch");
    const handle = managedRange(buffer, "prefetch");
    if (buffer.size === 0) return;
    const loc = locationRecord(location, "prefetch");
    withCurrentContext(stream.context.handle, () => driver.cuMemPrefetchAsync(handle, buffer.size, loc, 0, stream.handle));
  }

  /**
   * Advises the driver about a managed buffer: "read-mostly" (read copies on each processor), "preferred-location"
   * (where pages live), "accessed-by" (keep a mapping for that processor), and their "unset-" forms.
   */
  advise(buffer: Buffer, advice: ManagedAdvice, location?: MemoryLocation): void {
    const handle = managedRange(buffer, "advise");
    const a = resolveAdvice(advice, location);
    if (buffer.size === 0) return;
    const run = (): void => driver.cuMemAdvise(handle, buffer.size, a.advice, a.location);
    const ctx = this.#context ?? Context.current();
    try {
      if (ctx !== undefined) withCurrentContext(ctx.handle, run);
      else run();
    } catch (e) {
      if (e instanceof CudaError && e.codeName === "CUDA_ERROR_NOT_SUPPORTED" && this.usesPool) {
        throw new ManagedAdviceError(
          `advise(${JSON.stringify(advice)}): this driver does not support cuMemAdvise on memory from a managed pool (CUDA_ERROR_NOT_SUPPORTED); ` +
            "create the resource with new ManagedMemoryResource({ pool: false }) (cuMemAllocManaged) to give advice",
          e,
        );
      }
      throw e;
    }
  }

  /** Destroys the pool (the driver frees it once its last allocation is freed). Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pool?.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  toString(): string {
    return `ManagedMemoryResource(${this.usesPool ? "pool" : "cuMemAllocManaged"})`;
  }
}

function managedRange(buffer: Buffer, what: string): CUdeviceptr {
  if (!(buffer instanceof Buffer)) throw new TypeError(`${what} takes a Buffer`);
  if (!buffer.isManaged) {
    throw new TypeError(`${what} needs managed memory; this Buffer comes from ${buffer.memoryResource?.constructor.name ?? "foreign memory"}: allocate it from a ManagedMemoryResource`);
  }
  return buffer.handle;
}
