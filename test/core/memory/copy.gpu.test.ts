/**
 * Several GPUs: peer access, copies between devices (peer-to-peer and staged through pinned host memory) with
 * their stream ordering, and streams of one device waiting on events of another. Written for any number of GPUs
 * (every ordered pair of Device.all()); the single-device parts (ordering with a second stream, the staged route,
 * argument checks) run on one GPU, the rest skips with a message when there are fewer than two. Ordering is
 * tested by making the work that must come first slow (a kernel that spins before it writes): without the
 * ordering, the copy would see the old bytes.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  Buffer,
  Device,
  LaunchConfig,
  PeerAccessError,
  i64,
  launch,
  u32,
  u64,
  type Kernel,
  type ObjectCode,
  type Stream,
} from "../../../src/index.ts";
import { Program } from "../../../src/core/program/program.ts";
import { STAGING_CHUNK_BYTES } from "../../../src/core/memory/copy.ts";
import { gpu, skipNote } from "../../support/gpu.ts";

const SOURCE = `
typedef unsigned long long u64;
extern "C" __global__ void fill_after_spin(unsigned* out, u64 n, unsigned base, long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {}
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) out[i] = base + (unsigned)i;
}
extern "C" __global__ void add_from(const unsigned* in, unsigned* out, u64 n, unsigned add) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) out[i] = in[i] + add;
}`;

/** About 25 ms at 2 GHz: far longer than queueing the work that must wait for it. */
const SPIN = 50_000_000n;
const count = gpu.available ? Device.count : 0;

const codes = new Map<string, ObjectCode>();
function kernels(dev: Device): { fill: Kernel; add: Kernel } {
  let code = codes.get(dev.arch);
  if (code === undefined) {
    code = new Program(SOURCE, "c++", { arch: `sm_${dev.arch}` }).compile("cubin");
    codes.set(dev.arch, code);
  }
  return { fill: code.getKernel("fill_after_spin"), add: code.getKernel("add_from") };
}

function config(dev: Device): LaunchConfig {
  return new LaunchConfig({ grid: dev.properties.multiprocessorCount * 2, block: 256 });
}

/** Writes base + i into `out` on `stream`, after spinning `cycles` clock cycles. */
function fill(stream: Stream, out: Buffer, base: number, cycles = SPIN): void {
  const dev = stream.device;
  launch(stream, config(dev), kernels(dev).fill, out, u64(out.size / 4), u32(base), i64(cycles));
}

/** A device buffer of `words` u32s allocated on `stream`, its allocation complete (usable on any stream). */
function alloc(dev: Device, stream: Stream, words: number): Buffer {
  const b = dev.allocate(words * 4, { stream });
  b.fill(0xee, { stream });
  stream.sync();
  return b;
}

/** Copies a buffer to the host on `stream` and waits. */
function read(buffer: Buffer, stream: Stream): Uint32Array {
  const host = new Uint32Array(buffer.size / 4);
  buffer.copyTo(host, { stream });
  stream.sync();
  return host;
}

/** The first index where `host[i] !== base + i`, or -1. */
function firstMismatch(host: Uint32Array, base: number): number {
  for (let i = 0; i < host.length; i++) if (host[i] !== ((base + i) >>> 0)) return i;
  return -1;
}

function expectPattern(host: Uint32Array, base: number, what: string): void {
  const i = firstMismatch(host, base);
  expect(i, `${what}: element ${i} is ${host[i]}, expected ${base + i}`).toBe(-1);
}

beforeAll(() => {
  if (!gpu.available) return;
  for (const d of Device.all()) d.setCurrent();
  Device.all()[0]!.setCurrent();
});

