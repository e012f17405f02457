/**
 * The WorkerPool's plumbing, with a fake worker (no CUDA): results moved back, errors with their class and fields,
 * the pool's size, idle termination, cancellation, crashes and modules that cannot load. Same file on Bun and Deno.
 */
import { afterEach, describe, expect, it } from "vitest";
import { NVRTCError } from "../../../src/bindings/errors.ts";
import { WorkerPoolError } from "../../../src/core/errors.ts";
import { WorkerPool } from "../../../src/core/worker/pool.ts";
import { deserializeError, serializeError } from "../../../src/core/worker/errors.ts";
import { LibraryNotFoundError } from "../../../src/pathfinder/errors.ts";
import type { FakeRequest } from "../../fixtures/workers/fake-worker.ts";

const fakeUrl = new URL("../../fixtures/workers/fake-worker.ts", import.meta.url);
const brokenUrl = new URL("../../fixtures/workers/broken-worker.ts", import.meta.url);

interface FakeResult {
  bytes?: Uint8Array;
  value?: unknown;
  workerId: string;
}

const pools: WorkerPool<FakeRequest, FakeResult>[] = [];
function makePool(options: ConstructorParameters<typeof WorkerPool>[1] = {}): WorkerPool<FakeRequest, FakeResult> {
  const pool = new WorkerPool<FakeRequest, FakeResult>(fakeUrl, options);
  pools.push(pool);
  return pool;
}
afterEach(() => {
  for (const p of pools.splice(0)) p.close();
});

