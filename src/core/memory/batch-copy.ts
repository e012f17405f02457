/**
 * Batched copies: many copies in one driver call (`cuMemcpyBatchAsync`, CUDA 13 drivers), ordered on one stream.
 * Each copy names a destination, a source (Buffers, or contiguous DeviceArrays) and optionally a byte count
 * (default: the whole source). The attributes apply to every copy of the batch: when the source may be read
 * (`srcAccessOrder`: "stream", the default, after the stream's earlier work; "during-api-call"; "any") and whether
 * to prefer overlapping with compute. Everything is checked before the driver sees it.
 *
 * @module
 */
import { CUmemcpyAttributes_st, CUmemcpyFlags, CUmemcpySrcAccessOrder } from "../../bindings/driver.ts";
import { formatCudaVersion } from "../../bindings/describe.ts";
import { Buffer } from "./buffer.ts";
import { driver, withCurrentContext } from "../base/driver-state.ts";
import { describeValue } from "../../errors/describe.ts";
import { ClosedError } from "../base/errors.ts";
import { DeviceFeatureError } from "./errors.ts";
import { LEGACY_DEFAULT_STREAM, type Stream } from "../stream.ts";
import { takeStreamOption } from "../base/stream-arg.ts";

/** A contiguous typed array on the device (a DeviceArray), as a copy's end. */
export interface ContiguousMemory {
  readonly address: bigint;
  readonly nbytes: number;
  readonly isContiguous: boolean;
  readonly isClosed: boolean;
}

/** One end of a batched copy: a Buffer, or a contiguous DeviceArray. */
export type BatchCopyEnd = Buffer | ContiguousMemory;

/** One copy of a batch. */
export interface BatchCopy {
  readonly dst: BatchCopyEnd;
  readonly src: BatchCopyEnd;
  /** Bytes to copy (default: the source's size); at most either end's size. */
  readonly size?: number;
}

/** When a batch's sources may be read. */
export type SrcAccessOrder = "stream" | "during-api-call" | "any";

/** Options of a batched copy. */
export interface BatchCopyOptions {
  /** The stream the copies are ordered on (not the legacy default stream, which the driver refuses for batches). */
  readonly stream: Stream;
  /** When the sources may be read (default "stream": after the stream's earlier work, as an ordinary copy). */
  readonly srcAccessOrder?: SrcAccessOrder;
  /** Prefer copies that overlap with compute (CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE). Default false. */
  readonly preferOverlapWithCompute?: boolean;
}

const ORDERS: Readonly<Record<SrcAccessOrder, number>> = {
  stream: CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM,
  "during-api-call": CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL,
  any: CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY,
};
const CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE = CUmemcpyFlags.CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE;

function end(v: unknown, what: string): { address: bigint; size: number } {
  if (v instanceof Buffer) {
    if (v.isClosed) throw new ClosedError("this Buffer", `be ${what}`);
    return { address: BigInt(v.handle), size: v.size };
  }
  const m = v as Partial<ContiguousMemory> | null;
  if (m !== null && typeof m === "object" && typeof m.address !== "undefined" && typeof m.nbytes === "number" && typeof m.isContiguous === "boolean") {
    if (m.isClosed === true) throw new ClosedError("this DeviceArray", `be ${what}`);
    if (!m.isContiguous) throw new TypeError(`a batched copy's ${what} must be contiguous; copy() the DeviceArray first`);
    return { address: m.address as bigint, size: m.nbytes };
  }
  throw new TypeError(`a batched copy's ${what} is a Buffer or a contiguous DeviceArray, not ${describeValue(v)}`);
}

/** @internal Checks a batch and lays it out as the driver's arrays (for tests as well). */
export function planBatch(copies: readonly BatchCopy[], options: Omit<BatchCopyOptions, "stream">): { dsts: BigUint64Array; srcs: BigUint64Array; sizes: BigUint64Array; attrs: CUmemcpyAttributes_st; count: number } {
  if (!Array.isArray(copies) || copies.length === 0) throw new RangeError(`copyBatch takes a non-empty array of { dst, src, size? }, not ${describeValue(copies)}`);
  const order = options.srcAccessOrder ?? "stream";
  if (!Object.hasOwn(ORDERS, order)) throw new RangeError(`copyBatch: srcAccessOrder is one of ${Object.keys(ORDERS).map((k) => JSON.stringify(k)).join(", ")}, not ${describeValue(order)}`);
  const overlap = options.preferOverlapWithCompute ?? false;
  if (typeof overlap !== "boolean") throw new TypeError(`copyBatch: preferOverlapWithCompute is a boolean, not ${describeValue(overlap)}`);
  const n = copies.length;
  const dsts = new BigUint64Array(n);
  const srcs = new BigUint64Array(n);
  const sizes = new BigUint64Array(n);
  copies.forEach((c, i) => {
    if (c === null || typeof c !== "object") throw new TypeError(`copyBatch: copy ${i} is { dst, src, size? }, not ${describeValue(c)}`);
    const d = end(c.dst, `destination (copy ${i})`);
    const s = end(c.src, `source (copy ${i})`);
    const size = c.size ?? s.size;
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`copyBatch: copy ${i}'s size must be a non-negative integer, not ${describeValue(size)}`);
    if (size > s.size || size > d.size) throw new RangeError(`copyBatch: copy ${i} moves ${size} bytes but its source has ${s.size} and its destination ${d.size}`);
    dsts[i] = d.address;
    srcs[i] = s.address;
    sizes[i] = BigInt(size);
  });
  const attrs = new CUmemcpyAttributes_st();
  attrs.srcAccessOrder = ORDERS[order] as never;
  attrs.flags = overlap ? CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE : 0;
  return { dsts, srcs, sizes, attrs, count: n };
}

/**
 * Queues every copy of `copies` on `options.stream` in one `cuMemcpyBatchAsync` call. Needs a CUDA 13.0 driver
 * (DeviceFeatureError otherwise) and a stream other than the legacy default stream.
 */
export function copyBatch(copies: readonly BatchCopy[], options: BatchCopyOptions): void {
  const stream = takeStreamOption(options, "copyBatch");
  if (stream === LEGACY_DEFAULT_STREAM) throw new TypeError("copyBatch cannot run on the legacy default stream (the driver refuses batches there): pass a stream from device.createStream()");
  const p = planBatch(copies, options);
  const v = driver.driverVersion();
  if (v < 13000) throw new DeviceFeatureError(`copyBatch needs a CUDA 13.0 driver (cuMemcpyBatchAsync); this driver supports CUDA ${formatCudaVersion(v)}`);
  withCurrentContext(stream.context.handle, () => driver.cuMemcpyBatchAsync(p.dsts, p.srcs, p.sizes, p.count, p.attrs, BigUint64Array.of(0n), 1, stream.handle));
}
