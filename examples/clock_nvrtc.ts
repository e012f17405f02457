/**
 * clock_nvrtc: the CUDA sample clock_nvrtc (as cuda_bindings' port): each block of a min-reduction kernel, compiled
 * with NVRTC, reads the SM's clock() when it starts and when it ends; the host averages the clocks per block. The
 * reduction's result (the minimum of 0..511 in every block) is checked, and so is every block's clock pair.
 *
 *   bun examples/clock_nvrtc.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/clock_nvrtc.ts
 */
import { Device, DeviceArray, LaunchConfig, Program, launch } from "../src/index.ts";

const source = `
__global__ void timedReduction(const float* input, float* output, long long* timer) {
  extern __shared__ float shared[];
  const int tid = threadIdx.x;
  const int bid = blockIdx.x;
  if (tid == 0) timer[bid] = clock64();
  // Copy input.
  shared[tid] = input[tid];
  shared[tid + blockDim.x] = input[tid + blockDim.x];
  // Perform reduction to find minimum.
  for (int d = blockDim.x; d > 0; d /= 2) {
    __syncthreads();
    if (tid < d) {
      float f0 = shared[tid];
      float f1 = shared[tid + d];
      if (f1 < f0) shared[tid] = f1;
    }
  }
  // Write result.
  if (tid == 0) output[bid] = shared[0];
  __syncthreads();
  if (tid == 0) timer[bid + gridDim.x] = clock64();
}`;

const NUM_BLOCKS = 64;
const NUM_THREADS = 256;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const kernel = new Program(source, "c++", { arch: `sm_${dev.arch}` })
  .compile("cubin", { nameExpressions: ["timedReduction"] })
  .getKernel("timedReduction");

const input = Float32Array.from({ length: 2 * NUM_THREADS }, (_, i) => i);
using dInput = DeviceArray.from(input, { stream });
using dOutput = DeviceArray.zeros(NUM_BLOCKS, "float32", { stream });
using dTimer = DeviceArray.zeros(2 * NUM_BLOCKS, "int64", { stream });

const config = new LaunchConfig({ grid: NUM_BLOCKS, block: NUM_THREADS, sharedMemory: 4 * 2 * NUM_THREADS });
launch(stream, config, kernel, dInput, dOutput, dTimer);
const output = await dOutput.toTypedArray({ stream });
const timer = await dTimer.toTypedArray({ stream });

for (let b = 0; b < NUM_BLOCKS; b++) {
  if (output[b] !== 0) throw new Error(`clock_nvrtc: block ${b} found the minimum ${output[b]}, expected 0`);
  if (timer[b + NUM_BLOCKS]! <= timer[b]!) throw new Error(`clock_nvrtc: block ${b} ended at clock ${timer[b + NUM_BLOCKS]}, not after its start ${timer[b]}`);
}
let clocks = 0n;
for (let b = 0; b < NUM_BLOCKS; b++) clocks += timer[b + NUM_BLOCKS]! - timer[b]!;
const average = Number(clocks) / NUM_BLOCKS;
console.log(`clock_nvrtc: ${NUM_BLOCKS} blocks of ${NUM_THREADS} threads reduced 512 floats to their minimum in ${average.toFixed(1)} clocks per block on ${dev.name}: OK`);
