/**
 * cuda-ts: CUDA for TypeScript on Bun and Deno. The object layer (Device, Stream, Program, launch, Buffer, ...)
 * and the bindings of every covered library (`driver`, `runtime`, `nvrtc`, ...).
 *
 * @module
 */
export * from "./core/index.ts";
export { driver, runtime, nvrtc, nvjitlink, nvvm, nvml, cufile, nvfatbin, cupti, enumName, LibraryNotFoundError, BindingError, CUDARuntimeError, NVMLError } from "./bindings/index.ts";
