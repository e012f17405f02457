/**
 * vector_add: compile a templated kernel with NVRTC, launch it on a stream, check the result.
 *
 *   bun examples/vector_add.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/vector_add.ts
 */
import { Device, LaunchConfig, Program, launch, u64 } from "../src/index.ts";

const source = `
template <typename T>
__global__ void vector_add(const T* a, const T* b, T* c, size_t n) {
  const size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}`;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();

const program = new Program(source, "c++", { arch: `sm_${dev.arch}`, std: "c++17" });
const code = program.compile("cubin", { nameExpressions: ["vector_add<float>"] });
const kernel = code.getKernel("vector_add<float>");

const n = 1 << 20;
const a = new Float32Array(n).map((_, i) => i);
const b = new Float32Array(n).map((_, i) => 2 * i);
const c = new Float32Array(n);

using da = dev.allocate(n * 4, { stream });
using db = dev.allocate(n * 4, { stream });
using dc = dev.allocate(n * 4, { stream });
da.copyFrom(a, { stream });
db.copyFrom(b, { stream });

const block = 256;
launch(stream, new LaunchConfig({ grid: Math.ceil(n / block), block }), kernel, da, db, dc, u64(n));
dc.copyTo(c, { stream });
await stream.done();

for (let i = 0; i < n; i++) {
  if (c[i] !== 3 * i) throw new Error(`c[${i}] = ${c[i]}, expected ${3 * i}`);
}
console.log(`vector_add: ${n} elements on ${dev.name} (sm_${dev.arch}) OK`);
