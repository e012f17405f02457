/**
 * stream_ordered_allocation: the CUDA sample streamOrderedAllocation (as cuda_bindings' port): memory allocated and
 * freed in stream order (cuMemAllocFromPoolAsync / cuMemFreeAsync through a DeviceMemoryResource) around a vector
 * addition, first plainly, then in a loop with the pool's release threshold raised so that the memory freed in one
 * iteration is reused by the next instead of going back to the system at each synchronisation. Both checked against
 * the CPU; the pool's figures show the reuse.
 *
 *   bun examples/stream_ordered_allocation.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/stream_ordered_allocation.ts
 */
import { Device, DeviceMemoryResource, LaunchConfig, Program, launch, type Buffer, type Stream } from "../src/index.ts";

const source = `
__global__ void vectorAddGPU(const float* a, const float* b, float* c, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) c[idx] = a[idx] + b[idx];
}`;

const dev = new Device(0);
dev.setCurrent();
if (dev.properties.memoryPoolsSupported === 0) throw new Error(`stream_ordered_allocation: ${dev.name} has no memory pools`);
using stream = dev.createStream();
const kernel = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin", { nameExpressions: ["vectorAddGPU"] }).getKernel("vectorAddGPU");

const n = 1 << 20;
const bytes = n * 4;
const a = Float32Array.from({ length: n }, (_, i) => (i % 977) / 13);
const b = Float32Array.from({ length: n }, (_, i) => (i % 601) / 11);
const config = new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 });

/** One round: allocate, copy in, add, copy out, free — all ordered on the stream; the result checked. */
async function round(pool: DeviceMemoryResource, s: Stream): Promise<void> {
  const dA: Buffer = pool.allocate(bytes, { stream: s });
  const dB = pool.allocate(bytes, { stream: s });
  const dC = pool.allocate(bytes, { stream: s });
  dA.copyFrom(a, { stream: s });
  dB.copyFrom(b, { stream: s });
  launch(s, config, kernel, dA, dB, dC, n);
  const c = new Float32Array(new ArrayBuffer(bytes));
  dC.copyTo(c, { stream: s });
  for (const d of [dA, dB, dC]) d.close(s); // cuMemFreeAsync: freed once the stream gets there
  await s.done();
  for (let i = 0; i < n; i += 7) {
    const want = Math.fround(a[i]! + b[i]!);
    if (c[i] !== want) throw new Error(`stream_ordered_allocation: c[${i}] = ${c[i]}, expected ${want}`);
  }
}

// 1. Basic stream-ordered allocation, from a new pool of our own with the driver's release threshold (0: memory goes
//    back to the system when the stream is synchronised).
using pool = new DeviceMemoryResource(dev, { releaseThreshold: 0 });
await round(pool, stream);
const afterBasic = pool.attributes.reservedMemCurrent;

// 2. With the release threshold at its maximum, the pool keeps what was freed across synchronisations, and later
//    rounds reuse it.
pool.attributes.releaseThreshold = 0xffff_ffff_ffff_ffffn;
const iterations = 10;
const start = performance.now();
for (let i = 0; i < iterations; i++) await round(pool, stream);
const ms = performance.now() - start;
const reserved = pool.attributes.reservedMemCurrent;
const high = pool.attributes.usedMemHigh;
if (reserved < BigInt(3 * bytes)) throw new Error(`stream_ordered_allocation: the pool kept ${reserved} bytes after the rounds, expected at least ${3 * bytes}`);
if (pool.attributes.usedMemCurrent !== 0n) throw new Error(`stream_ordered_allocation: ${pool.attributes.usedMemCurrent} bytes still in use after every free`);
console.log(
  `stream_ordered_allocation: a vector add with stream-ordered buffers, then ${iterations} rounds reusing the pool's memory (reserved ${afterBasic} → ${reserved} bytes, used high ${high}) in ${ms.toFixed(1)} ms on ${dev.name}: OK`,
);
