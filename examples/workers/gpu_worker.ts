/**
 * A GPU worker (used by examples/compile_in_worker.ts and its GPU test): each Worker running this module loads its
 * own bindings (its own FFI tables), makes device 0's primary context current (the same context as the main
 * thread's), and for each request compiles a kernel, runs it on its own stream and checks the result.
 */
import { Device, LaunchConfig, Program, f32, launch, u64 } from "../../src/index.ts";
import { serveRequests } from "../../src/workers.ts";
import { ffi } from "../../src/ffi/index.ts";

/** What the main thread asks: scale `n` floats by `a` and add `tag` (a compile-time constant of this kernel). */
export interface GpuJob {
  readonly n: number;
  readonly a: number;
  readonly tag: number;
}

/** What a worker answers. */
export interface GpuJobResult {
  /** Elements that differ from `a * i + tag`. */
  readonly mismatches: number;
  /** The address of the context the worker ran in (the device's primary context, shared with the main thread). */
  readonly context: number;
  /** The first elements of the result. */
  readonly head: Float32Array;
}

const dev = new Device(0);
dev.setCurrent();

const SOURCE = `
extern "C" __global__ void scale_add(float a, float* x, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i] + TAG;
}`;

serveRequests(async ({ n, a, tag }: GpuJob) => {
  using program = new Program(SOURCE, "c++", { arch: `sm_${dev.arch}`, defineMacro: [["TAG", `${tag}.0f`]], name: `scale_add_${tag}.cu` });
  using code = program.compile("cubin");
  const kernel = code.getKernel("scale_add");
  using stream = dev.createStream();
  const host = new Float32Array(n).map((_, i) => i);
  using buf = dev.allocate(n * 4, { stream });
  buf.copyFrom(host, { stream });
  launch(stream, new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 }), kernel, f32(a), buf, u64(n));
  buf.copyTo(host, { stream });
  await stream.done();
  let mismatches = 0;
  for (let i = 0; i < n; i++) if (host[i] !== Math.fround(Math.fround(a) * i + tag)) mismatches++;
  const head = host.slice(0, 4);
  return { result: { mismatches, context: ffi.addressOf(dev.context.handle), head }, transfer: [head.buffer] };
});
