/**
 * Runtime-neutral FFI vocabulary shared by the generated tables (generated/cuda-X.Y), the two backends
 * (bun:ffi and Deno.dlopen) and everything above them.
 *
 * Rules for values crossing the boundary, identical on both runtimes:
 * - 8/16/32-bit integers, f32 and f64 are `number`; `bool` is `boolean`.
 * - 64-bit integers (`i64`, `u64`: size_t, CUdeviceptr, unsigned long long) are `bigint` when they come back;
 *   arguments accept `bigint` or `number`.
 * - Pointers and opaque handles are {@link Pointer}: a value users pass back and never inspect. It is a number on
 *   Bun and a pointer object on Deno; no conversion happens on the hot path. `null` is the NULL pointer on both.
 * - Structs passed by value are byte buffers (`Uint8Array`) in both directions.
 *
 * @module
 */

declare const pointerBrand: unique symbol;
declare const handleBrand: unique symbol;
declare const callbackBrand: unique symbol;

/** A non-NULL native pointer. Opaque: a number on Bun, a `Deno.PointerObject` on Deno. */
export type NativePointer = { readonly [pointerBrand]: true };

/** A native pointer or NULL (`null`). */
export type Pointer = NativePointer | null;

/**
 * An opaque C handle (a pointer to an incomplete struct, such as `CUstream`). Distinct handle kinds do not mix:
 * a `CUevent` is not assignable to a `CUstream`. `null` is the NULL handle (for streams: the default stream).
 */
export type Handle<Name extends string> = (NativePointer & { readonly [handleBrand]: Name }) | null;

/** A native function pointer of a given C function-pointer type (for example `CUhostFn`). */
export type FunctionPointer<Name extends string> = (NativePointer & { readonly [callbackBrand]: Name }) | null;

/** The scalar native types. `pointer` covers every data pointer; `function` a function pointer. */
export type ScalarType =
  | "void"
  | "bool"
  | "i8"
  | "u8"
  | "i16"
  | "u16"
  | "i32"
  | "u32"
  | "i64"
  | "u64"
  | "f32"
  | "f64"
  | "pointer"
  | "function";

/** A scalar that can be a struct member (a leaf of a flattened struct). */
export type LeafType = Exclude<ScalarType, "void">;

/**
 * The x86-64 System V class of one eightbyte of a struct passed in registers. `NONE` (the psABI's NO_CLASS) is an
 * eightbyte of padding only, as in a 16-byte-aligned `struct { int i; }`: it occupies no register.
 */
export type EightbyteClass = "INTEGER" | "SSE" | "NONE";

/** How a struct passed or returned by value travels on x86-64 System V. */
export type StructPassing =
  /** In registers: one class per eightbyte (one or two eightbytes). */
  | { readonly kind: "registers"; readonly classes: readonly EightbyteClass[] }
  /** In memory: on the stack as an argument, through a hidden pointer as a result. */
  | { readonly kind: "memory" };

/** The layout of a struct that crosses the FFI by value. */
export interface StructLayout {
  /** The C name, for messages. */
  readonly name: string;
  /** `sizeof`, in bytes. */
  readonly size: number;
  /** `_Alignof`, in bytes. */
  readonly align: number;
  /** Every scalar leaf with its byte offset, in memory order (arrays and nested records flattened). */
  readonly leaves: readonly { readonly offset: number; readonly type: LeafType }[];
  /** Its x86-64 System V passing class (computed by `classifyStruct` in abi.ts). */
  readonly passing: StructPassing;
}

/** A struct passed or returned by value. */
export interface StructType {
  readonly struct: StructLayout;
}

/** Any native type. */
export type NativeType = ScalarType | StructType;

/** A C function's native signature. */
export interface FunctionType {
  readonly parameters: readonly NativeType[];
  readonly result: NativeType;
}

/** The JavaScript type a native type takes as an argument. */
export type ArgValue<T extends NativeType> = T extends "void"
  ? undefined
  : T extends "bool"
    ? boolean
    : T extends "i64" | "u64"
      ? bigint | number
      : T extends "pointer" | "function"
        ? Pointer
        : T extends StructType
          ? Uint8Array
          : number;

/** The JavaScript type a native type takes as a result. */
export type ResultValue<T extends NativeType> = T extends "void"
  ? undefined
  : T extends "bool"
    ? boolean
    : T extends "i64" | "u64"
      ? bigint
      : T extends "pointer" | "function"
        ? Pointer
        : T extends StructType
          ? Uint8Array
          : number;

/** A 64-bit address as a bigint (for example the value of a pointer-valued `#define`). */
export type NativeAddress = bigint & { readonly __nativeAddress: true };

/** Marks a bigint as a native address (used by generated constants). */
export function address(value: bigint): NativeAddress {
  return value as NativeAddress;
}
