/**
 * The safety net behind close(): a forgotten object's release runs after garbage collection, a closed object's
 * never does, whether it was closed at once (still in the nursery) or after it had been registered.
 */
import { describe, expect, it } from "vitest";
import { track, trackLazily, untrack } from "../../../src/core/base/lifetime.ts";

const gc: ((force: boolean) => void) | undefined =
  (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc ?? (globalThis as { gc?: () => void }).gc;

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

async function collect(): Promise<void> {
  for (let i = 0; i < 6; i++) {
    gc?.(true);
    await tick();
  }
}

class Owner {
  constructor(readonly id: number) {}
}

describe("lifetime: track, trackLazily, untrack", () => {
  it("never releases what was untracked, in the same job or after it", async () => {
    const released: number[] = [];
    const keep: Owner[] = [];
    for (let i = 0; i < 200; i++) {
      const o = new Owner(i);
      const id = i;
      if (i % 2 === 0) track(o, "Owner", () => released.push(id));
      else trackLazily(o, "Owner", (owner) => () => released.push(owner.id));
      if (i % 3 === 0) untrack(o); // closed at once, in or out of order
      else keep.push(o);
    }
    await tick(); // the survivors are registered now
    for (const o of keep) untrack(o); // closed later
    keep.length = 0;
    await collect();
    expect(released).toEqual([]);
  });

  it.skipIf(gc === undefined)("releases forgotten objects after garbage collection, once each", async () => {
    const released: number[] = [];
    const made: number[] = [];
    (() => {
      for (let i = 0; i < 150; i++) {
        const o = new Owner(i);
        if (i % 2 === 0) {
          const id = i;
          track(o, "Owner", () => released.push(id));
        } else {
          trackLazily(o, "Owner", (owner) => () => released.push(owner.id));
        }
        made.push(i);
      }
    })();
    for (let i = 0; i < 10 && released.length < made.length; i++) await collect();
    expect(released.length).toBeGreaterThan(0); // a collector may keep a few; it must not keep them all
    expect(new Set(released).size).toBe(released.length);
    expect(released.every((id) => made.includes(id))).toBe(true);
  });
});
