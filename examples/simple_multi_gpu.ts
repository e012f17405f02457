/**
 * simple_multi_gpu: compile and launch a kernel on every GPU, switching devices with `setCurrent()` (a port of
 * cuda.core's simple_multi_gpu_example.py), then gather every GPU's result on the first one (peer-to-peer where
 * the GPUs allow it, staged through host memory otherwise), add them up there, and check everything. On a
 * machine with one GPU it does all of this on that one.
 *
 *   bun examples/simple_multi_gpu.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/simple_multi_gpu.ts
 */
import {
  Device,
  LaunchConfig,
  Program,
  f32,
  launch,
  u64,
  type Buffer,
  type Kernel,
  type ObjectCode,
  type Stream,
} from "../src/index.ts";

const source = `
extern "C" __global__ void scale_add(const float* a, const float* b, float* c, float s, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) c[i] = s * a[i] + b[i];
}
extern "C" __global__ void accumulate(float* total, const float* part, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) total[i] += part[i];
}`;

const n = 1 << 20;
const bytes = n * 4;
const a = new Float32Array(n).map((_, i) => i % 1024);
const b = new Float32Array(n).fill(3);
/** What GPU k computes: (k + 1)·a + b (small integers: exact in float). */
const expected = (k: number, i: number) => (k + 1) * a[i]! + b[i]!;

interface PerDevice {
  readonly dev: Device;
  readonly stream: Stream;
  readonly kernels: { readonly scaleAdd: Kernel; readonly accumulate: Kernel };
  readonly c: Buffer;
  readonly keep: Buffer[];
}

const devices = Device.all();
if (devices.length === 0) throw new Error("simple_multi_gpu: no CUDA device");
const codeByArch = new Map<string, ObjectCode>();
const work: PerDevice[] = [];

// Launch on every GPU, one after another: make it current, compile for its architecture, allocate, launch.
for (const [k, dev] of devices.entries()) {
  dev.setCurrent();
  const stream = dev.createStream();
  let code = codeByArch.get(dev.arch);
  if (code === undefined) {
    code = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin");
    codeByArch.set(dev.arch, code);
  }
  const kernels = { scaleAdd: code.getKernel("scale_add"), accumulate: code.getKernel("accumulate") };
  const da = dev.allocate(bytes, { stream });
  const db = dev.allocate(bytes, { stream });
  const c = dev.allocate(bytes, { stream });
  da.copyFrom(a, { stream });
  db.copyFrom(b, { stream });
  const config = new LaunchConfig({ grid: dev.properties.multiprocessorCount * 4, block: 256 });
  launch(stream, config, kernels.scaleAdd, da, db, c, f32(k + 1), u64(n));
  work.push({ dev, stream, kernels, c, keep: [da, db] });
  console.log(`GPU ${dev.id} (${dev.name}, sm_${dev.arch}): launched scale_add with s = ${k + 1}`);
}

// Check each GPU's own result, switching to each device again.
for (const [k, w] of work.entries()) {
  w.dev.setCurrent();
  const host = new Float32Array(n);
  w.c.copyTo(host, { stream: w.stream });
  w.stream.sync();
  for (let i = 0; i < n; i++) {
    if (host[i] !== expected(k, i)) throw new Error(`simple_multi_gpu: GPU ${w.dev.id}: c[${i}] = ${host[i]}, expected ${expected(k, i)}`);
  }
}

// Gather every result on the first GPU and add them up there. A copy from another GPU waits for that GPU's
// stream (its kernel) and the first GPU's stream waits for the copy: `peerStream` orders both.
const first = work[0]!;
first.dev.setCurrent();
const total = first.dev.allocate(bytes, { stream: first.stream });
total.fill(0, { stream: first.stream });
const staging = first.dev.allocate(bytes, { stream: first.stream });
const config0 = new LaunchConfig({ grid: first.dev.properties.multiprocessorCount * 4, block: 256 });
for (const w of work) {
  const route = w === first ? "on the device" : first.dev.canAccessPeer(w.dev) && w.dev.canAccessPeer(first.dev) ? "peer-to-peer" : "through host memory";
  w.c.copyTo(staging, { stream: first.stream, peerStream: w.stream });
  launch(first.stream, config0, first.kernels.accumulate, total, staging, u64(n));
  console.log(`GPU ${w.dev.id} → GPU ${first.dev.id}: copied ${route}`);
}
const sum = new Float32Array(n);
total.copyTo(sum, { stream: first.stream });
await first.stream.done();
for (let i = 0; i < n; i++) {
  let want = 0;
  for (let k = 0; k < work.length; k++) want += expected(k, i);
  if (sum[i] !== want) throw new Error(`simple_multi_gpu: total[${i}] = ${sum[i]}, expected ${want}`);
}

for (const w of work) {
  w.stream.sync();
  for (const x of [...w.keep, w.c]) x.close();
}
total.close();
staging.close();
first.stream.sync();
for (const w of work) w.stream.close();
console.log(`simple_multi_gpu: ${work.length} GPU(s), ${n} elements each, results gathered on GPU ${first.dev.id}: OK`);
