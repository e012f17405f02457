/**
 * The FFI backend of the runtime this process runs on, chosen once at import.
 *
 * Only the running runtime's backend loads. Deno's is imported with a literal specifier: Deno puts it in the module
 * graph, so `deno run --allow-ffi` alone (no --allow-read) can load it; tsc checks it against types/deno-ffi.d.ts.
 * Bun's is imported through a computed specifier, so that `deno check` never follows `bun:ffi`.
 *
 * @module
 */
import type { FfiBackend } from "./backend.ts";
import { runtimeName } from "../host.ts";
import { NoFfiError } from "./errors.ts";

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
    return (await import("./deno.ts")).denoBackend;
  }
  throw new NoFfiError(NO_FFI_MESSAGE);
}

/** The FFI of the running runtime. */
export const ffi: FfiBackend = await load();
