/**
 * The rendezvous store (no GPU): ranks with the job's secret set and wait for values; a client without the secret,
 * with a wrong one, silent, or sending malformed frames is dropped with no effect on the store; the server binds
 * loopback by default; a fake server that does not know the secret is refused by the client.
 */
import { describe, expect, it } from "vitest";
import * as net from "node:net";
import { createHmac, randomBytes } from "node:crypto";
import { SessionCipher } from "../../../src/core/distributed/rendezvous-crypto.ts";
import { RendezvousError } from "../../../src/core/errors.ts";
import { decodeRequest, encodeFrame, FrameReader, MAX_FRAME_BYTES, RENDEZVOUS_ADDR_ENV, RENDEZVOUS_SECRET_ENV, RendezvousClient, RendezvousServer } from "../../../src/core/distributed/rendezvous.ts";

const wrongSecret = "00".repeat(32);

/** Connects a raw TCP client, sends `bytes`, and resolves when the server closes the connection (with what it received). */
function raw(port: number, bytes: Uint8Array | undefined): Promise<number> {
  return new Promise((resolve) => {
    let received = 0;
    const s = net.createConnection({ host: "127.0.0.1", port }, () => {
      if (bytes !== undefined) s.write(bytes);
    });
    s.on("data", (d: Buffer) => (received += d.length));
    s.on("error", () => {});
    s.on("close", () => resolve(received));
  });
}

/** A raw client that passes the challenge with `secret` (the protocol by hand), then sends `body` sealed; resolves on close. */
function rawAuthenticated(port: number, secret: string, body: Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    const reader = new FrameReader();
    let step = 0;
    let serverNonce: Uint8Array = new Uint8Array(0);
    const clientNonce = randomBytes(32);
    const s = net.createConnection({ host: "127.0.0.1", port });
    s.on("data", (d: Buffer) => {
      reader.push(new Uint8Array(d));
      for (let f = reader.next(); f !== undefined; f = reader.next()) {
        if (step++ === 0) {
          serverNonce = f;
          const proof = createHmac("sha256", Buffer.from(secret, "hex")).update("cuda-ts rendezvous v2 client").update(f).digest();
          s.write(encodeFrame(Buffer.concat([proof, clientNonce])));
        } else s.write(encodeFrame(new SessionCipher("client", Buffer.from(secret, "hex"), serverNonce, clientNonce, MAX_FRAME_BYTES).seal(body)));
      }
    });
    s.on("error", () => {});
    s.on("close", () => resolve());
  });
}

