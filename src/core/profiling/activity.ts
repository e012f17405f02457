/**
 * `profile()`'s implementation over CUPTI's activity API (loaded on the first `profile()`: see index.ts for what it
 * does and the threads it expects callbacks on).
 *
 * @module
 */
import { cupti, cuptiError, CUpti_ActivityKernel10, CUpti_ActivityKind, CUpti_ActivityMemcpy6, CUpti_ActivityMemset4, CUpti_ActivityMemcpyKind, CUpti_BuffersCallbackCompleteFunc_signature, CUpti_BuffersCallbackRequestFunc_signature, CUptiResult } from "../../bindings/cupti.ts";
import { CUpti_ActivityKernel9, CUpti_ActivityMemcpy5, CUpti_ActivityMemset4 as CUpti_ActivityMemset4_12 } from "../../bindings/cuda-12.4/cupti.ts";
import type { CUpti_BuffersCallbackCompleteFunc, CUpti_BuffersCallbackRequestFunc } from "../../bindings/cupti.ts";
import type { CUcontext } from "../../bindings/driver.ts";
import { ffi, type NativeCallback, type NativePointer, type Pointer } from "../../ffi/index.ts";
import { currentContextHandle, driver, ensureInit } from "../base/driver-state.ts";
import type { FieldInfo } from "../../tables-runtime/record.ts";
import { ProfileOptionError, ProfilerBusyError, ProfilerUnsupportedError } from "./errors.ts";
import { getEnv, runtimeName } from "../../host.ts";
import type { ActivityKind, KernelActivity, MemcpyActivity, MemcpyDirection, MemsetActivity, ProfileOptions, ProfileResult, StreamActivity, StreamLike } from "./types.ts";

const DIRECTIONS: Record<number, MemcpyDirection> = {
  [CUpti_ActivityMemcpyKind.CUPTI_ACTIVITY_MEMCPY_KIND_HTOD]: "HtoD",
  [CUpti_ActivityMemcpyKind.CUPTI_ACTIVITY_MEMCPY_KIND_DTOH]: "DtoH",
  [CUpti_ActivityMemcpyKind.CUPTI_ACTIVITY_MEMCPY_KIND_HTOA]: "HtoA",
  [CUpti_ActivityMemcpyKind.CUPTI_ACTIVITY_MEMCPY_KIND_ATOH]: "AtoH",
  [CUpti_ActivityMemcpyKind.CUPTI_ACTIVITY_MEMCPY_KIND_ATOA]: "AtoA",
  [CUpti_ActivityMemcpyKind.CUPTI_ACTIVITY_MEMCPY_KIND_ATOD]: "AtoD",
  [CUpti_ActivityMemcpyKind.CUPTI_ACTIVITY_MEMCPY_KIND_DTOA]: "DtoA",
  [CUpti_ActivityMemcpyKind.CUPTI_ACTIVITY_MEMCPY_KIND_DTOD]: "DtoD",
  [CUpti_ActivityMemcpyKind.CUPTI_ACTIVITY_MEMCPY_KIND_HTOH]: "HtoH",
  [CUpti_ActivityMemcpyKind.CUPTI_ACTIVITY_MEMCPY_KIND_PTOP]: "PtoP",
};

const KIND_CODES: Record<ActivityKind, number> = {
  kernel: CUpti_ActivityKind.CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
  memcpy: CUpti_ActivityKind.CUPTI_ACTIVITY_KIND_MEMCPY,
  memset: CUpti_ActivityKind.CUPTI_ACTIVITY_KIND_MEMSET,
};
const DEFAULT_BUFFER = 8 * 1024 * 1024;
const MIN_BUFFER = 64 * 1024;
const ALIGN = 8;

// ---- record layouts, from the generated record classes of the loaded CUPTI's table ----

interface RecordClassLike {
  readonly $fields: readonly FieldInfo[];
  readonly $cName: string;
}
type Reader = (view: DataView, at: number) => number;
type BigReader = (view: DataView, at: number) => bigint;

function field(cls: RecordClassLike, name: string): FieldInfo {
  const f = cls.$fields.find((x) => x.name === name);
  if (f === undefined) throw new TypeError(`internal: ${cls.$cName} has no field ${name} (the generated CUPTI tables changed)`);
  return f;
}
function u(cls: RecordClassLike, name: string, signed = false): Reader {
  const { offset, size } = field(cls, name);
  if (size === 1) return (v, at) => v.getUint8(at + offset);
  if (size === 2) return (v, at) => v.getUint16(at + offset, true);
  if (size === 4) return signed ? (v, at) => v.getInt32(at + offset, true) : (v, at) => v.getUint32(at + offset, true);
  if (size === 8) return (v, at) => Number(v.getBigUint64(at + offset, true));
  throw new TypeError(`internal: ${cls.$cName}.${name} has ${size} bytes (the generated CUPTI tables changed)`);
}
function u64(cls: RecordClassLike, name: string): BigReader {
  const { offset } = field(cls, name);
  return (v, at) => v.getBigUint64(at + offset, true);
}

