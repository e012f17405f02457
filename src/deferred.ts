/**
 * Modules loaded on first use instead of at import: the pathfinder (until a library is first looked for), and the
 * bindings of libraries that many scripts never touch (NVML, cuFile, NVRTC, nvJitLink, libNVVM, NCCL: hundreds of
 * kilobytes of tables a script that never reads a GPU's temperature or compiles a kernel should not evaluate).
 * Each has a small module of its own that names it through {@link loadOnFirstUse} (src/pathfinder/on-demand.ts,
 * src/core/system/nvml-module.ts, ...); {@link loadedDeferredModules} says which have loaded.
 *
 * A first use is synchronous (`system.devices()`, `CuFile.open(...)`), so the module must load synchronously. Bun
 * does that natively (`import.meta.require`, which shares the ES module registry: classes stay the same classes).
 * Deno's only synchronous loader is its Node.js layer's `require`, which costs tens of milliseconds to start and
 * needs `--allow-read`, and a module runner such as vitest's has no `import.meta.require`: there the library loads
 * at import, as before, through the caller's own `await import(...)`. So does every runtime when
 * `CUDA_TS_EAGER=1`, or when the older tables are loaded (their modules wait on an import of their own, which a
 * synchronous load refuses). What loads at import there is kept small: `system` and the GDS classes bind generated
 * subsets of NVML's and cuFile's tables (headers-manifest.json's `subsets`), not the whole libraries.
 *
 * @module
 */
import { getEnv } from "./host.ts";
import { filePath } from "./module-url.ts";
import { InvalidStateError, quietFields } from "./errors/base.ts";

/** The variable that makes the deferred libraries load at import on every runtime (`CUDA_TS_EAGER=1`). */
export const EAGER_VARIABLE = "CUDA_TS_EAGER";

/**
 * A module cuda-ts loads on first use could not be loaded then (Bun refuses to require a module while one it imports
 * still waits on an import of its own, in the middle of an ES module graph's evaluation: `CUDA_TS_EAGER=1` loads it
 * at import instead; or Deno refused to read it: the message says which permission).
 */
export class DeferredLoadError extends InvalidStateError {
  /** The module's name ("nvml", "pathfinder", ...). */
  readonly module: string;

  constructor(module: string, specifier: string, cause: unknown, advice = `Set ${EAGER_VARIABLE}=1 to load it at import instead.`) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`cuda-ts could not load ${module} (${specifier}) on first use: ${why}. ${advice}`, { cause });
    this.name = "DeferredLoadError";
    this.module = module;
    quietFields(this);
  }
}

const loaded = new Set<string>();

/** @internal The deferred modules this process has loaded so far, by name ("pathfinder", "nvml", ...), in order. */
export function loadedDeferredModules(): readonly string[] {
  return [...loaded];
}

/**
 * A synchronous loader of the module at `url` (one of cuda-ts's own: src/module-url.ts's `ownModuleUrl`), through
 * `require` (Bun's own, `nativeRequire(import.meta)`), or `undefined` where the runtime cannot load it synchronously
 * or must not (see the module's documentation; `require` is undefined off native Bun): the caller then imports it at
 * import. `blocked` is the caller's own reason to load at import (the older tables are loaded).
 */
export function deferredLoader<T>(require: ((id: string) => unknown) | undefined, url: string, name: string, blocked: boolean): (() => T) | undefined {
  if (blocked || require === undefined || getEnv(EAGER_VARIABLE) === "1") return undefined;
  const id = filePath(url);
  let module: T | undefined;
  return () => {
    if (module === undefined) {
      try {
        module = require(id) as T;
      } catch (error) {
        throw new DeferredLoadError(name, id, error);
      }
      loaded.add(name);
    }
    return module;
  };
}

/**
 * A module of cuda-ts loaded on its first use where the runtime can load it then (Bun), and at import elsewhere:
 * resolves to the accessor that returns it. `load` is the caller's own `import("./literal")` of the module (Deno
 * fetches a literal import with the graph, so loading it at import reads no file a second time), `url` the same
 * module's address for the synchronous loader ({@link deferredLoader}), `blocked` the caller's reason to load at
 * import. The accessor is what the caller exports; it costs one call per use.
 */
export async function loadOnFirstUse<T>(require: ((id: string) => unknown) | undefined, url: string, name: string, blocked: boolean, load: () => Promise<T>): Promise<() => T> {
  const deferred = deferredLoader<T>(require, url, name, blocked);
  if (deferred !== undefined) return deferred;
  const module = await load();
  loaded.add(name);
  return () => module;
}

/**
 * `import()` of the module at `url` (one of cuda-ts's own: src/module-url.ts's `ownModuleUrl`), for modules loaded
 * later, asynchronously, at a first use that may never come (cuFFT's tables when the first `Fft` is made, CUPTI's
 * for `profile()`).
 *
 * The specifier is made at run time on purpose: Deno fetches and parses every `import("./literal")` of a module's
 * graph when the graph loads, called or not (CUPTI's tables alone are a megabyte; the math libraries' and CUPTI's cost
 * the root's import 10 ms on the CPU machine). Deno asks no permission for imports inside an installed package
 * (node_modules, its npm cache); running cuda-ts from its sources, it needs `--allow-read` for them, and the error
 * says so. What may load at import (the older CUDA versions' tables) stays a literal import: `deno run --allow-ffi`
 * must import the package from its sources too.
 */
export async function importLater<T>(url: string, name: string): Promise<T> {
  try {
    return (await import(url)) as T;
  } catch (error) {
    const e = error as { name?: unknown; message?: unknown };
    // Deno 2 refuses with a TypeError ("Requires read access to ...") or its NotCapable error.
    if (e.name === "NotCapable" || e.name === "PermissionDenied" || /^Requires read access/.test(String(e.message))) {
      const folder = decodeURIComponent(new URL(".", url).pathname);
      throw new DeferredLoadError(name, url, error, `Deno asks read permission for it because cuda-ts runs from files outside an installed package: run with --allow-read (or --allow-read=${folder}).`);
    }
    throw error;
  }
}
