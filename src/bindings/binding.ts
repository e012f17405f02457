/**
 * A generated library bound to a loaded shared library: the raw table (each function resolved on its first call),
 * the checked table over it, and the library's facts. Importing a binding loads and resolves nothing.
 *
 * A binding carries the generated tables of every CTK version it knows (newest first). When the library is loaded
 * it chooses one for what it loaded (its version query, or its soname): every function is then resolved with that
 * table's signature, and the checked calls lay out records (cudaDeviceProp, ...) as that table does. A function the
 * chosen table lacks fails on its first call with a {@link FunctionVersionError} naming both versions.
 *
 * @module
 */
import { ffi } from "../ffi/index.ts";
import type { NativeLibrary } from "../ffi/backend.ts";
import type { FunctionType } from "../ffi/types.ts";
import { pathfinder } from "../pathfinder/on-demand.ts";
import type { CheckedRuntime } from "../tables-runtime/checked.ts";
import type { FunctionSpec, FunctionTable, LibraryInfo } from "../tables-runtime/spec.ts";
import { checkRawArguments } from "./arguments.ts";
import { CheckedRuntimeImpl, guardsEnabled } from "./checked-runtime.ts";
import { FunctionNotFoundError, FunctionVersionError } from "./errors.ts";
import { type GeneratedTable, tablesFor } from "./tables/registry.ts";

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
  /** The file name the pathfinder looked for (libcudart.so.12, ...), when it says. */
  readonly soname?: string;
}

/** The generated table a binding chose for the library it loaded, and why. */
export interface TableChoice {
  /** The chosen table. */
  readonly table: GeneratedTable;
  /** The loaded library's version as its own query reports it ("12.4"), when it has one. */
  readonly libraryVersion?: string;
  /** How the table was chosen ("cudaRuntimeGetVersion 12040", "soname libcupti.so.12", "newest", ...). */
  readonly reason: string;
}

/** Chooses a table (the binding's tables, newest first) for a loaded library. */
export type TableChooser = (lib: LoadedLibrary, tables: readonly GeneratedTable[]) => TableChoice;

/** "12.4" → 12040 (CUDA's version numbers). */
export function versionNumber(ctkVersion: string): number {
  const [major, minor] = ctkVersion.split(".").map(Number);
  return (major ?? 0) * 1000 + (minor ?? 0) * 10;
}

/** 12040 → "12.4". */
export function versionString(version: number): string {
  return `${Math.floor(version / 1000)}.${Math.floor((version % 1000) / 10)}`;
}

/**
 * The newest table not newer than `version` (a CUDA version number), else the oldest table: a library of
 * CUDA 12.8 gets the 12.4 table, one of 13.1 the 13.0 table.
 */
export function newestNotNewerThan(tables: readonly GeneratedTable[], version: number): GeneratedTable {
  return tables.find((t) => versionNumber(t.library.ctkVersion) <= version) ?? tables[tables.length - 1]!;
}

/**
 * Chooses by the major version in the soname (`libcupti.so.12` → the newest 12.x table), else the newest table.
 * For libraries without a version query.
 */
export const chooseBySoname: TableChooser = (lib, tables) => {
  const file = lib.soname ?? lib.path.slice(lib.path.lastIndexOf("/") + 1);
  const m = /\.so\.(\d+)/.exec(file);
  if (m !== null) {
    const major = Number(m[1]);
    const t = tables.find((x) => Number(x.library.ctkVersion.split(".")[0]) === major);
    if (t !== undefined) return { table: t, reason: `soname ${file}` };
  }
  return { table: tables[0]!, reason: "newest (no version in the soname)" };
};

/**
 * Chooses by a version the library reports through `query` (a CUDA version number, or undefined when it cannot
 * say): the newest table not newer than it; else by soname.
 */
export function chooseByVersion(what: string, query: (lib: LoadedLibrary) => number | undefined): TableChooser {
  return (lib, tables) => {
    let version: number | undefined;
    try {
      version = query(lib);
    } catch {
      version = undefined;
    }
    if (version === undefined || version <= 0) return chooseBySoname(lib, tables);
    return { table: newestNotNewerThan(tables, version), libraryVersion: versionString(version), reason: `${what} ${version}` };
  };
}

