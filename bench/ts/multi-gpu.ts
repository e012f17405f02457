/**
 * cuda-ts's contender of the several-GPU benchmark (bench/multi-gpu-run.sh): peer-copy bandwidth and NCCL
 * all-reduce bus bandwidth with two ranks in this process (`Communicator.initAll`), timed exactly as bench/c/multi_gpu.c
 * times C (host clock around `iters` calls, streams synchronised before and after, the median of 5 rounds; the
 * peer copy: the median of 11 rounds), so the two compare call for call.
 *
 *   bun bench/ts/multi-gpu.ts [--min-bytes 8] [--max-bytes 1073741824] [--iters 20] [--warmup 5]
 *   deno run -A bench/ts/multi-gpu.ts ...
 *
 * Prints JSON lines in bench/README.md's format (contender `<runtime>-core`): `p2p.256MiB` (GB/s, GPU 0 → GPU 1,
 * `Buffer.copyTo` between devices), `nccl.allreduce.<bytes>` (bus bandwidth GB/s, float32 sum, out of place) and
 * `nccl.allreduce.8B.latency` (µs per call). Needs two GPUs; with fewer it prints a skip line and exits 0.
 *
 * @module
 */
import { Device, DeviceArray, type Stream } from "../../src/index.ts";
import { Communicator, group } from "../../src/distributed.ts";
import { ffi } from "../../src/ffi/index.ts";

const g = globalThis as unknown as { Deno?: { args: string[] }; process?: { argv: string[] } };
const args = g.Deno?.args ?? g.process?.argv.slice(2) ?? [];
function option(name: string, fallback: number): number {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}
const minBytes = option("--min-bytes", 8);
const maxBytes = option("--max-bytes", 2 ** 30);
const iters = option("--iters", 20);
const warmup = option("--warmup", 5);
const C = `${ffi.runtime}-core`;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const devices = Device.all();
if (devices.length < 2) {
  console.log(JSON.stringify({ contender: C, measure: "nccl.allreduce", skipped: `needs two GPUs, found ${devices.length}` }));
} else {
  const [d0, d1] = devices as [Device, Device];
  for (const d of [d0, d1]) d.setCurrent();
  const streams: Stream[] = [d0, d1].map((d) => d.createStream());
  const count = Math.floor(maxBytes / 4);
  const send = [d0, d1].map((_, r) => DeviceArray.full([count], 1, "float32", { stream: streams[r]! }));
  const recv = [d0, d1].map((_, r) => DeviceArray.empty([count], "float32", { stream: streams[r]! }));
  for (const s of streams) s.sync();

  // Peer copies: 256 MiB, GPU 0 → GPU 1, on GPU 0's stream.
  const access = d0.canAccessPeer(d1) && d1.canAccessPeer(d0);
  console.log(JSON.stringify({ contender: C, measure: "p2p.canAccessPeer", value: access ? 1 : 0, unit: "bool" }));
  if (access) {
    d0.enablePeerAccess(d1);
    d1.enablePeerAccess(d0);
  }
  const peerBytes = 256 * 2 ** 20;
  {
    const src = d0.allocate(peerBytes, { stream: streams[0]! });
    const dst = d1.allocate(peerBytes, { stream: streams[1]! });
    streams[1]!.sync();
    for (let i = 0; i < warmup; i++) src.copyTo(dst, { stream: streams[0]! });
    streams[0]!.sync();
    const samples: number[] = [];
    for (let round = 0; round < 11; round++) {
      const t0 = performance.now();
      for (let i = 0; i < iters; i++) src.copyTo(dst, { stream: streams[0]! });
      streams[0]!.sync();
      samples.push((peerBytes * iters) / ((performance.now() - t0) / 1e3) / 1e9);
    }
    const sorted = [...samples].sort((a, b) => a - b);
    console.log(JSON.stringify({ contender: C, measure: "p2p.256MiB", value: Number(median(samples).toFixed(3)), unit: "GB/s", min: sorted[0], max: sorted[sorted.length - 1], note: `Buffer.copyTo GPU 0 -> GPU 1, ${iters} per sample` }));
    src.close(streams[0]!);
    dst.close(streams[1]!);
  }

  // All-reduce, float32 sum, out of place, two ranks in this process.
  const comms = Communicator.initAll([d0, d1]);
  try {
    for (let bytes = minBytes; bytes <= maxBytes; bytes *= 2) {
      const n = Math.floor(bytes / 4);
      if (n === 0) continue;
      const s = send.map((a) => a.subarray(0, n));
      const r = recv.map((a) => a.subarray(0, n));
      const once = (): void =>
        group(() => {
          for (let k = 0; k < 2; k++) comms[k]!.allReduce(s[k]!, r[k]!, { op: "sum", stream: streams[k]! });
        });
      for (let i = 0; i < warmup; i++) once();
      for (const st of streams) st.sync();
      const samples: number[] = [];
      for (let round = 0; round < 5; round++) {
        const t0 = performance.now();
        for (let i = 0; i < iters; i++) once();
        for (const st of streams) st.sync();
        samples.push((performance.now() - t0) / 1e3 / iters);
      }
      const sec = median(samples);
      const busbw = ((n * 4) / sec / 1e9) * ((2 * (2 - 1)) / 2);
      console.log(JSON.stringify({ contender: C, measure: `nccl.allreduce.${n * 4}`, value: Number(busbw.toFixed(4)), unit: "GB/s", us: Number((sec * 1e6).toFixed(3)), note: "bus bandwidth, float32 sum, out of place, 2 ranks in one process (Communicator.initAll)" }));
      if (n * 4 === 8) console.log(JSON.stringify({ contender: C, measure: "nccl.allreduce.8B.latency", value: Number((sec * 1e6).toFixed(3)), unit: "us" }));
      for (const a of [...s, ...r]) a.close();
    }
  } finally {
    Communicator.closeAll(comms);
    for (const a of [...send, ...recv]) a.close();
    for (const st of streams) st.close();
  }
}
