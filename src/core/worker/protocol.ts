/**
 * The messages between a {@link WorkerPool} and its workers: a request carries a job id and the job; the answer
 * carries the same id and either the result or a {@link SerializedError}. Byte results travel in the message's
 * transfer list (moved, not copied).
 *
 * @module
 */
import type { SerializedError } from "./errors.ts";

/** Pool → worker. */
export interface WorkerRequest<Req> {
  readonly id: number;
  readonly request: Req;
}

/** Worker → pool: a job's outcome. */
export type WorkerAnswer<Res> =
  | { readonly id: number; readonly ok: true; readonly result: Res }
  | { readonly id: number; readonly ok: false; readonly error: SerializedError };

/** Worker → pool, once, when the worker's module has loaded and it listens. */
export interface WorkerReady {
  readonly ready: true;
}
