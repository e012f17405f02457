/**
 * The runtime-neutral FFI interface. One implementation per runtime: `bun.ts` (bun:ffi) and `deno.ts`
 * (Deno.dlopen); `current.ts` picks the one this process runs on. Nothing outside those two modules touches a
 * runtime's FFI.
 *
 * Value rules are those of {@link ArgValue} and {@link ResultValue} in types.ts.
 *
 * @module
 */
import type {
  ArgValue,
  FunctionPointer,
  FunctionType,
  NativePointer,
  NativeType,
  Pointer,
  ResultValue,
} from "./types.ts";

/** The JavaScript argument list of a native parameter list. */
export type ArgValues<P extends readonly NativeType[]> = { -readonly [K in keyof P]: ArgValue<P[K]> };

/** The JavaScript values native code hands to a callback, one per native parameter. */
export type CallbackArgValues<P extends readonly NativeType[]> = { -readonly [K in keyof P]: ResultValue<P[K]> };

/**
 * A bound native function. Whenever no argument or result needs converting, this is the runtime's own native
 * function object (no JavaScript wrapper on the hot path).
 */
export type NativeFunction<T extends FunctionType> = (...args: ArgValues<T["parameters"]>) => ResultValue<T["result"]>;

/** A native function bound with `nonblocking: true` (Deno): it runs on a worker thread and returns a Promise. */
export type NonblockingNativeFunction<T extends FunctionType> = (
  ...args: ArgValues<T["parameters"]>
) => Promise<ResultValue<T["result"]>>;

/** The JavaScript function behind a native callback of type `T`. */
export type CallbackFunction<T extends FunctionType> = (
  ...args: CallbackArgValues<T["parameters"]>
) => T["result"] extends "void" ? void : ArgValue<T["result"]>;

/** Options of {@link NativeLibrary.bind}. */
export interface BindOptions {
  /**
   * Run the call on a worker thread and return a Promise (Deno only; Bun throws
   * {@link UnsupportedOnRuntimeError}). For long blocking calls such as `cuStreamSynchronize`.
   */
  readonly nonblocking?: boolean;
}

/** Options of {@link NativeLibrary.bindAt}. */
export interface BindAtOptions extends BindOptions {
  /**
   * The exported name the address is believed to belong to. On Deno, when `dlsym(handle, nameHint)` yields exactly
   * this address the function is bound by name through `Deno.dlopen` (fast calls, ~10 ns) instead of
   * `Deno.UnsafeFnPointer` (~1.3 µs a call).
   */
  readonly nameHint?: string;
}

/** Options of {@link FfiBackend.openLibrary}. */
export interface OpenOptions {
  /** `dlopen` flags (see dl.ts); default `RTLD_NOW` (local binding). */
  readonly flags?: number;
}

/** Options of {@link FfiBackend.callback}. */
export interface CallbackOptions {
  /**
   * The callback may be called from a thread other than the JavaScript thread (CUDA host functions, stream
   * callbacks). Deno only: Bun throws {@link UnsupportedOnRuntimeError}.
   */
  readonly threadSafe?: boolean;
}

/** A JavaScript function made callable from native code. */
export interface NativeCallback {
  /** The native function pointer to hand to C. Valid until {@link NativeCallback.close}. */
  readonly pointer: FunctionPointer<string>;
  /** Releases the trampoline. Native code must not call the pointer afterwards. Idempotent. */
  close(): void;
  /**
   * Makes the callback keep the event loop alive (Deno: `UnsafeCallback.ref()`, counted). A `threadSafe: true`
   * callback starts referenced once. No effect on Bun.
   */
  ref(): void;
  /** Undoes one {@link NativeCallback.ref}: an unreferenced callback can still be called. No effect on Bun. */
  unref(): void;
}

/** A loaded shared library. */
export interface NativeLibrary {
  /** The path or soname exactly as it was opened. */
  readonly path: string;
  /** The `dlopen` handle (usable with dl.ts: `dlsym`, `loadedPath`). */
  readonly handle: NativePointer;
  /** The address of an exported symbol (`dlsym`), or `null` when the library does not export it. */
  symbol(name: string): Pointer;
  /**
   * Binds an exported function by name. Returns `null` when the symbol is missing (never throws for that).
   *
   * On Bun, a signature that bun:ffi cannot express (a 9–16-byte struct returned in two registers) binds to a
   * function that throws {@link UnsupportedOnRuntimeError} when called; {@link FfiBackend.unsupportedReason}
   * says so ahead of time.
   */
  bind<T extends FunctionType>(
    name: string,
    type: T,
    options: BindOptions & { readonly nonblocking: true },
  ): NonblockingNativeFunction<T> | null;
  bind<T extends FunctionType>(
    name: string,
    type: T,
    options?: BindOptions & { readonly nonblocking?: false },
  ): NativeFunction<T> | null;
  bind<T extends FunctionType>(
    name: string,
    type: T,
    options?: BindOptions,
  ): NativeFunction<T> | NonblockingNativeFunction<T> | null;
  /**
   * Binds a function known only by its address (for example from `cuGetProcAddress`).
   *
   * @param address - the function's entry point.
   * @param type - its signature.
   * @param options - `nameHint` enables Deno's fast path; `nonblocking` as for {@link NativeLibrary.bind}.
   */
  bindAt<T extends FunctionType>(
    address: NativePointer,
    type: T,
    options: BindAtOptions & { readonly nonblocking: true },
  ): NonblockingNativeFunction<T>;
  bindAt<T extends FunctionType>(
    address: NativePointer,
    type: T,
    options?: BindAtOptions & { readonly nonblocking?: false },
  ): NativeFunction<T>;
  bindAt<T extends FunctionType>(
    address: NativePointer,
    type: T,
    options?: BindAtOptions,
  ): NativeFunction<T> | NonblockingNativeFunction<T>;
  /**
   * Releases the library (`dlclose`) and every runtime object bound from it. Functions bound from it must not be
   * called afterwards. Idempotent.
   */
  close(): void;
}

