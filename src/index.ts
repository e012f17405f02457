/**
 * cuda-ts: CUDA for TypeScript on Bun and Deno. The root holds the objects of a first program: devices, contexts,
 * streams, events, memory, programs and linking, kernels and launching, device arrays, and every error class.
 *
 * ```ts
 * import { Device, LaunchConfig, Program, f32, launch, u32 } from "cuda-ts";
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
 * Everything else has an entry point per subject, loaded only by the scripts that import it: `cuda-ts/graphs`,
 * `cuda-ts/memory` (managed buffers, batched copies), `cuda-ts/kernels` (elementwise and reduction kernels),
 * `cuda-ts/interop` (DLPack), `cuda-ts/math` and `cuda-ts/math/blas`, `cuda-ts/system` (NVML), `cuda-ts/profiling`
 * (NVTX, CUPTI), `cuda-ts/distributed` (IPC, rendezvous, NCCL), `cuda-ts/gds` (cuFile), `cuda-ts/texture`,
 * `cuda-ts/tensor-map`, `cuda-ts/green`, `cuda-ts/checkpoint`, `cuda-ts/workers`; the generated bindings are
 * `cuda-ts/bindings/<library>`, the loader `cuda-ts/pathfinder`, the FFI `cuda-ts/ffi`.
 *
 * @module
 */
export { Device, type ComputeCapability } from "./core/device.ts";
export type { DeviceProperties, DeviceAttributeName } from "./core/properties.ts";
export { Context, CONTEXT_LIMITS, type ContextLimit } from "./core/context.ts";
export { Stream, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM, type StreamOptions } from "./core/stream.ts";
export { Event, type EventOptions } from "./core/event.ts";
export { hostCallbacksSupported, hostFunctionMode, hostFunctionsSettled, type HostFunction } from "./core/host-callback.ts";
export { waitingStrategy } from "./core/base/waiting.ts";
export { onReleaseError, type ReleaseFailure, type ReleaseFailureHandler, type ReleasePhase } from "./core/base/release-errors.ts";

// Memory.
export { Buffer, type HostMemory, type StreamArg, type ForeignMemoryType, type FromHandleOptions } from "./core/memory/buffer.ts";
export type { HostViewConstructor } from "./core/memory/view.ts";
export { type CopyOptions, type CopyRoute } from "./core/memory/copy.ts";
export { type AllocateOptions, type MemoryResource, SynchronousMemoryResource } from "./core/memory/resource.ts";
export { DeviceMemoryResource, MemoryPoolResource, DefaultPoolMemoryResource, defaultMemoryResource } from "./core/memory/pool.ts";
export { PinnedMemoryResource, LegacyPinnedMemoryResource } from "./core/memory/pinned.ts";
export { ManagedMemoryResource } from "./core/memory/managed.ts";
export { VirtualMemoryResource } from "./core/memory/virtual.ts";
export type { VirtualMemoryResourceOptions, VirtualMemoryAccess } from "./core/memory/virtual-options.ts";
export type { DeviceMemoryResourceOptions, PinnedMemoryResourceOptions, ManagedMemoryResourceOptions } from "./core/memory/options.ts";
export { MemoryPoolAttributes, POOL_ATTRIBUTES, type PoolAttributeName, type PoolAttributeValues } from "./core/memory/pool-attributes.ts";
export type { MemoryLocation, MemoryLocationType, ManagedAdvice } from "./core/memory/location.ts";
export { scope, keep } from "./core/memory/scope.ts";
export type { MemoryStats } from "./core/memory/stats.ts";
export type { DeviceFault, LaunchRecord } from "./bindings/driver-fault.ts";

