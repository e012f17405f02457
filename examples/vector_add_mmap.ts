/**
 * vector_add_mmap: the CUDA sample vectorAddMMAP (as cuda_bindings' port): the three vectors of a vector addition
 * live in memory made with the driver's virtual memory management calls, through the raw bindings: physical
 * allocations (cuMemCreate) in multiples of the allocation granularity, a reserved virtual address range
 * (cuMemAddressReserve), the allocations mapped into it (cuMemMap) and opened for the device (cuMemSetAccess). The
 * sample's striping of each vector over several devices is kept: the vector is backed by one chunk per device with
 * access to the first (here, commonly, the one device). Checked against the CPU, then unmapped and released.
 *
 *   bun examples/vector_add_mmap.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/vector_add_mmap.ts
 */
import { Buffer, Device, LaunchConfig, Program, launch } from "../src/index.ts";
import { driver } from "../src/bindings/driver-entry.ts";
import {
  CUmemAccess_flags,
  CUmemAccessDesc_st,
  CUmemAllocationGranularity_flags,
  CUmemAllocationProp_st,
  CUmemAllocationType,
  CUmemLocationType,
  type CUdeviceptr,
  type CUmemGenericAllocationHandle,
} from "../src/bindings/driver-types.ts";

const source = `
__global__ void VecAdd_kernel(const float* A, const float* B, float* C, int N) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < N) C[i] = A[i] + B[i];
}`;

const dev = new Device(0);
dev.setCurrent();
if (dev.properties.virtualMemoryManagementSupported === 0) throw new Error(`vector_add_mmap: ${dev.name} has no virtual memory management`);
using stream = dev.createStream();
const kernel = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin", { nameExpressions: ["VecAdd_kernel"] }).getKernel("VecAdd_kernel");

// The devices that back the memory: the first, and those it can reach as peers (the sample's "mapping devices").
const backing = [dev, ...Device.all().filter((d) => d.id !== dev.id && dev.canAccessPeer(d))];

function props(deviceId: number): CUmemAllocationProp_st {
  const p = new CUmemAllocationProp_st();
  p.type = CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = deviceId;
  return p;
}

interface Mapping {
  readonly ptr: CUdeviceptr;
  readonly size: bigint;
  readonly handles: CUmemGenericAllocationHandle[];
}

/** Reserves `bytes` (rounded up) of address space, backs it with one chunk per backing device, opens it to `dev`. */
function simpleMallocMultiDeviceMmap(bytes: number): Mapping {
  let granularity = 0n;
  for (const d of backing) {
    const g = driver.cuMemGetAllocationGranularity(props(d.id), CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    if (g > granularity) granularity = g;
  }
  const count = BigInt(backing.length);
  const stripe = ((BigInt(bytes) + count - 1n) / count + granularity - 1n) / granularity * granularity;
  const size = stripe * count;
  const ptr = driver.cuMemAddressReserve(size, granularity, 0n as CUdeviceptr, 0);
  const handles: CUmemGenericAllocationHandle[] = [];
  backing.forEach((d, i) => {
    const handle = driver.cuMemCreate(stripe, props(d.id), 0);
    driver.cuMemMap((ptr + BigInt(i) * stripe) as CUdeviceptr, stripe, 0, handle, 0);
    handles.push(handle); // the mapping keeps the memory; the handle is released after unmapping
  });
  const access = new CUmemAccessDesc_st();
  access.location.type = CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE;
  access.location.id = dev.id;
  access.flags = CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  driver.cuMemSetAccess(ptr, size, access, 1);
  return { ptr, size, handles };
}

function simpleFreeMultiDeviceMmap(m: Mapping): void {
  driver.cuMemUnmap(m.ptr, m.size);
  for (const h of m.handles) driver.cuMemRelease(h);
  driver.cuMemAddressFree(m.ptr, m.size);
}

const n = 50_000;
const bytes = n * 4;
const hA = Float32Array.from({ length: n }, (_, i) => (i * 37 % 1000) / 1000);
const hB = Float32Array.from({ length: n }, (_, i) => (i * 91 % 1000) / 1000);
const maps = [simpleMallocMultiDeviceMmap(bytes), simpleMallocMultiDeviceMmap(bytes), simpleMallocMultiDeviceMmap(bytes)];
const [dA, dB, dC] = maps.map((m) => Buffer.fromHandle(m.ptr, bytes)) as [Buffer, Buffer, Buffer];
dA.copyFrom(hA, { stream });
dB.copyFrom(hB, { stream });
launch(stream, new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 }), kernel, dA, dB, dC, n);
const hC = new Float32Array(new ArrayBuffer(bytes));
dC.copyTo(hC, { stream });
await stream.done();
for (let i = 0; i < n; i++) {
  const want = Math.fround(hA[i]! + hB[i]!);
  if (hC[i] !== want) throw new Error(`vector_add_mmap: C[${i}] = ${hC[i]}, expected ${want}`);
}
for (const b of [dA, dB, dC]) b.close();
for (const m of maps) simpleFreeMultiDeviceMmap(m);
console.log(`vector_add_mmap: ${n} floats added in cuMemCreate/cuMemMap memory (${maps[0]!.size} bytes reserved per vector, backed by ${backing.length} device${backing.length > 1 ? "s" : ""}) on ${dev.name}: OK`);
