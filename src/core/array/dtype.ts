/**
 * Array element types (dtypes): their sizes, C types, the typed arrays that hold them on the host, and their codes
 * in the CUDA Array Interface (`typestr`) and in DLPack (`DLDataType`).
 *
 * On the host, float16 and bfloat16 are held as their raw bits in a Uint16Array (`encodeHalf`/`decodeHalf` and the
 * bfloat16 pair convert), complex64 and complex128 as interleaved (re, im) pairs in a Float32Array/Float64Array, and
 * bool as bytes (0 or 1) in a Uint8Array.
 *
 * @module
 */
import { DTypeError } from "./errors.ts";
import type { ScalarKind } from "../launch/mangling.ts";
import { toBFloat16Bits, toHalfBits } from "../launch/scalars.ts";
import { describeValue } from "../../errors/describe.ts";

/** The names of the array dtypes. */
export type DTypeName =
  | "bool"
  | "int8"
  | "uint8"
  | "int16"
  | "uint16"
  | "int32"
  | "uint32"
  | "int64"
  | "uint64"
  | "float16"
  | "bfloat16"
  | "float32"
  | "float64"
  | "complex64"
  | "complex128";

/** The typed arrays that hold array elements on the host. */
export type HostArray = Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array | Float32Array | Float64Array;

/** The host typed array of each dtype. */
export interface HostArrayOf {
  bool: Uint8Array;
  int8: Int8Array;
  uint8: Uint8Array;
  int16: Int16Array;
  uint16: Uint16Array;
  int32: Int32Array;
  uint32: Uint32Array;
  int64: BigInt64Array;
  uint64: BigUint64Array;
  float16: Uint16Array;
  bfloat16: Uint16Array;
  float32: Float32Array;
  float64: Float64Array;
  complex64: Float32Array;
  complex128: Float64Array;
}

/** The dtype a typed array holds by default (what `DeviceArray.from` makes of it without `{ dtype }`). */
export type DefaultDTypeOf<T> = T extends Float32Array
  ? "float32"
  : T extends Float64Array
    ? "float64"
    : T extends Int32Array
      ? "int32"
      : T extends Uint32Array
        ? "uint32"
        : T extends Int16Array
          ? "int16"
          : T extends Uint16Array
            ? "uint16"
            : T extends Int8Array
              ? "int8"
              : T extends Uint8Array | Uint8ClampedArray
                ? "uint8"
                : T extends BigInt64Array
                  ? "int64"
                  : T extends BigUint64Array
                    ? "uint64"
                    : DTypeName;

/** A constructor of a host typed array. */
export interface HostArrayConstructor<T extends HostArray = HostArray> {
  new (length: number): T;
  new (buffer: ArrayBuffer, byteOffset?: number, length?: number): T;
  readonly BYTES_PER_ELEMENT: number;
  readonly name: string;
}

/** The DLPack type codes (`DLDataTypeCode`). */
export const DLDataTypeCode = Object.freeze({ kDLInt: 0, kDLUInt: 1, kDLFloat: 2, kDLOpaqueHandle: 3, kDLBfloat: 4, kDLComplex: 5, kDLBool: 6 });

/** An element type. */
export interface DType<N extends DTypeName = DTypeName> {
  /** The name ("float32"). */
  readonly name: N;
  /** Bytes per element. */
  readonly itemsize: number;
  /** The kind: b(ool), i(nt), u(nsigned), f(loat), c(omplex), as NumPy. */
  readonly kind: "b" | "i" | "u" | "f" | "c";
  /** The kernel scalar kind of one element (what `f32(...)` etc. pass), for launch checks. */
  readonly scalar: ScalarKind;
  /** The C++ type in generated kernels. */
  readonly ctype: string;
  /** The host typed array that holds it. */
  readonly hostArray: HostArrayConstructor;
  /** How many host typed-array entries make one element (2 for complex, 1 otherwise). */
  readonly lanes: number;
  /** The CUDA Array Interface / NumPy array-interface typestr ("<f4"). */
  readonly typestr: string;
  /** DLPack's DLDataType: code, bits, lanes. */
  readonly dlpack: { readonly code: number; readonly bits: number; readonly lanes: number };
}

function dt<N extends DTypeName>(
  name: N,
  itemsize: number,
  kind: DType["kind"],
  scalar: ScalarKind,
  ctype: string,
  hostArray: HostArrayConstructor,
  typestr: string,
  code: number,
): DType<N> {
  const lanes = kind === "c" ? 2 : 1;
  return Object.freeze({ name, itemsize, kind, scalar, ctype, hostArray, lanes, typestr, dlpack: Object.freeze({ code, bits: itemsize * 8, lanes: 1 }) });
}

const C = DLDataTypeCode;

