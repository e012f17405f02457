/**
 * Host callbacks: JavaScript functions the CUDA driver runs when a stream reaches them (`cuLaunchHostFunc`, through
 * `stream.launchHostFunction(fn)`) or when a graph reaches a host node (`builder.callback(fn)`,
 * `definition.callback(fn)`). The driver calls them from its own threads, never from the JavaScript thread, so they
 * need an FFI callback that is safe to call from a foreign thread.
 *
 * - **Deno**: one process-wide `Deno.UnsafeCallback.threadSafe` trampoline (`ffi.callback(..., { threadSafe: true })`)
 *   dispatches to the JavaScript functions by the id the driver hands back as `userData`. A call from a driver thread
 *   is queued to the JavaScript thread, and the driver thread blocks until the function returns: the stream waits
 *   for the function, as CUDA specifies. A function queued on a stream is held (and keeps the event loop alive)
 *   until it has run, then released (the trampoline is unref'd again, so it never keeps the process alive by
 *   itself). A graph holds its host functions as long as it lives; each launch of a graph with host nodes holds them
 *   (and the event loop) until the launch has passed them.
 *
 *   **Deadlock**: while a host function is pending, the JavaScript thread must not block in a synchronous CUDA wait
 *   on work behind it: `stream.sync()`, `event.sync()`, `device.sync()`, `context.sync()`. The driver thread would
 *   wait for the JavaScript thread and the JavaScript thread for the driver, forever. Await `stream.done()` (or
 *   `event.done()`) instead: the JavaScript thread stays free to run the function.
 * - **Bun**: bun:ffi's `threadsafe` JSCallback corrupts the JavaScript heap when called from foreign threads (Bun
 *   issues 24529, 28113, 33840, 41857, the last still open), and it returns to the calling thread before the
 *   JavaScript function has run (seen on Bun 1.4.5), so no driver thread ever calls JavaScript on Bun. Instead
 *   `stream.launchHostFunction(fn)` records an event on the stream where the function would be queued and runs `fn`
 *   on the JavaScript thread once the event has completed (polled as `stream.done()` polls, never blocking the event
 *   loop; the functions of one stream run in the order they were queued). The differences from Deno and from CUDA:
 *   the stream is **not** held back while the function runs (work queued after it may start, and finish, before
 *   the function has run), and the function runs a little later (under about 2 ms after the stream reaches it).
 *   `stream.done()` can therefore resolve before a Bun host function has run: await {@link hostFunctionsSettled}
 *   for that. Work that must wait for the host function belongs after `await hostFunctionsSettled()` (or in the
 *   function). Graph host nodes (`builder.callback`, `definition.callback`) and host functions on a capturing
 *   stream are still refused with {@link UnsupportedOnRuntimeError} on Bun: a graph cannot record an event the
 *   JavaScript side could wait for. (cuda.core has no such fallback: its host callbacks always run on a driver
 *   thread, through `cuLaunchHostFunc` with a ctypes or Cython trampoline, and hold the stream.)
 *
 * An exception thrown by a host function cannot reach the code that queued it: it is reported as an uncaught
 * exception (`globalThis.reportError`), as for a timer callback, and the stream continues. Host functions must not
 * call CUDA (the driver forbids it in host functions) and should return quickly: the stream waits for them.
 *
 * @module
 */
import { CUevent_flags, CUhostFn_signature, CUstreamCaptureStatus, type CUhostFn } from "../bindings/driver.ts";
import { ffi, UnsupportedOnRuntimeError, type NativeCallback, type Pointer } from "../ffi/index.ts";
import { driver, withCurrentContext } from "./base/driver-state.ts";
import { waitForEvent } from "./base/waiting.ts";
import { GraphAttachments } from "./graph/attachments.ts";
import { GraphStateError } from "./graph/errors.ts";
import type { CaptureSink, Stream } from "./stream.ts";
import { describeValue } from "../errors/describe.ts";

/** A function the driver runs on the host when a stream or a graph reaches it. */
export type HostFunction = () => void;

/**
 * Whether host callbacks run on the driver's threads and hold the stream (Deno: true), so graph host nodes work too;
 * false on Bun, where `stream.launchHostFunction` runs the function after an event instead (see the module
 * documentation) and graph host nodes are refused.
 */
export const hostCallbacksSupported: boolean = ffi.supportsThreadSafeCallbacks;

