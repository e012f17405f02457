/**
 * The dynamic-loader interface the pathfinder searches with. The default implementation (system-loader.ts) wraps
 * `dlopen` from src/ffi/dl.ts; tests pass fakes.
 *
 * @module
 */
import type { Pointer } from "../ffi/types.ts";

/** A library the loader holds: its absolute path and the handle `dlopen` returned. Never close the handle. */
export interface LoadedHandle {
  /** The absolute path the loader reports for the library. */
  readonly path: string;
  /** The `dlopen` handle. */
  readonly handle: Pointer;
}

/** The result of asking the loader to load a file. */
export type LoadOutcome = ({ readonly ok: true } & LoadedHandle) | { readonly ok: false; readonly error: string };

/** What the pathfinder needs from a dynamic loader. */
export interface DynamicLoader {
  /**
   * Whether a library with this soname is already loaded in the process (`dlopen(soname, RTLD_NOLOAD)`); never
   * loads anything. Returns its path and a handle, or `null`.
   */
  isLoaded(soname: string): LoadedHandle | null;
  /**
   * Loads a library (`dlopen(file, RTLD_NOW | RTLD_GLOBAL)`). The pathfinder passes absolute paths, and bare sonames
   * (no `/`) only for the system loader's own search.
   */
  load(file: string): LoadOutcome;
  /** Why this loader cannot work at all (so far), or `undefined`; used to explain skipped checks. Optional. */
  problem?(): string | undefined;
}

/** A loader that loads nothing (used when no dynamic loader is configured or available). */
export function unavailableLoader(reason: string): DynamicLoader {
  return {
    isLoaded: () => null,
    load: () => ({ ok: false, error: reason }),
    problem: () => reason,
  };
}