interface Layouts {
  readonly kernel: (v: DataView, at: number) => KernelActivity;
  readonly memcpy: (v: DataView, at: number) => MemcpyActivity;
  readonly memset: (v: DataView, at: number) => MemsetActivity;
}

function kernelReader(cls: RecordClassLike): Layouts["kernel"] {
  const start = u64(cls, "start");
  const end = u64(cls, "end");
  const [gx, gy, gz, bx, by, bz] = ["gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"].map((n) => u(cls, n, true)) as [Reader, Reader, Reader, Reader, Reader, Reader];
  const streamId = u(cls, "streamId");
  const contextId = u(cls, "contextId");
  const deviceId = u(cls, "deviceId");
  const correlationId = u(cls, "correlationId");
  const regs = u(cls, "registersPerThread");
  const ssm = u(cls, "staticSharedMemory", true);
  const dsm = u(cls, "dynamicSharedMemory", true);
  const nameOffset = field(cls, "name").offset;
  return (v, at) => {
    const s = start(v, at);
    const e = end(v, at);
    return {
      name: ffi.readCString(ffi.readPointer(v, at + nameOffset)) ?? "",
      grid: [gx(v, at), gy(v, at), gz(v, at)],
      block: [bx(v, at), by(v, at), bz(v, at)],
      start: s,
      end: e,
      duration: Number(e - s),
      streamId: streamId(v, at),
      contextId: contextId(v, at),
      deviceId: deviceId(v, at),
      correlationId: correlationId(v, at),
      registersPerThread: regs(v, at),
      staticSharedMemory: ssm(v, at),
      dynamicSharedMemory: dsm(v, at),
    };
  };
}

function common(cls: RecordClassLike) {
  const start = u64(cls, "start");
  const end = u64(cls, "end");
  const bytes = u(cls, "bytes");
  const streamId = u(cls, "streamId");
  const contextId = u(cls, "contextId");
  const deviceId = u(cls, "deviceId");
  const correlationId = u(cls, "correlationId");
  return (v: DataView, at: number) => {
    const s = start(v, at);
    const e = end(v, at);
    return { bytes: bytes(v, at), start: s, end: e, duration: Number(e - s), streamId: streamId(v, at), contextId: contextId(v, at), deviceId: deviceId(v, at), correlationId: correlationId(v, at) };
  };
}

function memcpyReader(cls: RecordClassLike): Layouts["memcpy"] {
  const rest = common(cls);
  const copyKind = u(cls, "copyKind");
  return (v, at) => ({ kind: DIRECTIONS[copyKind(v, at)] ?? "unknown", ...rest(v, at) });
}

function memsetReader(cls: RecordClassLike): Layouts["memset"] {
  const rest = common(cls);
  const value = u(cls, "value");
  return (v, at) => ({ value: value(v, at), ...rest(v, at) });
}

/** The record layouts of the CUPTI version loaded (12.x: the 12.4 table's; otherwise 13.0's). */
export function layoutsFor(ctkVersion: string): Layouts {
  if (ctkVersion.startsWith("12.")) {
    return { kernel: kernelReader(CUpti_ActivityKernel9), memcpy: memcpyReader(CUpti_ActivityMemcpy5), memset: memsetReader(CUpti_ActivityMemset4_12) };
  }
  return { kernel: kernelReader(CUpti_ActivityKernel10), memcpy: memcpyReader(CUpti_ActivityMemcpy6), memset: memsetReader(CUpti_ActivityMemset4) };
}

// ---- buffers and callbacks (once per process) ----

interface Collector {
  readonly kernels: KernelActivity[];
  readonly memcpys: MemcpyActivity[];
  readonly memsets: MemsetActivity[];
  dropped: number;
}

interface Outstanding {
  readonly buffer: ArrayBuffer;
  readonly view: DataView;
  readonly base: number;
}

let state:
  | {
      readonly layouts: Layouts;
      readonly callbacks: readonly NativeCallback[];
      readonly recordSlot: ArrayBuffer;
      readonly recordSlotPointer: NativePointer;
    }
  | undefined;
/** Buffers CUPTI holds, by address. */
const outstanding = new Map<number, Outstanding>();
/** Buffers CUPTI gave back, reused by the next request of the same size. */
const spare: ArrayBuffer[] = [];
let bufferBytes = DEFAULT_BUFFER;
let collector: Collector | undefined;
/** Records delivered while no profile() was collecting (a late buffer from CUPTI's thread); dropped. */
let strays = 0;