/**
 * How `stream.launchHostFunction` runs functions on this runtime: "driver-thread" (Deno: `cuLaunchHostFunc`, the
 * stream waits for the function) or "event" (Bun: an event recorded on the stream, the function run on the
 * JavaScript thread once it completes; the stream does not wait).
 */
export const hostFunctionMode: "driver-thread" | "event" = ffi.supportsThreadSafeCallbacks ? "driver-thread" : "event";

/** A graph's host function: what the graph keeps alive and the dispatcher finds through a weak reference. */
class HostCallbackHolder {
  constructor(readonly fn: HostFunction) {}
}

let trampoline: NativeCallback | undefined;
let nextId = 1;
/** Functions queued once on a stream, until they have run. */
const queued = new Map<number, HostFunction>();
/** Graph host functions: alive as long as a graph holds them. */
const graphFunctions = new Map<number, WeakRef<HostCallbackHolder>>();
const forget = new FinalizationRegistry<number>((id) => graphFunctions.delete(id));
/** Pending work that keeps the event loop alive (queued functions and graph launches with host nodes). */
let refs = 0;

function report(error: unknown): void {
  const reportError = (globalThis as { reportError?: (e: unknown) => void }).reportError;
  if (typeof reportError === "function") reportError(error);
  else {
    setTimeout(() => {
      throw error;
    }, 0);
  }
}

function call(fn: HostFunction): void {
  try {
    fn();
  } catch (e) {
    report(e);
  }
}

function dispatch(userData: Pointer): void {
  const id = ffi.addressOf(userData);
  const once = queued.get(id);
  if (once !== undefined) {
    queued.delete(id);
    try {
      call(once);
    } finally {
      release();
    }
    return;
  }
  const holder = graphFunctions.get(id)?.deref();
  if (holder !== undefined) call(holder.fn);
}

function hold(): void {
  if (refs++ === 0) trampoline!.ref();
}

function release(): void {
  if (--refs === 0) trampoline!.unref();
}

function refusal(action: string): UnsupportedOnRuntimeError {
  return new UnsupportedOnRuntimeError(
    ffi.runtime,
    "host callbacks",
    `${action} needs a callback that CUDA can call from its own threads, and ${ffi.runtime === "bun" ? "Bun" : "this runtime"} ` +
      "cannot provide one safely: bun:ffi's threadsafe JSCallback corrupts the JavaScript heap when called from a " +
      "foreign thread (Bun issues 24529, 28113, 33840, 41857), and it returns before the JavaScript function has run, " +
      "so the stream would not wait for it. Run the program with Deno (deno run --allow-ffi ...), or do the host " +
      "work after `await stream.done()`.",
  );
}

/** The trampoline's function pointer, created on first use (and then unref'd: only pending work holds the loop). */
function trampolinePointer(action: string): CUhostFn {
  if (trampoline === undefined) {
    if (!ffi.supportsThreadSafeCallbacks) throw refusal(action);
    const t = ffi.callback(CUhostFn_signature, dispatch, { threadSafe: true });
    t.unref(); // a thread-safe callback starts referenced once
    trampoline = t;
  }
  return trampoline.pointer as CUhostFn;
}

function checkFunction(fn: unknown, action: string): asserts fn is HostFunction {
  if (typeof fn !== "function") {
    throw new TypeError(`${action} takes a function (() => void), not ${describeValue(fn)}`);
  }
}

/**
 * @internal Registers a host function for a graph node: the returned `fn`/`userData` pair goes into the node (or a
 * captured cuLaunchHostFunc); `attachments` keeps the function alive as long as the graph.
 */
export function registerGraphHostFunction(fn: HostFunction, attachments: GraphAttachments, action: string): { fn: CUhostFn; userData: Pointer } {
  checkFunction(fn, action);
  const pointer = trampolinePointer(action);
  const id = nextId++;
  const holder = new HostCallbackHolder(fn);
  graphFunctions.set(id, new WeakRef(holder));
  forget.register(holder, id);
  attachments.addHostCallback(holder);
  return { fn: pointer, userData: ffi.pointerFromAddress(id) };
}

/**
 * @internal Queues `fn` on `stream` (cuLaunchHostFunc). On a stream a GraphBuilder captures (`sink`, the stream's
 * capture sink), it becomes a host node of the graph (held by the graph). Throws UnsupportedOnRuntimeError on Bun, before queueing anything.
 */
