/**
 * Finding the CUDA Toolkit root directory. Order:
 *
 * 1. `CUDA_PATH`, else `CUDA_HOME`, when it names an existing directory;
 * 2. derived from where `cudart` is found (its `lib`, `lib64` or `targets/<t>/lib` directory's root), unless that
 *    was the default root;
 * 3. derived from where `nvcc` is found (the parent of its `bin`), unless that was the default root;
 * 4. the default root (`/usr/local/cuda`) when it exists.
 *
 * @module
 */
import { Search } from "./context.ts";
import { CudaRootNotFoundError, SearchNotFoundError, type SearchAttempt } from "./errors.ts";
import { findBinaryUtility } from "./binaries.ts";
import { findLibrary, type LibrarySearchContext } from "./libraries.ts";
import { parentDirectory } from "./paths.ts";
import { cudaPathOrHome, toolkitRootOfLibraryDirectory } from "./roots.ts";
import { TOOLKIT_HINT } from "./toolkit-files.ts";

/** How the toolkit root was determined. */
export type CudaRootFoundVia = "CUDA_PATH" | "CUDA_HOME" | "cudart" | "nvcc" | "default-root";

/** The CUDA Toolkit root the pathfinder found. */
export interface LocatedCudaRoot {
  /** The absolute path of the root (the directory holding `bin`, `include`, `lib64`, `nvvm`, ...). */
  readonly path: string;
  /** How it was determined. */
  readonly foundVia: CudaRootFoundVia;
  /** For `cudart` and `nvcc`: the file the root was derived from. */
  readonly derivedFrom?: string;
}

/** Finds the toolkit root; throws {@link CudaRootNotFoundError} listing every place searched. */
export function findToolkitRoot(context: LibrarySearchContext): LocatedCudaRoot {
  const search = new Search(context.config);
  const fromEnv = cudaPathOrHome(search, context.warnOnce);
  if (fromEnv !== undefined) {
    const state = search.directoryState(fromEnv.path);
    if (state === "ok") return { path: fromEnv.path, foundVia: fromEnv.variable };
    search.note(fromEnv.variable, fromEnv.path, state === "denied" ? `not readable (Deno: --allow-read=${fromEnv.path})` : "no such directory");
  }

  let defaultRootSeen = false;
  const cudart = subSearch(search, "cudart", () => findLibrary(context, "cudart"));
  if (cudart !== undefined) {
    if (cudart.foundVia === "default-root") defaultRootSeen = true;
    else {
      const root = toolkitRootOfLibraryDirectory(parentDirectory(cudart.path));
      if (root !== undefined && search.directoryState(root) === "ok") return { path: root, foundVia: "cudart", derivedFrom: cudart.path };
      search.note("cudart", cudart.path, "found, but not inside a toolkit root");
    }
  }
  if (!defaultRootSeen) {
    const nvcc = subSearch(search, "nvcc", () => findBinaryUtility(context, "nvcc"));
    if (nvcc !== undefined) {
      if (nvcc.foundVia === "default-root") defaultRootSeen = true;
      else return { path: parentDirectory(parentDirectory(nvcc.path)), foundVia: "nvcc", derivedFrom: nvcc.path };
    }
  }

  const defaultRoot = context.config.defaultRoot;
  if (defaultRoot !== null) {
    const state = search.directoryState(defaultRoot);
    if (state === "ok") return { path: defaultRoot, foundVia: "default-root" };
    search.note("default-root", defaultRoot, state === "denied" ? `not readable (Deno: --allow-read=${defaultRoot})` : "no such directory");
  }
  throw new CudaRootNotFoundError("CUDA root", "CUDA Toolkit", "a directory", {
    attempts: search.attempts,
    hint: TOOLKIT_HINT,
    missingPermissions: [...search.missingPermissions],
  });
}

/** Runs a nested lookup; on failure copies its attempts (prefixed with `label`) and permissions into `search`. */
function subSearch<T>(search: Search, label: string, lookup: () => T): T | undefined {
  try {
    return lookup();
  } catch (error) {
    if (!(error instanceof SearchNotFoundError)) throw error;
    for (const attempt of error.attempts) search.attempts.push(prefixed(label, attempt));
    for (const permission of error.missingPermissions) search.missingPermissions.add(permission);
    return undefined;
  }
}

function prefixed(label: string, attempt: SearchAttempt): SearchAttempt {
  return { ...attempt, step: `${label}/${attempt.step}` };
}
