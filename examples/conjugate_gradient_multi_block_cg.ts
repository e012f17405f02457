/**
 * conjugate_gradient_multi_block_cg: the CUDA sample conjugateGradientMultiBlockCG (as cuda_bindings' port): the
 * conjugate gradient method solving A x = b for a random symmetric, diagonally dominant tridiagonal matrix in CSR
 * form, entirely inside one cooperative kernel: every block of the grid works on every step, and the steps are
 * separated by grid-wide synchronisation (cooperative groups' `grid.sync()`, a cooperative launch). Dot products
 * accumulate in double precision. The solution's residual is checked on the CPU.
 *
 *   bun examples/conjugate_gradient_multi_block_cg.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/conjugate_gradient_multi_block_cg.ts
 */
import { Device, DeviceArray, LaunchConfig, Program, launch } from "../src/index.ts";
import { findNvidiaHeaderDirectory } from "../src/pathfinder/index.ts";

const THREADS = 256;
const source = `
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ void spmv(const int* I, const int* J, const float* val, int N, float alpha, const float* x, float* out, const cg::grid_group& grid) {
  for (int i = grid.thread_rank(); i < N; i += grid.size()) {
    float sum = 0.0f;
    for (int k = I[i]; k < I[i + 1]; k++) sum += val[k] * x[J[k]];
    out[i] = alpha * sum;
  }
}

__device__ void saxpy(float a, const float* x, float* y, int N, const cg::grid_group& grid) {
  for (int i = grid.thread_rank(); i < N; i += grid.size()) y[i] = a * x[i] + y[i];
}

// Adds this block's share of a.b to *result (double precision).
__device__ void dot(const float* a, const float* b, double* result, int N, const cg::grid_group& grid) {
  __shared__ double partial[${THREADS}];
  double sum = 0.0;
  for (int i = grid.thread_rank(); i < N; i += grid.size()) sum += (double)a[i] * (double)b[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(result, partial[0]);
}

__global__ void gpuConjugateGradient(const int* I, const int* J, const float* val, float* x, float* Ax, float* p, float* r,
                                     double* dot_result, int N, float tol, int max_iter, int* iterations, double* residual) {
  cg::grid_group grid = cg::this_grid();
  // r = b - A x (x starts at 0, r holds b)
  spmv(I, J, val, N, 1.0f, x, Ax, grid);
  saxpy(-1.0f, Ax, r, N, grid);
  dot(r, r, dot_result, N, grid);
  grid.sync();
  double r1 = *dot_result, r0 = 0.0;
  int k = 1;
  while (r1 > (double)tol * tol && k <= max_iter) {
    if (k > 1) {
      const float b = (float)(r1 / r0);
      for (int i = grid.thread_rank(); i < N; i += grid.size()) p[i] = r[i] + b * p[i];
    } else {
      for (int i = grid.thread_rank(); i < N; i += grid.size()) p[i] = r[i];
    }
    grid.sync();
    spmv(I, J, val, N, 1.0f, p, Ax, grid);
    if (grid.thread_rank() == 0) *dot_result = 0.0;
    grid.sync();
    dot(p, Ax, dot_result, N, grid);
    grid.sync();
    const float a = (float)(r1 / *dot_result);
    saxpy(a, p, x, N, grid);
    saxpy(-a, Ax, r, N, grid);
    r0 = r1;
    grid.sync();
    if (grid.thread_rank() == 0) *dot_result = 0.0;
    grid.sync();
    dot(r, r, dot_result, N, grid);
    grid.sync();
    r1 = *dot_result;
    k++;
  }
  if (grid.thread_rank() == 0) {
    *iterations = k - 1;
    *residual = sqrt(r1);
  }
}`;

