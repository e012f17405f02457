/**
 * What a collective's operands are to NCCL: a dtype's `ncclDataType_t` (and how many NCCL elements one element
 * is), which reductions a dtype allows, and a DeviceArray or a Buffer with a dtype as an address, a count and a
 * device, all checked before NCCL sees them.
 *
 * @module
 */
import { ncclDataType_t, ncclRedOp_t } from "../../bindings/tables/nccl-values.ts";
import type { Device } from "../device.ts";
import { DeviceArray } from "../array/device-array.ts";
import { type DType, type DTypeName, dtypeOf } from "../array/dtype.ts";
import { Buffer } from "../memory/buffer.ts";
import { describeValue } from "../../errors/describe.ts";
import { CollectiveArgumentError } from "./errors.ts";

/** The reductions of NCCL: sum, product, minimum, maximum, and average (the sum divided by the number of ranks). */
export type ReduceOp = "sum" | "prod" | "min" | "max" | "avg";

/** NCCL's code of each reduction. */
export const REDUCE_OPS: Readonly<Record<ReduceOp, ncclRedOp_t>> = Object.freeze({
  sum: ncclRedOp_t.ncclSum,
  prod: ncclRedOp_t.ncclProd,
  min: ncclRedOp_t.ncclMin,
  max: ncclRedOp_t.ncclMax,
  avg: ncclRedOp_t.ncclAvg,
});

/** How a dtype travels through NCCL. */
export interface NcclTypeOf {
  /** The ncclDataType_t. */
  readonly type: ncclDataType_t;
  /** NCCL elements per element of the dtype (2 for complex: a pair of floats). */
  readonly per: number;
  /** The reductions NCCL computes right for the dtype (none: the dtype only moves: broadcast, gather, send). */
  readonly reductions: readonly ReduceOp[];
}

const ALL: readonly ReduceOp[] = ["sum", "prod", "min", "max", "avg"];

/**
 * Each dtype's NCCL type. bool moves as uint8; int16 and uint16 move as 16-bit floats' bits (NCCL has no 16-bit
 * integer), so they cannot be reduced; complex numbers move and add as pairs of floats (sum and avg are right
 * element by element; prod, min and max are not).
 */
export const NCCL_TYPES: Readonly<Record<DTypeName, NcclTypeOf>> = Object.freeze({
  bool: { type: ncclDataType_t.ncclUint8, per: 1, reductions: [] },
  int8: { type: ncclDataType_t.ncclInt8, per: 1, reductions: ALL },
  uint8: { type: ncclDataType_t.ncclUint8, per: 1, reductions: ALL },
  int16: { type: ncclDataType_t.ncclFloat16, per: 1, reductions: [] },
  uint16: { type: ncclDataType_t.ncclFloat16, per: 1, reductions: [] },
  int32: { type: ncclDataType_t.ncclInt32, per: 1, reductions: ALL },
  uint32: { type: ncclDataType_t.ncclUint32, per: 1, reductions: ALL },
  int64: { type: ncclDataType_t.ncclInt64, per: 1, reductions: ALL },
  uint64: { type: ncclDataType_t.ncclUint64, per: 1, reductions: ALL },
  float16: { type: ncclDataType_t.ncclFloat16, per: 1, reductions: ALL },
  bfloat16: { type: ncclDataType_t.ncclBfloat16, per: 1, reductions: ALL },
  float32: { type: ncclDataType_t.ncclFloat32, per: 1, reductions: ALL },
  float64: { type: ncclDataType_t.ncclFloat64, per: 1, reductions: ALL },
  complex64: { type: ncclDataType_t.ncclFloat32, per: 2, reductions: ["sum", "avg"] },
  complex128: { type: ncclDataType_t.ncclFloat64, per: 2, reductions: ["sum", "avg"] },
});

/** A Buffer read as elements of a dtype: `count` elements from `byteOffset` (default: as many as fit). */
export interface TypedBuffer {
  readonly buffer: Buffer;
  readonly dtype: DTypeName | DType;
  /** Elements; default: all that fit after `byteOffset` (the rest must be a whole number of elements). */
  readonly count?: number;
  /** Where the elements start, in bytes; default 0. */
  readonly byteOffset?: number;
}

