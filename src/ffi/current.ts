/**
 * The FFI backend of the runtime this process runs on, chosen once at import.
 *
 * Only the running runtime's backend loads. Deno's is imported with a literal specifier: Deno puts it in the module
 * graph, so `deno run --allow-ffi` alone (no --allow-read) can load it; tsc checks it against types/deno-ffi.d.ts.
 * Bun's is loaded through a computed specifier, so that `deno check` never follows `bun:ffi`; it is named by its
 * place in the layout (src/module-url.ts), with `.ts` from the sources and `.js` from the package. Natively Bun
 * requires it (`import.meta.require`: synchronous, cheaper than a first dynamic import); under a module runner
 * such as vitest's, whose import.meta has no `require`, it is imported.
 *
 * @module
 */
import type { FfiBackend } from "./backend.ts";
import { nativeRequire, runtimeName } from "../host.ts";
import { filePath, ownModuleUrl } from "../module-url.ts";
import { NO_FFI_MESSAGE, UnsupportedRuntimeError } from "./no-ffi.ts";

export { NO_FFI_MESSAGE };

/** Bun's backend, by its place in the layout (src/module-url.ts: the package's code may run from a bundled chunk). */
const bunBackendUrl = ownModuleUrl("src/ffi/bun");

async function load(): Promise<FfiBackend> {
  if (runtimeName === "bun") {
    return ((await import(bunBackendUrl)) as { bunBackend: FfiBackend }).bunBackend;
  }
  if (runtimeName === "deno") {
    return (await import("./deno.ts")).denoBackend;
  }
  throw new UnsupportedRuntimeError();
}

const required = nativeRequire(import.meta);

/** The FFI of the running runtime. */
export const ffi: FfiBackend = required !== undefined ? (required(filePath(bunBackendUrl)) as { bunBackend: FfiBackend }).bunBackend : await load();
