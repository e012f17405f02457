/**
 * Handing arrays to other native code and taking theirs, without copying:
 *
 * - the CUDA Array Interface (v3): `array.cudaArrayInterface(stream)` describes an array;
 *   {@link fromCudaArrayInterface} wraps a description another library gave (its owner kept alive by the array);
 * - DLPack: {@link toDLPack} lays out a `DLManagedTensorVersioned` (DLPack 1.0, 80 bytes, with its `DLTensor` at
 *   byte 32; or the legacy 64-byte `DLManagedTensor` with `{ versioned: false }`) in memory a native library can
 *   read through FFI; {@link fromDLPack} wraps the tensor at a `DLManagedTensorVersioned*`, a legacy
 *   `DLManagedTensor*` or a bare `DLTensor*`; {@link describeDLPack} reads one into plain values.
 *
 * The memory keeps its kind both ways: device memory is kDLCUDA (with the device ordinal), pinned host memory
 * kDLCUDAHost and managed memory kDLCUDAManaged (device_id 0, as dlpack.h asks); an imported kDLCUDAHost or
 * kDLCUDAManaged tensor gives a host-accessible array (`toTypedArraySync`, `buffer.asArrayBuffer()`) that
 * re-exports as the same kind. A CUDA Array Interface import asks the driver what the pointer is
 * (cuPointerGetAttribute: CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
 * CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL). As PyTorch and CuPy do, exports point `data` at element [0, ...] with
 * byte_offset 0, write the strides (in elements) always, and give a size-0 array the address 0 in the CUDA
 * Array Interface.
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
 * typedef struct { DLTensor dl_tensor; void* manager_ctx;                            // 0, 48
 *                  void (*deleter)(DLManagedTensor*); } DLManagedTensor;             // 56: 64 bytes (legacy)
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
import { Buffer, type ForeignMemoryType } from "../memory/buffer.ts";
import { CUmemorytype, CUpointer_attribute, driver, type CUdeviceptr } from "../../bindings/driver.ts";
import { ensureInit } from "../base/driver-state.ts";
import { ArgumentError, NotFoundError } from "../../errors/base.ts";
import { Stream } from "../stream.ts";
import { DeviceArray, type CudaArrayInterface } from "./device-array.ts";
import { DLDataTypeCode, dtypeOf, dtypes, DTYPE_NAMES, type DType, type DTypeLike } from "./dtype.ts";
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
  DLManagedTensor: Object.freeze({ size: 64, dlTensor: 0, managerCtx: 48, deleter: 56 }),
});

/** The dtype of a DLPack DLDataType (lanes must be 1). */
export function dtypeFromDLPack(code: number, bits: number, lanes: number): DType {
  if (lanes !== 1) throw new DTypeError(`DLPack: vector types (lanes ${lanes}) are not array dtypes`);
  for (const name of DTYPE_NAMES) {
    const d = dtypes[name];
    if (d.dlpack.code === code && d.dlpack.bits === bits) return d;
  }
  // Older producers (DLPack before 0.8, older PyTorch) spell bool as kDLUInt with 8 bits: that reads as uint8
  // above; fromDLPack's { dtype: "bool" } reinterprets it.
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
  /** The `DLManagedTensorVersioned` bytes (80), or the legacy `DLManagedTensor` bytes (64). */
  readonly managed: Uint8Array;
  /** `int64_t shape[ndim]` and `int64_t strides[ndim]`. */
  readonly shapeAndStrides: BigInt64Array;
  /** The array described (kept alive). */
  readonly array: DeviceArray;
  /** Whether `managed` is a `DLManagedTensorVersioned` (DLPack 1.0) rather than a legacy `DLManagedTensor`. */
  readonly versioned: boolean;

  /** Reserved to cuda-ts (the token is not exported): use `toDLPack(array)`. */
  constructor(token: Internal, managed: Uint8Array, shapeAndStrides: BigInt64Array, array: DeviceArray, versioned = true) {
    checkInternal(token, "DLPackTensor", "toDLPack(array)");
    this.managed = managed;
    this.shapeAndStrides = shapeAndStrides;
    this.array = array;
    this.versioned = versioned;
  }

  /** The address of the `DLManagedTensorVersioned` (or legacy `DLManagedTensor`). */
  get pointer(): NativePointer {
    return ffi.pointerOf(this.managed);
  }

  /** The address of its `DLTensor` (byte 32 of a versioned tensor, byte 0 of a legacy one). */
  get tensorPointer(): NativePointer {
    return this.versioned ? ffi.offsetPointer(ffi.pointerOf(this.managed), DLPACK_LAYOUT.DLManagedTensorVersioned.dlTensor) : ffi.pointerOf(this.managed);
  }

  /** The capsule name a Python consumer expects for it: "dltensor_versioned" or "dltensor". */
  get capsuleName(): string {
    return this.versioned ? "dltensor_versioned" : "dltensor";
  }

  /** What the tensor says, as plain values (see {@link describeDLPack}). */
  describe(): DLPackDescription {
    return describeBytes(new DataView(this.managed.buffer), this.versioned ? "managed-versioned" : "managed");
  }
}

