/**
 * `WorkerPool`: a few Workers running one module, started when a job needs them, sent one job at a time, and
 * terminated after they have been idle for a while, so that an idle pool never keeps the process alive.
 *
 * - Jobs queue in order; each goes to the first idle worker, starting a new one while fewer than `size` run.
 * - Results come back moved (the worker's transfer list), errors with their class and fields ({@link deserializeError}).
 * - An AbortSignal cancels a queued job, and a running one by terminating its worker (a compiler call cannot be
 *   interrupted otherwise); the next job starts a fresh worker.
 * - Bun: a worker is `ref()`ed while it runs a job and `unref()`ed when idle. Deno has no `unref` for workers: an
 *   idle worker is terminated after `idleTimeoutMs` (the process may outlive its last job by that long), or at once
 *   by `close()`.
 * - A worker that fails to load or crashes fails its job with the error it reported; the pool stays usable.
 *
 * The worker's module answers with `serveRequests` (serve.ts).
 *
 * @module
 */
import { describeValue } from "../../errors/describe.ts";
import { WorkerPoolError, deserializeError } from "./errors.ts";
import type { WorkerAnswer, WorkerReady, WorkerRequest } from "./protocol.ts";

/**
 * What the pool needs of an AbortSignal (the global AbortSignal fits; declared here so that the package's types
 * need no DOM library).
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** A worker module's address: a URL (`new URL("./my-worker.ts", import.meta.url)`), typed by what the pool reads. */
export interface ModuleUrl {
  readonly href: string;
}

/** Whether `value` has what the pool uses of an AbortSignal. */
export function isAbortSignal(value: unknown): value is AbortSignalLike {
  const v = value as Partial<AbortSignalLike> | null;
  return typeof v === "object" && v !== null && typeof v.aborted === "boolean" && typeof v.addEventListener === "function" && typeof v.removeEventListener === "function";
}

/** Options of a {@link WorkerPool}. */
export interface WorkerPoolOptions {
  /** The most workers running at once (default: 2). */
  readonly size?: number;
  /** How long an idle worker lives before it is terminated, in ms (default: 1000). */
  readonly idleTimeoutMs?: number;
  /** A name for messages and the workers' `name`. */
  readonly name?: string;
}

/** Options of one {@link WorkerPool.run}. */
export interface RunOptions {
  /** Buffers moved to the worker with the request (detached here afterwards). */
  readonly transfer?: readonly ArrayBuffer[];
  /** Cancels the job: a queued one is dropped, a running one's worker terminated. Rejects with the signal's reason. */
  readonly signal?: AbortSignalLike;
}


interface Job {
  readonly id: number;
  readonly request: unknown;
  readonly transfer: ArrayBuffer[];
  readonly signal: AbortSignalLike | undefined;
  readonly calledFrom: string | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
  onAbort: (() => void) | undefined;
}

interface RefWorker extends Worker {
  ref?(): void;
  unref?(): void;
}

interface Slot {
  readonly worker: RefWorker;
  ready: boolean;
  job: Job | undefined;
  idleTimer: ReturnType<typeof setTimeout> | undefined;
}

/** Lets a timer not keep the process alive (Bun's and Node's timers have `unref`; Deno has `Deno.unrefTimer`). */
function unrefTimer(timer: ReturnType<typeof setTimeout>): void {
  if (typeof timer === "object" && timer !== null && typeof (timer as { unref?: unknown }).unref === "function") {
    (timer as { unref(): void }).unref();
    return;
  }
  const deno = (globalThis as { Deno?: { unrefTimer?(id: number): void } }).Deno;
  if (typeof timer === "number") deno?.unrefTimer?.(timer);
}

let nextId = 1;

/** A pool of Workers running one module (see the module's documentation). */
export class WorkerPool<Req, Res> {
  /** The worker module. */
  readonly url: ModuleUrl;
  /** The most workers at once. */
  readonly size: number;
  /** How long an idle worker lives, in ms. */
  readonly idleTimeoutMs: number;
  /** A name for messages. */
  readonly name: string;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  #closed = false;

