/**
 * cuda-ts: CUDA for TypeScript on Bun and Deno. The object layer (Device, Stream, Program, launch, Buffer, ...)
 * and the driver's binding; every library's bindings are in `cuda-ts/bindings`.
 *
 * @module
 */
export * from "./core/index.ts";
// Only the driver's binding: the other libraries' bindings load from "cuda-ts/bindings" (or their own entry
// points), so that importing the object layer does not evaluate tables it does not use.
export { driver, configureDriver } from "./bindings/driver.ts";
export { BindingError, CUDARuntimeError, NVMLError } from "./bindings/errors.ts";
export { LibraryNotFoundError } from "./pathfinder/errors.ts";
export { DeferredLoadError } from "./deferred.ts";
export { enumName } from "./tables-runtime/enum.ts";
