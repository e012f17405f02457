/**
 * thread_block_cluster: thread-block clusters with distributed shared memory (compute capability 9.0+), as
 * cuda_core's example: each block of a cluster sums its share of the input into its own shared memory, then block
 * rank 0 of every cluster reads its neighbours' shared memory (`cluster.map_shared_rank`) and writes the cluster's
 * total. The occupancy API says how large a cluster can be and how many fit at once. Checked against the CPU.
 *
 *   bun examples/thread_block_cluster.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/thread_block_cluster.ts
 */
import { Device, DeviceArray, LaunchConfig, Program, i32, launch } from "../src/index.ts";
import { findNvidiaHeaderDirectory } from "../src/pathfinder/index.ts";

const source = `
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void cluster_sums(const int* in, int* out, int perBlock) {
  __shared__ int partial;
  cg::cluster_group cluster = cg::this_cluster();
  if (threadIdx.x == 0) partial = 0;
  __syncthreads();
  const int base = blockIdx.x * perBlock;
  int mine = 0;
  for (int i = threadIdx.x; i < perBlock; i += blockDim.x) mine += in[base + i];
  atomicAdd(&partial, mine);
  cluster.sync();  // every block's partial is written and visible to the cluster
  if (cluster.block_rank() == 0 && threadIdx.x == 0) {
    int total = 0;
    for (unsigned int r = 0; r < cluster.num_blocks(); r++) total += *cluster.map_shared_rank(&partial, r);
    out[blockIdx.x / cluster.num_blocks()] = total;
  }
  cluster.sync();  // no block leaves (freeing its shared memory) before rank 0 has read it
}`;

const dev = new Device(0);
dev.setCurrent();
const cc = dev.computeCapability;
if (cc.major < 9) {
  console.log(`thread_block_cluster: device ${dev.name} is compute capability ${cc.major}.${cc.minor}; clusters need 9.0 or newer (skipped)`);
} else {
  await run();
}

async function run(): Promise<void> {
  using stream = dev.createStream();
  // cooperative_groups.h is in the toolkit's include directory, and it includes CCCL's <cuda/std/...> headers,
  // which CUDA 13 keeps in include/cccl: both found by the pathfinder.
  const includePath = [...new Set([findNvidiaHeaderDirectory("cudart").path, findNvidiaHeaderDirectory("cccl").path])];
  const code = new Program(source, "c++", { arch: `sm_${dev.arch}`, std: "c++17", includePath }).compile("cubin");
  const kernel = code.getKernel("cluster_sums");

  const clusterSize = 4;
  const clusters = 32;
  const block = 256;
  const perBlock = 1024;
  const config = new LaunchConfig({ grid: clusters, cluster: clusterSize, block });
  const occupancy = kernel.occupancy(dev);
  const maxCluster = occupancy.maxPotentialClusterSize(config);
  const active = occupancy.maxActiveClusters(config);
  if (maxCluster < clusterSize) throw new Error(`the device allows clusters of at most ${maxCluster} blocks`);
  if (active < 1) throw new Error(`no cluster of ${clusterSize} fits at once`);

  const n = clusters * clusterSize * perBlock;
  const data = Int32Array.from({ length: n }, (_, i) => (i % 13) - 6);
  using input = DeviceArray.from(data, { stream });
  using output = DeviceArray.zeros([clusters], "int32", { stream });
  launch(stream, config, kernel, input, output, i32(perBlock));
  const got = await output.toTypedArray({ stream });

  for (let c = 0; c < clusters; c++) {
    let want = 0;
    for (let i = c * clusterSize * perBlock; i < (c + 1) * clusterSize * perBlock; i++) want += data[i]!;
    if (got[c] !== want) throw new Error(`cluster ${c}: ${got[c]}, expected ${want}`);
  }
  console.log(
    `thread_block_cluster: ${clusters} clusters of ${clusterSize} blocks summed through distributed shared memory (max potential cluster size ${maxCluster}, ${active} active clusters at once) on ${dev.name} OK`,
  );
}
