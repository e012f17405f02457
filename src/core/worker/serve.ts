/**
 * The worker's side of a {@link WorkerPool}: `serveRequests(handler)` in a worker module answers each request with
 * the handler's result (its transfer list moved, not copied) or its error, serialized so that the pool rethrows it
 * with the same class and fields.
 *
 * ```ts
 * // my-worker.ts
 * serveRequests(async (req: { n: number }) => {
 *   const bytes = new Uint8Array(req.n);
 *   return { result: bytes, transfer: [bytes.buffer] };
 * });
 * ```
 *
 * @module
 */
import { serializeError } from "./errors.ts";
import type { WorkerAnswer, WorkerRequest } from "./protocol.ts";

/** What a handler returns: the result, and the buffers to move with it. */
export interface HandlerResult<Res> {
  readonly result: Res;
  readonly transfer?: readonly ArrayBuffer[];
}

interface WorkerScope {
  onmessage: ((event: MessageEvent) => unknown) | null;
  postMessage(message: unknown, transfer?: Transferable[]): void;
}

/**
 * Answers the pool's requests in this worker with `handler` (one at a time: the pool sends a worker one job at a
 * time). Call it once, at the end of the worker's module: it tells the pool that the worker is ready.
 */
export function serveRequests<Req, Res>(handler: (request: Req) => HandlerResult<Res> | Promise<HandlerResult<Res>>): void {
  const scope = globalThis as unknown as WorkerScope;
  scope.onmessage = async (event: MessageEvent) => {
    const { id, request } = event.data as WorkerRequest<Req>;
    let answer: WorkerAnswer<Res>;
    let transfer: ArrayBuffer[] = [];
    try {
      const out = await handler(request);
      answer = { id, ok: true, result: out.result };
      transfer = [...(out.transfer ?? [])];
    } catch (e) {
      answer = { id, ok: false, error: serializeError(e) };
    }
    try {
      scope.postMessage(answer, transfer);
    } catch (e) {
      scope.postMessage({ id, ok: false, error: serializeError(e) } satisfies WorkerAnswer<Res>);
    }
  };
  scope.postMessage({ ready: true });
}
