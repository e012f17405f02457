/**
 * The pathfinder's view of the host: its options (all injectable for tests), their defaults (src/host.ts), and
 * the per-search record of what was examined, which becomes the "searched, in order" list of a not-found error and
 * the list of Deno permissions that were missing.
 *
 * @module
 */
import * as host from "../host.ts";
import type { SearchAttempt } from "./errors.ts";
import { unavailableLoader, type DynamicLoader } from "./loader.ts";
import { isAbsolutePath, joinPath } from "./paths.ts";

/** The environment and file-system queries the pathfinder makes. Defaults: the helpers of src/host.ts. */
export interface HostAccess {
  /** An environment variable; `undefined` when unset, empty or not readable. */
  getEnv(name: string): string | undefined;
  /** Whether an environment variable may be read (Deno `--allow-env`). */
  canReadEnv(name: string): boolean;
  /** Whether a path may be read (Deno `--allow-read`). */
  canReadPath(path: string): boolean;
  /** Whether a path is an existing directory. */
  isDirectory(path: string): boolean;
  /** Whether a path is an existing regular file, following links (a broken link is not). */
  isFile(path: string): boolean;
  /** Whether a path is an executable regular file. */
  isExecutable(path: string): boolean;
  /** The sorted entries of a directory (broken links included); empty when missing. */
  listDirectory(path: string): string[];
  /** The canonical path, links resolved, or `undefined`. */
  realPath(path: string): string | undefined;
  /** The bytes of a file, or `undefined`. */
  readFileBytes(path: string): Uint8Array | undefined;
}

/** The host's real environment and file system, through src/host.ts (never prompts under Deno). */
export const realHost: HostAccess = {
  getEnv: host.getEnv,
  canReadEnv: host.canReadEnv,
  canReadPath: host.canReadPath,
  isDirectory: host.isDirectory,
  isFile: host.isFile,
  isExecutable: host.isExecutable,
  listDirectory: host.listDirectory,
  realPath: host.realPath,
  readFileBytes: host.readFileBytes,
};

/** How a {@link Pathfinder} searches. Every field has a default suited to the real machine. */
export interface PathfinderOptions {
  /**
   * The environment variables to use instead of the process environment (unlisted names count as unset, empty
   * values as unset). Default: the process environment through src/host.ts.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Replacements for the host's file-system and permission queries. */
  readonly host?: Partial<HostAccess>;
  /** The dynamic loader. Default: the system loader (src/ffi/dl.ts), where available. */
  readonly loader?: DynamicLoader;
  /** The last-resort toolkit root; `null` disables that step. Default `/usr/local/cuda`. */
  readonly defaultRoot?: string | null;
  /** The glibc loader cache to consult in the system search; `null` skips it. Default `/etc/ld.so.cache`. */
  readonly ldSoCachePath?: string | null;
  /** The loader's built-in directories, searched after its cache. Default: glibc's for this architecture. */
  readonly systemLibraryDirectories?: readonly string[];
  /** The process architecture in Node's spelling (`x64`, `arm64`). Default: the running process's. */
  readonly architecture?: string;
  /** Where warnings go (such as CUDA_PATH and CUDA_HOME disagreeing). Default `console.warn`. */
  readonly warn?: (message: string) => void;
  /**
   * Look only for the toolkit libraries of this CUDA major version (`12`: `libcudart.so.12`, ...), instead of every
   * supported one newest first. Default: the `CUDA_TS_CUDA_MAJOR` environment variable, else unpinned.
   */
  readonly cudaMajor?: number;
}

/** Options with every default filled in. */
export interface PathfinderConfig {
  /** The host queries. */
  readonly host: HostAccess;
  /** The injected environment, when there is one. */
  readonly env: Readonly<Record<string, string | undefined>> | undefined;
  /** The dynamic loader. */
  readonly loader: DynamicLoader;
  /** The last-resort toolkit root, or `null`. */
  readonly defaultRoot: string | null;
  /** The glibc loader cache, or `null`. */
  readonly ldSoCachePath: string | null;
  /** The loader's built-in directories. */
  readonly systemLibraryDirectories: readonly string[];
  /** The process architecture (`x64`, `arm64`, or another Node spelling; `unknown` when not known). */
  readonly architecture: string;
  /** Where warnings go. */
  readonly warn: (message: string) => void;
  /** The pinned CUDA major version (option; the environment variable is read at search time), or undefined. */
  readonly cudaMajor: number | undefined;
}

/** The running process's architecture in Node's spelling, or `unknown`. */
export function processArchitecture(): string {
  return host.architecture;
}

/** The GNU multiarch triple of an architecture (`x64` → `x86_64-linux-gnu`), or `undefined`. */
export function multiarchTriple(architecture: string): string | undefined {
  if (architecture === "x64") return "x86_64-linux-gnu";
  if (architecture === "arm64") return "aarch64-linux-gnu";
  return undefined;
}

/** The `targets/<name>` directories of a CUDA Toolkit built for an architecture, or `undefined` when unknown. */
export function toolkitTargetNames(architecture: string): readonly string[] | undefined {
  if (architecture === "x64") return ["x86_64-linux"];
  if (architecture === "arm64") return ["sbsa-linux", "aarch64-linux"];
  return undefined;
}

