/**
 * Handing arrays to other native code and taking theirs, without copying:
 *
 * - the CUDA Array Interface (v3): `array.cudaArrayInterface(stream)` describes an array;
 *   {@link fromCudaArrayInterface} wraps a description another library gave (its owner kept alive by the array);
 * - DLPack: {@link toDLPack} lays out a `DLManagedTensorVersioned` (DLPack 1.0, 80 bytes, with its `DLTensor` at
 *   byte 32) in memory a native library can read through FFI; {@link fromDLPack} wraps the tensor at a
 *   `DLManagedTensorVersioned*` or a `DLTensor*`.
 *
 * Layouts (64-bit, little-endian):
 *
 * ```c
 * typedef struct { int32_t device_type, device_id; } DLDevice;                       // 8 bytes
 * typedef struct { uint8_t code, bits; uint16_t lanes; } DLDataType;                // 4 bytes
 * typedef struct { void* data; DLDevice device; int32_t ndim; DLDataType dtype;     // 0, 8, 16, 20
 *                  int64_t* shape; int64_t* strides; uint64_t byte_offset; } DLTensor; // 24, 32, 40: 48 bytes
 * typedef struct { uint32_t major, minor; } DLPackVersion;                          // 8 bytes
 * typedef struct { DLPackVersion version; void* manager_ctx;                         // 0, 8
 *                  void (*deleter)(DLManagedTensorVersioned*); uint64_t flags;       // 16, 24
 *                  DLTensor dl_tensor; } DLManagedTensorVersioned;                   // 32: 80 bytes
 * ```
 *
 * What this module does not do: call a producer's `deleter` (a C function pointer) — the caller who received the
 * tensor calls it once the array is closed; and it hands out tensors with a NULL deleter, their memory kept alive by
 * the returned {@link DLPackTensor} object (keep it until the consumer is done).
 *
 * @module
 */
import { ffi } from "../../ffi/index.ts";
import type { NativePointer } from "../../ffi/types.ts";
import { describeValue } from "../../errors/describe.ts";
import { ArrayLayoutError, DTypeError } from "./errors.ts";
import { ClosedError } from "../base/errors.ts";
import { Buffer } from "../memory/buffer.ts";
import { Stream } from "../stream.ts";
import { DeviceArray, type CudaArrayInterface } from "./device-array.ts";
import { DLDataTypeCode, dtypes, DTYPE_NAMES, type DType } from "./dtype.ts";
import { elementExtent } from "./layout.ts";
import { takeStream, type StreamSpec } from "../base/stream-arg.ts";
import { checkInternal, type Internal, INTERNAL } from "../base/internal.ts";

const OPTIONAL_STREAM_OPTION: StreamSpec & { readonly optional: true } = Object.freeze({ name: "options.stream", optional: true });

/** DLPack's `DLDeviceType` values this module reads and writes. */
export const DLDeviceType = Object.freeze({ kDLCPU: 1, kDLCUDA: 2, kDLCUDAHost: 3, kDLCUDAManaged: 13 });

/** The DLPack version this module writes (1.0). */
export const DLPACK_VERSION = Object.freeze({ major: 1, minor: 0 });

/** `DLManagedTensorVersioned.flags` bits. */
export const DLPACK_FLAG_BITMASK_READ_ONLY = 1n;
export const DLPACK_FLAG_BITMASK_IS_COPIED = 2n;

/** Byte sizes and offsets of the DLPack structs. */
export const DLPACK_LAYOUT = Object.freeze({
  DLTensor: Object.freeze({ size: 48, data: 0, deviceType: 8, deviceId: 12, ndim: 16, dtypeCode: 20, dtypeBits: 21, dtypeLanes: 22, shape: 24, strides: 32, byteOffset: 40 }),
  DLManagedTensorVersioned: Object.freeze({ size: 80, versionMajor: 0, versionMinor: 4, managerCtx: 8, deleter: 16, flags: 24, dlTensor: 32 }),
});

/** The dtype of a DLPack DLDataType (lanes must be 1). */
export function dtypeFromDLPack(code: number, bits: number, lanes: number): DType {
  if (lanes !== 1) throw new DTypeError(`DLPack: vector types (lanes ${lanes}) are not array dtypes`);
  for (const name of DTYPE_NAMES) {
    const d = dtypes[name];
    if (d.dlpack.code === code && d.dlpack.bits === bits) return d;
  }
  // Older producers spell bool as kDLUInt with 8 bits (uint8) or kDLInt 8: those are uint8/int8 above.
  throw new DTypeError(`DLPack: no array dtype has type code ${code} with ${bits} bits`);
}

