/**
 * jit_program: cuda_bindings' jit_program sample: a SAXPY kernel compiled by NVRTC to PTX (not a cubin), the PTX
 * just-in-time compiled by the driver (cuModuleLoadData), launched through the raw driver API with a kernelParams
 * array, and checked against the CPU. The NVRTC and driver calls are the raw bindings, as in the sample.
 *
 *   bun examples/jit_program.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/jit_program.ts
 */
import { ffi, Scratch } from "../src/ffi/index.ts";
import { driver } from "../src/bindings/driver-entry.ts";
import { CUdevice_attribute } from "../src/bindings/driver-types.ts";
import { nvrtc } from "../src/bindings/nvrtc.ts";

const saxpy = `
extern "C" __global__ void saxpy(float a, float* x, float* y, float* out, size_t n) {
  size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n) out[tid] = a * x[tid] + y[tid];
}`;

driver.cuInit(0);
const device = driver.cuDeviceGet(0);
const major = driver.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
const minor = driver.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
const context = driver.cuDevicePrimaryCtxRetain(device);
driver.cuCtxSetCurrent(context);

// NVRTC → PTX for a virtual architecture: the driver finishes the compilation when it loads the module.
const program = nvrtc.nvrtcCreateProgram(saxpy, "saxpy.cu", 0, null, null);
const options = [`--gpu-architecture=compute_${major}${minor}`];
nvrtc.nvrtcCompileProgram(program, options.length, options);
const ptxSize = Number(nvrtc.nvrtcGetPTXSize(program));
const ptx = new Uint8Array(new ArrayBuffer(ptxSize)); // NUL-terminated text, as cuModuleLoadData wants it
nvrtc.nvrtcGetPTX(program, ptx);
nvrtc.nvrtcDestroyProgram(program);
const text = new TextDecoder().decode(ptx.subarray(0, ptxSize - 1));
if (!text.includes(".entry saxpy")) throw new Error("jit_program: the PTX has no saxpy entry");

const module = driver.cuModuleLoadData(ptx);
const kernel = driver.cuModuleGetFunction(module, "saxpy");

const threads = 512;
const blocks = 32768;
const n = threads * blocks;
const bytes = n * 4;
const a = 2.0;
const hX = new Float32Array(new ArrayBuffer(bytes)).map((_, i) => (i % 1000) / 7);
const hY = new Float32Array(new ArrayBuffer(bytes)).map((_, i) => (i % 333) / 3);
const stream = driver.cuStreamCreate(0);
const dX = driver.cuMemAlloc(bytes);
const dY = driver.cuMemAlloc(bytes);
const dOut = driver.cuMemAlloc(bytes);
driver.cuMemcpyHtoDAsync(dX, hX, bytes, stream);
driver.cuMemcpyHtoDAsync(dY, hY, bytes, stream);

// kernelParams: pointers to a (float), x, y, out (device pointers) and n (size_t).
const values = new Scratch(40);
values.dv.setFloat32(0, a, true);
values.dv.setBigUint64(8, dX, true);
values.dv.setBigUint64(16, dY, true);
values.dv.setBigUint64(24, dOut, true);
values.dv.setBigUint64(32, BigInt(n), true);
const params = new Scratch(40);
[0, 8, 16, 24, 32].forEach((offset, i) => ffi.writePointer(params.dv, i * 8, values.pointerAt(offset)));
driver.cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, stream, params.pointer, null);

const out = new Float32Array(new ArrayBuffer(bytes));
driver.cuMemcpyDtoHAsync(out, dOut, bytes, stream);
driver.cuStreamSynchronize(stream);
let worst = 0;
for (let i = 0; i < n; i++) worst = Math.max(worst, Math.abs(out[i]! - (a * hX[i]! + hY[i]!)));
if (worst > 1e-3) throw new Error(`jit_program: the largest error is ${worst}`);

driver.cuStreamDestroy(stream);
for (const d of [dX, dY, dOut]) driver.cuMemFree(d);
driver.cuModuleUnload(module);
driver.cuDevicePrimaryCtxRelease(device);
console.log(`jit_program: ${ptxSize} bytes of PTX JIT-compiled by the driver, saxpy over ${n} floats (largest error ${worst.toExponential(1)}) on ${driver.cuDeviceGetName(256, device)}: OK`);
