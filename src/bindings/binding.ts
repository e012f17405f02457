/**
 * A generated library bound to a loaded shared library: the raw table (each function resolved on its first call),
 * the checked table over it, and the library's facts. Importing a binding loads and resolves nothing.
 *
 * @module
 */
import { ffi } from "../ffi/index.ts";
import type { NativeLibrary } from "../ffi/backend.ts";
import type { FunctionType } from "../ffi/types.ts";
import { loadNvidiaLibrary } from "../pathfinder/index.ts";
import type { CheckedRuntime } from "../tables-runtime/checked.ts";
import type { FunctionSpec, FunctionTable, LibraryInfo } from "../tables-runtime/spec.ts";
import { CheckedRuntimeImpl } from "./checked-runtime.ts";
import { FunctionNotFoundError } from "./errors.ts";

/** Where a bound library was loaded from. */
export interface LoadedLibrary {
  /** The pathfinder's name (cuda, cudart, nvrtc, ...). */
  readonly name: string;
  /** The file that was loaded. */
  readonly path: string;
  /** How the pathfinder found it (override, site-packages, CUDA_PATH, system-search, ...). */
  readonly foundVia: string;
  /** The native library. */
  readonly native: NativeLibrary;
}

/** Resolves one function of a loaded library to a callable, or throws {@link FunctionNotFoundError}. */
export type Resolver = (name: string, spec: FunctionSpec, lib: LoadedLibrary, options: { nonblocking: boolean }) => unknown;

/** Resolves by the exported symbol (every library but the driver). */
export const resolveBySymbol: Resolver = (name, spec, lib, options) => {
  const f = lib.native.bind(spec.symbol, spec as FunctionType, { nonblocking: options.nonblocking });
  if (f === null) {
    throw new FunctionNotFoundError(name, lib.name, `${lib.path} does not export ${spec.symbol}; it may be older than the CUDA headers these bindings were generated from.`);
  }
  return f;
};

/** What a binding adds to the checked functions. */
export interface BindingExtras<R> {
  /** The raw call style: C semantics, status codes, native pointers. */
  readonly raw: R;
  /** The generated library's facts (name, CTK version, status type). */
  readonly info: LibraryInfo;
  /** Loads the shared library now (the first call does it otherwise) and says where it came from. */
  load(): LoadedLibrary;
  /** The loaded library, or undefined before the first call. */
  readonly loaded: LoadedLibrary | undefined;
  /** Whether the checked calls run with guard bytes (`CUDA_TS_DEBUG=guards`, read when the binding is created). */
  readonly guards: boolean;
  /**
   * The native function behind `raw[name]`, resolved now if it was not yet (for hot paths that keep it in a
   * variable instead of looking it up on `raw` every call), typed as the raw table types it. Throws like the first
   * call would.
   */
  resolve<K extends keyof R & string>(name: K): R[K];
  /**
   * A non-blocking variant of a function (Deno: runs on a worker thread and returns a Promise of what the raw
   * function returns). Throws UnsupportedOnRuntimeError on Bun. Bound once per name and cached.
   */
  nonblocking<K extends keyof R & string>(name: K): Nonblocking<R[K]>;
}

/** A raw function as its non-blocking variant calls it: the same arguments, the result as a Promise. */
export type Nonblocking<F> = F extends (...args: infer A) => infer T ? (...args: A) => Promise<T> : never;

/** Options of {@link createBinding}. */
export interface BindingOptions<R, C> {
  /** The pathfinder name of the shared library. */
  readonly library: string;
  readonly info: LibraryInfo;
  readonly functions: FunctionTable;
  readonly createChecked: (raw: R, rt: CheckedRuntime) => C;
  /** Builds the typed error for a failed checked call (`subject`: the call's first argument when it is a handle). */
  readonly makeError: (code: number | bigint, fn: string, subject?: unknown) => Error;
  /** Resolves a function; default: by its exported symbol. */
  readonly resolver?: Resolver;
  /** Runs once after the library is loaded (version checks). */
  readonly onLoad?: (lib: LoadedLibrary) => void;
  /** Opens the library; default: the pathfinder, then the FFI backend. */
  readonly open?: () => LoadedLibrary;
}

/** Opens a library through the pathfinder. */
export function openThroughPathfinder(name: string): LoadedLibrary {
  const found = loadNvidiaLibrary(name);
  return { name, path: found.path, foundVia: found.foundVia, native: ffi.openLibrary(found.path) };
}

/** Builds a lazily bound library. */
export function createBinding<R extends object, C extends object>(options: BindingOptions<R, C>): C & BindingExtras<R> {
  let loaded: LoadedLibrary | undefined;
  const load = (): LoadedLibrary => {
    if (loaded === undefined) {
      const lib = (options.open ?? (() => openThroughPathfinder(options.library)))();
      loaded = lib;
      options.onLoad?.(lib);
    }
    return loaded;
  };
  const resolver = options.resolver ?? resolveBySymbol;
  const raw: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(options.functions)) {
    raw[name] = function lazy(...args: unknown[]): unknown {
      const f = resolver(name, spec, load(), { nonblocking: false }) as (...a: unknown[]) => unknown;
      raw[name] = f;
      resolved.add(name);
      return f(...args);
    };
  }
  const resolved = new Set<string>();
  const nonblockingCache = new Map<string, (...args: unknown[]) => Promise<unknown>>();
  const rt = new CheckedRuntimeImpl(options.makeError);
  const checked = options.createChecked(raw as R, rt);
  const extras: BindingExtras<R> = {
    raw: raw as R,
    info: options.info,
    load,
    get loaded() {
      return loaded;
    },
    guards: rt.guards,
    resolve<K extends keyof R & string>(name: K): R[K] {
      if (!resolved.has(name)) {
        const spec = options.functions[name];
        if (spec === undefined) throw new TypeError(`${options.info.name} has no function ${name}`);
        raw[name] = resolver(name, spec, load(), { nonblocking: false });
        resolved.add(name);
      }
      return raw[name] as R[K];
    },
    nonblocking<K extends keyof R & string>(name: K): Nonblocking<R[K]> {
      let f = nonblockingCache.get(name);
      if (f === undefined) {
        const spec = options.functions[name];
        if (spec === undefined) throw new TypeError(`${options.info.name} has no function ${name}`);
        f = resolver(name, spec, load(), { nonblocking: true }) as (...args: unknown[]) => Promise<unknown>;
        nonblockingCache.set(name, f);
      }
      return f as Nonblocking<R[K]>;
    },
  };
  return Object.defineProperties(checked, Object.getOwnPropertyDescriptors(extras)) as C & BindingExtras<R>;
}
