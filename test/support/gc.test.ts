/** forceGc (test/support/gc.ts) really collects on both runtimes: what the GPU keep-alive tests rely on. */
import { describe, expect, it } from "vitest";
import { forceGc } from "./gc.ts";

function unreachable(): WeakRef<object> {
  return new WeakRef({ payload: new Uint8Array(1 << 16) });
}

describe("forceGc", () => {
  it("collects an unreachable object and keeps a reachable one", async () => {
    const gone = unreachable();
    const kept = { payload: new Uint8Array(16) };
    const keptRef = new WeakRef(kept);
    await forceGc();
    expect(gone.deref()).toBeUndefined();
    expect(keptRef.deref()).toBe(kept);
  });
});