function requestBuffer(outBuffer: Pointer, outSize: Pointer, outMaxRecords: Pointer): void {
  if (ffi.isNull(outBuffer) || ffi.isNull(outSize)) return;
  const size = bufferBytes;
  let buffer = spare.pop();
  if (buffer === undefined || buffer.byteLength !== size + ALIGN) buffer = new ArrayBuffer(size + ALIGN);
  const raw = ffi.addressOf(ffi.pointerOf(buffer));
  const offset = (ALIGN - (raw % ALIGN)) % ALIGN;
  const base = raw + offset;
  outstanding.set(base, { buffer, view: new DataView(buffer, offset, size), base });
  ffi.writePointer(new DataView(ffi.view(outBuffer, 8)), 0, ffi.pointerFromAddress(base));
  new DataView(ffi.view(outSize, 8)).setBigUint64(0, BigInt(size), true);
  if (!ffi.isNull(outMaxRecords)) new DataView(ffi.view(outMaxRecords, 8)).setBigUint64(0, 0n, true);
}

function completeBuffer(context: Pointer, streamId: number, buffer: Pointer, _size: bigint, validSize: bigint): void {
  const s = state;
  if (s === undefined || ffi.isNull(buffer)) return;
  const address = ffi.addressOf(buffer);
  const held = outstanding.get(address);
  if (held === undefined) return; // not one of ours
  outstanding.delete(address);
  try {
    const c = collector;
    const getNext = cupti.raw.cuptiActivityGetNextRecord;
    const slot = new DataView(s.recordSlot);
    if (validSize > 0n) {
      // The walk starts from a null record: CUPTI leaves the slot at the last record of the previous walk when it
      // reaches a buffer's end, and a stale record there would make it walk on from another buffer's record (or
      // from the end of this one, when a spare buffer comes back at the same address): no records at all.
      slot.setBigUint64(0, 0n, true);
      for (;;) {
        const r = getNext(buffer, validSize, s.recordSlotPointer);
        if (r !== CUptiResult.CUPTI_SUCCESS) break; // CUPTI_ERROR_MAX_LIMIT_REACHED: the end of the buffer
        const at = ffi.addressOf(ffi.readPointer(slot, 0)) - held.base;
        if (c === undefined) {
          strays++;
          continue;
        }
        const kind = held.view.getUint32(at, true);
        if (kind === KIND_CODES.kernel || kind === CUpti_ActivityKind.CUPTI_ACTIVITY_KIND_KERNEL) c.kernels.push(s.layouts.kernel(held.view, at));
        else if (kind === KIND_CODES.memcpy) c.memcpys.push(s.layouts.memcpy(held.view, at));
        else if (kind === KIND_CODES.memset) c.memsets.push(s.layouts.memset(held.view, at));
      }
    }
    if (c !== undefined) {
      if (cupti.raw.cuptiActivityGetNumDroppedRecords(context as CUcontext, streamId, ffi.offsetPointer(s.recordSlotPointer, 8)) === 0) {
        c.dropped += Number(slot.getBigUint64(8, true));
      }
    }
  } finally {
    if (spare.length < 4) spare.push(held.buffer);
  }
}

function setUp(): NonNullable<typeof state> {
  if (state !== undefined) return state;
  const choice = cupti.table(); // loads libcupti (LibraryNotFoundError says where it looked and what to set)
  const layouts = layoutsFor(choice.table.library.ctkVersion);
  const threadSafe = ffi.supportsThreadSafeCallbacks;
  const req = ffi.callback(CUpti_BuffersCallbackRequestFunc_signature, requestBuffer, { threadSafe });
  const done = ffi.callback(CUpti_BuffersCallbackCompleteFunc_signature, completeBuffer, { threadSafe });
  if (threadSafe) {
    // thread-safe callbacks start referenced: they must not keep the event loop alive by themselves
    req.unref();
    done.unref();
  }
  cupti.cuptiActivityRegisterCallbacks(req.pointer as CUpti_BuffersCallbackRequestFunc, done.pointer as CUpti_BuffersCallbackCompleteFunc);
  const recordSlot = new ArrayBuffer(16);
  state = { layouts, callbacks: [req, done], recordSlot, recordSlotPointer: ffi.pointerOf(recordSlot) };
  return state;
}

/**
 * `cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)`: CUPTI hands back every buffer through the completion
 * callback before it returns. On Deno the call runs on a worker thread (a non-blocking FFI call) while the
 * JavaScript thread waits in the event loop, so the thread-safe callbacks run whichever thread CUPTI calls them
 * from, and a CUPTI thread waiting for the JavaScript thread cannot deadlock it. On Bun it is a plain call: CUPTI
 * calls the callback on the calling thread, the JavaScript thread.
 */
