/**
 * The speed of the array operations (`cuda-ts/array`) against CuPy and PyTorch (bench/python/array_ops.py measures
 * the same on the same GPU), as JSON lines in the suite's format, contender `<runtime>-array-ops`:
 *
 * | measure | unit | what |
 * |---|---|---|
 * | `ops.copy.1GiB` | GB/s | a hand-written float4 copy kernel over 1 GiB (2 GiB moved): the bandwidth the others are held to |
 * | `ops.add.broadcast.16384x16384` | GB/s | `add(m, row, { out })`, m [16384, 16384] float32, row [16384] (2 GiB moved) |
 * | `ops.exp.1GiB` | GB/s | `exp(x, { out })` of 1 GiB float32 (2 GiB moved) |
 * | `ops.astype.f32-f16.1GiB` | GB/s | `x.astype("float16")` of 1 GiB float32 (1.5 GiB moved; the result allocated and freed) |
 * | `ops.sum.axis0.16384x16384`, `ops.sum.axis1.16384x16384` | GB/s | `sum(m, { axis })` (1 GiB read) |
 * | `ops.cumsum.2^28` | GB/s | `cumsum(x, { out })` of 2^28 float32 (2 GiB moved) |
 * | `ops.sort.uint32.2^28`, `ops.sort.float32.2^28` | ms | `sort(keys)` of 2^28 random keys (the result allocated and freed) |
 * | `ops.add.1024.call` | ns | `add(a, b, { out })` of 1,024 float32, wall time per call: the CPU cost of a small op |
 *
 * GPU times come from events on the stream; the small op's from the wall clock over bursts of calls.
 *
 *   bun bench/ts/array-ops.ts              (or: deno run -A bench/ts/array-ops.ts)
 *
 * @module
 */
import { Device, DeviceArray, LaunchConfig, Program, launch, u64, type Stream } from "../../src/index.ts";
import { add, cumsum, exp, sort, sum } from "../../src/array.ts";
import { defaultRng } from "../../src/array-random.ts";
import { ffi } from "../../src/ffi/index.ts";
import { burstRep, measure, note, type Rep } from "./harness.ts";

const GiB = 2 ** 30;
const C = `${ffi.runtime}-array-ops`;

const dev = new Device(0);
dev.setCurrent();
const stream: Stream = dev.createStream();
const so = { stream };
note(`${C} on ${dev.name}`);

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

// ---- the copy kernel: the bandwidth of reference ----
{
  const n = GiB / 4;
  using x = DeviceArray.full([n], 1, "float32", so);
  using y = DeviceArray.empty([n], "float32", so);
  const copy = new Program(
    `extern "C" __global__ void copy4(const float4* __restrict__ x, float4* __restrict__ y, unsigned long long n4) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n4; i += (unsigned long long)gridDim.x * blockDim.x) y[i] = x[i];
}`,
    "c++",
    { arch: `sm_${dev.arch}` },
  )
    .compile("cubin")
    .getKernel("copy4");
  // One float4 per thread: the fastest grid of this copy on an H100 (a wave of resident blocks reaches 6% less).
  const block = copy.occupancy(dev).maxPotentialBlockSize().blockSize;
  const cfg = new LaunchConfig({ grid: Math.ceil(n / 4 / block), block });
  measure(C, "ops.copy.1GiB", "GB/s", gpuRep(() => launch(stream, cfg, copy, x, y, u64(n / 4))), { bytes: 2 * GiB, note: "hand-written float4 copy, one float4 per thread" });

  // exp and astype over the same 1 GiB.
  measure(C, "ops.exp.1GiB", "GB/s", gpuRep(() => void exp(x, { out: y })), { bytes: 2 * GiB, note: "exp(x, { out })" });
  measure(C, "ops.astype.f32-f16.1GiB", "GB/s", gpuRep(() => x.astype("float16").close()), { bytes: 1.5 * GiB, note: "x.astype('float16'), allocated from the pool and freed" });
  measure(C, "ops.cumsum.2^28", "GB/s", gpuRep(() => void cumsum(x, { out: y })), { bytes: 2 * GiB, note: "cumsum(x, { out }) of 2^28 float32" });
}
stream.sync();

// ---- a matrix: broadcasting and axis sums ----
{
  const r = 16384;
  using m = DeviceArray.full([r, r], 1, "float32", so);
  using row = DeviceArray.full([r], 2, "float32", so);
  using out = DeviceArray.empty([r, r], "float32", so);
  measure(C, "ops.add.broadcast.16384x16384", "GB/s", gpuRep(() => void add(m, row, { out })), { bytes: 2 * GiB, note: "[16384, 16384] + [16384] into out" });
  measure(C, "ops.sum.axis0.16384x16384", "GB/s", gpuRep(() => sum(m, { axis: 0 }).close()), { bytes: GiB, note: "sum over axis 0 (column sums)" });
  measure(C, "ops.sum.axis1.16384x16384", "GB/s", gpuRep(() => sum(m, { axis: 1 }).close()), { bytes: GiB, note: "sum over axis 1 (row sums)" });
}
stream.sync();

// ---- sort ----
{
  const n = 2 ** 28;
  const rng = defaultRng(1234, { stream });
  using keysU = rng.integers(0, 2 ** 32, [n], { dtype: "uint32" });
  using keysF = rng.random([n], { dtype: "float32" });
  stream.sync();
  measure(C, "ops.sort.uint32.2^28", "ms", gpuRep(() => sort(keysU).close()), { note: "sort of 2^28 random uint32, result allocated and freed" });
  measure(C, "ops.sort.float32.2^28", "ms", gpuRep(() => sort(keysF).close()), { note: "sort of 2^28 random float32 in [0, 1), result allocated and freed" });
}
stream.sync();

// ---- the CPU cost of a small op ----
{
  using a = DeviceArray.full([1024], 1, "float32", so);
  using b = DeviceArray.full([1024], 2, "float32", so);
  using out = DeviceArray.empty([1024], "float32", so);
  add(a, b, { out });
  stream.sync();
  measure(C, "ops.add.1024.call", "ns", burstRep(() => void add(a, b, { out }), 256, () => stream.sync()), { note: "add(a, b, { out }) of 1,024 float32; wall time per call, the kernel cached" });
}
stream.close();
