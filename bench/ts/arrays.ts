/**
 * The speed measures of typed device arrays and the kernel builders (bench/README.md, "Arrays and builders"), on
 * the runtime that runs this file, as JSON lines in the suite's format (contender `<runtime>-arrays`):
 *
 * | measure | unit | what |
 * |---|---|---|
 * | `array.saxpy.1GiB` | GB/s | z = a·x + y through ElementwiseKernel over 1 GiB float32 arrays (3 GiB moved per call), GPU time from events |
 * | `array.saxpy.1GiB.raw` | GB/s | the same saxpy written by hand (grid-stride loop) and launched with `launch`, for reference |
 * | `array.sum.1GiB` | GB/s | a float32 sum through ReductionKernel over 1 GiB, GPU time from events |
 * | `array.from.256MiB.pinned` | GB/s | `DeviceArray.from` of 256 MiB of pinned host memory (allocation included) |
 * | `array.toTypedArray.256MiB.pinned` | GB/s | `toTypedArraySync({ out })` into 256 MiB of pinned host memory |
 * | `copy.h2d.256MiB.pinned.raw`, `copy.d2h.256MiB.pinned.raw` | GB/s | cuMemcpyHtoDAsync / cuMemcpyDtoHAsync of the same memory, synchronised: the raw copy the two above are held to |
 * | `builder.firstCall` | ms | a new ElementwiseKernel's first call: NVRTC compile, load, occupancy query, launch (a fresh source each repetition) |
 * | `builder.programCacheHit` | ms | a new ElementwiseKernel of a source compiled before: the program cache answers, no NVRTC call |
 * | `builder.cachedCall` | ns | a call of a builder that holds its instantiation (CPU cost: binding, output allocation, launch) |
 *
 *   bun bench/ts/arrays.ts              (or: deno run -A bench/ts/arrays.ts)
 *
 * @module
 */
import {
  Device,
  DeviceArray,
  LaunchConfig,
  PinnedMemoryResource,
  Program,
  launch,
  u64,
  type Stream,
} from "../../src/index.ts";
import { ElementwiseKernel, ReductionKernel, builderStats } from "../../src/kernels.ts";
import { driver } from "../../src/bindings/driver-entry.ts";
import { ffi } from "../../src/ffi/index.ts";
import type { CUdeviceptr } from "../../src/bindings/driver.ts";
import { measure, note, now, skip, type Rep } from "./harness.ts";

const GiB = 2 ** 30;
const MiB = 2 ** 20;
const rt = ffi.runtime;
const C = `${rt}-arrays`;

const dev = new Device(0);
dev.setCurrent();
const stream: Stream = dev.createStream();
const so = { stream };
note(`${C} on ${dev.name}: HBM peak is the device's (memoryClockRate × 2 × busWidth): ${((dev.properties.memoryClockRate * 1e3 * 2 * dev.properties.globalMemoryBusWidth) / 8 / 1e9).toFixed(0)} GB/s`);

/** A repetition timed by events on the stream (GPU time), `m` calls of `one`. */
function gpuRep(one: () => void): Rep {
  const start = dev.createEvent({ timing: true });
  const end = dev.createEvent({ timing: true });
  return (m) => {
    stream.record(start);
    for (let i = 0; i < m; i++) one();
    stream.record(end);
    end.sync();
    return end.since(start);
  };
}

// ---- saxpy and sum over 1 GiB ----
const n = GiB / 4;
let x: DeviceArray<"float32"> | undefined;
let y: DeviceArray<"float32"> | undefined;
try {
  x = DeviceArray.full([n], 1, "float32", so);
  y = DeviceArray.full([n], 2, "float32", so);
  stream.sync();
} catch (e) {
  skip(C, "array.saxpy.1GiB", `allocating 2 GiB failed: ${String(e)}`);
}
if (x !== undefined && y !== undefined) {
  const xs = x;
  const ys = y;
  const saxpy = new ElementwiseKernel("T a, T x, T y", "T z", "z = a * x + y", "saxpy");
  measure(C, "array.saxpy.1GiB", "GB/s", gpuRep(() => void saxpy.launch(stream, 0.5, xs, ys, ys)), { bytes: 3 * GiB, note: "in place: z is y; GPU time from events" });

  const raw = new Program(
    `extern "C" __global__ void saxpy_raw(float a, const float* __restrict__ x, float* __restrict__ y, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) y[i] = a * x[i] + y[i];
}`,
    "c++",
    { arch: `sm_${dev.arch}` },
  )
    .compile("cubin")
    .getKernel("saxpy_raw");
  raw.declare("f32", { pointer: "f32" }, { pointer: "f32" }, "u64");
  const occ = raw.occupancy(dev).maxPotentialBlockSize();
  const cfg = new LaunchConfig({ grid: occ.minGridSize, block: occ.blockSize });
  measure(C, "array.saxpy.1GiB.raw", "GB/s", gpuRep(() => launch(stream, cfg, raw, 0.5, xs, ys, u64(n))), { bytes: 3 * GiB, note: `hand-written, grid ${occ.minGridSize} × ${occ.blockSize}` });

  const sum = new ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "sum");
  const out = DeviceArray.empty([], "float32", so);
  measure(C, "array.sum.1GiB", "GB/s", gpuRep(() => void sum.launch(stream, xs, out)), { bytes: GiB, note: "GPU time from events (both launches and the partials' allocation)" });
  out.close();
  xs.close();
  ys.close();
  stream.sync();
}