/** The DLPack device (type and id) of an array's memory: kDLCUDAManaged / kDLCUDAHost with id 0, kDLCUDA with its ordinal. */
export function dlpackDevice(array: DeviceArray): { readonly deviceType: number; readonly deviceId: number } {
  const b = array.buffer;
  if (b.isManaged) return { deviceType: DLDeviceType.kDLCUDAManaged, deviceId: 0 };
  if (b.isHostAccessible) return { deviceType: DLDeviceType.kDLCUDAHost, deviceId: 0 };
  return { deviceType: DLDeviceType.kDLCUDA, deviceId: b.deviceId };
}

/** Options of {@link toDLPack}. */
export interface ToDLPackOptions {
  /** Set the read-only flag (versioned tensors only); a read-only array sets it regardless. */
  readonly readOnly?: boolean;
  /** false: lay out the legacy (pre-1.0) `DLManagedTensor`, for consumers that take the "dltensor" capsule. Default true. */
  readonly versioned?: boolean;
}

/**
 * Lays out `array` as a DLPack 1.0 `DLManagedTensorVersioned` (NULL deleter and manager_ctx; the read-only flag set
 * for a read-only array or with `readOnly`), or with `{ versioned: false }` the legacy `DLManagedTensor` (which has
 * no flags: a read-only array is refused, as NumPy refuses it). As PyTorch and CuPy write them:
 * `data` is the address of element [0, ...], byte_offset 0, strides in elements (always written; DLPack allows
 * NULL for compact tensors), the device that of the array's memory (see {@link dlpackDevice}).
 */
export function toDLPack(array: DeviceArray, options: ToDLPackOptions = {}): DLPackTensor {
  if (!(array instanceof DeviceArray)) throw new TypeError(`toDLPack takes a DeviceArray, not ${describeValue(array)}`);
  if (array.isClosed) throw new ClosedError("this DeviceArray", "export it");
  const versioned = options.versioned ?? true;
  if (!versioned && options.readOnly === true) throw new TypeError("toDLPack: a legacy DLManagedTensor has no flags; read-only needs a versioned tensor");
  if (!versioned && array.readOnly) {
    throw new ArgumentError("toDLPack: the array is read-only and a legacy DLManagedTensor cannot say so (it has no flags); export a versioned tensor (the default), or a copy (array.copy())");
  }
  const nd = array.ndim;
  const L = DLPACK_LAYOUT;
  const managed = new Uint8Array(new ArrayBuffer(versioned ? L.DLManagedTensorVersioned.size : L.DLManagedTensor.size));
  const ss = new BigInt64Array(new ArrayBuffer(Math.max(1, 2 * nd) * 8));
  array.shape.forEach((n, i) => {
    ss[i] = BigInt(n);
    ss[nd + i] = BigInt(array.strides[i]!);
  });
  const dv = new DataView(managed.buffer);
  if (versioned) {
    dv.setUint32(L.DLManagedTensorVersioned.versionMajor, DLPACK_VERSION.major, true);
    dv.setUint32(L.DLManagedTensorVersioned.versionMinor, DLPACK_VERSION.minor, true);
    dv.setBigUint64(L.DLManagedTensorVersioned.flags, options.readOnly === true || array.readOnly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0n, true);
  }
  const t = versioned ? L.DLManagedTensorVersioned.dlTensor : L.DLManagedTensor.dlTensor;
  dv.setBigUint64(t + L.DLTensor.data, array.address, true);
  const dev = dlpackDevice(array);
  dv.setInt32(t + L.DLTensor.deviceType, dev.deviceType, true);
  dv.setInt32(t + L.DLTensor.deviceId, dev.deviceId, true);
  dv.setInt32(t + L.DLTensor.ndim, nd, true);
  dv.setUint8(t + L.DLTensor.dtypeCode, array.dtype.dlpack.code);
  dv.setUint8(t + L.DLTensor.dtypeBits, array.dtype.dlpack.bits);
  dv.setUint16(t + L.DLTensor.dtypeLanes, 1, true);
  const base = ffi.bigAddressOf(ffi.pointerOf(ss));
  dv.setBigUint64(t + L.DLTensor.shape, nd === 0 ? 0n : base, true);
  dv.setBigUint64(t + L.DLTensor.strides, nd === 0 ? 0n : base + BigInt(nd * 8), true);
  dv.setBigUint64(t + L.DLTensor.byteOffset, 0n, true);
  return new DLPackTensor(INTERNAL, managed, ss, array, versioned);
}