/** The dtype of a CUDA Array Interface typestr ("<f4", "|u1", "<c8", "|b1"). */
export function dtypeFromTypestr(typestr: string): DType {
  if (typeof typestr === "string") {
    const norm = typestr.replace(/^=/, "<");
    for (const name of DTYPE_NAMES) {
      const d = dtypes[name];
      if (d.typestr === norm || (d.itemsize === 1 && d.typestr.slice(1) === norm.slice(1))) return d;
    }
  }
  throw new DTypeError(`CUDA Array Interface: no array dtype has typestr ${describeValue(typestr)} (big-endian and structured types are not supported)`);
}

/** A DLPack tensor laid out for native code; its memory (and the array) stay alive as long as this object. */
export class DLPackTensor {
  /** The `DLManagedTensorVersioned` bytes (80). */
  readonly managed: Uint8Array;
  /** `int64_t shape[ndim]` and `int64_t strides[ndim]`. */
  readonly shapeAndStrides: BigInt64Array;
  /** The array described (kept alive). */
  readonly array: DeviceArray;

  /** Reserved to cuda-ts (the token is not exported): use `toDLPack(array)`. */
  constructor(token: Internal, managed: Uint8Array, shapeAndStrides: BigInt64Array, array: DeviceArray) {
    checkInternal(token, "DLPackTensor", "toDLPack(array)");
    this.managed = managed;
    this.shapeAndStrides = shapeAndStrides;
    this.array = array;
  }

  /** The address of the `DLManagedTensorVersioned`. */
  get pointer(): NativePointer {
    return ffi.pointerOf(this.managed);
  }

  /** The address of its `DLTensor` (byte 32). */
  get tensorPointer(): NativePointer {
    return ffi.offsetPointer(ffi.pointerOf(this.managed), DLPACK_LAYOUT.DLManagedTensorVersioned.dlTensor);
  }
}

function deviceTypeOf(a: DeviceArray): { type: number; id: number } {
  const b = a.buffer;
  if (b.isManaged) return { type: DLDeviceType.kDLCUDAManaged, id: 0 };
  if (b.isHostAccessible) return { type: DLDeviceType.kDLCUDAHost, id: 0 };
  return { type: DLDeviceType.kDLCUDA, id: b.device.id };
}

/**
 * Lays out `array` as a DLPack 1.0 `DLManagedTensorVersioned` (NULL deleter and manager_ctx; `readOnly` sets the
 * read-only flag). Strides are written in elements, always (DLPack allows NULL for compact tensors; writing them
 * spares consumers the guess).
 */
export function toDLPack(array: DeviceArray, options: { readonly readOnly?: boolean } = {}): DLPackTensor {
  if (!(array instanceof DeviceArray)) throw new TypeError(`toDLPack takes a DeviceArray, not ${describeValue(array)}`);
  if (array.isClosed) throw new ClosedError("this DeviceArray", "export it");
  const nd = array.ndim;
  const L = DLPACK_LAYOUT;
  const managed = new Uint8Array(new ArrayBuffer(L.DLManagedTensorVersioned.size));
  const ss = new BigInt64Array(new ArrayBuffer(Math.max(1, 2 * nd) * 8));
  array.shape.forEach((n, i) => {
    ss[i] = BigInt(n);
    ss[nd + i] = BigInt(array.strides[i]!);
  });
  const dv = new DataView(managed.buffer);
  dv.setUint32(L.DLManagedTensorVersioned.versionMajor, DLPACK_VERSION.major, true);
  dv.setUint32(L.DLManagedTensorVersioned.versionMinor, DLPACK_VERSION.minor, true);
  dv.setBigUint64(L.DLManagedTensorVersioned.flags, options.readOnly === true ? DLPACK_FLAG_BITMASK_READ_ONLY : 0n, true);
  const t = L.DLManagedTensorVersioned.dlTensor;
  // data is the buffer's start plus byte_offset, as DLPack recommends (data aligned, the offset in byte_offset).
  dv.setBigUint64(t + L.DLTensor.data, BigInt(array.buffer.handle), true);
  const dev = deviceTypeOf(array);
  dv.setInt32(t + L.DLTensor.deviceType, dev.type, true);
  dv.setInt32(t + L.DLTensor.deviceId, dev.id, true);
  dv.setInt32(t + L.DLTensor.ndim, nd, true);
  dv.setUint8(t + L.DLTensor.dtypeCode, array.dtype.dlpack.code);
  dv.setUint8(t + L.DLTensor.dtypeBits, array.dtype.dlpack.bits);
  dv.setUint16(t + L.DLTensor.dtypeLanes, 1, true);
  const base = ffi.bigAddressOf(ffi.pointerOf(ss));
  dv.setBigUint64(t + L.DLTensor.shape, nd === 0 ? 0n : base, true);
  dv.setBigUint64(t + L.DLTensor.strides, nd === 0 ? 0n : base + BigInt(nd * 8), true);
  dv.setBigUint64(t + L.DLTensor.byteOffset, BigInt(array.byteOffset), true);
  return new DLPackTensor(INTERNAL, managed, ss, array);
}

