/**
 * Every error the object layer throws on purpose, grouped by subject. Every class is a {@link CudaTsError}, under
 * the subject base that says what went wrong (src/errors/base.ts): {@link ArgumentError} (a caller passed
 * something wrong; {@link DeviceMismatchError} for another device's), {@link InvalidStateError},
 * {@link UnsupportedError}, {@link NotFoundError}, {@link ConnectionError}, {@link InternalError}. A native
 * library's failure status is the bindings' {@link LibraryError} ({@link CudaError} for the driver's and runtime's,
 * NVRTCError, ...), re-exported here with the bases: this module is the root's one import path for errors.
 *
 * @module
 */
import { CUgraphExecUpdateResult, CUgraphInstantiateResult } from "../bindings/driver.ts";
import { formatCudaVersion } from "../bindings/describe.ts";
import type { CudaError } from "../bindings/errors.ts";
import { ArgumentError, ConnectionError, DeviceMismatchError, InternalError, InvalidStateError, NotFoundError, UnsupportedError } from "../errors/base.ts";
import { enumName } from "../tables-runtime/enum.ts";
import { briefError } from "../errors/describe.ts";

export {
  ArgumentError,
  ConnectionError,
  CudaTsError,
  DeviceMismatchError,
  InternalError,
  InvalidStateError,
  NotFoundError,
  UnsupportedError,
  type CudaTsErrorOptions,
  type DeviceMismatchOptions,
} from "../errors/base.ts";
export {
  LibraryError,
  CudaError,
  CudaRuntimeError,
  NVRTCError,
  NVJitLinkError,
  NVVMError,
  NVMLError,
  CuFileError, // GPUDirect Storage (src/core/gds) throws it
  FunctionNotFoundError,
  FunctionVersionError,
} from "../bindings/errors.ts";
export { SystemCallError } from "../ffi/libc-socket.ts";

// ---- Arguments: a call refused what it was passed, before the driver saw it (ArgumentError) ----

// -- launches

/** A kernel argument does not fit the kernel's parameter (checked before launching). */
export class LaunchArgumentError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "LaunchArgumentError";
  }
}

/** A launch configuration that cannot be launched (bad dimensions, cluster on an old GPU, too large a grid). */
export class LaunchConfigError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "LaunchConfigError";
  }
}

/** No `arch` was given and there is no device to take it from. */
export class MissingArchError extends ArgumentError {
  constructor(owner: string, cause: unknown) {
    const why = briefError(cause);
    super(
      `${owner}: no arch was given, and the default (the current device's, sm_<cc>) needs a CUDA driver and a GPU, ` +
        `which are not available here (${why}). Pass an explicit arch, such as { arch: "sm_90" }.`,
    );
    this.name = "MissingArchError";
    this.cause = cause;
  }
}

// -- arrays

/**
 * Arrays whose shapes disagree (an elementwise kernel's operands, a copy's source and destination), or a shape that
 * is not a shape (negative or fractional extents, a reshape to another element count). The message names the arrays.
 */
export class ShapeMismatchError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "ShapeMismatchError";
  }
}

/**
 * A dtype that is not one of the array dtypes, or an array whose dtype is not the one asked for (a copy between
 * dtypes, a typed array of the wrong kind, a kernel's placeholder bound to two dtypes).
 */
export class DTypeError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "DTypeError";
  }
}

/**
 * An array's layout does not allow what was asked: a view reaching outside its buffer, a non-contiguous array where a
 * contiguous one is needed, a reshape or dtype view the strides do not allow. (Arrays on different devices are a
 * {@link DeviceMismatchError}.)
 */
export class ArrayLayoutError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "ArrayLayoutError";
  }
}

// -- tensor maps, CUDA arrays and textures, green contexts

/**
 * A tensor map that cannot be encoded: a rank outside 1..5, a box that does not fit (an extent over 256, a box
 * larger than the tensor, an inner box row that is not a multiple of 16 bytes or wider than the swizzle), an address
 * or stride not aligned to 16 bytes, an unsupported dtype, or an option name that is not one of the choices.
 * Checked before the driver sees it.
 */