const dev = new Device(0);
dev.setCurrent();
if (dev.properties.cooperativeLaunch === 0) throw new Error(`conjugate_gradient_multi_block_cg: ${dev.name} cannot launch cooperative kernels`);
using stream = dev.createStream();
const includePath = [...new Set([findNvidiaHeaderDirectory("cudart").path, findNvidiaHeaderDirectory("cccl").path])];
const kernel = new Program(source, "c++", { arch: `sm_${dev.arch}`, std: "c++17", includePath })
  .compile("cubin", { nameExpressions: ["gpuConjugateGradient"] })
  .getKernel("gpuConjugateGradient");

// A random tridiagonal matrix, symmetric and diagonally dominant (so positive definite), as the sample's genTridiag.
const N = 1 << 20;
const nz = (N - 2) * 3 + 4;
const I = new Int32Array(N + 1);
const J = new Int32Array(nz);
const val = new Float32Array(nz);
let seed = 12345;
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
I[0] = 0;
J[0] = 0;
J[1] = 1;
val[0] = rand() + 10;
val[1] = rand();
for (let i = 1; i < N; i++) {
  I[i] = i > 1 ? I[i - 1]! + 3 : 2;
  const start = (i - 1) * 3 + 2;
  J[start] = i - 1;
  J[start + 1] = i;
  if (i < N - 1) J[start + 2] = i + 1;
  val[start] = val[start - 1]!;
  val[start + 1] = rand() + 10;
  if (i < N - 1) val[start + 2] = rand();
}
I[N] = nz;
const rhs = new Float32Array(N).fill(1);

using dI = DeviceArray.from(I, { stream });
using dJ = DeviceArray.from(J, { stream });
using dVal = DeviceArray.from(val, { stream });
using dX = DeviceArray.zeros(N, "float32", { stream });
using dAx = DeviceArray.zeros(N, "float32", { stream });
using dP = DeviceArray.zeros(N, "float32", { stream });
using dR = DeviceArray.from(rhs, { stream });
using dDot = DeviceArray.zeros(1, "float64", { stream });
using dIterations = DeviceArray.zeros(1, "int32", { stream });
using dResidual = DeviceArray.zeros(1, "float64", { stream });

// Every block must be resident at once for grid.sync(): as many blocks as fit on the device together.
const perSm = kernel.occupancy(dev).maxActiveBlocksPerMultiprocessor(THREADS, 0);
if (perSm < 1) throw new Error("conjugate_gradient_multi_block_cg: the kernel cannot be resident on a multiprocessor");
const blocks = perSm * dev.properties.multiprocessorCount;
const tol = 1e-5;
const maxIter = 10_000;
const config = new LaunchConfig({ grid: blocks, block: THREADS, cooperative: true });
const start = performance.now();
launch(stream, config, kernel, dI, dJ, dVal, dX, dAx, dP, dR, dDot, N, tol, maxIter, dIterations, dResidual);
const x = await dX.toTypedArray({ stream });
const ms = performance.now() - start;
const iterations = (await dIterations.toTypedArray({ stream }))[0]!;
const residual = (await dResidual.toTypedArray({ stream }))[0]!;

// The CPU's check: the largest |b - A x| over the rows.
let err = 0;
for (let i = 0; i < N; i++) {
  let sum = 0;
  for (let k = I[i]!; k < I[i + 1]!; k++) sum += val[k]! * x[J[k]!]!;
  err = Math.max(err, Math.abs(rhs[i]! - sum));
}
if (!(residual <= tol)) throw new Error(`conjugate_gradient_multi_block_cg: the residual is ${residual} after ${iterations} iterations, above ${tol}`);
if (!(err < 1e-4)) throw new Error(`conjugate_gradient_multi_block_cg: the CPU finds |b - Ax| up to ${err}`);
console.log(
  `conjugate_gradient_multi_block_cg: N = ${N}, ${iterations} iterations in one cooperative kernel of ${blocks} blocks (residual ${residual.toExponential(2)}, max |b - Ax| ${err.toExponential(2)}, ${ms.toFixed(1)} ms) on ${dev.name}: OK`,
);
