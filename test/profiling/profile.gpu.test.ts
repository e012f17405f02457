/**
 * profile() and profiler on the GPU, in this process: kernels timed by CUPTI against CUDA events around the same
 * launches (each spin kernel runs a set time on the GPU's global timer; CUPTI's duration must be that time within
 * max(50 µs, 5 %), and within the events' interval), grid and block as launched, copies and memsets with their
 * bytes and directions, one stream's records picked by forStream, and cuProfilerStart/Stop through profiler.
 * Skips where there is no GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Device,
  Event,
  LaunchConfig,
  Program,
  launch,
  ProfilerBusyError,
  ProfilerUnsupportedError,
  u64,
  type Kernel,
  type Stream,
} from "../../src/index.ts";
import { profile, profiler } from "../../src/profiling.ts";
import { gpu, skipNote } from "../support/gpu.ts";

const source = `
extern "C" __global__ void spin(unsigned long long ns, unsigned* out) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = 1;
}`;

const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";
const bunNote = " [skipped on Bun: profile() is refused there (CUPTI calls back from its own thread; it hung Bun on the H200)]";

describe.skipIf(!gpu.available || !isBun)(`profile() on Bun${skipNote}`, () => {
  it("is refused with ProfilerUnsupportedError, before CUPTI is touched", async () => {
    await expect(profile(async () => 1)).rejects.toThrow(ProfilerUnsupportedError);
  });
});

describe.skipIf(!gpu.available || isBun)(`profile() with CUPTI${gpu.available ? (isBun ? bunNote : "") : skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let other: Stream;
  let spin: Kernel;

  beforeAll(async () => {
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    other = dev.createStream();
    spin = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin").getKernel("spin");
    const out = dev.allocate(4, { stream });
    launch(stream, new LaunchConfig({ grid: 1, block: 32 }), spin, u64(1000), out);
    await stream.done();
    out.close(stream);
  });
  afterAll(() => {
    stream?.close();
    other?.close();
  });

  it("kernel durations agree with event timings; grid, block and streams are as launched", async () => {
    const out = dev.allocate(4, { stream });
    const wanted = [200_000, 800_000, 1_500_000];
    const marks: [Event, Event][] = [];
    const r = await profile(async () => {
      // a 20 ms blocker first: the timed launches queue behind it and run back to back with their events, so
      // host-side delays (CUPTI's first-launch set-up, a GC pause) fall outside the event pairs
      launch(stream, new LaunchConfig({ grid: 1, block: 32 }), spin, u64(20_000_000), out);
      wanted.forEach((ns, i) => {
        const a = stream.record(undefined, { timing: true });
        launch(stream, new LaunchConfig({ grid: [2 + i, 3, 1], block: [32, 2, 1] }), spin, u64(ns), out);
        marks.push([a, stream.record(undefined, { timing: true })]);
      });
      launch(other, new LaunchConfig({ grid: 1, block: 32 }), spin, u64(50_000), out);
      await stream.done();
      await other.done();
    });
    const mine = r.forStream(stream).kernels.slice().sort((a, b) => (a.start < b.start ? -1 : 1)).slice(1); // without the blocker
    expect(mine.map((k) => k.name)).toEqual(["spin", "spin", "spin"]);
    mine.forEach((k, i) => {
      expect(k.grid).toEqual([2 + i, 3, 1]);
      expect(k.block).toEqual([32, 2, 1]);
      expect(k.end > k.start).toBe(true);
      expect(k.duration).toBeGreaterThanOrEqual(wanted[i]!);
      // The events bracket the kernel: their interval is the kernel's plus any gap before or after it on the GPU
      // (a host delay between record and launch longer than the blocker shows as such a gap). So CUPTI's duration
      // is at most the events' (within the tolerance), and the spin's own time within the tolerance.
      const eventNs = Event.elapsedTime(marks[i]![0], marks[i]![1]) * 1e6;
      const tolerance = Math.max(50_000, 0.05 * wanted[i]!);
      expect(k.duration, `kernel ${i}: CUPTI ${k.duration} ns, events ${eventNs} ns`).toBeLessThanOrEqual(eventNs + tolerance);
      expect(k.duration - wanted[i]!, `kernel ${i}: CUPTI ${k.duration} ns for a ${wanted[i]} ns spin`).toBeLessThanOrEqual(tolerance);
      expect(k.start >= r.begin && k.end <= r.end).toBe(true);
    });
    const others = r.forStream(other).kernels;
    expect(others).toHaveLength(1);
    expect(others[0]!.streamId).not.toBe(mine[0]!.streamId);
    expect(r.kernels).toHaveLength(5);
    expect(new Set(r.kernels.map((k) => k.correlationId)).size).toBe(5);
    expect(r.dropped).toBe(0);
    for (const [a, b] of marks) {
      a.close();
      b.close();
    }
    out.close(stream);
  });

  it("copies and memsets: direction, bytes, stream", async () => {
    const n = 1 << 20;
    const host = new Uint8Array(n).fill(3);
    const back = new Uint8Array(n);
    const buf = dev.allocate(n, { stream });
    const r = await profile(async () => {
      buf.copyFrom(host, { stream });
      buf.fill(9, { stream });
      buf.copyTo(back, { stream });
      await stream.done();
    }, { kinds: ["memcpy", "memset"] });
    expect(back.every((v) => v === 9)).toBe(true);
    const s = r.forStream(stream);
    expect(r.kernels).toEqual([]);
    const sum = (kind: string) => s.memcpys.filter((m) => m.kind === kind).reduce((t, m) => t + m.bytes, 0);
    expect(sum("HtoD")).toBe(n);
    expect(sum("DtoH")).toBe(n);
    expect(s.memsets.reduce((t, m) => t + m.bytes, 0)).toBe(n);
    for (const m of [...s.memcpys, ...s.memsets]) expect(m.end >= m.start).toBe(true);
    buf.close(stream);
  });

  it("profile() after profile() in one process: each sees its own work (CUPTI's buffers walked from the start)", async () => {
    const n = 1 << 16;
    const buf = dev.allocate(n, { stream });
    const host = new Uint8Array(n);
    for (let i = 0; i < 3; i++) {
      const r = await profile(async () => {
        buf.fill(i, { stream });
        buf.copyTo(host, { stream });
        await stream.done();
      }, { kinds: ["memcpy", "memset"] });
      const s = r.forStream(stream);
      // summed: a pageable copy may arrive as several staged records
      expect(s.memsets.reduce((t, m) => t + m.bytes, 0), `profile ${i + 1}`).toBe(n);
      expect(s.memcpys.filter((m) => m.kind === "DtoH").reduce((t, m) => t + m.bytes, 0), `profile ${i + 1}`).toBe(n);
      expect(host[n - 1]).toBe(i);
    }
    buf.close(stream);
  });

  it("a second profile() while one runs is refused; the first still completes", async () => {
    let release!: () => void;
    const gate = new Promise<void>((res) => (release = res));
    const first = profile(() => gate);
    await new Promise((res) => setTimeout(res, 0));
    await expect(profile(() => 0)).rejects.toBeInstanceOf(ProfilerBusyError);
    release();
    await expect(first).resolves.toMatchObject({ kernels: [] });
  });

  it("profiler.start/stop and capture() run without a profiler attached", () => {
    profiler.start();
    profiler.stop();
    {
      using c = profiler.capture();
      c.stop();
    }
  });
});
