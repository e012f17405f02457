/**
 * The Deno FFI backend (Deno.dlopen).
 *
 * Libraries are opened with libc's `dlopen` (for the handle and `dlerror` text); each function is bound by name
 * with its own `Deno.dlopen` of the same library (`optional: true`), which gives Deno's fast call path (~10 ns).
 * A function known only by address is bound by name too when its name can be found (the `nameHint`, else
 * `dladdr`) and `dlsym` confirms the address; otherwise through `Deno.UnsafeFnPointer` (~1.3 µs a call).
 *
 * Structs pass natively as `{ struct: [...] }` built by deno-struct.ts.
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
import { denoStructFields } from "./deno-struct.ts";
import { LibraryLoadError, LibraryClosedError } from "./errors.ts";
import { loweredCall } from "./lowered-call.ts";
import { planCall } from "./lowering.ts";
import { encodeCString as cstring } from "./text.ts";
import type { FunctionPointer, FunctionType, NativePointer, NativeType, Pointer, StructLayout } from "./types.ts";

type DenoFn = (...args: unknown[]) => unknown;

function raw(p: Pointer): Deno.PointerValue {
  return p as unknown as Deno.PointerValue;
}

function wrap(p: Deno.PointerValue): Pointer {
  return p as unknown as Pointer;
}

function nonNull(p: NativePointer): Deno.PointerObject {
  return p as unknown as Deno.PointerObject;
}

// ---------------------------------------------------------------------------------------------------------------
// libc's dynamic loader, bound once, on first use.

const RTLD_NOW = 2;
const RTLD_NOLOAD = 4;

const LIBC = {
  dlopen: { parameters: ["buffer", "i32"], result: "pointer" },
  dlsym: { parameters: ["pointer", "buffer"], result: "pointer" },
  dlerror: { parameters: [], result: "pointer" },
  dlclose: { parameters: ["pointer"], result: "i32" },
  dladdr: { parameters: ["pointer", "buffer"], result: "i32" },
} as const;
let libcSymbols: Deno.DynamicLibrary<typeof LIBC>["symbols"] | undefined;

/** libc's loader functions, bound on first use (not at import). */
function libc(): Deno.DynamicLibrary<typeof LIBC>["symbols"] {
  return (libcSymbols ??= Deno.dlopen("libc.so.6", LIBC).symbols);
}

function lastDlerror(): string | null {
  const p = libc().dlerror();
  return p === null ? null : Deno.UnsafePointerView.getCString(p);
}

/** Scratch for `dladdr`'s `Dl_info { dli_fname; dli_fbase; dli_sname; dli_saddr }`. */
const dlInfo = new DataView(new ArrayBuffer(32));