/** Resolves when `check()` holds (polled on timers; no timing is asserted). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}

describe("WorkerPool", () => {
  it("starts no worker before the first job, then answers with the worker's result", async () => {
    const pool = makePool();
    expect(pool.workerCount).toBe(0);
    const r = await pool.run({ op: "echo", value: { a: [1, 2, 3], s: "x" } });
    expect(r.value).toEqual({ a: [1, 2, 3], s: "x" });
    expect(pool.workerCount).toBe(1);
  });

  it("moves result bytes back (an ArrayBuffer of exactly the result's length)", async () => {
    const pool = makePool();
    const r = await pool.run({ op: "bytes", n: 1000 });
    expect(r.bytes).toBeInstanceOf(Uint8Array);
    expect(r.bytes!.byteLength).toBe(1000);
    expect(r.bytes!.buffer.byteLength).toBe(1000);
    expect(r.bytes![999]).toBe(999 & 0xff);
  });

  it("moves request buffers listed in transfer (detached here)", async () => {
    const pool = makePool();
    const payload = new Uint8Array([1, 2, 3]);
    const r = await pool.run({ op: "echo", value: payload }, { transfer: [payload.buffer] });
    expect(payload.byteLength).toBe(0);
    expect(r.value).toEqual(new Uint8Array([1, 2, 3]));
  });

  it("rethrows a worker's NVRTCError as an NVRTCError with its code, log and message", async () => {
    const pool = makePool();
    const e = await pool.run({ op: "nvrtc-error" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NVRTCError);
    const err = e as NVRTCError;
    expect(err.name).toBe("NVRTCError");
    expect(err.codeName).toBe("NVRTC_ERROR_COMPILATION");
    expect(err.code).toBe(6);
    expect(err.functionName).toBe("nvrtcCompileProgram");
    expect(err.log).toContain('error: expected a ";"');
    expect(err.message).toContain("compilation failed");
    expect(err.stack).toContain("in a worker, awaited from");
  });

  it("rethrows built-in errors with their class", async () => {
    const pool = makePool();
    await expect(pool.run({ op: "range-error" })).rejects.toThrow(RangeError);
    // The worker stays usable after a job's error.
    expect((await pool.run({ op: "id" })).workerId).toMatch(/-/);
  });

  it("runs at most `size` workers and queues the rest in order", async () => {
    const pool = makePool({ size: 2 });
    const flag = new SharedArrayBuffer(4);
    const jobs = [0, 1, 2, 3].map(() => pool.run({ op: "block", flag, ms: 30_000 }));
    await until(() => pool.workerCount === 2 && pool.queued === 2);
    Atomics.store(new Int32Array(flag), 0, 1);
    Atomics.notify(new Int32Array(flag), 0);
    const ids = new Set((await Promise.all(jobs)).map((r) => r.workerId));
    expect(ids.size).toBe(2);
    expect(pool.workerCount).toBe(2);
  });

  it("terminates idle workers after idleTimeoutMs, and starts a new one for the next job", async () => {
    const pool = makePool({ idleTimeoutMs: 0 });
    const first = await pool.run({ op: "id" });
    await until(() => pool.workerCount === 0);
    const second = await pool.run({ op: "id" });
    expect(second.workerId).not.toBe(first.workerId);
  });

  it("cancels a queued job and a running one (its worker terminated) with the signal's reason", async () => {
    const pool = makePool({ size: 1 });
    const flag = new SharedArrayBuffer(4);
    const running = new AbortController();
    const queued = new AbortController();
    const a = pool.run({ op: "block", flag, ms: 30_000 }, { signal: running.signal });
    const b = pool.run({ op: "id" }, { signal: queued.signal });
    await until(() => pool.workerCount === 1 && pool.queued === 1);
    queued.abort(new Error("queued job cancelled"));
    await expect(b).rejects.toThrow("queued job cancelled");
    expect(pool.queued).toBe(0);
    running.abort();
    await expect(a).rejects.toMatchObject({ name: "AbortError" });
    expect(pool.workerCount).toBe(0);
    // The pool goes on with a fresh worker.
    expect((await pool.run({ op: "id" })).workerId).toMatch(/-/);
    // An already aborted signal rejects at once.
    await expect(pool.run({ op: "id" }, { signal: AbortSignal.abort(new Error("too late")) })).rejects.toThrow("too late");
  });

  it("fails the job of a worker that crashes and goes on", async () => {
    const pool = makePool();
    const e = await pool.run({ op: "crash" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(WorkerPoolError);
    expect((e as Error).message).toContain("failed");
    expect((await pool.run({ op: "id" })).workerId).toMatch(/-/);
  });

  it("fails the waiting jobs when the worker module cannot load", async () => {
    const pool = new WorkerPool<FakeRequest, FakeResult>(brokenUrl);
    try {
      const e = await pool.run({ op: "id" }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(WorkerPoolError);
      expect((e as Error).message).toContain("while loading");
    } finally {
      pool.close();
    }
  });

  it("rejects jobs after close(), and close() rejects the jobs in flight", async () => {
    const pool = makePool();
    const flag = new SharedArrayBuffer(4);
    const job = pool.run({ op: "block", flag, ms: 30_000 });
    await until(() => pool.workerCount === 1);
    pool.close();
    await expect(job).rejects.toThrow(WorkerPoolError);
    await expect(pool.run({ op: "id" })).rejects.toThrow("the pool is closed");
    expect(pool.workerCount).toBe(0);
  });

  it("checks its options", () => {
    expect(() => new WorkerPool(fakeUrl, { size: 0 })).toThrow(RangeError);
    expect(() => new WorkerPool(fakeUrl, { size: 1.5 })).toThrow(RangeError);
    expect(() => new WorkerPool(fakeUrl, { idleTimeoutMs: -1 })).toThrow(RangeError);
    expect(() => new WorkerPool("fake-worker.ts" as unknown as URL)).toThrow(TypeError);
  });
});

describe("errors across a Worker boundary", () => {
  it("keep a LibraryNotFoundError's class and fields through structured cloning", () => {
    const original = new LibraryNotFoundError("nvrtc", ["libnvrtc.so.13"], { attempts: [], hint: "install it", missingPermissions: [] });
    const back = deserializeError(structuredClone(serializeError(original)));
    expect(back).toBeInstanceOf(LibraryNotFoundError);
    expect(back.message).toBe(original.message);
    expect((back as LibraryNotFoundError).sonames).toEqual(["libnvrtc.so.13"]);
    expect(back.name).toBe("LibraryNotFoundError");
  });

  it("keep a library error's status fields, which cuda-ts's errors hold non-enumerable, and keep them quiet", () => {
    const original = new NVRTCError(6, "NVRTC_ERROR_COMPILATION", "compilation failed", "nvrtcCompileProgram", "k.cu(1): error");
    const back = deserializeError(structuredClone(serializeError(original))) as NVRTCError;
    expect(back).toBeInstanceOf(NVRTCError);
    expect([back.code, back.codeName, back.functionName, back.library, back.log]).toEqual([6, "NVRTC_ERROR_COMPILATION", "nvrtcCompileProgram", "nvrtc", "k.cu(1): error"]);
    expect(Object.keys(back)).toEqual([]);
  });

  it("turn a thrown non-Error into an Error saying so", () => {
    const back = deserializeError(serializeError("just a string"));
    expect(back).toBeInstanceOf(Error);
    expect(back.message).toContain("just a string");
  });
});
