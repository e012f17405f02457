/**
 * global_to_shmem_async_copy: the CUDA sample globalToShmemAsyncCopy (as cuda_bindings' port): a tiled matrix
 * multiplication whose tiles travel from global to shared memory with asynchronous copies (`cp.async`, compute
 * capability 8.0+), double-buffered so that the next tile is in flight while the current one is multiplied, next to
 * the same kernel with ordinary loads. Both results checked against the CPU.
 *
 *   bun examples/global_to_shmem_async_copy.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/global_to_shmem_async_copy.ts
 */
import { Device, DeviceArray, LaunchConfig, Program, launch } from "../src/index.ts";

const TILE = 16;
const source = `
#define TILE ${TILE}
__device__ __forceinline__ void cp_async4(void* smem, const void* gmem) {
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\\n" :: "r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\\n" :: "n"(N)); }

// Two shared-memory stages: tile t+1 is copied asynchronously while tile t is multiplied.
__global__ void matrixMulAsyncCopy(float* C, const float* A, const float* B, int wA, int wB) {
  __shared__ float As[2][TILE][TILE];
  __shared__ float Bs[2][TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  const int tiles = wA / TILE;
  cp_async4(&As[0][ty][tx], &A[row * wA + tx]);
  cp_async4(&Bs[0][ty][tx], &B[ty * wB + col]);
  cp_async_commit();
  float sum = 0.0f;
  for (int t = 0; t < tiles; t++) {
    const int cur = t & 1;
    if (t + 1 < tiles) {
      cp_async4(&As[cur ^ 1][ty][tx], &A[row * wA + (t + 1) * TILE + tx]);
      cp_async4(&Bs[cur ^ 1][ty][tx], &B[((t + 1) * TILE + ty) * wB + col]);
      cp_async_commit();
      cp_async_wait<1>(); // every group but the newest has landed: tile t is in shared memory
    } else {
      cp_async_wait<0>();
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; k++) sum += As[cur][ty][k] * Bs[cur][k][tx];
    __syncthreads(); // everyone is done with this stage before it is refilled
  }
  C[row * wB + col] = sum;
}

// The same tiling with ordinary (synchronous) loads into shared memory.
__global__ void matrixMulNaive(float* C, const float* A, const float* B, int wA, int wB) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int t = 0; t < wA / TILE; t++) {
    As[ty][tx] = A[row * wA + t * TILE + tx];
    Bs[ty][tx] = B[(t * TILE + ty) * wB + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; k++) sum += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  C[row * wB + col] = sum;
}`;

const dev = new Device(0);
dev.setCurrent();
if (dev.computeCapability.major < 8) {
  console.log(`global_to_shmem_async_copy: cp.async needs compute capability 8.0 or newer; ${dev.name} is sm_${dev.arch} (skipped)`);
} else {
  using stream = dev.createStream();
  const code = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin", { nameExpressions: ["matrixMulAsyncCopy", "matrixMulNaive"] });
  const hA = 256;
  const wA = 512;
  const wB = 256;
  const a = Float32Array.from({ length: hA * wA }, (_, i) => ((i * 7) % 13) / 13 - 0.5);
  const b = Float32Array.from({ length: wA * wB }, (_, i) => ((i * 5) % 11) / 11 - 0.5);
  const reference = new Float64Array(hA * wB);
  for (let r = 0; r < hA; r++) {
    for (let k = 0; k < wA; k++) {
      const x = a[r * wA + k]!;
      for (let c = 0; c < wB; c++) reference[r * wB + c]! += x * b[k * wB + c]!;
    }
  }
  using dA = DeviceArray.from(a, { stream });
  using dB = DeviceArray.from(b, { stream });
  using dC = DeviceArray.zeros(hA * wB, "float32", { stream });
  const config = new LaunchConfig({ grid: [wB / TILE, hA / TILE], block: [TILE, TILE] });
  const results: string[] = [];
  for (const name of ["matrixMulAsyncCopy", "matrixMulNaive"]) {
    dC.fill(0, { stream });
    const start = performance.now();
    launch(stream, config, code.getKernel(name), dC, dA, dB, wA, wB);
    const c = await dC.toTypedArray({ stream });
    const ms = performance.now() - start;
    let worst = 0;
    for (let i = 0; i < c.length; i++) worst = Math.max(worst, Math.abs(c[i]! - reference[i]!));
    if (!(worst < 1e-3)) throw new Error(`global_to_shmem_async_copy: ${name} is off by up to ${worst}`);
    results.push(`${name} (max error ${worst.toExponential(1)}, ${ms.toFixed(2)} ms)`);
  }
  console.log(`global_to_shmem_async_copy: C(${hA}x${wB}) = A(${hA}x${wA}) B(${wA}x${wB}) by ${results.join(" and ")} on ${dev.name}: OK`);
}