describe.skipIf(!gpu.available)(`copies and peer access on one GPU${skipNote}`, () => {
  it("a device can access itself, and enabling peer access to itself does nothing", () => {
    for (const d of Device.all()) {
      expect(d.canAccessPeer(d)).toBe(true);
      expect(() => d.enablePeerAccess(d)).not.toThrow();
    }
  });

  it("copyTo with a peerStream waits for that stream's work, and that stream's later work waits for the copy", () => {
    const dev = Device.all()[0]!;
    using s1 = dev.createStream();
    using s2 = dev.createStream();
    const words = 1 << 20;
    using src = alloc(dev, s1, words);
    using dst = alloc(dev, s2, words);
    using scratch = alloc(dev, s2, 256);
    fill(s1, src, 100); // slow: the copy must wait for it
    fill(s2, scratch, 0); // slow: s1's overwrite below must wait for the copy behind it
    src.copyTo(dst, { stream: s2, peerStream: s1 });
    fill(s1, src, 7, 0n);
    expectPattern(read(dst, s2), 100, "copied");
    expectPattern(read(src, s1), 7, "overwritten after the copy");
  });

  it('stages through pinned host memory with { via: "host" }, chunk by chunk, reusing the staging slots safely', () => {
    const dev = Device.all()[0]!;
    using s1 = dev.createStream();
    using s2 = dev.createStream();
    // Two and a half chunks and a bit: three chunks over two slots, the last one partial.
    const words = (STAGING_CHUNK_BYTES * 5) / 8 + 3;
    using a = alloc(dev, s1, words);
    using b = alloc(dev, s2, words);
    using da = alloc(dev, s1, words);
    using db = alloc(dev, s2, words);
    fill(s1, a, 1000);
    fill(s2, b, 2000);
    a.copyTo(da, { stream: s1, via: "host" });
    b.copyTo(db, { stream: s2, via: "host" }); // right behind: its chunks wait for the slots the first copy drains
    expectPattern(read(da, s1), 1000, "first staged copy");
    expectPattern(read(db, s2), 2000, "second staged copy");
    db.copyFrom(a, { stream: s2, peerStream: s1, via: "host" });
    expectPattern(read(db, s2), 1000, "staged copyFrom");
  });

  it('copies within a device with { via: "peer" } as a plain copy; size-0 copies do nothing', () => {
    const dev = Device.all()[0]!;
    using s = dev.createStream();
    using a = alloc(dev, s, 4096);
    using b = alloc(dev, s, 4096);
    fill(s, a, 5, 0n);
    a.copyTo(b, { stream: s, via: "peer" });
    expectPattern(read(b, s), 5, "same-device copy");
    using e1 = dev.allocate(0, { stream: s });
    using e2 = dev.allocate(0, { stream: s });
    expect(() => e1.copyTo(e2, { stream: s, via: "host" })).not.toThrow();
  });

  it("rejects a route that is not one and a peerStream that is not a stream", () => {
    const dev = Device.all()[0]!;
    using s = dev.createStream();
    using a = alloc(dev, s, 16);
    using b = alloc(dev, s, 16);
    expect(() => a.copyTo(b, { stream: s, via: "nvlink" as never })).toThrow(/via is "auto", "peer" or "host"/);
    expect(() => a.copyTo(b, { stream: s, peerStream: {} as never })).toThrow(/CopyOptions: peerStream must be a Stream or undefined, not \{\}/);
    s.sync();
  });
});

