/**
 * Failed releases: where a destroy call that fails has no caller to throw to. A forgotten object is released by a
 * FinalizationRegistry callback after garbage collection (see `lifetime.ts`), and a few `close()` paths release a
 * part of an object without throwing (the compilers' programs, a capture a GraphBuilder discards). Their failures
 * (`cuStreamDestroy`, `cuMemFree`, `ncclCommAbort` returning an error) come here: to the handler set with
 * {@link onReleaseError}, or by default to one `console.warn` line per kind of object per process.
 *
 * @module
 */

/**
 * When a failed release happened: `"finalizer"` after garbage collection (the object was never closed);
 * `"dispose"` in an explicit release that does not throw to its caller (`close()` and `using` where they release
 * without throwing, a program replaced by a fresh one before a compilation, the cleanup after another error).
 */
export type ReleasePhase = "finalizer" | "dispose";

/** A release that failed where nothing could catch it: what {@link onReleaseError}'s handler receives. */
export interface ReleaseFailure {
  /** The class of the object whose resource failed to release: `"Stream"`, `"Buffer"`, `"Event"`, `"Communicator"`... */
  readonly kind: string;
  /** What the release threw: usually a `LibraryError` (a `CudaError` naming the code and the function), or an `NCCLError`. */
  readonly error: unknown;
  /** After garbage collection, or in an explicit release. */
  readonly during: ReleasePhase;
}

/** Receives every failed release (see {@link onReleaseError}). It runs inside a finalizer: keep it short, never block. */
export type ReleaseFailureHandler = (failure: ReleaseFailure) => void;

let handler: ReleaseFailureHandler | undefined;
/** The kinds the default has warned about (one line per kind per process). */
const warnedKinds = new Set<string>();
let warnedHandlerThrew = false;

/**
 * Sees every release that failed where no caller could catch the error: the release of an object nobody closed, run
 * after garbage collection, and the few `close()` paths that release a part of an object without throwing. Without
 * a handler, cuda-ts prints one `console.warn` line for the first failure of each kind of object (`Stream`,
 * `Buffer`, ...) and drops the later ones.
 *
 * There is one handler: a new one replaces the one before; `onReleaseError(undefined)` restores the default. The
 * function returned removes `handler` again (restoring the default) unless another handler has replaced it since.
 * A handler that throws is reported with one warning, and that failure gets the default treatment.
 *
 * ```ts
 * const stop = onReleaseError(({ kind, error, during }) => log.error({ kind, during, error }, "CUDA release failed"));
 * // ...
 * stop();
 * ```
 *
 * `close()` itself still throws its own failures to its caller: a handler sees only what nothing else can.
 */
export function onReleaseError(newHandler: ReleaseFailureHandler | undefined): () => void {
  if (newHandler !== undefined && typeof newHandler !== "function") {
    throw new TypeError(`onReleaseError takes a function or undefined, not ${newHandler === null ? "null" : typeof newHandler}`);
  }
  handler = newHandler;
  return () => {
    if (newHandler !== undefined && handler === newHandler) handler = undefined;
  };
}

/**
 * @internal Reports a failed release to the handler, or with the default warning. Never throws (it runs inside
 * FinalizationRegistry callbacks).
 */
export function reportReleaseFailure(kind: string, error: unknown, during: ReleasePhase): void {
  const h = handler;
  if (h !== undefined) {
    try {
      h({ kind, error, during });
      return;
    } catch (thrown) {
      warnHandlerThrew(thrown);
    }
  }
  warnOnce(kind, error, during);
}

/**
 * @internal Runs `release`; a failure goes to {@link reportReleaseFailure} with `during: "dispose"` instead of
 * to the caller. For `close()` paths that release a part of an object without throwing.
 */
export function releaseReporting(kind: string, release: () => void): void {
  try {
    release();
  } catch (e) {
    reportReleaseFailure(kind, e, "dispose");
  }
}

function warnOnce(kind: string, error: unknown, during: ReleasePhase): void {
  if (warnedKinds.has(kind)) return;
  warnedKinds.add(kind);
  const how = during === "finalizer" ? "released at garbage collection" : "released by close() or `using`";
  warn(
    `cuda-ts: ${article(kind)} ${kind} ${how} failed: ${firstLine(error)}; later failures of this kind are not reported. ` +
      "Call onReleaseError(handler) to see every one.",
  );
}

function warnHandlerThrew(thrown: unknown): void {
  if (warnedHandlerThrew) return;
  warnedHandlerThrew = true;
  warn(`cuda-ts: the onReleaseError handler threw (${firstLine(thrown)}); the failures it throws on get the default warning.`);
}

function warn(line: string): void {
  try {
    console.warn(line);
  } catch {
    // A console that throws (closed stream, replaced console) must not break the finalizer: there is nowhere left.
  }
}

/** The first line of an error's message (an NVRTC error can carry a whole log), never throwing. */
function firstLine(error: unknown): string {
  let text: string;
  try {
    text = error instanceof Error ? error.message || error.name : String(error);
  } catch {
    text = "an error that cannot be printed";
  }
  const end = text.indexOf("\n");
  return end < 0 ? text : text.slice(0, end);
}

function article(word: string): string {
  return /^[AEIOU]/.test(word) ? "an" : "a";
}