/** What a DLPack pointer points at: a `DLManagedTensorVersioned` (default), a legacy `DLManagedTensor`, a bare `DLTensor`. */
export type DLPackKind = "managed-versioned" | "managed" | "tensor";

/** A DLPack tensor's fields, as {@link describeDLPack} reads them. */
export interface DLPackDescription {
  /** The DLPack version (versioned tensors), or undefined (legacy and bare tensors). */
  readonly version: { readonly major: number; readonly minor: number } | undefined;
  /** The flags (versioned tensors; 0n otherwise). */
  readonly flags: bigint;
  readonly readOnly: boolean;
  readonly isCopied: boolean;
  /** `data` (before byte_offset). */
  readonly data: bigint;
  readonly deviceType: number;
  readonly deviceId: number;
  readonly ndim: number;
  readonly dtype: { readonly code: number; readonly bits: number; readonly lanes: number };
  readonly shape: number[];
  /** Strides in elements, or null where the tensor gives none (compact, row-major). */
  readonly strides: number[] | null;
  readonly byteOffset: bigint;
}

function readInt64s(address: bigint, n: number): number[] {
  if (n === 0) return [];
  const view = new BigInt64Array(ffi.view(ffi.pointerFromAddress(address) as NativePointer, n * 8).slice(0));
  return [...view].map((v) => {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER)) throw new ArrayLayoutError(`DLPack: an extent or stride (${v}) is out of range`);
    return Number(v);
  });
}

function describeBytes(bytes: DataView, kind: DLPackKind): DLPackDescription {
  const M = DLPACK_LAYOUT.DLManagedTensorVersioned;
  const L = DLPACK_LAYOUT.DLTensor;
  const at = kind === "managed-versioned" ? M.dlTensor : 0;
  let version: DLPackDescription["version"];
  let flags = 0n;
  if (kind === "managed-versioned") {
    version = { major: bytes.getUint32(M.versionMajor, true), minor: bytes.getUint32(M.versionMinor, true) };
    if (version.major !== 1) {
      throw new ArrayLayoutError(`DLPack: a DLManagedTensorVersioned of major version ${version.major}; this reads version 1 (a legacy DLManagedTensor is { kind: "managed" })`);
    }
    flags = bytes.getBigUint64(M.flags, true);
  }
  const ndim = bytes.getInt32(at + L.ndim, true);
  if (ndim < 0 || ndim > 64) throw new ArrayLayoutError(`DLPack: ndim ${ndim} is not a plausible number of axes`);
  const shapePtr = bytes.getBigUint64(at + L.shape, true);
  const stridesPtr = bytes.getBigUint64(at + L.strides, true);
  if (ndim > 0 && shapePtr === 0n) throw new ArrayLayoutError("DLPack: the tensor has axes but a NULL shape");
  return {
    version,
    flags,
    readOnly: (flags & DLPACK_FLAG_BITMASK_READ_ONLY) !== 0n,
    isCopied: (flags & DLPACK_FLAG_BITMASK_IS_COPIED) !== 0n,
    data: bytes.getBigUint64(at + L.data, true),
    deviceType: bytes.getInt32(at + L.deviceType, true),
    deviceId: bytes.getInt32(at + L.deviceId, true),
    ndim,
    dtype: { code: bytes.getUint8(at + L.dtypeCode), bits: bytes.getUint8(at + L.dtypeBits), lanes: bytes.getUint16(at + L.dtypeLanes, true) },
    shape: readInt64s(shapePtr, ndim),
    strides: stridesPtr === 0n ? null : readInt64s(stridesPtr, ndim),
    byteOffset: bytes.getBigUint64(at + L.byteOffset, true),
  };
}

