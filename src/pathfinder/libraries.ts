/**
 * Finding and loading NVIDIA's dynamic libraries.
 *
 * Search order for a library `<name>` (the first step that yields a loadable file wins):
 *
 * 1. **override**: `CUDA_TS_<NAME>_PATH` (see {@link overrideVariable}), an absolute path to the library file or to a
 *    directory holding one of its sonames. A relative value throws {@link InvalidOverrideError}; a value that names
 *    nothing usable throws {@link LibraryNotFoundError} (an explicit override never falls through).
 * 2. **already-loaded**: a soname already loaded in the process (`dlopen(RTLD_NOLOAD)`).
 * 3. **site-packages**: NVIDIA's Python wheels under `$VIRTUAL_ENV/lib/python3.*\/site-packages`, then
 *    `$CONDA_PREFIX/lib/python3.*\/site-packages` (CUDA 13 `nvidia/cu13/lib` before CUDA 12 `nvidia/<component>/lib`).
 * 4. **conda**: `$CONDA_PREFIX/{lib64,lib,targets/*\/lib}` (nvvm: `nvvm/lib64`; cupti also `extras/CUPTI/lib64`).
 * 5. **CUDA_PATH**, else **CUDA_HOME**: the same directories under that toolkit root.
 * 6. **system-search**: `LD_LIBRARY_PATH` (absolute entries), the ld.so cache, the loader's built-in directories
 *    (see system-search.ts); when loading, then the loader itself with the bare soname.
 * 7. **cuda-root** (nvvm and cupti only): under the toolkit root of the `cudart` the system loader finds.
 * 8. **default-root**: the same directories under `/usr/local/cuda` (configurable).
 *
 * Driver libraries (`cuda`, `nvml`, `nvcudla`) use steps 1, 2 and 6 only, and when loading, step 6 asks the loader
 * for the bare soname first (its own search, as cuda.pathfinder does), unless `LD_LIBRARY_PATH` has a relative entry.
 * Within a step, sonames are tried newest first. The current directory and relative paths are never searched. Dependencies (catalog `dependencies`) are
 * loaded before the library itself.
 *
 * @module
 */
import type { Pointer } from "../ffi/types.ts";
import {
  CUDA_MAJOR_VARIABLE,
  libraryDescriptor,
  overrideVariable,
  pinnedDescriptor,
  SUPPORTED_CUDA_MAJORS,
  SUPPORTED_LIBRARY_NAMES,
  type LibraryDescriptor,
} from "./catalog.ts";
import { Search, type PathfinderConfig } from "./context.ts";
import { InvalidOverrideError, LibraryNotFoundError, UnknownLibraryError } from "./errors.ts";
import type { LoadedHandle } from "./loader.ts";
import { baseName, hasRelativeEntry, isAbsolutePath, parentDirectory } from "./paths.ts";
import { toolkitRootOfLibraryDirectory } from "./roots.ts";
import {
  condaStep,
  cudaPathStep,
  defaultRootStep,
  rootStep,
  scanDirectories,
  sitePackagesStep,
  type Candidate,
  type DirectoryStep,
  type FoundVia,
} from "./search-steps.ts";
import { systemSearch, type LdCacheReader } from "./system-search.ts";

/** A library the pathfinder found (without loading it). */
export interface LocatedNvidiaLibrary {
  /** The catalog name, such as `"nvrtc"`. */
  readonly name: string;
  /** The absolute path of the file (as found; links not resolved). */
  readonly path: string;
  /** The file name that matched, such as `libnvrtc.so.13`. */
  readonly soname: string;
  /** The search step that found it. */
  readonly foundVia: FoundVia;
}

/** A library the pathfinder loaded. The handle stays open for the life of the process. */
export interface LoadedNvidiaLibrary extends LocatedNvidiaLibrary {
  /** The `dlopen` handle. */
  readonly handle: Pointer;
}

