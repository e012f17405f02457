/**
 * The errors of communicators and collectives. NCCL's own failures (a call's status, or an asynchronous error of
 * queued work) are {@link NCCLError}s from the binding; what cuda-ts refuses before NCCL sees it is a
 * {@link CollectiveArgumentError}; a communicator used in a state that does not allow it is a
 * {@link CommunicatorStateError}.
 *
 * @module
 */
export { NCCLError } from "../../bindings/nccl.ts";

/**
 * A collective's or a communicator's argument refused before NCCL sees it: a dtype NCCL cannot reduce, send and
 * receive buffers of different dtypes or counts, a buffer or stream on another device than the communicator's.
 * The message says what was expected, what came, and what to do.
 */
export class CollectiveArgumentError extends TypeError {
  /** The operation (allReduce, broadcast, Communicator.init, ...). */
  readonly operation: string;
  /** The argument that was refused. */
  readonly argument: string;
  constructor(operation: string, argument: string, expected: string, received: string, fix: string) {
    super(`${operation}: ${argument} must be ${expected}, but it is ${received}. ${fix}`);
    this.name = "CollectiveArgumentError";
    this.operation = operation;
    this.argument = argument;
  }
}

/**
 * A communicator was used in a state that does not allow it: after `abort()` or `close()`, after an asynchronous
 * error, or a group scope ended twice.
 */
export class CommunicatorStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CommunicatorStateError";
  }
}