function pointerArgument(pointer: NativePointer | bigint, what: string): NativePointer {
  const p = (typeof pointer === "bigint" ? (pointer === 0n ? null : ffi.pointerFromAddress(pointer)) : pointer) as NativePointer | null;
  if (p === null || p === undefined) throw new TypeError(`${what}: the pointer is NULL`);
  return p;
}

function checkKind(kind: unknown, what: string): DLPackKind {
  if (kind === undefined) return "managed-versioned";
  if (kind === "managed-versioned" || kind === "managed" || kind === "tensor") return kind;
  throw new TypeError(`${what}: kind is "managed-versioned" (a DLManagedTensorVersioned*, capsule "dltensor_versioned"), "managed" (a legacy DLManagedTensor*, capsule "dltensor") or "tensor" (a DLTensor*), not ${describeValue(kind)}`);
}

/**
 * Reads the DLPack tensor at `pointer` into plain values (nothing is wrapped or kept): a `DLManagedTensorVersioned*`
 * (default), with `{ kind: "managed" }` a legacy `DLManagedTensor*`, with `{ kind: "tensor" }` a `DLTensor*`.
 */
export function describeDLPack(pointer: NativePointer | bigint | DLPackTensor, options: { readonly kind?: DLPackKind } = {}): DLPackDescription {
  if (pointer instanceof DLPackTensor) return pointer.describe();
  const kind = checkKind(options.kind, "describeDLPack");
  const p = pointerArgument(pointer, "describeDLPack");
  const size = kind === "managed-versioned" ? DLPACK_LAYOUT.DLManagedTensorVersioned.size : kind === "managed" ? DLPACK_LAYOUT.DLManagedTensor.size : DLPACK_LAYOUT.DLTensor.size;
  return describeBytes(new DataView(ffi.view(p, size).slice(0)), kind);
}

/** Options of {@link fromDLPack}. */
export interface FromDLPackOptions {
  /** What the pointer points at (see {@link DLPackKind}); default a `DLManagedTensorVersioned*`. */
  readonly kind?: DLPackKind;
  /** What keeps the memory alive (the producer's capsule or handle); kept by the array's buffer. */
  readonly owner?: unknown;
  /**
   * Read the elements as this dtype (of the same size) instead of the tensor's: `"bool"` for producers that spell
   * bool as kDLUInt 8 (DLPack before 0.8).
   */
  readonly dtype?: DTypeLike;
  /** The array's stream (where its operations run by default). */
  readonly stream?: Stream;
}

const MEMORY_TYPES: Readonly<Record<number, ForeignMemoryType | undefined>> = {
  [DLDeviceType.kDLCUDA]: "device",
  [DLDeviceType.kDLCUDAHost]: "pinned",
  [DLDeviceType.kDLCUDAManaged]: "managed",
};

/** A DeviceArray over the memory a DLPack description gives. */
function arrayFromDescription(d: DLPackDescription, owner: unknown, options: FromDLPackOptions): DeviceArray {
  let memoryType = MEMORY_TYPES[d.deviceType];
  let deviceId = d.deviceType === DLDeviceType.kDLCUDA ? d.deviceId : undefined;
  if (memoryType === undefined && d.deviceType === DLDeviceType.kDLCPU) {
    // PyTorch exports pinned CPU tensors as kDLCPU: CUDA can use them where the driver knows the memory.
    const known = d.data === 0n ? undefined : pointerMemoryType(d.data);
    if (known !== undefined && known.memoryType !== "device") {
      memoryType = known.memoryType;
      deviceId = undefined;
    } else {
      throw new ArrayLayoutError(
        "DLPack: the tensor is in CPU memory (kDLCPU) that CUDA does not know (not page-locked): a DeviceArray takes CUDA (2), CUDA host (3) or CUDA managed (13) memory; pin it (tensor.pin_memory()) or copy it to the GPU first",
      );
    }
  }
  if (memoryType === undefined) {
    throw new ArrayLayoutError(`DLPack: the tensor is on device type ${d.deviceType}; a DeviceArray takes CUDA (2), CUDA host (3) or CUDA managed (13) memory`);
  }
  if (d.deviceType === DLDeviceType.kDLCUDA && (!Number.isSafeInteger(d.deviceId) || d.deviceId < 0)) {
    throw new ArrayLayoutError(`DLPack: a CUDA tensor's device_id is a device ordinal, got ${d.deviceId}`);
  }
  let dtype = dtypeFromDLPack(d.dtype.code, d.dtype.bits, d.dtype.lanes);
  if (options.dtype !== undefined) {
    const as = dtypeOf(options.dtype);
    if (as.itemsize !== dtype.itemsize) throw new DTypeError(`fromDLPack: { dtype: "${as.name}" } has ${as.itemsize}-byte elements but the tensor's ${dtype.name} has ${dtype.itemsize}`);
    dtype = as;
  }
  if (d.shape.some((n) => n < 0)) throw new ArrayLayoutError(`DLPack: shape [${d.shape.join(", ")}] has a negative extent`);
  const strides = d.strides ?? contiguous(d.shape);
  return wrapForeign(d.data + d.byteOffset, dtype, d.shape, strides, owner, { memoryType, ...(deviceId !== undefined ? { deviceId } : {}) }, options.stream, d.readOnly);
}

