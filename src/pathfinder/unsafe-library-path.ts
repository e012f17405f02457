/**
 * Empty and relative `LD_LIBRARY_PATH` entries. glibc's loader reads `LD_LIBRARY_PATH` once, when the process
 * starts, and searches an empty entry (`::`, a leading or trailing `:`) as the current directory and a relative one
 * relative to the working directory, for every library it loads by name: the dependencies of a library the pathfinder
 * loads by its absolute path too. The pathfinder itself never searches such entries (system-search.ts), but it cannot
 * stop the loader from doing so; so it says so, once per process, the first time it loads a library while such
 * entries exist (a library of another user in the working directory would run with this process's rights).
 *
 * @module
 */
import { unsafeLibraryPathEntries } from "./paths.ts";

export { unsafeLibraryPathEntries };

/**
 * The one-line warning about `entries` (from {@link unsafeLibraryPathEntries}): what they are and what to do. The
 * pathfinder prints it after `cuda-ts: `; `cuda-ts doctor` lists it among its warnings.
 */
export function unsafeLibraryPathMessage(entries: readonly string[]): string {
  const shown = entries.map((e) => JSON.stringify(e)).join(", ");
  return (
    `LD_LIBRARY_PATH has empty or relative entries (${shown}), which the system loader searches from the ` +
    `current directory for NVIDIA libraries and their dependencies, so a library planted there would run in this ` +
    `process: remove the empty/relative entries from LD_LIBRARY_PATH, or use absolute paths.`
  );
}

/** The warning sinks already warned: the default (`console.warn`, shared by every pathfinder) once per process. */
const warned = new WeakSet<(message: string) => void>();

/**
 * Warns through `warn` when `value` (the `LD_LIBRARY_PATH` in effect) has empty or relative entries, once per sink:
 * the pathfinders that warn to the default sink share it, so the process warns once.
 */
export function warnUnsafeLibraryPathOnce(value: string | undefined, warn: (message: string) => void): void {
  if (warned.has(warn)) return;
  const entries = unsafeLibraryPathEntries(value);
  if (entries.length === 0) return;
  warned.add(warn);
  warn(`cuda-ts: ${unsafeLibraryPathMessage(entries)}`);
}