export class TensorMapError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "TensorMapError";
  }
}

/**
 * A CUDA array, mipmapped array, texture or surface that cannot be made or copied as asked: a bad extent or
 * channel count, a format without a dtype, a copy whose size does not match the array, a texture option that is
 * not one of the choices. Checked before the driver sees it.
 */
export class TextureError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "TextureError";
  }
}

/** A green-context partition that cannot be made: more SMs asked for than the device (or the resource) has, a bad group count. */
export class GreenContextError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "GreenContextError";
  }
}

// -- graphs

const UPDATE_REASONS: Readonly<Record<number, string>> = {
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED]:
    "the topology differs: the new graph has other nodes, or other dependencies between them",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED]: "a node's type changed (a kernel became a copy, ...)",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED]: "a kernel node runs another function in a way that cannot be updated",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE]:
    "a kernel node runs another function in a way that cannot be updated (another context, or device-side launches)",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED]:
    "a node's parameters changed in a way that cannot be updated (a copy between other kinds of memory, memory on another device, ...)",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED]: "a kernel node's attributes changed in a way that cannot be updated",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED]: "a node of the new graph cannot be updated at all (its type or configuration)",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR]: "the driver gave no more specific reason",
};

/** `cuGraphExecUpdate` refused to update a Graph from another graph. */
export class GraphUpdateError extends ArgumentError {
  /** The driver's reason (`CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED`, ...). */
  readonly reason: string;
  /** The CUgraphExecUpdateResult value. */
  readonly result: number;

  constructor(result: number) {
    const reason = enumName(CUgraphExecUpdateResult, result) ?? `CUgraphExecUpdateResult ${result}`;
    super(
      `Graph.update: the graph cannot be updated in place: ${UPDATE_REASONS[result] ?? "unknown reason"} (${reason}). ` +
        "An update needs a graph built the same way (the same operations in the same order, with the same " +
        "dependencies), differing only in arguments, addresses and sizes. Otherwise build a new Graph " +
        "(builder.complete() or definition.instantiate()). The Graph is unchanged and can still be launched.",
    );
    this.name = "GraphUpdateError";
    this.reason = reason;
    this.result = result;
  }
}

// -- the math objects: what cuSOLVER found in a matrix

/** A cuSOLVER routine reported a non-zero `info` (the base class; the subclasses say what it means). */
export class SolverInfoError extends ArgumentError {
  /** The routine (cusolverDnSgetrf...). */
  readonly routine: string;
  /** The `info` it returned. */
  readonly info: number;
  constructor(routine: string, info: number, message: string) {
    super(message);
    this.name = "SolverInfoError";
    this.routine = routine;
    this.info = info;
  }
}

/**
 * LU (getrf) found an exactly zero pivot: the matrix is singular. `pivot` is LAPACK's 1-based index i of U(i,i) = 0
 * (of the factorization of the matrix as cuSOLVER reads it; the matrix is singular either way).
 */
export class SingularMatrixError extends SolverInfoError {
  /** The 1-based index of the zero diagonal element of U. */
  readonly pivot: number;
  constructor(routine: string, pivot: number, n: number) {
    super(routine, pivot, `${routine}: the matrix is singular: U(${pivot},${pivot}) is exactly zero (pivot ${pivot} of ${n}, 1-based); a singular system has no unique solution, use a least-squares method (SVD) instead`);
    this.name = "SingularMatrixError";
    this.pivot = pivot;
  }
}

/** Cholesky (potrf) found that the leading minor of order `order` is not positive definite. */
export class NotPositiveDefiniteError extends SolverInfoError {
  /** The order (1-based) of the first leading minor that is not positive definite. */
  readonly order: number;
  constructor(routine: string, order: number, n: number) {
    super(routine, order, `${routine}: the matrix is not positive definite: its leading minor of order ${order} (of ${n}) is not; Cholesky needs a symmetric positive definite matrix, use LU (getrf/solve) otherwise`);
    this.name = "NotPositiveDefiniteError";
    this.order = order;
  }
}

