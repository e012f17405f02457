/**
 * Green contexts: partitions of a device's streaming multiprocessors (SMs). `smResourceOf(device)` is the device's
 * whole SM resource (`cuDeviceGetDevResource`); `resource.split({ count, groups })` cuts groups of `count` SMs each
 * from it (`cuDevSmResourceSplitByCount`: the driver rounds `count` up to its partition granularity) and leaves the
 * rest; `GreenContext.create(device, groups)` makes a context over those SMs (`cuDevResourceGenerateDesc`,
 * `cuGreenCtxCreate`), whose streams (`cuGreenCtxStreamCreate`, always non-blocking) run kernels only there.
 * `streamResources(stream)` says which SMs a stream's work may use. Asking for more SMs than the resource has is a
 * GreenContextError before the driver sees it.
 *
 * @module
 */
import { CUdevResource_st, CUdevResourceType, CUdevSmResourceSplit_flags, CUgreenCtxCreate_flags, CUstream_flags, type CUdevice, type CUgreenCtx } from "../../bindings/driver.ts";
import { Context } from "../context.ts";
import type { Device } from "../device.ts";
import { driver, ensureInit } from "../base/driver-state.ts";
import { describeValue } from "../../errors/describe.ts";
import { track, untrack } from "../base/lifetime.ts";
import { ClosedError } from "../base/errors.ts";
import { GreenContextError } from "./errors.ts";
import { Stream } from "../stream.ts";
import { INTERNAL, checkInternal, type Internal } from "../base/internal.ts";
import { takeStream } from "../base/stream-arg.ts";

const SM = CUdevResourceType.CU_DEV_RESOURCE_TYPE_SM;
const CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING = CUdevSmResourceSplit_flags.CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING;
const CU_GREEN_CTX_DEFAULT_STREAM = CUgreenCtxCreate_flags.CU_GREEN_CTX_DEFAULT_STREAM;
const CU_STREAM_NON_BLOCKING = CUstream_flags.CU_STREAM_NON_BLOCKING;

/** Options of {@link SMResource.split}. */
export interface SMSplitOptions {
  /** SMs per group (the driver rounds it up to the partition granularity: `minPartitionSize`, `coscheduledAlignment`). */
  readonly count: number;
  /** How many groups (default: as many as fit). */
  readonly groups?: number;
  /** Treat SMs independently of their hierarchy: smaller minimum and alignment (CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING). */
  readonly ignoreCoscheduling?: boolean;
}

/** The driver's record of an SM resource (module state of SMResource, for GreenContext.create). */
let recordOf: (resource: SMResource) => CUdevResource_st;

/** A set of SMs of a device: the whole device, a group cut from it, or what a split left. */
export class SMResource {
  /** The driver's record. */
  readonly #record: CUdevResource_st;

  static {
    recordOf = (r) => r.#record;
  }

  /** Reserved to cuda-ts (the token is not exported): use `smResourceOf(device)` or a split. */
  constructor(token: Internal, record: CUdevResource_st) {
    checkInternal(token, "SMResource", "smResourceOf(device) or a split");
    this.#record = record;
  }

  /** SMs in the set. */
  get smCount(): number {
    return this.#record.sm.smCount;
  }
  /** The smallest group a split can make. */
  get minPartitionSize(): number {
    return this.#record.sm.minSmPartitionSize;
  }
  /** Groups are multiples of this many SMs. */
  get coscheduledAlignment(): number {
    return this.#record.sm.smCoscheduledAlignment;
  }

  /** The SMs a group of `count` takes after the driver's rounding (without `ignoreCoscheduling`). */
  roundedCount(count: number): number {
    const align = Math.max(1, this.coscheduledAlignment);
    return Math.max(this.minPartitionSize, Math.ceil(count / align) * align);
  }

  /**
   * Cuts `groups` groups of `count` SMs (rounded up by the driver) from this set: `{ groups, remaining }`.
   * GreenContextError when they do not fit.
   */
  split(options: SMSplitOptions): { groups: SMResource[]; remaining: SMResource } {
    if (options === null || typeof options !== "object") throw new GreenContextError(`split takes { count, groups? }, not ${describeValue(options)}`);
    const { count, groups } = options;
    const ignore = options.ignoreCoscheduling ?? false;
    if (typeof count !== "number" || !Number.isInteger(count) || count < 1) throw new GreenContextError(`split: count must be an integer ≥ 1 (SMs per group), not ${describeValue(count)}`);
    if (count > this.smCount) throw new GreenContextError(`split: a group of ${count} SMs is more than this resource has (${this.smCount} SMs)`);
    if (groups !== undefined && (typeof groups !== "number" || !Number.isInteger(groups) || groups < 1)) throw new GreenContextError(`split: groups must be an integer ≥ 1, not ${describeValue(groups)}`);
    const rounded = ignore ? count : this.roundedCount(count);
    const fit = Math.floor(this.smCount / rounded);
    if (fit < 1) throw new GreenContextError(`split: a group of ${count} SMs takes ${rounded} after rounding to the partition granularity (minimum ${this.minPartitionSize}, multiples of ${this.coscheduledAlignment}), more than this resource has (${this.smCount} SMs)`);
    if (groups !== undefined && groups > fit) {
      throw new GreenContextError(`split: ${groups} groups of ${count} SMs (${rounded} each after rounding) need ${groups * rounded} SMs; this resource has ${this.smCount} (at most ${fit} such groups)`);
    }
    const [result, remaining] = driver.cuDevSmResourceSplitByCount(this.#record, ignore ? CU_DEV_SM_RESOURCE_SPLIT_IGNORE_SM_COSCHEDULING : 0, count, groups ?? fit);
    return { groups: result.map((r) => new SMResource(INTERNAL, r)), remaining: new SMResource(INTERNAL, remaining) };
  }

  toString(): string {
    return `SMResource(${this.smCount} SMs)`;
  }
}

/** The device's whole SM resource (`cuDeviceGetDevResource`). */
export function smResourceOf(device: Device): SMResource {
  ensureInit();
  return new SMResource(INTERNAL, driver.cuDeviceGetDevResource(device.id as CUdevice, SM));
}

/** Options of a green context's stream. */
export interface GreenStreamOptions {
  /** Priority within the context's range (default 0, the least). */
  readonly priority?: number;
}

const greenContexts = new WeakMap<Context, GreenContext>();

/**
 * A green context: a context whose work runs only on the SMs it was made with. `context` is a Context (made current
 * and used like any other); streams come from `createStream()`. `close()` closes its streams, then destroys it.
 */
export class GreenContext {
  /** The device. */
  readonly device: Device;
  /** The context over the green context (`cuCtxFromGreenCtx`). */
  readonly context: Context;
  #handle: CUgreenCtx;
  #closed = false;
  readonly #streams = new Set<Stream>();