  /** A pool over the worker module at `url`; no worker starts before the first job. */
  constructor(url: ModuleUrl, options: WorkerPoolOptions = {}) {
    if (!(url instanceof URL)) throw new TypeError(`WorkerPool: expected the worker module's URL (a URL), got ${describeValue(url)}`);
    const size = options.size ?? 2;
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`WorkerPool: size must be an integer ≥ 1, got ${describeValue(size)}`);
    const idle = options.idleTimeoutMs ?? 1000;
    if (typeof idle !== "number" || !Number.isFinite(idle) || idle < 0) {
      throw new RangeError(`WorkerPool: idleTimeoutMs must be a finite number ≥ 0, got ${describeValue(idle)}`);
    }
    this.url = url;
    this.size = size;
    this.idleTimeoutMs = idle;
    this.name = options.name ?? "cuda-ts worker";
  }

  /** Workers running now (busy or idle). */
  get workerCount(): number {
    return this.#slots.length;
  }

  /** Jobs waiting for a worker. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Runs `request` in a worker; resolves with its result or rejects with its error (same class and fields). */
  run(request: Req, options: RunOptions = {}): Promise<Res> {
    if (this.#closed) return Promise.reject(new WorkerPoolError(`${this.name}: the pool is closed`));
    const signal = options.signal;
    if (signal !== undefined && !isAbortSignal(signal)) {
      return Promise.reject(new TypeError(`${this.name}: signal must be an AbortSignal, got ${describeValue(signal)}`));
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    const calledFrom = new Error().stack?.split("\n").slice(2).join("\n");
    return new Promise<Res>((resolve, reject) => {
      const job: Job = {
        id: nextId++,
        request,
        transfer: [...(options.transfer ?? [])],
        signal,
        calledFrom,
        resolve: resolve as (value: unknown) => void,
        reject,
        onAbort: undefined,
      };
      if (signal !== undefined) {
        job.onAbort = () => this.#abort(job);
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
      this.#queue.push(job);
      this.#dispatch();
    });
  }

  /** Terminates every worker; queued and running jobs reject with WorkerPoolError. Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#shutdown();
  }

  /**
   * Terminates every worker now (the pool stays usable: the next job starts a fresh one); running and queued jobs
   * reject with WorkerPoolError.
   */
  terminateWorkers(): void {
    this.#shutdown();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #shutdown(): void {
    const error = new WorkerPoolError(`${this.name}: the pool's workers were terminated`);
    for (const slot of [...this.#slots]) {
      const job = slot.job;
      this.#remove(slot);
      if (job !== undefined) this.#settle(job, () => job.reject(error));
    }
    for (const job of this.#queue.splice(0)) this.#settle(job, () => job.reject(error));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.ready && s.job === undefined);
      if (slot === undefined) {
        const starting = this.#slots.filter((s) => !s.ready).length;
        if (starting >= this.#queue.length || this.#slots.length >= this.size) return;
        this.#start();
        continue;
      }
      this.#send(slot, this.#queue.shift()!);
    }
  }

  #start(): void {
    const worker: RefWorker = new Worker(this.url as URL, { type: "module", name: this.name });
    const slot: Slot = { worker, ready: false, job: undefined, idleTimer: undefined };
    this.#slots.push(slot);
    worker.onmessage = (event: MessageEvent) => this.#onMessage(slot, event.data as WorkerAnswer<Res> | WorkerReady);
    worker.onerror = (event: ErrorEvent) => {
      event.preventDefault?.();
      this.#onCrash(slot, event.error ?? event.message);
    };
    worker.onmessageerror = () => this.#onCrash(slot, "a message from the worker could not be read");
  }

  #send(slot: Slot, job: Job): void {
    if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    slot.job = job;
    slot.worker.ref?.();
    try {
      slot.worker.postMessage({ id: job.id, request: job.request } satisfies WorkerRequest<unknown>, job.transfer);
    } catch (e) {
      slot.job = undefined;
      this.#settle(job, () => job.reject(e));
      this.#idle(slot);
    }
  }

  #onMessage(slot: Slot, data: WorkerAnswer<Res> | WorkerReady): void {
    if ("ready" in data) {
      slot.ready = true;
      this.#idle(slot);
      this.#dispatch();
      return;
    }
    const job = slot.job;
    if (job === undefined || job.id !== data.id) return; // an answer to a job cancelled meanwhile
    slot.job = undefined;
    if (data.ok) this.#settle(job, () => job.resolve(data.result));
    else this.#settle(job, () => job.reject(deserializeError(data.error, job.calledFrom)));
    this.#idle(slot);
    this.#dispatch();
  }

  #onCrash(slot: Slot, cause: unknown): void {
    const job = slot.job;
    this.#remove(slot);
    const detail = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    const error = new WorkerPoolError(`${this.name}: a worker (${this.url.href}) failed${slot.ready ? "" : " while loading"}: ${detail}`, { cause });
    if (job !== undefined) this.#settle(job, () => job.reject(error));
    else if (!slot.ready) {
      // A worker that cannot load fails the jobs waiting for it rather than starting again forever.
      for (const queued of this.#queue.splice(0)) this.#settle(queued, () => queued.reject(error));
    }
    this.#dispatch();
  }

  #abort(job: Job): void {
    const queuedAt = this.#queue.indexOf(job);
    if (queuedAt >= 0) this.#queue.splice(queuedAt, 1);
    else {
      const slot = this.#slots.find((s) => s.job === job);
      if (slot === undefined) return;
      this.#remove(slot); // the only way to stop a compiler call in progress
    }
    this.#settle(job, () => job.reject(job.signal?.reason));
    this.#dispatch();
  }

  #settle(job: Job, settle: () => void): void {
    if (job.onAbort !== undefined) job.signal?.removeEventListener("abort", job.onAbort);
    job.onAbort = undefined;
    settle();
  }

  /** Marks `slot` idle: unref'd (Bun), and terminated after idleTimeoutMs unless a job comes first. */
  #idle(slot: Slot): void {
    if (slot.job !== undefined || !this.#slots.includes(slot)) return;
    slot.worker.unref?.();
    if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (slot.job === undefined) this.#remove(slot);
    }, this.idleTimeoutMs);
    unrefTimer(slot.idleTimer);
  }

  #remove(slot: Slot): void {
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
    if (slot.idleTimer !== undefined) clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    slot.job = undefined;
    slot.worker.onmessage = null;
    slot.worker.onerror = null;
    slot.worker.terminate();
  }
}