/** A `(major, minor)` pair as a CUDA version number (12, 4 → 12040), or undefined. */
export function majorMinor(v: number[] | undefined): number | undefined {
  return v === undefined ? undefined : v[0]! * 1000 + v[1]! * 10;
}

/** Reads one or two C ints through a symbol of `lib` (a `(int*)` or `(int*, int*)` version query) with the FFI. */
export function queryInts(lib: LoadedLibrary, symbol: string, count: 1 | 2): number[] | undefined {
  const type: FunctionType = { parameters: count === 1 ? ["pointer"] : ["pointer", "pointer"], result: "i32" };
  const f = lib.native.bind(symbol, type) as ((...a: unknown[]) => number) | null;
  if (f === null) return undefined;
  const buf = new ArrayBuffer(8);
  const base = ffi.pointerOf(buf);
  const r = count === 1 ? f(base) : f(base, ffi.offsetPointer(base, 4));
  if (r !== 0) return undefined;
  const v = new DataView(buf);
  return count === 1 ? [v.getInt32(0, true)] : [v.getInt32(0, true), v.getInt32(4, true)];
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
  /**
   * The generated library's facts (name, CTK version, status type): the chosen table's once the library is loaded,
   * the newest table's before.
   */
  readonly info: LibraryInfo;
  /** The table chosen for the loaded library (loads it), with the library's own version and the reason. */
  table(): TableChoice;
  /** The CTK versions of the tables this binding carries, newest first. */
  readonly tableVersions: readonly string[];
  /** Loads the shared library now (the first call does it otherwise) and says where it came from. */
  load(): LoadedLibrary;
  /** The loaded library, or undefined before the first call. */
  readonly loaded: LoadedLibrary | undefined;
  /** Whether the checked calls run with guard bytes (`CUDA_TS_DEBUG=guards`, read when the binding is created). */
  readonly guards: boolean;
  /**
   * The function `raw[name]` is once resolved, resolved now if it was not yet (for hot paths that keep it in a
   * variable instead of looking it up on `raw` every call), typed as the raw table types it: it checks its
   * arguments as `raw[name]` does. Throws like the first call would.
   */
  resolve<K extends keyof R & string>(name: K): R[K];
  /**
   * A non-blocking variant of a function (Deno: runs on a worker thread and returns a Promise of what the raw
   * function returns). Throws UnsupportedOnRuntimeError on Bun. Bound once per name and cached. Its arguments are
   * checked as the raw function's are: a bad one throws `BindingArgumentError` at the call, not in the Promise.
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
  /** Runs once after the library is loaded and the table chosen (version checks). */
  readonly onLoad?: (lib: LoadedLibrary, choice: TableChoice) => void;
  /**
   * The tables of every CTK version, newest first (default: the one of `info`/`functions`/`createChecked`); read
   * when the library is loaded, so that tables registered by `useGeneratedTables` join in.
   */
  readonly tables?: () => readonly GeneratedTable[];
  /** Chooses the table for the loaded library; default {@link chooseBySoname}. */
  readonly chooseTable?: TableChooser;
  /** Opens the library; default: the pathfinder, then the FFI backend. */
  readonly open?: () => LoadedLibrary;
}

/** Opens a library through the pathfinder. */
export function openThroughPathfinder(name: string): LoadedLibrary {
  const found = pathfinder().loadNvidiaLibrary(name);
  return { name, path: found.path, foundVia: found.foundVia, soname: found.soname, native: ffi.openLibrary(found.path) };
}

/** Every function name of the tables, the first table's first, each once (cheaper at import than a Set of all). */
function functionNames(tables: readonly GeneratedTable[]): string[] {
  const first = tables[0]!.functions;
  const names = Object.keys(first);
  for (let i = 1; i < tables.length; i++) {
    for (const name of Object.keys(tables[i]!.functions)) if (!Object.hasOwn(first, name) && !names.includes(name)) names.push(name);
  }
  return names;
}

