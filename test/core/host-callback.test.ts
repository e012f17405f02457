/**
 * Host callbacks without a GPU: Bun refuses graph host nodes with a typed error before touching the driver (its
 * stream host functions go through an event instead, which needs the driver); on Deno the
 * process-wide trampoline runs queued and graph host functions when a foreign thread (here pthread_create, as the
 * driver's own threads would) calls it, releases what it held, and survives a throwing function.
 */
import { describe, expect, it } from "vitest";
import { ffi, UnsupportedOnRuntimeError, type Pointer } from "../../src/ffi/index.ts";
import { GraphAttachments } from "../../src/core/graph/attachments.ts";
import {
  cancelHostFunction,
  hostFunctionTrampoline,
  pendingHostFunctions,
  queueHostFunction,
  registerGraphHostFunction,
} from "../../src/core/host-callback.ts";
import { hostCallbacksSupported, hostFunctionMode, LEGACY_DEFAULT_STREAM } from "../../src/index.ts";

const onBun = ffi.runtime === "bun";

function refusal(fn: () => unknown): UnsupportedOnRuntimeError {
  try {
    fn();
  } catch (e) {
    return e as UnsupportedOnRuntimeError;
  }
  throw new Error("expected UnsupportedOnRuntimeError, nothing was thrown");
}

describe.skipIf(!onBun)("host callbacks on Bun", () => {
  it("are reported unsupported", () => {
    expect(hostCallbacksSupported).toBe(false);
  });

  it("stream.launchHostFunction is not refused: it goes to the driver to record an event (here: no driver)", () => {
    // No libcuda on a CPU-only machine: the event path reaches the driver, which is not UnsupportedOnRuntimeError.
    let error: unknown;
    try {
      LEGACY_DEFAULT_STREAM.launchHostFunction(() => {});
    } catch (e) {
      error = e;
    }
    expect(error).not.toBeInstanceOf(UnsupportedOnRuntimeError);
    expect(hostFunctionMode).toBe("event");
    expect(() => LEGACY_DEFAULT_STREAM.launchHostFunction(42 as never)).toThrow(/takes a function/);
  });

  it("graph host nodes are refused the same way, and nothing is held", () => {
    const e = refusal(() => registerGraphHostFunction(() => {}, new GraphAttachments(), "GraphDefinition.callback"));
    expect(e).toBeInstanceOf(UnsupportedOnRuntimeError);
    expect(e.message).toMatch(/GraphDefinition\.callback/);
    expect(refusal(() => queueHostFunction(() => {}, "x"))).toBeInstanceOf(UnsupportedOnRuntimeError);
    expect(pendingHostFunctions()).toBe(0);
  });
});

describe.skipIf(onBun)("host callbacks on Deno (called from a foreign thread)", () => {
  let threads: ReturnType<typeof bindThreads> | undefined;
  function bindThreads() {
    const libc = ffi.openLibrary("libc.so.6");
    return {
      create: libc.bind("pthread_create", { parameters: ["pointer", "pointer", "function", "pointer"], result: "i32" } as const)!,
      join: libc.bind("pthread_join", { parameters: ["u64", "pointer"], result: "i32" } as const, { nonblocking: true })!,
    };
  }

  /** Calls the trampoline with `userData` from a new thread and waits (without blocking JS) for the thread. */
  async function callFromThread(userData: Pointer): Promise<void> {
    const { create, join } = (threads ??= bindThreads()); // Deno only: Bun has no nonblocking calls
    const tid = new BigUint64Array(new ArrayBuffer(8));
    // pthread's start routine is void* (*)(void*); the trampoline is void (*)(void*): the return value is ignored.
    expect(create(ffi.pointerOf(tid), null, hostFunctionTrampoline(), userData)).toBe(0);
    expect(await join(tid[0]!, null)).toBe(0);
  }

  it("are reported supported", () => {
    expect(hostCallbacksSupported).toBe(true);
  });

  it("a queued function runs once on the JavaScript thread, and is released afterwards", async () => {
    const seen: string[] = [];
    const before = pendingHostFunctions();
    const userData = queueHostFunction(() => seen.push("ran"), "test");
    expect(pendingHostFunctions()).toBe(before + 1);
    await callFromThread(userData);
    expect(seen).toEqual(["ran"]);
    expect(pendingHostFunctions()).toBe(before);
    await callFromThread(userData); // a stale id does nothing
    expect(seen).toEqual(["ran"]);
  });

  it("the driver thread waits until the function has returned", async () => {
    let finished = false;
    const userData = queueHostFunction(() => {
      const until = Date.now() + 30;
      while (Date.now() < until) {
        // busy: the foreign thread must still be blocked in the trampoline
      }
      finished = true;
    }, "test");
    await callFromThread(userData); // pthread_join returns only after the thread left the trampoline
    expect(finished).toBe(true);
  });

  it("a cancelled function never runs and is released", async () => {
    let ran = false;
    const before = pendingHostFunctions();
    const userData = queueHostFunction(() => (ran = true), "test");
    cancelHostFunction(userData);
    expect(pendingHostFunctions()).toBe(before);
    await callFromThread(userData);
    expect(ran).toBe(false);
  });

  it("a graph host function runs each time it is reached, held by the graph's attachments", async () => {
    const attachments = new GraphAttachments();
    let count = 0;
    const node = registerGraphHostFunction(() => count++, attachments, "test");
    expect(attachments.hasHostCallbacks).toBe(true);
    expect(ffi.samePointer(node.fn, hostFunctionTrampoline())).toBe(true);
    await callFromThread(node.userData);
    await callFromThread(node.userData);
    expect(count).toBe(2);
    expect(pendingHostFunctions()).toBe(0);
  });

  it("an exception in a host function is reported, and the trampoline keeps working", async () => {
    const reported: unknown[] = [];
    const g = globalThis as { reportError?: (e: unknown) => void };
    const original = g.reportError;
    g.reportError = (e) => reported.push(e);
    try {
      await callFromThread(queueHostFunction(() => {
        throw new Error("boom");
      }, "test"));
    } finally {
      g.reportError = original;
    }
    expect(reported).toHaveLength(1);
    expect((reported[0] as Error).message).toBe("boom");
    let ran = false;
    await callFromThread(queueHostFunction(() => (ran = true), "test"));
    expect(ran).toBe(true);
    expect(pendingHostFunctions()).toBe(0);
  });

  it("rejects what is not a function", () => {
    expect(() => queueHostFunction(42 as unknown as () => void, "stream.launchHostFunction")).toThrow(/takes a function/);
  });
});
