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

/** Whether a search path (`LD_LIBRARY_PATH`) has a relative entry, which the loader would search from the current directory. */
export function hasRelativeEntry(value: string | undefined): boolean {
  return value !== undefined && value.split(":").some((e) => !isAbsolutePath(e));
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