/** One runtime's FFI, behind the runtime-neutral vocabulary of types.ts. */
export interface FfiBackend {
  /** The runtime this backend drives. */
  readonly runtime: "bun" | "deno";
  /** Whether `nonblocking: true` is available (Deno). */
  readonly supportsNonblocking: boolean;
  /** Whether `threadSafe: true` callbacks are available (Deno). */
  readonly supportsThreadSafeCallbacks: boolean;

  /**
   * Loads a shared library.
   *
   * @param pathOrSoname - an absolute path, or a soname searched the system loader's way.
   * @throws {@link LibraryLoadError} with the loader's message when it cannot be loaded.
   */
  openLibrary(pathOrSoname: string, options?: OpenOptions): NativeLibrary;
  /**
   * Why this runtime cannot call a function of this signature, or `null` when it can.
   *
   * @param type - the signature.
   * @param name - the function's name, used in the explanation.
   */
  unsupportedReason(type: FunctionType, name?: string): string | null;

  /**
   * The address of the first byte of a view's memory. Take it from views over an explicit `new ArrayBuffer(n)`
   * (whose storage never moves; Bun issue 32054) and keep the view alive while native code uses the address.
   */
  pointerOf(view: ArrayBuffer | ArrayBufferView): NativePointer;
  /** The address as a number (0 for NULL). Exact: user-space addresses fit in 53 bits. */
  addressOf(p: Pointer): number;
  /** The address as a bigint (0n for NULL). */
  bigAddressOf(p: Pointer): bigint;
  /** The pointer at an address (`null` for 0). */
  pointerFromAddress(address: number | bigint): Pointer;
  /** `p + bytes`. */
  offsetPointer(p: NativePointer, bytes: number): NativePointer;
  /** Whether `p` is NULL. */
  isNull(p: Pointer): p is null;
  /**
   * Whether `value` is a {@link Pointer} of this runtime: `null`, or a pointer value as the FFI hands them out (Bun:
   * a non-negative integer number, or a bigint below 2^64 for a handle past 2^53; Deno: a pointer object). What the
   * bindings check a pointer argument with before a native call; it cannot tell a valid address from a stale one.
   */
  isPointer(value: unknown): value is Pointer;
  /** Whether two pointers hold the same address. */
  samePointer(a: Pointer, b: Pointer): boolean;

  /**
   * A zero-copy `ArrayBuffer` over native memory. The memory is not owned: it is never freed by the runtime and
   * must outlive the buffer. A zero length gives an empty, detached-from-nothing `ArrayBuffer`.
   */
  view(p: NativePointer, byteLength: number): ArrayBuffer;
  /** Reads a pointer stored at `byteOffset` in a DataView (native byte order). */
  readPointer(dv: DataView, byteOffset: number): Pointer;
  /** Stores a pointer at `byteOffset` in a DataView (native byte order). */
  writePointer(dv: DataView, byteOffset: number, p: Pointer): void;
  /** Copies the NUL-terminated UTF-8 string at `p + byteOffset`; `null` when `p` is NULL. */
  readCString(p: Pointer, byteOffset?: number): string | null;
  /** Encodes a string as UTF-8 plus a NUL byte, in a fresh buffer whose storage never moves. */
  cstring(s: string): Uint8Array;

  /** Reads an `int8_t` at `p + byteOffset`. */
  readI8(p: NativePointer, byteOffset?: number): number;
  /** Reads a `uint8_t` at `p + byteOffset`. */
  readU8(p: NativePointer, byteOffset?: number): number;
  /** Reads an `int16_t` at `p + byteOffset`. */
  readI16(p: NativePointer, byteOffset?: number): number;
  /** Reads a `uint16_t` at `p + byteOffset`. */
  readU16(p: NativePointer, byteOffset?: number): number;
  /** Reads an `int32_t` at `p + byteOffset`. */
  readI32(p: NativePointer, byteOffset?: number): number;
  /** Reads a `uint32_t` at `p + byteOffset`. */
  readU32(p: NativePointer, byteOffset?: number): number;
  /** Reads a `uint64_t` at `p + byteOffset`. */
  readU64(p: NativePointer, byteOffset?: number): bigint;
  /** Reads an `int64_t` at `p + byteOffset`. */
  readI64(p: NativePointer, byteOffset?: number): bigint;
  /** Reads a `float` at `p + byteOffset`. */
  readF32(p: NativePointer, byteOffset?: number): number;
  /** Reads a `double` at `p + byteOffset`. */
  readF64(p: NativePointer, byteOffset?: number): number;
  /** Reads a pointer at `p + byteOffset`. */
  readPointerAt(p: NativePointer, byteOffset?: number): Pointer;

  /**
   * Makes a JavaScript function callable from native code. Keep the returned object alive, and close it, for as
   * long as native code may call it.
   *
   * @throws {@link UnsupportedOnRuntimeError} for `threadSafe: true` on Bun (its JSCallback corrupts the heap when
   * called from a foreign thread: Bun issues 24529, 28113, 33840, 41857), and for struct parameters or results on
   * Bun.
   */
  callback<T extends FunctionType>(type: T, fn: CallbackFunction<T>, options?: CallbackOptions): NativeCallback;
}
