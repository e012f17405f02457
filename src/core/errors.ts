/**
 * Every error the object layer throws on purpose, re-exported from the `errors.ts` beside its subject
 * (launch/errors.ts, array/errors.ts, graph/errors.ts, ...). Every class is a {@link CudaTsError}, under the subject
 * base that says what went wrong (src/errors/base.ts): {@link ArgumentError} (a caller passed something wrong;
 * {@link DeviceMismatchError} for another device's), {@link InvalidStateError}, {@link UnsupportedError},
 * {@link NotFoundError}, {@link ConnectionError}, {@link InternalError}. A native library's failure status is the
 * bindings' {@link LibraryError} ({@link CudaError} for the driver's and runtime's, NVRTCError, ...), re-exported
 * here with the bases: this module is the root's one import path for errors.
 *
 * @module
 */
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
export { DeviceFaultError } from "../bindings/driver-fault.ts";

// What every subject throws: closed objects, no context, paths others could write
export { ClosedError, DeviceNotInitializedError, NoContextError, InsecurePathError } from "./base/errors.ts";
// Launches, programs and object code
export { LaunchArgumentError, LaunchConfigError } from "./launch/errors.ts";
export { MissingArchError, LinkerUnavailableError, KernelNotFoundError, HostFileError } from "./program/errors.ts";
// Arrays, tensor maps, CUDA arrays and textures, green contexts
export { ShapeMismatchError, DTypeError, ArrayLayoutError, BroadcastError, AxisError, IndexError } from "./array/errors.ts";
export { TensorMapError } from "./tensor-map/errors.ts";
export { TextureError } from "./texture/errors.ts";
export { GreenContextError } from "./green/errors.ts";
// Events, graphs, memory and IPC
export { EventNotRecordedError, EventTimingError } from "./event-errors.ts";
export { GraphUpdateError, GraphStateError, GraphInstantiateError, GraphFeatureError } from "./graph/errors.ts";
export { DeviceFeatureError, PeerAccessError, ManagedAdviceError, OutOfMemoryError, ScopeClosedError, type OutOfMemoryReport } from "./memory/errors.ts";
export { IpcDisconnectedError, IpcTimeoutError, IpcPeerRefusedError, IPCFormatError } from "./memory/ipc-errors.ts";
// The math objects: what cuSOLVER found in a matrix
export { SolverInfoError, SingularMatrixError, NotPositiveDefiniteError, ConvergenceError } from "./math-errors.ts";
// NVTX, profile(), checkpoints, the system view
export { NvtxInjectionError, NvtxArgumentError } from "./nvtx/errors.ts";
export { ProfileOptionError, ProfilerBusyError, ProfilerUnsupportedError } from "./profiling/errors.ts";
export { CheckpointUnsupportedError } from "./checkpoint-errors.ts";
export { DeviceMatchError } from "./system/errors.ts";
// Multi-process jobs: NCCL collectives and the rendezvous store
export {
  CollectiveArgumentError,
  CommunicatorStateError,
  LauncherEnvironmentError,
  RankMissingError,
  RendezvousError,
  RendezvousIntegrityError,
  type RendezvousIntegrityFault,
} from "./distributed/errors.ts";
// cuda-ts's own machinery
export { WorkerPoolError } from "./worker/errors.ts";