/** glibc's built-in library directories for an architecture (searched after LD_LIBRARY_PATH and the cache). */
export function defaultSystemLibraryDirectories(architecture: string): readonly string[] {
  const triple = multiarchTriple(architecture);
  const multiarch = triple === undefined ? [] : [`/lib/${triple}`, `/usr/lib/${triple}`];
  return [...multiarch, "/lib64", "/usr/lib64", "/lib", "/usr/lib"];
}

/** The default warning sink: `console.warn` (one function, so that a warning given once per sink is given once per process). */
export const consoleWarn = (message: string): void => console.warn(message);

/** Fills in the defaults of `options`; `defaultLoader` is used when `options.loader` is absent. */
export function resolveOptions(options: PathfinderOptions = {}, defaultLoader?: DynamicLoader): PathfinderConfig {
  const architecture = options.architecture ?? processArchitecture();
  return {
    host: { ...realHost, ...options.host },
    env: options.env,
    loader: options.loader ?? defaultLoader ?? unavailableLoader("no dynamic loader was configured"),
    defaultRoot: options.defaultRoot === undefined ? "/usr/local/cuda" : options.defaultRoot,
    ldSoCachePath: options.ldSoCachePath === undefined ? "/etc/ld.so.cache" : options.ldSoCachePath,
    systemLibraryDirectories: options.systemLibraryDirectories ?? defaultSystemLibraryDirectories(architecture),
    architecture,
    warn: options.warn ?? consoleWarn,
    cudaMajor: options.cudaMajor,
  };
}

/** Whether a directory could be searched. */
export type DirectoryState = "ok" | "missing" | "denied";

/**
 * One search in progress: reads the environment and the file system through the configured host, and records
 * every place examined and every permission that was missing.
 */
export class Search {
  /** The configuration searched with. */
  readonly config: PathfinderConfig;
  /** Every place examined, in order. */
  readonly attempts: SearchAttempt[] = [];
  /** Deno flags that would have let the search look further. */
  readonly missingPermissions = new Set<string>();
  private readonly listings = new Map<string, readonly string[]>();

  /** Starts a search with `config`. */
  constructor(config: PathfinderConfig) {
    this.config = config;
  }

  /** Records one examined place. */
  note(step: string, location: string, outcome: string): void {
    this.attempts.push({ step, location, outcome });
  }

  /** An environment variable (empty counts as unset); notes the Deno permission when it may not be read. */
  env(name: string): string | undefined {
    const injected = this.config.env;
    if (injected !== undefined) {
      const value = injected[name];
      return value === undefined || value === "" ? undefined : value;
    }
    if (!this.config.host.canReadEnv(name)) {
      this.missingPermissions.add(`--allow-env=${name}`);
      return undefined;
    }
    return this.config.host.getEnv(name);
  }

  /** Whether an environment variable could not be read for lack of permission (only for the real environment). */
  envDenied(name: string): boolean {
    return this.config.env === undefined && !this.config.host.canReadEnv(name);
  }

  /** Whether `path` may be read; notes the missing Deno permission when not. */
  readable(path: string): boolean {
    if (this.config.host.canReadPath(path)) return true;
    this.missingPermissions.add(`--allow-read=${path}`);
    return false;
  }

  /** Whether a directory exists and may be searched. */
  directoryState(dir: string): DirectoryState {
    if (!this.readable(dir)) return "denied";
    return this.config.host.isDirectory(dir) ? "ok" : "missing";
  }

  /** The entries of a directory (cached for this search). */
  list(dir: string): readonly string[] {
    let entries = this.listings.get(dir);
    if (entries === undefined) {
      entries = this.readable(dir) ? this.config.host.listDirectory(dir) : [];
      this.listings.set(dir, entries);
    }
    return entries;
  }

  /** Whether `path` is a regular file (links followed). */
  isFile(path: string): boolean {
    return this.readable(path) && this.config.host.isFile(path);
  }

  /** Whether `path` is an executable regular file. */
  isExecutable(path: string): boolean {
    return this.readable(path) && this.config.host.isExecutable(path);
  }

  /**
   * The existing directories `root/relative` names, where a `*` segment matches every sub-directory (sorted).
   * Under `targets/`, `*` matches only this architecture's toolkit targets when the architecture is known.
   */
  expand(root: string, relative: string): string[] {
    let current = [root];
    const segments = relative.split("/").filter((s) => s !== "");
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as string;
      if (segment !== "*") {
        current = current.map((dir) => joinPath(dir, segment));
        continue;
      }
      const allowed = segments[i - 1] === "targets" ? toolkitTargetNames(this.config.architecture) : undefined;
      const next: string[] = [];
      for (const dir of current) {
        for (const entry of this.list(dir)) {
          if (allowed !== undefined && !allowed.includes(entry)) continue;
          const child = joinPath(dir, entry);
          if (this.directoryState(child) === "ok") next.push(child);
        }
      }
      current = next;
    }
    return current;
  }
}

/** The value of a path-like variable when it is absolute; otherwise notes why it is ignored and returns undefined. */
export function absoluteOrNote(search: Search, step: string, variable: string, value: string | undefined): string | undefined {
  if (value === undefined) {
    search.note(step, variable, search.envDenied(variable) ? `not readable (Deno: --allow-env=${variable})` : "not set");
    return undefined;
  }
  if (!isAbsolutePath(value)) {
    search.note(step, `${variable}=${value}`, "ignored: not an absolute path (relative paths are never searched)");
    return undefined;
  }
  return value;
}
