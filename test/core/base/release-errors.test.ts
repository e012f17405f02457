/**
 * Failed releases are reported, not dropped: a release that throws after garbage collection reaches the
 * onReleaseError handler with its kind, error and phase; without a handler one warning line per kind is printed;
 * a handler that throws falls back to that warning. No GPU: the releases here are plain functions that throw.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { track, trackLazily } from "../../../src/core/base/lifetime.ts";
import { releaseReporting, reportReleaseFailure, type ReleaseFailure } from "../../../src/core/base/release-errors.ts";
import { onReleaseError } from "../../../src/index.ts";
import { forceGc } from "../../support/gc.ts";

class Owner {
  constructor(readonly id: number) {}
}

/** Tracks `count` objects of `kind` (out of reach once this returns) whose release counts itself and throws. */
function forget(kind: string, count: number, ran: { n: number }, lazily = false): void {
  for (let i = 0; i < count; i++) {
    const o = new Owner(i);
    const fail = (id: number) => (): void => {
      ran.n++;
      throw new Error(`${kind} release ${id} failed: CUDA_ERROR_INVALID_HANDLE`);
    };
    if (lazily) trackLazily(o, kind, (owner) => fail(owner.id));
    else track(o, kind, fail(i));
  }
}

/** Collects until `done()` (the releases are released at a collection after the job that made them). */
async function collectUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < 20 && !done(); i++) await forceGc(2);
}

/** The console.warn lines printed while `fn` ran, console.warn silenced meanwhile. */
async function warnings(fn: () => Promise<void> | void): Promise<string[]> {
  const spy = vi.spyOn(console, "warn").mockImplementation(() => {});
  try {
    await fn();
    return spy.mock.calls.map((args) => args.map(String).join(" "));
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => {
  onReleaseError(undefined);
});

describe("onReleaseError", () => {
  it("hands the handler the kind, the error and the phase of a release that failed at garbage collection", async () => {
    const seen: ReleaseFailure[] = [];
    const stop = onReleaseError((f) => void seen.push(f));
    const ran = { n: 0 };
    const lazyRan = { n: 0 };
    const printed = await warnings(async () => {
      forget("GcStream", 3, ran);
      forget("GcBuffer", 3, lazyRan, true);
      await collectUntil(() => ran.n > 0 && lazyRan.n > 0);
    });
    stop();
    expect(ran.n).toBeGreaterThan(0); // a collector may keep a few; it must not keep them all
    expect(lazyRan.n).toBeGreaterThan(0);
    const streams = seen.filter((f) => f.kind === "GcStream");
    const buffers = seen.filter((f) => f.kind === "GcBuffer");
    expect(streams.length).toBe(ran.n); // every failure, not one per kind
    expect(buffers.length).toBe(lazyRan.n);
    for (const f of [...streams, ...buffers]) {
      expect(f.during).toBe("finalizer");
      expect(f.error).toBeInstanceOf(Error);
      expect((f.error as Error).message).toMatch(new RegExp(`^${f.kind} release \\d failed: CUDA_ERROR_INVALID_HANDLE$`));
    }
    expect(printed).toEqual([]); // a handler replaces the default warning
  });

  it("prints one warning line per kind by default, not one per failure", async () => {
    const a = { n: 0 };
    const b = { n: 0 };
    const printed = await warnings(async () => {
      forget("WarnEvent", 4, a);
      forget("WarnGraph", 4, b, true);
      await collectUntil(() => a.n >= 2 && b.n >= 2);
    });
    expect(a.n).toBeGreaterThanOrEqual(2);
    expect(b.n).toBeGreaterThanOrEqual(2);
    const ofA = printed.filter((l) => l.includes("WarnEvent"));
    const ofB = printed.filter((l) => l.includes("WarnGraph"));
    expect(ofA).toHaveLength(1);
    expect(ofB).toHaveLength(1);
    expect(ofA[0]).toMatch(/^cuda-ts: a WarnEvent released at garbage collection failed: WarnEvent release \d failed: CUDA_ERROR_INVALID_HANDLE; later failures of this kind are not reported\. Call onReleaseError\(handler\) to see every one\.$/);
    expect(ofA[0]).not.toContain("\n");
  });

  it("falls back to the default warning when the handler throws, and the finalizer goes on", async () => {
    let calls = 0;
    onReleaseError((f) => {
      if (f.kind === "ThrowingHandlerKind") calls++; // (objects of earlier tests may be collected meanwhile)
      throw new Error("the handler broke");
    });
    const ran = { n: 0 };
    const printed = await warnings(async () => {
      forget("ThrowingHandlerKind", 3, ran);
      await collectUntil(() => ran.n >= 2);
    });
    expect(ran.n).toBeGreaterThanOrEqual(2); // a second release ran after the handler threw on the first
    expect(calls).toBe(ran.n);
    expect(printed.filter((l) => l.includes("the onReleaseError handler threw (the handler broke)"))).toHaveLength(1);
    expect(printed.filter((l) => l.startsWith("cuda-ts: a ThrowingHandlerKind released at garbage collection failed"))).toHaveLength(1);
  });

  it("reports dispose-time failures with during: dispose, and the release's caller sees no error", async () => {
    const seen: ReleaseFailure[] = [];
    onReleaseError((f) => void seen.push(f));
    const error = new Error("NVRTC_ERROR_INVALID_PROGRAM: invalid program (nvrtcDestroyProgram)");
    expect(() =>
      releaseReporting("Program", () => {
        throw error;
      }),
    ).not.toThrow();
    releaseReporting("Program", () => {}); // a release that succeeds reports nothing
    expect(seen).toEqual([{ kind: "Program", error, during: "dispose" }]);
    onReleaseError(undefined);
    const printed = await warnings(() => {
      releaseReporting("DisposeKind", () => {
        throw new Error("first line\nsecond line of a compiler log");
      });
    });
    expect(printed).toEqual([
      "cuda-ts: a DisposeKind released by close() or `using` failed: first line; later failures of this kind are not reported. Call onReleaseError(handler) to see every one.",
    ]);
  });

  it("restores the default with undefined or the function it returns; a replaced handler's remover does nothing", async () => {
    const first: string[] = [];
    const second: string[] = [];
    const stopFirst = onReleaseError((f) => void first.push(f.kind));
    const stopSecond = onReleaseError((f) => void second.push(f.kind));
    stopFirst(); // replaced already: the second handler stays
    reportReleaseFailure("Kept", new Error("x"), "finalizer");
    expect(first).toEqual([]);
    expect(second).toEqual(["Kept"]);
    stopSecond();
    const printed = await warnings(() => reportReleaseFailure("AfterRemove", "a string thrown", "finalizer"));
    expect(second).toEqual(["Kept"]);
    expect(printed).toEqual([
      "cuda-ts: an AfterRemove released at garbage collection failed: a string thrown; later failures of this kind are not reported. Call onReleaseError(handler) to see every one.",
    ]);
    expect(() => onReleaseError(42 as unknown as undefined)).toThrow(TypeError);
  });

  it("never throws from a report, whatever the error or the console does", () => {
    const spy = vi.spyOn(console, "warn").mockImplementation(() => {
      throw new Error("console closed");
    });
    try {
      const unprintable = {
        toString(): string {
          throw new Error("no");
        },
      };
      expect(() => reportReleaseFailure("Unprintable", unprintable, "finalizer")).not.toThrow();
      expect(spy).toHaveBeenCalledTimes(1);
      expect(String(spy.mock.calls[0]?.[0])).toContain("an error that cannot be printed");
    } finally {
      spy.mockRestore();
    }
  });
});
