/**
 * A full garbage collection on demand, on both runtimes: Bun's `Bun.gc(true)`; on Deno, V8's `gc` (exposed with
 * `--expose-gc` through node:v8, fetched from a fresh context through node:vm). Tests that assert what a collection
 * frees or keeps alive use this, with a control object that must be collected, so they cannot pass without one.
 */
import * as v8 from "node:v8";
import * as vm from "node:vm";

type Collect = () => void;

function collector(): Collect {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  if (bun !== undefined) return () => bun.gc(true);
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as unknown;
  if (typeof gc !== "function") throw new Error("cannot force a garbage collection on this runtime (no gc after --expose-gc)");
  return gc as Collect;
}

let collect: Collect | undefined;

/**
 * Collects garbage `rounds` times, letting the event loop turn between rounds (WeakRef targets live until the job that
 * read them ends; finalizers run after a collection).
 */
export async function forceGc(rounds = 3): Promise<void> {
  collect ??= collector();
  for (let i = 0; i < rounds; i++) {
    await new Promise((r) => setTimeout(r, 0));
    collect();
    await new Promise((r) => setTimeout(r, 0));
  }
}