/** What a collective reads or writes: a contiguous DeviceArray, or a Buffer with a dtype. */
export type CollectiveOperand = DeviceArray | TypedBuffer;

/** An operand as NCCL takes it. */
export interface ResolvedOperand {
  readonly address: bigint;
  /** Elements of the dtype. */
  readonly count: number;
  readonly dtype: DType;
  readonly device: Device;
}

/** Checks an operand and says where it is and what it holds. */
export function resolveOperand(operation: string, argument: string, x: unknown): ResolvedOperand {
  if (x instanceof DeviceArray) {
    if (x.isClosed) {
      throw new CollectiveArgumentError(operation, argument, "an open DeviceArray", "closed", "Pass an array that is not closed.");
    }
    if (!x.isContiguous) {
      throw new CollectiveArgumentError(operation, argument, "a contiguous DeviceArray", `a strided view (shape [${x.shape.join(", ")}], strides [${x.strides.join(", ")}])`, "Pass a contiguous copy (array.copy({ stream })).");
    }
    return { address: x.address, count: x.size, dtype: x.dtype, device: x.device };
  }
  if (typeof x === "object" && x !== null && (x as TypedBuffer).buffer instanceof Buffer) {
    const t = x as TypedBuffer;
    let dtype: DType;
    try {
      dtype = dtypeOf(t.dtype);
    } catch {
      throw new CollectiveArgumentError(operation, `${argument}.dtype`, "a dtype name (float32, int64, ...)", describeValue(t.dtype), "Give the Buffer's element type.");
    }
    if (t.buffer.isClosed) throw new CollectiveArgumentError(operation, `${argument}.buffer`, "an open Buffer", "closed", "Pass a buffer that is not closed.");
    const offset = t.byteOffset ?? 0;
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > t.buffer.size || offset % dtype.itemsize !== 0) {
      throw new CollectiveArgumentError(operation, `${argument}.byteOffset`, `a multiple of ${dtype.itemsize} from 0 to ${t.buffer.size}`, describeValue(t.byteOffset), "Pass an offset inside the buffer, aligned to the dtype.");
    }
    const room = t.buffer.size - offset;
    let count: number;
    if (t.count === undefined) {
      if (room % dtype.itemsize !== 0) {
        throw new CollectiveArgumentError(operation, `${argument}.count`, `given: ${room} bytes are not a whole number of ${dtype.name} elements`, "absent", "Pass count.");
      }
      count = room / dtype.itemsize;
    } else {
      count = t.count;
      if (!Number.isSafeInteger(count) || count < 0 || count * dtype.itemsize > room) {
        throw new CollectiveArgumentError(operation, `${argument}.count`, `an integer from 0 to ${Math.floor(room / dtype.itemsize)} (what the buffer holds)`, describeValue(t.count), "Pass a count that fits the buffer.");
      }
    }
    return { address: t.buffer.handle + BigInt(offset), count, dtype, device: t.buffer.device };
  }
  throw new CollectiveArgumentError(operation, argument, "a DeviceArray or { buffer, dtype }", describeValue(x), "Pass a DeviceArray, or a Buffer with its dtype.");
}

/** The NCCL type of a dtype for `op` (undefined: data movement), or the error saying which reductions it allows. */
export function ncclTypeFor(operation: string, dtype: DType, op: ReduceOp | undefined): NcclTypeOf {
  const t = NCCL_TYPES[dtype.name];
  if (op === undefined) return t;
  if (!(op in REDUCE_OPS)) {
    throw new CollectiveArgumentError(operation, "op", `one of ${Object.keys(REDUCE_OPS).join(", ")}`, describeValue(op), "Pass a reduction NCCL has.");
  }
  if (!t.reductions.includes(op)) {
    throw new CollectiveArgumentError(
      operation,
      "op",
      t.reductions.length === 0 ? `a reduction NCCL computes for ${dtype.name}, and it computes none` : `one NCCL computes right for ${dtype.name} (${t.reductions.join(", ")})`,
      JSON.stringify(op),
      t.reductions.length === 0 ? `${dtype.name} can only be moved (broadcast, allGather, send/recv); reduce a wider type.` : "Use one of those, or reduce the real and imaginary parts yourself.",
    );
  }
  return t;
}
