/**
 * cuda-ts's FFI layer: one runtime-neutral interface over bun:ffi (Bun) and Deno.dlopen (Deno).
 *
 * Importing this module picks the backend of the running runtime once; under any other runtime (Node.js) it throws
 * at once, because there is no FFI to drive.
 *
 * Value rules, identical on both runtimes (types.ts has the type-level statement):
 * - 8/16/32-bit integers, `float` and `double` are `number`; `bool` is `boolean`.
 * - 64-bit integers (`int64_t`, `uint64_t`, `size_t`, `CUdeviceptr`) come back as `bigint`; as arguments they
 *   accept `bigint` or `number`.
 * - Pointers and handles are branded {@link Pointer} values (`Handle<"CUstream_st">` for `CUstream` and `cudaStream_t`, `FunctionPointer<...>`): a
 *   number on Bun, a pointer object on Deno, never inspected by users; `null` is NULL. Use {@link ffi}'s helpers
 *   (`addressOf`, `pointerFromAddress`, `offsetPointer`, `samePointer`) instead of arithmetic or `===`.
 * - Structs passed by value are `Uint8Array`s of the struct's bytes, in both directions. Pass at least the struct's
 *   size: Bun checks (it copies the bytes into registers and stack words), Deno's FFI reads past a shorter buffer.
 * - Bun cannot call a function returning a 9–16-byte struct in two registers, nor one of more than 32 (lowered)
 *   arguments; `ffi.unsupportedReason(type, name)` says so ahead of the call, and the call throws
 *   {@link UnsupportedOnRuntimeError}. Deno can call them.
 * - Memory whose address is given to C must be an explicit `new ArrayBuffer(n)` (or a view over one), kept alive
 *   while C uses it: {@link Scratch} for out-parameters, `ffi.cstring` for strings.
 * - Deno rejects `-0` and non-integers for integer parameters ("Invalid FFI i32 type, expected integer"); pass
 *   integers.
 *
 * @module
 */
export { ffi, NO_FFI_MESSAGE } from "./current.ts";
export { UnsupportedRuntimeError } from "./no-ffi.ts";
export type {
  ArgValues,
  BindAtOptions,
  BindOptions,
  CallbackArgValues,
  CallbackFunction,
  CallbackOptions,
  FfiBackend,
  NativeCallback,
  NativeFunction,
  NativeLibrary,
  NonblockingNativeFunction,
  OpenOptions,
} from "./backend.ts";
export { LibraryClosedError, LibraryLoadError, StructValueError, SymbolNotFoundError, UnsupportedOnRuntimeError } from "./errors.ts";
export { Scratch } from "./memory.ts";
/** libc's dynamic loader: `dlopen`, `dlsym`, `dlerror`, `dlclose`, `loadedPath` and the `RTLD_*` flags. */
export * as dl from "./dl.ts";
export * from "./types.ts";
export { classifyStruct, leafSize } from "./abi.ts";
