/**
 * The bun:ffi backend.
 *
 * bun:ffi is loaded through a computed specifier and described by the few declarations below, so that `deno check`
 * never sees `bun:ffi`. Libraries are opened with libc's `dlopen` (for the handle and `dlerror` text) and functions
 * are bound with `CFunction` at the `dlsym` address: bun:ffi's own `dlopen` throws when a listed symbol is
 * missing, and it has no `dlsym`. Structs by value are lowered to scalars by lowering.ts (x86-64 System V only).
 *
 * @module
 */
import type {
  BindAtOptions,
  BindOptions,
  CallbackFunction,
  CallbackOptions,
  FfiBackend,
  NativeCallback,
  NativeFunction,
  NativeLibrary,
  NonblockingNativeFunction,
  OpenOptions,
} from "./backend.ts";
import { nativeRequire } from "../host.ts";
import { LibraryLoadError, UnsupportedOnRuntimeError, LibraryClosedError } from "./errors.ts";
import { loweredCall, unsupportedCall } from "./lowered-call.ts";
import { encodeCString as cstring } from "./text.ts";
import { planCall, type LoweredType } from "./lowering.ts";
import type { FunctionPointer, FunctionType, NativePointer, NativeType, Pointer, StructLayout } from "./types.ts";

// ---------------------------------------------------------------------------------------------------------------
// The part of bun:ffi used here (kept in step with bun-types' ffi.d.ts).

/** A bun:ffi type name. */
type BunType = "bool" | "i8" | "u8" | "i16" | "u16" | "i32" | "u32" | "i64" | "u64" | "f32" | "f64" | "ptr" | "void";
/** bun:ffi's view of a native pointer: a number, or null for NULL. */
type BunPointer = number;
type BunArg = number | bigint | boolean | null | ArrayBufferView;
type BunFn = (...args: BunArg[]) => unknown;
interface BunFfiFunction {
  readonly args?: readonly BunType[];
  readonly returns?: BunType;
  readonly ptr?: BunPointer | bigint;
  readonly threadsafe?: boolean;
}
interface BunCFunction extends BunFn {
  close(): void;
}
interface BunJSCallback {
  readonly ptr: BunPointer | null;
  close(): void;
}
interface BunFfi {
  dlopen(name: string, symbols: Record<string, BunFfiFunction>): { symbols: Record<string, BunFn>; close(): void };
  CFunction(fn: BunFfiFunction & { ptr: BunPointer | bigint }): BunCFunction;
  JSCallback: new (fn: (...args: never[]) => unknown, definition: BunFfiFunction) => BunJSCallback;
  CString: new (ptr: BunPointer, byteOffset?: number, byteLength?: number) => string;
  ptr(view: ArrayBufferView | ArrayBufferLike, byteOffset?: number): BunPointer;
  toArrayBuffer(ptr: BunPointer, byteOffset?: number, byteLength?: number): ArrayBuffer;
  read: {
    u8(ptr: BunPointer, byteOffset?: number): number;
    i8(ptr: BunPointer, byteOffset?: number): number;
    u16(ptr: BunPointer, byteOffset?: number): number;
    i16(ptr: BunPointer, byteOffset?: number): number;
    u32(ptr: BunPointer, byteOffset?: number): number;
    i32(ptr: BunPointer, byteOffset?: number): number;
    f32(ptr: BunPointer, byteOffset?: number): number;
    f64(ptr: BunPointer, byteOffset?: number): number;
    u64(ptr: BunPointer, byteOffset?: number): bigint;
    i64(ptr: BunPointer, byteOffset?: number): bigint;
    ptr(ptr: BunPointer, byteOffset?: number): number;
  };
}

const specifier = "bun:ffi";
// Bun's own require where the module runs natively (no dynamic import on the start-up path, and no top-level await
// for a module that is required later); a module runner's import.meta (vitest's) has none.
const required = nativeRequire(import.meta);
const bun = (required !== undefined ? required(specifier) : await import(specifier)) as BunFfi;

// ---------------------------------------------------------------------------------------------------------------
// Conversions between the neutral vocabulary and bun:ffi's.

const TWO32 = 4294967296;

function raw(p: Pointer): BunPointer | null {
  return p as unknown as BunPointer | null;
}