/** What {@link fromDLPack} reads: a `DLManagedTensorVersioned*` (default) or a bare `DLTensor*`. */
export interface FromDLPackOptions {
  readonly kind?: "managed-versioned" | "tensor";
  /** What keeps the memory alive (the producer's capsule or handle); kept by the array's buffer. */
  readonly owner?: unknown;
}

/** Reads the DLTensor at `p` into a DeviceArray over its memory (no copy). */
function arrayFromDLTensor(bytes: DataView, at: number, owner: unknown): DeviceArray {
  const L = DLPACK_LAYOUT.DLTensor;
  const deviceType = bytes.getInt32(at + L.deviceType, true);
  if (deviceType !== DLDeviceType.kDLCUDA && deviceType !== DLDeviceType.kDLCUDAHost && deviceType !== DLDeviceType.kDLCUDAManaged) {
    throw new ArrayLayoutError(`DLPack: the tensor is on device type ${deviceType}; a DeviceArray takes CUDA (2), CUDA host (3) or CUDA managed (13) memory`);
  }
  const ndim = bytes.getInt32(at + L.ndim, true);
  if (ndim < 0 || ndim > 64) throw new ArrayLayoutError(`DLPack: ndim ${ndim} is not a plausible number of axes`);
  const dtype = dtypeFromDLPack(bytes.getUint8(at + L.dtypeCode), bytes.getUint8(at + L.dtypeBits), bytes.getUint16(at + L.dtypeLanes, true));
  const shapePtr = bytes.getBigUint64(at + L.shape, true);
  const stridesPtr = bytes.getBigUint64(at + L.strides, true);
  const read = (address: bigint): number[] => {
    if (ndim === 0) return [];
    const view = new BigInt64Array(ffi.view(ffi.pointerFromAddress(address) as NativePointer, ndim * 8).slice(0));
    return [...view].map((v) => Number(v));
  };
  if (ndim > 0 && shapePtr === 0n) throw new ArrayLayoutError("DLPack: the tensor has axes but a NULL shape");
  const shape = read(shapePtr);
  let strides: number[];
  if (stridesPtr === 0n) {
    strides = new Array<number>(ndim);
    let s = 1;
    for (let i = ndim - 1; i >= 0; i--) {
      strides[i] = s;
      s *= shape[i]!;
    }
  } else strides = read(stridesPtr);
  const data = bytes.getBigUint64(at + L.data, true) + bytes.getBigUint64(at + L.byteOffset, true);
  return wrapForeign(data, dtype, shape, strides, owner);
}

/** A DeviceArray over foreign memory: element [0, ...] at `address`, strides in elements; `owner` kept alive. */
function wrapForeign(address: bigint, dtype: DType, shape: number[], strides: number[], owner: unknown): DeviceArray {
  const [low, high] = elementExtent(shape, strides);
  const span = high < low ? 0 : (high - low + 1) * dtype.itemsize;
  const start = address + BigInt(low * dtype.itemsize);
  const buffer = Buffer.fromHandle(start, span, { owner: owner ?? {} });
  return DeviceArray.fromBuffer(buffer, { dtype, shape, strides, byteOffset: -low * dtype.itemsize });
}

/**
 * A DeviceArray over the memory a DLPack tensor describes (no copy). `pointer` is a `DLManagedTensorVersioned*`
 * (or, with `{ kind: "tensor" }`, a `DLTensor*`). The memory belongs to the producer: keep its capsule (`owner`)
 * alive and call its deleter once the array is closed.
 */
