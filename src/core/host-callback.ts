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
 * - **Bun**: refused with {@link UnsupportedOnRuntimeError} before anything is queued. bun:ffi's `threadsafe`
 *   JSCallback corrupts the JavaScript heap when called from foreign threads (Bun issues 24529, 28113, 33840, 41857,
 *   the last still open), and it returns to the calling thread before the JavaScript function has run (seen on Bun
 *   1.4.5: a thread created with pthread_create returned from the callback before the function had run), so a
 *   stream could not wait for the function anyway.
 *
 * An exception thrown by a host function cannot reach the code that queued it: it is reported as an uncaught
 * exception (`globalThis.reportError`), as for a timer callback, and the stream continues. Host functions must not
 * call CUDA (the driver forbids it in host functions) and should return quickly: the stream waits for them.
 *
 * @module
 */
import { CUhostFn_signature, CUstreamCaptureStatus, type CUhostFn } from "../bindings/driver.ts";
import { ffi, UnsupportedOnRuntimeError, type NativeCallback, type Pointer } from "../ffi/index.ts";
import { driver } from "./base/driver-state.ts";
import { GraphAttachments } from "./graph/attachments.ts";
import { GraphStateError } from "./errors.ts";
import type { CaptureSink, Stream } from "./stream.ts";
import { describeValue } from "./base/checks.ts";

/** A function the driver runs on the host when a stream or a graph reaches it. */
export type HostFunction = () => void;

/** Whether host callbacks can run on this runtime: true on Deno, false on Bun (see the module documentation). */
export const hostCallbacksSupported: boolean = ffi.supportsThreadSafeCallbacks;

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
