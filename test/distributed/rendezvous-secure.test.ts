/**
 * The rendezvous against a network peer without the secret (no GPU): a man-in-the-middle relay (a TCP proxy here)
 * forwards the handshake and then reads, changes, replays, reorders or reflects the frames after it. It reads no key
 * or value (a communicator's unique id), and every change is refused by the receiver with a typed
 * RendezvousIntegrityError, the connection closed, and the message without effect. Then: idle connections that never
 * authenticate are capped and timed out, and real clients get through while thousands are held open. Then: a
 * fuzz of the session's opening of frames with a random seed per run (printed; CUDA_TS_FUZZ_SEED replays it).
 */
import { afterEach, describe, expect, it } from "vitest";
import * as net from "node:net";
import { randomBytes } from "node:crypto";
import { RendezvousError } from "../../src/core/errors.ts";
import { encodeFrame, FrameReader, MAX_FRAME_BYTES, RendezvousClient, RendezvousServer, SEAL_OVERHEAD } from "../../src/core/distributed/rendezvous.ts";
import { SessionCipher } from "../../src/core/distributed/rendezvous-crypto.ts";
import { RendezvousIntegrityError, type RendezvousIntegrityFault } from "../../src/core/distributed/errors.ts";
import { UniqueId } from "../../src/core/distributed/unique-id.ts";
import { mutate, Rng } from "../support/fuzz.ts";
import { otherUser, requireTwoUsers } from "../support/two-users.ts";
import { resolve } from "node:path";

const here = import.meta.dirname ?? new URL(".", import.meta.url).pathname;

type Direction = "c2s" | "s2c";
interface RelayIo {
  /** Sends a frame payload to the client (as if from the server). */
  toClient(payload: Uint8Array): void;
  /** Sends a frame payload to the server (as if from the client). */
  toServer(payload: Uint8Array): void;
}
/**
 * What the relay does with a frame after the handshake: `index` counts the session's frames of `direction` from 0
 * (the sealed message's sequence number when nothing was changed). Returns true when it took care of the frame
 * (dropped, changed, held); otherwise the frame is forwarded as it came.
 */
type Hook = (direction: Direction, index: number, payload: Uint8Array, io: RelayIo) => boolean | void;

interface Relay {
  readonly port: number;
  /** Every byte the relay saw, each direction in order. */
  readonly seen: Record<Direction, Buffer[]>;
  close(): Promise<void>;
}

const relays: Relay[] = [];
afterEach(async () => {
  await Promise.all(relays.splice(0).map((r) => r.close()));
});

/** A TCP proxy to `target` without the secret: forwards the handshake's three frames, then asks `hook` about each frame. */
async function relay(target: number, hook: Hook = () => false): Promise<Relay> {
  const seen: Record<Direction, Buffer[]> = { c2s: [], s2c: [] };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.createConnection({ host: "127.0.0.1", port: target });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    const frame = (p: Uint8Array): Buffer => Buffer.from(encodeFrame(p));
    const io: RelayIo = { toClient: (p) => void client.write(frame(p)), toServer: (p) => void upstream.write(frame(p)) };
    const pipe = (direction: Direction, from: net.Socket, to: net.Socket, handshakeFrames: number): void => {
      const reader = new FrameReader();
      let n = 0;
      from.on("data", (chunk: Buffer) => {
        seen[direction].push(Buffer.from(chunk));
        reader.push(new Uint8Array(chunk));
        for (let f = reader.next(); f !== undefined; f = reader.next()) {
          const index = n++ - handshakeFrames;
          if (index < 0 || hook(direction, index, f, io) !== true) to.write(frame(f));
        }
      });
    };
    pipe("c2s", client, upstream, 1); // the client's proof and nonce
    pipe("s2c", upstream, client, 2); // the server's nonce and its proof
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const r: Relay = {
    port: (server.address() as net.AddressInfo).port,
    seen,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((done) => server.close(() => done()));
    },
  };
  relays.push(r);
  return r;
}

/** A server that records its refusals (the integrity errors, or the reasons). */
async function recordingServer(options: { authTimeoutMs?: number; maxUnauthenticatedClients?: number } = {}): Promise<{ server: RendezvousServer; refusals: (RendezvousIntegrityError | string)[] }> {
  const refusals: (RendezvousIntegrityError | string)[] = [];
  const server = await RendezvousServer.start({ ...options, onRefused: (reason, error) => refusals.push(error ?? reason) });
  return { server, refusals };
}

