/**
 * Tensor maps (TMA descriptors): the 128-byte `CUtensorMap` that Hopper's (sm_90+) tensor memory accelerator reads
 * to copy a box of a global tensor into shared memory (`cp.async.bulk.tensor`, `cuda::memcpy_async` with a
 * `CUtensorMap`). Built from a DeviceArray with {@link TensorMap.tiled} (`cuTensorMapEncodeTiled`) or
 * {@link TensorMap.im2col} (`cuTensorMapEncodeIm2col`); every choice of the driver's enums is a name ("128B",
 * "none", ...). Passed to a kernel by value through `launch` like any other argument: the kernel takes it as
 * `const __grid_constant__ CUtensorMap map`, and launch checks the parameter is 128 bytes.
 *
 * Axis order: options that have one entry per axis (`box`, `elementStrides`) follow the array's shape, outermost
 * axis first, as `shape` does. The driver numbers the dimensions the other way (its dimension 0 is the innermost,
 * contiguous axis): the last entry of `box` is the CUtensorMap's `boxDim[0]`, and a kernel's
 * `cp.async.bulk.tensor` coordinates start with the innermost axis too.
 *
 * Checked before the driver (as {@link TensorMapError}): rank 1..5 (3..5 for im2col and interleaved layouts), a
 * supported dtype, a contiguous innermost axis, the address and every other stride aligned to 16 bytes (32 with
 * 32-byte interleave), box extents 1..256 with the inner box row a multiple of 16 bytes (without interleave) and
 * no wider than the swizzle span, element strides 1..8.
 *
 * @module
 */
import { CUtensorMap_st, type CUtensorMapDataType as CUtensorMapDataTypeValue } from "../../bindings/driver.ts";
import { CUtensorMapDataType, CUtensorMapFloatOOBfill, CUtensorMapInterleave, CUtensorMapL2promotion, CUtensorMapSwizzle } from "../../bindings/driver.ts";
import { ffi } from "../../ffi/index.ts";
import { DeviceArray } from "../array/device-array.ts";
import type { DTypeName } from "../array/dtype.ts";
import { driver, withCurrentContext } from "../base/driver-state.ts";
import { describeValue } from "../../errors/describe.ts";
import { ByValueArgument, kArgumentSize, kDescribeArgument, kWriteValue } from "../launch/by-value-argument.ts";
import { ClosedError } from "../base/errors.ts";
import { TensorMapError } from "./errors.ts";

/** The element types a tensor map can describe, by name (the array's dtype gives the default). */
export type TensorMapDataType =
  | "uint8"
  | "uint16"
  | "uint32"
  | "int32"
  | "uint64"
  | "int64"
  | "float16"
  | "float32"
  | "float64"
  | "bfloat16"
  | "float32-ftz"
  | "tfloat32"
  | "tfloat32-ftz";

/** Interleaved layouts (`CU_TENSOR_MAP_INTERLEAVE_*`). */
export type TensorMapInterleave = "none" | "16B" | "32B";
/** Shared-memory swizzle patterns (`CU_TENSOR_MAP_SWIZZLE_*`). */
export type TensorMapSwizzle = "none" | "32B" | "64B" | "128B" | "128B-atom-32B" | "128B-atom-32B-flip-8B" | "128B-atom-64B";
/** L2 promotion (`CU_TENSOR_MAP_L2_PROMOTION_*`). */
export type TensorMapL2Promotion = "none" | "64B" | "128B" | "256B";
/** What out-of-bounds elements read as: zeros, or NaN that a fused multiply-add treats as zero (float types only). */
export type TensorMapOOBFill = "zero" | "nan";