/**
 * A pointer value at or above 2^53 is not an address (user space ends far below) but an opaque 64-bit handle that
 * a library hands out in a pointer's place (cuFile's CUfileHandle_t is the file descriptor tagged 0xabababab in its
 * high half). A number cannot hold it exactly, so such a value stays a bigint, which bun:ffi passes to a `ptr`
 * parameter exactly; every address is a number, as bun:ffi gives them.
 */
const EXACT_LIMIT = 2 ** 53;
/** The high word of {@link EXACT_LIMIT}: a 64-bit value whose high 32 bits reach it does not fit a number exactly. */
const EXACT_LIMIT_HIGH = 0x200000;

function wrap(address: number): Pointer {
  return address === 0 ? null : (address as unknown as NativePointer);
}

/** A pointer's value as a bigint (exact), for the rare handle above 2^53. */
function bigValue(p: Pointer): bigint {
  const a = p as unknown as number | bigint | null;
  return a === null ? 0n : BigInt(a);
}

function bunType(t: LoweredType): BunType {
  return t === "pointer" ? "ptr" : t;
}

function bunScalar(t: NativeType): BunType {
  if (typeof t === "object") throw new TypeError("internal: struct reached bunScalar");
  return t === "function" || t === "pointer" ? "ptr" : t;
}

// ---------------------------------------------------------------------------------------------------------------
// libc's dynamic loader, bound once, on first use.

const RTLD_NOW = 2;

type Libc = {
  dlopen(file: ArrayBufferView, flags: number): BunPointer | null;
  dlsym(handle: BunPointer, name: ArrayBufferView): BunPointer | null;
  dlerror(): BunPointer | null;
  dlclose(handle: BunPointer): number;
};
let libcSymbols: Libc | undefined;

/** libc's loader functions, bound on first use (bun:ffi compiles a trampoline per symbol: not at import). */
function libc(): Libc {
  return (libcSymbols ??= bun.dlopen("libc.so.6", {
    dlopen: { args: ["ptr", "i32"], returns: "ptr" },
    dlsym: { args: ["ptr", "ptr"], returns: "ptr" },
    dlerror: { args: [], returns: "ptr" },
    dlclose: { args: ["ptr"], returns: "i32" },
  }).symbols as Libc);
}

function lastDlerror(): string | null {
  const p = libc().dlerror();
  return p === null ? null : new bun.CString(p);
}

// ---------------------------------------------------------------------------------------------------------------
// Struct lowering (x86-64 System V).

function structLayouts(type: FunctionType): StructLayout[] {
  const out: StructLayout[] = [];
  for (const t of [...type.parameters, type.result]) if (typeof t === "object") out.push(t.struct);
  return out;
}

function nonX64Reason(type: FunctionType, name: string): string | null {
  const arch = (globalThis as { process?: { arch?: string } }).process?.arch;
  if (arch === "x64") return null;
  const s = structLayouts(type)[0];
  if (s === undefined) return null;
  return (
    `${name} passes struct ${s.name} by value; on Bun, structs by value are lowered by the x86-64 System V rules ` +
    `and this machine is ${arch ?? "not x86-64"}, so the call is refused rather than guessed. Deno can call it.`
  );
}

/** bun:ffi refuses signatures of more than 32 arguments ("bun:ffi: unsupported signature"). */
const MAX_ARGUMENTS = 32;

/** Why Bun cannot call this signature, with the feature it lacks; `null` when it can. */
function refusal(type: FunctionType, name: string): { feature: string; reason: string } | null {
  const arch = nonX64Reason(type, name);
  if (arch !== null) return { feature: "structs by value off x86-64", reason: arch };
  const plan = planCall(type, name);
  if (plan.result.kind === "unsupported") return { feature: "two-register struct results", reason: plan.result.reason };
  if (plan.args.length > MAX_ARGUMENTS) {
    return {
      feature: "more than 32 arguments",
      reason:
        `${name} takes ${plan.args.length} scalar arguments` +
        (plan.direct ? "" : " once its structs by value are lowered to eightbytes") +
        `; bun:ffi accepts at most ${MAX_ARGUMENTS}, so this call cannot be expressed on Bun. Deno can call it.`,
    };
  }
  return null;
}

function unsupportedReason(type: FunctionType, name = "this function"): string | null {
  return refusal(type, name)?.reason ?? null;
}

// ---------------------------------------------------------------------------------------------------------------
// Binding.

function nonblockingError(name: string): UnsupportedOnRuntimeError {
  return new UnsupportedOnRuntimeError(
    "bun",
    "nonblocking calls",
    `${name}: nonblocking calls (run on a worker thread, returning a Promise) are Deno-only; bun:ffi calls ` +
      `synchronously on the JavaScript thread. Run with deno, or call it synchronously.`,
  );
}