/** What a library search needs from the pathfinder that runs it. */
export interface LibrarySearchContext {
  /** The configuration. */
  readonly config: PathfinderConfig;
  /** Warns once per distinct message. */
  readonly warnOnce: (message: string) => void;
  /** The loader cache. */
  readonly ldCache: LdCacheReader;
  /** Loads a dependency through the pathfinder (cached). */
  loadDependency(name: string): LoadedNvidiaLibrary;
}

/** The catalog entry of `name`, or throws {@link UnknownLibraryError}. */
export function requireLibraryDescriptor(name: string): LibraryDescriptor {
  const descriptor = libraryDescriptor(name);
  if (descriptor === undefined) throw new UnknownLibraryError(name, SUPPORTED_LIBRARY_NAMES);
  return descriptor;
}

/** How a search turns what it finds into a result: by taking the path (find) or by loading it (load). */
interface Mode<R> {
  /** The result for the first usable candidate, or `undefined` when none is usable. */
  take(search: Search, descriptor: LibraryDescriptor, candidates: readonly Candidate[]): R | undefined;
  /** The result for a library already loaded in the process. */
  alreadyLoaded(descriptor: LibraryDescriptor, soname: string, loaded: LoadedHandle): R;
  /** The result of asking the loader for bare sonames (load mode only). */
  bareSoname(search: Search, descriptor: LibraryDescriptor, allowed: boolean): R | undefined;
}

const FIND: Mode<LocatedNvidiaLibrary> = {
  take(_search, descriptor, candidates) {
    const first = candidates[0];
    return first === undefined ? undefined : { name: descriptor.name, path: first.path, soname: first.fileName, foundVia: first.via };
  },
  alreadyLoaded(descriptor, soname, loaded) {
    return { name: descriptor.name, path: loaded.path, soname, foundVia: "already-loaded" };
  },
  bareSoname() {
    return undefined;
  },
};

function loadMode(context: LibrarySearchContext): Mode<LoadedNvidiaLibrary> {
  const loader = context.config.loader;
  let dependenciesLoaded = false;
  const loadDependencies = (descriptor: LibraryDescriptor): void => {
    if (dependenciesLoaded) return;
    dependenciesLoaded = true;
    for (const dependency of descriptor.dependencies) {
      try {
        context.loadDependency(dependency);
      } catch (error) {
        if (error instanceof LibraryNotFoundError) throw error.asDependencyOf(descriptor.name);
        throw error;
      }
    }
  };
  return {
    take(search, descriptor, candidates) {
      for (const candidate of candidates) {
        loadDependencies(descriptor);
        const outcome = loader.load(candidate.path);
        if (outcome.ok) {
          return { name: descriptor.name, path: outcome.path, soname: candidate.fileName, foundVia: candidate.via, handle: outcome.handle };
        }
        search.note(candidate.via, candidate.path, `found, but loading failed: ${outcome.error}`);
      }
      return undefined;
    },
    alreadyLoaded(descriptor, soname, loaded) {
      loadDependencies(descriptor);
      return { name: descriptor.name, path: loaded.path, soname, foundVia: "already-loaded", handle: loaded.handle };
    },
    bareSoname(search, descriptor, allowed) {
      if (!allowed) {
        search.note("system-search", "dlopen by soname", "not tried: LD_LIBRARY_PATH has relative entries");
        return undefined;
      }
      for (const soname of descriptor.sonames) {
        loadDependencies(descriptor);
        const outcome = loader.load(soname);
        if (outcome.ok) {
          return { name: descriptor.name, path: outcome.path, soname, foundVia: "system-search", handle: outcome.handle };
        }
        search.note("system-search", `dlopen("${soname}")`, outcome.error);
      }
      return undefined;
    },
  };
}

/**
 * The entry as the CUDA major pin (option `cudaMajor`, else `CUDA_TS_CUDA_MAJOR`) restricts it; unpinned, every
 * supported major's soname, newest first. A pin outside the supported versions throws {@link InvalidOverrideError}.
 */