/** An iterative routine (gesvd, syevd) did not converge: `info` says how many off-diagonal elements were left. */
export class ConvergenceError extends SolverInfoError {
  constructor(routine: string, info: number) {
    super(routine, info, `${routine}: did not converge (info ${info}: ${info} intermediate off-diagonal elements did not converge to zero)`);
    this.name = "ConvergenceError";
  }
}

// -- NVTX and profile()

/** The NVTX injection library named by `NVTX_INJECTION64_PATH` was not used; every NVTX call stays a no-op. */
export class NvtxInjectionError extends ArgumentError {
  /** The variable's value. */
  readonly path: string;
  constructor(path: string, reason: string, remedy: string) {
    super(`NVTX: the injection library NVTX_INJECTION64_PATH=${path} was not used: ${reason}. ${remedy} NVTX calls stay no-ops.`);
    this.name = "NvtxInjectionError";
    this.path = path;
  }
}

/** An NVTX argument of the wrong type or out of range (checked before anything reaches the tool). */
export class NvtxArgumentError extends ArgumentError {
  constructor(what: string, expected: string, got: unknown) {
    super(`NVTX: ${what} must be ${expected}; got ${nvtxDescribe(got)}.`);
    this.name = "NvtxArgumentError";
  }
}

function nvtxDescribe(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}...` : v);
  if (typeof v === "bigint") return `${v}n`;
  if (v === null) return "null";
  if (typeof v === "object") return v.constructor?.name ?? "an object";
  return `${typeof v} ${String(v)}`;
}

/** A bad option of `profile()`. */
export class ProfileOptionError extends ArgumentError {
  constructor(what: string, expected: string, got: unknown) {
    super(`profile(): ${what} must be ${expected}; got ${typeof got === "string" ? JSON.stringify(got) : String(got)}.`);
    this.name = "ProfileOptionError";
  }
}

// -- NCCL collectives

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
  }
}

// -- files

/**
 * A directory or file that others could have written was refused (like ssh refuses a key file others can write):
 * it is owned by another user, or writable by its group or by everyone, or is not the kind of file expected. The
 * message names the path and the fix.
 */
export class InsecurePathError extends ArgumentError {
  /** The path refused. */
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.name = "InsecurePathError";
    this.path = path;
  }
}

// ---- State: the object or the process does not allow the call now (InvalidStateError) ----

/** An object was used after `close()` (or after its parent was closed). */
export class ClosedError extends InvalidStateError {
  constructor(what: string, action: string) {
    super(`${what} is closed: cannot ${action}. Create a new one (closed objects cannot be reopened).`);
    this.name = "ClosedError";
  }
}

/** A Device was used before `setCurrent()` made its context current (as in cuda.core). */
export class DeviceNotInitializedError extends InvalidStateError {
  constructor(readonly deviceId: number) {
    super(`Device ${deviceId} is not yet initialized, perhaps you forgot to call .setCurrent() first?`);
    this.name = "DeviceNotInitializedError";
  }
}

/** A call needs a CUDA context and none is current (or none is known yet): the message says which call to make. */
export class NoContextError extends InvalidStateError {
  constructor(message: string) {
    super(message);
    this.name = "NoContextError";
  }
}

/** A stream was asked to wait on an event that was never recorded. */
export class EventNotRecordedError extends InvalidStateError {
  constructor(message: string) {
    super(message);
    this.name = "EventNotRecordedError";
  }
}

/** Elapsed time between two events could not be measured. */
export class EventTimingError extends InvalidStateError {
  constructor(message: string) {
    super(message);
    this.name = "EventTimingError";
  }
}

/** A graph object used in a state that does not allow the call (not building, already ended, closed, not joined). */
export class GraphStateError extends InvalidStateError {
  constructor(message: string) {
    super(message);
    this.name = "GraphStateError";
  }
}

const INSTANTIATE_REASONS: Readonly<Record<number, string>> = {
  [CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE]: "the graph's structure is invalid (a cycle, for example)",
  [CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED]:
    "the graph contains an operation that cannot be launched from the device (deviceLaunch)",
  [CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED]:
    "the graph's nodes belong to several contexts, which a device-launchable graph cannot have",
  [CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED]:
    "a condition was created (createCondition) but no conditional node uses it: add ifThen/whileLoop/... for it, or do not create it",
  [CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_ERROR]: "the driver gave no more specific reason",
};

/** `cuGraphInstantiateWithParams` could not make an executable graph. */
export class GraphInstantiateError extends InvalidStateError {
  /** The driver's reason (`CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE`, ...). */
  readonly reason: string;

  constructor(result: number, cause?: unknown) {
    const reason = enumName(CUgraphInstantiateResult, result) ?? `CUgraphInstantiateResult ${result}`;
    super(`the graph cannot be instantiated: ${INSTANTIATE_REASONS[result] ?? "unknown reason"} (${reason})`, cause === undefined ? undefined : { cause });
    this.name = "GraphInstantiateError";
    this.reason = reason;
  }
}

/** A second `profile()` started while one was running: CUPTI's activity state is one per process. */
export class ProfilerBusyError extends InvalidStateError {
  constructor() {
    super("profile(): another profile() is running in this process (CUPTI's activity collection is process-wide). Await it first, or profile both parts in one call.");
    this.name = "ProfilerBusyError";
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

// ---- Unsupported: this device, driver or runtime cannot do it (UnsupportedError) ----

/** The device (or this machine) lacks what a resource needs: virtual memory management, GPUDirect RDMA, Linux for IPC. */
export class DeviceFeatureError extends UnsupportedError {
  constructor(message: string) {
    super(message);
    this.name = "DeviceFeatureError";
  }
}

/** Peer access was asked for between GPUs that cannot access each other's memory. */
export class PeerAccessError extends UnsupportedError {
  /** The device that would access. */
  readonly deviceId: number;
  /** The device whose memory it would access. */
  readonly peerId: number;
  constructor(deviceId: number, peerId: number, message: string) {
    super(message);
    this.name = "PeerAccessError";
    this.deviceId = deviceId;
    this.peerId = peerId;
  }
}

/** The driver refused advice for this managed memory; the message says what to do instead. */
export class ManagedAdviceError extends UnsupportedError {
  /** The driver's error. */
  override readonly cause: CudaError;
  constructor(message: string, cause: CudaError) {
    super(message);
    this.name = "ManagedAdviceError";
    this.cause = cause;
  }
}

/** The installed driver is too old for a graph feature (conditional nodes need CUDA 12.3, if/else and switch 12.8). */
export class GraphFeatureError extends UnsupportedError {
  /** The CUDA version the feature needs (12030 for 12.3). */
  readonly required: number;
  /** The driver's CUDA version (cuDriverGetVersion). */
  readonly installed: number;

  constructor(feature: string, required: number, installed: number) {
    super(
      `${feature}: this needs a driver for CUDA ${formatCudaVersion(required)} or newer, and the installed driver ` +
        `supports CUDA ${formatCudaVersion(installed)}. Update the NVIDIA driver, or build the graph without ${feature}.`,
    );
    this.name = "GraphFeatureError";
    this.required = required;
    this.installed = installed;
  }
}

/** A link needs nvJitLink (LTO-IR, link-time optimisation, PTX output) and no usable nvJitLink is installed. */
export class LinkerUnavailableError extends UnsupportedError {
  constructor(message: string) {
    super(message);
    this.name = "LinkerUnavailableError";
  }
}

/**
 * The driver refused a checkpoint call as unsupported (CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_NOT_PERMITTED, or a
 * driver older than 12.8 without the `cuCheckpointProcess*` calls). `cause` is the driver's error when there is one.
 */
export class CheckpointUnsupportedError extends UnsupportedError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CheckpointUnsupportedError";
  }
}

/**
 * `profile()` on Bun: CUPTI delivers its activity buffers from a thread of its own, and Bun's callbacks cannot be
 * entered from another thread (on the H200, a `profile()` under Bun hung). Use Deno for kernel timings, or CUDA
 * events (`Event.elapsedTime`). `CUDA_TS_BUN_CUPTI=1` lifts the refusal, at the risk of a hang.
 */
export class ProfilerUnsupportedError extends UnsupportedError {
  constructor() {
    super(
      "profile(): CUPTI's activity buffers come back on a thread of CUPTI's own, which Bun's FFI callbacks cannot take (a profile() under Bun hung on the H200). " +
        "Run it under Deno, or time kernels with CUDA events (Event.elapsedTime); CUDA_TS_BUN_CUPTI=1 lifts this refusal at the risk of a hang.",
    );
    this.name = "ProfilerUnsupportedError";
  }
}

// ---- Not found: a kernel, a file or a GPU that is not there (NotFoundError) ----

/** `ObjectCode.getKernel` found no kernel of that name (the driver's NOT_FOUND is the `cause`). */
export class KernelNotFoundError extends NotFoundError {
  /** The name asked for. */
  readonly kernelName: string;
  /** The symbol looked up (the lowered name of a name expression, or the name itself). */
  readonly symbol: string;
  constructor(kernelName: string, symbol: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "KernelNotFoundError";
    this.kernelName = kernelName;
    this.symbol = symbol;
  }
}

/** A file the object layer reads (a cubin, PTX, libdevice) does not exist or may not be read. */
export class HostFileError extends NotFoundError {
  /** The file. */
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.name = "HostFileError";
    this.path = path;
  }
}

/** NVML and CUDA do not see the same GPU (another process's CUDA_VISIBLE_DEVICES, MIG, or a GPU NVML cannot read). */
export class DeviceMatchError extends NotFoundError {
  constructor(message: string) {
    super(message);
    this.name = "DeviceMatchError";
  }
}

// ---- Connections: IPC and the rendezvous store (ConnectionError) ----

/** The other process closed an IPC connection before a message came. */
export class IpcDisconnectedError extends ConnectionError {
  constructor(message: string) {
    super(message);
    this.name = "IpcDisconnectedError";
  }
}

/** A wait ran out of time. */
export class IpcTimeoutError extends ConnectionError {
  constructor(what: string, ms: number) {
    super(`${what} timed out after ${ms} ms: check that the other process is running and uses the same address`);
    this.name = "IpcTimeoutError";
  }
}

/**
 * An IPC peer was refused: the process at the other end of a connection is not one this side allows (another
 * user, by default), or did not present the expected one-time token. The connection was closed and nothing was
 * sent over it.
 */
export class IpcPeerRefusedError extends ConnectionError {
  /** The peer's user id. */
  readonly uid: number;
  /** The peer's group id. */
  readonly gid: number;
  /** The peer's process id (0 when it is in another PID namespace). */
  readonly pid: number;
  /** Why: `"uid"` (not an allowed user), `"predicate"` (allowPeer said no) or `"token"` (missing or wrong token). */
  readonly reason: "uid" | "predicate" | "token";
  constructor(peer: { readonly uid: number; readonly gid: number; readonly pid: number }, reason: "uid" | "predicate" | "token", message: string) {
    super(message);
    this.name = "IpcPeerRefusedError";
    this.uid = peer.uid;
    this.gid = peer.gid;
    this.pid = peer.pid;
    this.reason = reason;
  }
}

/** A malformed IPC message or descriptor. */
export class IPCFormatError extends ConnectionError {
  constructor(message: string) {
    super(message);
    this.name = "IPCFormatError";
  }
}

/**
 * The rendezvous store failed: the server could not prove the job's secret (or refused this client's), the
 * connection closed, a wait ran out of time, or a message was malformed. The message says which and what to do.
 */
export class RendezvousError extends ConnectionError {
  constructor(message: string) {
    super(message);
    this.name = "RendezvousError";
  }
}

// ---- Internal: cuda-ts's own machinery (InternalError) ----

/** A worker of a WorkerPool failed: it did not load, crashed, or was terminated while running a job (the `cause`). */
export class WorkerPoolError extends InternalError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WorkerPoolError";
  }
}
