/**
 * tma_tensor_map: Hopper's tensor memory accelerator (compute capability 9.0+), as cuda_core's example: a tiled
 * tensor map over a 2D float32 DeviceArray, passed to a kernel by value (`const __grid_constant__`), which loads a
 * 32 × 32 tile into shared memory with one `cp.async.bulk.tensor` (an mbarrier counts its bytes), scales it, and
 * stores it back through a second tensor map. The array is not a multiple of the box: the edge tiles' loads read
 * zeros past the end and their stores are clipped by the hardware. Then `replaceAddress` points the input map at
 * another array of the same layout and the kernel runs again. Both results are checked against the CPU.
 *
 *   bun examples/tma_tensor_map.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/tma_tensor_map.ts
 */
import { Device, DeviceArray, LaunchConfig, Program, f32, launch } from "../src/index.ts";
import { TensorMap } from "../src/tensor-map.ts";

const BOX = 32;
const source = `
// The CUtensorMap's layout (cuda.h is not needed: the kernel only takes the map's address).
struct __align__(64) TensorMap128 { unsigned long long opaque[16]; };

extern "C" __global__ void tma_scale(const __grid_constant__ TensorMap128 in_map, const __grid_constant__ TensorMap128 out_map, float factor) {
  __shared__ __align__(128) float tile[${BOX}][${BOX}];
  __shared__ __align__(8) unsigned long long bar;
  const int x = blockIdx.x * ${BOX};  // the innermost coordinate (column) first, as the driver numbers dimensions
  const int y = blockIdx.y * ${BOX};
  const unsigned barAddr = (unsigned)__cvta_generic_to_shared(&bar);
  const unsigned tileAddr = (unsigned)__cvta_generic_to_shared(&tile[0][0]);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(barAddr) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(barAddr), "r"((unsigned)sizeof(tile)) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(tileAddr), "l"(&in_map), "r"(x), "r"(y), "r"(barAddr) : "memory");
  }
  unsigned done = 0;
  while (!done) {
    asm volatile("{\\n .reg .pred p;\\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\\n selp.u32 %0, 1, 0, p;\\n}"
                 : "=r"(done) : "r"(barAddr) : "memory");
  }
  for (int i = threadIdx.x; i < ${BOX * BOX}; i += blockDim.x) tile[i / ${BOX}][i % ${BOX}] *= factor;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // the writes above, visible to the bulk copy
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 :: "l"(&out_map), "r"(x), "r"(y), "r"(tileAddr) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}`;

const dev = new Device(0);
dev.setCurrent();
const cc = dev.computeCapability;
if (cc.major < 9) {
  console.log(`tma_tensor_map: device ${dev.name} is compute capability ${cc.major}.${cc.minor}; the TMA needs 9.0 or newer (skipped)`);
} else {
  await run();
}

async function run(): Promise<void> {
  using stream = dev.createStream();
  const kernel = new Program(source, "c++", { arch: `sm_${dev.arch}`, std: "c++17" }).compile("cubin").getKernel("tma_scale");

  // 1000 × 1000: rows of 4000 bytes (a multiple of 16, as the TMA needs), not a multiple of the 32 × 32 box.
  const rows = 1000;
  const cols = 1000;
  const data = Float32Array.from({ length: rows * cols }, (_, i) => (i % 977) - 488);
  using input = DeviceArray.from(data, { stream, shape: [rows, cols] });
  using output = DeviceArray.zeros([rows, cols], "float32", { stream });
  using inMap = TensorMap.tiled(input, { box: [BOX, BOX] });
  using outMap = TensorMap.tiled(output, { box: [BOX, BOX] });
  const config = new LaunchConfig({ grid: [Math.ceil(cols / BOX), Math.ceil(rows / BOX)], block: 128 });

  const check = (got: Float32Array, from: Float32Array, factor: number, what: string): void => {
    for (let i = 0; i < got.length; i++) {
      if (got[i] !== from[i]! * factor) throw new Error(`${what}: element ${i} (row ${Math.floor(i / cols)}, column ${i % cols}) is ${got[i]}, expected ${from[i]! * factor}`);
    }
  };
  launch(stream, config, kernel, inMap, outMap, f32(2));
  check(await output.toTypedArray({ stream }), data, 2, "first run");

  // The same layout elsewhere: point the input map at it and run again.
  const other = Float32Array.from({ length: rows * cols }, (_, i) => (i % 31) * 0.5);
  using second = DeviceArray.from(other, { stream, shape: [rows, cols] });
  inMap.replaceAddress(second);
  launch(stream, config, kernel, inMap, outMap, f32(-3));
  check(await output.toTypedArray({ stream }), other, -3, "after replaceAddress");

  console.log(
    `tma_tensor_map: ${config.grid[0]} × ${config.grid[1]} tiles of ${BOX} × ${BOX} float32 loaded and stored by the TMA over a ${rows} × ${cols} array (edges clipped), and again after replaceAddress, on ${dev.name} OK`,
  );
}