/** The exporting file and name of the symbol at exactly `address`, when `dladdr` knows one. */
function exportedName(address: Deno.PointerObject): { file: string; name: string } | null {
  if (libc().dladdr(address, dlInfo) === 0) return null;
  const file = readPointer(dlInfo, 0);
  const name = readPointer(dlInfo, 16);
  const at = readPointer(dlInfo, 24);
  if (file === null || name === null || !Deno.UnsafePointer.equals(raw(at), address)) return null;
  return {
    file: Deno.UnsafePointerView.getCString(nonNull(file)),
    name: Deno.UnsafePointerView.getCString(nonNull(name)),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Types.

const structCache = new WeakMap<StructLayout, Deno.NativeStructType>();

function denoType(t: NativeType): Deno.NativeType {
  if (typeof t === "object") {
    let s = structCache.get(t.struct);
    if (s === undefined) {
      s = { struct: denoStructFields(t.struct) };
      structCache.set(t.struct, s);
    }
    return s;
  }
  if (t === "void") throw new TypeError("void is not a parameter type");
  return t === "function" ? "pointer" : t;
}

function denoResult(t: NativeType): Deno.NativeResultType {
  return t === "void" ? "void" : denoType(t);
}

const X64 = Deno.build.arch === "x86_64";

/** Whether Deno lays out and passes this struct like C does (see deno-struct.ts). */
function passesNatively(layout: StructLayout): boolean {
  try {
    denoStructFields(layout);
    return true;
  } catch {
    return false;
  }
}

/** How to bind one signature: the Deno definition, and the wrapper (identity unless the call is lowered). */
interface Recipe {
  readonly definition: Deno.ForeignFunction;
  readonly wrap: (fn: DenoFn) => DenoFn;
}

/**
 * The binding recipe of a signature. Structs pass natively, except struct arguments libffi would place wrongly:
 * 16-byte-aligned structs (libffi knows no 16-byte alignment, so on the stack it puts them 8 bytes early) and
 * structs whose fields Deno cannot lay out like C (packed structs, padding-only eightbytes). Those calls are lowered
 * to scalars like on Bun (lowering.ts, x86-64 only), with the result still returned natively where Deno can.
 */
function recipe(type: FunctionType, name: string, nonblocking: boolean): Recipe {
  if (!X64) {
    // lowering.ts knows only x86-64 System V: elsewhere, structs pass natively (denoStructFields refuses layouts it
    // cannot reproduce).
    return {
      definition: { parameters: type.parameters.map(denoType), result: denoResult(type.result), nonblocking },
      wrap: (fn) => fn,
    };
  }
  const nativeResult = typeof type.result !== "object" || passesNatively(type.result.struct);
  const lower =
    !nativeResult ||
    type.parameters.some((t) => typeof t === "object" && (t.struct.align > 8 || !passesNatively(t.struct)));
  if (!lower) {
    return {
      definition: { parameters: type.parameters.map(denoType), result: denoResult(type.result), nonblocking },
      wrap: (fn) => fn,
    };
  }
  const plan = planCall(type, name, { nativeResult });
  const r = plan.result;
  if (nonblocking && r.kind !== "value" && r.kind !== "native") {
    throw new TypeError(`${name}: a nonblocking call cannot return struct ${String(r.kind)} bytes through lowering`);
  }
  const parameters = plan.args.map((a): Deno.NativeType => (a.kind === "result-pointer" ? "buffer" : denoType(a.type)));
  const result: Deno.NativeResultType =
    r.kind === "value" || r.kind === "native" ? denoResult(type.result) : r.kind === "word" ? r.type : "void";
  return {
    definition: { parameters, result, nonblocking },
    wrap: (fn) => loweredCall(fn, plan, type, name, "deno"),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Libraries.

class DenoLibrary implements NativeLibrary {
  readonly path: string;
  readonly handle: NativePointer;
  #open = true;
  readonly #libraries: Deno.DynamicLibrary<Deno.ForeignLibraryInterface>[] = [];

  constructor(path: string, handle: Deno.PointerObject) {
    this.path = path;
    this.handle = handle as unknown as NativePointer;
  }

  symbol(name: string): Pointer {
    if (!this.#open) throw new LibraryClosedError(this.path);
    return wrap(libc().dlsym(nonNull(this.handle), cstring(name)));
  }

  /** Binds `name` from `file` through its own Deno.dlopen; `null` when absent. */
  #bindByName(file: string, name: string, how: Recipe): DenoFn | null {
    const library = Deno.dlopen(file, { f: { ...how.definition, name, optional: true } });
    const fn = library.symbols.f as DenoFn | null;
    if (fn === null) {
      library.close();
      return null;
    }
    this.#libraries.push(library as unknown as Deno.DynamicLibrary<Deno.ForeignLibraryInterface>);
    return how.wrap(fn);
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
    if (this.symbol(name) === null) return null; // cheap, and spares a Deno.dlopen (~150 µs)
    const how = recipe(type, name, options?.nonblocking === true);
    return this.#bindByName(this.path, name, how) as NativeFunction<T> | null;
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
    const target = nonNull(address);
    const hint = options?.nameHint;
    const how = recipe(type, hint ?? `the function at 0x${this.#hex(target)}`, options?.nonblocking === true);
    if (hint !== undefined && Deno.UnsafePointer.equals(raw(this.symbol(hint)), target)) {
      const fn = this.#bindByName(this.path, hint, how);
      if (fn !== null) return fn as NativeFunction<T>;
    }
    const fast = this.#bindExported(target, how);
    if (fast !== null) return fast as NativeFunction<T>;
    const def = how.definition;
    const pointer = new Deno.UnsafeFnPointer(target as Deno.PointerObject<typeof def>, def);
    return how.wrap(pointer.call.bind(pointer) as DenoFn) as NativeFunction<T>;
  }

  #hex(p: Deno.PointerObject): string {
    return Deno.UnsafePointer.value(p).toString(16);
  }

  /** The fast path for an address `dladdr` attributes to an exported name that `dlsym` resolves to it. */
  #bindExported(address: Deno.PointerObject, how: Recipe): DenoFn | null {
    const exported = exportedName(address);
    if (exported === null) return null;
    const handle = libc().dlopen(cstring(exported.file), RTLD_NOW | RTLD_NOLOAD);
    if (handle === null) return null;
    try {
      if (!Deno.UnsafePointer.equals(libc().dlsym(handle, cstring(exported.name)), address)) return null;
      return this.#bindByName(exported.file, exported.name, how);
    } catch {
      return null; // for example --allow-ffi scoped to other paths: fall back to UnsafeFnPointer
    } finally {
      libc().dlclose(handle);
    }
  }

  close(): void {
    if (!this.#open) return;
    this.#open = false;
    for (const library of this.#libraries.splice(0)) library.close();
    libc().dlclose(nonNull(this.handle));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Callbacks.

class DenoCallback implements NativeCallback {
  readonly pointer: FunctionPointer<string>;
  #callback: Deno.UnsafeCallback | null;

  constructor(callback: Deno.UnsafeCallback) {
    this.#callback = callback;
    this.pointer = callback.pointer as unknown as FunctionPointer<string>;
  }

  close(): void {
    this.#callback?.close();
    this.#callback = null;
  }

  ref(): void {
    this.#callback?.ref();
  }

  unref(): void {
    this.#callback?.unref();
  }
}

function callback<T extends FunctionType>(type: T, fn: CallbackFunction<T>, options?: CallbackOptions): NativeCallback {
  const def: Deno.UnsafeCallbackDefinition = {
    parameters: type.parameters.map(denoType),
    result: denoResult(type.result),
  };
  const js = fn as unknown as Deno.UnsafeCallbackFunction;
  return new DenoCallback(
    options?.threadSafe === true ? Deno.UnsafeCallback.threadSafe(def, js) : new Deno.UnsafeCallback(def, js),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The backend.

// Deno.UnsafePointer.create and .value are ops costing ~65–70 ns each, more than the FFI call they serve. Pointer
// objects are immutable, so the same object can stand for an address every time: a bounded cache maps addresses to
// pointer objects, and a WeakMap remembers the address of each pointer object seen.
const POINTER_CACHE_LIMIT = 8192;
const pointerByAddress = new Map<number, Deno.PointerObject>();
const addressByPointer = new WeakMap<Deno.PointerObject, number>();

/** The pointer object of a non-zero address (user-space addresses fit in 53 bits). */
function pointerAt(address: number): Deno.PointerObject {
  let p = pointerByAddress.get(address);
  if (p === undefined) {
    if (pointerByAddress.size >= POINTER_CACHE_LIMIT) pointerByAddress.clear();
    p = Deno.UnsafePointer.create(BigInt(address)) as Deno.PointerObject;
    pointerByAddress.set(address, p);
    addressByPointer.set(p, address);
  }
  return p;
}

/** The address of a pointer as a number (0 for NULL). */
function addressOfPointer(p: Deno.PointerValue): number {
  if (p === null) return 0;
  let a = addressByPointer.get(p);
  if (a === undefined) {
    a = Number(Deno.UnsafePointer.value(p));
    addressByPointer.set(p, a);
  }
  return a;
}

/** 2^53: a pointer value at or above it is no address but an opaque 64-bit handle, kept exact (see readPointer). */
const EXACT_LIMIT = 2 ** 53;
/** The high word of {@link EXACT_LIMIT}: a 64-bit value whose high 32 bits reach it does not fit a number exactly. */
const EXACT_LIMIT_HIGH = 0x200000;

function readPointer(dv: DataView, byteOffset: number): Pointer {
  const high = dv.getUint32(byteOffset + 4, true);
  // At or above 2^53 a value is no address but an opaque 64-bit handle (cuFile's CUfileHandle_t): kept exact.
  if (high >= EXACT_LIMIT_HIGH) return wrap(Deno.UnsafePointer.create(dv.getBigUint64(byteOffset, true)));
  const address = dv.getUint32(byteOffset, true) + high * 4294967296;
  return address === 0 ? null : wrap(pointerAt(address));
}

function pointerView(p: NativePointer): Deno.UnsafePointerView {
  return new Deno.UnsafePointerView(nonNull(p));
}

/** The Deno FFI backend. */
export const denoBackend: FfiBackend = {
  runtime: "deno",
  supportsNonblocking: true,
  supportsThreadSafeCallbacks: true,

  openLibrary(pathOrSoname: string, options?: OpenOptions): NativeLibrary {
    libc().dlerror(); // clear a stale message
    const handle = libc().dlopen(cstring(pathOrSoname), options?.flags ?? RTLD_NOW);
    if (handle === null) throw new LibraryLoadError(pathOrSoname, lastDlerror());
    return new DenoLibrary(pathOrSoname, handle);
  },
  unsupportedReason(): string | null {
    return null;
  },

  pointerOf(view: ArrayBuffer | ArrayBufferView): NativePointer {
    const p = Deno.UnsafePointer.of(view as BufferSource);
    if (p === null) throw new TypeError("an empty buffer has no address");
    return p as unknown as NativePointer;
  },
  addressOf(p: Pointer): number {
    return addressOfPointer(raw(p));
  },
  bigAddressOf(p: Pointer): bigint {
    return BigInt(Deno.UnsafePointer.value(raw(p)));
  },
  pointerFromAddress(address: number | bigint): Pointer {
    const a = Number(address);
    if (a === 0) return null;
    return Number.isSafeInteger(a) ? wrap(pointerAt(a)) : wrap(Deno.UnsafePointer.create(BigInt(address)));
  },
  offsetPointer(p: NativePointer, bytes: number): NativePointer {
    return Deno.UnsafePointer.offset(nonNull(p), bytes) as unknown as NativePointer;
  },
  isNull(p: Pointer): p is null {
    return p === null;
  },
  isPointer(value: unknown): value is Pointer {
    // Deno's pointer objects have no prototype (so they are no `instanceof Object`, which V8 tests faster than
    // Object.getPrototypeOf); Deno's own check behind this one refuses any other object without one.
    return value === null || (typeof value === "object" && !(value instanceof Object));
  },
  samePointer(a: Pointer, b: Pointer): boolean {
    const x = addressOfPointer(raw(a));
    const y = addressOfPointer(raw(b));
    return x >= EXACT_LIMIT || y >= EXACT_LIMIT ? BigInt(Deno.UnsafePointer.value(raw(a))) === BigInt(Deno.UnsafePointer.value(raw(b))) : x === y;
  },

  view(p: NativePointer, byteLength: number): ArrayBuffer {
    return byteLength === 0 ? new ArrayBuffer(0) : Deno.UnsafePointerView.getArrayBuffer(nonNull(p), byteLength);
  },
  readPointer,
  writePointer(dv: DataView, byteOffset: number, p: Pointer): void {
    const a = addressOfPointer(raw(p));
    if (a >= EXACT_LIMIT) {
      dv.setBigUint64(byteOffset, BigInt(Deno.UnsafePointer.value(raw(p))), true);
      return;
    }
    dv.setUint32(byteOffset, a >>> 0, true);
    dv.setUint32(byteOffset + 4, Math.floor(a / 4294967296), true);
  },
  readCString(p: Pointer, byteOffset = 0): string | null {
    return p === null ? null : Deno.UnsafePointerView.getCString(nonNull(p), byteOffset);
  },
  cstring,

  readI8: (p, o = 0) => pointerView(p).getInt8(o),
  readU8: (p, o = 0) => pointerView(p).getUint8(o),
  readI16: (p, o = 0) => pointerView(p).getInt16(o),
  readU16: (p, o = 0) => pointerView(p).getUint16(o),
  readI32: (p, o = 0) => pointerView(p).getInt32(o),
  readU32: (p, o = 0) => pointerView(p).getUint32(o),
  readU64: (p, o = 0) => pointerView(p).getBigUint64(o),
  readI64: (p, o = 0) => pointerView(p).getBigInt64(o),
  readF32: (p, o = 0) => pointerView(p).getFloat32(o),
  readF64: (p, o = 0) => pointerView(p).getFloat64(o),
  readPointerAt: (p, o = 0) => wrap(pointerView(p).getPointer(o)),

  callback,
};