function pinnedFor(search: Search, context: LibrarySearchContext, descriptor: LibraryDescriptor): LibraryDescriptor {
  let major = context.config.cudaMajor;
  if (major === undefined) {
    const value = search.env(CUDA_MAJOR_VARIABLE);
    if (value === undefined) return descriptor;
    major = Number(value);
    if (!SUPPORTED_CUDA_MAJORS.includes(major)) {
      throw new InvalidOverrideError(CUDA_MAJOR_VARIABLE, value, `is not a supported CUDA major version; set it to one of ${SUPPORTED_CUDA_MAJORS.join(", ")}, or unset it.`);
    }
  } else if (!SUPPORTED_CUDA_MAJORS.includes(major)) {
    throw new InvalidOverrideError("cudaMajor", String(major), `is not a supported CUDA major version; pass one of ${SUPPORTED_CUDA_MAJORS.join(", ")}.`);
  }
  return pinnedDescriptor(descriptor, major);
}

/** Finds a library without loading it; throws {@link LibraryNotFoundError} listing every place searched. */
export function findLibrary(context: LibrarySearchContext, name: string): LocatedNvidiaLibrary {
  return searchLibrary(context, name, FIND);
}

/** Finds and loads a library (its dependencies first); throws {@link LibraryNotFoundError} when none loads. */
export function loadLibrary(context: LibrarySearchContext, name: string): LoadedNvidiaLibrary {
  return searchLibrary(context, name, loadMode(context));
}

function searchLibrary<R>(context: LibrarySearchContext, name: string, mode: Mode<R>): R {
  const search = new Search(context.config);
  const descriptor = pinnedFor(search, context, requireLibraryDescriptor(name));
  const notFound = (hint: string): LibraryNotFoundError =>
    new LibraryNotFoundError(name, descriptor.sonames, {
      attempts: search.attempts,
      hint,
      missingPermissions: [...search.missingPermissions],
    });

  // 1. The override variable.
  const variable = overrideVariable(name);
  const override = search.env(variable);
  if (override !== undefined) {
    if (!isAbsolutePath(override)) {
      throw new InvalidOverrideError(
        variable,
        override,
        "is not an absolute path; relative paths are never searched. Set it to the absolute path of " +
          `${descriptor.sonames[0] ?? name} or of the directory that holds it.`,
      );
    }
    const result = mode.take(search, descriptor, overrideCandidates(search, variable, override, descriptor.sonames));
    if (result !== undefined) return result;
    throw notFound(`${variable} is set, so no other place was searched: point it at an existing library or unset it.`);
  }
  search.note("override", variable, search.envDenied(variable) ? `not readable (Deno: --allow-env=${variable})` : "not set");

  // 2. Already loaded in this process.
  for (const soname of descriptor.sonames) {
    const loaded = context.config.loader.isLoaded(soname);
    if (loaded !== null) return mode.alreadyLoaded(descriptor, soname, loaded);
  }
  const loaderProblem = context.config.loader.problem?.();
  search.note("already-loaded", descriptor.sonames.join(", "), loaderProblem === undefined ? "not loaded in this process" : `not checked: ${loaderProblem}`);

  // 3-8. The directory steps.
  const isDriver = descriptor.packagedWith === "driver";
  // A driver library is loaded by its soname first, as cuda.pathfinder does: the system loader searches
  // LD_LIBRARY_PATH, its cache and its own directories natively. The same places are examined here only when it
  // fails, to say where it looked (reading the loader's cache and listing its directories costs a first load ~10 ms).
  const bareFirst = isDriver && !hasRelativeEntry(search.env("LD_LIBRARY_PATH"));
  if (bareFirst) {
    const loaded = mode.bareSoname(search, descriptor, true);
    if (loaded !== undefined) return loaded;
  }
  const directorySteps: (() => DirectoryStep | undefined)[] = isDriver
    ? []
    : [() => sitePackagesStep(search, descriptor), () => condaStep(search, descriptor), () => cudaPathStep(search, descriptor, context.warnOnce)];
  for (const step of directorySteps) {
    const result = takeStep(search, descriptor, mode, step());
    if (result !== undefined) return result;
  }
  const system = systemSearch(search, descriptor.sonames, context.ldCache);
  const fromSystem = mode.take(search, descriptor, system.candidates) ?? (bareFirst ? undefined : mode.bareSoname(search, descriptor, system.bareSonameAllowed));
  if (fromSystem !== undefined) return fromSystem;
  if (!isDriver) {
    const lateSteps: (() => DirectoryStep | undefined)[] = [
      () => (descriptor.searchDerivedRoot ? derivedRootStep(search, context, descriptor) : undefined),
      () => defaultRootStep(search, descriptor),
    ];
    for (const step of lateSteps) {
      const result = takeStep(search, descriptor, mode, step());
      if (result !== undefined) return result;
    }
  }
  throw notFound(hintFor(descriptor, variable));
}

