/**
 * system_wide_atomics: the CUDA sample systemWideAtomics (as cuda_bindings' port): 16384 GPU threads apply
 * system-scope atomics (add, exchange, max, min, inc, dec, compare-and-swap, and, or, xor) to ten integers in managed
 * memory; where the GPU and the CPU may use managed memory at the same time (concurrentManagedAccess), the CPU adds
 * to the same counter with JavaScript's Atomics while the kernel runs. Every result is checked as the sample does.
 *
 *   bun examples/system_wide_atomics.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/system_wide_atomics.ts
 */
import { Device, LaunchConfig, ManagedMemoryResource, Program, launch } from "../src/index.ts";

const LOOP_NUM = 50;
const source = `
#define LOOP_NUM ${LOOP_NUM}
__global__ void atomicKernel(int* atom_arr) {
  unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
  for (int i = 0; i < LOOP_NUM; i++) {
    atomicAdd_system(&atom_arr[0], 10);                     // atomic addition
    atomicExch_system(&atom_arr[1], tid);                   // atomic exchange
    atomicMax_system(&atom_arr[2], tid);                    // atomic maximum
    atomicMin_system(&atom_arr[3], tid);                    // atomic minimum
    atomicInc_system((unsigned int*)&atom_arr[4], 17);      // atomic increment (modulo 17+1)
    atomicDec_system((unsigned int*)&atom_arr[5], 137);     // atomic decrement
    atomicCAS_system(&atom_arr[6], tid - 1, tid);           // atomic compare-and-swap
    atomicAnd_system(&atom_arr[7], 2 * tid + 7);            // bitwise atomics
    atomicOr_system(&atom_arr[8], tid < 32 ? 1u << tid : 0u);
    atomicXor_system(&atom_arr[9], tid);
  }
}`;

const dev = new Device(0);
dev.setCurrent();
const major = dev.computeCapability.major;
if (major < 6) throw new Error(`system_wide_atomics: needs compute capability 6.0 or newer; ${dev.name} has ${dev.arch}`);
using stream = dev.createStream();
const kernel = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin", { nameExpressions: ["atomicKernel"] }).getKernel("atomicKernel");

const numThreads = 256;
const numBlocks = 64;
const length = numThreads * numBlocks;
using mr = new ManagedMemoryResource({ pool: false }); // cuMemAllocManaged, as the sample
using buffer = mr.allocate(10 * 4, { stream });
const atom = buffer.asTypedArray(Int32Array);
atom.fill(0);
atom[7] = 0xff; // so that the AND and XOR tests give something other than 0
atom[9] = 0xff;

const concurrent = dev.properties.concurrentManagedAccess !== 0;
launch(stream, new LaunchConfig({ grid: numBlocks, block: numThreads }), kernel, buffer);
let cpuAdds = 0;
if (concurrent) {
  // The CPU's share, while the GPU works on the same memory: system-scope atomics on both sides.
  for (; cpuAdds < 10_000; cpuAdds++) Atomics.add(atom, 0, 10);
}
await stream.done();

const failures: string[] = [];
const expectEq = (what: string, got: number, want: number) => {
  if (got !== want) failures.push(`${what}: ${got}, expected ${want}`);
};
expectEq("atomicAdd", atom[0]!, 10 * (length * LOOP_NUM + cpuAdds));
if (!(atom[1]! >= 0 && atom[1]! < length)) failures.push(`atomicExch: ${atom[1]} is not a thread index`);
expectEq("atomicMax", atom[2]!, length - 1);
expectEq("atomicMin", atom[3]!, 0);
let inc = 0;
for (let i = 0; i < length * LOOP_NUM; i++) inc = inc >= 17 ? 0 : inc + 1;
expectEq("atomicInc", atom[4]!, inc);
let dec = 0;
for (let i = 0; i < length * LOOP_NUM; i++) dec = dec === 0 || dec > 137 ? 137 : dec - 1;
expectEq("atomicDec", atom[5]!, dec);
if (!(atom[6]! >= 0 && atom[6]! < length)) failures.push(`atomicCAS: ${atom[6]} is not a thread index`);
let and = 0xff;
for (let i = 0; i < length; i++) and &= 2 * i + 7;
expectEq("atomicAnd", atom[7]!, and);
expectEq("atomicOr", atom[8]!, -1);
let xor = 0xff;
for (let i = 0; i < length; i++) xor ^= i;
// Every thread XORs its index LOOP_NUM (an even number of) times: the XORs cancel, leaving the start value.
expectEq("atomicXor", atom[9]!, LOOP_NUM % 2 === 0 ? 0xff : xor);
if (failures.length > 0) throw new Error(`system_wide_atomics: ${failures.join("; ")}`);
console.log(
  `system_wide_atomics: 10 system-scope atomics × ${LOOP_NUM} by ${length} GPU threads${concurrent ? ` and ${cpuAdds} CPU atomic adds at the same time` : " (the CPU's share skipped: no concurrent managed access)"} on ${dev.name}: OK`,
);
