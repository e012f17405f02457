/**
 * foreign_interop: cuda_core's pytorch_example (with strided_memory_view_gpu's foreign buffers) made TypeScript-
 * native: instead of PyTorch tensors and PyTorch's stream, memory and a stream that "another library" made with the
 * raw driver API. Its stream is wrapped with `Stream.fromHandle` (borrowed, as cuda.core wraps `__cuda_stream__`),
 * its arrays are taken in through the CUDA Array Interface (the consumer's stream waits for the producer's, as the
 * interface asks) and through DLPack, without copies, and a templated SAXPY (`a` passed as a pointer, as in the
 * original) runs in single precision on our stream and in double precision on the foreign one. Checked on the CPU.
 *
 *   bun examples/foreign_interop.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/foreign_interop.ts
 */
import { Device, DeviceArray, LaunchConfig, Program, Stream, launch } from "../src/index.ts";
import { fromCudaArrayInterface, fromDLPack, toDLPack } from "../src/interop.ts";
import { ffi } from "../src/ffi/index.ts";
import { driver } from "../src/bindings/driver-entry.ts";
import { CUstream_flags, type CUdeviceptr } from "../src/bindings/driver-types.ts";

const source = `
template <typename T>
__global__ void saxpy_kernel(const T* a, const T* x, const T* y, T* out, size_t N) {
  const unsigned int tid = threadIdx.x + blockIdx.x * blockDim.x;
  if (tid < N) out[tid] = (*a) * x[tid] + y[tid];
}`;

const dev = new Device(0);
dev.setCurrent();
const code = new Program(source, "c++", { arch: `sm_${dev.arch}`, std: "c++17" }).compile("cubin", {
  nameExpressions: ["saxpy_kernel<float>", "saxpy_kernel<double>"],
});

// The other library: a stream and device memory of its own, made with the raw driver API.
const foreignHandle = driver.cuStreamCreate(CUstream_flags.CU_STREAM_NON_BLOCKING);
const foreign = Stream.fromHandle(foreignHandle); // borrowed: closing it would not destroy the library's stream
using ours = dev.createStream();

let seed = 7;
const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);

/** What the other library exports: an array in its memory, filled on its stream, described as CUDA Array Interface v3. */
function foreignArray(values: Float32Array | Float64Array): { ptr: CUdeviceptr; interface: Record<string, unknown> } {
  const ptr = driver.cuMemAlloc(values.byteLength);
  driver.cuMemcpyHtoDAsync(ptr, values, values.byteLength, foreignHandle);
  const typestr = values instanceof Float32Array ? "<f4" : "<f8";
  return {
    ptr,
    interface: { shape: [values.length], typestr, data: [ptr, false], version: 3, strides: null, descr: [["", typestr]], stream: ffi.addressOf(foreignHandle) },
  };
}

const results: string[] = [];
for (const precision of ["float", "double"] as const) {
  const size = precision === "float" ? 64 : 128;
  const block = precision === "float" ? 32 : 64;
  const scalar = precision === "float" ? 10 : 42;
  const host = (): Float32Array | Float64Array => (precision === "float" ? new Float32Array(size) : new Float64Array(size)).map(rand);
  const hx = host();
  const hy = host();
  const fx = foreignArray(hx);
  const fy = foreignArray(hy);
  // Our stream runs the kernel in single precision; the double-precision run goes on the library's own stream.
  const stream = precision === "float" ? ours : foreign;
  using x = fromCudaArrayInterface(fx.interface, { stream });
  using y = fromCudaArrayInterface(fy.interface, { stream });
  using a = DeviceArray.from(precision === "float" ? Float32Array.of(scalar) : Float64Array.of(scalar), { stream });
  using out = DeviceArray.zeros(size, precision === "float" ? "float32" : "float64", { stream });
  using outView = fromDLPack(toDLPack(out)); // the same memory, through DLPack
  const config = new LaunchConfig({ grid: Math.ceil(size / block), block });
  launch(stream, config, code.getKernel(`saxpy_kernel<${precision}>`), a, x, y, outView, size);
  const got = await out.toTypedArray({ stream });
  driver.cuStreamSynchronize(foreignHandle);
  for (let i = 0; i < size; i++) {
    const want = scalar * hx[i]! + hy[i]!;
    if (!(Math.abs(got[i]! - want) <= 1e-6 * Math.abs(want))) throw new Error(`foreign_interop: ${precision} out[${i}] = ${got[i]}, expected ${want}`);
  }
  x.close();
  y.close();
  driver.cuMemFree(fx.ptr);
  driver.cuMemFree(fy.ptr);
  results.push(`${precision} (${size} elements on ${stream === foreign ? "the library's stream" : "our stream"})`);
}
foreign.close();
driver.cuStreamDestroy(foreignHandle);
console.log(`foreign_interop: SAXPY over another library's memory and stream (CUDA Array Interface, DLPack, Stream.fromHandle) in ${results.join(" and ")} on ${dev.name}: OK`);