const DATA_TYPES: Readonly<Record<TensorMapDataType, readonly [CUtensorMapDataTypeValue, number, boolean]>> = {
  uint8: [CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT8, 1, false],
  uint16: [CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, false],
  uint32: [CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT32, 4, false],
  int32: [CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_INT32, 4, false],
  uint64: [CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_UINT64, 8, false],
  int64: [CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_INT64, 8, false],
  float16: [CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, true],
  float32: [CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4, true],
  float64: [CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT64, 8, true],
  bfloat16: [CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, true],
  "float32-ftz": [CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ, 4, true],
  tfloat32: [CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_TFLOAT32, 4, true],
  "tfloat32-ftz": [CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ, 4, true],
};

/** The data type an array dtype maps to (integers of the same width where the TMA has no signed type: copies move bytes). */
const FROM_DTYPE: Readonly<Partial<Record<DTypeName, TensorMapDataType>>> = {
  bool: "uint8",
  int8: "uint8",
  uint8: "uint8",
  int16: "uint16",
  uint16: "uint16",
  int32: "int32",
  uint32: "uint32",
  int64: "int64",
  uint64: "uint64",
  float16: "float16",
  bfloat16: "bfloat16",
  float32: "float32",
  float64: "float64",
};

const INTERLEAVES: Readonly<Record<TensorMapInterleave, number>> = {
  none: CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
  "16B": CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_16B,
  "32B": CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_32B,
};

/** Each swizzle's enum value and span in bytes (the widest inner box row it allows). */
const SWIZZLES: Readonly<Record<TensorMapSwizzle, readonly [number, number]>> = {
  none: [CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_NONE, Infinity],
  "32B": [CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_32B, 32],
  "64B": [CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_64B, 64],
  "128B": [CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B, 128],
  "128B-atom-32B": [CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B, 128],
  "128B-atom-32B-flip-8B": [CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B, 128],
  "128B-atom-64B": [CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B, 128],
};

const L2_PROMOTIONS: Readonly<Record<TensorMapL2Promotion, number>> = {
  none: CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
  "64B": CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_64B,
  "128B": CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
  "256B": CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
};

const OOB_FILLS: Readonly<Record<TensorMapOOBFill, number>> = {
  zero: CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
  nan: CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
};

/** Options both kinds of tensor map share. */
export interface TensorMapOptions {
  /** The element type (default: from the array's dtype; "tfloat32", "float32-ftz"... reinterpret 4-byte elements). */
  readonly dataType?: TensorMapDataType;
  /** The step between elements the copy takes along each axis (outermost first), 1..8 (default all 1). */
  readonly elementStrides?: readonly number[];
  /** Interleaved layout (default "none"; "16B"/"32B" need rank ≥ 3). */
  readonly interleave?: TensorMapInterleave;
  /** Shared-memory swizzle (default "none"). */
  readonly swizzle?: TensorMapSwizzle;
  /** L2 promotion (default "none"). */
  readonly l2Promotion?: TensorMapL2Promotion;
  /** What out-of-bounds elements read as (default "zero"; "nan" for float types only). */
  readonly oobFill?: TensorMapOOBFill;
}

/** Options of a tiled tensor map. */
export interface TiledTensorMapOptions extends TensorMapOptions {
  /** The box one copy moves, one extent per axis (outermost first, as the shape), each 1..256. */
  readonly box: readonly number[];
}

/** Options of an im2col tensor map (rank 3..5: N, spatial axes..., C as the array's axes, outermost first). */
export interface Im2colTensorMapOptions extends TensorMapOptions {
  /** The lower corner of the pixel bounding box, one offset per spatial axis (outermost first). */
  readonly pixelBoxLowerCorner: readonly number[];
  /** The upper corner of the pixel bounding box, one offset per spatial axis (outermost first). */
  readonly pixelBoxUpperCorner: readonly number[];
  /** Channels per pixel one copy moves, 1..256. */
  readonly channelsPerPixel: number;
  /** Pixels per column one copy moves, 1..1024. */
  readonly pixelsPerColumn: number;
}

