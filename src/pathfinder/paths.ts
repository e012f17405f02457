/**
 * POSIX path arithmetic on strings (no file-system access): joining, splitting and normalising the absolute paths
 * the pathfinder builds. Kept here so the search code needs no `node:path`.
 *
 * @module
 */

/** Whether `path` is absolute (starts with `/`). The pathfinder never resolves relative paths. */
export function isAbsolutePath(path: string): boolean {
  return path.startsWith("/");
}

/**
 * The entries of a library search path (`LD_LIBRARY_PATH`), split as glibc's loader splits it: on `:` and on `;`.
 * An empty value has none (the loader ignores an empty `LD_LIBRARY_PATH`).
 */
export function libraryPathEntries(value: string | undefined): string[] {
  return value === undefined || value === "" ? [] : value.split(/[:;]/);
}

/**
 * The entries of a library search path (`LD_LIBRARY_PATH`) that the system loader would resolve against the current
 * working directory, in order: empty ones (`::`, a leading or trailing `:`, which mean the current directory) and
 * relative ones (`.`, `lib`, `./x`). Absolute entries are not listed; an unset or empty value has none.
 */
export function unsafeLibraryPathEntries(value: string | undefined): string[] {
  return libraryPathEntries(value).filter((e) => !isAbsolutePath(e));
}

/** Whether a search path (`LD_LIBRARY_PATH`) has a relative entry, which the loader would search from the current directory. */
export function hasRelativeEntry(value: string | undefined): boolean {
  return unsafeLibraryPathEntries(value).length > 0;
}

/**
 * Normalises an absolute or relative POSIX path lexically: collapses `//`, removes `.` segments, resolves `..`
 * against the preceding segment and drops a trailing `/`. Links are not resolved.
 */
export function normalizePath(path: string): string {
  const absolute = isAbsolutePath(path);
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
      continue;
    }
    out.push(segment);
  }
  const joined = out.join("/");
  return absolute ? `/${joined}` : joined === "" ? "." : joined;
}

/** Joins path segments with `/` and normalises the result. */
export function joinPath(...segments: readonly string[]): string {
  return normalizePath(segments.filter((s) => s !== "").join("/"));
}

/** The directory part of a path (`/a/b/c` → `/a/b`; `/a` → `/`). */
export function parentDirectory(path: string): string {
  const normalized = normalizePath(path);
  const slash = normalized.lastIndexOf("/");
  if (slash < 0) return ".";
  return slash === 0 ? "/" : normalized.slice(0, slash);
}

/** The last segment of a path (`/a/b/c.so` → `c.so`). */
export function baseName(path: string): string {
  const normalized = normalizePath(path);
  return normalized.slice(normalized.lastIndexOf("/") + 1);
}
