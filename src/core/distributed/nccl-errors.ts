/**
 * The errors of communicators and collectives, in one import: NCCL's own failures (a call's status, or an
 * asynchronous error of queued work) are {@link NCCLError}s from the binding; what cuda-ts refuses before NCCL sees
 * it is a {@link CollectiveArgumentError}; a communicator used in a state that does not allow it is a
 * {@link CommunicatorStateError} (both defined in ./errors.ts, and re-exported by src/core/errors.ts with the object
 * layer's other errors).
 *
 * @module
 */
export { NCCLError } from "../../bindings/nccl-error.ts";
export { CollectiveArgumentError, CommunicatorStateError } from "./errors.ts";
