/**
 * {@link Pathfinder}: one configured searcher (environment, file system, dynamic loader, default root) with its
 * caches. The module-level functions in default.ts use one shared instance built on the real host; tests build
 * their own with injected options.
 *
 * @module
 */
import { findBinaryUtility, type LocatedBinaryUtility } from "./binaries.ts";
import { findBitcodeFile, findStaticFile, type LocatedLibraryFile } from "./bitcode.ts";
import { LIBRARY_CATALOG, type PackagedWith } from "./catalog.ts";
import { resolveOptions, Search, type PathfinderConfig, type PathfinderOptions } from "./context.ts";
import { findToolkitRoot, type LocatedCudaRoot } from "./cuda-root.ts";
import { SearchNotFoundError, DependencyCycleError } from "./errors.ts";
import { findHeaderDirectory, type LocatedHeaderDirectory } from "./headers.ts";
import { findLibrary, loadLibrary, type LibrarySearchContext, type LoadedNvidiaLibrary, type LocatedNvidiaLibrary } from "./libraries.ts";
import type { DynamicLoader } from "./loader.ts";
import { cudaPathOrHome, type CudaPathOrHome } from "./roots.ts";
import type { FoundVia } from "./search-steps.ts";
import { cachedLdCacheReader, type LdCacheReader } from "./system-search.ts";
import { warnUnsafeLibraryPathOnce } from "./unsafe-library-path.ts";

/** One line of {@link Pathfinder.surveyNvidiaLibraries}: a known library and whether (and how) it was found. */
export interface LibrarySurveyEntry {
  /** The catalog name. */
  readonly name: string;
  /** Who ships it. */
  readonly packagedWith: PackagedWith;
  /** Whether it was found (and, when loading, loaded). */
  readonly found: boolean;
  /** Where, when found. */
  readonly path?: string;
  /** How, when found. */
  readonly foundVia?: FoundVia;
  /** The error message, when not found. */
  readonly error?: string;
}

/** Options of {@link Pathfinder.surveyNvidiaLibraries}. */
export interface SurveyOptions {
  /** Load each library (and its dependencies) instead of only finding it. Default `false`. */
  readonly load?: boolean;
}

/** Returns the value, or `undefined` when `lookup` throws a {@link SearchNotFoundError} (other errors propagate). */
function orUndefined<T>(lookup: () => T): T | undefined {
  try {
    return lookup();
  } catch (error) {
    if (error instanceof SearchNotFoundError) return undefined;
    throw error;
  }
}

/**
 * Finds and loads NVIDIA libraries, headers, tools and bitcode, and caches what it found (successes only) until
 * {@link Pathfinder.clearCache}. Linux only. See libraries.ts for the library search order.
 */
export class Pathfinder {
  /** The configuration, defaults filled in. */
  readonly config: PathfinderConfig;
  private readonly warned = new Set<string>();
  private ldCache: LdCacheReader = cachedLdCacheReader();
  private readonly loaded = new Map<string, LoadedNvidiaLibrary>();
  private readonly located = new Map<string, LocatedNvidiaLibrary>();
  private readonly headers = new Map<string, LocatedHeaderDirectory>();
  private readonly binaries = new Map<string, LocatedBinaryUtility>();
  private readonly bitcode = new Map<string, LocatedLibraryFile>();
  private readonly staticLibraries = new Map<string, LocatedLibraryFile>();
  private cudaRoot: LocatedCudaRoot | undefined;
  private readonly loading = new Set<string>();

  /** Creates a pathfinder; `defaultLoader` is used when `options.loader` is absent. */
  constructor(options: PathfinderOptions = {}, defaultLoader?: DynamicLoader) {
    this.config = resolveOptions(options, defaultLoader);
  }

  private warnOnce = (message: string): void => {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.config.warn(message);
  };

  private get libraryContext(): LibrarySearchContext {
    return {
      config: this.config,
      warnOnce: this.warnOnce,
      ldCache: this.ldCache,
      loadDependency: (name) => this.loadNvidiaLibrary(name),
    };
  }

  /**
   * Finds and loads a library, dependencies first; the result is cached per name. Throws
   * {@link UnknownLibraryError}, {@link InvalidOverrideError} or {@link LibraryNotFoundError}. Before searching,
   * warns (once per process, see unsafe-library-path.ts) when `LD_LIBRARY_PATH` has empty or relative entries.
   */
  loadNvidiaLibrary(name: string): LoadedNvidiaLibrary {
    const cached = this.loaded.get(name);
    if (cached !== undefined) return cached;
    warnUnsafeLibraryPathOnce(new Search(this.config).env("LD_LIBRARY_PATH"), this.config.warn);
    if (this.loading.has(name)) throw new DependencyCycleError(name);
    this.loading.add(name);
    try {
      const result = loadLibrary(this.libraryContext, name);
      this.loaded.set(name, result);
      return result;
    } finally {
      this.loading.delete(name);
    }
  }

  /** Finds a library without loading it (cached); throws like {@link Pathfinder.loadNvidiaLibrary}. */
  findNvidiaLibrary(name: string): LocatedNvidiaLibrary {
    const cached = this.loaded.get(name) ?? this.located.get(name);
    if (cached !== undefined) return cached;
    const result = findLibrary(this.libraryContext, name);
    this.located.set(name, result);
    return result;
  }