/** What a tensor map was made with (the driver's order: dimension 0 innermost). */
interface Encoded {
  readonly kind: "tiled" | "im2col";
  readonly dataType: TensorMapDataType;
  readonly itemsize: number;
  readonly rank: number;
  readonly interleave: TensorMapInterleave;
  /** The global extents, innermost first (what replaceAddress checks a new array against). */
  readonly dims: readonly number[];
  readonly byteStrides: readonly number[];
}

function bad(what: string): never {
  throw new TensorMapError(what);
}

function pick<K extends string, V>(table: Readonly<Record<K, V>>, value: unknown, option: string, fallback: NoInfer<K>): [K, V] {
  if (value === undefined) return [fallback, table[fallback]];
  if (typeof value !== "string" || !Object.prototype.hasOwnProperty.call(table, value)) {
    bad(`${option} must be one of ${Object.keys(table).map((k) => JSON.stringify(k)).join(", ")}, not ${describeValue(value)}`);
  }
  return [value as K, table[value as K]];
}

function intList(value: unknown, option: string, length: number, lo: number, hi: number, order = "one per axis, outermost first"): number[] {
  if (!Array.isArray(value) || value.length !== length) {
    bad(`${option} must be an array of ${length} integer${length === 1 ? "" : "s"} (${order}), not ${describeValue(value)}`);
  }
  for (const v of value as unknown[]) {
    if (typeof v !== "number" || !Number.isInteger(v) || v < lo || v > hi) bad(`${option} entries must be integers in ${lo}..${hi}; got [${(value as unknown[]).map(String).join(", ")}]`);
  }
  return [...(value as number[])];
}

/** What both encodings check of the array and the shared options; everything in the driver's order. */
function common(array: DeviceArray, options: TensorMapOptions, what: string, minRank: number) {
  if (!(array instanceof DeviceArray)) bad(`${what} takes a DeviceArray, not ${describeValue(array)}`);
  if (options === null || typeof options !== "object") bad(`${what} takes an options object, not ${describeValue(options)}`);
  if (array.isClosed) throw new ClosedError(`this DeviceArray (${array.dtype.name} [${array.shape.join(", ")}])`, `make a tensor map of it`);
  const rank = array.ndim;
  if (rank < minRank || rank > 5) bad(`${what}: the array has ${rank} ax${rank === 1 ? "is" : "es"}; a tensor map has ${minRank} to 5 (reshape the array)`);
  const defaultType = FROM_DTYPE[array.dtype.name];
  if (options.dataType === undefined && defaultType === undefined) {
    bad(`${what}: a ${array.dtype.name} array has no tensor-map data type; view it as a real type (array.view("${array.dtype.name === "complex64" ? "float32" : "float64"}")) or pass dataType`);
  }
  const [dataType, [dataTypeValue, itemsize, isFloat]] = pick(DATA_TYPES, options.dataType, `${what}: dataType`, defaultType ?? "uint8");
  if (itemsize !== array.dtype.itemsize) bad(`${what}: dataType ${JSON.stringify(dataType)} has ${itemsize}-byte elements but the array's ${array.dtype.name} has ${array.dtype.itemsize}`);
  const [interleave, interleaveValue] = pick(INTERLEAVES, options.interleave, `${what}: interleave`, "none");
  if (interleave !== "none" && rank < 3) bad(`${what}: interleave ${JSON.stringify(interleave)} needs an array of rank 3 or more; this one has rank ${rank}`);
  const [swizzle, [swizzleValue, span]] = pick(SWIZZLES, options.swizzle, `${what}: swizzle`, "none");
  const [, l2Value] = pick(L2_PROMOTIONS, options.l2Promotion, `${what}: l2Promotion`, "none");
  const [oobFill, oobValue] = pick(OOB_FILLS, options.oobFill, `${what}: oobFill`, "zero");
  if (oobFill === "nan" && !isFloat) bad(`${what}: oobFill "nan" needs a floating-point data type; ${JSON.stringify(dataType)} is not one`);
  const align = interleave === "32B" ? 32 : 16;
  const address = array.address;
  if (address % BigInt(align) !== 0n) bad(`${what}: the array's address 0x${address.toString(16)} is not a multiple of ${align} bytes; slice it at an aligned offset`);
  // The driver's order: innermost first.
  const dims = [...array.shape].reverse();
  const strides = array.byteStrides.reverse();
  for (const d of dims) if (d < 1 || d > 2 ** 32) bad(`${what}: every extent must be 1..2^32; the shape is [${array.shape.join(", ")}]`);
  if (strides[0] !== itemsize) {
    bad(`${what}: the innermost axis must be contiguous (stride ${itemsize} bytes); this array's byte strides are [${array.byteStrides.join(", ")}] (copy() it)`);
  }
  const globalStrides = strides.slice(1);
  for (const s of globalStrides) {
    if (s <= 0 || s % align !== 0 || s >= 2 ** 40) {
      bad(`${what}: every stride but the innermost must be a positive multiple of ${align} bytes below 2^40; this array's byte strides are [${array.byteStrides.join(", ")}] (pad the rows, or copy() into a padded array)`);
    }
  }
  const elementStrides = options.elementStrides === undefined ? new Array<number>(rank).fill(1) : intList(options.elementStrides, `${what}: elementStrides`, rank, 1, 8).reverse();
  return { array, rank, dataType, dataTypeValue, itemsize, interleave, interleaveValue, swizzle, swizzleValue, span, l2Value, oobValue, dims, globalStrides, elementStrides, address };
}

