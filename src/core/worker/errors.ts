/**
 * Errors crossing a Worker boundary. Structured cloning keeps an Error's message but not its class or its fields
 * (an NVRTCError's `log`, a LibraryNotFoundError's `attempts`), so the worker sends {@link SerializedError} and the
 * caller's side rebuilds an error of the same class: `instanceof NVRTCError` holds on both sides of the boundary,
 * with the same message, fields and the worker's stack. A pool's own failure is a {@link WorkerPoolError}
 * (re-exported by src/core/errors.ts).
 *
 * @module
 */
import { LibraryError, CudaError, CudaRuntimeError, FunctionNotFoundError, NVJitLinkError, NVRTCError, NVVMError } from "../../bindings/errors.ts";
import { LibraryNotFoundError, NotFoundError, SearchNotFoundError } from "../../pathfinder/errors.ts";
import { InternalError } from "../../errors/base.ts";
import { ClosedError } from "../base/errors.ts";
import { MissingArchError } from "../program/errors.ts";

/** An error as it crosses a Worker boundary: its class's name, message, stack and own cloneable fields. */
export interface SerializedError {
  /** The constructor's name (`NVRTCError`, `RangeError`, ...). */
  readonly className: string;
  /** `error.name`. */
  readonly name: string;
  /** `error.message`. */
  readonly message: string;
  /** `error.stack` (the worker's). */
  readonly stack: string | undefined;
  /** The error's own fields that structured cloning can carry (`log`, `code`, `codeName`, ...). */
  readonly fields: Record<string, unknown>;
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** The classes rebuilt by name; an error of another class comes back as an Error with the same name and fields. */
const CLASSES: ReadonlyMap<string, ErrorClass> = new Map<string, ErrorClass>([
  ["NVRTCError", NVRTCError],
  ["NVJitLinkError", NVJitLinkError],
  ["NVVMError", NVVMError],
  ["CudaError", CudaError],
  ["CudaRuntimeError", CudaRuntimeError],
  ["LibraryError", LibraryError],
  ["FunctionNotFoundError", FunctionNotFoundError],
  ["LibraryNotFoundError", LibraryNotFoundError],
  ["SearchNotFoundError", SearchNotFoundError],
  ["NotFoundError", NotFoundError],
  ["ClosedError", ClosedError],
  ["MissingArchError", MissingArchError],
  ["TypeError", TypeError],
  ["RangeError", RangeError],
  ["SyntaxError", SyntaxError],
  ["Error", Error],
]);

function cloneable(value: unknown): boolean {
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
}

/** The form of `error` that crosses a Worker boundary (anything thrown: non-Errors become an Error's message). */
export function serializeError(error: unknown): SerializedError {
  if (!(error instanceof Error)) {
    return { className: "Error", name: "Error", message: `non-Error thrown in a worker: ${String(error)}`, stack: undefined, fields: {} };
  }
  const fields: Record<string, unknown> = {};
  // Own fields, enumerable or not: cuda-ts's errors keep theirs non-enumerable (quietFields, src/errors/base.ts).
  for (const k of Object.getOwnPropertyNames(error)) {
    if (k === "name" || k === "message" || k === "stack") continue;
    const v = (error as unknown as Record<string, unknown>)[k];
    if (cloneable(v)) fields[k] = v;
  }
  return { className: error.constructor.name, name: error.name, message: error.message, stack: error.stack, fields };
}

/**
 * The error `serialized` describes, of the same class when it is one of the library's (or a built-in), with its
 * fields; the stack is the worker's, followed by `calledFrom` (where the caller awaited it) when given.
 */
export function deserializeError(serialized: SerializedError, calledFrom?: string): Error {
  const cls = CLASSES.get(serialized.className) ?? Error;
  const error = Object.create(cls.prototype) as Error;
  const define = (key: string, value: unknown): void => {
    Object.defineProperty(error, key, { value, writable: true, enumerable: false, configurable: true });
  };
  define("message", serialized.message);
  for (const [k, v] of Object.entries(serialized.fields)) define(k, v);
  define("name", serialized.name);
  const stack = serialized.stack ?? `${serialized.name}: ${serialized.message}`;
  define("stack", calledFrom === undefined ? stack : `${stack}\n    --- in a worker, awaited from ---\n${calledFrom}`);
  return error;
}

/** A worker of a WorkerPool failed: it did not load, crashed, or was terminated while running a job (the `cause`). */
export class WorkerPoolError extends InternalError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WorkerPoolError";
  }
}
