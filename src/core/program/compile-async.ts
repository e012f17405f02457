/**
 * The Workers behind `Program.compileAsync`: one pool per process (per realm), started on the first asynchronous
 * compilation, its workers terminated when idle (see worker/pool.ts), sized by {@link configureCompileWorkers}.
 *
 * The worker module is found next to this file, so it works from the sources (`.ts`) and from the package's
 * `dist/src` (`.js`), where the compiler emits it beside this module.
 *
 * @module
 */
import { describeValue } from "../../errors/describe.ts";
import { WorkerPool, type ModuleUrl, type RunOptions } from "../worker/pool.ts";
import { ownModuleUrl } from "../../module-url.ts";
import type { CompileRequest, CompileResult } from "./compile-job.ts";

/** Options of the compile workers. */
export interface CompileWorkersOptions {
  /** The most compilations running at once, each in its own Worker (default: the CPU count less one, 1 to 4). */
  readonly size?: number;
  /** How long an idle compile worker lives, in ms (default: 2000). */
  readonly idleTimeoutMs?: number;
}

/** The compile worker module (`.ts` from the sources, `.js` from the package; src/module-url.ts). */
export const compileWorkerUrl: ModuleUrl = new URL(ownModuleUrl("src/core/program/compile-worker"));

function defaultSize(): number {
  const cpus = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 2;
  return Math.max(1, Math.min(4, cpus - 1));
}

let settings: { size: number; idleTimeoutMs: number } | undefined;
let pool: WorkerPool<CompileRequest, CompileResult> | undefined;

/**
 * Sets the compile workers' pool size and idle timeout (validated here). Compilations already running finish in
 * the old workers, which are then terminated when idle; new ones go to a new pool.
 */
export function configureCompileWorkers(options: CompileWorkersOptions): void {
  if (typeof options !== "object" || options === null) throw new TypeError(`configureCompileWorkers: expected an options object, got ${describeValue(options)}`);
  const next = { size: options.size ?? settings?.size ?? defaultSize(), idleTimeoutMs: options.idleTimeoutMs ?? settings?.idleTimeoutMs ?? 2000 };
  new WorkerPool(compileWorkerUrl, next); // validates
  settings = next;
  pool = undefined;
}

/** Terminates the compile workers now (compilations in flight reject); the next compileAsync starts new ones. */
export function closeCompileWorkers(): void {
  pool?.terminateWorkers();
}

/** Runs one compilation in a compile worker. */
export function compileInWorker(request: CompileRequest, options: RunOptions): Promise<CompileResult> {
  pool ??= new WorkerPool<CompileRequest, CompileResult>(compileWorkerUrl, {
    size: settings?.size ?? defaultSize(),
    idleTimeoutMs: settings?.idleTimeoutMs ?? 2000,
    name: "cuda-ts compile worker",
  });
  return pool.run(request, options);
}
