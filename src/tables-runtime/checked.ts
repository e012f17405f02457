/**
 * What the generated checked call style (generated/cuda-X.Y/<library>/checked.ts) needs from the bindings layer:
 * reusable output slots, input conversions, and the library's typed error. One instance serves one library.
 *
 * @module
 */
import type { NativePointer, Pointer } from "../ffi/types.ts";
import type { ArgumentKind } from "./argument-checks.ts";
import type { RecordBase, RecordClass } from "./record.ts";

/** What a checked function accepts for a C data-pointer input. */
export type PointerLike = Pointer | ArrayBuffer | ArrayBufferView | RecordBase;

/** How one element of an array output is stored and decoded. */
export type ArrayElement =
  | { readonly kind: "i8" | "u8" | "i16" | "u16" | "i32" | "u32" | "i64" | "u64" | "f32" | "f64"; readonly size: number }
  | { readonly kind: "pointer"; readonly size: 8 }
  | { readonly kind: "string"; readonly size: 1 }
  | { readonly kind: "record"; readonly size: number; readonly cls: RecordClass<RecordBase> };

/**
 * The array outputs of one function (generated once per function): their elements, where the in/out count lives,
 * whether the library reports the size it needs when asked with no array, and which statuses mean "too small".
 */
export interface ArraySpec {
  readonly elements: readonly ArrayElement[];
  /** The in/out count's output slot and width; null when the count is passed by value (or fixed). */
  readonly count: { readonly slot: number; readonly bytes: number } | null;
  /** Called with NULL arrays and a count of 0, the function writes the count it needs. */
  readonly query: boolean;
  /** Status codes meaning "the arrays are too small; the count now holds the size needed". */
  readonly retry: readonly number[];
}

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
  /** Whether a value is a native pointer of this runtime (null included): the FFI backend's `isPointer`. */
  readonly isPointer: (value: unknown) => boolean;
  /**
   * Throws the typed error for an argument that failed the check of its native type (`kind`: "u32", "pointer",
   * "struct", ...), before any native call.
   */
  bad(fn: string, param: string, kind: ArgumentKind, value: unknown): never;
  /** Throws the typed error for a call with `got` arguments; `names`: the parameters, comma-separated; `min` required. */
  arity(fn: string, names: string, min: number, got: number): never;
  /**
   * Converts a pointer-like input to a native pointer; anything else (undefined, a number on Deno, a string, a
   * plain object) is a typed error naming `fn` and `param`.
   */
  ptr(value: PointerLike, fn?: string, param?: string): Pointer;
  /**
   * A `const char*` input: a string is encoded as a NUL-terminated UTF-8 C string in reusable buffer `index` (a
   * string holding NUL is refused); bytes or a pointer pass through (for `const char*` buffers with a length, such
   * as NVVM IR).
   */
  cstr(value: string | PointerLike, index: number, fn?: string, param?: string): Pointer;
  /**
   * A `const char*` input the library reads `size` bytes of (the header ties them): as {@link cstr}, and a size
   * past the string's UTF-8 bytes (and its NUL) or the buffer's bytes is refused.
   */
  cstrSized(value: string | PointerLike, size: number | bigint, index: number, fn: string, param: string, sizeParam: string): Pointer;
  /**
   * Encodes an array of strings as a native array of C string pointers in reusable buffer `index` (the strings
   * and the array stay valid until the next call that uses the same index); a pointer-like value passes through.
   */
  cstrs(value: readonly string[] | PointerLike, index: number, fn?: string, param?: string): Pointer;
  /** The bytes of a struct passed by value. */
  bytes(value: Uint8Array | RecordBase): Uint8Array;
  /**
   * The bytes of a struct of `size` bytes passed by value: a record (of `cls`, when given) or a Uint8Array of at
   * least `size` bytes; anything else is a typed error.
   */
  struct(value: Uint8Array | RecordBase, size: number, fn: string, param: string, cls?: RecordClass<RecordBase>): Uint8Array;
  /** A record the caller passes for a function to fill: a `cls` record (or one of the same C type), else a typed error. */
  recordArg<T extends RecordBase>(value: T, cls: RecordClass<RecordBase>, fn: string, param: string): T;
  /** Debug mode (`CUDA_TS_DEBUG=guards`): scratch memory and allocated records carry guard bytes checked after calls. */
  readonly guards: boolean;
  /** Checks every guard (debug mode); throws GuardError naming `fn` when the call wrote past its memory. */
  check(fn: string): void;
  /** A new zeroed record for an output (with guard bytes in debug mode). */
  record<T extends RecordBase>(cls: RecordClass<T>): T;
  /** `value` when it is not a record of another type than `cls`; a typed error before the call otherwise. */
  expect<V>(value: V, cls: RecordClass<RecordBase>, fn: string, param: string): V;
  /** Checks an element count passed by value (a non-negative integer). */
  count(value: number | bigint, fn: string, param: string): void;
  /**
   * A pointer-like input of `count` elements of `elementSize` bytes (each a `cls` record when given): JavaScript
   * memory must hold them all.
   */
  sized(value: PointerLike, count: number | bigint, elementSize: number, fn: string, param: string, cls?: RecordClass<RecordBase>): Pointer;
  /** Checks that a string array input has at least `count` entries. */
  strings(value: readonly string[] | PointerLike, count: number | bigint, fn: string, param: string): void;
  /** Writes a count (an in/out byte size) into an output slot of `bytes` bytes. */
  writeCount(slot: number, bytes: number, value: number | bigint, fn: string, param: string): void;
  /**
   * Writes a handle into an output slot (for functions that take a pointer to a handle they only read); with `fn`
   * and `param`, anything but a pointer is a typed error.
   */
  writePointer(slot: number, value: Pointer, fn?: string, param?: string): void;
  /**
   * Calls a function with array outputs: asks for the size when the caller gives no capacity and the function can
   * report it, allocates the arrays, calls, retries while the library says they are too small, and returns each
   * array trimmed to the count the library reports. `call` receives the arrays' native pointers (null to ask for
   * the size) and returns the status.
   */
  arrays(fn: string, spec: ArraySpec, capacity: number | bigint | undefined, call: (p: readonly Pointer[]) => number | bigint, subject?: unknown): unknown[];
  /** Decodes a `const char*` result (copied), or null. */
  string(pointer: Pointer): string | null;
  /**
   * Throws the library's typed error for a failed call. `subject` is the call's first argument when it is a
   * handle (an NVRTC program, an nvJitLink handle), so the error can carry that object's log.
   */
  fail(code: number | bigint, fn: string, subject?: unknown): never;
}

