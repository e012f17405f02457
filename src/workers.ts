/**
 * `cuda-ts/workers`: work in Workers: the pool that `Program.compileAsync` compiles in, and a pool for one's own GPU
 * workers.
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export { configureCompileWorkers, closeCompileWorkers, type CompileWorkersOptions } from "./core/program/compile-async.ts";
export { WorkerPool, type WorkerPoolOptions, type RunOptions as WorkerRunOptions, type AbortSignalLike, type ModuleUrl } from "./core/worker/pool.ts";
export { serveRequests, type HandlerResult as WorkerHandlerResult } from "./core/worker/serve.ts";
