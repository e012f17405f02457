/**
 * The search steps shared by every kind of lookup, each a list of absolute directories tried in order:
 * Python wheels (`site-packages`), the conda prefix, `CUDA_PATH` / `CUDA_HOME`, and the default toolkit root
 * (`/usr/local/cuda`). Each step is built only when the search reaches it, and notes why it was skipped.
 *
 * @module
 */
import { wheelDirectoriesInOrder, type WheelDirectories } from "./catalog.ts";
import type { Search } from "./context.ts";
import { joinPath } from "./paths.ts";
import { condaPrefix, cudaPathOrHome, sitePackagesDirectories } from "./roots.ts";

/** How a file was found: the search step that found it. */
export type FoundVia =
  | "override"
  | "already-loaded"
  | "site-packages"
  | "conda"
  | "CUDA_PATH"
  | "CUDA_HOME"
  | "system-search"
  | "cuda-root"
  | "default-root";

/** The steps that search directories of a toolkit layout (every step except the library-only ones). */
export type ToolkitFoundVia = "site-packages" | "conda" | "CUDA_PATH" | "CUDA_HOME" | "default-root";

/** One step: the directories it searches, in order. */
export interface DirectoryStep<Via extends FoundVia = FoundVia> {
  /** The step. */
  readonly via: Via;
  /** Absolute directories, in search order (they may not exist). */
  readonly directories: readonly string[];
}

/** Where a searched-for file lives in the layouts of NVIDIA's packages. */
export interface LayoutSpec {
  /** Sub-directories of `site-packages`. */
  readonly wheelDirectories: WheelDirectories;
  /** Directories relative to a toolkit root or conda prefix (a `*` segment matches any sub-directory). */
  readonly rootDirectories: readonly string[];
}

/** A file a step found. */
export interface Candidate<Via extends FoundVia = FoundVia> {
  /** Its absolute path (as found, links not resolved). */
  readonly path: string;
  /** The name matched, such as `libnvrtc.so.13`. */
  readonly fileName: string;
  /** The directory it was found in. */
  readonly directory: string;
  /** The step that found it. */
  readonly via: Via;
}

/** What makes a directory entry acceptable. */
export interface FileTest {
  /** Whether the file at this path is acceptable. */
  readonly accepts: (search: Search, path: string) => boolean;
  /** Why a listed entry was not accepted, for the search report. */
  readonly rejection: string;
}

/** Accepts regular files, links to regular files included; a broken link is skipped. */
export const REGULAR_FILE: FileTest = {
  accepts: (search, path) => search.isFile(path),
  rejection: "a broken link or not a regular file",
};

/** Accepts executable regular files. */
export const EXECUTABLE_FILE: FileTest = {
  accepts: (search, path) => search.isExecutable(path),
  rejection: "not executable (no X bit), a broken link or not a regular file",
};

/**
 * Every acceptable file among `fileNames` in `directories`, in preference order: the first name in every directory,
 * then the second name, and so on (so a newer soname anywhere in the step beats an older one). Notes each directory
 * that is missing, unreadable, or holds none of the names.
 */
export function scanDirectories<Via extends FoundVia>(
  search: Search,
  via: Via,
  directories: readonly string[],
  fileNames: readonly string[],
  test: FileTest = REGULAR_FILE,
): Candidate<Via>[] {
  const usable: string[] = [];
  const seen = new Set<string>();
  for (const dir of directories) {
    const state = search.directoryState(dir);
    if (state !== "ok") {
      search.note(via, dir, state === "denied" ? `not readable (Deno: --allow-read=${dir})` : "no such directory");
      continue;
    }
    // The same directory reached twice (lib64 -> lib links) is searched once.
    const canonical = search.config.host.realPath(dir) ?? dir;
    if (seen.has(canonical)) continue;
    seen.add(canonical);
    usable.push(dir);
  }
  const found: Candidate<Via>[] = [];
  const foundIn = new Set<string>();
  const rejectedIn = new Map<string, string[]>();
  for (const fileName of fileNames) {
    for (const dir of usable) {
      const path = joinPath(dir, fileName);
      if (test.accepts(search, path)) {
        found.push({ path, fileName, directory: dir, via });
        foundIn.add(dir);
      } else if (search.list(dir).includes(fileName)) {
        rejectedIn.set(dir, [...(rejectedIn.get(dir) ?? []), fileName]);
      }
    }
  }
  for (const dir of usable) {
    if (foundIn.has(dir)) continue;
    const rejected = rejectedIn.get(dir);
    const skipped = rejected === undefined ? "" : `; skipped ${rejected.join(", ")}: ${test.rejection}`;
    search.note(via, dir, `no ${fileNames.join(", ")}${skipped}`);
  }
  return found;
}

