/**
 * nvtx_ranges: NVTX ranges, marks, a domain, categories, colours, payloads and named CUDA objects around GPU work,
 * inside a profiler capture range. Run it under Nsight Systems to see them on the timeline:
 *
 *   nsys profile -t nvtx,cuda --capture-range=cudaProfilerApi bun examples/nvtx_ranges.ts
 *   nsys stats --report nvtx_sum report1.nsys-rep
 *
 * Run alone, no tool is attached and every NVTX call is a no-op of a few nanoseconds; the example still checks its
 * GPU results.
 *
 *   bun examples/nvtx_ranges.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/nvtx_ranges.ts
 */
import { Device, LaunchConfig, Program, f32, launch, u32 } from "../src/index.ts";
import { nvtx, profiler } from "../src/profiling.ts";

const source = `
extern "C" __global__ void scale(float* x, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * x[i];
}`;

const attached = nvtx.initialize(); // attach now (the first NVTX call would); throws if the named tool is unusable
const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();

nvtx.nameCategory(1, "compute");
nvtx.nameCategory(2, "copies");
nvtx.nameCudaObject("device", dev.id, dev.name);
nvtx.nameCudaObject("stream", stream, "main stream");
const app = nvtx.domain("nvtx_ranges example");
const waiting = app.registerString("await results");

let kernel;
{
  using _ = nvtx.range("compile", { color: "orange" });
  kernel = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin").getKernel("scale");
}

const n = 1 << 20;
const steps = 5;
const host = new Float32Array(n).map((_, i) => i % 1000);
const result = new Float32Array(n);
using x = dev.allocate(n * 4, { stream });

{
  using _capture = profiler.capture(); // cuProfilerStart … cuProfilerStop: nsys --capture-range=cudaProfilerApi
  for (let step = 0; step < steps; step++) {
    using _step = nvtx.range("step", { color: "green", category: 1, payload: step });
    {
      using _up = nvtx.range("upload", { color: "blue", category: 2, payload: BigInt(n * 4) });
      x.copyFrom(host, { stream });
    }
    launch(stream, new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 }), kernel, x, f32(step + 1), u32(n));
    nvtx.mark("launched", { payload: step, payloadType: "u32" });
    {
      using _down = nvtx.range("download", { color: "blue", category: 2 });
      x.copyTo(result, { stream });
    }
    const wait = app.startRange(waiting, { payload: step }); // start/end: may span the await
    await stream.done();
    wait.end();
    for (let i = 0; i < n; i += 4099) {
      if (result[i] !== host[i]! * (step + 1)) throw new Error(`step ${step}: x[${i}] = ${result[i]}, expected ${host[i]! * (step + 1)}`);
    }
  }
}

const status = nvtx.status();
const tool = attached ? `NVTX tool attached (${status.path})` : "no NVTX tool attached (run it under nsys profile to see the ranges)";
console.log(`nvtx_ranges: ${steps} steps with ranges, marks, a domain and a capture range on ${dev.name}; ${tool} OK`);