function takeStep<R>(search: Search, descriptor: LibraryDescriptor, mode: Mode<R>, step: DirectoryStep | undefined): R | undefined {
  if (step === undefined) return undefined;
  return mode.take(search, descriptor, scanDirectories(search, step.via, step.directories, descriptor.sonames));
}

function overrideCandidates(search: Search, variable: string, value: string, sonames: readonly string[]): Candidate<"override">[] {
  if (search.isFile(value)) return [{ path: value, fileName: baseName(value), directory: parentDirectory(value), via: "override" }];
  const state = search.directoryState(value);
  if (state === "ok") return scanDirectories(search, "override", [value], sonames);
  search.note("override", `${variable}=${value}`, state === "denied" ? `not readable (Deno: --allow-read=${value})` : "no such file or directory");
  return [];
}

/** The toolkit root of the `cudart` that is loaded or that the system loader would load, searched for `descriptor`. */
function derivedRootStep(search: Search, context: LibrarySearchContext, descriptor: LibraryDescriptor): DirectoryStep<"cuda-root"> | undefined {
  const cudart = requireLibraryDescriptor("cudart");
  let directory: string | undefined;
  for (const soname of cudart.sonames) {
    const loaded = context.config.loader.isLoaded(soname);
    if (loaded !== null) {
      directory = parentDirectory(loaded.path);
      break;
    }
  }
  if (directory === undefined) {
    const probe = new Search(context.config);
    directory = systemSearch(probe, cudart.sonames, context.ldCache).candidates[0]?.directory;
    for (const permission of probe.missingPermissions) search.missingPermissions.add(permission);
  }
  if (directory === undefined) {
    search.note("cuda-root", "cudart", "neither loaded nor found by the system search, so no toolkit root to derive");
    return undefined;
  }
  const root = toolkitRootOfLibraryDirectory(directory);
  if (root === undefined) {
    search.note("cuda-root", directory, "cudart is here, but this is not inside a toolkit root");
    return undefined;
  }
  return rootStep(search, "cuda-root", root, descriptor);
}

function hintFor(descriptor: LibraryDescriptor, variable: string): string {
  const soname = descriptor.sonames[0] ?? descriptor.name;
  if (descriptor.packagedWith === "driver") {
    return (
      `"${descriptor.name}" is an NVIDIA driver library: it is only looked for through the system loader, never in ` +
      `wheels or toolkit roots. Install the NVIDIA driver (check with: ldconfig -p | grep ${soname}), add its ` +
      `directory to LD_LIBRARY_PATH, or set ${variable} to the absolute path of ${soname}.`
    );
  }
  return (
    `To fix: set ${variable} to the absolute path of ${soname} (or of its directory), or set CUDA_PATH to a CUDA ` +
    `Toolkit root, or add the library's directory to LD_LIBRARY_PATH, or install NVIDIA's Python wheels in an ` +
    `active virtualenv or conda environment.`
  );
}
