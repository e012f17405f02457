/**
 * The errors of multi-process jobs that cuda-ts raises itself: a collective's argument refused before NCCL sees it, a
 * communicator in a state that does not allow the call, a failure of the rendezvous store. (NCCL's own failures are the
 * binding's NCCLError.) Each is re-exported by src/core/errors.ts, the root's one import path for errors.
 *
 * @module
 */
import { ArgumentError, ConnectionError, InvalidStateError, type CudaTsErrorOptions, type DeviceMismatchError, quietFields } from "../../errors/base.ts";

/**
 * NCCL (src/core/distributed): a collective's or a communicator's argument refused before NCCL sees it: a dtype
 * NCCL cannot reduce, send and receive operands of different dtypes or counts, a missing stream. (An operand or a
 * stream on another device than the communicator's is a {@link DeviceMismatchError}.) The message says what was
 * expected, what came, and what to do.
 */
export class CollectiveArgumentError extends ArgumentError {
  /** The operation (allReduce, broadcast, Communicator.init, ...). */
  readonly operation: string;
  /** The argument that was refused. */
  readonly argument: string;
  constructor(operation: string, argument: string, expected: string, received: string, fix: string) {
    super(`${operation}: ${argument} must be ${expected}, but it is ${received}. ${fix}`);
    this.name = "CollectiveArgumentError";
    this.operation = operation;
    this.argument = argument;
    quietFields(this);
  }
}

/**
 * NCCL (src/core/distributed): a communicator used in a state that does not allow it: after `abort()` or `close()`,
 * after an asynchronous error, or a group scope ended twice.
 */
export class CommunicatorStateError extends InvalidStateError {
  constructor(message: string) {
    super(message);
    this.name = "CommunicatorStateError";
  }
}

/**
 * The rendezvous store failed: the server could not prove the job's secret (or refused this client's), the
 * connection closed, a wait ran out of time, or a message was malformed. The message says which and what to do.
 */
export class RendezvousError extends ConnectionError {
  constructor(message: string, options?: CudaTsErrorOptions) {
    super(message, options);
    this.name = "RendezvousError";
  }
}

/**
 * A rank of the job did not come to the meeting (joinWorld, a shared value, a barrier) within the timeout: it exited
 * early, never started, or hangs. The message names it and what to check.
 */
export class RankMissingError extends RendezvousError {
  /** The rank that did not come. */
  readonly rank: number;
  /** The job's size. */
  readonly size: number;
  constructor(rank: number, size: number, message: string, options?: CudaTsErrorOptions) {
    super(message, options);
    this.name = "RankMissingError";
    this.rank = rank;
    this.size = size;
    quietFields(this);
  }
}

/**
 * A launcher's environment variables are partial or contradict each other (a rank not below the size, a Slurm node
 * list that does not parse, RANK without WORLD_SIZE, MASTER_ADDR without MASTER_PORT, ...). The message names the
 * variables, their values and what to set.
 */
export class LauncherEnvironmentError extends ArgumentError {
  /** The launcher whose variables were read ("slurm", "torchrun", ...). */
  readonly launcher: string;
  /** The variables read, with their values. */
  readonly variables: Readonly<Record<string, string>>;
  constructor(launcher: string, variables: Readonly<Record<string, string>>, problem: string) {
    const shown = Object.entries(variables).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    super(`the launcher's variables (${launcher}${shown.length > 0 ? `: ${shown.join(" ")}` : ""}) do not describe a job: ${problem}`);
    this.name = "LauncherEnvironmentError";
    this.launcher = launcher;
    this.variables = Object.freeze({ ...variables });
    quietFields(this);
  }
}

/** What was wrong with a refused message. */
export type RendezvousIntegrityFault = "tampered" | "replayed" | "reordered" | "reflected" | "malformed";

/**
 * A message of a rendezvous session was refused: changed on the way, replayed, reordered, reflected, or too short.
 * The connection is closed and the message had no effect. Something between the rank and the store alters traffic
 * (or a process without the job's secret is talking): check the network path between the nodes.
 */
export class RendezvousIntegrityError extends RendezvousError {
  /** What was wrong with the message. */
  readonly fault: RendezvousIntegrityFault;
  constructor(message: string, fault: RendezvousIntegrityFault = "tampered") {
    super(message);
    this.name = "RendezvousIntegrityError";
    this.fault = fault;
    quietFields(this);
  }
}