const connect = (port: number, secret: string, timeoutMs = 5000): Promise<RendezvousClient> => RendezvousClient.connect({ host: "127.0.0.1", port, secret, timeoutMs });

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The fault of a rejected promise's integrity error (fails the test for anything else). */
async function faultOf(p: Promise<unknown>): Promise<RendezvousIntegrityFault> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(RendezvousIntegrityError);
  expect(e).toBeInstanceOf(RendezvousError);
  return (e as RendezvousIntegrityError).fault;
}

/** True when some 8-byte window of `needle` occurs in `hay`. */
function leaks(hay: Buffer, needle: Buffer): boolean {
  for (let i = 0; i + 8 <= needle.length; i++) if (hay.indexOf(needle.subarray(i, i + 8)) !== -1) return true;
  return false;
}

describe("the rendezvous through a man-in-the-middle without the secret", () => {
  it("(a) the relay reads no key, value or secret: the unique id's bytes never cross in clear", async () => {
    const { server } = await recordingServer();
    await using _ = server;
    const mitm = await relay(server.port);
    const raw = randomBytes(128);
    const id = UniqueId.fromBytes(raw).toBase64();
    const key = "cuda-ts/comm/nccl-unique-id-of-the-world";
    using a = await connect(mitm.port, server.secret);
    using b = await connect(mitm.port, server.secret);
    const waiting = b.get(key);
    await a.set(key, id);
    expect(await waiting).toBe(id);
    expect(await a.get(key)).toBe(id);
    const all = Buffer.concat([...mitm.seen.c2s, ...mitm.seen.s2c]);
    expect(all.length).toBeGreaterThan(3 * id.length); // the set, two replies and more went through the relay
    console.log(`relay saw ${mitm.seen.c2s.reduce((n, c) => n + c.length, 0)} bytes client->server, ${mitm.seen.s2c.reduce((n, c) => n + c.length, 0)} server->client`);
    for (const needle of [Buffer.from(id), raw, Buffer.from(key), Buffer.from(server.secret), Buffer.from(server.secret, "hex"), Buffer.from(raw.toString("hex"))]) {
      expect(leaks(all, needle)).toBe(false);
    }
    expect(all.includes(Buffer.from('"op"'))).toBe(false); // not even the request's JSON shape
  });

  it("(b) a byte changed client->server (sequence number, ciphertext or tag): refused, the value not stored", async () => {
    const { server, refusals } = await recordingServer();
    await using _ = server;
    for (const where of ["seq", "ciphertext", "tag"] as const) {
      const mitm = await relay(server.port, (direction, index, p, io) => {
        if (direction !== "c2s" || index !== 0) return false;
        const changed = new Uint8Array(p);
        changed[where === "seq" ? 7 : where === "ciphertext" ? 8 + 5 : changed.length - 1]! ^= 0x01;
        io.toServer(changed);
        return true;
      });
      using c = await connect(mitm.port, server.secret);
      await expect(c.set("nccl-id", "the-real-id")).rejects.toThrow(RendezvousError); // the server closes the connection
      await until(() => refusals.length > 0);
      const e = refusals.shift();
      expect(e).toBeInstanceOf(RendezvousIntegrityError);
      expect((e as RendezvousIntegrityError).fault).toBe("tampered");
      expect(server.peek("nccl-id")).toBeUndefined();
    }
    expect(server.refusedClients).toBe(3);
  });

  it("(b) a byte changed server->client, or a frame cut short: the rank refuses the reply and gets no value", async () => {
    const { server } = await recordingServer();
    await using _ = server;
    using honest = await connect(server.port, server.secret);
    await honest.set("nccl-id", UniqueId.fromBytes(randomBytes(128)).toBase64());
    const flip = await relay(server.port, (direction, index, p, io) => {
      if (direction !== "s2c" || index !== 0) return false;
      const changed = new Uint8Array(p);
      changed[12]! ^= 0x80;
      io.toClient(changed);
      return true;
    });
    using c = await connect(flip.port, server.secret);
    const got = c.get("nccl-id");
    expect(await faultOf(got)).toBe("tampered");
    await expect(c.get("nccl-id")).rejects.toThrow(RendezvousIntegrityError); // the connection stays refused
    const cut = await relay(server.port, (direction, index, p, io) => {
      if (direction !== "s2c" || index !== 0) return false;
      io.toClient(p.subarray(0, SEAL_OVERHEAD - 1));
      return true;
    });
    using d = await connect(cut.port, server.secret);
    expect(await faultOf(d.get("nccl-id"))).toBe("malformed");
    // A frame of another session (recorded earlier, with the same secret) does not open in this one.
    let recorded: Uint8Array | undefined;
    const rec = await relay(server.port, (direction, index, p) => {
      if (direction === "s2c" && index === 0) recorded = p;
      return false;
    });
    using e = await connect(rec.port, server.secret);
    await e.get("nccl-id");
    const inject = await relay(server.port, (direction, index, _p, io) => {
      if (direction !== "s2c" || index !== 0) return false;
      io.toClient(recorded!);
      return true;
    });
    using f = await connect(inject.port, server.secret);
    expect(await faultOf(f.get("nccl-id"))).toBe("tampered");
  });

  it("(c) a replayed or reordered frame: refused, both ways", async () => {
    const { server, refusals } = await recordingServer();
    await using _ = server;
    // Client->server replay: the relay sends the earlier set again after the later one, to revert the value.
    let first: Uint8Array | undefined;
    const replay = await relay(server.port, (direction, index, p, io) => {
      if (direction !== "c2s") return false;
      if (index === 0) first = p;
      if (index === 1) {
        io.toServer(p);
        io.toServer(first!);
        return true;
      }
      return false;
    });
    using a = await connect(replay.port, server.secret);
    await a.set("nccl-id", "stale");
    await a.set("nccl-id", "fresh");
    await until(() => refusals.length > 0);
    expect((refusals.shift() as RendezvousIntegrityError).fault).toBe("replayed");
    expect(server.peek("nccl-id")).toBe("fresh");
    // Client->server reordering: the relay holds the first of two sets back and sends it after the second.
    let held: Uint8Array | undefined;
    const reorder = await relay(server.port, (direction, index, p, io) => {
      if (direction !== "c2s") return false;
      if (index === 0) return ((held = p), true);
      if (index === 1) {
        io.toServer(p);
        io.toServer(held!);
        return true;
      }
      return false;
    });
    using b = await connect(reorder.port, server.secret);
    const both = Promise.allSettled([b.set("order", "1"), b.set("order", "2")]);
    await until(() => refusals.length > 0);
    expect((refusals.shift() as RendezvousIntegrityError).fault).toBe("reordered");
    expect((await both).map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(server.peek("order")).toBeUndefined();
    // Server->client replay: the reply to an earlier get handed out again as the reply to a later one.
    using honest = await connect(server.port, server.secret);
    await honest.set("a", "value-of-a");
    await honest.set("b", "value-of-b");
    let reply0: Uint8Array | undefined;
    const back = await relay(server.port, (direction, index, p, io) => {
      if (direction !== "s2c") return false;
      if (index === 0) reply0 = p;
      if (index === 1) return (io.toClient(reply0!), true);
      return false;
    });
    using c = await connect(back.port, server.secret);
    expect(await c.get("a")).toBe("value-of-a");
    expect(await faultOf(c.get("b"))).toBe("replayed");
    expect(server.refusedClients).toBe(2);
  });

  it("(d) a frame reflected back to its sender: refused, both ways", async () => {
    const { server, refusals } = await recordingServer();
    await using _ = server;
    // Client->client: the client's own set comes back to it as if it were the server's reply.
    const toClient = await relay(server.port, (direction, index, p, io) => {
      if (direction !== "c2s" || index !== 0) return false;
      io.toClient(p);
      return true;
    });
    using a = await connect(toClient.port, server.secret);
    expect(await faultOf(a.set("nccl-id", "x"))).toBe("reflected");
    expect(server.peek("nccl-id")).toBeUndefined();
    // Server->server: the server's reply goes back to the server as if it were the client's next request.
    using honest = await connect(server.port, server.secret);
    await honest.set("k", "v");
    const toServer = await relay(server.port, (direction, index, p, io) => {
      if (direction !== "s2c" || index !== 0) return false;
      io.toServer(p);
      return true;
    });
    using b = await connect(toServer.port, server.secret);
    const pending = b.get("k").then(
      () => undefined,
      (e: unknown) => e,
    );
    await until(() => refusals.length > 0);
    expect((refusals.shift() as RendezvousIntegrityError).fault).toBe("reflected");
    expect(await pending).toBeInstanceOf(RendezvousError); // the server closed the connection
    expect(server.peek("k")).toBe("v");
    expect(server.refusedClients).toBe(1);
  });
});

/**
 * Opens `n` raw TCP connections to `server` that never say anything, in batches of 250 that the server has taken in
 * before the next (an overflowing accept queue would leave some with the kernel, unseen by the server). For each:
 * whether the server sent it the challenge (it was let in to wait), and how long after the challenge (or after
 * connecting, when turned away) it was closed.
 */
async function idleFlood(server: RendezvousServer, n: number): Promise<{ sockets: net.Socket[]; challenged: boolean[]; closedAfter: (number | undefined)[]; openMs: number }> {
  const port = server.port;
  const sockets: net.Socket[] = [];
  const challenged: boolean[] = new Array(n).fill(false);
  const closedAfter: (number | undefined)[] = new Array(n).fill(undefined);
  const t0 = performance.now();
  const opened: Promise<void>[] = [];
  const seenBefore = server.refusedClients + server.unauthenticatedClients;
  for (let i = 0; i < n; i++) {
    if (i % 250 === 0 && i > 0) {
      await Promise.all(opened);
      await until(() => server.refusedClients + server.unauthenticatedClients - seenBefore >= i); // each is waiting or was closed
    }
    let since = performance.now();
    const s = net.createConnection({ host: "127.0.0.1", port });
    s.on("error", () => {});
    s.on("data", () => {
      if (!challenged[i]) since = performance.now();
      challenged[i] = true;
    });
    opened.push(
      new Promise<void>((r) => {
        s.once("connect", () => {
          since = performance.now();
          r();
        });
        s.once("close", () => r());
      }),
    );
    s.once("close", () => (closedAfter[i] = performance.now() - since));
    sockets.push(s);
  }
  await Promise.all(opened);
  await until(() => server.refusedClients + server.unauthenticatedClients - seenBefore >= n);
  return { sockets, challenged, closedAfter, openMs: performance.now() - t0 };
}

describe("another local user without the secret", () => {
  const other = otherUser();
  it("cannot join the rendezvous nor read what it stores, by a client or by raw bytes", async (ctx) => {
    requireTwoUsers(ctx, other);
    const { server } = await recordingServer({ authTimeoutMs: 1000 });
    await using _ = server;
    const raw = randomBytes(128);
    const id = UniqueId.fromBytes(raw).toBase64();
    using rank = await connect(server.port, server.secret);
    await rank.set("cuda-ts/comm/nccl-unique-id-of-the-world", id);
    const r = await other.run(resolve(here, "rendezvous-other-user-child.ts"), [String(server.port)], { timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { joined: boolean; error: string; received: string };
    expect(out.joined).toBe(false);
    expect(out.error).toMatch(/^RendezvousError: /);
    const seen = Buffer.from(out.received, "hex");
    for (const needle of [Buffer.from(id), raw, Buffer.from(server.secret)]) expect(leaks(seen, needle)).toBe(false);
    expect(seen.length).toBeLessThanOrEqual(64); // the nonce, nothing after the wrong proof
    expect(await rank.get("cuda-ts/comm/nccl-unique-id-of-the-world")).toBe(id);
  });
});

describe("connections that never authenticate", () => {
  it("defaults: 64 may wait, any more are closed at once", async () => {
    const { server } = await recordingServer();
    await using _ = server;
    const { sockets, closedAfter } = await idleFlood(server, 80);
    await until(() => closedAfter.filter((t) => t !== undefined).length >= 16);
    expect(server.unauthenticatedClients).toBe(64);
    await new Promise((r) => setTimeout(r, 300));
    expect(closedAfter.filter((t) => t !== undefined).length).toBe(16); // the rest wait for their 5 s deadline
    sockets.forEach((s) => s.destroy());
    await until(() => server.unauthenticatedClients === 0);
  });

  it("with 2,000 idle connections held open, 12 real clients all get through within their deadline", async () => {
    const N = 2000;
    const cap = 64;
    const authTimeoutMs = 1000;
    const { server, refusals } = await recordingServer({ authTimeoutMs, maxUnauthenticatedClients: cap });
    await using _ = server;
    let maxWaiting = 0;
    const sample = setInterval(() => (maxWaiting = Math.max(maxWaiting, server.unauthenticatedClients)), 2);
    const t0 = performance.now();
    const flood = await idleFlood(server, N);
    // The cap is full when the ranks come; on a loaded machine opening the flood can outlast the first waiters' 1 s
    // deadline, and they are dropped before this looks: then the sampled peak shows the cap was reached.
    await until(() => server.unauthenticatedClients === cap || maxWaiting === cap);
    // 12 ranks, as a launcher's: each connects, announces itself and waits for every other, within 5 s.
    const deadlineMs = 5000;
    const ranks = Array.from({ length: 12 }, async (_x, rank) => {
      const start = performance.now();
      using c = await connect(server.port, server.secret, deadlineMs);
      const connectedMs = performance.now() - start;
      await c.set(`joined/${rank}`, String(rank));
      for (let r = 0; r < 12; r++) expect(await c.get(`joined/${r}`, { timeoutMs: deadlineMs })).toBe(String(r));
      return { connectedMs, totalMs: performance.now() - start };
    });
    const results = await Promise.all(ranks);
    await until(() => flood.closedAfter.every((t) => t !== undefined), authTimeoutMs + 5000);
    clearInterval(sample);
    const closed = flood.closedAfter as number[];
    const held = closed.filter((_t, i) => flood.challenged[i]);
    const turnedAway = closed.filter((_t, i) => !flood.challenged[i]);
    await new Promise((r) => setTimeout(r, 1000)); // the last second's over-cap closings are reported at its end
    const capReports = refusals.filter((r) => typeof r === "string" && /closed unread/.test(r));
    const reportedClosings = capReports.reduce((n, r) => n + Number(/^(\d+) connections were/.exec(r as string)?.[1] ?? 1), 0);
    const fmt = (xs: number[]): string => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)} ms`;
    console.log(
      `${N} idle connections opened in ${flood.openMs.toFixed(0)} ms: ${turnedAway.length} closed unread (closed ${fmt(turnedAway)} after connecting), ` +
        `${held.length} let in to wait and dropped at the ${authTimeoutMs} ms deadline (${fmt(held)} after their challenge); at most ${maxWaiting} waiting at once; ` +
        `12 clients connected in ${results.map((r) => r.connectedMs.toFixed(0)).join(", ")} ms, done in at most ${Math.max(...results.map((r) => r.totalMs)).toFixed(0)} ms ` +
        `(${(performance.now() - t0).toFixed(0)} ms in all; the ranks were turned away ${reportedClosings - turnedAway.length} times before); ${capReports.length} over-cap reports: ${JSON.stringify(capReports)}`,
    );
    expect(maxWaiting).toBeLessThanOrEqual(cap);
    expect(held.length + turnedAway.length).toBe(N);
    expect(held.length).toBeGreaterThanOrEqual(cap);
    expect(turnedAway.length).toBeGreaterThanOrEqual(N / 2);
    // Not dropped early. The client times from when it saw its challenge, which its event loop (busy opening 2,000
    // sockets) may see a few hundred ms after the server sent it: only half the deadline is certain on a loaded machine.
    for (const t of held) expect(t).toBeGreaterThan(authTimeoutMs * 0.5);
    for (const t of held) expect(t).toBeLessThan(authTimeoutMs + 1000);
    for (const r of results) expect(r.totalMs).toBeLessThan(deadlineMs);
    expect(reportedClosings).toBe(server.refusedClients - held.length); // every closing unread is reported: the flood's and the ranks' retried tries
    expect(reportedClosings).toBeGreaterThanOrEqual(turnedAway.length);
    expect(capReports.length).toBeLessThanOrEqual(Math.ceil((performance.now() - t0) / 1000) + 1); // once a second, not once each
    expect(server.unauthenticatedClients).toBe(0);
  });

  it("a client turned away for longer than its timeout fails with a RendezvousError saying why", async () => {
    const { server } = await recordingServer({ maxUnauthenticatedClients: 1, authTimeoutMs: 5000 });
    await using _ = server;
    const flood = await idleFlood(server, 1);
    await until(() => server.unauthenticatedClients === 1);
    const t0 = Date.now();
    // A timeout long enough for the server to turn the client away at least once on a loaded machine (at 400 ms a
    // busy CI machine sometimes answered none, and the error then has nothing to say but the timeout).
    await expect(connect(server.port, server.secret, 1200)).rejects.toThrow(/timed out after 1200 ms: it closed \d+ connections? before its challenge/);
    expect(Date.now() - t0).toBeLessThan(3000);
    flood.sockets.forEach((s) => s.destroy());
  });
});

describe("the session's sealing, fuzzed", () => {
  it("a mutated sealed frame opens to the very message, or is a RendezvousIntegrityError; never anything else", () => {
    const seed = process.env.CUDA_TS_FUZZ_SEED !== undefined ? Number(process.env.CUDA_TS_FUZZ_SEED) : randomBytes(4).readUInt32LE(0);
    const rng = new Rng(seed);
    const t0 = performance.now();
    let runs = 0;
    let opened = 0;
    const faults = new Map<string, number>();
    try {
      for (; runs < 3000 && performance.now() - t0 < 6000; runs++) {
        const secret = rng.bytes(32);
        const ns = rng.bytes(32);
        const nc = rng.bytes(32);
        const client = new SessionCipher("client", secret, ns, nc, MAX_FRAME_BYTES);
        const server = new SessionCipher("server", secret, ns, nc, MAX_FRAME_BYTES);
        const bodies = Array.from({ length: 1 + rng.int(3) }, () => rng.bytes(rng.int(200)));
        const sealed = bodies.map((b) => client.seal(b));
        const pick = rng.int(sealed.length);
        // Deliver the frames before `pick` unchanged, then one of: the next frame as sent, mutated, an earlier
        // one again, a later one (skipping), or one the server itself sealed (reflected).
        const how = rng.int(8);
        const expected: RendezvousIntegrityFault | undefined =
          how === 0 ? undefined : how === 1 && pick > 0 ? "replayed" : how === 2 && pick + 1 < sealed.length ? "reordered" : how === 3 ? "reflected" : undefined;
        const input =
          how === 0
            ? sealed[pick]!
            : expected === "replayed"
              ? sealed[rng.int(pick)]!
              : expected === "reordered"
                ? sealed[pick + 1 + rng.int(sealed.length - pick - 1)]!
                : expected === "reflected"
                  ? server.seal(rng.bytes(rng.int(100)))
                  : mutate(rng, sealed[pick]!);
        for (let i = 0; i < pick; i++) expect(server.open(sealed[i]!)).toEqual(bodies[i]);
        try {
          const body = server.open(input);
          expect(Buffer.from(input).equals(Buffer.from(sealed[pick]!))).toBe(true);
          expect(body).toEqual(bodies[pick]);
          opened++;
        } catch (e) {
          if (!(e instanceof RendezvousIntegrityError)) throw e;
          if (expected !== undefined) expect(e.fault).toBe(expected);
          faults.set(e.fault, (faults.get(e.fault) ?? 0) + 1);
          expect(() => server.open(sealed[pick]!)).toThrow(RendezvousIntegrityError); // the session stays refused
        }
      }
    } catch (e) {
      throw new Error(`fuzz of SessionCipher.open failed at run ${runs} (seed ${seed}; replay with CUDA_TS_FUZZ_SEED=${seed}): ${String(e)}`, { cause: e });
    }
    console.log(`fuzz SessionCipher.open: ${runs} runs in ${(performance.now() - t0).toFixed(0)} ms (seed ${seed}): ${opened} opened, faults ${JSON.stringify(Object.fromEntries(faults))}`);
    expect(opened).toBeGreaterThan(0);
    for (const f of ["tampered", "replayed", "reordered", "reflected", "malformed"]) expect(faults.get(f) ?? 0).toBeGreaterThan(0);
  });
});
