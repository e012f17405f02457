/**
 * The rendezvous store of a multi-process job (the NCCL launcher's): a small key-value store over TCP where ranks
 * publish and wait for values (a communicator's unique id, addresses). It hands out what lets a process join a
 * communicator, so it admits only processes of the job:
 *
 * - it listens on loopback (`127.0.0.1`) unless told another host;
 * - every job has a secret (32 random bytes) that the launcher hands to the ranks it spawns through the
 *   environment ({@link RendezvousServer.environment}: `CUDA_TS_RENDEZVOUS_ADDR`, `CUDA_TS_RENDEZVOUS_SECRET`), never
 *   on the command line, which every local user can read in /proc;
 * - each connection starts with a mutual challenge: the server sends a nonce `Ns`, the client answers with
 *   HMAC-SHA256(secret, "cuda-ts rendezvous v2 client" ‖ Ns) and a nonce `Nc` of its own, and the server proves the
 *   secret back with HMAC-SHA256(secret, "cuda-ts rendezvous v2 server" ‖ Ns ‖ Nc). The secret never crosses the wire;
 * - every message after the challenge, in both directions, is encrypted and authenticated (AES-256-GCM) with keys
 *   derived from the secret and both nonces, under a sequence number per direction
 *   (src/core/distributed/rendezvous-crypto.ts has the keys and the wire format): a relay without the secret reads
 *   no key or value, and a message it changes, replays, reorders or reflects is refused with a
 *   {@link RendezvousIntegrityError} and the connection closed, without effect;
 * - a client that fails the challenge, does not answer it within `authTimeoutMs`, or sends anything malformed
 *   (a frame over {@link MAX_FRAME_BYTES}, bytes that are not a sealed request) is disconnected, and nothing it sent
 *   has any effect;
 * - at most `maxUnauthenticatedClients` connections (default 64) wait for their challenge at a time: the server
 *   closes any more at once, without reading them, so a flood of idle connections costs it little, and a client
 *   turned away that way tries again (with backoff) until its `timeoutMs`.
 *
 * Frames are a 4-byte big-endian length and that many bytes. The challenge's three frames are the nonces and proofs
 * in clear; every later frame is a sealed message whose body is JSON: requests `{"op":"set","key":k,"value":v}`,
 * `{"op":"get","key":k}` (the get waits until the key is set), replies `{"ok":true}` or `{"ok":true,"value":v}`.
 *
 * @module
 */
import type * as net from "node:net";
import type { Buffer } from "node:buffer";
import { getEnv, nodeBuiltin } from "../../host.ts";
import { RendezvousError } from "./errors.ts";
import { describeValue } from "../../errors/describe.ts";
import { hmac, SessionCipher } from "./rendezvous-crypto.ts";
import { RendezvousIntegrityError } from "./errors.ts";
import type * as NodeCrypto from "node:crypto";
import type * as NodeBuffer from "node:buffer";
import type * as NodeNet from "node:net";

// Node.js built-ins, loaded on first use (src/host.ts, nodeBuiltin).
const nodeCrypto = (): typeof NodeCrypto => nodeBuiltin("node:crypto") as typeof NodeCrypto;
const nodeBuffer = (): typeof NodeBuffer => nodeBuiltin("node:buffer") as typeof NodeBuffer;
const nodeNet = (): typeof NodeNet => nodeBuiltin("node:net") as typeof NodeNet;

/** The largest frame either side accepts. */
export const MAX_FRAME_BYTES = 64 * 1024;
/** The environment variable with the server's `host:port`. */
export const RENDEZVOUS_ADDR_ENV = "CUDA_TS_RENDEZVOUS_ADDR";
/** The environment variable with the job's secret (hex). */
export const RENDEZVOUS_SECRET_ENV = "CUDA_TS_RENDEZVOUS_SECRET";

const NONCE_BYTES = 32;
const MAC_BYTES = 32;
const CLIENT_LABEL = "cuda-ts rendezvous v2 client";
const SERVER_LABEL = "cuda-ts rendezvous v2 server";
const MAX_KEY_BYTES = 1024;

export { SEAL_OVERHEAD } from "./rendezvous-crypto.ts";

/** A request to the store. */
export type RendezvousRequest = { readonly op: "set"; readonly key: string; readonly value: string } | { readonly op: "get"; readonly key: string };