/** Native memory for the arrays the encode calls read (one 64-bit or 32-bit word per dimension). */
function u64s(values: readonly number[]): BigUint64Array {
  return BigUint64Array.from(values, (v) => BigInt(v));
}

let mapHolder: (m: TensorMap) => CUtensorMap_st;

/**
 * A TMA descriptor over a DeviceArray: the 128-byte, 64-byte-aligned `CUtensorMap`, passed to kernels by value.
 * It keeps the array alive; `replaceAddress` points it at another array of the same shape, strides and dtype.
 * Nothing to free: `close()` only marks it unusable (and drops the array).
 */
export class TensorMap extends ByValueArgument {
  /** "tiled" or "im2col". */
  readonly kind: "tiled" | "im2col";
  /** The element type the map describes. */
  readonly dataType: TensorMapDataType;
  /** The box (tiled) in the array's axis order, or undefined (im2col). */
  readonly box: readonly number[] | undefined;
  readonly #map: CUtensorMap_st;
  readonly #encoded: Encoded;
  #array: DeviceArray | undefined;

  static {
    mapHolder = (m) => m.#map;
  }

  private constructor(map: CUtensorMap_st, encoded: Encoded, array: DeviceArray, box: readonly number[] | undefined) {
    super();
    this.#map = map;
    this.#encoded = encoded;
    this.#array = array;
    this.kind = encoded.kind;
    this.dataType = encoded.dataType;
    this.box = box === undefined ? undefined : Object.freeze([...box]);
  }