function contiguous(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i]!;
  }
  return strides;
}

/** A DeviceArray over foreign memory: element [0, ...] at `address`, strides in elements; `owner` kept alive. */
function wrapForeign(
  address: bigint,
  dtype: DType,
  shape: number[],
  strides: number[],
  owner: unknown,
  kind: { readonly memoryType: ForeignMemoryType; readonly deviceId?: number },
  stream: Stream | undefined,
  readOnly: boolean,
): DeviceArray {
  const [low, high] = elementExtent(shape, strides);
  const span = high < low ? 0 : (high - low + 1) * dtype.itemsize;
  const start = address + BigInt(low * dtype.itemsize);
  const buffer = Buffer.fromHandle(start, span, { owner: owner ?? {}, memoryType: kind.memoryType, ...(kind.deviceId !== undefined ? { deviceId: kind.deviceId } : {}) });
  return DeviceArray.fromBuffer(buffer, { dtype, shape, strides, byteOffset: -low * dtype.itemsize, readOnly, ...(stream !== undefined ? { stream } : {}) });
}

/**
 * A DeviceArray over the memory a DLPack tensor describes (no copy), of the same memory kind: kDLCUDA device memory,
 * kDLCUDAHost pinned memory and kDLCUDAManaged managed memory (both host-accessible), or kDLCPU memory the driver
 * knows as page-locked or managed (PyTorch's pinned tensors). `pointer` is a `DLManagedTensorVersioned*` (or, with
 * `{ kind: "managed" }`, a legacy `DLManagedTensor*`; with `{ kind: "tensor" }`, a `DLTensor*`). The memory belongs
 * to the producer: keep its capsule (`owner`) alive and call its deleter once the array is closed. A tensor flagged
 * read-only gives a read-only array ({@link DeviceArray.readOnly}: cuda-ts's operations refuse to write it).
 */
export function fromDLPack(pointer: NativePointer | bigint | DLPackTensor, options: FromDLPackOptions = {}): DeviceArray {
  if (options === null || typeof options !== "object") throw new TypeError(`fromDLPack: options must be an object, not ${describeValue(options)}`);
  const stream = takeStream(options.stream, "fromDLPack", OPTIONAL_STREAM_OPTION);
  if (pointer instanceof DLPackTensor) return arrayFromDescription(pointer.describe(), options.owner ?? pointer, { ...options, ...(stream !== undefined ? { stream } : {}) });
  return arrayFromDescription(describeDLPack(pointer, { kind: checkKind(options.kind, "fromDLPack") }), options.owner, options);
}

let driverMissing = false;

/**
 * What the driver says a pointer is (managed, pinned host, device with its ordinal), or undefined where it does not
 * know it (not CUDA memory) or there is no driver.
 */
export function pointerMemoryType(address: bigint): { readonly memoryType: ForeignMemoryType; readonly deviceId?: number } | undefined {
  if (driverMissing || address === 0n) return undefined;
  const out = new Int32Array(new ArrayBuffer(8));
  const ptr = address as CUdeviceptr;
  try {
    ensureInit();
    driver.cuPointerGetAttribute(out, CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_MANAGED, ptr);
    if (out[0] !== 0) return { memoryType: "managed" };
    out[0] = 0;
    driver.cuPointerGetAttribute(out, CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr);
    const type = out[0];
    if (type === CUmemorytype.CU_MEMORYTYPE_HOST) return { memoryType: "pinned" };
    if (type !== CUmemorytype.CU_MEMORYTYPE_DEVICE) return undefined;
    out[0] = -1;
    driver.cuPointerGetAttribute(out, CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, ptr);
    return out[0]! >= 0 ? { memoryType: "device", deviceId: out[0]! } : { memoryType: "device" };
  } catch (e) {
    if (e instanceof NotFoundError) driverMissing = true;
    return undefined;
  }
}