function checkSecret(secret: unknown, what: string): Buffer {
  if (typeof secret !== "string" || !/^[0-9a-f]{32,}$/i.test(secret) || secret.length % 2 !== 0) {
    throw new TypeError(
      `${what}: the secret is a hex string of at least 16 bytes (32 hex digits), such as RendezvousServer's own, not ${typeof secret === "string" ? `a string of ${secret.length} characters` : describeValue(secret)}: ` +
        `pass the server's secret, or let the ranks read ${RENDEZVOUS_SECRET_ENV}`,
    );
  }
  return nodeBuffer().Buffer.from(secret, "hex");
}

/** One length-prefixed frame. */
export function encodeFrame(payload: Uint8Array): Uint8Array {
  if (payload.length > MAX_FRAME_BYTES) throw new RangeError(`a rendezvous frame holds at most ${MAX_FRAME_BYTES} bytes, this one ${payload.length}: store smaller values`);
  const out = new Uint8Array(4 + payload.length);
  new DataView(out.buffer).setUint32(0, payload.length, false);
  out.set(payload, 4);
  return out;
}

/**
 * Splits a byte stream into frames: `push` bytes as they come, `next()` gives each whole frame. A length over
 * {@link MAX_FRAME_BYTES} throws a {@link RendezvousError} before anything that large is buffered.
 */
export class FrameReader {
  #chunks: Uint8Array[] = [];
  #buffered = 0;

