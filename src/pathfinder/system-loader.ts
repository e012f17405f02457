/**
 * The default {@link DynamicLoader}: glibc's `dlopen` through src/ffi/dl.ts. That module is imported dynamically when
 * this one is first evaluated (it binds libc only on first use). A failure to import it (a runtime without FFI) or
 * to use it (Deno without `--allow-ffi`) becomes the reason every load fails, so the rest of the pathfinder
 * (headers, binaries, find-only lookups) still works.
 *
 * @module
 */
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

const dl = await importDl();
let problem: string | undefined = typeof dl === "string" ? dl : undefined;

/** Why the system loader cannot load anything (so far), or `undefined` when it can. */
export function systemLoaderProblem(): string | undefined {
  return problem;
}

/** The system's dynamic loader: `dlopen(RTLD_NOW | RTLD_NOLOAD)` to check, `dlopen(RTLD_NOW | RTLD_GLOBAL)` to load. */
export const systemLoader: DynamicLoader = {
  problem: systemLoaderProblem,
  isLoaded(soname: string): LoadedHandle | null {
    if (typeof dl === "string") return null;
    try {
      const handle = dl.dlopen(soname, dl.RTLD_NOW | dl.RTLD_NOLOAD);
      if (handle === null) {
        dl.dlerror();
        return null;
      }
      return { path: dl.loadedPath(handle) ?? soname, handle };
    } catch (error) {
      problem = `the dynamic loader failed: ${describe(error)}`;
      return null;
    }
  },
  load(file: string): LoadOutcome {
    if (typeof dl === "string") return { ok: false, error: dl };
    try {
      const handle = dl.dlopen(file, dl.RTLD_NOW | dl.RTLD_GLOBAL);
      if (handle === null) return { ok: false, error: dl.dlerror() ?? "dlopen failed" };
      return { ok: true, path: dl.loadedPath(handle) ?? file, handle };
    } catch (error) {
      problem = `the dynamic loader failed: ${describe(error)}`;
      return { ok: false, error: problem };
    }
  },
};