/** Binds the function at `address` with `type`: the CFunction itself when no struct is involved. */
function bindAddress(address: BunPointer, type: FunctionType, name: string, owned: BunCFunction[]): BunFn {
  const refused = refusal(type, name);
  if (refused !== null) return unsupportedCall("bun", refused.feature, refused.reason) as BunFn;
  const plan = planCall(type, name);
  if (plan.direct) {
    const fn = bun.CFunction({ ptr: address, args: type.parameters.map(bunScalar), returns: bunScalar(type.result) });
    owned.push(fn);
    return fn;
  }
  const returns: BunType =
    plan.result.kind === "value" ? bunType(plan.result.type) : plan.result.kind === "word" ? plan.result.type : "void";
  const fn = bun.CFunction({ ptr: address, args: plan.args.map((a) => bunType(a.type)), returns });
  owned.push(fn);
  return loweredCall(fn as (...args: unknown[]) => unknown, plan, type, name, "bun") as BunFn;
}

class BunLibrary implements NativeLibrary {
  readonly path: string;
  readonly handle: NativePointer;
  #open = true;
  readonly #owned: BunCFunction[] = [];

  constructor(path: string, handle: BunPointer) {
    this.path = path;
    this.handle = handle as unknown as NativePointer;
  }

  symbol(name: string): Pointer {
    if (!this.#open) throw new LibraryClosedError(this.path);
    return wrap(libc().dlsym(raw(this.handle)!, cstring(name)) ?? 0);
  }

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
  bind<T extends FunctionType>(
    name: string,
    type: T,
    options?: BindOptions,
  ): NativeFunction<T> | NonblockingNativeFunction<T> | null {
    if (options?.nonblocking === true) throw nonblockingError(name);
    const address = raw(this.symbol(name));
    if (address === null) return null;
    return bindAddress(address, type, name, this.#owned) as unknown as NativeFunction<T>;
  }

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
  bindAt<T extends FunctionType>(
    address: NativePointer,
    type: T,
    options?: BindAtOptions,
  ): NativeFunction<T> | NonblockingNativeFunction<T> {
    const name = options?.nameHint ?? `the function at 0x${(raw(address) ?? 0).toString(16)}`;
    if (options?.nonblocking === true) throw nonblockingError(name);
    return bindAddress(raw(address)!, type, name, this.#owned) as unknown as NativeFunction<T>;
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    for (const fn of this.#owned.splice(0)) fn.close();
    libc().dlclose(raw(this.handle)!);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Callbacks.

class BunCallback implements NativeCallback {
  readonly pointer: FunctionPointer<string>;
  #callback: BunJSCallback | null;

  constructor(callback: BunJSCallback) {
    this.#callback = callback;
    this.pointer = callback.ptr as unknown as FunctionPointer<string>;
  }

  close(): void {
    this.#callback?.close();
    this.#callback = null;
  }

  ref(): void {}

  unref(): void {}
}

function callback<T extends FunctionType>(type: T, fn: CallbackFunction<T>, options?: CallbackOptions): NativeCallback {
  if (options?.threadSafe === true) {
    throw new UnsupportedOnRuntimeError(
      "bun",
      "thread-safe callbacks",
      "thread-safe callbacks (called from threads other than the JavaScript thread, such as CUDA host functions " +
        "and stream callbacks) are not supported on Bun: its JSCallback corrupts the JavaScript heap when called " +
        "from a foreign thread (Bun issues 24529, 28113, 33840, 41857). Deno supports them " +
        "(Deno.UnsafeCallback.threadSafe): run with deno.",
    );
  }
  if (structLayouts(type).length > 0) {
    throw new UnsupportedOnRuntimeError(
      "bun",
      "struct callback parameters",
      `callbacks that take or return struct ${structLayouts(type)[0]!.name} by value are not supported on Bun ` +
        "(bun:ffi has no struct type). Deno supports them.",
    );
  }
  const jsCallback = new bun.JSCallback(fn as unknown as (...args: never[]) => unknown, {
    args: type.parameters.map(bunScalar),
    returns: bunScalar(type.result),
  });
  return new BunCallback(jsCallback);
}

// ---------------------------------------------------------------------------------------------------------------
// The backend.

function readPointer(dv: DataView, byteOffset: number): Pointer {
  const high = dv.getUint32(byteOffset + 4, true);
  if (high >= EXACT_LIMIT_HIGH) return dv.getBigUint64(byteOffset, true) as unknown as NativePointer;
  return wrap(high * TWO32 + dv.getUint32(byteOffset, true));
}

function writePointer(dv: DataView, byteOffset: number, p: Pointer): void {
  const a = raw(p) ?? 0;
  if (typeof a === "bigint") {
    dv.setBigUint64(byteOffset, a, true);
    return;
  }
  dv.setUint32(byteOffset, a >>> 0, true);
  dv.setUint32(byteOffset + 4, Math.floor(a / TWO32), true);
}

/** A pointer as bun:ffi takes it: null, a non-negative integer number, or a bigint handle below 2^64. */
function isPointer(value: unknown): value is Pointer {
  return typeof value === "number"
    ? value >= 0 && Math.floor(value) === value && value <= Number.MAX_SAFE_INTEGER
    : value === null || (typeof value === "bigint" && value >= 0n && value <= 0xffffffffffffffffn);
}

/** The bun:ffi backend. */
export const bunBackend: FfiBackend = {
  runtime: "bun",
  supportsNonblocking: false,
  supportsThreadSafeCallbacks: false,

  openLibrary(pathOrSoname: string, options?: OpenOptions): NativeLibrary {
    libc().dlerror(); // clear a stale message
    const handle = libc().dlopen(cstring(pathOrSoname), options?.flags ?? RTLD_NOW);
    if (handle === null) throw new LibraryLoadError(pathOrSoname, lastDlerror());
    return new BunLibrary(pathOrSoname, handle);
  },
  unsupportedReason,

  pointerOf(view: ArrayBuffer | ArrayBufferView): NativePointer {
    return bun.ptr(view) as unknown as NativePointer;
  },
  addressOf(p: Pointer): number {
    return Number(raw(p) ?? 0);
  },
  bigAddressOf(p: Pointer): bigint {
    return bigValue(p);
  },
  pointerFromAddress(address: number | bigint): Pointer {
    if (typeof address === "bigint" && address >= BigInt(EXACT_LIMIT)) return address as unknown as NativePointer;
    return wrap(Number(address));
  },
  offsetPointer(p: NativePointer, bytes: number): NativePointer {
    const a = raw(p) ?? 0;
    return (typeof a === "bigint" ? a + BigInt(bytes) : a + bytes) as unknown as NativePointer;
  },
  isNull(p: Pointer): p is null {
    return p === null || (p as unknown) === 0;
  },
  isPointer,
  samePointer(a: Pointer, b: Pointer): boolean {
    const x = raw(a) ?? 0;
    const y = raw(b) ?? 0;
    return typeof x === "bigint" || typeof y === "bigint" ? BigInt(x) === BigInt(y) : x === y;
  },

  view(p: NativePointer, byteLength: number): ArrayBuffer {
    // No deallocator: the runtime never frees memory it does not own (Bun issues 35405, 24160).
    return byteLength === 0 ? new ArrayBuffer(0) : bun.toArrayBuffer(raw(p)!, 0, byteLength);
  },
  readPointer,
  writePointer,
  readCString(p: Pointer, byteOffset = 0): string | null {
    const a = raw(p);
    return a === null || a === 0 ? null : new bun.CString(a, byteOffset);
  },
  cstring,

  readI8: (p, o = 0) => bun.read.i8(raw(p)!, o),
  readU8: (p, o = 0) => bun.read.u8(raw(p)!, o),
  readI16: (p, o = 0) => bun.read.i16(raw(p)!, o),
  readU16: (p, o = 0) => bun.read.u16(raw(p)!, o),
  readI32: (p, o = 0) => bun.read.i32(raw(p)!, o),
  readU32: (p, o = 0) => bun.read.u32(raw(p)!, o),
  readU64: (p, o = 0) => bun.read.u64(raw(p)!, o),
  readI64: (p, o = 0) => bun.read.i64(raw(p)!, o),
  readF32: (p, o = 0) => bun.read.f32(raw(p)!, o),
  readF64: (p, o = 0) => bun.read.f64(raw(p)!, o),
  readPointerAt: (p, o = 0) => {
    const a = bun.read.ptr(raw(p)!, o);
    return a >= EXACT_LIMIT ? (bun.read.u64(raw(p)!, o) as unknown as NativePointer) : wrap(a);
  },

  callback,
};
