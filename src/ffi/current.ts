/**
 * The FFI backend of the runtime this process runs on, chosen once at import.
 *
 * Only the running runtime's backend loads. Deno's is imported with a literal specifier: Deno puts it in the module
 * graph, so `deno run --allow-ffi` alone (no --allow-read) can load it; tsc checks it against types/deno-ffi.d.ts.
 * Bun's is imported through a computed specifier, so that `deno check` never follows `bun:ffi`; the specifier keeps
 * this module's own extension (`.ts` from the sources, `.js` from the package's compiled dist/).
 *
 * @module
 */
import type { FfiBackend } from "./backend.ts";
import { runtimeName } from "../host.ts";
import { NO_FFI_MESSAGE, UnsupportedRuntimeError } from "./no-ffi.ts";

export { NO_FFI_MESSAGE };

async function load(): Promise<FfiBackend> {
  if (runtimeName === "bun") {
    const specifier = import.meta.url.endsWith(".ts") ? "./bun.ts" : "./bun.js";
    return ((await import(specifier)) as { bunBackend: FfiBackend }).bunBackend;
  }
  if (runtimeName === "deno") {
    return (await import("./deno.ts")).denoBackend;
  }
  throw new UnsupportedRuntimeError();
}

/** The FFI of the running runtime. */
export const ffi: FfiBackend = await load();
