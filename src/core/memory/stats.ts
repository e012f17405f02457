/**
 * Memory statistics per device: what this process's Buffers (and the arrays over them) hold, their peak, how many
 * are live, how many were freed by the garbage-collection release instead of `close()` (leaks), and how often an
 * out-of-memory retry was saved by trimming a pool or by a collection. `CUDA_TS_DEBUG=leaks` also records where each
 * live allocation was made and prints the largest sources at exit.
 *
 * Also the reclaim of dropped buffers on an out-of-memory: each Buffer that outlives the job that made it is
 * remembered here by a WeakRef with its release, so that after a forced collection the memory of buffers the
 * collector cleared is freed at once, without waiting for the finalizers' turn (which never comes inside a
 * synchronous loop).
 *
 * @module
 */
import { debugFlag } from "../base/debug.ts";
import { scriptFrame } from "../base/debug.ts";
import { reportReleaseFailure } from "../base/release-errors.ts";

/** A device's memory as cuda-ts sees it: `device.memoryStats()`. */
export interface MemoryStats {
  /** Bytes held by live Buffers (and the DeviceArrays over them) this process allocated on the device. */
  readonly bytesInUse: number;
  /** The most `bytesInUse` has been. */
  readonly peakBytesInUse: number;
  /** Live Buffers holding device memory. */
  readonly liveObjects: number;
  /** Allocations made (Buffers holding device memory, from any resource of cuda-ts). */
  readonly allocations: number;
  /** Buffers freed by the garbage-collection release instead of `close()` or `using` (leaks). */
  readonly freedByFinalizer: number;
  /** The bytes those buffers held. */
  readonly bytesFreedByFinalizer: number;
  /** Memory the device's pools that allocated here hold reserved (in use or cached). */
  readonly poolReservedBytes: number;
  /** Of it, what the pools keep reserved but unused (trim returns it: `resource.trimTo(0)`). */
  readonly poolReservedUnusedBytes: number;
  /** Out-of-memory failures that trimming the pools' unused memory saved. */
  readonly savedByTrim: number;
  /** Out-of-memory failures that a garbage collection (freeing dropped buffers) saved. */
  readonly savedByCollection: number;
  /** Out-of-memory errors thrown (after the retries). */
  readonly outOfMemoryErrors: number;
}

/** A pool's reserved and used bytes, for the statistics (a MemoryPoolResource, read live). */
export interface PoolUsage {
  readonly deviceId: number;
  /** The pool's handle as a number: two resources over one pool are counted once. */
  readonly key: number;
  /** [reserved, used] in bytes. */
  usage(): readonly [number, number];
  /** Returns the pool's unused reserved memory to the system. */
  trimTo(bytes: number): void;
}

class Counters {
  bytes = 0;
  peak = 0;
  live = 0;
  allocations = 0;
  leaked = 0;
  leakedBytes = 0;
  savedByTrim = 0;
  savedByCollection = 0;
  ooms = 0;
  readonly pools = new Set<WeakRef<PoolUsage>>();
}

const perDevice: Counters[] = [];

function counters(deviceId: number): Counters {
  return (perDevice[deviceId] ??= new Counters());
}

/** Whether allocation sites are recorded (`CUDA_TS_DEBUG=leaks`), read once. */
export const recordSites: boolean = debugFlag("leaks");

interface Site {
  readonly deviceId: number;
  readonly bytes: number;
  readonly site: string;
}
const sites = new Map<number, Site>();
let nextSiteId = 1;

/** @internal A Buffer took `bytes` on `deviceId`; returns its site token under `CUDA_TS_DEBUG=leaks` (else 0). */
export function noteAllocated(deviceId: number, bytes: number): number {
  if (deviceId < 0) return 0;
  const c = (perDevice[deviceId] ??= new Counters());
  c.bytes += bytes;
  c.live++;
  c.allocations++;
  if (c.bytes > c.peak) c.peak = c.bytes;
  if (!recordSites) return 0;
  const id = nextSiteId++;
  sites.set(id, { deviceId, bytes, site: scriptFrame(new Error("allocation").stack) ?? "(unknown)" });
  return id;
}

/** @internal A Buffer gave back `bytes` on `deviceId`: by `close()`, or by the garbage-collection release. */
export function noteFreed(deviceId: number, bytes: number, byFinalizer: boolean, site: number): void {
  if (deviceId < 0) return;
  const c = counters(deviceId);
  c.bytes -= bytes;
  c.live--;
  if (byFinalizer) {
    c.leaked++;
    c.leakedBytes += bytes;
  }
  if (site !== 0) sites.delete(site);
}

/** @internal A Buffer grew or shrank in place from `before` to `after` bytes. */
export function noteResized(deviceId: number, before: number, after: number): void {
  if (deviceId < 0) return;
  const c = counters(deviceId);
  c.bytes += after - before;
  if (c.bytes > c.peak) c.peak = c.bytes;
}

/** @internal A pool allocated on `deviceId` (counted in the pool figures and trimmed on an out-of-memory). */
export function notePool(pool: PoolUsage): void {
  const c = counters(pool.deviceId);
  for (const ref of c.pools) if (ref.deref()?.key === pool.key) return;
  c.pools.add(new WeakRef(pool));
}

