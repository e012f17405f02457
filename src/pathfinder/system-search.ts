/**
 * The system search: where glibc's loader would find a soname, examined file by file so that the search can be
 * reported and done without loading. In order, for each soname (newest first): the absolute directories of
 * `LD_LIBRARY_PATH`, the loader cache (`/etc/ld.so.cache`), then the loader's built-in directories. Relative
 * `LD_LIBRARY_PATH` entries (including empty ones, which mean the current directory) are ignored.
 *
 * When loading, and no file was found this way (for example because Deno may not read those directories), the
 * loader itself is asked for the bare soname, unless `LD_LIBRARY_PATH` has relative entries (then the loader could
 * pick a file from the current directory).
 *
 * @module
 */
import type { Search } from "./context.ts";
import { entryMatchesArchitecture, parseLdCache, type LdCacheEntry } from "./ld-cache.ts";
import { isAbsolutePath, joinPath, libraryPathEntries, parentDirectory } from "./paths.ts";
import type { Candidate } from "./search-steps.ts";

/** The loader-cache entries, read once per pathfinder. */
export interface LdCacheReader {
  /** The parsed cache, or a reason it could not be read. */
  read(search: Search): { readonly entries: readonly LdCacheEntry[] } | { readonly problem: string };
}

/** A cache reader that reads `search.config.ldSoCachePath` on first use and remembers the result. */
export function cachedLdCacheReader(): LdCacheReader {
  let memo: { entries: readonly LdCacheEntry[] } | { problem: string } | undefined;
  return {
    read(search) {
      if (memo !== undefined) return memo;
      const path = search.config.ldSoCachePath;
      if (path === null) return { problem: "not consulted (disabled)" };
      if (!search.readable(path)) return { problem: `not readable (Deno: --allow-read=${path})` };
      const bytes = search.config.host.readFileBytes(path);
      if (bytes === undefined) return { problem: "no such file" };
      const entries = parseLdCache(bytes);
      memo = entries === undefined ? { problem: "not a glibc loader cache" } : { entries };
      return memo;
    },
  };
}

/** What the system search found, and what the loader may still be asked. */
export interface SystemSearchResult {
  /** Files found, in preference order. */
  readonly candidates: readonly Candidate<"system-search">[];
  /** Whether asking the loader for a bare soname is safe (no relative `LD_LIBRARY_PATH` entry is known). */
  readonly bareSonameAllowed: boolean;
}

/** Examines where the system loader would look for `sonames`, noting each place in `search`. */
export function systemSearch(search: Search, sonames: readonly string[], cache: LdCacheReader): SystemSearchResult {
  const step = "system-search";
  const ldLibraryPath = search.env("LD_LIBRARY_PATH");
  let ldDirs: string[] = [];
  let bareSonameAllowed = true;
  if (ldLibraryPath === undefined) {
    const denied = search.envDenied("LD_LIBRARY_PATH");
    search.note(step, "LD_LIBRARY_PATH", denied ? "not readable (Deno: --allow-env=LD_LIBRARY_PATH)" : "not set");
  } else {
    const entries = libraryPathEntries(ldLibraryPath);
    const relative = entries.filter((e) => !isAbsolutePath(e));
    if (relative.length > 0) {
      bareSonameAllowed = false;
      const shown = relative.map((e) => JSON.stringify(e)).join(", ");
      search.note(step, `LD_LIBRARY_PATH entries ${shown}`, "ignored: relative (the current directory is never searched)");
    }
    ldDirs = [...new Set(entries.filter(isAbsolutePath))];
  }
  const usableLdDirs = usableDirectories(search, step, ldDirs, "LD_LIBRARY_PATH ");
  const systemDirs = usableDirectories(search, step, search.config.systemLibraryDirectories, undefined);

  const cacheRead = cache.read(search);
  const cachePath = search.config.ldSoCachePath ?? "ld.so cache";
  const cacheEntries = "entries" in cacheRead ? cacheRead.entries : [];
  if ("problem" in cacheRead) search.note(step, cachePath, cacheRead.problem);

  const found: Candidate<"system-search">[] = [];
  const seen = new Set<string>();
  const push = (path: string, fileName: string): void => {
    if (seen.has(path)) return;
    seen.add(path);
    found.push({ path, fileName, directory: parentDirectory(path), via: step });
  };
  const cacheNotes: string[] = [];
  for (const soname of sonames) {
    for (const dir of usableLdDirs) {
      const path = joinPath(dir, soname);
      if (search.isFile(path)) push(path, soname);
    }
    const entries = cacheEntries.filter((e) => e.soname === soname && entryMatchesArchitecture(e, search.config.architecture));
    for (const entry of entries) {
      if (!isAbsolutePath(entry.path)) continue;
      if (search.isFile(entry.path)) push(entry.path, soname);
      else cacheNotes.push(`${soname} → ${entry.path} (missing or not readable)`);
    }
    for (const dir of systemDirs) {
      const path = joinPath(dir, soname);
      if (search.isFile(path)) push(path, soname);
    }
  }

  const foundDirs = new Set(found.map((c) => c.directory));
  for (const dir of usableLdDirs) {
    if (!foundDirs.has(dir)) search.note(step, `LD_LIBRARY_PATH ${dir}`, `no ${sonames.join(", ")}`);
  }
  if ("entries" in cacheRead && !found.some((c) => cacheEntries.some((e) => e.path === c.path))) {
    search.note(step, cachePath, cacheNotes.length > 0 ? cacheNotes.join("; ") : `no entry for ${sonames.join(", ")}`);
  }
  const emptySystemDirs = systemDirs.filter((d) => !foundDirs.has(d));
  if (emptySystemDirs.length > 0) search.note(step, emptySystemDirs.join(", "), `no ${sonames.join(", ")}`);
  return { candidates: found, bareSonameAllowed };
}

/**
 * The directories that exist and may be read. With a `label` (LD_LIBRARY_PATH), notes each missing or unreadable
 * one; without (the loader's built-in directories, which need not all exist), notes the unreadable ones together.
 */
function usableDirectories(search: Search, step: string, dirs: readonly string[], label: string | undefined): string[] {
  const usable: string[] = [];
  const denied: string[] = [];
  for (const dir of dirs) {
    const state = search.directoryState(dir);
    if (state === "ok") usable.push(dir);
    else if (state === "denied" && label === undefined) denied.push(dir);
    else if (state === "denied") search.note(step, `${label}${dir}`, `not readable (Deno: --allow-read=${dir})`);
    else if (label !== undefined) search.note(step, `${label}${dir}`, "no such directory");
  }
  if (denied.length > 0) {
    search.note(step, denied.join(", "), `not readable (Deno: ${denied.map((d) => `--allow-read=${d}`).join(" ")})`);
  }
  return usable;
}