export function fromDLPack(pointer: NativePointer | bigint | DLPackTensor, options: FromDLPackOptions = {}): DeviceArray {
  if (pointer instanceof DLPackTensor) {
    return arrayFromDLTensor(new DataView(pointer.managed.buffer), DLPACK_LAYOUT.DLManagedTensorVersioned.dlTensor, pointer);
  }
  const p = (typeof pointer === "bigint" ? ffi.pointerFromAddress(pointer) : pointer) as NativePointer;
  if (p === null) throw new TypeError("fromDLPack: the pointer is NULL");
  if (options.kind === "tensor") {
    const dv = new DataView(ffi.view(p, DLPACK_LAYOUT.DLTensor.size).slice(0));
    return arrayFromDLTensor(dv, 0, options.owner);
  }
  const dv = new DataView(ffi.view(p, DLPACK_LAYOUT.DLManagedTensorVersioned.size).slice(0));
  const major = dv.getUint32(DLPACK_LAYOUT.DLManagedTensorVersioned.versionMajor, true);
  if (major !== 1) throw new DTypeError(`DLPack: a DLManagedTensorVersioned of major version ${major}; this reads version 1`);
  return arrayFromDLTensor(dv, DLPACK_LAYOUT.DLManagedTensorVersioned.dlTensor, options.owner);
}

/**
 * A DeviceArray over the memory a CUDA Array Interface (v2/v3) description gives (no copy): `owner` (the exporting
 * object) is kept alive by the array. When the description names a stream and `options.stream` is given, that
 * stream waits for the producer's stream first, as the interface asks of consumers.
 */
export function fromCudaArrayInterface(desc: CudaArrayInterface | Record<string, unknown>, options: { readonly owner?: unknown; readonly stream?: Stream } = {}): DeviceArray {
  if (desc === null || typeof desc !== "object") throw new TypeError(`fromCudaArrayInterface takes a description object, not ${describeValue(desc)}`);
  const d = desc as Partial<CudaArrayInterface>;
  const dtype = dtypeFromTypestr(d.typestr as string);
  if (!Array.isArray(d.shape) || d.shape.some((n) => !Number.isSafeInteger(n) || n < 0)) throw new ArrayLayoutError(`CUDA Array Interface: shape must be a list of extents, got ${describeValue(d.shape)}`);
  const shape = d.shape.map(Number);
  if (!Array.isArray(d.data) || (typeof d.data[0] !== "bigint" && typeof d.data[0] !== "number")) throw new ArrayLayoutError(`CUDA Array Interface: data must be [pointer, readOnly], got ${describeValue(d.data)}`);
  const address = BigInt(d.data[0]);
  let strides: number[];
  if (d.strides === undefined || d.strides === null) {
    strides = new Array<number>(shape.length);
    let s = 1;
    for (let i = shape.length - 1; i >= 0; i--) {
      strides[i] = s;
      s *= shape[i]!;
    }
  } else {
    strides = d.strides.map((b, i) => {
      if (!Number.isSafeInteger(b) || b % dtype.itemsize !== 0) throw new ArrayLayoutError(`CUDA Array Interface: stride ${b} (axis ${i}) is not a whole number of ${dtype.itemsize}-byte elements`);
      return b / dtype.itemsize;
    });
  }
  if (strides.length !== shape.length) throw new ArrayLayoutError(`CUDA Array Interface: ${strides.length} strides for ${shape.length} axes`);
  const consumer = takeStream(options.stream, "fromCudaArrayInterface", OPTIONAL_STREAM_OPTION);
  if (d.stream !== undefined && consumer !== undefined) {
    const s = d.stream;
    if (typeof s !== "number" || !Number.isSafeInteger(s) || s === 0) throw new ArrayLayoutError(`CUDA Array Interface: stream must be a non-zero stream address, got ${describeValue(s)}`);
    const producer = Stream.fromHandle(ffi.pointerFromAddress(s) as unknown as Parameters<typeof Stream.fromHandle>[0]);
    if (!producer.equals(consumer)) consumer.wait(producer);
  }
  return wrapForeign(address, dtype, shape, strides, options.owner ?? desc);
}

/** DLDataTypeCode, re-exported with the rest of the DLPack vocabulary. */
export { DLDataTypeCode };
