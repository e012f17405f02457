/**
 * Shared fixtures of the FFI tests: struct layouts of libc, libm and libclang types, and library paths.
 *
 * @module
 */
import { classifyStruct, type LeafType, type StructType } from "../../src/ffi/index.ts";

/** libclang as installed on the test machines. */
export const LIBCLANG = "/usr/lib/llvm-19/lib/libclang-19.so.1";

/**
 * A struct type from its C layout; the passing class comes from `classifyStruct`, as the generator records it.
 *
 * @param name - the C name.
 * @param size - `sizeof`.
 * @param align - `_Alignof`.
 * @param leaves - `[offset, type]` for every scalar leaf.
 */
export function struct(name: string, size: number, align: number, leaves: [number, LeafType][]): StructType {
  const ls = leaves.map(([offset, type]) => ({ offset, type }));
  return { struct: { name, size, align, leaves: ls, passing: classifyStruct(size, align, ls) } };
}

/** `struct in_addr { in_addr_t s_addr; }`: 4 bytes, INTEGER. */
export const InAddr = struct("in_addr", 4, 4, [[0, "u32"]]);
/** `div_t { int quot; int rem; }`: 8 bytes, INTEGER. */
export const DivT = struct("div_t", 8, 4, [
  [0, "i32"],
  [4, "i32"],
]);
/** `ldiv_t { long quot; long rem; }`: 16 bytes, INTEGER + INTEGER (RAX:RDX as a result). */
export const LdivT = struct("ldiv_t", 16, 8, [
  [0, "i64"],
  [8, "i64"],
]);
/** `float _Complex`, laid out and passed like `struct { float re, im; }`: 8 bytes, SSE. */
export const ComplexFloat = struct("float _Complex", 8, 4, [
  [0, "f32"],
  [4, "f32"],
]);
/** `double _Complex`, like `struct { double re, im; }`: 16 bytes, SSE + SSE. */
export const ComplexDouble = struct("double _Complex", 16, 8, [
  [0, "f64"],
  [8, "f64"],
]);
/** libclang `CXCursor { enum CXCursorKind kind; int xdata; const void *data[3]; }`: 32 bytes, MEMORY. */
export const CXCursor = struct("CXCursor", 32, 8, [
  [0, "i32"],
  [4, "i32"],
  [8, "pointer"],
  [16, "pointer"],
  [24, "pointer"],
]);
/** libclang `CXString { const void *data; unsigned private_flags; }`: 16 bytes, INTEGER + INTEGER. */
export const CXString = struct("CXString", 16, 8, [
  [0, "pointer"],
  [8, "u32"],
]);
/** libclang `CXSourceLocation { const void *ptr_data[2]; unsigned int_data; }`: 24 bytes, MEMORY. */
export const CXSourceLocation = struct("CXSourceLocation", 24, 8, [
  [0, "pointer"],
  [8, "pointer"],
  [16, "u32"],
]);
/** libclang `CXSourceRange { const void *ptr_data[2]; unsigned begin_int_data, end_int_data; }`: 24 bytes, MEMORY. */
export const CXSourceRange = struct("CXSourceRange", 24, 8, [
  [0, "pointer"],
  [8, "pointer"],
  [16, "u32"],
  [20, "u32"],
]);
/** libclang `CXType { enum CXTypeKind kind; void *data[2]; }`: 24 bytes, MEMORY. */
export const CXType = struct("CXType", 24, 8, [
  [0, "i32"],
  [8, "pointer"],
  [16, "pointer"],
]);

/** Reads the `i32` at `offset` of a struct's bytes. */
export function i32At(bytes: Uint8Array, offset: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getInt32(offset, true);
}

/** The bytes of `values` as `float`s (in an explicit ArrayBuffer). */
export function f32Bytes(...values: number[]): Uint8Array {
  return new Uint8Array(new Float32Array(values).buffer);
}

/** The bytes of `values` as `double`s. */
export function f64Bytes(...values: number[]): Uint8Array {
  return new Uint8Array(new Float64Array(values).buffer);
}