describe.skipIf(!gpu.available || count < 2)(
  `several GPUs${gpu.available && count < 2 ? ` [skipped: needs at least 2 GPUs, this machine has ${count}]` : skipNote}`,
  () => {
    /** Every ordered pair of distinct devices. */
    function pairs(): [Device, Device][] {
      const all = Device.all();
      return all.flatMap((a) => all.filter((b) => b.id !== a.id).map((b) => [a, b] as [Device, Device]));
    }

    it("enables peer access idempotently, after which a kernel on one GPU reads another's pool memory; PeerAccessError where the GPUs cannot", () => {
      for (const [a, b] of pairs()) {
        if (!a.canAccessPeer(b)) {
          expect(() => a.enablePeerAccess(b)).toThrow(PeerAccessError);
          continue;
        }
        a.enablePeerAccess(b);
        a.enablePeerAccess(b);
        using sa = a.createStream();
        using sb = b.createStream();
        const words = 1 << 20;
        using onB = alloc(b, sb, words);
        using onA = alloc(a, sa, words);
        fill(sb, onB, 300);
        sa.wait(sb.record());
        launch(sa, config(a), kernels(a).add, onB, onA, u64(words), u32(1));
        expectPattern(read(onA, sa), 301, `GPU ${a.id} reading GPU ${b.id}'s memory`);
        sb.sync();
      }
    });

    it("copies between GPUs by every route, ordered with both devices' streams (copyTo and copyFrom)", () => {
      for (const [a, b] of pairs()) {
        const peer = a.canAccessPeer(b) && b.canAccessPeer(a);
        const routes = peer ? (["auto", "peer", "host"] as const) : (["auto", "host"] as const);
        // Enabling peer access (which the first peer copy does) can wait for the devices' work: do it before, so
        // the ordering checks below see only what the copy itself orders.
        if (peer) {
          a.enablePeerAccess(b);
          b.enablePeerAccess(a);
        }
        using sa = a.createStream();
        using sb = b.createStream();
        const words = (STAGING_CHUNK_BYTES * 3) / 4 + 5;
        using src = alloc(a, sa, words);
        using dst = alloc(b, sb, words);
        using scratch = alloc(b, sb, 256);
        for (const [k, via] of routes.entries()) {
          const base = 10_000 * (k + 1);
          fill(sa, src, base); // the copy must wait for this
          fill(sb, scratch, 0); // the copy queues behind this on b, so sa's overwrite must wait for the copy
          src.copyTo(dst, { stream: sa, peerStream: sb, via });
          fill(sa, src, 1, 0n);
          expectPattern(read(dst, sb), base, `GPU ${a.id} → GPU ${b.id} via ${via} (copyTo)`);
          expectPattern(read(src, sa), 1, `GPU ${a.id}'s source overwritten after the copy via ${via}`);

          fill(sa, src, base + 1);
          dst.copyFrom(src, { stream: sb, peerStream: sa, via });
          expectPattern(read(dst, sb), base + 1, `GPU ${a.id} → GPU ${b.id} via ${via} (copyFrom)`);

          // One stream only: the copy is ordered on it; the other device's stream waits for that one.
          fill(sa, src, base + 2);
          src.copyTo(dst, { stream: sa, via });
          sb.wait(sa);
          expectPattern(read(dst, sb), base + 2, `GPU ${a.id} → GPU ${b.id} via ${via}, ordered on the source's stream only`);
        }
        if (!peer) expect(() => src.copyTo(dst, { stream: sa, via: "peer" })).toThrow(PeerAccessError);
        sa.sync();
        sb.sync();
      }
    });

    it("makes a stream of one GPU wait for an event of another before copying what the other wrote", () => {
      for (const [a, b] of pairs()) {
        using sa = a.createStream();
        using sb = b.createStream();
        const words = 1 << 18;
        using onA = alloc(a, sa, words);
        using onB = alloc(b, sb, words);
        fill(sa, onA, 4242);
        const written = sa.record();
        sb.wait(written);
        onB.copyFrom(onA, { stream: sb }); // ordered on sb only: the event is what makes it wait for the kernel
        expectPattern(read(onB, sb), 4242, `GPU ${b.id} waiting for GPU ${a.id}'s event`);
        written.close();
        sa.sync();
      }
    });

    it("gathers a part computed on every GPU onto the first, each copy ordered after its GPU's kernel", () => {
      const all = Device.all();
      const first = all[0]!;
      using s0 = first.createStream();
      const words = 1 << 16;
      using gathered = alloc(first, s0, words * all.length);
      const streams = all.map((d) => d.createStream());
      const parts = all.map((d, k) => alloc(d, streams[k]!, words));
      for (const [k] of all.entries()) fill(streams[k]!, parts[k]!, words * k);
      const slices = all.map((_, k) => Buffer.fromHandle(gathered.handle + BigInt(k * words * 4), words * 4, { owner: gathered }));
      for (const [k] of all.entries()) parts[k]!.copyTo(slices[k]!, { stream: s0, peerStream: streams[k]! });
      expectPattern(read(gathered, s0), 0, "gathered parts");
      for (const [k, s] of streams.entries()) {
        s.sync();
        parts[k]!.close();
        s.close();
      }
    });
  },
);