  private constructor(handle: CUgreenCtx, device: Device, context: Context) {
    this.#handle = handle;
    this.device = device;
    this.context = context;
    greenContexts.set(context, this);
    const h = handle;
    track(this, "GreenContext", () => driver.cuGreenCtxDestroy(h));
  }

  /**
   * Makes a green context over `resources` (one SM resource, or several groups of a split) on `device`. An empty
   * list, or resources of more SMs than the device has, is a GreenContextError.
   */
  static create(device: Device, resources: SMResource | readonly SMResource[]): GreenContext {
    const list = resources instanceof SMResource ? [resources] : resources;
    if (!Array.isArray(list) || list.length === 0 || !list.every((r) => r instanceof SMResource)) {
      throw new GreenContextError(`GreenContext.create takes an SMResource or a non-empty array of them, not ${describeValue(resources)}`);
    }
    const total = list.reduce((n, r) => n + r.smCount, 0);
    const whole = smResourceOf(device).smCount;
    if (total > whole) throw new GreenContextError(`GreenContext.create: the resources hold ${total} SMs but device ${device.id} has ${whole}`);
    const size = CUdevResource_st.$size;
    const bytes = new Uint8Array(size * list.length);
    list.forEach((r, i) => bytes.set(recordOf(r).$bytes(), i * size));
    const desc = driver.cuDevResourceGenerateDesc(bytes, list.length);
    const handle = driver.cuGreenCtxCreate(desc, device.id as CUdevice, CU_GREEN_CTX_DEFAULT_STREAM);
    let context: Context;
    try {
      context = new Context(INTERNAL, driver.cuCtxFromGreenCtx(handle), device, false, false);
    } catch (e) {
      driver.cuGreenCtxDestroy(handle);
      throw e;
    }
    return new GreenContext(handle, device, context);
  }

  /** The CUgreenCtx handle (ClosedError after close()). */
  get handle(): CUgreenCtx {
    if (this.#closed) throw new ClosedError("this GreenContext", "use its handle");
    return this.#handle;
  }

  /** Whether close() was called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** The SMs this context may use (`cuGreenCtxGetDevResource`). */
  get resources(): SMResource {
    return new SMResource(INTERNAL, driver.cuGreenCtxGetDevResource(this.handle, SM));
  }

  /** A stream of this green context (`cuGreenCtxStreamCreate`; always non-blocking). */
  createStream(options: GreenStreamOptions = {}): Stream {
    const priority = options.priority ?? 0;
    if (!Number.isInteger(priority)) throw new TypeError(`GreenContext.createStream: priority must be an integer, not ${describeValue(priority)}`);
    const s = new Stream(INTERNAL, driver.cuGreenCtxStreamCreate(this.handle, CU_STREAM_NON_BLOCKING, priority), this.context, true);
    this.#streams.add(s);
    return s;
  }

  /** Closes the streams made here, then destroys the green context. Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    for (const s of this.#streams) s.close();
    this.#streams.clear();
    this.#closed = true;
    this.context.close();
    untrack(this);
    driver.cuGreenCtxDestroy(this.#handle);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  toString(): string {
    return `GreenContext(device ${this.device.id})`;
  }
}

/**
 * The SMs a stream's work may use: a green context's partition (`cuStreamGetGreenCtx`, `cuGreenCtxGetDevResource`),
 * or its context's whole SM resource (`cuCtxGetDevResource`).
 */
export function streamResources(stream: Stream): SMResource {
  takeStream(stream, "streamResources");
  const green = greenContexts.get(stream.context);
  if (green !== undefined && !green.isClosed) return new SMResource(INTERNAL, driver.cuGreenCtxGetDevResource(green.handle, SM));
  return new SMResource(INTERNAL, driver.cuCtxGetDevResource(stream.context.handle, SM));
}
