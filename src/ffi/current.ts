/**
 * The FFI backend of the runtime this process runs on, chosen once at import.
 *
 * Only the running runtime's backend loads. Deno's is imported with a literal specifier: Deno puts it in the module
 * graph, so `deno run --allow-ffi` alone (no --allow-read) can load it; tsc checks it against types/deno-ffi.d.ts.
 * Bun's is loaded through a computed specifier, so that `deno check` never follows `bun:ffi`; the specifier keeps
 * this module's own extension (`.ts` from the sources, `.js` from the package's compiled dist/). Natively Bun
 * requires it (`import.meta.require`: synchronous, cheaper than a first dynamic import); under a module runner
 * such as vitest's, whose import.meta has no `require`, it is imported.
 *
 * @module
 */
import type { FfiBackend } from "./backend.ts";
import { nativeRequire, runtimeName } from "../host.ts";
import { NO_FFI_MESSAGE, UnsupportedRuntimeError } from "./no-ffi.ts";

export { NO_FFI_MESSAGE };

const bunSpecifier = import.meta.url.endsWith(".ts") ? "./bun.ts" : "./bun.js";

async function load(): Promise<FfiBackend> {
  if (runtimeName === "bun") {
    return ((await import(bunSpecifier)) as { bunBackend: FfiBackend }).bunBackend;
  }
  if (runtimeName === "deno") {
    return (await import("./deno.ts")).denoBackend;
  }
  throw new UnsupportedRuntimeError();
}

const required = nativeRequire(import.meta);

/** The FFI of the running runtime. */
export const ffi: FfiBackend = required !== undefined ? (required(bunSpecifier) as { bunBackend: FfiBackend }).bunBackend : await load();
