/**
 * iso_fd_modelling: cuda_bindings' isoFDModelling sample, on one GPU: an acoustic wave in a 3D isotropic medium,
 * modelled by finite differences (8th order in space, 2nd order in time) from a Ricker wavelet source at the centre
 * of the volume. The sample splits the volume over several GPUs and exchanges halos; this port runs the same stencil
 * on one device (the halo exchange is what simple_multi_gpu.ts shows) and checks the wavefield, step by step the same
 * computation, against the CPU.
 *
 *   bun examples/iso_fd_modelling.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/iso_fd_modelling.ts
 */
import { Device, DeviceArray, LaunchConfig, Program, launch } from "../src/index.ts";

const R = 4; // stencil radius
const C = [-205 / 72, 8 / 5, -1 / 5, 8 / 315, -1 / 560]; // 8th-order second-derivative coefficients
const source = `
#define R ${R}
__constant__ float c[R + 1] = {${C.map((v) => `${v}f`).join(", ")}};
// u_prev becomes u_next: 2 u - u_prev + (v dt / h)^2 * laplacian(u), plus the source at its point.
__global__ void fdStep(float* __restrict__ uPrev, const float* __restrict__ u, int nx, int ny, int nz, float courant2, int srcIndex, float srcValue) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int z = blockIdx.z;
  if (x < R || x >= nx - R || y < R || y >= ny - R || z < R || z >= nz - R) return;
  const long sy = nx, sz = (long)nx * ny;
  const long i = z * sz + y * sy + x;
  float lap = 3.0f * c[0] * u[i];
  for (int k = 1; k <= R; k++) lap += c[k] * (u[i - k] + u[i + k] + u[i - k * sy] + u[i + k * sy] + u[i - k * sz] + u[i + k * sz]);
  float next = 2.0f * u[i] - uPrev[i] + courant2 * lap;
  if (i == srcIndex) next += srcValue;
  uPrev[i] = next;
}`;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const kernel = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin", { nameExpressions: ["fdStep"] }).getKernel("fdStep");

const nx = 64;
const ny = 64;
const nz = 64;
const steps = 40;
const velocity = 1500; // m/s
const h = 10; // m
const dt = 1e-3; // s
const courant2 = Math.fround((velocity * dt / h) ** 2);
const f0 = 25; // Hz, the Ricker wavelet's peak frequency
const ricker = (t: number) => {
  const a = (Math.PI * f0 * (t - 1 / f0)) ** 2;
  return Math.fround((1 - 2 * a) * Math.exp(-a));
};
const srcIndex = (nz / 2) * nx * ny + (ny / 2) * nx + nx / 2;
const size = nx * ny * nz;

// GPU: two wavefields, the older overwritten by the newer at each step.
using gA = DeviceArray.zeros(size, "float32", { stream });
using gB = DeviceArray.zeros(size, "float32", { stream });
const config = new LaunchConfig({ grid: [nx / 16, ny / 16, nz], block: [16, 16, 1] });
let [gPrev, gCur] = [gA, gB];
for (let s = 0; s < steps; s++) {
  launch(stream, config, kernel, gPrev, gCur, nx, ny, nz, courant2, srcIndex, ricker(s * dt));
  [gPrev, gCur] = [gCur, gPrev];
}
const gpu = await gCur.toTypedArray({ stream });

// CPU: the same steps in single precision storage.
const c32 = C.map(Math.fround);
let prev = new Float32Array(size);
let cur = new Float32Array(size);
const sy = nx;
const sz = nx * ny;
for (let s = 0; s < steps; s++) {
  const src = ricker(s * dt);
  for (let z = R; z < nz - R; z++) {
    for (let y = R; y < ny - R; y++) {
      for (let x = R; x < nx - R; x++) {
        const i = z * sz + y * sy + x;
        let lap = 3 * c32[0]! * cur[i]!;
        for (let k = 1; k <= R; k++) lap += c32[k]! * (cur[i - k]! + cur[i + k]! + cur[i - k * sy]! + cur[i + k * sy]! + cur[i - k * sz]! + cur[i + k * sz]!);
        let next = 2 * cur[i]! - prev[i]! + courant2 * lap;
        if (i === srcIndex) next += src;
        prev[i] = next;
      }
    }
  }
  [prev, cur] = [cur, prev];
}

let peak = 0;
let worst = 0;
for (let i = 0; i < size; i++) {
  peak = Math.max(peak, Math.abs(cur[i]!));
  worst = Math.max(worst, Math.abs(gpu[i]! - cur[i]!));
}
if (!(peak > 0)) throw new Error("iso_fd_modelling: the wavefield is empty");
if (!(worst <= 1e-3 * peak)) throw new Error(`iso_fd_modelling: the GPU's wavefield differs from the CPU's by up to ${worst} (peak ${peak})`);
console.log(
  `iso_fd_modelling: ${steps} steps of an 8th-order 3D stencil over ${nx}x${ny}x${nz} points (peak ${peak.toExponential(2)}, largest difference from the CPU ${worst.toExponential(1)}) on ${dev.name}: OK`,
);