/** Every dtype, by name. */
export const dtypes: { readonly [N in DTypeName]: DType<N> } = Object.freeze({
  bool: dt("bool", 1, "b", "bool", "bool", Uint8Array, "|b1", C.kDLBool),
  int8: dt("int8", 1, "i", "i8", "signed char", Int8Array, "|i1", C.kDLInt),
  uint8: dt("uint8", 1, "u", "u8", "unsigned char", Uint8Array, "|u1", C.kDLUInt),
  int16: dt("int16", 2, "i", "i16", "short", Int16Array, "<i2", C.kDLInt),
  uint16: dt("uint16", 2, "u", "u16", "unsigned short", Uint16Array, "<u2", C.kDLUInt),
  int32: dt("int32", 4, "i", "i32", "int", Int32Array, "<i4", C.kDLInt),
  uint32: dt("uint32", 4, "u", "u32", "unsigned int", Uint32Array, "<u4", C.kDLUInt),
  int64: dt("int64", 8, "i", "i64", "long long", BigInt64Array, "<i8", C.kDLInt),
  uint64: dt("uint64", 8, "u", "u64", "unsigned long long", BigUint64Array, "<u8", C.kDLUInt),
  float16: dt("float16", 2, "f", "f16", "__half", Uint16Array, "<f2", C.kDLFloat),
  // NumPy has no bfloat16: its array-interface typestr is a 2-byte void, as ml_dtypes spells it.
  bfloat16: dt("bfloat16", 2, "f", "bf16", "__nv_bfloat16", Uint16Array, "<V2", C.kDLBfloat),
  float32: dt("float32", 4, "f", "f32", "float", Float32Array, "<f4", C.kDLFloat),
  float64: dt("float64", 8, "f", "f64", "double", Float64Array, "<f8", C.kDLFloat),
  complex64: dt("complex64", 8, "c", "complex64", "cuda::std::complex<float>", Float32Array, "<c8", C.kDLComplex),
  complex128: dt("complex128", 16, "c", "complex128", "cuda::std::complex<double>", Float64Array, "<c16", C.kDLComplex),
});

/** Every dtype name. */
export const DTYPE_NAMES: readonly DTypeName[] = Object.freeze(Object.keys(dtypes) as DTypeName[]);

/** A dtype, or its name. */
export type DTypeLike = DTypeName | DType;

/** The dtype of a name (or the dtype itself); DTypeError for anything else. */
export function dtypeOf<N extends DTypeName>(d: N | DType<N>): DType<N>;
export function dtypeOf(d: DTypeLike): DType;
export function dtypeOf(d: DTypeLike): DType {
  if (typeof d === "string" && Object.hasOwn(dtypes, d)) return dtypes[d];
  if (typeof d === "object" && d !== null && Object.hasOwn(dtypes, (d as DType).name) && dtypes[(d as DType).name] === d) return d;
  throw new DTypeError(`expected a dtype (one of ${DTYPE_NAMES.join(", ")}), got ${describeValue(d)}`);
}

/** The dtype a typed array holds by default (Uint16Array → uint16, Float32Array → float32, ...). */
export function dtypeOfHostArray(a: unknown): DType {
  if (a instanceof Float32Array) return dtypes.float32;
  if (a instanceof Float64Array) return dtypes.float64;
  if (a instanceof Int32Array) return dtypes.int32;
  if (a instanceof Uint32Array) return dtypes.uint32;
  if (a instanceof Int8Array) return dtypes.int8;
  if (a instanceof Uint8Array || a instanceof Uint8ClampedArray) return dtypes.uint8;
  if (a instanceof Int16Array) return dtypes.int16;
  if (a instanceof Uint16Array) return dtypes.uint16;
  if (a instanceof BigInt64Array) return dtypes.int64;
  if (a instanceof BigUint64Array) return dtypes.uint64;
  throw new DTypeError(
    `expected a typed array (Float32Array, Int32Array, BigInt64Array, ...), got ${describeValue(a)}; for float16/bfloat16 pass their bits in a Uint16Array with { dtype }`,
  );
}

/**
 * Checks that a typed array can hold `dtype` on the host (the same bytes per entry and the same kind of entry:
 * float32 in a Float32Array, float16 bits in a Uint16Array, complex64 pairs in a Float32Array, ...).
 */
export function checkHostArray(a: unknown, dtype: DType, what: string): HostArray {
  const expected = dtype.hostArray;
  const ok =
    a instanceof expected ||
    (dtype.name === "uint8" && a instanceof Uint8ClampedArray) ||
    (dtype.name === "bool" && (a instanceof Uint8ClampedArray || a instanceof Int8Array));
  if (!ok) {
    throw new DTypeError(`${what}: a ${dtype.name} array is held in a ${expected.name} on the host, got ${describeValue(a)}`);
  }
  return a as HostArray;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float16 bits of a number (round to nearest even). */
export function encodeHalf(x: number): number {
  return toHalfBits(x);
}

/** The number float16 bits stand for. */
export function decodeHalf(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const e = (bits >> 10) & 0x1f;
  const f = bits & 0x3ff;
  if (e === 0) return sign * f * 2 ** -24;
  if (e === 0x1f) return f === 0 ? sign * Infinity : NaN;
  return sign * (1 + f / 1024) * 2 ** (e - 15);
}

/** bfloat16 bits of a number (round to nearest even). */
export function encodeBFloat16(x: number): number {
  return toBFloat16Bits(x);
}

/** The number bfloat16 bits stand for (exact: bfloat16 is the top half of a float32). */
export function decodeBFloat16(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0]!;
}

/**
 * A host typed array of `n` elements of `dtype` (complex: 2n entries), over an explicit ArrayBuffer (whose storage
 * never moves while native code copies into it).
 */
export function allocateHostArray(dtype: DType, n: number): HostArray {
  const entries = n * dtype.lanes;
  return new dtype.hostArray(new ArrayBuffer(entries * dtype.hostArray.BYTES_PER_ELEMENT), 0, entries);
}