describe("the rendezvous store", () => {
  it("binds loopback by default, and ranks with the secret set and wait for values", async () => {
    await using server = await RendezvousServer.start();
    expect(server.host).toBe("127.0.0.1");
    expect(server.secret).toMatch(/^[0-9a-f]{64}$/);
    const env = server.environment();
    expect(env[RENDEZVOUS_ADDR_ENV]).toBe(`127.0.0.1:${server.port}`);
    expect(env[RENDEZVOUS_SECRET_ENV]).toBe(server.secret);
    using a = await RendezvousClient.connect({ host: "127.0.0.1", port: server.port, secret: server.secret });
    using b = await RendezvousClient.connect({ host: "127.0.0.1", port: server.port, secret: server.secret });
    const waiting = b.get("nccl-id");
    await a.set("nccl-id", "abc123");
    expect(await waiting).toBe("abc123");
    expect(await a.get("nccl-id")).toBe("abc123");
    expect(server.peek("nccl-id")).toBe("abc123");
    expect(server.refusedClients).toBe(0);
  });

  it("refuses a client without the secret or with a wrong one: dropped, and the store is unchanged", async () => {
    const reasons: string[] = [];
    await using server = await RendezvousServer.start({ onRefused: (r) => reasons.push(r) });
    const e = await RendezvousClient.connect({ host: "127.0.0.1", port: server.port, secret: wrongSecret }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RendezvousError);
    expect((e as Error).message).toMatch(/refused this client: is the secret the job's/);
    // A raw client that skips the challenge and sends a request straight away.
    const set = encodeFrame(new TextEncoder().encode(JSON.stringify({ op: "set", key: "nccl-id", value: "evil" })));
    const received = await raw(server.port, set);
    expect(received).toBeLessThanOrEqual(4 + 32); // at most the challenge (a reset may discard even that), never a reply
    expect(server.peek("nccl-id")).toBeUndefined();
    expect(server.refusedClients).toBe(2);
    expect(reasons).toEqual(["a client failed to prove the job's secret", "a client failed to prove the job's secret"]);
    await expect(RendezvousClient.connect({ host: "127.0.0.1", port: server.port, secret: "short" })).rejects.toThrow(/at least 16 bytes/);
  });

  it("drops a silent client after authTimeoutMs, and malformed frames after authentication", async () => {
    const reasons: string[] = [];
    await using server = await RendezvousServer.start({ authTimeoutMs: 150, onRefused: (r) => reasons.push(r) });
    const t0 = Date.now();
    await raw(server.port, undefined);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    expect(server.refusedClients).toBe(1);
    // Oversized frame length: refused before buffering.
    const huge = new Uint8Array(4);
    new DataView(huge.buffer).setUint32(0, MAX_FRAME_BYTES + 1, false);
    await raw(server.port, huge);
    expect(server.refusedClients).toBe(2);
    // An authenticated client sending garbage, or a set with an extra field: dropped, without effect.
    using c = await RendezvousClient.connect({ host: "127.0.0.1", port: server.port, secret: server.secret });
    await c.set("k", "v");
    await rawAuthenticated(server.port, server.secret, new Uint8Array([0x7b, 0xff, 0x00]));
    await rawAuthenticated(server.port, server.secret, new TextEncoder().encode(JSON.stringify({ op: "set", key: "k", value: "w", extra: 1 })));
    expect(server.refusedClients).toBe(4);
    expect(reasons.slice(2)).toEqual([expect.stringMatching(/malformed frame: a rendezvous request is UTF-8 JSON/), expect.stringMatching(/malformed frame: a rendezvous request is \{/)]);
    expect(server.peek("k")).toBe("v");
    expect(await c.get("k")).toBe("v"); // the honest client is unaffected
  });

  it("refuses a fake server that does not know the secret", async () => {
    const fake = net.createServer((s) => {
      s.write(encodeFrame(new Uint8Array(32)));
      s.on("data", () => s.write(encodeFrame(new Uint8Array(32))));
    });
    await new Promise<void>((r) => fake.listen(0, "127.0.0.1", () => r()));
    const port = (fake.address() as net.AddressInfo).port;
    await expect(RendezvousClient.connect({ host: "127.0.0.1", port, secret: wrongSecret, timeoutMs: 5000 })).rejects.toThrow(/could not prove the job's secret/);
    await new Promise<void>((r) => fake.close(() => r()));
  });

  it("reads the address and secret from the environment", async () => {
    await using server = await RendezvousServer.start();
    const saved = { ...process.env };
    try {
      Object.assign(process.env, server.environment());
      using c = await RendezvousClient.fromEnvironment();
      await c.set("x", "1");
      expect(server.peek("x")).toBe("1");
      delete process.env[RENDEZVOUS_SECRET_ENV];
      expect(() => RendezvousClient.fromEnvironment()).toThrow(/must be set, as the launcher sets them/);
    } finally {
      for (const k of [RENDEZVOUS_ADDR_ENV, RENDEZVOUS_SECRET_ENV]) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });

  it("decodes frames and requests strictly", () => {
    const r = new FrameReader();
    const f = encodeFrame(new Uint8Array([1, 2, 3]));
    r.push(f.subarray(0, 2));
    expect(r.next()).toBeUndefined();
    r.push(f.subarray(2));
    r.push(f);
    expect([...r.next()!]).toEqual([1, 2, 3]);
    expect([...r.next()!]).toEqual([1, 2, 3]);
    expect(r.next()).toBeUndefined();
    const enc = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));
    expect(decodeRequest(enc({ op: "get", key: "a" }))).toEqual({ op: "get", key: "a" });
    for (const bad of [enc([]), enc({ op: "get" }), enc({ op: "set", key: "a" }), enc({ op: "del", key: "a" }), enc({ op: "get", key: "a", x: 1 }), new Uint8Array([0xff])]) {
      expect(() => decodeRequest(bad)).toThrow(RendezvousError);
    }
  });
});