  /**
   * A tiled tensor map (`cuTensorMapEncodeTiled`): copies move `box` (one extent per axis, outermost first) of the
   * array. Bad input throws {@link TensorMapError} before the driver is called.
   */
  static tiled(array: DeviceArray, options: TiledTensorMapOptions): TensorMap {
    const c = common(array, options, "TensorMap.tiled", 1);
    const boxAxes = intList(options.box, "TensorMap.tiled: box", c.rank, 1, 256, "one extent per axis, outermost first, each 1..256");
    const box = [...boxAxes].reverse();
    const innerBytes = box[0]! * c.itemsize;
    if (c.interleave === "none") {
      if (innerBytes % 16 !== 0) {
        bad(`TensorMap.tiled: the box's innermost extent ${box[0]} × ${c.itemsize} bytes = ${innerBytes} bytes is not a multiple of 16 bytes (make it a multiple of ${16 / gcd(16, c.itemsize)} elements)`);
      }
      if (innerBytes > c.span) bad(`TensorMap.tiled: swizzle ${JSON.stringify(c.swizzle)} allows an inner box row of at most ${c.span} bytes; the box's is ${innerBytes} (${box[0]} × ${c.itemsize})`);
    }
    const map = alignedMap();
    withCurrentContext(c.array.device.context.handle, () =>
      driver.cuTensorMapEncodeTiled(
        c.dataTypeValue, c.rank, ffi.pointerFromAddress(c.address), u64s(c.dims), u64s(c.globalStrides), Uint32Array.from(box), Uint32Array.from(c.elementStrides),
        c.interleaveValue as never, c.swizzleValue as never, c.l2Value as never, c.oobValue as never, map,
      ),
    );
    return new TensorMap(map, { kind: "tiled", dataType: c.dataType, itemsize: c.itemsize, rank: c.rank, interleave: c.interleave, dims: c.dims, byteStrides: c.globalStrides }, c.array, boxAxes);
  }

  /**
   * An im2col tensor map (`cuTensorMapEncodeIm2col`) over an array of rank 3..5 laid out as [N, spatial..., C]
   * (outermost first). Corners have one entry per spatial axis (rank - 2), in the ranges the driver allows
   * (±2^15 for rank 3, ±2^7 for rank 4, ±2^4 for rank 5).
   */
  static im2col(array: DeviceArray, options: Im2colTensorMapOptions): TensorMap {
    const c = common(array, options, "TensorMap.im2col", 3);
    const spatial = c.rank - 2;
    const bits = c.rank === 3 ? 15 : c.rank === 4 ? 7 : 4;
    const lo = intList(options.pixelBoxLowerCorner, "TensorMap.im2col: pixelBoxLowerCorner", spatial, -(2 ** bits), 2 ** bits - 1, `one per spatial axis, ${-(2 ** bits)}..${2 ** bits - 1}`).reverse();
    const hi = intList(options.pixelBoxUpperCorner, "TensorMap.im2col: pixelBoxUpperCorner", spatial, -(2 ** bits), 2 ** bits - 1, `one per spatial axis, ${-(2 ** bits)}..${2 ** bits - 1}`).reverse();
    const channels = options.channelsPerPixel;
    const pixels = options.pixelsPerColumn;
    if (!Number.isInteger(channels) || channels < 1 || channels > 256) bad(`TensorMap.im2col: channelsPerPixel must be an integer 1..256, not ${describeValue(channels)}`);
    if (!Number.isInteger(pixels) || pixels < 1 || pixels > 1024) bad(`TensorMap.im2col: pixelsPerColumn must be an integer 1..1024, not ${describeValue(pixels)}`);
    const innerBytes = channels * c.itemsize;
    if (c.interleave === "none" && innerBytes > c.span) {
      bad(`TensorMap.im2col: swizzle ${JSON.stringify(c.swizzle)} allows an inner row of at most ${c.span} bytes; ${channels} channels × ${c.itemsize} bytes = ${innerBytes}`);
    }
    const map = alignedMap();
    withCurrentContext(c.array.device.context.handle, () =>
      driver.cuTensorMapEncodeIm2col(
        c.dataTypeValue, c.rank, ffi.pointerFromAddress(c.address), u64s(c.dims), u64s(c.globalStrides), Int32Array.from(lo), Int32Array.from(hi), channels, pixels,
        Uint32Array.from(c.elementStrides), c.interleaveValue as never, c.swizzleValue as never, c.l2Value as never, c.oobValue as never, map,
      ),
    );
    return new TensorMap(map, { kind: "im2col", dataType: c.dataType, itemsize: c.itemsize, rank: c.rank, interleave: c.interleave, dims: c.dims, byteStrides: c.globalStrides }, c.array, undefined);
  }

