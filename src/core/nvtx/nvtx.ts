/**
 * NVTX: ranges, marks, domains, categories, colours and payloads for Nsight Systems (or any NVTX tool), with no
 * libnvToolsExt. NVTX 3 is header-only in C: its calls reach a tool only when one is attached through the injection
 * protocol, which `injection.ts` implements in TypeScript.
 *
 * ```ts
 * import { nvtx } from "cuda-ts";
 * {
 *   using _ = nvtx.range("step", { color: 0xff76b900, payload: epoch });
 *   ...                                     // the range ends where the block ends
 * }
 * nvtx.mark("checkpoint");
 * const io = nvtx.domain("io");
 * io.nameCategory(1, "reads");
 * using r = io.startRange("load", { category: 1 });   // a start/end range: need not nest (async code)
 * ```
 *
 * **No tool attached** (`NVTX_INJECTION64_PATH` unset, as in any run outside a profiler): the first NVTX call reads
 * the variable once; after that every call returns at its first test, allocates nothing and crosses no FFI
 * (bench/ts/nvtx.ts measures it). `nvtx.range` returns one shared, frozen no-op range.
 *
 * **A tool attached**: the variable names a shared library (Nsight Systems sets it). It is loaded and initialized by
 * NVTX 3's protocol (load, `InitializeInjectionNvtx2(nvtxGetExportTable)`, the tool fills the function tables); a
 * library that cannot be loaded, lacks the entry point or refuses to attach is not used, nor one that fails the
 * checks of `injection.ts`'s `openCheckedLibrary`: a relative path; a final link owned by another user; not a
 * regular file owned by you or root and writable only by its owner; a directory above it that another user owns or
 * can write without the sticky bit. The file is opened once, those checks look at the open descriptor, and that
 * descriptor is what is loaded (`/proc/self/fd/N`), so the file checked is the file loaded. A refused library gives
 * one warning ({@link NvtxInjectionError}) and every call stays a no-op. `nvtx.initialize()` runs that check at once and throws the error instead (what C's `nvtxInitialize` is
 * for: attach before the timed part of a program). A tool already in the process (preloaded with `LD_PRELOAD`, or
 * attached by a C library's own copy of NVTX) is reached the same way: loading the variable's file returns the
 * copy already loaded (the loader knows it by device and inode), and its `InitializeInjectionNvtx2` attaches this NVTX instance beside the others, as NVTX 3
 * does for each of its header-only copies.
 *
 * Deno: reading the variable needs `--allow-env` (or `--allow-env=NVTX_INJECTION64_PATH`), checking the library
 * `--allow-read`, loading it `--allow-ffi`; without `--allow-env` NVTX stays off, silently, as with no tool.
 *
 * Push/pop ranges (`range`, `push`, `pop`) nest per thread, as NVTX's do: across an `await`, other code on the
 * same thread may push and pop in between. Use `startRange` (NVTX's start/end ranges) for spans that cross awaits.
 *
 * @module
 */
import { ffi, type FunctionType, type Pointer } from "../../ffi/index.ts";
import { canReadPath, getEnv } from "../../host.ts";
import { AttachedTool, attachInjectionLibrary, CBID, injectionFailure, NVTX_VERSION } from "./injection.ts";
import { NvtxArgumentError, NvtxInjectionError } from "./errors.ts";
import { INTERNAL, checkInternal, type Internal } from "../base/internal.ts";

export { NvtxArgumentError, NvtxInjectionError };

/** The environment variable a tool sets to the path of its injection library (64-bit processes). */
export const INJECTION_VARIABLE = "NVTX_INJECTION64_PATH";

/** `sizeof(nvtxEventAttributes_t)` (version 3, LP64); test/nvtx checks it and every offset with gcc. */
export const EVENT_ATTRIBUTES_SIZE = 48;
/** Byte offsets of `nvtxEventAttributes_v2`'s fields. */
export const EVENT_ATTRIBUTES_LAYOUT = {
  version: 0,
  size: 2,
  category: 4,
  colorType: 8,
  color: 12,
  payloadType: 16,
  reserved0: 20,
  payload: 24,
  messageType: 32,
  message: 40,
} as const;

