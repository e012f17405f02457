/**
 * compile_in_worker: compile off the event loop, and use the GPU from Workers.
 *
 * 1. `program.compileAsync()` runs NVRTC in a compile worker while this thread keeps serving timers; three kernels
 *    compile at once, come back as ObjectCodes (code moved, not copied), and run here.
 * 2. A WorkerPool of GPU workers (examples/workers/gpu_worker.ts): each Worker has its own bindings and shares the
 *    device's primary context with this thread; four of them compile and launch kernels at the same time.
 *
 *   bun examples/compile_in_worker.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/compile_in_worker.ts
 */
import { Device, LaunchConfig, Program, launch, u64 } from "../src/index.ts";
import { WorkerPool, closeCompileWorkers, configureCompileWorkers } from "../src/workers.ts";
import { ffi } from "../src/ffi/index.ts";
import type { GpuJob, GpuJobResult } from "./workers/gpu_worker.ts";

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const arch = `sm_${dev.arch}`;

// 1. Three kernels compiled at once in compile workers, while a timer ticks on this thread.
configureCompileWorkers({ size: 3 });
const ops: [string, string, (i: number) => number][] = [
  ["fill_square", "x[i] = (float)(i * i % 1000)", (i) => (i * i) % 1000],
  ["fill_half", "x[i] = i * 0.5f", (i) => i * 0.5],
  ["fill_neg", "x[i] = -(float)i", (i) => -i],
];
let ticks = 0;
const ticker = setInterval(() => ticks++, 1);
const codes = await Promise.all(
  ops.map(([name, body]) => {
    const src = `extern "C" __global__ void ${name}(float* x, size_t n) { size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; if (i < n) ${body}; }`;
    const program = new Program(src, "c++", { arch, name: `${name}.cu` });
    return program.compileAsync("cubin").finally(() => program.close());
  }),
);
clearInterval(ticker);
closeCompileWorkers();

const n = 1 << 16;
for (const [k, [name, , expected]] of ops.entries()) {
  using buf = dev.allocate(n * 4, { stream });
  launch(stream, new LaunchConfig({ grid: n / 256, block: 256 }), codes[k]!.getKernel(name), buf, u64(n));
  const out = new Float32Array(n);
  buf.copyTo(out, { stream });
  await stream.done();
  for (let i = 0; i < n; i++) if (out[i] !== Math.fround(expected(i))) throw new Error(`${name}: x[${i}] = ${out[i]}, expected ${expected(i)}`);
  codes[k]!.close();
}

// 2. Four GPU workers, eight jobs: each compiles its own kernel and runs it on its own stream.
using pool = new WorkerPool<GpuJob, GpuJobResult>(new URL(import.meta.url.endsWith(".ts") ? "./workers/gpu_worker.ts" : "./workers/gpu_worker.js", import.meta.url), { size: 4 });
const jobs = Array.from({ length: 8 }, (_, tag) => pool.run({ n: 1 << 18, a: 2, tag }));
const results = await Promise.all(jobs);
const bad = results.reduce((s, r) => s + r.mismatches, 0);
if (bad > 0) throw new Error(`GPU workers: ${bad} wrong elements`);
const here = ffi.addressOf(dev.context.handle);
if (!results.every((r) => r.context === here)) throw new Error("a GPU worker ran in another context than the device's primary context");

console.log(
  `compile_in_worker: ${ops.length} kernels compiled in workers (${ticks > 0 ? "timers ran meanwhile" : "no timer ran"}) and ${results.length} jobs on ` +
    `${pool.size} GPU workers sharing the primary context on ${dev.name} OK`,
);