/** The wheel directories of `spec` under every active `site-packages`, or `undefined` (noted) when there are none. */
export function sitePackagesStep(search: Search, spec: LayoutSpec): DirectoryStep<"site-packages"> | undefined {
  const relative = wheelDirectoriesInOrder(spec.wheelDirectories);
  if (relative.length === 0) return undefined;
  const sitePackages = sitePackagesDirectories(search);
  if (sitePackages.length === 0) return undefined;
  return { via: "site-packages", directories: relative.flatMap((rel) => sitePackages.map((sp) => joinPath(sp, rel))) };
}

/** The directories of `spec` under a toolkit-like root, or `undefined` (noted) when the root does not exist. */
export function rootStep<Via extends FoundVia>(search: Search, via: Via, root: string, spec: LayoutSpec): DirectoryStep<Via> | undefined {
  const state = search.directoryState(root);
  if (state !== "ok") {
    search.note(via, root, state === "denied" ? `not readable (Deno: --allow-read=${root})` : "no such directory");
    return undefined;
  }
  // A pattern that matches nothing stays as written, so the scan reports it as missing in its place.
  const directories = spec.rootDirectories.flatMap((rel) => {
    const expanded = search.expand(root, rel);
    return expanded.length === 0 ? [joinPath(root, rel)] : expanded;
  });
  return { via, directories };
}

/** The directories of `spec` under `$CONDA_PREFIX`. */
export function condaStep(search: Search, spec: LayoutSpec): DirectoryStep<"conda"> | undefined {
  if (spec.rootDirectories.length === 0) return undefined;
  const prefix = condaPrefix(search);
  return prefix === undefined ? undefined : rootStep(search, "conda", prefix, spec);
}

/** The directories of `spec` under `CUDA_PATH`, or else `CUDA_HOME`. */
export function cudaPathStep(
  search: Search,
  spec: LayoutSpec,
  warnOnce: (message: string) => void,
): DirectoryStep<"CUDA_PATH" | "CUDA_HOME"> | undefined {
  if (spec.rootDirectories.length === 0) return undefined;
  const root = cudaPathOrHome(search, warnOnce);
  return root === undefined ? undefined : rootStep(search, root.variable, root.path, spec);
}

/** The directories of `spec` under the default toolkit root (`/usr/local/cuda` unless configured). */
export function defaultRootStep(search: Search, spec: LayoutSpec): DirectoryStep<"default-root"> | undefined {
  const root = search.config.defaultRoot;
  if (root === null || spec.rootDirectories.length === 0) return undefined;
  return rootStep(search, "default-root", root, spec);
}

/**
 * The first acceptable file along the toolkit-layout steps, in order: site-packages, conda, CUDA_PATH / CUDA_HOME,
 * default root. Returns `undefined` when none has it (every place examined is noted in `search`).
 */
export function findInToolkitLayouts(
  search: Search,
  spec: LayoutSpec,
  fileNames: readonly string[],
  warnOnce: (message: string) => void,
  test: FileTest = REGULAR_FILE,
): Candidate<ToolkitFoundVia> | undefined {
  const steps: (() => DirectoryStep<ToolkitFoundVia> | undefined)[] = [
    () => sitePackagesStep(search, spec),
    () => condaStep(search, spec),
    () => cudaPathStep(search, spec, warnOnce),
    () => defaultRootStep(search, spec),
  ];
  for (const step of steps) {
    const dirs = step();
    if (dirs === undefined) continue;
    const [first] = scanDirectories(search, dirs.via, dirs.directories, fileNames, test);
    if (first !== undefined) return first;
  }
  return undefined;
}
