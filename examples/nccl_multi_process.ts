/**
 * nccl_multi_process: one rank per process, started by the launcher, one GPU per local rank (as torchrun does):
 *
 *   bun src/cli/cuda-ts.ts run -n 2 examples/nccl_multi_process.ts
 *   deno run -A src/cli/cuda-ts.ts run -n 2 examples/nccl_multi_process.ts
 *
 * `Communicator.fromWorld()` meets the other ranks at the launcher's rendezvous, takes the unique id rank 0 makes
 * and initialises this rank on its GPU. Rank r holds r + 1 + i at index i; allReduce (sum) leaves Σ over the ranks;
 * allGather collects every rank's number; send/recv pass a value around the ring (in one group); each checked.
 * Run on its own (no launcher) it is a job of one rank.
 */
import { DeviceArray } from "../src/index.ts";
import { Communicator, group, world } from "../src/distributed.ts";

const w = world();
const comm = await Communicator.fromWorld();
try {
  const { rank, size } = comm;
  const stream = comm.device.createStream();
  const n = 4096;
  const x = DeviceArray.from(Float32Array.from({ length: n }, (_, i) => rank + 1 + i), { stream });
  const mine = DeviceArray.from(Int32Array.of(rank * 10), { stream });
  const all = DeviceArray.zeros(size, "int32", { stream });
  const token = DeviceArray.from(Float64Array.of(rank + 0.5), { stream });
  const got = DeviceArray.zeros(1, "float64", { stream });

  comm.allReduce(x, x, { op: "sum", stream });
  comm.allGather(mine, all, { stream });
  // A ring: send to the next rank, receive from the previous one (paired in one group).
  group(() => {
    comm.send(token, (rank + 1) % size, { stream });
    comm.recv(got, (rank + size - 1) % size, { stream });
  });
  await comm.done(stream);

  const sum = (size * (size + 1)) / 2;
  const xs = await x.toTypedArray({ stream });
  for (let i = 0; i < n; i++) if (xs[i] !== sum + size * i) throw new Error(`rank ${rank}: index ${i} is ${xs[i]}, expected ${sum + size * i}`);
  const gathered = [...(await all.toTypedArray({ stream }))];
  if (gathered.join() !== Array.from({ length: size }, (_, j) => j * 10).join()) throw new Error(`rank ${rank}: gathered [${gathered.join(", ")}]`);
  const from = (await got.toTypedArray({ stream }))[0];
  if (from !== ((rank + size - 1) % size) + 0.5) throw new Error(`rank ${rank}: received ${from} from the ring`);
  for (const a of [x, mine, all, token, got]) a.close();
  console.log(`nccl_multi_process: rank ${rank} of ${size} (local rank ${w.localRank}, GPU ${comm.device.id}): allReduce, allGather and a send/recv ring OK`);
} finally {
  await comm.finalize();
}
