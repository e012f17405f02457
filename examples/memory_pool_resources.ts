/**
 * memory_pool_resources: PinnedMemoryResource and ManagedMemoryResource side by side, the device's default
 * pool's attributes rising while a buffer is live and falling when it is freed, and GraphMemoryResource: scratch
 * memory allocated and freed inside a captured CUDA graph (allocation and free nodes), as cuda_core's example. Every
 * result is checked (a wrong one throws, so the process exits non-zero).
 *
 *   bun examples/memory_pool_resources.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/memory_pool_resources.ts
 */
import {
  Device,
  DeviceMemoryResource,
  LaunchConfig,
  ManagedMemoryResource,
  PinnedMemoryResource,
  Program,
  launch,
  u32,
} from "../src/index.ts";
import { GraphMemoryResource } from "../src/graphs.ts";

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`memory_pool_resources: ${what}`);
}

const source = `
extern "C" __global__ void add_index(unsigned* x, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += i;
}`;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const kernel = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin").getKernel("add_index");
const n = 1 << 20;
const bytes = n * 4;
const config = new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 });

// 1. The default pool's attributes rise with a live allocation and fall when it is freed.
const pool = dev.memoryResource;
if (!(pool instanceof DeviceMemoryResource)) throw new Error("this device has no memory pools");
stream.sync();
const before = pool.attributes.usedMemCurrent;
const big = pool.allocate(64 << 20, { stream });
const during = pool.attributes.usedMemCurrent;
check(during >= before + (64n << 20n), `usedMemCurrent rose by ${during - before} bytes for a 64 MiB buffer`);
check(pool.attributes.usedMemHigh >= during, "usedMemHigh is at least usedMemCurrent");
check(pool.attributes.reservedMemCurrent >= during, "the pool reserves at least what is used");
big.close(stream);
stream.sync();
const after = pool.attributes.usedMemCurrent;
check(after === before, `usedMemCurrent fell back to ${before} after the free (it is ${after})`);
console.log(`default pool: used ${before} → ${during} → ${after} bytes; release threshold ${pool.attributes.releaseThreshold}`);

// 2. Pinned memory: a kernel writes it, the host reads it through a view, no copies.
using pinnedMr = new PinnedMemoryResource();
using pinned = pinnedMr.allocate(bytes, { stream });
pinned.fill(0, { stream });
launch(stream, config, kernel, pinned, u32(n));
await stream.done();
const p = pinned.asTypedArray(Uint32Array);
for (let i = 0; i < n; i += 997) check(p[i] === i, `pinned[${i}] = ${p[i]}, expected ${i}`);
check(pinnedMr.attributes.usedMemCurrent >= BigInt(bytes), "the pinned pool counts the live buffer");

// 3. Managed memory from a managed pool: written by the host, prefetched to the device, changed there, prefetched back.
using managedMr = new ManagedMemoryResource({ preferredLocation: dev.id });
using managed = managedMr.allocate(bytes, { stream });
stream.sync();
const m = managed.asTypedArray(Uint32Array);
m.fill(7);
managedMr.prefetch(managed, dev, { stream });
launch(stream, config, kernel, managed, u32(n));
managedMr.prefetch(managed, "host", { stream });
await stream.done();
for (let i = 0; i < n; i += 991) check(m[i] === 7 + i, `managed[${i}] = ${m[i]}, expected ${7 + i}`);
console.log(`managed memory from ${managedMr.usesPool ? "a managed pool" : `cuMemAllocManaged (${managedMr.fallbackReason})`}: OK`);

// 4. Advice (cuMemAdvise) needs cuMemAllocManaged memory on the CUDA 13.0 driver: { pool: false }.
using advisedMr = new ManagedMemoryResource({ pool: false });
using advised = advisedMr.allocate(bytes, { stream });
advisedMr.advise(advised, "preferred-location", dev);
advisedMr.advise(advised, "accessed-by", dev);
advised.fill(0, { stream });
launch(stream, config, kernel, advised, u32(n));
advisedMr.advise(advised, "read-mostly");
advisedMr.prefetch(advised, "host", { stream });
await stream.done();
const a = advised.asTypedArray(Uint32Array);
for (let i = 0; i < n; i += 983) check(a[i] === i, `advised[${i}] = ${a[i]}, expected ${i}`);

// 5. Graph memory: scratch memory that exists only inside a graph. Allocating on the builder's stream records an
//    allocation node, closing the buffer there a free node; each launch allocates, uses and frees it again.
const graphMr = new GraphMemoryResource(dev);
using data = dev.allocate(bytes, { stream });
data.fill(0, { stream });
{
  using builder = dev.createGraphBuilder().beginBuilding();
  const scratch = graphMr.allocate(bytes, { stream: builder.stream });
  scratch.copyFrom(data, { stream: builder.stream });
  launch(builder, config, kernel, scratch, u32(n));
  data.copyFrom(scratch, { stream: builder.stream });
  scratch.close(); // on the stream it was allocated on: the builder's, so a free node
  builder.endBuilding();
  const kinds = builder.inspect().nodes.map((node) => node.type);
  check(kinds.includes("memAlloc") && kinds.includes("memFree"), `the captured graph holds ${kinds.join(", ")}: an allocation and a free node expected`);
  using graph = builder.complete();
  graph.upload(stream);
  graph.launch(stream);
  graph.launch(stream);
  const out = new Uint32Array(new ArrayBuffer(bytes));
  data.copyTo(out, { stream });
  await stream.done();
  for (let i = 0; i < n; i += 977) check(out[i] === 2 * i, `graph scratch: data[${i}] = ${out[i]}, expected ${2 * i}`);
  const high = graphMr.attributes.reservedMemHigh;
  check(high >= BigInt(bytes), `the graph memory's reserved high watermark is ${high} bytes, less than the ${bytes}-byte scratch buffer`);
  console.log(`graph memory: ${kinds.length} nodes (${kinds.join(", ")}), reserved high watermark ${high} bytes`);
}
graphMr.trim();

console.log(`memory_pool_resources on ${dev.name}: OK`);
