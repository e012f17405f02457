/**
 * CuPy's user guide, "Basics of CuPy" and "User-Defined Kernels", ported line by line: arrays made from host data,
 * a norm, data moved both ways, a function written once with array functions (softplus), an elementwise kernel
 * broadcasting a row and a scalar, a reduction kernel along an axis, and a raw kernel. Each result is checked on the
 * host.
 *
 *   npx bun examples/cupy_user_guide.ts
 *   npx deno run --allow-ffi --allow-env --allow-read examples/cupy_user_guide.ts
 *
 * @module
 */
import { Device, LaunchConfig, Program, launch } from "../src/index.ts";
import * as ca from "../src/array.ts";
import { ElementwiseKernel, ReductionKernel } from "../src/kernels.ts";

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const so = { stream };

function check(what: string, got: ArrayLike<number>, want: ArrayLike<number>, tolerance = 1e-5): void {
  if (got.length !== want.length) throw new Error(`${what}: ${got.length} values, expected ${want.length}`);
  for (let i = 0; i < want.length; i++) {
    if (Math.abs(got[i]! - want[i]!) > tolerance * Math.max(1, Math.abs(want[i]!))) throw new Error(`${what}: [${i}] is ${got[i]}, expected ${want[i]}`);
  }
}

// ---- Basics: x_gpu = cp.array([1, 2, 3]); l2_gpu = cp.linalg.norm(x_gpu) ----
using xGpu = ca.array([1, 2, 3], so);
using l2Gpu = ca.norm(xGpu);
check("norm", [Number(await l2Gpu.item())], [Math.sqrt(14)]);

// ---- Data transfer: x_gpu = cp.asarray(x_cpu); x_cpu = cp.asnumpy(x_gpu) ----
const xCpu = new Float64Array([1, 2, 3]);
using moved = ca.asarray(xCpu, so);
const back = (await moved.toTypedArray()) as Float64Array;
check("round trip", back, xCpu);

// ---- CPU/GPU-agnostic code: softplus(x) = maximum(0, x) + log1p(exp(-|x|)) ----
function softplus(x: ca.DeviceArray): ca.DeviceArray {
  return ca.maximum(x, 0).add(ca.log1p(ca.exp(ca.abs(x).neg())));
}
using sp = softplus(ca.linspace(-3, 3, 7, so));
check(
  "softplus",
  (await sp.toTypedArray()) as Float64Array,
  [-3, -2, -1, 0, 1, 2, 3].map((v) => Math.log1p(Math.exp(v))),
  1e-12,
);

// ---- Elementwise kernels: squared_diff(x, y) with y broadcast over the rows, then with a scalar ----
const squaredDiff = new ElementwiseKernel("float32 x, float32 y", "float32 z", "z = (x - y) * (x - y)", "squared_diff");
using x = ca.arange(10, { stream, dtype: "float32" }).reshape(2, 5);
using y = ca.arange(5, { stream, dtype: "float32" });
using d1 = squaredDiff.launch(stream, x, y) as ca.DeviceArray;
check("squared_diff(x, y)", (await d1.toTypedArray()) as Float32Array, [0, 0, 0, 0, 0, 25, 25, 25, 25, 25]);
using d2 = squaredDiff.launch(stream, x, 5) as ca.DeviceArray;
check("squared_diff(x, 5)", (await d2.toTypedArray()) as Float32Array, [25, 16, 9, 4, 1, 0, 1, 4, 9, 16]);

// ---- Reduction kernels: l2norm along axis 1 ----
const l2norm = new ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
using norms = l2norm.launch(stream, x, { axis: 1 }) as ca.DeviceArray;
check("l2norm(x, axis=1)", (await norms.toTypedArray()) as Float32Array, [Math.sqrt(30), Math.sqrt(255)]);

// ---- Raw kernels: my_add over 5 x 5 float32 ----
const myAdd = new Program(
  `extern "C" __global__ void my_add(const float* x1, const float* x2, float* y) {
  int tid = blockDim.x * blockIdx.x + threadIdx.x;
  y[tid] = x1[tid] + x2[tid];
}`,
  "c++",
  { arch: `sm_${dev.arch}` },
)
  .compile("cubin")
  .getKernel("my_add");
using x1 = ca.arange(25, { stream, dtype: "float32" }).reshape(5, 5);
using x2 = ca.arange(25, { stream, dtype: "float32" }).reshape(5, 5);
using sum = ca.zeros([5, 5], { stream, dtype: "float32" });
launch(stream, new LaunchConfig({ grid: 5, block: 5 }), myAdd, x1, x2, sum);
check(
  "my_add",
  (await sum.toTypedArray()) as Float32Array,
  Array.from({ length: 25 }, (_, i) => 2 * i),
);

console.log(`cupy_user_guide: norm, transfers, softplus, squared_diff, l2norm and my_add checked on ${dev.name} OK`);
