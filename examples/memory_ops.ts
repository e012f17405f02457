/**
 * memory_ops: memory resources, pinned host memory seen as a Float32Array without copying, and device↔host
 * copies, each result checked (a wrong one throws, so the process exits non-zero).
 *
 *   bun examples/memory_ops.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/memory_ops.ts
 */
import {
  Device,
  DeviceMemoryResource,
  LaunchConfig,
  LegacyPinnedMemoryResource,
  PinnedMemoryResource,
  Program,
  f32,
  launch,
  u32,
} from "../src/index.ts";

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`memory_ops: ${what}`);
}

const source = `
extern "C" __global__ void scale(float* x, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}`;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const kernel = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin").getKernel("scale");
const n = 1 << 16;
const bytes = n * 4;
const config = new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 });

// Device memory: the device's default pool (a DeviceMemoryResource), and a pool of our own.
const deviceMr = dev.memoryResource;
check(deviceMr instanceof DeviceMemoryResource && deviceMr.isDeviceAccessible && !deviceMr.isHostAccessible, "the default resource is the device's pool");
using ownPool = new DeviceMemoryResource(dev, { releaseThreshold: 1 << 20 });
check(ownPool.attributes.releaseThreshold === BigInt(1 << 20), "a new pool takes its release threshold");

// Pinned host memory from a host pool, written through a Float32Array view (no copy).
using pinnedMr = new PinnedMemoryResource();
using pinned = pinnedMr.allocate(bytes, { stream });
stream.sync(); // host access is not stream-ordered: the allocation must be complete first
const host = pinned.asTypedArray(Float32Array);
for (let i = 0; i < n; i++) host[i] = i;

// Host → device, scale on the device, device → host.
using onDevice = ownPool.allocate(bytes, { stream });
onDevice.copyFrom(pinned, { stream });
launch(stream, config, kernel, onDevice, f32(2), u32(n));
onDevice.copyTo(pinned, { stream });
await stream.done();
for (let i = 0; i < n; i++) check(host[i] === 2 * i, `host[${i}] = ${host[i]} after the round trip, expected ${2 * i}`);

// Kernels can use pinned memory directly: scale it in place, read the result through the same view.
launch(stream, config, kernel, pinned, f32(0.5), u32(n));
await stream.done();
for (let i = 0; i < n; i++) check(host[i] === i, `host[${i}] = ${host[i]} after scaling pinned memory in place, expected ${i}`);

// Copies to and from ordinary JavaScript memory, and device-to-device.
const plain = new Float32Array(n);
using copy = deviceMr.allocate(bytes, { stream });
copy.copyFrom(onDevice, { stream });
copy.copyTo(plain, { stream });
await stream.done();
check(plain.every((v, i) => v === 2 * i), "device-to-device then device-to-host copy");

// Legacy pinned memory (cuMemHostAlloc), filled on the device, read through a Uint32Array view.
const legacy = new LegacyPinnedMemoryResource();
const words = legacy.allocate(64, { stream });
words.fill(Uint32Array.of(0xc0ffee), { stream });
await stream.done();
const view = words.asTypedArray(Uint32Array);
check(view.length === 16 && view.every((v) => v === 0xc0ffee), "fill of legacy pinned memory seen through its view");

// Closing a buffer detaches its views: they read as empty instead of touching freed memory.
words.close();
check(view.length === 0 && view[0] === undefined, "a closed buffer's view is detached");

console.log(`memory_ops: ${n} floats through pinned, pool and legacy pinned memory on ${dev.name} OK`);
