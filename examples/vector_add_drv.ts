/**
 * vector_add_drv: the CUDA sample vectorAddDrv (as cuda_bindings' port), written against the raw driver and NVRTC
 * bindings: cuInit, the primary context, NVRTC to a cubin, cuModuleLoadData, cuMemAlloc, cuMemcpyHtoD,
 * cuLaunchKernel with a kernelParams array, cuMemcpyDtoH, and the result checked against the CPU.
 *
 *   bun examples/vector_add_drv.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/vector_add_drv.ts
 */
import { ffi, Scratch } from "../src/ffi/index.ts";
import { driver } from "../src/bindings/driver-entry.ts";
import { CUdevice_attribute } from "../src/bindings/driver-types.ts";
import { nvrtc } from "../src/bindings/nvrtc.ts";

const source = `
extern "C" __global__ void VecAdd_kernel(const float* A, const float* B, float* C, int N) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}`;

driver.cuInit(0);
const device = driver.cuDeviceGet(0);
const name = driver.cuDeviceGetName(256, device);
const major = driver.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
const minor = driver.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
const context = driver.cuDevicePrimaryCtxRetain(device);
driver.cuCtxSetCurrent(context);

// NVRTC: source → cubin for this GPU.
const program = nvrtc.nvrtcCreateProgram(source, "vector_add_drv.cu", 0, null, null);
const options = [`-arch=sm_${major}${minor}`];
nvrtc.nvrtcCompileProgram(program, options.length, options);
const cubin = new Uint8Array(new ArrayBuffer(Number(nvrtc.nvrtcGetCUBINSize(program))));
nvrtc.nvrtcGetCUBIN(program, cubin);
nvrtc.nvrtcDestroyProgram(program);

const module = driver.cuModuleLoadData(cubin);
const kernel = driver.cuModuleGetFunction(module, "VecAdd_kernel");

const n = 50_000;
const bytes = n * 4;
const a = new Float32Array(new ArrayBuffer(bytes)).map(() => Math.random());
const b = new Float32Array(new ArrayBuffer(bytes)).map(() => Math.random());
const dA = driver.cuMemAlloc(bytes);
const dB = driver.cuMemAlloc(bytes);
const dC = driver.cuMemAlloc(bytes);
driver.cuMemcpyHtoD(dA, a, bytes);
driver.cuMemcpyHtoD(dB, b, bytes);

// kernelParams: a void*[4] whose entries point at the four argument values.
const values = new Scratch(32);
values.dv.setBigUint64(0, dA, true);
values.dv.setBigUint64(8, dB, true);
values.dv.setBigUint64(16, dC, true);
values.dv.setInt32(24, n, true);
const params = new Scratch(32);
[0, 8, 16, 24].forEach((offset, i) => ffi.writePointer(params.dv, i * 8, values.pointerAt(offset)));
const threads = 256;
const blocks = Math.ceil(n / threads);
driver.cuLaunchKernel(kernel, blocks, 1, 1, threads, 1, 1, 0, null, params.pointer, null);
driver.cuCtxSynchronize();

const c = new Float32Array(new ArrayBuffer(bytes));
driver.cuMemcpyDtoH(c, dC, bytes);
for (let i = 0; i < n; i++) {
  const want = Math.fround(a[i]! + b[i]!);
  if (c[i] !== want) throw new Error(`vector_add_drv: C[${i}] = ${c[i]}, expected ${want}`);
}
for (const d of [dA, dB, dC]) driver.cuMemFree(d);
driver.cuModuleUnload(module);
driver.cuDevicePrimaryCtxRelease(device);
console.log(`vector_add_drv: ${n} floats added by ${blocks} blocks of ${threads} threads through the raw driver API on ${name}: OK`);
