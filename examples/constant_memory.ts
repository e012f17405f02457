/**
 * constant_memory: a `__constant__` array written from JavaScript through `getGlobal` (a DeviceArray over the
 * variable), read by a kernel that evaluates a polynomial with those coefficients, and a `__device__` counter read
 * back; checked against the CPU.
 *
 *   bun examples/constant_memory.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/constant_memory.ts
 */
import { Device, DeviceArray, LaunchConfig, Program, launch, u32 } from "../src/index.ts";

const source = `
__constant__ double coeffs[8];
__device__ unsigned int evaluated;
extern "C" __global__ void horner(const double* x, double* y, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double acc = 0.0;
  for (int k = 7; k >= 0; k--) acc = acc * x[i] + coeffs[k];
  y[i] = acc;
  atomicAdd(&evaluated, 1u);
}`;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const code = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin");

const coeffs = code.getGlobal("coeffs", { dtype: "float64" });
const counter = code.getGlobal("evaluated", { dtype: "uint32", shape: [] });
if (coeffs.shape[0] !== 8) throw new Error(`coeffs has shape [${coeffs.shape}]`);

const c = Float64Array.of(1, -0.5, 0.25, 2, 0, -1, 0.125, 0.0625);
coeffs.copyFrom(c, { stream });
counter.fill(0, { stream });

const n = 4096;
const xs = Float64Array.from({ length: n }, (_, i) => (i - n / 2) / 1024);
using x = DeviceArray.from(xs, { stream });
using y = DeviceArray.empty([n], "float64", { stream });
launch(stream, new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 }), code.getKernel("horner"), x, y, u32(n));

const got = await y.toTypedArray({ stream });
for (let i = 0; i < n; i++) {
  let acc = 0;
  for (let k = 7; k >= 0; k--) acc = acc * xs[i]! + c[k]!;
  if (Math.abs(got[i]! - acc) > 1e-12 * (1 + Math.abs(acc))) throw new Error(`y[${i}] = ${got[i]}, expected ${acc}`);
}
const [count] = await counter.toTypedArray({ stream });
if (count !== n) throw new Error(`evaluated = ${count}, expected ${n}`);
const readBack = await coeffs.toTypedArray({ stream });
if (readBack.join() !== c.join()) throw new Error(`coeffs read back as ${readBack}`);

console.log(`constant_memory: 8 __constant__ coefficients, a ${n}-point polynomial and a __device__ counter on ${dev.name} OK`);