/** How a payload is passed: NVTX's `nvtxPayloadType_t` by its C type. */
export type PayloadType = "u64" | "i64" | "f64" | "u32" | "i32" | "f32";
const PAYLOAD_CODE: Record<PayloadType, number> = { u64: 1, i64: 2, f64: 3, u32: 4, i32: 5, f32: 6 };

/** Colour names accepted besides ARGB numbers (NVTX's own examples' palette). */
export const COLORS = {
  green: 0xff76b900,
  blue: 0xff0000ff,
  red: 0xffff0000,
  yellow: 0xffffff00,
  purple: 0xff800080,
  cyan: 0xff00ffff,
  orange: 0xffffa500,
  gray: 0xff808080,
  white: 0xffffffff,
  black: 0xff000000,
} as const;
/** A colour name of {@link COLORS}. */
export type ColorName = keyof typeof COLORS;

/** What an event carries besides its message. */
export interface EventOptions {
  /** ARGB as `0xAARRGGBB` (a value up to `0xFFFFFF` is taken as opaque RGB), or a name of {@link COLORS}. */
  readonly color?: number | ColorName;
  /** A category id (a `uint32_t`; name it with `nameCategory`). */
  readonly category?: number;
  /** A value shown with the event. A number is a double unless it is a safe integer (then int64); a bigint is int64 (uint64 above its range). */
  readonly payload?: number | bigint;
  /** Overrides the payload's C type. */
  readonly payloadType?: PayloadType;
}

/** A range that ends when disposed (`using`) or with `end()`; ending twice does nothing. */
export interface NvtxRange extends Disposable {
  /** Ends the range (pops it, or ends a start/end range). Idempotent. */
  end(): void;
}

const NOOP_RANGE: NvtxRange = Object.freeze({
  end(): void {},
  [Symbol.dispose](): void {},
});

/** A string registered with a domain: passed as a message, the tool gets a handle instead of the characters. */
export class RegisteredString {
  /** Reserved to cuda-ts (the token is not exported): use `domain.registerString(value)`. */
  constructor(
    token: Internal,
    /** The string. */
    readonly value: string,
    /** The tool's handle (`nvtxStringHandle_t`), `null` when no tool is attached. */
    readonly handle: Pointer,
    /** The domain that registered it: the string is a message of that domain's events only. */
    readonly domain: Domain,
  ) {
    checkInternal(token, "RegisteredString", "domain.registerString(value)");
  }
}

/** An event's message: characters, or a string registered with the same domain. */
export type Message = string | RegisteredString;

// ---- the state: undefined until the first call reads the variable, null without a tool ----

let tool: AttachedTool | null | undefined;
let failure: NvtxInjectionError | undefined;

/** The C signatures of the slots cuda-ts calls. */
const T = {
  eventP: { parameters: ["pointer"], result: "void" },
  startP: { parameters: ["pointer"], result: "u64" },
  end: { parameters: ["u64"], result: "void" },
  pushP: { parameters: ["pointer"], result: "i32" },
  pop: { parameters: [], result: "i32" },
  nameU32: { parameters: ["u32", "pointer"], result: "void" },
  nameI32: { parameters: ["i32", "pointer"], result: "void" },
  namePtr: { parameters: ["pointer", "pointer"], result: "void" },
  dEvent: { parameters: ["pointer", "pointer"], result: "void" },
  dStart: { parameters: ["pointer", "pointer"], result: "u64" },
  dEnd: { parameters: ["pointer", "u64"], result: "void" },
  dPush: { parameters: ["pointer", "pointer"], result: "i32" },
  dPop: { parameters: ["pointer"], result: "i32" },
  dNameCategory: { parameters: ["pointer", "u32", "pointer"], result: "void" },
  dRegister: { parameters: ["pointer", "pointer"], result: "pointer" },
  create: { parameters: ["pointer"], result: "pointer" },
  destroy: { parameters: ["pointer"], result: "void" },
  initialize: { parameters: ["pointer"], result: "void" },
} as const satisfies Record<string, FunctionType>;

const CORE = 1;
const CUDA = 2;
const CORE2 = 5;

