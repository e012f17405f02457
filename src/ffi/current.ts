/**
 * The FFI backend of the runtime this process runs on, chosen once at import.
 *
 * The backend modules are imported through computed specifiers so that neither type checker follows them (tsc
 * must not see deno.ts; `deno check` must not see bun:ffi), and so that only the running runtime's module loads.
 *
 * @module
 */
import type { FfiBackend } from "./backend.ts";
import { runtimeName } from "./host.ts";

/** Thrown, at import, on a runtime without a usable FFI. */
export const NO_FFI_MESSAGE =
  "cuda-ts needs Bun or Deno: Node.js has no FFI in the versions users run. " +
  "Run with `bun` or `deno run --allow-ffi`.";

async function load(): Promise<FfiBackend> {
  if (runtimeName === "bun") {
    const specifier = "./bun.ts";
    return ((await import(specifier)) as { bunBackend: FfiBackend }).bunBackend;
  }
  if (runtimeName === "deno") {
    const specifier = "./deno.ts";
    return ((await import(specifier)) as { denoBackend: FfiBackend }).denoBackend;
  }
  throw new Error(NO_FFI_MESSAGE);
}

/** The FFI of the running runtime. */
export const ffi: FfiBackend = await load();