type Fn = (...args: unknown[]) => unknown;

/** Each binding's way to its unchecked native functions (see {@link uncheckedNative}). */
const uncheckedResolvers = new WeakMap<object, (name: string) => unknown>();

/**
 * The native function behind `binding.raw[name]` without the raw style's argument checks, resolved now if it was not
 * yet: for the object layer's hot paths (a launch, reading the current context), which pass only values they made
 * and checked themselves. Not part of the package's API: users get the checked functions.
 */
export function uncheckedNative<R, K extends keyof R & string>(binding: BindingExtras<R>, name: K): R[K] {
  const resolve = uncheckedResolvers.get(binding);
  if (resolve === undefined) throw new TypeError("uncheckedNative: not a binding made by createBinding");
  return resolve(name) as R[K];
}

/** Builds a lazily bound library. */
export function createBinding<R extends object, C extends object>(options: BindingOptions<R, C>): C & BindingExtras<R> {
  const own: GeneratedTable = { library: options.info, functions: options.functions, createChecked: options.createChecked as GeneratedTable["createChecked"] };
  const allTables = (): readonly GeneratedTable[] => tablesFor(options.info.name, options.tables?.() ?? [own]);
  let loaded: LoadedLibrary | undefined;
  let choice: TableChoice | undefined;
  const load = (): LoadedLibrary => {
    if (loaded === undefined) {
      const lib = (options.open ?? (() => openThroughPathfinder(options.library)))();
      const tables = allTables();
      choice = tables.length === 1 ? { table: tables[0]!, reason: "the only table" } : (options.chooseTable ?? chooseBySoname)(lib, tables);
      loaded = lib;
      options.onLoad?.(lib, choice);
    }
    return loaded;
  };
  const chosen = (): GeneratedTable => {
    load();
    return choice!.table;
  };
  /** The spec of `name` in the chosen table, or the typed error naming both versions. */
  const specOf = (name: string): FunctionSpec => {
    const table = chosen();
    const spec = table.functions[name];
    if (spec !== undefined) return spec;
    const having = allTables().filter((t) => t.functions[name] !== undefined).map((t) => t.library.ctkVersion);
    if (having.length === 0) throw new TypeError(`${options.info.name} has no function ${name}`);
    throw new FunctionVersionError(name, options.info.name, having[having.length - 1]!, table.library.ctkVersion, choice!.libraryVersion, loaded!.path);
  };
  const resolver = options.resolver ?? resolveBySymbol;
  // Two tables over the same native functions. `raw`, the public raw call style, checks every argument against the
  // function's native signature before the call (arguments.ts); `native`, what the checked style calls, does not:
  // the checked style has checked its own arguments, in its own terms, before converting them.
  const raw: Record<string, unknown> = {};
  const native: Record<string, unknown> = {};
  /** Resolves `name` and puts the native function and its checking wrapper in their tables. */
  const bind = (name: string): Fn => {
    const spec = specOf(name);
    const f = resolver(name, spec, load(), { nonblocking: false }) as Fn;
    native[name] = f;
    raw[name] = checkRawArguments(name, spec, f);
    resolved.add(name);
    return f;
  };
  // Every function name of every built-in table: the newest table's first, so that the raw table lists them in
  // its order; one lazy stub each, replaced by the native function (and its checking wrapper) on its first call.
  const builtIn = options.tables?.() ?? [own];
  const names = functionNames(builtIn);
  for (const name of names) {
    native[name] = function lazy(...args: unknown[]): unknown {
      return bind(name)(...args);
    };
    raw[name] = function lazyRaw(...args: unknown[]): unknown {
      if (loaded === undefined) {
        try {
          load();
        } catch (e) {
          // No library: the arguments are still checked first, against the newest table that has the function, so
          // that a bad argument is the same error with or without a library (as the checked style's is).
          const spec = builtIn.find((t) => t.functions[name] !== undefined)?.functions[name];
          if (spec !== undefined) {
            checkRawArguments<Fn>(name, spec, () => {
              throw e;
            })(...args);
          }
          throw e;
        }
      }
      bind(name);
      return (raw[name] as Fn)(...args);
    };
  }
  const resolved = new Set<string>();
  /** Resolves `name` unless it is already (for resolve() and uncheckedNative); an unknown name is a TypeError. */
  const bound = (name: string): void => {
    if (resolved.has(name)) return;
    if (!(name in native)) throw new TypeError(`${options.info.name} has no function ${name}`);
    bind(name);
  };
  const nonblockingCache = new Map<string, (...args: unknown[]) => Promise<unknown>>();
  // The checked style's runtime (output slots, typed views): made with the first checked function, not at import.
  const guards = guardsEnabled();
  let rtMade: CheckedRuntimeImpl | undefined;
  const rt = (): CheckedRuntimeImpl => (rtMade ??= new CheckedRuntimeImpl(options.makeError, guards));
  // One table: its checked functions are the binding. Several: a facade whose functions build the chosen table's
  // checked style on their first call and replace themselves with its function.
  let checked: Record<string, unknown>;
  if (builtIn.length === 1 && options.tables === undefined) {
    checked = options.createChecked(native as R, rt()) as Record<string, unknown>;
  } else {
    let chosenChecked: Record<string, unknown> | undefined;
    let newestChecked: Record<string, unknown> | undefined;
    const facade: Record<string, unknown> = {};
    for (const name of names) {
      facade[name] = function lazyChecked(...args: unknown[]): unknown {
        if (loaded === undefined) {
          try {
            load();
          } catch (e) {
            // No library to choose a table for: the newest table's checked call still checks the arguments first
            // (a bad argument is a BindingArgumentError with or without a library), then fails to load as raw does.
            newestChecked ??= builtIn[0]!.createChecked(native as never, rt()) as Record<string, unknown>;
            const f = newestChecked[name] as ((...a: unknown[]) => unknown) | undefined;
            if (f === undefined) throw e;
            return f(...args);
          }
        }
        chosenChecked ??= chosen().createChecked(native as never, rt()) as Record<string, unknown>;
        const f = chosenChecked[name] as ((...a: unknown[]) => unknown) | undefined;
        if (f === undefined) {
          specOf(name);
          throw new TypeError(`${options.info.name}: ${name} has no checked form in the CUDA ${chosen().library.ctkVersion} table; use .raw.${name}`);
        }
        // The first call makes the chosen table's function (its lazy placeholder replaces itself in that table);
        // the facade then keeps the made function, so that later calls go straight to it.
        try {
          return f(...args);
        } finally {
          facade[name] = chosenChecked[name];
        }
      };
    }
    checked = facade;
  }
  const extras: BindingExtras<R> = {
    raw: raw as R,
    get info() {
      return choice?.table.library ?? builtIn[0]!.library;
    },
    table(): TableChoice {
      load();
      return choice!;
    },
    get tableVersions() {
      return allTables().map((t) => t.library.ctkVersion);
    },
    load,
    get loaded() {
      return loaded;
    },
    guards,
    resolve<K extends keyof R & string>(name: K): R[K] {
      bound(name);
      return raw[name] as R[K];
    },
    nonblocking<K extends keyof R & string>(name: K): Nonblocking<R[K]> {
      let f = nonblockingCache.get(name);
      if (f === undefined) {
        if (!(name in raw)) throw new TypeError(`${options.info.name} has no function ${name}`);
        const spec = specOf(name);
        f = checkRawArguments(name, spec, resolver(name, spec, load(), { nonblocking: true }) as (...args: unknown[]) => Promise<unknown>);
        nonblockingCache.set(name, f);
      }
      return f as Nonblocking<R[K]>;
    },
  };
  const binding = Object.defineProperties(checked, Object.getOwnPropertyDescriptors(extras)) as C & BindingExtras<R>;
  uncheckedResolvers.set(binding, (name) => {
    bound(name);
    return native[name];
  });
  return binding;
}
