/**
 * The default {@link DynamicLoader}: glibc's `dlopen` through src/ffi/dl.ts. That module is loaded dynamically when
 * this one is first evaluated (required on Bun, imported elsewhere; it binds libc only on first use). A failure to
 * load it (a runtime without FFI) or to use it (Deno without `--allow-ffi`) becomes the reason every load fails, so the rest of the pathfinder
 * (headers, binaries, find-only lookups) still works.
 *
 * @module
 */
import { nativeRequire } from "../host.ts";
import { filePath, ownModuleUrl } from "../module-url.ts";
import type { DynamicLoader, LoadedHandle, LoadOutcome } from "./loader.ts";

type DlModule = typeof import("../ffi/dl.ts");

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function importDl(): Promise<DlModule | string> {
  try {
    return await import("../ffi/dl.ts");
  } catch (error) {
    return `the dynamic loader (src/ffi/dl.ts) is unavailable: ${describe(error)}`;
  }
}

/** Bun's own synchronous require, where this module runs natively. */
const bunRequire = nativeRequire(import.meta);

// Elsewhere the module is imported now; on Bun it is required on first use, never while this module's own graph is
// still being evaluated (a module of it that waits on an import, such as src/ffi/current.ts, cannot be required then).
const imported: DlModule | string | undefined = bunRequire === undefined ? await importDl() : undefined;
let required: DlModule | string | undefined;

/** src/ffi/dl.ts, or why it is unavailable. */
function dlModule(): DlModule | string {
  if (imported !== undefined) return imported;
  if (required === undefined) {
    try {
      required = (bunRequire as (id: string) => unknown)(filePath(ownModuleUrl("src/ffi/dl"))) as DlModule;
    } catch (error) {
      required = `the dynamic loader (src/ffi/dl.ts) is unavailable: ${describe(error)}`;
    }
  }
  return required;
}

let failure: string | undefined;

/** Why the system loader cannot load anything (so far), or `undefined` when it can. */
export function systemLoaderProblem(): string | undefined {
  const dl = dlModule();
  return typeof dl === "string" ? dl : failure;
}

/** The system's dynamic loader: `dlopen(RTLD_NOW | RTLD_NOLOAD)` to check, `dlopen(RTLD_NOW | RTLD_GLOBAL)` to load. */
export const systemLoader: DynamicLoader = {
  problem: systemLoaderProblem,
  isLoaded(soname: string): LoadedHandle | null {
    const dl = dlModule();
    if (typeof dl === "string") return null;
    try {
      const handle = dl.dlopen(soname, dl.RTLD_NOW | dl.RTLD_NOLOAD);
      if (handle === null) {
        dl.dlerror();
        return null;
      }
      return { path: dl.loadedPath(handle) ?? soname, handle };
    } catch (error) {
      failure = `the dynamic loader failed: ${describe(error)}`;
      return null;
    }
  },
  load(file: string): LoadOutcome {
    const dl = dlModule();
    if (typeof dl === "string") return { ok: false, error: dl };
    try {
      const handle = dl.dlopen(file, dl.RTLD_NOW | dl.RTLD_GLOBAL);
      if (handle === null) return { ok: false, error: dl.dlerror() ?? "dlopen failed" };
      return { ok: true, path: dl.loadedPath(handle) ?? file, handle };
    } catch (error) {
      failure = `the dynamic loader failed: ${describe(error)}`;
      return { ok: false, error: failure };
    }
  },
};