async function flushAll(callbacks: readonly NativeCallback[]): Promise<void> {
  if (!ffi.supportsNonblocking) {
    cupti.cuptiActivityFlushAll(1);
    return;
  }
  for (const cb of callbacks) cb.ref();
  try {
    const r = await cupti.nonblocking("cuptiActivityFlushAll")(1);
    if (r !== CUptiResult.CUPTI_SUCCESS) throw cuptiError(r, "cuptiActivityFlushAll");
  } finally {
    for (const cb of callbacks) cb.unref();
  }
}

function kindsOf(options: ProfileOptions | undefined): ActivityKind[] {
  const kinds = options?.kinds ?? (["kernel", "memcpy", "memset"] as const);
  if (!Array.isArray(kinds) || kinds.length === 0) throw new ProfileOptionError("kinds", 'a non-empty array of "kernel", "memcpy", "memset"', kinds);
  for (const k of kinds) if (!(k in KIND_CODES)) throw new ProfileOptionError("each kind", '"kernel", "memcpy" or "memset"', k);
  return [...new Set(kinds)];
}

/**
 * Runs `fn` with CUPTI's activity collection on and returns what ran on the GPU meanwhile: kernels (name, grid,
 * block, start, end, duration, stream, correlation id), memcpys (direction, bytes, times, stream) and memsets.
 *
 * @param fn - the work to time; it may be async. Launch on any stream; await its completion or leave it to
 *   `synchronize` (the default waits for the current context).
 * @param options - kinds to collect, whether to synchronize, buffer size.
 * @returns the function's result and the activity records.
 * @throws {@link ProfilerBusyError} while another `profile()` runs; {@link ProfileOptionError} for bad options;
 *   `LibraryNotFoundError` when libcupti is not found; `CUPTIError` when CUPTI refuses (another profiler owns it).
 *   An exception of `fn` is rethrown after collection is switched off.
 */
export async function profile<T>(fn: () => T | Promise<T>, options?: ProfileOptions): Promise<ProfileResult<Awaited<T>>> {
  if (typeof fn !== "function") throw new ProfileOptionError("the first argument", "a function", fn);
  const kinds = kindsOf(options);
  const synchronize = options?.synchronize ?? true;
  if (typeof synchronize !== "boolean") throw new ProfileOptionError("synchronize", "a boolean", synchronize);
  const requested = options?.bufferBytes ?? DEFAULT_BUFFER;
  if (!Number.isSafeInteger(requested) || requested < MIN_BUFFER) throw new ProfileOptionError("bufferBytes", `an integer of at least ${MIN_BUFFER}`, requested);
  if (collector !== undefined) throw new ProfilerBusyError();
  if (runtimeName === "bun" && getEnv("CUDA_TS_BUN_CUPTI") !== "1") throw new ProfilerUnsupportedError();
  const s = setUp();
  const c: Collector = { kernels: [], memcpys: [], memsets: [], dropped: 0 };
  collector = c;
  bufferBytes = requested;
  const enabled: number[] = [];
  let begin = 0n;
  let end = 0n;
  let result: Awaited<T>;
  try {
    for (const k of kinds) {
      cupti.cuptiActivityEnable(KIND_CODES[k] as CUpti_ActivityKind);
      enabled.push(KIND_CODES[k]);
    }
    begin = cupti.cuptiGetTimestamp();
    try {
      result = await fn();
    } finally {
      if (synchronize) {
        ensureInit();
        if (currentContextHandle() !== null) driver.cuCtxSynchronize();
      }
    }
    end = cupti.cuptiGetTimestamp();
  } finally {
    try {
      for (const k of enabled) cupti.cuptiActivityDisable(k as CUpti_ActivityKind);
      await flushAll(s.callbacks);
    } finally {
      collector = undefined;
    }
  }
  const { kernels, memcpys, memsets } = c;
  return {
    result,
    kernels,
    memcpys,
    memsets,
    dropped: c.dropped,
    begin,
    end,
    forStream(stream: StreamLike): StreamActivity {
      const streamId = streamIdOf(stream);
      const mine = <R extends { readonly streamId: number }>(r: R): boolean => r.streamId === streamId;
      return { streamId, kernels: kernels.filter(mine), memcpys: memcpys.filter(mine), memsets: memsets.filter(mine) };
    },
  };
}

/** Records CUPTI delivered while no `profile()` was collecting (dropped). For diagnostics. */
export function strayRecords(): number {
  return strays;
}

/**
 * CUPTI's id of a stream (`cuptiGetStreamIdEx`): what `streamId` of the records is, to pick one stream's work.
 *
 * @param stream - a core Stream.
 */
export function streamIdOf(stream: StreamLike): number {
  setUp();
  return cupti.cuptiGetStreamIdEx(stream.context.handle as never, stream.handle as never, 0);
}