/** What is checked before the library is opened: Deno's read permission (the file itself is checked by descriptor). */
function checkLibrary(path: string): NvtxInjectionError | undefined {
  if (path.startsWith("/") && !canReadPath(path)) {
    return new NvtxInjectionError(path, "it does not exist or cannot be read", "Check the path (under Deno, also --allow-read for it).");
  }
  return undefined;
}

function attach(path: string | undefined): void {
  failure = undefined;
  tool = null;
  if (path === undefined) return;
  const refused = checkLibrary(path);
  if (refused !== undefined) {
    failure = refused;
    return;
  }
  try {
    tool = attachInjectionLibrary(path);
  } catch (e) {
    const why = injectionFailure(e);
    if (why === undefined) throw e;
    failure = new NvtxInjectionError(path, why.reason, why.remedy ?? "Unset the variable, or point it at the tool's injection library (Nsight Systems sets it itself).");
  }
}

function firstCall(): AttachedTool | null {
  attach(getEnv(INJECTION_VARIABLE));
  if (failure !== undefined) console.warn(failure.message);
  return tool!;
}

/** The attached tool, reading the variable on the first call only. */
function current(): AttachedTool | null {
  return tool === undefined ? firstCall() : tool;
}

/**
 * Attaches now, as C's `nvtxInitialize`: reads `NVTX_INJECTION64_PATH` (once per process, like every first NVTX
 * call), loads the tool and lets it initialize, then calls the tool's `nvtxInitialize`.
 *
 * @returns whether a tool is attached.
 * @throws {@link NvtxInjectionError} when the variable names a library that could not be used (the same failure
 * the first call of any other NVTX function only warns about).
 */
export function initialize(): boolean {
  const t = current();
  if (failure !== undefined) throw failure;
  if (t === null) return false;
  t.fn(CORE2, CBID.CORE2.Initialize, T.initialize)?.(null);
  return true;
}

/** What NVTX is doing in this process. */
export interface NvtxStatus {
  /** `"unchecked"` before the first call; `"off"` without a tool; `"attached"`; `"failed"` (see `error`). */
  readonly state: "unchecked" | "off" | "attached" | "failed";
  /** The attached library as the variable named it. */
  readonly path?: string;
  /** Why the named library was not used. */
  readonly error?: NvtxInjectionError;
  /** The slots the tool filled, per module (callback ids of NVTX's `NvtxCallbackId*` enums). */
  readonly slots?: Record<string, number[]>;
}

/** Whether a tool is attached (reads nothing: `"unchecked"` until the first NVTX call or `initialize()`). */
export function status(): NvtxStatus {
  if (tool === undefined) return { state: "unchecked" };
  if (failure !== undefined) return { state: "failed", path: failure.path, error: failure };
  if (tool === null) return { state: "off" };
  return { state: "attached", path: tool.path, slots: tool.filledSlots() };
}

/**
 * For tests and tools that set the variable late: attaches the library at `path` now (or detaches with
 * `undefined`), replacing what the first call found. A failure is returned, not warned about.
 *
 * @internal
 */
export function attachForTesting(path: string | undefined): NvtxInjectionError | undefined {
  attach(path);
  forgetDomain(defaultDomain);
  for (const d of domains.values()) forgetDomain(d);
  return failure;
}

// ---- event attributes: one buffer, filled per call (the tool copies what it keeps during the call) ----

const attributes = new ArrayBuffer(EVENT_ATTRIBUTES_SIZE);
const attributesView = new DataView(attributes);
let attributesPointer: Pointer = null;

/** Encoded messages, kept so that a loop's repeated names are encoded once (bounded). */
const encoded = new Map<string, Uint8Array>();
const ENCODED_LIMIT = 4096;

function cstring(s: string): Uint8Array {
  let bytes = encoded.get(s);
  if (bytes === undefined) {
    bytes = ffi.cstring(s);
    if (encoded.size >= ENCODED_LIMIT) encoded.clear();
    encoded.set(s, bytes);
  }
  return bytes;
}