/**
 * A checked table whose functions are made on their first call. Each entry starts as a placeholder that, called,
 * makes the function (`makers[name](...args)`), puts it in its place in the table and calls it: from then on the
 * table holds the function itself, and a call costs what a function made up front costs. A placeholder kept in a
 * variable before its first call stays valid (it makes the function once and forwards to it).
 *
 * Making 450 closures over a library's state at import is most of what a checked table used to cost there (and
 * compiling the one function that made them all); generated makers are module-level functions, compiled only
 * when called.
 */
export function lazyTable<T extends object, A extends readonly unknown[]>(makers: { readonly [K in keyof T]: (...args: A) => T[K] }, ...args: A): T {
  const make = makers as unknown as Readonly<Record<string, (...a: A) => unknown>>;
  return lazyTableOf<T, A>(Object.keys(makers), (name) => make[name]!, ...args);
}

/**
 * {@link lazyTable} over makers found by name at each function's first call (`makerOf(name)`): a library whose
 * makers come in parts that load apart (the driver's: the object layer's part at import, the rest later). `names`
 * are every function's, so that the table has every entry before any maker is loaded.
 */
export function lazyTableOf<T extends object, A extends readonly unknown[]>(names: readonly string[], makerOf: (name: string) => (...args: A) => unknown, ...args: A): T {
  type Fn = (...callArgs: unknown[]) => unknown;
  const table: Record<string, unknown> = {};
  for (const name of names) {
    let made: Fn | undefined;
    table[name] = function (this: unknown, ...callArgs: unknown[]): unknown {
      if (made === undefined) {
        made = makerOf(name)(...args) as Fn;
        table[name] = made;
      }
      return made.apply(this, callArgs);
    };
  }
  return table as T;
}
