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
export { Context } from "./context.ts";
export { Stream, LEGACY_DEFAULT_STREAM, PER_THREAD_DEFAULT_STREAM, type StreamOptions } from "./stream.ts";
export { Event, type EventOptions } from "./event.ts";
export { Buffer, type HostMemory, type StreamArg } from "./buffer.ts";
export { type MemoryResource, DefaultPoolMemoryResource, SynchronousMemoryResource } from "./memory-resource.ts";
export { ObjectCode, type ObjectCodeFormat, type ObjectCodeOptions } from "./object-code.ts";
export { Kernel, KernelOccupancy, type KernelAttributes, type ParamInfo, type ParamDeclaration } from "./kernel.ts";
export { LaunchConfig, launch, type Dim3, type KernelArgument, type LaunchConfigOptions, type StreamLike } from "./launch.ts";
export { KernelScalar, bool, i8, u8, i16, u16, i32, u32, i64, u64, f16, bf16, f32, f64, complex64, complex128 } from "./scalars.ts";
export type { ParamType, ScalarKind } from "./mangling.ts";
export type { DeviceProperties, DeviceAttributeName } from "./properties.ts";
export { waitingStrategy } from "./waiting.ts";
export * from "./errors.ts";