function colorOf(color: number | ColorName): number {
  if (typeof color === "string") {
    const c = (COLORS as Record<string, number>)[color];
    if (c === undefined) throw new NvtxArgumentError("color", `an ARGB number or one of ${Object.keys(COLORS).join(", ")}`, color);
    return c;
  }
  if (!Number.isInteger(color) || color < 0 || color > 0xffffffff) throw new NvtxArgumentError("color", "an integer from 0 to 0xFFFFFFFF (ARGB)", color);
  return color <= 0xffffff ? (0xff000000 | color) >>> 0 : color;
}

/**
 * Fills the attributes for one event and returns their address, plus the encoded message, which must stay
 * reachable until the call returns.
 */
function fill(domain: Domain, message: Message, options: EventOptions | undefined): Uint8Array | undefined {
  const v = attributesView;
  v.setUint16(0, NVTX_VERSION, true);
  v.setUint16(2, EVENT_ATTRIBUTES_SIZE, true);
  let category = 0;
  let colorType = 0;
  let color = 0;
  let payloadType = 0;
  v.setBigUint64(24, 0n, true);
  if (options !== undefined) {
    if (options.category !== undefined) {
      category = options.category;
      if (!Number.isInteger(category) || category < 0 || category > 0xffffffff) throw new NvtxArgumentError("category", "an integer from 0 to 2^32-1", category);
    }
    if (options.color !== undefined) {
      color = colorOf(options.color);
      colorType = 1;
    }
    if (options.payload !== undefined) payloadType = writePayload(options.payload, options.payloadType);
    else if (options.payloadType !== undefined) throw new NvtxArgumentError("payloadType", "given with a payload", options.payloadType);
  }
  v.setUint32(4, category, true);
  v.setInt32(8, colorType, true);
  v.setUint32(12, color, true);
  v.setInt32(16, payloadType, true);
  v.setInt32(20, 0, true);
  v.setInt32(36, 0, true);
  if (typeof message === "string") {
    const bytes = cstring(message);
    v.setInt32(32, 1, true); // NVTX_MESSAGE_TYPE_ASCII
    ffi.writePointer(v, 40, ffi.pointerOf(bytes));
    return bytes;
  }
  if (message instanceof RegisteredString) {
    if (message.domain !== domain) throw new NvtxArgumentError("a registered message", `registered with the domain it is used in (${domain.name ?? "the default domain"})`, `a string of ${message.domain.name ?? "the default domain"}`);
    if (message.handle === null) {
      const bytes = cstring(message.value);
      v.setInt32(32, 1, true);
      ffi.writePointer(v, 40, ffi.pointerOf(bytes));
      return bytes;
    }
    v.setInt32(32, 3, true); // NVTX_MESSAGE_TYPE_REGISTERED
    ffi.writePointer(v, 40, message.handle);
    return undefined;
  }
  throw new NvtxArgumentError("the message", "a string or a RegisteredString", message);
}

function writePayload(payload: number | bigint, type: PayloadType | undefined): number {
  const v = attributesView;
  if (type !== undefined && !(type in PAYLOAD_CODE)) throw new NvtxArgumentError("payloadType", `one of ${Object.keys(PAYLOAD_CODE).join(", ")}`, type);
  if (typeof payload === "bigint") {
    const t = type ?? (payload > 0x7fffffffffffffffn ? "u64" : "i64");
    if (t === "u64") {
      if (payload < 0n || payload > 0xffffffffffffffffn) throw new NvtxArgumentError("a u64 payload", "in 0 .. 2^64-1", payload);
      v.setBigUint64(24, payload, true);
    } else if (t === "i64") {
      if (payload < -(2n ** 63n) || payload > 2n ** 63n - 1n) throw new NvtxArgumentError("an i64 payload", "in -2^63 .. 2^63-1", payload);
      v.setBigInt64(24, payload, true);
    } else throw new NvtxArgumentError(`a ${t} payload`, "a number (bigint payloads are u64 or i64)", payload);
    return PAYLOAD_CODE[t];
  }
  if (typeof payload !== "number") throw new NvtxArgumentError("the payload", "a number or a bigint", payload);
  const t = type ?? (Number.isSafeInteger(payload) ? "i64" : "f64");
  switch (t) {
    case "f64":
      v.setFloat64(24, payload, true);
      break;
    case "f32":
      v.setFloat32(24, payload, true);
      break;
    case "i64":
    case "u64":
      if (!Number.isSafeInteger(payload) || (t === "u64" && payload < 0)) throw new NvtxArgumentError(`a ${t} payload`, t === "u64" ? "a non-negative safe integer (or a bigint)" : "a safe integer (or a bigint)", payload);
      v.setBigInt64(24, BigInt(payload), true);
      break;
    case "i32":
      if (!Number.isInteger(payload) || payload < -(2 ** 31) || payload >= 2 ** 31) throw new NvtxArgumentError("an i32 payload", "an integer in -2^31 .. 2^31-1", payload);
      v.setInt32(24, payload, true);
      break;
    case "u32":
      if (!Number.isInteger(payload) || payload < 0 || payload >= 2 ** 32) throw new NvtxArgumentError("a u32 payload", "an integer in 0 .. 2^32-1", payload);
      v.setUint32(24, payload, true);
      break;
  }
  return PAYLOAD_CODE[t];
}

