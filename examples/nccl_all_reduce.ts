/**
 * nccl_all_reduce: every GPU of this process is one rank of one NCCL communicator (`Communicator.initAll`). Rank r
 * holds (r + 1)·(i mod 1000) at index i; one group of allReduce calls (sum, one per GPU, launched together) leaves
 * the sum over the ranks, k·(i mod 1000) with k = 1 + 2 + … + ranks, on every GPU. Then an allGather of each
 * rank's number and a broadcast from the last rank, each checked on every GPU. On a machine with one GPU it is a
 * communicator of one rank (the results are then the inputs).
 *
 *   bun examples/nccl_all_reduce.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/nccl_all_reduce.ts
 */
import { Device, DeviceArray } from "../src/index.ts";
import { Communicator, group } from "../src/distributed.ts";

const devices = Device.all();
if (devices.length === 0) throw new Error("nccl_all_reduce: no CUDA device");
const comms = Communicator.initAll(devices);
try {
  const size = comms.length;
  const n = 1 << 16;
  const ranks = devices.map((dev, r) => {
    dev.setCurrent();
    const stream = dev.createStream();
    const x = DeviceArray.from(Float32Array.from({ length: n }, (_, i) => (r + 1) * (i % 1000)), { stream });
    const mine = DeviceArray.from(Int32Array.of(100 + r), { stream });
    const all = DeviceArray.zeros(size, "int32", { stream });
    const last = DeviceArray.from(Float64Array.of(r === size - 1 ? 2.5 : -1), { stream });
    return { dev, stream, x, mine, all, last };
  });

  // One group: NCCL launches the ranks' collectives together (each rank's call alone would wait for the others).
  group(() => {
    for (const [r, p] of ranks.entries()) comms[r]!.allReduce(p.x, p.x, { op: "sum", stream: p.stream });
  });
  group(() => {
    for (const [r, p] of ranks.entries()) comms[r]!.allGather(p.mine, p.all, { stream: p.stream });
  });
  group(() => {
    for (const [r, p] of ranks.entries()) comms[r]!.broadcast(p.last, p.last, { root: size - 1, stream: p.stream });
  });

  const k = (size * (size + 1)) / 2;
  for (const [r, p] of ranks.entries()) {
    await comms[r]!.done(p.stream);
    const x = await p.x.toTypedArray({ stream: p.stream });
    for (let i = 0; i < n; i++) {
      if (x[i] !== k * (i % 1000)) throw new Error(`nccl_all_reduce: GPU ${p.dev.id} index ${i}: ${x[i]}, expected ${k * (i % 1000)}`);
    }
    const all = [...(await p.all.toTypedArray({ stream: p.stream }))];
    if (all.join() !== devices.map((_, j) => 100 + j).join()) throw new Error(`nccl_all_reduce: GPU ${p.dev.id} gathered [${all.join(", ")}]`);
    const last = (await p.last.toTypedArray({ stream: p.stream }))[0];
    if (last !== 2.5) throw new Error(`nccl_all_reduce: GPU ${p.dev.id} received ${last} from the broadcast, expected 2.5`);
    console.log(`GPU ${p.dev.id} (${p.dev.name}): rank ${comms[r]!.rank} of ${size}: allReduce, allGather and broadcast checked`);
    for (const a of [p.x, p.mine, p.all, p.last]) a.close();
  }
  console.log(`nccl_all_reduce: ${size} rank(s), allReduce(sum) of ${n} float32 (×${k}), allGather of int32, broadcast of float64 OK`);
} finally {
  Communicator.closeAll(comms);
}
