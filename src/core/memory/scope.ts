/**
 * `scope(fn)` (TensorFlow.js's `tidy`): every Buffer and DeviceArray made while `fn` runs is closed when it ends,
 * except what it returns (the value itself, or the arrays and buffers directly inside a returned array or plain
 * object) and what it `keep()`s. Scopes nest: what an inner scope returns belongs to the outer one. An async `fn`
 * keeps its scope open until its promise settles; objects made meanwhile by other code belong to it too, so run
 * one async scope at a time (or `keep()` what others make).
 *
 * @module
 */
import { ClosedError } from "../base/errors.ts";
import { ScopeClosedError } from "./errors.ts";

/** What a scope closes: Buffers and DeviceArrays (an array's `buffer` and `base` are kept with it). */
interface Closable {
  close(): void;
  readonly isClosed: boolean;
}

interface ScopeFrame {
  readonly made: Closable[];
  readonly kept: Set<object>;
}

const frames: ScopeFrame[] = [];

/** How many scopes are open (0: allocation skips the scope's bookkeeping). */
export let scopeDepth = 0;

/** Objects a scope closed, for the error their later use throws. */
const closedByScope = new WeakSet<object>();

/** @internal A Buffer or DeviceArray was made: the innermost open scope owns it. */
export function adoptIntoScope(x: Closable): void {
  frames[frames.length - 1]?.made.push(x);
}

/** @internal The ClosedError of a closed object: a {@link ScopeClosedError} when a scope closed it. */
export function closedError(x: object, what: string, action: string): ClosedError {
  return closedByScope.has(x) ? new ScopeClosedError(what, action) : new ClosedError(what, action);
}

/** Adds `x` and what it lives in (an array's buffer and the arrays it views) to `kept`. */
function keepWithParts(x: unknown, kept: Set<object>): void {
  let cur: unknown = x;
  while (typeof cur === "object" && cur !== null && !kept.has(cur)) {
    kept.add(cur);
    const buffer = (cur as { buffer?: unknown }).buffer;
    if (typeof buffer === "object" && buffer !== null && !(buffer instanceof ArrayBuffer)) kept.add(buffer);
    cur = (cur as { base?: unknown }).base;
  }
}

/** Keeps what `value` is or directly holds (one level: an array's elements, a plain object's values). */
function keepResult(value: unknown, kept: Set<object>): void {
  if (typeof value !== "object" || value === null) return;
  keepWithParts(value, kept);
  if (Array.isArray(value)) for (const v of value) keepWithParts(v, kept);
  else if (Object.getPrototypeOf(value) === Object.prototype) for (const v of Object.values(value as object)) keepWithParts(v, kept);
}

/**
 * Keeps `x` (a DeviceArray or Buffer made inside the current scope) open when the scope ends: it then belongs to
 * the enclosing scope, or to no scope (close it yourself). Returns `x`. Outside a scope it does nothing.
 */
export function keep<T>(x: T): T {
  const frame = frames[frames.length - 1];
  if (frame !== undefined) keepWithParts(x, frame.kept);
  return x;
}

function end(frame: ScopeFrame, result: unknown, failed: boolean): void {
  const i = frames.lastIndexOf(frame);
  if (i >= 0) frames.splice(i, 1);
  scopeDepth = frames.length;
  if (!failed) keepResult(result, frame.kept);
  const outer = frames[frames.length - 1];
  let firstError: unknown;
  // Arrays before buffers, newest first: a view closes before the array it views.
  for (let k = frame.made.length - 1; k >= 0; k--) {
    const x = frame.made[k]!;
    if (frame.kept.has(x)) {
      outer?.made.push(x);
      continue;
    }
    if (x.isClosed) continue;
    try {
      x.close();
      closedByScope.add(x);
      const buffer = (x as { buffer?: unknown }).buffer;
      if (typeof buffer === "object" && buffer !== null && (buffer as Partial<Closable>).isClosed === true) closedByScope.add(buffer);
    } catch (e) {
      firstError ??= e;
    }
  }
  if (firstError !== undefined && !failed) throw firstError;
}

/**
 * Runs `fn` and closes every DeviceArray and Buffer made while it ran, except what it returns (also inside a
 * returned array or plain object, one level) and what it {@link keep}s. A `fn` that throws closes what it made and
 * the error passes through. An async `fn` is awaited: the scope ends when its promise settles. Using an array the
 * scope closed throws {@link ScopeClosedError}.
 *
 * ```ts
 * const total = scope(() => {
 *   const t = a.mul(b); // temporaries, closed at the end
 *   return t.sum();     // kept
 * });
 * ```
 */
export function scope<T>(fn: () => T): T {
  if (typeof fn !== "function") throw new TypeError(`scope takes a function, not ${fn === null ? "null" : typeof fn}`);
  const frame: ScopeFrame = { made: [], kept: new Set() };
  frames.push(frame);
  scopeDepth = frames.length;
  let result: T;
  try {
    result = fn();
  } catch (e) {
    end(frame, undefined, true);
    throw e;
  }
  if (result instanceof Promise) {
    return (result as Promise<unknown>).then(
      (value) => {
        end(frame, value, false);
        return value;
      },
      (e: unknown) => {
        end(frame, undefined, true);
        throw e;
      },
    ) as T;
  }
  end(frame, result, false);
  return result;
}