/** Options of {@link fromCudaArrayInterface}. */
export interface FromCudaArrayInterfaceOptions {
  /** What keeps the memory alive (default: the description itself). */
  readonly owner?: unknown;
  /** The consumer's stream: it waits for the description's `stream`, and is the array's stream. */
  readonly stream?: Stream;
  /**
   * The memory's kind where the caller knows it; otherwise the driver is asked (cuPointerGetAttribute), and memory
   * it does not know counts as device memory.
   */
  readonly memoryType?: ForeignMemoryType;
}

/**
 * A DeviceArray over the memory a CUDA Array Interface (v0 to v3) description gives (no copy): `owner` (the exporting
 * object) is kept alive by the array. The memory kind (device, pinned, managed) comes from the driver
 * (cuPointerGetAttribute) unless `options.memoryType` says it. When the description names a stream and
 * `options.stream` is given, that stream waits for the producer's stream first, as the interface asks of consumers.
 */
export function fromCudaArrayInterface(desc: CudaArrayInterface | Record<string, unknown>, options: FromCudaArrayInterfaceOptions = {}): DeviceArray {
  if (desc === null || typeof desc !== "object") throw new TypeError(`fromCudaArrayInterface takes a description object, not ${describeValue(desc)}`);
  const d = desc as Partial<CudaArrayInterface> & { mask?: unknown };
  const dtype = dtypeFromTypestr(d.typestr as string);
  if (!Array.isArray(d.shape) || d.shape.some((n) => !Number.isSafeInteger(n) || n < 0)) throw new ArrayLayoutError(`CUDA Array Interface: shape must be a list of extents, got ${describeValue(d.shape)}`);
  const shape = d.shape.map(Number);
  if (!Array.isArray(d.data) || (typeof d.data[0] !== "bigint" && typeof d.data[0] !== "number")) throw new ArrayLayoutError(`CUDA Array Interface: data must be [pointer, readOnly], got ${describeValue(d.data)}`);
  if (d.mask !== undefined && d.mask !== null) throw new ArrayLayoutError("CUDA Array Interface: masked arrays (a mask) are not supported; pass the data without its mask");
  const address = BigInt(d.data[0]);
  let strides: number[];
  if (d.strides === undefined || d.strides === null) {
    strides = contiguous(shape);
  } else {
    if (!Array.isArray(d.strides)) throw new ArrayLayoutError(`CUDA Array Interface: strides must be a list of byte strides or null, got ${describeValue(d.strides)}`);
    strides = d.strides.map((b, i) => {
      if (!Number.isSafeInteger(b) || b % dtype.itemsize !== 0) throw new ArrayLayoutError(`CUDA Array Interface: stride ${b} (axis ${i}) is not a whole number of ${dtype.itemsize}-byte elements`);
      return b / dtype.itemsize;
    });
  }
  if (strides.length !== shape.length) throw new ArrayLayoutError(`CUDA Array Interface: ${strides.length} strides for ${shape.length} axes`);
  const consumer = takeStream(options.stream, "fromCudaArrayInterface", OPTIONAL_STREAM_OPTION);
  if (options.memoryType !== undefined && options.memoryType !== "device" && options.memoryType !== "pinned" && options.memoryType !== "managed") {
    throw new TypeError(`fromCudaArrayInterface: memoryType is "device", "pinned" or "managed", not ${describeValue(options.memoryType)}`);
  }
  if (d.stream !== undefined && d.stream !== null && consumer !== undefined) {
    const s = d.stream;
    if (typeof s !== "number" || !Number.isSafeInteger(s) || s === 0) throw new ArrayLayoutError(`CUDA Array Interface: stream must be a non-zero stream address, got ${describeValue(s)}`);
    const producer = Stream.fromHandle(ffi.pointerFromAddress(s) as unknown as Parameters<typeof Stream.fromHandle>[0]);
    if (!producer.equals(consumer)) consumer.wait(producer);
  }
  const kind = options.memoryType !== undefined ? { memoryType: options.memoryType } : (pointerMemoryType(address) ?? { memoryType: "device" as const });
  return wrapForeign(address, dtype, shape, strides, options.owner ?? desc, kind, consumer, d.data[1] === true);
}

/** DLDataTypeCode, re-exported with the rest of the DLPack vocabulary. */
export { DLDataTypeCode };