function attributesAddress(): Pointer {
  return (attributesPointer ??= ffi.pointerOf(attributes));
}

class PushedRange implements NvtxRange {
  #open = true;
  constructor(readonly domain: Domain) {}
  end(): void {
    if (!this.#open) return;
    this.#open = false;
    this.domain.pop();
  }
  [Symbol.dispose](): void {
    this.end();
  }
}

class StartedRange implements NvtxRange {
  #open = true;
  constructor(
    readonly domain: Domain,
    readonly id: bigint,
  ) {}
  end(): void {
    if (!this.#open) return;
    this.#open = false;
    endDomainRange(this.domain, this.id);
  }
  [Symbol.dispose](): void {
    this.end();
  }
}

/** Drops a domain's tool handle after the tool changed (module state of Domain). */
let forgetDomain: (domain: Domain) => void;
/** Ends a start/end range of a domain by the id the tool returned (module state of Domain). */
let endDomainRange: (domain: Domain, id: bigint) => void;

/**
 * An NVTX domain: a namespace for ranges, marks, categories and registered strings that a tool can show or filter on
 * its own. `nvtx.domain(name)` makes one (once per name); the module's functions use the default domain.
 */
export class Domain {
  /** The domain's name; `null` for the default domain. */
  readonly name: string | null;
  #handle: Pointer = null;
  #made = false;

  static {
    forgetDomain = (d) => {
      d.#handle = null;
      d.#made = false;
    };
    endDomainRange = (d, id) => d.#endRange(id);
  }

  /** Reserved to cuda-ts (the token is not exported): use `nvtx.domain(name)`. */
  constructor(token: Internal, name: string | null) {
    checkInternal(token, "Domain", "nvtx.domain(name)");
    this.name = name;
  }

  /** The tool's handle of this domain (created on first use while a tool is attached). */
  #toolHandle(t: AttachedTool): Pointer {
    if (this.name === null || this.#made) return this.#handle;
    this.#made = true;
    const create = t.fn(CORE2, CBID.CORE2.DomainCreateA, T.create);
    const bytes = ffi.cstring(this.name);
    this.#handle = create === null ? null : create(ffi.pointerOf(bytes));
    return this.#handle;
  }

  /**
   * Opens a push/pop range that ends when disposed: `using _ = nvtx.range("step")`.
   *
   * @param message - the range's name.
   * @param options - colour, category, payload.
   * @returns the range; without a tool, one shared no-op object.
   */
  range(message: Message, options?: EventOptions): NvtxRange {
    const t = tool === undefined ? firstCall() : tool;
    if (t === null) return NOOP_RANGE;
    this.push(message, options);
    return new PushedRange(this);
  }

