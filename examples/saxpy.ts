/**
 * saxpy: y = a·x + y for float and double, from one templated source, with plain numbers passed where the
 * kernel's mangled name tells their types.
 *
 *   bun examples/saxpy.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/saxpy.ts
 */
import { Device, LaunchConfig, Program, f32, launch } from "../src/index.ts";

const source = `
template <typename T>
__global__ void saxpy(const T a, const T* x, T* y, size_t n) {
  const size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (size_t i = tid; i < n; i += gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}`;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const program = new Program(source, "c++", { arch: `sm_${dev.arch}` });
const code = program.compile("cubin", { nameExpressions: ["saxpy<float>", "saxpy<double>"] });

const n = 1_000_000;
const config = new LaunchConfig({ grid: dev.properties.multiprocessorCount * 4, block: 256 });

{
  const x = new Float32Array(n).map((_, i) => i % 1000);
  const y = new Float32Array(n).fill(1);
  using dx = dev.allocate(x.byteLength, { stream });
  using dy = dev.allocate(y.byteLength, { stream });
  dx.copyFrom(x, { stream });
  dy.copyFrom(y, { stream });
  launch(stream, config, code.getKernel("saxpy<float>"), f32(2.5), dx, dy, BigInt(n));
  dy.copyTo(y, { stream });
  await stream.done();
  for (let i = 0; i < n; i++) if (y[i] !== 2.5 * (i % 1000) + 1) throw new Error(`float y[${i}] = ${y[i]}`);
}
{
  const x = new Float64Array(n).map((_, i) => i);
  const y = new Float64Array(n).fill(0.5);
  using dx = dev.allocate(x.byteLength, { stream });
  using dy = dev.allocate(y.byteLength, { stream });
  dx.copyFrom(x, { stream });
  dy.copyFrom(y, { stream });
  // A plain number: saxpy<double>'s mangled name says the first parameter is a double.
  launch(stream, config, code.getKernel("saxpy<double>"), 0.25, dx, dy, BigInt(n));
  dy.copyTo(y, { stream });
  await stream.done();
  for (let i = 0; i < n; i++) if (y[i] !== 0.25 * i + 0.5) throw new Error(`double y[${i}] = ${y[i]}`);
}
console.log(`saxpy: float and double, ${n} elements each, on ${dev.name} OK`);
