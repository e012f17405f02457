/**
 * NCCL's error class, in a module of its own: the object layer's root exports it without loading NCCL's binding and
 * tables (src/core/distributed/nccl-module.ts loads those on first use on Bun).
 *
 * @module
 */
import { LibraryError } from "./errors.ts";
import { quietFields } from "../errors/base.ts";

/** An NCCL call failed (ncclResult_t other than ncclSuccess), or a communicator reported an asynchronous error. */
export class NCCLError extends LibraryError {
  /** NCCL's last error message for the thread (`ncclGetLastError`), when it had one. */
  readonly lastError: string | undefined;
  /** Whether the error came from `ncclCommGetAsyncError` (a failure of work already queued), not from a call. */
  readonly asynchronous: boolean;
  constructor(code: number, codeName: string, description: string, functionName: string, lastError?: string, asynchronous = false) {
    super("nccl", code, codeName, lastError ? `${description}; NCCL says: ${lastError}` : description, functionName);
    this.name = "NCCLError";
    this.lastError = lastError;
    this.asynchronous = asynchronous;
    quietFields(this);
  }
}
