/**
 * The refusal of a runtime without a usable FFI (Node.js), in one place: src/ffi/current.ts throws it when the
 * FFI layer is imported, and the package's `node` export condition (src/node.ts) throws it before anything loads.
 *
 * @module
 */
import { UnsupportedError } from "../errors/base.ts";

/** The one-line refusal of a runtime without a usable FFI. */
export const NO_FFI_MESSAGE =
  "cuda-ts needs Bun or Deno: Node.js has no FFI in the versions users run. " +
  "Run with `bun` or `deno run --allow-ffi`.";

/** Thrown, at import, on a runtime without a usable FFI (Node.js). */
export class UnsupportedRuntimeError extends UnsupportedError {
  constructor() {
    super(NO_FFI_MESSAGE);
    this.name = "UnsupportedRuntimeError";
  }
}