  /** The array the map points at now (ClosedError after close()). */
  get array(): DeviceArray {
    if (this.#array === undefined) throw new ClosedError("this TensorMap", "read its array");
    return this.#array;
  }

  /** The rank (number of axes). */
  get rank(): number {
    return this.#encoded.rank;
  }

  /** Whether close() was called. */
  get isClosed(): boolean {
    return this.#array === undefined;
  }

  /**
   * Points the map at another array (`cuTensorMapReplaceAddress`): same dtype size, shape and strides, 16-byte
   * aligned (32 with 32-byte interleave). Launches already queued keep the old address (the map is copied at launch).
   */
  replaceAddress(array: DeviceArray): void {
    if (this.#array === undefined) throw new ClosedError("this TensorMap", "replace its address");
    if (!(array instanceof DeviceArray)) bad(`TensorMap.replaceAddress takes a DeviceArray, not ${describeValue(array)}`);
    const e = this.#encoded;
    const dims = [...array.shape].reverse();
    const strides = array.byteStrides.reverse();
    if (array.dtype.itemsize !== e.itemsize || dims.join() !== e.dims.join() || strides.slice(1).join() !== e.byteStrides.join() || strides[0] !== e.itemsize) {
      bad(
        `TensorMap.replaceAddress: the new array (${array.dtype.name} [${array.shape.join(", ")}], byte strides [${array.byteStrides.join(", ")}]) must have the layout the map was made for ` +
          `(${e.itemsize}-byte elements, shape [${[...e.dims].reverse().join(", ")}], byte strides [${[...e.byteStrides].reverse().join(", ")}, ${e.itemsize}]); make a new TensorMap for another layout`,
      );
    }
    const address = array.address;
    const align = e.interleave === "32B" ? 32n : 16n;
    if (address % align !== 0n) bad(`TensorMap.replaceAddress: the array's address 0x${address.toString(16)} is not a multiple of ${align} bytes`);
    withCurrentContext(array.device.context.handle, () => driver.cuTensorMapReplaceAddress(this.#map, ffi.pointerFromAddress(address)));
    this.#array = array;
  }

  /** The descriptor's 128 bytes (a copy). */
  toBytes(): Uint8Array {
    return this.#map.$bytes().slice();
  }

  get [kArgumentSize](): number {
    return CUtensorMap_st.$size;
  }
  [kWriteValue](dv: DataView, offset: number): void {
    const array = this.#array;
    if (array === undefined) throw new ClosedError("this TensorMap", "pass it to a kernel");
    if (array.isClosed) throw new ClosedError(`the array of this TensorMap (${array.dtype.name} [${array.shape.join(", ")}])`, "pass the map to a kernel");
    new Uint8Array(dv.buffer, dv.byteOffset + offset, CUtensorMap_st.$size).set(this.#map.$bytes());
  }
  [kDescribeArgument](): string {
    const b = this.box === undefined ? "" : `, box [${this.box.join(", ")}]`;
    return `a ${this.rank}D ${this.dataType} TensorMap (${this.kind}${b})`;
  }

  /** Marks the map unusable and drops its array (nothing native to free). */
  close(): void {
    this.#array = undefined;
  }

  [Symbol.dispose](): void {
    this.close();
  }

  override toString(): string {
    return `TensorMap(${this.kind}, ${this.dataType}, rank ${this.rank}${this.box === undefined ? "" : `, box [${this.box.join(", ")}]`})`;
  }
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** A CUtensorMap record at a 64-byte-aligned address (the struct is `alignas(64)`). */
function alignedMap(): CUtensorMap_st {
  const size = CUtensorMap_st.$size;
  const buf = new ArrayBuffer(size + 64);
  const at = ffi.addressOf(ffi.pointerOf(buf));
  return new CUtensorMap_st(buf, (64 - (at % 64)) % 64);
}

/** @internal The map's record (for tests). */
export function tensorMapRecord(m: TensorMap): CUtensorMap_st {
  return mapHolder(m);
}
