/**
 * kernel_timings: kernel, memcpy and memset timings from CUPTI with no profiler attached (`profile()`), checked
 * against CUDA events around the same kernels. The spin kernel runs for a set time measured on the GPU's global
 * timer, so each duration is known in advance.
 *
 *   deno run --allow-ffi --allow-env --allow-read examples/kernel_timings.ts
 *
 * Deno only: on Bun `profile()` is refused with ProfilerUnsupportedError (CUPTI hands its buffers back on a thread
 * of its own, which Bun's callbacks cannot take: a profile() under Bun hung on the H200).
 *
 * Needs libcupti (a toolkit's extras/CUPTI/lib64, NVIDIA's nvidia-cuda-cupti wheel, or CUDA_TS_CUPTI_PATH).
 */
import { Device, Event, LaunchConfig, Program, f32, launch, u32, u64 } from "../src/index.ts";
import { profile } from "../src/profiling.ts";

const source = `
extern "C" __global__ void spin(unsigned long long ns, unsigned* out) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = (unsigned)(t - t0);
}
extern "C" __global__ void scale(float* x, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i];
}`;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const code = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin");
const spin = code.getKernel("spin");
const scale = code.getKernel("scale");

const n = 1 << 22;
const host = new Float32Array(n).map((_, i) => i % 100);
const back = new Float32Array(n);
using x = dev.allocate(n * 4, { stream });
using y = dev.allocate(n * 4, { stream });
using out = dev.allocate(4, { stream });
const one = new LaunchConfig({ grid: 1, block: 32 });

launch(stream, one, spin, u64(10_000), out); // warm-up: module loading is not part of what is timed
await stream.done();

const wanted = [500_000, 1_000_000, 2_000_000]; // ns
const marks: [Event, Event][] = [];
const profiled = await profile(async () => {
  x.copyFrom(host, { stream });
  y.fill(7, { stream });
  // A 20 ms kernel first keeps the stream busy while the timed launches are queued behind it: then the GPU runs
  // each event and kernel back to back, and host-side delays (CUPTI's first-launch set-up, a GC pause) fall
  // outside the event pairs.
  launch(stream, one, spin, u64(20_000_000), out);
  for (const ns of wanted) {
    const start = stream.record(undefined, { timing: true });
    launch(stream, one, spin, u64(ns), out);
    marks.push([start, stream.record(undefined, { timing: true })]);
  }
  launch(stream, new LaunchConfig({ grid: n / 256, block: 256 }), scale, x, f32(3), u32(n));
  x.copyTo(back, { stream });
  await stream.done();
  return back[n - 1];
});

for (let i = 0; i < n; i += 997) if (back[i] !== 3 * host[i]!) throw new Error(`x[${i}] = ${back[i]}, expected ${3 * host[i]!}`);

const mine = profiled.forStream(stream);
const spins = mine.kernels
  .filter((k) => k.name === "spin")
  .sort((a, b) => (a.start < b.start ? -1 : 1))
  .slice(1); // the 20 ms blocker
const scales = mine.kernels.filter((k) => k.name === "scale");
if (spins.length !== wanted.length || scales.length !== 1) throw new Error(`expected ${wanted.length + 1} spin and 1 scale kernels, got ${mine.kernels.map((k) => k.name).join(", ")}`);

console.log("kernel       grid        block       CUPTI µs    events µs   difference");
let worst = 0;
spins.forEach((k, i) => {
  const eventNs = Event.elapsedTime(marks[i]![0], marks[i]![1]) * 1e6;
  const diff = k.duration - eventNs;
  worst = Math.max(worst, Math.abs(diff));
  console.log(`${k.name.padEnd(12)} ${k.grid.join("x").padEnd(11)} ${k.block.join("x").padEnd(11)} ${(k.duration / 1e3).toFixed(1).padStart(9)}   ${(eventNs / 1e3).toFixed(1).padStart(9)}   ${(diff / 1e3).toFixed(1).padStart(7)} µs`);
  if (k.duration < wanted[i]!) throw new Error(`spin ${i}: CUPTI says ${k.duration} ns, shorter than the ${wanted[i]} ns it spins`);
  // The events bracket the kernel: their interval is the kernel's plus any idle time between them on the GPU (a
  // host delay between record and launch longer than the blocker). CUPTI's duration is the spin's own time.
  const tolerance = Math.max(50_000, 0.05 * wanted[i]!);
  if (k.duration > eventNs + tolerance) throw new Error(`spin ${i}: CUPTI ${k.duration} ns is longer than the events' ${eventNs.toFixed(0)} ns by more than max(50 µs, 5 %)`);
  if (k.duration - wanted[i]! > tolerance) throw new Error(`spin ${i}: CUPTI ${k.duration} ns for a ${wanted[i]} ns spin, more than max(50 µs, 5 %) over`);
});
const s = scales[0]!;
console.log(`${s.name.padEnd(12)} ${s.grid.join("x").padEnd(11)} ${s.block.join("x").padEnd(11)} ${(s.duration / 1e3).toFixed(1).padStart(9)}`);
if (s.grid[0] !== n / 256 || s.block[0] !== 256) throw new Error(`scale ran as ${s.grid} x ${s.block}`);

const bytesOf = (records: readonly { readonly bytes: number }[]): number => records.reduce((sum, m) => sum + m.bytes, 0);
for (const m of [...mine.memcpys, ...mine.memsets]) {
  console.log(`${"kind" in m ? `memcpy ${m.kind}` : "memset"} ${(m.bytes / 2 ** 20).toFixed(2)} MiB in ${(m.duration / 1e3).toFixed(1)} µs (${(m.bytes / m.duration).toFixed(1)} GB/s)`);
}
const htod = bytesOf(mine.memcpys.filter((m) => m.kind === "HtoD"));
const dtoh = bytesOf(mine.memcpys.filter((m) => m.kind === "DtoH"));
const set = bytesOf(mine.memsets);
if (htod !== n * 4 || dtoh !== n * 4 || set !== n * 4) {
  throw new Error(`expected ${n * 4} bytes each of HtoD, DtoH and memset on the stream; CUPTI saw ${htod}, ${dtoh}, ${set}`);
}
for (const [a, b] of marks) {
  a.close();
  b.close();
}
console.log(
  `kernel_timings: ${mine.kernels.length} kernels, ${mine.memcpys.length} memcpys, ${mine.memsets.length} memset timed by CUPTI on ${dev.name}; spin kernels within ${(worst / 1e3).toFixed(1)} µs of event timings OK`,
);