  /** Like {@link Pathfinder.findNvidiaLibrary}, but `undefined` when not found. */
  tryFindNvidiaLibrary(name: string): LocatedNvidiaLibrary | undefined {
    return orUndefined(() => this.findNvidiaLibrary(name));
  }

  /** Finds the include directory of a component (cached); throws `UnknownNameError` or `HeaderDirectoryNotFoundError`. */
  findNvidiaHeaderDirectory(name: string): LocatedHeaderDirectory {
    return this.memo(this.headers, name, () => findHeaderDirectory(this.toolkitContext, name));
  }

  /** Like {@link Pathfinder.findNvidiaHeaderDirectory}, but `undefined` when not found. */
  tryFindNvidiaHeaderDirectory(name: string): LocatedHeaderDirectory | undefined {
    return orUndefined(() => this.findNvidiaHeaderDirectory(name));
  }

  /** Finds an executable tool (cached); throws `UnknownNameError` or `BinaryUtilityNotFoundError`. */
  findNvidiaBinaryUtility(name: string): LocatedBinaryUtility {
    return this.memo(this.binaries, name, () => findBinaryUtility(this.toolkitContext, name));
  }

  /** Like {@link Pathfinder.findNvidiaBinaryUtility}, but `undefined` when not found. */
  tryFindNvidiaBinaryUtility(name: string): LocatedBinaryUtility | undefined {
    return orUndefined(() => this.findNvidiaBinaryUtility(name));
  }

  /** Finds a bitcode library such as `"device"` (cached); throws `UnknownNameError` or `BitcodeLibraryNotFoundError`. */
  findBitcodeLibrary(name: string): LocatedLibraryFile {
    return this.memo(this.bitcode, name, () => findBitcodeFile(this.toolkitContext, name));
  }

  /** Like {@link Pathfinder.findBitcodeLibrary}, but `undefined` when not found. */
  tryFindBitcodeLibrary(name: string): LocatedLibraryFile | undefined {
    return orUndefined(() => this.findBitcodeLibrary(name));
  }

  /** Finds a static library such as `"cudadevrt"` (cached); throws `UnknownNameError` or `StaticLibraryNotFoundError`. */
  findStaticLibrary(name: string): LocatedLibraryFile {
    return this.memo(this.staticLibraries, name, () => findStaticFile(this.toolkitContext, name));
  }

  /** Like {@link Pathfinder.findStaticLibrary}, but `undefined` when not found. */
  tryFindStaticLibrary(name: string): LocatedLibraryFile | undefined {
    return orUndefined(() => this.findStaticLibrary(name));
  }

  /** Finds the CUDA Toolkit root (cached); throws `CudaRootNotFoundError`. */
  findCudaRoot(): LocatedCudaRoot {
    this.cudaRoot ??= findToolkitRoot(this.libraryContext);
    return this.cudaRoot;
  }

  /** Like {@link Pathfinder.findCudaRoot}, but `undefined` when not found. */
  tryFindCudaRoot(): LocatedCudaRoot | undefined {
    return orUndefined(() => this.findCudaRoot());
  }

  /**
   * `CUDA_PATH`, else `CUDA_HOME` (empty values unset, relative values ignored); warns once when both are set to
   * different directories. Not cached: reads the environment each time.
   */
  cudaPathOrHome(): CudaPathOrHome | undefined {
    return cudaPathOrHome(new Search(this.config), this.warnOnce);
  }

  /**
   * For every library in the catalog: whether it is found (or, with `{ load: true }`, loaded) and how. Never throws
   * for a library that cannot be found; its entry carries the error message instead.
   */
  surveyNvidiaLibraries(options: SurveyOptions = {}): LibrarySurveyEntry[] {
    return LIBRARY_CATALOG.map((descriptor) => {
      const { name, packagedWith } = descriptor;
      try {
        const found = options.load === true ? this.loadNvidiaLibrary(name) : this.findNvidiaLibrary(name);
        return { name, packagedWith, found: true, path: found.path, foundVia: found.foundVia };
      } catch (error) {
        return { name, packagedWith, found: false, error: error instanceof Error ? error.message : String(error) };
      }
    });
  }

  /** Forgets every cached result, the loader cache and the warnings already given (loaded libraries stay loaded). */
  clearCache(): void {
    this.loaded.clear();
    this.located.clear();
    this.headers.clear();
    this.binaries.clear();
    this.bitcode.clear();
    this.staticLibraries.clear();
    this.cudaRoot = undefined;
    this.warned.clear();
    this.ldCache = cachedLdCacheReader();
  }

  private get toolkitContext(): { config: PathfinderConfig; warnOnce: (message: string) => void } {
    return { config: this.config, warnOnce: this.warnOnce };
  }

  private memo<T>(cache: Map<string, T>, name: string, lookup: () => T): T {
    const cached = cache.get(name);
    if (cached !== undefined) return cached;
    const result = lookup();
    cache.set(name, result);
    return result;
  }
}
