/**
 * cuda-ts core: the object layer in the style of NVIDIA's cuda.core, on Bun and Deno alike.
 *
 * ```ts
 * const dev = new Device(0); dev.setCurrent();
 * using stream = dev.createStream();
 * const prog = new Program(source, "c++", { arch: `sm_${dev.arch}` });
 * const mod = prog.compile("cubin", { nameExpressions: ["axpy<float>"] });
 * const k = mod.getKernel("axpy<float>");
 * using x = dev.allocate(n * 4, { stream }); using y = dev.allocate(n * 4, { stream });
 * x.copyFrom(hostFloat32Array, { stream });
 * launch(stream, new LaunchConfig({ grid: blocks, block: 256 }), k, f32(2), x, y, u32(n));
 * await stream.done();
 * ```
 *
 * @module
 */
export { Device, type ComputeCapability } from "./device.ts";
export { Context, CONTEXT_LIMITS, type ContextLimit } from "./context.ts";
export { Stream, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM, type StreamOptions } from "./stream.ts";
export { Event, type EventOptions } from "./event.ts";
export { Buffer, type HostMemory, type StreamArg } from "./memory/buffer.ts";
export { type MemoryResource, SynchronousMemoryResource } from "./memory/resource.ts";
export { ObjectCode, type ObjectCodeFormat, type ObjectCodeOptions, type GetGlobalOptions } from "./program/object-code.ts";
export { Kernel, KernelOccupancy, type KernelAttributes, type SettableKernelAttributes, type ParamInfo, type ParamDeclaration } from "./launch/kernel.ts";
export { PointerArgument } from "./launch/pointer-argument.ts";
export { LaunchConfig, launch, DEFAULT_DYNAMIC_SHARED_MEMORY, type Dim3, type KernelArgument, type LaunchConfigOptions, type StreamLike } from "./launch/launch.ts";
export { KernelScalar, bool, i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64, complex64, complex128 } from "./launch/scalars.ts";
export type { ParamType, ScalarKind } from "./launch/mangling.ts";
export type { DeviceProperties, DeviceAttributeName } from "./properties.ts";
export { waitingStrategy } from "./base/waiting.ts";
export { onReleaseError, type ReleaseFailure, type ReleaseFailureHandler, type ReleasePhase } from "./base/release-errors.ts";
export * from "./errors.ts";
export * as system from "./system/system.ts";
export { SystemDevice, type SystemDeviceSelector } from "./system/device.ts";
export { type CopyOptions, type CopyRoute } from "./memory/copy.ts";
export { DeviceMemoryResource, MemoryPoolResource, DefaultPoolMemoryResource, defaultMemoryResource } from "./memory/pool.ts";
export { PinnedMemoryResource, LegacyPinnedMemoryResource } from "./memory/pinned.ts";
export { ManagedMemoryResource } from "./memory/managed.ts";
export { VirtualMemoryResource } from "./memory/virtual.ts";
export type { VirtualMemoryResourceOptions, VirtualMemoryAccess } from "./memory/virtual-options.ts";
export type { DeviceMemoryResourceOptions, PinnedMemoryResourceOptions, ManagedMemoryResourceOptions } from "./memory/options.ts";
export { MemoryPoolAttributes, POOL_ATTRIBUTES, type PoolAttributeName, type PoolAttributeValues } from "./memory/pool-attributes.ts";
export type { MemoryLocation, MemoryLocationType, ManagedAdvice } from "./memory/location.ts";
export { IPCAllocationHandle, IPCBufferDescriptor } from "./memory/ipc.ts";
export {
  IpcChannel,
  IpcListener,
  type IpcAcceptOptions,
  type IpcConnectOptions,
  type IpcListenOptions,
  type IpcMessage,
  type IpcPeerPolicy,
  type IpcWaitOptions,
  type PeerCredentials,
} from "./memory/ipc-socket.ts";
export { type AllocateOptions, type IpcMemoryResource } from "./memory/resource.ts";
export {
  RENDEZVOUS_ADDR_ENV,
  RENDEZVOUS_SECRET_ENV,
  RendezvousClient,
  RendezvousServer,
  type RendezvousClientOptions,
  type RendezvousServerOptions,
} from "./distributed/rendezvous.ts";
export { joinWorld, Meeting, world, WORLD_ENV, type JoinOptions, type World } from "./distributed/world.ts";
// NCCL (issue 18): communicators and collectives.
export {
  buildConfig,
  Communicator,
  group,
  type CollectiveOptions,
  type CommunicatorConfig,
  type CommunicatorInitOptions,
  type ConfigRecord,
  type FromWorldOptions,
  type GroupScope,
  type ReduceOptions,
  type RootOptions,
  type RootReduceOptions,
} from "./distributed/communicator.ts";
export { NCCL_TYPES, type CollectiveOperand, type NcclTypeOf, type ReduceOp, type TypedBuffer } from "./distributed/collectives.ts";
export { UniqueId } from "./distributed/unique-id.ts";
export { NCCLError } from "./distributed/nccl-errors.ts"; // CollectiveArgumentError, CommunicatorStateError: in errors.ts
export type { HostViewConstructor } from "./memory/view.ts";
export { GraphBuilder, type GraphBuildMode } from "./graph/builder.ts";
export { Graph, type GraphCompleteOptions } from "./graph/graph.ts";
export { GraphDefinition, GraphNode, KernelNode, ConditionalNode, NodeBuilder, type GraphNodeType } from "./graph/definition.ts";
export { GraphCondition } from "./graph/condition.ts";
export type { GraphDebugPrintOptions } from "./graph/debug.ts";
export { hostCallbacksSupported, type HostFunction } from "./host-callback.ts";
export {
  Program,
  type CodeType,
  type CompileOptions,
  type CompileTarget,
  type LogSink,
  type ProgramBackend,
} from "./program/program.ts";
export { ProgramOptions, type MacroDefinition, type ProgramOptionsInit } from "./program/options.ts";
export { InMemoryProgramCache, makeProgramCacheKey, type CachedProgram, type ProgramCache } from "./program/cache.ts";
export { FileProgramCache, defaultFileProgramCache } from "./program/cache-file.ts";
export { Linker } from "./program/linker.ts";
export { LinkerOptions, type LinkerOptionsInit } from "./program/linker-options.ts";
export type { LinkerBackend } from "./program/linker-backend.ts";
export {
  DeviceArray,
  encodeElement,
  type ArrayAllocateOptions,
  type ArrayFromOptions,
  type ArrayOverBufferOptions,
  type ArrayScalar,
  type ArrayStreamOptions,
  type CudaArrayInterface,
  type ToTypedArrayOptions,
} from "./array/device-array.ts";
export {
  dtypes,
  dtypeOf,
  dtypeOfHostArray,
  DTYPE_NAMES,
  DLDataTypeCode,
  encodeHalf,
  decodeHalf,
  encodeBFloat16,
  decodeBFloat16,
  type DType,
  type DTypeLike,
  type DTypeName,
  type DefaultDTypeOf,
  type HostArray,
  type HostArrayOf,
} from "./array/dtype.ts";
export type { SliceSpec } from "./array/layout.ts";
export {
  DLPackTensor,
  DLDeviceType,
  DLPACK_VERSION,
  DLPACK_LAYOUT,
  DLPACK_FLAG_BITMASK_READ_ONLY,
  DLPACK_FLAG_BITMASK_IS_COPIED,
  toDLPack,
  fromDLPack,
  fromCudaArrayInterface,
  dtypeFromDLPack,
  dtypeFromTypestr,
  type FromDLPackOptions,
} from "./array/interop.ts";
export { ElementwiseKernel } from "./kernels/elementwise.ts";
export { ReductionKernel, REDUCTION_BLOCK, type ReductionOptions } from "./kernels/reduction.ts";
export { builderStats, type BuilderOptions } from "./kernels/compile.ts";
export type { BuilderArgument, KernelParam } from "./kernels/params.ts";
// Graph memory and graph introspection (issue 19, graph part).
export { AllocNode } from "./graph/definition.ts";
export {
  graphNodeTypeName,
  inspectGraph,
  readNodeParams,
  type GraphNodeParams,
  type GraphStructure,
  type InspectedNode,
  type MemcpyEndpoint,
  type MemcpyEndpointType,
} from "./graph/inspect.ts";
export {
  GraphMemoryAttributes,
  GraphMemoryResource,
  type GraphMemoryAttributeName,
  type GraphMemoryAttributeValues,
} from "./memory/graph-memory-resource.ts";
// The math libraries' objects (cuRAND, cuFFT, cuSOLVER, cuSPARSE): their classes' code (math/classes.ts) and their
// library's tables load on `create`, not here; these are their public faces (math/facade.ts).
export { Rng, RNG_GENERATORS, RNG_ORDERINGS, type RngGenerator, type RngOrdering, type RngOptions, type NormalOptions } from "./math/rng/rng.ts";
export { Fft, FftPlan, type FftDType, type FftOptions, type FftForwardOptions, type FftInverseOptions } from "./math/fft/fft.ts";
export type { FftKind, FftPrecision, FftPlanSpec, FftLayout } from "./math/fft/layout.ts";
export {
  Solver,
  type SolverDType,
  type SolverOptions,
  type TriangleOptions,
  type LuFactorization,
  type CholeskyFactorization,
  type SolverResults,
} from "./math/solver/solver.ts";
export {
  Sparse,
  SparseMatrix,
  type SparseOptions,
  type SparseValueDType,
  type SparseIndexDType,
  type SparseOperation,
  type SparseScalar,
  type SparseLayout,
  type CsrInit,
  type CooInit,
  type SparseProductOptions,
} from "./math/sparse/sparse.ts";
// Compiling in Workers (issue 20): Program.compileAsync's pool, and the pool for one's own GPU workers.
export type { CompileAsyncOptions } from "./program/program.ts";
export { configureCompileWorkers, closeCompileWorkers, type CompileWorkersOptions } from "./program/compile-async.ts";
export { WorkerPool, type WorkerPoolOptions, type RunOptions as WorkerRunOptions, type AbortSignalLike, type ModuleUrl } from "./worker/pool.ts";
export { serveRequests, type HandlerResult as WorkerHandlerResult } from "./worker/serve.ts";
// GPUDirect Storage (issue 20): cuFile objects.
export {
  CuFile,
  CuFileBatch,
  GdsRegisteredBuffer,
  GdsStreamOperation,
  registerGdsBuffer,
  type CuFileOpenOptions,
  type GdsBatchOperation,
  type GdsBatchResult,
  type GdsOpenMode,
  type GdsRange,
  type GdsTarget,
} from "./gds/file.ts";
export { closeGdsDriver, configureGdsDriver, gdsStatus, type GdsDriverOptions } from "./gds/driver.ts";
export type { GdsMode, GdsStatus } from "./gds/status.ts";
// ---- issue 19 objects: tensor maps, arrays/textures/surfaces, managed buffers, batched copies, green contexts, checkpoint ----
export { ByValueArgument } from "./launch/by-value-argument.ts";
export {
  TensorMap,
  type TensorMapDataType,
  type TensorMapInterleave,
  type TensorMapSwizzle,
  type TensorMapL2Promotion,
  type TensorMapOOBFill,
  type TensorMapOptions,
  type TiledTensorMapOptions,
  type Im2colTensorMapOptions,
} from "./tensor-map/tensor-map.ts";
export {
  CudaArray,
  MipmappedArray,
  type ArrayDType,
  type ArrayChannels,
  type ArrayExtent,
  type ArrayCopyPeer,
  type ArrayCopyOptions,
  type CudaArrayOptions,
  type MipmappedArrayOptions,
} from "./texture/array.ts";
export {
  TextureObject,
  SurfaceObject,
  type AddressMode,
  type FilterMode,
  type ReadMode,
  type TextureObjectOptions,
  type TextureResource,
  type LinearResource,
  type Pitch2DResource,
} from "./texture/texture.ts";
export { hostFunctionMode, hostFunctionsSettled } from "./host-callback.ts";
export { IPCEventDescriptor, EVENT_DESCRIPTOR_BYTES } from "./event.ts";
export {
  ManagedBuffer,
  prefetchBatch,
  discardBatch,
  discardPrefetchBatch,
  type ManagedBufferLike,
  type ManagedStreamOptions,
  type ReadLocation,
} from "./memory/managed-buffer.ts";
export { copyBatch, type BatchCopy, type BatchCopyEnd, type BatchCopyOptions, type ContiguousMemory, type SrcAccessOrder } from "./memory/batch-copy.ts";
export { SMResource, GreenContext, smResourceOf, streamResources, type SMSplitOptions, type GreenStreamOptions } from "./green/green.ts";
export { CheckpointProcess, CHECKPOINT_DRIVER_VERSION, type ProcessState, type GpuMapping } from "./checkpoint.ts";
// Observability (issue 20): NVTX ranges and marks, the profiler's capture range, CUPTI kernel timings.
export * as nvtx from "./nvtx/index.ts";
export { RegisteredString, type NvtxRange, type EventOptions as NvtxEventOptions, type NvtxStatus } from "./nvtx/nvtx.ts";
export {
  profile,
  profiler,
  type CaptureRange,
  type ActivityKind,
  type KernelActivity,
  type MemcpyActivity,
  type MemcpyDirection,
  type MemsetActivity,
  type ProfileOptions,
  type ProfileResult,
  type StreamActivity,
} from "./profiling/index.ts";
