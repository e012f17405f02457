/**
 * multi_node_all_reduce: one rank per process and GPU, started by whatever launcher the cluster uses; the script is
 * the same under all of them (docs/multi-node.md):
 *
 *   srun -N 2 --ntasks-per-node=4 --gpus-per-task=1 --mpi=pmix bun examples/multi_node_all_reduce.ts
 *   mpirun -n 8 -x PATH bun examples/multi_node_all_reduce.ts
 *   # torchrun's variables (a Kubernetes PyTorchJob or JobSet sets them; here two ranks on one machine):
 *   export CUDA_TS_RENDEZVOUS_SECRET=$(openssl rand -hex 32)
 *   RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 bun examples/multi_node_all_reduce.ts &
 *   RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 bun examples/multi_node_all_reduce.ts
 *   bun src/cli/cuda-ts.ts run -n 2 examples/multi_node_all_reduce.ts   # one node, cuda-ts's own launcher
 *
 * (Deno: `deno run -A examples/multi_node_all_reduce.ts`.) `world()` says which launcher started the rank and where
 * it stands; `Communicator.fromWorld()` meets the other ranks (through PMIx under srun --mpi=pmix and mpirun, else at
 * the store rank 0 serves), takes the unique id rank 0 makes and initialises the rank on its GPU. Rank r holds
 * r + 1 + i at index i; after allReduce (sum) every rank holds Σ(r + 1) + size·i, checked. Run on its own it is a job
 * of one rank.
 */
import { DeviceArray } from "../src/index.ts";
import { Communicator, world } from "../src/distributed.ts";

const w = world();
const comm = await Communicator.fromWorld();
try {
  const { rank, size } = comm;
  const stream = comm.device.createStream();
  const n = 1 << 16;
  const x = DeviceArray.from(Float32Array.from({ length: n }, (_, i) => rank + 1 + i), { stream });
  comm.allReduce(x, x, { op: "sum", stream });
  await comm.done(stream);
  const xs = await x.toTypedArray({ stream });
  const sum = (size * (size + 1)) / 2;
  for (let i = 0; i < n; i++) if (xs[i] !== sum + size * i) throw new Error(`rank ${rank}: index ${i} is ${xs[i]}, expected ${sum + size * i}`);
  x.close();
  console.log(
    `multi_node_all_reduce: rank ${rank} of ${size} (launcher ${w.launcher}, node ${w.nodeRank} of ${w.nodes}, local rank ${w.localRank}, GPU ${comm.device.id}): allReduce of ${n} floats OK`,
  );
} finally {
  await comm.finalize();
}