  /** Adds received bytes. */
  push(bytes: Uint8Array): void {
    this.#chunks.push(bytes);
    this.#buffered += bytes.length;
    if (this.#buffered > 4 + MAX_FRAME_BYTES + 4 + MAX_FRAME_BYTES) this.#flatten(); // keep the chunk list short
  }

  #flatten(): Uint8Array {
    if (this.#chunks.length === 1) return this.#chunks[0]!;
    const all = new Uint8Array(this.#buffered);
    let at = 0;
    for (const c of this.#chunks) {
      all.set(c, at);
      at += c.length;
    }
    this.#chunks = [all];
    return all;
  }

  /** The length the next frame announces, or undefined until its 4 length bytes came. */
  nextLength(): number | undefined {
    if (this.#buffered < 4) return undefined;
    const all = this.#flatten();
    return new DataView(all.buffer, all.byteOffset, all.byteLength).getUint32(0, false);
  }

  /** The next whole frame's payload, or undefined until more bytes come. */
  next(): Uint8Array | undefined {
    if (this.#buffered < 4) return undefined;
    const all = this.#flatten();
    const length = new DataView(all.buffer, all.byteOffset, all.byteLength).getUint32(0, false);
    if (length > MAX_FRAME_BYTES) throw new RendezvousError(`a rendezvous frame says ${length} bytes, more than the ${MAX_FRAME_BYTES} allowed: the peer is not a cuda-ts rendezvous peer`);
    if (all.length < 4 + length) return undefined;
    const frame = all.slice(4, 4 + length);
    this.#chunks = all.length === 4 + length ? [] : [all.subarray(4 + length)];
    this.#buffered = all.length - 4 - length;
    return frame;
  }
}

/** Reads a request; throws a {@link RendezvousError} for anything that is not one. */
export function decodeRequest(payload: Uint8Array): RendezvousRequest {
  let v: unknown;
  try {
    v = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch {
    throw new RendezvousError("a rendezvous request is UTF-8 JSON; these bytes are not");
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new RendezvousError("a rendezvous request is a JSON object");
  const r = v as Record<string, unknown>;
  if (typeof r.key !== "string" || r.key.length === 0 || r.key.length > MAX_KEY_BYTES) throw new RendezvousError(`a rendezvous request's key is a string of 1 to ${MAX_KEY_BYTES} characters`);
  if (r.op === "get" && Object.keys(r).length === 2) return { op: "get", key: r.key };
  if (r.op === "set" && typeof r.value === "string" && Object.keys(r).length === 3) return { op: "set", key: r.key, value: r.value };
  throw new RendezvousError('a rendezvous request is {"op":"get","key":k} or {"op":"set","key":k,"value":v}');
}

/** Options of {@link RendezvousServer.start}. */
export interface RendezvousServerOptions {
  /** The address to bind. Default `127.0.0.1` (this machine only); another host only when ranks run elsewhere. */
  readonly host?: string;
  /** The port. Default 0: one the system picks (read it from `port`). */
  readonly port?: number;
  /** The job's secret (hex, at least 16 bytes). Default: 32 fresh random bytes. */
  readonly secret?: string;
  /** How long a new connection has to prove the secret, in milliseconds (its handshake deadline). Default 5000. */
  readonly authTimeoutMs?: number;
  /**
   * How many connections may wait for their challenge at once; the server closes any more at once (an honest
   * client retries). Default 64.
   */
  readonly maxUnauthenticatedClients?: number;
  /**
   * Told of each client dropped (failed or missing proof, malformed frames, a refused message: then with the
   * {@link RendezvousIntegrityError}), with why. Connections closed over `maxUnauthenticatedClients` are told at most
   * once a second, with their count.
   */
  readonly onRefused?: (reason: string, error?: RendezvousIntegrityError) => void;
}

/** The rendezvous server of a job: start it in the launcher, hand {@link environment} to the ranks. */
export class RendezvousServer {
  readonly #server: net.Server;
  readonly #secret: Buffer;
  readonly #store = new Map<string, string>();
  readonly #waiting = new Map<string, Set<(value: string) => void>>();
  readonly #sockets = new Set<net.Socket>();
  readonly #authTimeoutMs: number;
  readonly #maxUnauthenticated: number;
  readonly #onRefused: ((reason: string, error?: RendezvousIntegrityError) => void) | undefined;
  #unauthenticated = 0;
  #overCapUnreported = 0;
  #overCapReportedAt = -Infinity;
  #overCapTimer: ReturnType<typeof setTimeout> | undefined;
  /** The bound host. */
  readonly host: string;
  /** The bound port. */
  readonly port: number;
  /** Clients dropped so far (failed or missing proof, malformed or refused frames, over the cap of waiting ones). */
  refusedClients = 0;

  /** Connections waiting for their challenge now (at most `maxUnauthenticatedClients`). */
  get unauthenticatedClients(): number {
    return this.#unauthenticated;
  }

  private constructor(server: net.Server, secret: Buffer, host: string, port: number, options: RendezvousServerOptions) {
    this.#server = server;
    this.#secret = secret;
    this.host = host;
    this.port = port;
    this.#authTimeoutMs = options.authTimeoutMs ?? 5000;
    this.#maxUnauthenticated = options.maxUnauthenticatedClients ?? 64;
    this.#onRefused = options.onRefused;
    server.on("connection", (s) => this.#serve(s));
  }

  /** Starts a server (on loopback by default) with a fresh secret unless one is given. */
  static async start(options: RendezvousServerOptions = {}): Promise<RendezvousServer> {
    if (typeof options !== "object" || options === null) throw new TypeError(`RendezvousServer.start: options are an object, not ${describeValue(options)}`);
    const host = options.host ?? "127.0.0.1";
    if (typeof host !== "string" || host.length === 0) throw new TypeError(`RendezvousServer.start: host is an address such as "127.0.0.1", not ${describeValue(host)}`);
    const port = options.port ?? 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new RangeError(`RendezvousServer.start: port is an integer 0 to 65535 (0: any free port), not ${describeValue(port)}`);
    const t = options.authTimeoutMs;
    if (t !== undefined && (typeof t !== "number" || !(t > 0))) throw new RangeError(`RendezvousServer.start: authTimeoutMs is a positive number of milliseconds, not ${describeValue(t)}`);
    const cap = options.maxUnauthenticatedClients;
    if (cap !== undefined && !(Number.isInteger(cap) && cap >= 1)) throw new RangeError(`RendezvousServer.start: maxUnauthenticatedClients is a positive integer, not ${describeValue(cap)}`);
    if (options.onRefused !== undefined && typeof options.onRefused !== "function") throw new TypeError(`RendezvousServer.start: onRefused is a function (reason) => void, not ${describeValue(options.onRefused)}`);
    const secret = options.secret === undefined ? nodeCrypto().randomBytes(32) : checkSecret(options.secret, "RendezvousServer.start");
    const server = nodeNet().createServer();
    await new Promise<void>((resolve, reject) => {
      const refused = (e: Error & { code?: string }): void => {
        const why =
          e.code === "EADDRINUSE"
            ? `port ${port} on ${host} is in use (another job's rendezvous, or another program): pick a free port (cuda-ts run --master ${host}:PORT), or stop what holds it`
            : e.code === "EADDRNOTAVAIL"
              ? `${host} is not an address of this machine: listen on one of its own addresses (127.0.0.1 for one machine)`
              : e.code === "EACCES"
                ? `binding port ${port} on ${host} is not allowed (ports below 1024 need privileges): pick a port above 1023`
                : `${e.code ?? e.name}: ${e.message}`;
        reject(new RendezvousError(`the rendezvous server cannot listen on ${host}:${port}: ${why}`));
      };
      server.once("error", refused);
      server.listen(port, host, () => {
        server.off("error", refused);
        resolve();
      });
    });
    const a = server.address();
    const bound = typeof a === "object" && a !== null ? a.port : port;
    return new RendezvousServer(server, secret, host, bound, options);
  }

  /** The job's secret (hex): give it to ranks through the environment, never on a command line. */
  get secret(): string {
    return this.#secret.toString("hex");
  }

  /** The variables a spawned rank needs ({@link RendezvousClient.fromEnvironment} reads them). */
  environment(): Record<string, string> {
    return { [RENDEZVOUS_ADDR_ENV]: `${this.host.includes(":") ? `[${this.host}]` : this.host}:${this.port}`, [RENDEZVOUS_SECRET_ENV]: this.secret };
  }

  /** The value stored under `key` (for the launcher itself), or undefined. */
  peek(key: string): string | undefined {
    return this.#store.get(key);
  }

  #drop(socket: net.Socket, reason: string, error?: RendezvousIntegrityError): void {
    this.refusedClients++;
    socket.destroy();
    this.#report(reason, error);
  }

  #report(reason: string, error?: RendezvousIntegrityError): void {
    try {
      if (error === undefined) this.#onRefused?.(reason);
      else this.#onRefused?.(reason, error);
    } catch {
      // A reporter that throws must not stop the server.
    }
  }

  /** Closes a connection over the cap of waiting ones at once; reports such closings at most once a second. */
  #turnAway(socket: net.Socket): void {
    socket.on("error", () => {});
    socket.destroy();
    this.refusedClients++;
    this.#overCapUnreported++;
    const wait = this.#overCapReportedAt + 1000 - performance.now();
    if (wait <= 0) this.#reportOverCap();
    else this.#overCapTimer ??= setTimeout(() => this.#reportOverCap(), wait);
  }

  #reportOverCap(): void {
    clearTimeout(this.#overCapTimer);
    this.#overCapTimer = undefined;
    const n = this.#overCapUnreported;
    if (n === 0) return;
    this.#overCapUnreported = 0;
    this.#overCapReportedAt = performance.now();
    this.#report(`${n === 1 ? "a connection was" : `${n} connections were`} closed unread: ${this.#maxUnauthenticated} were already waiting to prove the job's secret (maxUnauthenticatedClients)`);
  }

  #serve(socket: net.Socket): void {
    if (this.#unauthenticated >= this.#maxUnauthenticated) return this.#turnAway(socket);
    this.#unauthenticated++;
    let waiting = true;
    const settle = (): void => {
      if (waiting) this.#unauthenticated--;
      waiting = false;
    };
    this.#sockets.add(socket);
    socket.on("close", () => {
      this.#sockets.delete(socket);
      settle();
    });
    socket.on("error", () => socket.destroy());
    const reader = new FrameReader();
    const nonce = nodeCrypto().randomBytes(NONCE_BYTES);
    let session: SessionCipher | undefined;
    const timer = setTimeout(() => {
      if (session === undefined) this.#drop(socket, `a client did not prove the job's secret within ${this.#authTimeoutMs} ms`);
    }, this.#authTimeoutMs);
    socket.on("close", () => clearTimeout(timer));
    socket.write(encodeFrame(nonce));
    socket.on("data", (chunk: Buffer) => {
      if (socket.destroyed) return;
      try {
        reader.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        const announced = reader.nextLength();
        if (session === undefined && announced !== undefined && announced !== MAC_BYTES + NONCE_BYTES) {
          this.#drop(socket, "a client failed to prove the job's secret");
          return;
        }
        for (let frame = reader.next(); frame !== undefined && !socket.destroyed; frame = reader.next()) {
          if (session === undefined) {
            if (frame.length !== MAC_BYTES + NONCE_BYTES || !nodeCrypto().timingSafeEqual(frame.subarray(0, MAC_BYTES), hmac(this.#secret, CLIENT_LABEL, nonce))) {
              this.#drop(socket, "a client failed to prove the job's secret");
              return;
            }
            const clientNonce = frame.subarray(MAC_BYTES);
            session = new SessionCipher("server", this.#secret, nonce, clientNonce, MAX_FRAME_BYTES);
            settle();
            clearTimeout(timer);
            socket.write(encodeFrame(hmac(this.#secret, SERVER_LABEL, nonce, clientNonce)));
            continue;
          }
          this.#handle(socket, session, decodeRequest(session.open(frame)));
        }
      } catch (e) {
        if (e instanceof RendezvousIntegrityError) this.#drop(socket, `a client's message was refused: ${e.message}`, e);
        else this.#drop(socket, `a client sent a malformed frame: ${e instanceof Error ? e.message : String(e)}`);
      }
    });
  }

  #handle(socket: net.Socket, session: SessionCipher, r: RendezvousRequest): void {
    const reply = (value: string | undefined): void => {
      if (!socket.destroyed) socket.write(encodeFrame(session.seal(new TextEncoder().encode(JSON.stringify(value === undefined ? { ok: true } : { ok: true, value })))));
    };
    if (r.op === "set") {
      this.#store.set(r.key, r.value);
      const waiters = this.#waiting.get(r.key);
      this.#waiting.delete(r.key);
      waiters?.forEach((w) => w(r.value));
      reply(undefined);
      return;
    }
    const v = this.#store.get(r.key);
    if (v !== undefined) return reply(v);
    let set = this.#waiting.get(r.key);
    if (set === undefined) this.#waiting.set(r.key, (set = new Set()));
    const waiter = (value: string): void => reply(value);
    set.add(waiter);
    socket.on("close", () => set.delete(waiter));
  }

  /** Connections that proved the job's secret and are open now. */
  get clients(): number {
    return this.#sockets.size - this.#unauthenticated;
  }

  /**
   * Closes the server once every client has disconnected, or after `timeoutMs` (a rank's own server, which must
   * outlive the other ranks' last reads).
   */
  closeWhenIdle(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    return new Promise((resolve) => {
      const poll = (): void => {
        if (this.clients > 0 && performance.now() < deadline) {
          setTimeout(poll, 20);
          return;
        }
        void this.close().then(resolve);
      };
      poll();
    });
  }

  /** Stops the server and disconnects every client. Closing twice is harmless. */
  close(): Promise<void> {
    this.#reportOverCap();
    for (const s of this.#sockets) s.destroy();
    this.#waiting.clear();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** Options of {@link RendezvousClient.connect}. */
export interface RendezvousClientOptions {
  /** The server's host. */
  readonly host: string;
  /** The server's port. */
  readonly port: number;
  /** The job's secret (hex). */
  readonly secret: string;
  /** Give up connecting and proving after this many milliseconds. Default 30 000. */
  readonly timeoutMs?: number;
  /**
   * Try again (with backoff, until `timeoutMs`) while nothing listens at the address yet: for ranks that may start
   * before the rank that serves the store. Default false.
   */
  readonly waitForServer?: boolean;
}

/** The socket errors that mean "nothing listens there (yet)". */
const NOT_LISTENING = new Set(["ECONNREFUSED", "ECONNRESET", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);

/** A rank's connection to the job's {@link RendezvousServer}. */
export class RendezvousClient {
  readonly #socket: net.Socket;
  readonly #reader: FrameReader;
  #pending: { resolve: (frame: Uint8Array) => void; reject: (e: Error) => void }[] = [];
  #failure: RendezvousError | undefined;
  #session: SessionCipher | undefined;
  #connected = false;
  #receivedBytes = 0;
  #errorCode: string | undefined;

  private constructor(socket: net.Socket, reader: FrameReader) {
    this.#socket = socket;
    this.#reader = reader;
    socket.on("connect", () => (this.#connected = true));
    socket.on("data", (chunk: Buffer) => this.#receive(chunk));
    socket.on("close", () => this.#fail(new RendezvousError("the rendezvous server closed the connection")));
    socket.on("error", (e: Error & { code?: string }) => {
      this.#errorCode ??= e.code;
      this.#fail(new RendezvousError(`the rendezvous connection failed: ${e.message}`));
    });
  }

  /** Connects with the address and secret in the environment ({@link RENDEZVOUS_ADDR_ENV}, {@link RENDEZVOUS_SECRET_ENV}). */
  static fromEnvironment(options: { readonly timeoutMs?: number } = {}): Promise<RendezvousClient> {
    const addr = getEnv(RENDEZVOUS_ADDR_ENV);
    const secret = getEnv(RENDEZVOUS_SECRET_ENV);
    const m = addr === undefined ? null : /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(addr);
    if (m === null || secret === undefined) {
      throw new RendezvousError(
        `${RENDEZVOUS_ADDR_ENV} (host:port) and ${RENDEZVOUS_SECRET_ENV} must be set, as the launcher sets them for the ranks it spawns; got ${addr === undefined ? "no address" : JSON.stringify(addr)} and ${secret === undefined ? "no secret" : "a secret"}`,
      );
    }
    return RendezvousClient.connect({ host: m[1]!, port: Number(m[2]), secret, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) });
  }

  /**
   * Connects and runs the mutual challenge: rejects with a {@link RendezvousError} when either side fails it. A
   * server that closes the connection before its challenge (it has `maxUnauthenticatedClients` waiting already) is
   * tried again, with backoff, until `timeoutMs`.
   */
  static async connect(options: RendezvousClientOptions): Promise<RendezvousClient> {
    if (typeof options !== "object" || options === null) throw new TypeError(`RendezvousClient.connect: options are { host, port, secret }, not ${describeValue(options)}`);
    const secret = checkSecret(options.secret, "RendezvousClient.connect");
    if (typeof options.host !== "string" || options.host.length === 0) throw new TypeError(`RendezvousClient.connect: host is an address, not ${describeValue(options.host)}`);
    if (!Number.isInteger(options.port) || options.port <= 0 || options.port > 65535) throw new RangeError(`RendezvousClient.connect: port is an integer 1 to 65535, not ${describeValue(options.port)}`);
    const timeoutMs = options.timeoutMs ?? 30_000;
    const deadline = performance.now() + timeoutMs;
    // Connections the server closed before its challenge so far: the timeout says so wherever the deadline falls (in
    // a pause or in the middle of the next try), since that is the likely reason it was reached.
    let turnedAwayCount = 0;
    const timedOut = (): RendezvousError =>
      new RendezvousError(
        `connecting to the rendezvous server at ${options.host}:${options.port} timed out after ${timeoutMs} ms` +
          (turnedAwayCount === 0
            ? ""
            : `: it closed ${turnedAwayCount} connection${turnedAwayCount === 1 ? "" : "s"} before its challenge (too many connections waiting to authenticate: is something flooding it?)`),
      );
    for (let attempt = 0; ; attempt++) {
      const socket = nodeNet().createConnection({ host: options.host, port: options.port });
      const client = new RendezvousClient(socket, new FrameReader());
      let expired = false;
      const timer = setTimeout(() => {
        expired = true;
        client.#fail(timedOut());
      }, Math.max(1, deadline - performance.now()));
      try {
        await client.#handshake(secret, options);
        return client;
      } catch (e) {
        client.close();
        // Closed before the challenge, not refused outright: the server is at its cap of waiting connections.
        const turnedAway = !expired && client.#receivedBytes === 0 && (client.#connected || client.#errorCode === "ECONNRESET");
        const notYet = !expired && options.waitForServer === true && !client.#connected && client.#errorCode !== undefined && NOT_LISTENING.has(client.#errorCode);
        if (!turnedAway && !notYet) throw e;
        if (turnedAway) turnedAwayCount++;
        if (notYet && performance.now() + 100 >= deadline) {
          throw new RendezvousError(
            `nothing listened at ${options.host}:${options.port} within ${timeoutMs} ms (${client.#errorCode}): the rank that serves the rendezvous store did not start there, or the address is wrong`,
          );
        }
      } finally {
        clearTimeout(timer);
      }
      const cap = Math.max(1, deadline - performance.now() - 50);
      const pause = Math.min(cap, Math.min(500, 10 * 2 ** Math.min(attempt, 6)) * (0.5 + Math.random()));
      if (performance.now() + pause >= deadline) throw timedOut();
      await new Promise((r) => setTimeout(r, pause));
    }
  }

  async #handshake(secret: Buffer, options: RendezvousClientOptions): Promise<void> {
    const nonce = await this.#nextFrame();
    if (nonce.length !== NONCE_BYTES) throw new RendezvousError("the rendezvous server's challenge is malformed: is this a cuda-ts rendezvous server?");
    const mine = nodeCrypto().randomBytes(NONCE_BYTES);
    this.#socket.write(encodeFrame(nodeBuffer().Buffer.concat([hmac(secret, CLIENT_LABEL, nonce), mine])));
    const proof = await this.#nextFrame().catch(() => {
      throw new RendezvousError("the rendezvous server refused this client: is the secret the job's (the launcher's CUDA_TS_RENDEZVOUS_SECRET), and are both ends the same cuda-ts version?");
    });
    if (proof.length !== MAC_BYTES || !nodeCrypto().timingSafeEqual(proof, hmac(secret, SERVER_LABEL, nonce, mine))) {
      throw new RendezvousError(`the server at ${options.host}:${options.port} could not prove the job's secret: it is not this job's rendezvous server; disconnected`);
    }
    this.#session = new SessionCipher("client", secret, nonce, mine, MAX_FRAME_BYTES);
  }

  #receive(chunk: Buffer): void {
    this.#receivedBytes += chunk.byteLength;
    try {
      this.#reader.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      for (let f = this.#reader.next(); f !== undefined; f = this.#reader.next()) {
        const body = this.#session === undefined ? f : this.#session.open(f);
        const p = this.#pending.shift();
        if (p === undefined) throw new RendezvousError("the rendezvous server sent a frame nobody asked for");
        p.resolve(body);
      }
    } catch (e) {
      this.#fail(e instanceof RendezvousError ? e : new RendezvousError(String(e)));
      this.#socket.destroy();
    }
  }

  #fail(e: RendezvousError): void {
    this.#failure ??= e;
    const p = this.#pending;
    this.#pending = [];
    p.forEach((x) => x.reject(this.#failure!));
    this.#socket.destroy();
  }

  #nextFrame(): Promise<Uint8Array> {
    if (this.#failure !== undefined) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => this.#pending.push({ resolve, reject }));
  }

  async #request(r: RendezvousRequest): Promise<{ ok: boolean; value?: string }> {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#session === undefined) throw new RendezvousError("this RendezvousClient has not finished its challenge");
    const frame = encodeFrame(this.#session.seal(new TextEncoder().encode(JSON.stringify(r)))); // throws (too large) before anything is sent
    const reply = this.#nextFrame();
    this.#socket.write(frame);
    let v: unknown;
    try {
      v = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(await reply));
    } catch (e) {
      if (e instanceof RendezvousError) throw e;
      throw new RendezvousError("the rendezvous server's reply is malformed");
    }
    if (typeof v !== "object" || v === null || (v as { ok?: unknown }).ok !== true) throw new RendezvousError("the rendezvous server's reply is malformed");
    return v as { ok: boolean; value?: string };
  }

  /** Stores `value` under `key` (replacing any value), waking ranks waiting for it. */
  async set(key: string, value: string): Promise<void> {
    if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_BYTES) throw new TypeError(`RendezvousClient.set: key is a string of 1 to ${MAX_KEY_BYTES} characters, not ${describeValue(key)}`);
    if (typeof value !== "string") throw new TypeError(`RendezvousClient.set: value is a string (encode bytes as hex or base64), not ${describeValue(value)}`);
    await this.#request({ op: "set", key, value });
  }

  /** The value under `key`, waiting until a rank sets it (at most `timeoutMs`, default 30 000; then the connection closes). */
  async get(key: string, options: { readonly timeoutMs?: number } = {}): Promise<string> {
    if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_BYTES) throw new TypeError(`RendezvousClient.get: key is a string of 1 to ${MAX_KEY_BYTES} characters, not ${describeValue(key)}`);
    const ms = options.timeoutMs ?? 30_000;
    const timer = setTimeout(() => this.#fail(new RendezvousError(`waiting for rendezvous key ${JSON.stringify(key)} timed out after ${ms} ms: is the rank that sets it running?`)), ms);
    try {
      const r = await this.#request({ op: "get", key });
      if (typeof r.value !== "string") throw new RendezvousError("the rendezvous server's reply is malformed");
      return r.value;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Disconnects. Closing twice is harmless. */
  close(): void {
    this.#failure ??= new RendezvousError("this RendezvousClient is closed");
    this.#socket.destroy();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
