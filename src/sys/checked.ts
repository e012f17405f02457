/**
 * What the generated checked call style (generated/cuda-X.Y/<library>/checked.ts) needs from the bindings layer:
 * reusable output slots, input conversions, and the library's typed error. One instance serves one library.
 *
 * @module
 */
import type { NativePointer, Pointer } from "../ffi/types.ts";
import type { RecordBase } from "./record.ts";

/** What a checked function accepts for a C data-pointer input. */
export type PointerLike = Pointer | ArrayBuffer | ArrayBufferView | RecordBase;

/** The services a generated checked table calls. */
export interface CheckedRuntime {
  /** Native pointers to the output slots: 16 slots of 8 bytes each, reused by every call. */
  readonly out: readonly NativePointer[];
  /** Views over the output slots (slot k starts at byte 8k: i32[2k], u64[k], ...). */
  readonly i8: Int8Array;
  readonly u8: Uint8Array;
  readonly i16: Int16Array;
  readonly u16: Uint16Array;
  readonly i32: Int32Array;
  readonly u32: Uint32Array;
  readonly f32: Float32Array;
  readonly f64: Float64Array;
  readonly i64: BigInt64Array;
  readonly u64: BigUint64Array;
  /** The pointer an output slot holds. */
  readPointer(slot: number): Pointer;
  /** The C string an output slot points to (copied), or null. */
  readString(slot: number): string | null;
  /** Converts a pointer-like input to a native pointer. */
  ptr(value: PointerLike): Pointer;
  /**
   * A `const char*` input: a string is encoded as a NUL-terminated UTF-8 C string in reusable buffer `index`;
   * bytes or a pointer pass through (for `const char*` buffers with a length, such as NVVM IR).
   */
  cstr(value: string | PointerLike, index: number): Pointer;
  /**
   * Encodes an array of strings as a native array of C string pointers in reusable buffer `index` (the strings
   * and the array stay valid until the next call that uses the same index); a pointer-like value passes through.
   */
  cstrs(value: readonly string[] | PointerLike, index: number): Pointer;
  /** The bytes of a struct passed by value. */
  bytes(value: Uint8Array | RecordBase): Uint8Array;
  /** Decodes a `const char*` result (copied), or null. */
  string(pointer: Pointer): string | null;
  /**
   * Throws the library's typed error for a failed call. `subject` is the call's first argument when it is a
   * handle (an NVRTC program, an nvJitLink handle), so the error can carry that object's log.
   */
  fail(code: number | bigint, fn: string, subject?: unknown): never;
}