/** @internal The pools seen on `deviceId`. */
export function poolsOf(deviceId: number): PoolUsage[] {
  const c = perDevice[deviceId];
  if (c === undefined) return [];
  const out: PoolUsage[] = [];
  for (const ref of c.pools) {
    const p = ref.deref();
    if (p === undefined) c.pools.delete(ref);
    else out.push(p);
  }
  return out;
}

/** @internal Counts an out-of-memory outcome. */
export function noteOutOfMemory(deviceId: number, outcome: "trim" | "collection" | "thrown"): void {
  if (deviceId < 0) return;
  const c = counters(deviceId);
  if (outcome === "trim") c.savedByTrim++;
  else if (outcome === "collection") c.savedByCollection++;
  else c.ooms++;
}

/** The statistics of `deviceId`. Answers after a fault too (the pools' figures are then 0: they are not asked). */
export function memoryStatsOf(deviceId: number, readPools: boolean): MemoryStats {
  const c = perDevice[deviceId] ?? new Counters();
  let reserved = 0;
  let unused = 0;
  if (readPools) {
    for (const p of poolsOf(deviceId)) {
      try {
        const [r, u] = p.usage();
        reserved += r;
        unused += Math.max(0, r - u);
      } catch {
        // A closed pool, or a driver that cannot answer: its figures are left out.
      }
    }
  }
  return Object.freeze({
    bytesInUse: c.bytes,
    peakBytesInUse: c.peak,
    liveObjects: c.live,
    allocations: c.allocations,
    freedByFinalizer: c.leaked,
    bytesFreedByFinalizer: c.leakedBytes,
    poolReservedBytes: reserved,
    poolReservedUnusedBytes: unused,
    savedByTrim: c.savedByTrim,
    savedByCollection: c.savedByCollection,
    outOfMemoryErrors: c.ooms,
  });
}

/** The largest sources of live allocations (`CUDA_TS_DEBUG=leaks`), largest first. */
export function liveAllocationSites(limit = 10): { readonly site: string; readonly deviceId: number; readonly bytes: number; readonly count: number }[] {
  const bySite = new Map<string, { site: string; deviceId: number; bytes: number; count: number }>();
  for (const s of sites.values()) {
    const key = `${s.deviceId} ${s.site}`;
    const e = bySite.get(key);
    if (e === undefined) bySite.set(key, { site: s.site, deviceId: s.deviceId, bytes: s.bytes, count: 1 });
    else {
      e.bytes += s.bytes;
      e.count++;
    }
  }
  return [...bySite.values()].sort((a, b) => b.bytes - a.bytes).slice(0, limit);
}

function printLeaks(): void {
  const top = liveAllocationSites();
  if (top.length === 0) return;
  const lines = top.map((s) => `  ${s.bytes} bytes in ${s.count} allocation${s.count === 1 ? "" : "s"} on device ${s.deviceId}, made at ${s.site}`);
  try {
    console.warn(`cuda-ts: CUDA_TS_DEBUG=leaks: live device memory at exit, largest sources first:\n${lines.join("\n")}`);
  } catch {
    // No console left at exit.
  }
}

if (recordSites) {
  const proc = (globalThis as { process?: { on?: (event: string, fn: () => void) => void } }).process;
  if (typeof proc?.on === "function") proc.on("exit", printLeaks);
  else (globalThis as { addEventListener?: (event: string, fn: () => void) => void }).addEventListener?.("unload", printLeaks);
}

// ---- the reclaim of dropped buffers ----

/** A buffer the collector may clear: its WeakRef and its release (which runs at most once). */
export interface Reclaimable {
  readonly ref: WeakRef<object>;
  readonly release: () => void;
}

const reclaimable = new Set<Reclaimable>();

/** @internal Remembers a buffer that left the nursery, with its release (see the module documentation). */
export function rememberReclaimable(entry: Reclaimable): void {
  reclaimable.add(entry);
}

/** @internal Forgets a buffer that was closed. */
export function forgetReclaimable(entry: Reclaimable | undefined): void {
  if (entry !== undefined) reclaimable.delete(entry);
}

/** The collector this runtime offers: Bun's `Bun.gc(true)`, or `globalThis.gc` (Deno or Node with `--expose-gc`). */
export function collector(): (() => void) | undefined {
  const bun = (globalThis as { Bun?: { gc?: (force: boolean) => void } }).Bun;
  if (typeof bun?.gc === "function") return () => bun.gc!(true);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc === "function") return () => gc();
  return undefined;
}

/**
 * @internal Collects (where the runtime allows it) and frees at once the memory of every remembered buffer the
 * collector cleared. Returns how many were freed, or undefined without a collector.
 */
export function collectDroppedBuffers(): number | undefined {
  const gc = collector();
  if (gc === undefined) return undefined;
  gc();
  let freed = 0;
  for (const entry of reclaimable) {
    if (entry.ref.deref() !== undefined) continue;
    reclaimable.delete(entry);
    try {
      entry.release();
      freed++;
    } catch (e) {
      reportReleaseFailure("Buffer", e, "finalizer");
    }
  }
  return freed;
}