// ---- from / toTypedArray of 256 MiB pinned ----
const big = 256 * MiB;
const pinned = new PinnedMemoryResource();
const hostBuffer = pinned.allocate(big, so);
stream.sync();
const host = hostBuffer.asTypedArray(Float32Array);
host.fill(1.5);
const dBig = dev.allocate(big, so);
stream.sync();
const hostPtr = ffi.pointerOf(host);
const wall = (one: () => void): Rep => (m) => {
  const t0 = now();
  for (let i = 0; i < m; i++) one();
  stream.sync();
  return now() - t0;
};
measure(C, "copy.h2d.256MiB.pinned.raw", "GB/s", wall(() => driver.cuMemcpyHtoDAsync(dBig.handle, hostPtr, big, stream.handle)), { fixedM: 1, bytes: big, note: "pool-pinned host memory (PinnedMemoryResource)" });
measure(
  C,
  "array.from.256MiB.pinned",
  "GB/s",
  wall(() => DeviceArray.from(host, so).close(stream)),
  { fixedM: 1, bytes: big, note: "allocation from the default pool included" },
);
const arr = DeviceArray.from(host, so);
measure(C, "copy.d2h.256MiB.pinned.raw", "GB/s", wall(() => driver.cuMemcpyDtoHAsync(hostPtr, dBig.handle as CUdeviceptr, big, stream.handle)), { fixedM: 1, bytes: big });
measure(C, "array.toTypedArray.256MiB.pinned", "GB/s", wall(() => void arr.toTypedArraySync({ stream, out: host })), { fixedM: 1, bytes: big, note: "toTypedArraySync({ out }) into the pinned memory" });
arr.close();
dBig.close();
hostBuffer.close();

// ---- builder calls ----
let fresh = 0;
const small = DeviceArray.full([1024], 1, "float32", so);
measure(
  C,
  "builder.firstCall",
  "ms",
  (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) {
      const k = new ElementwiseKernel("T x", "T y", `y = x * 2 + ${++fresh}`, "first_call");
      (k.launch(stream, small) as DeviceArray).close();
    }
    stream.sync();
    return now() - t0;
  },
  { fixedM: 1, note: "a fresh source each time: NVRTC compile + load + occupancy + launch" },
);
const before = builderStats.instantiations;
measure(
  C,
  "builder.programCacheHit",
  "ms",
  (m) => {
    const t0 = now();
    for (let i = 0; i < m; i++) {
      const k = new ElementwiseKernel("T x", "T y", "y = x * 2 + 1", "cache_hit");
      (k.launch(stream, small) as DeviceArray).close();
    }
    stream.sync();
    return now() - t0;
  },
  { note: "a new builder of a compiled source: the in-memory program cache answers (no NVRTC call)" },
);
const k = new ElementwiseKernel("T x", "T y", "y = x * 2 + 1", "cached_call");
const outSmall = DeviceArray.empty([1024], "float32", so);
k.launch(stream, small, outSmall);
const hits = builderStats.instantiations;
measure(C, "builder.cachedCall", "ns", wall(() => void k.launch(stream, small, outSmall)), { note: "output given; the builder holds its instantiation" });
if (builderStats.instantiations !== hits) note(`builder.cachedCall compiled ${builderStats.instantiations - hits} times: it should not`);
note(`builder instantiations: ${builderStats.instantiations - before} after the first-call measure`);
small.close();
outSmall.close();
stream.close();