// Programs, linking, modules.
export { Program, type CodeType, type CompileOptions, type CompileAsyncOptions, type CompileTarget, type LogSink, type ProgramBackend } from "./core/program/program.ts";
export { ProgramOptions, type MacroDefinition, type ProgramOptionsInit } from "./core/program/options.ts";
export { InMemoryProgramCache, makeProgramCacheKey, type CachedProgram, type ProgramCache } from "./core/program/cache.ts";
export { FileProgramCache, defaultFileProgramCache } from "./core/program/cache-file.ts";
export { Linker } from "./core/program/linker.ts";
export { LinkerOptions, type LinkerOptionsInit } from "./core/program/linker-options.ts";
export type { LinkerBackend } from "./core/program/linker-backend.ts";
export { ObjectCode, type ObjectCodeFormat, type ObjectCodeOptions, type GetGlobalOptions } from "./core/program/object-code.ts";

// Kernels and launching.
export { Kernel, KernelOccupancy, type KernelAttributes, type SettableKernelAttributes, type ParamInfo, type ParamDeclaration } from "./core/launch/kernel.ts";
export { LaunchConfig, launch, DEFAULT_DYNAMIC_SHARED_MEMORY, type Dim3, type KernelArgument, type LaunchConfigOptions, type StreamLike } from "./core/launch/launch.ts";
export { KernelScalar, bool, i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64, complex64, complex128 } from "./core/launch/scalars.ts";
export type { ParamType, ScalarKind } from "./core/launch/mangling.ts";
export { PointerArgument } from "./core/launch/pointer-argument.ts";
export { ByValueArgument } from "./core/launch/by-value-argument.ts";

// Device arrays.
export {
  DeviceArray,
  encodeElement,
  type ArrayAllocateOptions,
  type ArrayCopyOptions,
  type ArrayOperationOptions,
  type ArrayFromOptions,
  type ArrayOverBufferOptions,
  type ArrayScalar,
  type ArrayStreamOptions,
  type ReduceOptions,
  type ReductionName,
  type ToTypedArrayOptions,
} from "./core/array/device-array.ts";
export { sum, prod, min, max, mean } from "./core/array/reductions.ts";
export type { SumOptions } from "./core/array/options.ts";
// Arrays into hand-written kernels: the cuda_ts::Array<T, N> record of #include <cuda_ts/array.h>.
export { arrayView, arrayViewSize, ArrayView, type ArrayViewOptions } from "./core/array/kernel-view.ts";
export { ARRAY_HEADER_NAME, ARRAY_HEADER_SOURCE } from "./core/array/array-header.ts";
// The array operations register the DeviceArray methods they implement (their functions: `cuda-ts/array`).
import "./core/array/ops/index.ts";
export type { AxisSpec } from "./core/array/broadcast.ts";
export {
  dtypes,
  dtypeOf,
  dtypeOfHostArray,
  DTYPE_NAMES,
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
} from "./core/array/dtype.ts";
export type { SliceSpec } from "./core/array/layout.ts";

// The driver binding's configuration (the binding itself: `cuda-ts/bindings/driver`).
export { configureDriver, type DriverOptions } from "./bindings/driver.ts";

// Every error class, beneath CudaTsError (src/errors/base.ts draws the tree).
export * from "./core/errors.ts";
export {
  BindingArgumentError,
  CUBLASError,
  CURANDError,
  CUFFTError,
  CUSOLVERError,
  CUSPARSEError,
  DriverAlreadyBoundError,
  GuardError,
  NvFatbinError,
} from "./bindings/errors.ts";
export { NCCLError } from "./bindings/nccl-error.ts";
export {
  BinaryUtilityNotFoundError,
  BitcodeLibraryNotFoundError,
  CudaRootNotFoundError,
  DependencyCycleError,
  HeaderDirectoryNotFoundError,
  InvalidOverrideError,
  LibraryNotFoundError,
  SearchNotFoundError,
  StaticLibraryNotFoundError,
  UnknownLibraryError,
  UnknownNameError,
} from "./pathfinder/errors.ts";
export { LibraryClosedError, LibraryLoadError, StructValueError, SymbolNotFoundError, UnsupportedOnRuntimeError } from "./ffi/errors.ts";
export { RecordRangeError } from "./tables-runtime/record.ts";
export { DeferredLoadError } from "./deferred.ts";
