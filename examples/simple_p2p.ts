/**
 * simple_p2p: peer-to-peer between two GPUs, a port of the CUDA sample simpleP2P. It checks that the two GPUs can
 * reach each other's memory, turns peer access on both ways, measures the bandwidth of peer copies (GPU 0 → GPU 1
 * and back) with events, then runs a kernel on GPU 1 that reads GPU 0's memory directly and writes GPU 0's memory
 * directly (no copy), and checks every element on the host.
 *
 *   bun examples/simple_p2p.ts [MiB]
 *   deno run --allow-ffi --allow-env --allow-read examples/simple_p2p.ts [MiB]
 *
 * Needs two GPUs that can access each other's memory (NVLink or PCIe peer-to-peer); with fewer it says so and exits
 * 0 with a "(skipped)" line, as the CUDA sample waives.
 */
import { Device, DeviceArray, Event, LaunchConfig, Program, f32, launch, u64 } from "../src/index.ts";

const g = globalThis as unknown as { Deno?: { args: string[] }; process?: { argv: string[] } };
const args = g.Deno?.args ?? g.process?.argv.slice(2) ?? [];
const mib = Number(args[0] ?? "64");
if (!Number.isInteger(mib) || mib <= 0) throw new Error(`simple_p2p: the size is a whole number of MiB, got ${args[0]}`);

const devices = Device.all();
if (devices.length < 2) {
  console.log(`simple_p2p: needs two GPUs, this machine has ${devices.length} (skipped)`);
} else {
  const [g0, g1] = devices as [Device, Device];
  g0.setCurrent();
  g1.setCurrent();
  if (!g0.canAccessPeer(g1) || !g1.canAccessPeer(g0)) {
    console.log(`simple_p2p: GPU ${g0.id} and GPU ${g1.id} cannot access each other's memory (skipped)`);
  } else {
    g0.enablePeerAccess(g1);
    g1.enablePeerAccess(g0);
    console.log(`simple_p2p: peer access on between GPU ${g0.id} (${g0.name}) and GPU ${g1.id} (${g1.name})`);

    const n = (mib * 1024 * 1024) / 4;
    const s0 = g0.createStream();
    const s1 = g1.createStream();
    const host = Float32Array.from({ length: n }, (_, i) => i % 4096);
    using a0 = DeviceArray.from(host, { stream: s0 }); // on GPU 0
    using b1 = DeviceArray.empty([n], "float32", { stream: s1 }); // on GPU 1
    s0.sync();
    s1.sync();

    // Peer copies, timed with events on the stream that runs them: GPU 0 → GPU 1, then back, `reps` times each.
    const reps = 20;
    const start = g0.createEvent({ timing: true });
    const end = g0.createEvent({ timing: true });
    s0.record(start);
    for (let r = 0; r < reps; r++) {
      if (r % 2 === 0) a0.buffer.copyTo(b1.buffer, { stream: s0 });
      else b1.buffer.copyTo(a0.buffer, { stream: s0 });
    }
    s0.record(end);
    end.sync();
    const ms = Event.elapsedTime(start, end);
    const gbs = (reps * a0.nbytes) / (ms / 1000) / 1e9;
    console.log(`simple_p2p: cudaMemcpyPeer of ${mib} MiB, ${reps} times: ${gbs.toFixed(2)} GB/s`);
    start.close();
    end.close();

    // A kernel on GPU 1 reading GPU 0's memory and writing GPU 0's memory, through peer access.
    const code = new Program(
      `extern "C" __global__ void scale(const float* src, float* dst, float s, unsigned long long n) {
         for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x) dst[i] = s * src[i];
       }`,
      "c++",
      { arch: `sm_${g1.arch}` },
    ).compile("cubin");
    const kernel = code.getKernel("scale");
    using out0 = DeviceArray.empty([n], "float32", { stream: s0 }); // on GPU 0
    s0.sync();
    launch(s1, new LaunchConfig({ grid: g1.properties.multiprocessorCount * 4, block: 256 }), kernel, a0, out0, f32(2), u64(n));
    s1.sync();
    const back = out0.toTypedArraySync({ stream: s0 }) as Float32Array;
    let bad = 0;
    for (let i = 0; i < n; i++) if (back[i] !== 2 * host[i]!) bad++;
    if (bad !== 0) throw new Error(`simple_p2p: ${bad} of ${n} elements wrong after the peer kernel`);
    console.log(`simple_p2p: ${mib} MiB peer copies at ${gbs.toFixed(2)} GB/s and a kernel on GPU ${g1.id} reading and writing GPU ${g0.id}'s memory OK`);
    code.close();
    s0.close();
    s1.close();
  }
}