export function launchHostFunction(stream: Stream, sink: CaptureSink | undefined, fn: HostFunction, action = "stream.launchHostFunction"): void {
  checkFunction(fn, action);
  if (!ffi.supportsThreadSafeCallbacks && sink === undefined && action === "stream.launchHostFunction") {
    launchAfterEvent(stream, fn, action);
    return;
  }
  const pointer = trampolinePointer(action);
  if (sink instanceof GraphAttachments) {
    const node = registerGraphHostFunction(fn, sink, action);
    driver.cuLaunchHostFunc(stream.handle, node.fn, node.userData);
    return;
  }
  if (driver.cuStreamIsCapturing(stream.handle) !== CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE) {
    throw new GraphStateError(
      `${action}: the stream is being captured, but not by a GraphBuilder, so nothing would keep the function alive ` +
        "as long as the graph: capture with a GraphBuilder (builder.callback(fn)), or add a host node to a GraphDefinition",
    );
  }
  const userData = queueHostFunction(fn, action);
  try {
    driver.cuLaunchHostFunc(stream.handle, pointer, userData);
  } catch (e) {
    cancelHostFunction(userData);
    throw e;
  }
}

/**
 * @internal Holds a function that the trampoline will run once, when called with the returned `userData`; until
 * then it keeps the event loop alive. Throws UnsupportedOnRuntimeError on Bun.
 */
export function queueHostFunction(fn: HostFunction, action: string): Pointer {
  checkFunction(fn, action);
  trampolinePointer(action);
  const id = nextId++;
  queued.set(id, fn);
  hold();
  return ffi.pointerFromAddress(id);
}

/** @internal Forgets a queued function that will not be called (its launch failed). */
export function cancelHostFunction(userData: Pointer): void {
  if (queued.delete(ffi.addressOf(userData))) release();
}

/** @internal The trampoline every host function goes through (`CUhostFn`); throws UnsupportedOnRuntimeError on Bun. */
export function hostFunctionTrampoline(): CUhostFn {
  return trampolinePointer("host callbacks");
}

/**
 * @internal After a launch of a graph with host nodes: holds `value` (the graph's attachments) and the event loop
 * until the stream has passed the launch.
 */
export function holdUntilPassed(stream: Stream, sink: CaptureSink | undefined, value: unknown): void {
  launchHostFunction(stream, sink, () => void value, "Graph.launch");
}

/** @internal How many queued host functions and graph launches with host nodes have not run yet (for tests). */
export function pendingHostFunctions(): number {
  return refs;
}

// ---- Bun: host functions after an event (see the module documentation) ----

const CU_EVENT_DISABLE_TIMING = CUevent_flags.CU_EVENT_DISABLE_TIMING;
/** The last pending host function of each stream: the next one runs after it (stream order). */
const tails = new WeakMap<Stream, Promise<void>>();
/** Host functions queued after events that have not run yet. */
const eventPending = new Set<Promise<void>>();

/**
 * Resolves once every host function queued so far with `stream.launchHostFunction` has run. On Bun that is after
 * each one's event completed and the function ran on the JavaScript thread; on Deno, where the driver runs them
 * and the stream waits for them, `await stream.done()` says the same and this resolves at once.
 */
export async function hostFunctionsSettled(): Promise<void> {
  while (eventPending.size > 0) await Promise.allSettled([...eventPending]);
}

function launchAfterEvent(stream: Stream, fn: HostFunction, action: string): void {
  if (driver.cuStreamIsCapturing(stream.handle) !== CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE) throw refusal(`${action} on a capturing stream`);
  const event = withCurrentContext(stream.context.handle, () => {
    const e = driver.cuEventCreate(CU_EVENT_DISABLE_TIMING);
    try {
      driver.cuEventRecord(e, stream.handle);
    } catch (err) {
      driver.cuEventDestroy(e);
      throw err;
    }
    return e;
  });
  const previous = tails.get(stream);
  const run = (async () => {
    try {
      if (previous !== undefined) await previous;
      await waitForEvent(event, action);
      call(fn);
    } catch (e) {
      report(e);
    } finally {
      driver.raw.cuEventDestroy(event);
    }
  })();
  eventPending.add(run);
  tails.set(stream, run);
  void run.then(() => {
    eventPending.delete(run);
    if (tails.get(stream) === run) tails.delete(stream);
  });
}