  /**
   * Pushes a range on this thread's stack of this domain (`nvtxRangePushEx`, `nvtxDomainRangePushEx`).
   *
   * @returns the depth the tool reports (0-based level of the new range), or -1 without a tool.
   */
  push(message: Message, options?: EventOptions): number {
    const t = tool === undefined ? firstCall() : tool;
    if (t === null) return -1;
    const keep = fill(this, message, options);
    let r = -1;
    if (this.name === null) {
      const f = t.fn(CORE, CBID.CORE.RangePushEx, T.pushP);
      if (f !== null) r = f(attributesAddress());
    } else {
      const f = t.fn(CORE2, CBID.CORE2.DomainRangePushEx, T.dPush);
      if (f !== null) r = f(this.#toolHandle(t), attributesAddress());
    }
    void keep;
    return r;
  }

  /**
   * Pops the innermost pushed range (`nvtxRangePop`, `nvtxDomainRangePop`).
   *
   * @returns the depth the tool reports, or -1 without a tool (or with nothing to pop).
   */
  pop(): number {
    const t = tool === undefined ? firstCall() : tool;
    if (t === null) return -1;
    if (this.name === null) {
      const f = t.fn(CORE, CBID.CORE.RangePop, T.pop);
      return f === null ? -1 : f();
    }
    const f = t.fn(CORE2, CBID.CORE2.DomainRangePop, T.dPop);
    return f === null ? -1 : f(this.#toolHandle(t));
  }

  /**
   * Starts a range that need not nest (`nvtxRangeStartEx`): it may end on another thread or after other ranges,
   * which suits async code. Ends when disposed or with `end()`.
   */
  startRange(message: Message, options?: EventOptions): NvtxRange {
    const t = tool === undefined ? firstCall() : tool;
    if (t === null) return NOOP_RANGE;
    const keep = fill(this, message, options);
    let id = 0n;
    if (this.name === null) {
      const f = t.fn(CORE, CBID.CORE.RangeStartEx, T.startP);
      if (f !== null) id = f(attributesAddress());
    } else {
      const f = t.fn(CORE2, CBID.CORE2.DomainRangeStartEx, T.dStart);
      if (f !== null) id = f(this.#toolHandle(t), attributesAddress());
    }
    void keep;
    return new StartedRange(this, id);
  }

  /** Ends a start/end range by the id the tool returned. */
  #endRange(id: bigint): void {
    const t = tool === undefined ? firstCall() : tool;
    if (t === null) return;
    if (this.name === null) t.fn(CORE, CBID.CORE.RangeEnd, T.end)?.(id);
    else t.fn(CORE2, CBID.CORE2.DomainRangeEnd, T.dEnd)?.(this.#toolHandle(t), id);
  }

  /** Marks an instant (`nvtxMarkEx`, `nvtxDomainMarkEx`). */
  mark(message: Message, options?: EventOptions): void {
    const t = tool === undefined ? firstCall() : tool;
    if (t === null) return;
    const keep = fill(this, message, options);
    if (this.name === null) t.fn(CORE, CBID.CORE.MarkEx, T.eventP)?.(attributesAddress());
    else t.fn(CORE2, CBID.CORE2.DomainMarkEx, T.dEvent)?.(this.#toolHandle(t), attributesAddress());
    void keep;
  }

  /** Names a category of this domain (`nvtxNameCategoryA`, `nvtxDomainNameCategoryA`). */
  nameCategory(category: number, name: string): void {
    if (!Number.isInteger(category) || category < 0 || category > 0xffffffff) throw new NvtxArgumentError("category", "an integer from 0 to 2^32-1", category);
    if (typeof name !== "string") throw new NvtxArgumentError("a category's name", "a string", name);
    const t = tool === undefined ? firstCall() : tool;
    if (t === null) return;
    const bytes = ffi.cstring(name);
    if (this.name === null) t.fn(CORE, CBID.CORE.NameCategoryA, T.nameU32)?.(category, ffi.pointerOf(bytes));
    else t.fn(CORE2, CBID.CORE2.DomainNameCategoryA, T.dNameCategory)?.(this.#toolHandle(t), category, ffi.pointerOf(bytes));
  }

  /**
   * Registers a string with this domain (`nvtxDomainRegisterStringA`): pass the result as a message and the tool
   * gets its handle, not the characters again. Register the names a loop uses once, outside the loop.
   */
  registerString(value: string): RegisteredString {
    if (typeof value !== "string") throw new NvtxArgumentError("a registered string", "a string", value);
    const t = tool === undefined ? firstCall() : tool;
    if (t === null) return new RegisteredString(INTERNAL, value, null, this);
    const f = t.fn(CORE2, CBID.CORE2.DomainRegisterStringA, T.dRegister);
    const bytes = ffi.cstring(value);
    return new RegisteredString(INTERNAL, value, f === null ? null : f(this.#toolHandle(t), ffi.pointerOf(bytes)), this);
  }
}

const defaultDomain = new Domain(INTERNAL, null);
const domains = new Map<string, Domain>();

/** The default domain (what `nvtx.range`, `nvtx.mark`, ... use). */
export const defaultNvtxDomain: Domain = defaultDomain;

/**
 * The domain of this name (made once per name; the tool sees it on first use).
 *
 * @param name - the domain's name, as tools show it.
 */
export function domain(name: string): Domain {
  if (typeof name !== "string" || name === "") throw new NvtxArgumentError("a domain's name", "a non-empty string", name);
  let d = domains.get(name);
  if (d === undefined) {
    d = new Domain(INTERNAL, name);
    domains.set(name, d);
  }
  return d;
}

/** Opens a push/pop range of the default domain that ends when disposed. See {@link Domain.range}. */
export function range(message: Message, options?: EventOptions): NvtxRange {
  if (tool === null) return NOOP_RANGE;
  return defaultDomain.range(message, options);
}

/** Pushes a range of the default domain. See {@link Domain.push}. */
export function push(message: Message, options?: EventOptions): number {
  if (tool === null) return -1;
  return defaultDomain.push(message, options);
}

/** Pops the innermost range of the default domain. See {@link Domain.pop}. */
export function pop(): number {
  if (tool === null) return -1;
  return defaultDomain.pop();
}

/** Starts a start/end range of the default domain. See {@link Domain.startRange}. */
export function startRange(message: Message, options?: EventOptions): NvtxRange {
  if (tool === null) return NOOP_RANGE;
  return defaultDomain.startRange(message, options);
}

/** Marks an instant in the default domain. See {@link Domain.mark}. */
export function mark(message: Message, options?: EventOptions): void {
  if (tool === null) return;
  defaultDomain.mark(message, options);
}

/** Names a category of the default domain. */
export function nameCategory(category: number, name: string): void {
  defaultDomain.nameCategory(category, name);
}

/** Registers a string with the default domain. See {@link Domain.registerString}. */
export function registerString(value: string): RegisteredString {
  return defaultDomain.registerString(value);
}

/** Anything with a native handle: a core `Stream`, `Context` or `Event`. */
interface HasHandle {
  readonly handle: Pointer;
}

/**
 * Names a CUDA object for the tool (`nvtxNameCuStreamA`, `nvtxNameCuContextA`, `nvtxNameCuEventA`,
 * `nvtxNameCuDeviceA`): Nsight Systems shows the name instead of a number.
 *
 * @param kind - which object.
 * @param object - a Stream, Context or Event for those kinds; a device ordinal for `"device"`.
 * @param name - the name to show.
 */
export function nameCudaObject(kind: "stream" | "context" | "event" | "device", object: HasHandle | number, name: string): void {
  if (typeof name !== "string") throw new NvtxArgumentError("the name", "a string", name);
  if (kind === "device") {
    if (typeof object !== "number" || !Number.isInteger(object) || object < 0) throw new NvtxArgumentError("a device", "a device ordinal", object);
  } else if (kind !== "stream" && kind !== "context" && kind !== "event") {
    throw new NvtxArgumentError("the kind", '"stream", "context", "event" or "device"', kind);
  } else if (typeof object !== "object" || object === null || !("handle" in object)) {
    throw new NvtxArgumentError(`a ${kind}`, `a ${kind} object (with a handle)`, object);
  }
  const t = current();
  if (t === null) return;
  const bytes = ffi.cstring(name);
  if (typeof object === "number") {
    t.fn(CUDA, CBID.CUDA.NameCuDeviceA, T.nameI32)?.(object, ffi.pointerOf(bytes));
    return;
  }
  const cbid = kind === "stream" ? CBID.CUDA.NameCuStreamA : kind === "context" ? CBID.CUDA.NameCuContextA : CBID.CUDA.NameCuEventA;
  t.fn(CUDA, cbid, T.namePtr)?.(object.handle, ffi.pointerOf(bytes));
}
