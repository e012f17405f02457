/**
 * cuda_graphs: capture three kernel launches (add, multiply, subtract) into a CUDA graph once, replay the graph
 * several times with one call each, and check the result against the same work done on the CPU.
 *
 *   bun examples/cuda_graphs.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/cuda_graphs.ts
 */
import { Device, LaunchConfig, Program, launch } from "../src/index.ts";

const source = `
template <typename T> __global__ void add(T* x, T v, size_t n) {
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] += v;
}
template <typename T> __global__ void multiply(T* x, T v, size_t n) {
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] *= v;
}
template <typename T> __global__ void subtract(T* x, T v, size_t n) {
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] -= v;
}`;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();

const names = ["add<float>", "multiply<float>", "subtract<float>"];
const code = new Program(source, "c++", { arch: `sm_${dev.arch}`, std: "c++17" }).compile("cubin", { nameExpressions: names });
const [add, multiply, subtract] = names.map((name) => code.getKernel(name)) as [ReturnType<typeof code.getKernel>, ReturnType<typeof code.getKernel>, ReturnType<typeof code.getKernel>];

const n = 1 << 20;
const host = new Float32Array(new ArrayBuffer(n * 4)).map((_, i) => i % 1000);
using x = dev.allocate(n * 4, { stream });
x.copyFrom(host, { stream });

// Capture: nothing runs yet; the three launches become the graph's nodes. Plain numbers take the kernels'
// parameter types (float, size_t), recovered from their mangled names.
const config = new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 });
using builder = dev.createGraphBuilder().beginBuilding();
launch(builder, config, add, x, 1, n);
launch(builder, config, multiply, x, 2, n);
launch(builder, config, subtract, x, 3, n);
using graph = builder.endBuilding().complete();

// Replay: one call queues all three kernels.
const replays = 5;
graph.upload(stream);
const start = performance.now();
for (let r = 0; r < replays; r++) graph.launch(stream);
const result = new Float32Array(new ArrayBuffer(n * 4));
x.copyTo(result, { stream });
await stream.done();
const ms = performance.now() - start;

// Each replay maps v to (v + 1) * 2 - 3 = 2v - 1.
for (let i = 0; i < n; i++) {
  let v = host[i]!;
  for (let r = 0; r < replays; r++) v = (v + 1) * 2 - 3;
  if (result[i] !== v) throw new Error(`x[${i}] = ${result[i]} after ${replays} replays, expected ${v}`);
}
console.log(`cuda_graphs: ${replays} replays of a 3-kernel graph over ${n} floats on ${dev.name} in ${ms.toFixed(2)} ms: OK`);
