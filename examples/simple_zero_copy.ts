/**
 * simple_zero_copy: the CUDA sample simpleZeroCopy (as cuda_bindings' port): a kernel adds two vectors that live in
 * page-locked host memory, read and written by the GPU over the bus without any copy (zero copy). The host memory is
 * allocated with cuMemHostAlloc(DEVICEMAP) through the raw driver binding, its device address taken with
 * cuMemHostGetDevicePointer, and the host reads the result through a typed array over the same memory.
 *
 *   bun examples/simple_zero_copy.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/simple_zero_copy.ts
 */
import { Buffer, Device, LaunchConfig, Program, launch } from "../src/index.ts";
import { ffi } from "../src/ffi/index.ts";
import { driver } from "../src/bindings/driver-entry.ts";
import { CU_MEMHOSTALLOC_DEVICEMAP, CU_MEMHOSTALLOC_PORTABLE } from "../src/bindings/driver-types.ts";

const source = `
__global__ void vectorAddGPU(const float* a, const float* b, float* c, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) c[idx] = a[idx] + b[idx];
}`;

const dev = new Device(0);
dev.setCurrent();
if (dev.properties.canMapHostMemory === 0) throw new Error(`simple_zero_copy: ${dev.name} cannot map host memory`);
using stream = dev.createStream();
const kernel = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin", { nameExpressions: ["vectorAddGPU"] }).getKernel("vectorAddGPU");

const n = 1 << 20;
const bytes = n * 4;
const flags = CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE;

/** Page-locked, mapped host memory: a typed array for the host, a Buffer (its device address) for kernels. */
function mapped(): { host: Float32Array; device: Buffer; free: () => void } {
  const pointer = driver.cuMemHostAlloc(bytes, flags);
  if (pointer === null) throw new Error("simple_zero_copy: cuMemHostAlloc returned NULL");
  const host = new Float32Array(ffi.view(pointer, bytes));
  const device = Buffer.fromHandle(driver.cuMemHostGetDevicePointer(pointer, 0), bytes);
  return { host, device, free: () => driver.cuMemFreeHost(pointer) };
}

const a = mapped();
const b = mapped();
const c = mapped();
for (let i = 0; i < n; i++) {
  a.host[i] = i / 3;
  b.host[i] = (n - i) / 7;
}
launch(stream, new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 }), kernel, a.device, b.device, c.device, n);
await stream.done();

let errorNorm = 0;
let refNorm = 0;
for (let i = 0; i < n; i++) {
  const ref = Math.fround(a.host[i]! + b.host[i]!);
  errorNorm += (c.host[i]! - ref) ** 2;
  refNorm += ref * ref;
}
const relative = Math.sqrt(errorNorm) / Math.sqrt(refNorm);
for (const m of [a, b, c]) {
  m.device.close();
  m.free();
}
if (!(relative < 1e-6)) throw new Error(`simple_zero_copy: relative error ${relative}`);
console.log(`simple_zero_copy: ${n} floats added by the GPU in mapped host memory, no copies (relative error ${relative.toExponential(1)}) on ${dev.name}: OK`);
