/**
 * Passing file descriptors between processes without compiled code: an AF_UNIX SOCK_SEQPACKET socket, driven
 * through libc with the FFI, carries each message's bytes plus descriptors as SCM_RIGHTS ancillary data. The
 * receiving kernel installs new descriptors (close-on-exec) for the same open files, which is what
 * `cuMemPoolImportFromShareableHandle` needs.
 *
 * Addresses: `"@name"` is Linux's abstract socket namespace (no file is created, nothing to clean up, no Deno
 * read/write permission involved; visible to processes in the same network namespace), any other string a
 * filesystem path (removed again when the listener closes, if it is still the socket file the listener made).
 * Waiting never blocks the event loop: sockets are non-blocking and polled with timers.
 *
 * Who may connect: abstract names have no permissions and every local user can list them, so both ends check the
 * other's credentials as the kernel recorded them (`SO_PEERCRED`): by default only processes of the same user are
 * accepted (`allowUids` adds users, `allowPeer` decides alone from uid, gid and pid). A refused peer's connection
 * is closed before anything is sent over it and `accept()` keeps waiting, so no other process can make it fail;
 * pass `onRefused` to see each refusal as an {@link IpcPeerRefusedError}. A listener may also require a one-time
 * token (`tokens`) in the first message: a second factor for peers of the same user; each connection has its own
 * deadline to present it (`handshakeTimeoutMs`, default 5 s), so silent connections do not hold up others. Default
 * names are random (122 bits); a filesystem socket is made mode 0600 in a directory no other user can write or
 * redirect (no other user's symbolic link or directory on the way; {@link IpcListener.listenPrivate} makes a fresh
 * 0700 one).
 *
 * ```ts
 * // exporter                                                // importer (another process)
 * using listener = IpcListener.listen("@my-app");            using ch = await IpcChannel.connect("@my-app");
 * using ch = await listener.accept({                         const h = await ch.receiveAllocationHandle();
 *   onRefused: (e) => console.warn(e.message), // optional   const mr = DeviceMemoryResource.fromAllocationHandle(dev, h);
 * });                                                        const d = IPCBufferDescriptor.fromBytes((await ch.receive()).data);
 * ch.sendAllocationHandle(mr.allocationHandle);
 * ch.send(buffer.ipcDescriptor.toBytes());
 * // refused peers (another user, a wrong or late token) never make accept() fail: it keeps waiting
 * ```
 *
 * @module
 */
import type { Buffer } from "node:buffer";
import { ClosedError, InsecurePathError } from "../base/errors.ts";
import { IpcTimeoutError, IpcDisconnectedError, IpcPeerRefusedError } from "./ipc-errors.ts";
import { decodeTokenMessage, encodeTokenMessage, HANDLE_MESSAGE_BYTES, IPCAllocationHandle, MAX_TOKEN_BYTES, tokenBytes } from "./ipc.ts";
import { getEnv, nodeBuiltin, isDirectory, makePrivateDirectory, makeTemporaryPrivateDirectory, removeDirectory, setMode } from "../../host.ts";
import {
  AF_UNIX,
  closeFd,
  EAGAIN,
  ECONNABORTED,
  ECONNREFUSED,
  ECONNRESET,
  EINTR,
  EPIPE,
  ENOENT,
  errno,
  lib,
  MessageBlock,
  MSG_CMSG_CLOEXEC,
  MSG_CTRUNC,
  MSG_DONTWAIT,
  MSG_TRUNC,
  MSG_NOSIGNAL,
  currentUid,
  peerCredentials,
  type PeerCredentials,
  SOCK_CLOEXEC,
  SOCK_NONBLOCK,
  SOCK_SEQPACKET,
  socketAddress,
  SystemCallError,
} from "../../ffi/libc-socket.ts";
import { linkStatus, readLink, type LinkStatus } from "../../ffi/libc-stat.ts";
import { ffi } from "../../ffi/index.ts";
import { describeValue } from "../../errors/describe.ts";
import type * as NodeCrypto from "node:crypto";
import type * as NodePath from "node:path";
import { checkInternal, type Internal, INTERNAL } from "../base/internal.ts";

// Node.js built-ins, loaded on first use (src/host.ts, nodeBuiltin).
const nodeCrypto = (): typeof NodeCrypto => nodeBuiltin("node:crypto") as typeof NodeCrypto;
const nodePath = (): typeof NodePath => nodeBuiltin("node:path") as typeof NodePath;

/** Options of waiting calls. */
export interface IpcWaitOptions {
  /** Give up after this many milliseconds (default 30 000). */
  readonly timeoutMs?: number;
}

export type { PeerCredentials } from "../../ffi/libc-socket.ts";

/**
 * Which peers a side accepts. Default: processes of this user only. `allowUids` adds users; `allowPeer`, when
 * given, decides alone (give one or the other).
 */
export interface IpcPeerPolicy {
  /** Users (uids) accepted besides this process's own. */
  readonly allowUids?: readonly number[];
  /** Decides from the peer's credentials whether it is accepted (replaces the uid rule). */
  readonly allowPeer?: (peer: PeerCredentials) => boolean;
}

/** Options of {@link IpcListener.listen}. */
export interface IpcListenOptions extends IpcPeerPolicy {
  /**
   * One-time tokens: when given, a connection is accepted only if its first message presents one of them (see
   * {@link IpcConnectOptions.token}), and each token is accepted once. Make them with {@link IpcListener.newToken}
   * and hand them to the other process out of band (not on its command line, which other users can read).
   */
  readonly tokens?: readonly string[];
  /**
   * With `tokens`: how many milliseconds a connection has to present its token (default 5000). One still silent then
   * is closed and refused. Each connection has its own deadline, so silent ones do not hold up the others.
   */
  readonly handshakeTimeoutMs?: number;
}

/** Options of {@link IpcListener.accept}. */
export interface IpcAcceptOptions extends IpcWaitOptions {
  /**
   * Called with each refused peer's error (another user, a failing `allowPeer`, a missing, late or wrong token).
   * accept() keeps waiting for an allowed peer either way: a refusal never makes it reject, so no other process can
   * make it fail. Without this callback, refusals are dropped silently.
   */
  readonly onRefused?: (error: IpcPeerRefusedError) => void;
}

/** Options of {@link IpcChannel.connect}. */
export interface IpcConnectOptions extends IpcWaitOptions, IpcPeerPolicy {
  /** The one-time token the listener expects: sent as the first message. */
  readonly token?: string;
}

interface Policy {
  readonly uid: number;
  readonly allowUids: ReadonlySet<number>;
  readonly allowPeer: ((peer: PeerCredentials) => boolean) | undefined;
}

function checkPolicy(what: string, options: IpcPeerPolicy | undefined): Policy {
  if (options !== undefined && (typeof options !== "object" || options === null)) throw new TypeError(`${what}: options are an object, not ${describeValue(options)}`);
  const allowUids = options?.allowUids;
  const allowPeer = options?.allowPeer;
  if (allowUids !== undefined) {
    if (!Array.isArray(allowUids)) throw new TypeError(`${what}: allowUids is an array of user ids, not ${describeValue(allowUids)}`);
    for (const u of allowUids) if (!Number.isInteger(u) || u < 0 || u > 0xffffffff) throw new RangeError(`${what}: allowUids holds user ids (integers 0 to 2^32-1), not ${describeValue(u)}`);
  }
  if (allowPeer !== undefined && typeof allowPeer !== "function") throw new TypeError(`${what}: allowPeer is a function (peer) => boolean, not ${describeValue(allowPeer)}`);
  if (allowPeer !== undefined && allowUids !== undefined) throw new TypeError(`${what}: give allowUids or allowPeer, not both (allowPeer decides alone: check the uid in it)`);
  return { uid: currentUid(), allowUids: new Set(allowUids ?? []), allowPeer };
}

/** The refusal of `peer` under `policy`, or undefined when it is allowed. */
function refusal(peer: PeerCredentials, policy: Policy, side: string): IpcPeerRefusedError | undefined {
  const who = `uid ${peer.uid}, gid ${peer.gid}, pid ${peer.pid}`;
  if (policy.allowPeer !== undefined) {
    let ok = false;
    try {
      ok = policy.allowPeer(peer) === true;
    } catch {
      ok = false;
    }
    return ok ? undefined : new IpcPeerRefusedError(peer, "predicate", `${side} (${who}) was refused by allowPeer: the connection was closed and nothing was sent`);
  }
  if (peer.uid === policy.uid || policy.allowUids.has(peer.uid)) return undefined;
  return new IpcPeerRefusedError(
    peer,
    "uid",
    `${side} (${who}) is another user than this process (uid ${policy.uid}): the connection was closed and nothing was sent. ` +
      "To share with that user on purpose, pass allowUids: [uid] (or allowPeer) on both sides",
  );
}

function tokenDigest(bytes: Uint8Array): Buffer {
  return nodeCrypto().createHash("sha256").update(bytes).digest();
}

/**
 * Walks `dir` (absolute) from the root, one component at a time without following links (`statx`), and follows
 * each symbolic link by hand. Refuses ({@link InsecurePathError}) a link owned by another user than this one or root
 * (its owner could point it elsewhere), and a directory another user could change: owned by someone else than this
 * user or root, or writable by group or others without the sticky bit (they could rename what lies below). Returns
 * the resolved directory, or undefined when a component does not exist yet.
 */
function checkDirectoryChain(dir: string, address: string): string | undefined {
  const uid = currentUid();
  const parts = (p: string): string[] => p.split("/").filter((c) => c !== "" && c !== ".");
  const todo = parts(dir);
  let at = "/";
  let links = 0;
  const checkDirectory = (p: string, st: LinkStatus): void => {
    if (st.uid !== uid && st.uid !== 0) {
      throw new InsecurePathError(p, `the directory ${p}, on the way to the socket ${address}, is owned by uid ${st.uid}, not this user (uid ${uid}) or root: its owner could replace the socket. Use IpcListener.listenPrivate(), or a directory of your own`);
    }
    if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) {
      throw new InsecurePathError(p, `the directory ${p}, on the way to the socket ${address}, is writable by group or others without the sticky bit: they could replace the socket. Use IpcListener.listenPrivate(), or a directory of mode 0700`);
    }
  };
  const stat = (p: string): LinkStatus | undefined => {
    try {
      return linkStatus(p);
    } catch (e) {
      throw new InsecurePathError(p, `${p} cannot be examined (${e instanceof Error ? e.message : String(e)}): cannot check who may replace the socket ${address}`);
    }
  };
  const root = stat("/");
  if (root !== undefined) checkDirectory("/", root);
  while (todo.length > 0) {
    const c = todo.shift()!;
    if (c === "..") {
      at = nodePath().dirname(at);
      continue;
    }
    const p = nodePath().join(at, c);
    const st = stat(p);
    if (st === undefined) return undefined;
    if (st.type === "symlink") {
      if (st.uid !== uid && st.uid !== 0) {
        throw new InsecurePathError(p, `${p}, on the way to the socket ${address}, is a symbolic link owned by uid ${st.uid}, not this user (uid ${uid}) or root: its owner could point it elsewhere. Use IpcListener.listenPrivate(), or a path without it`);
      }
      if (++links > 40) throw new InsecurePathError(p, `too many symbolic links on the way to the socket ${address}`);
      const target = readLink(p);
      if (target.startsWith("/")) at = "/";
      todo.unshift(...parts(target));
      continue;
    }
    if (st.type !== "directory") return undefined; // bind() says what is wrong
    checkDirectory(p, st);
    at = p;
  }
  return at;
}

/**
 * Checks a socket path before bind: every directory on the way (see {@link checkDirectoryChain}; missing ones are
 * made 0700 and the walk repeated), and the final name, which must not be a symbolic link.
 */
function prepareSocketPath(address: string): void {
  const full = nodePath().resolve(address);
  const dir = nodePath().dirname(full);
  if (checkDirectoryChain(dir, address) === undefined) {
    makePrivateDirectory(dir);
    if (checkDirectoryChain(dir, address) === undefined) throw new InsecurePathError(dir, `the socket's directory ${dir} could not be made`);
  }
  let st: LinkStatus | undefined;
  try {
    st = linkStatus(full);
  } catch (e) {
    throw new InsecurePathError(full, `${full} cannot be examined (${e instanceof Error ? e.message : String(e)})`);
  }
  if (st?.type === "symlink") {
    throw new InsecurePathError(full, `the socket path ${address} is a symbolic link (owned by uid ${st.uid}): a socket is never made through one. Remove it, or use another path`);
  }
}

/** Removes the socket file at `address` only while it is still the one this process made (same device and inode). */
function unlinkOwnSocket(address: string, made: { readonly dev: string; readonly ino: bigint } | undefined): void {
  if (made === undefined) return;
  let st: LinkStatus | undefined;
  try {
    st = linkStatus(address);
  } catch {
    return;
  }
  if (st !== undefined && st.type === "socket" && st.dev === made.dev && st.ino === made.ino) lib().unlink(ffi.pointerOf(ffi.cstring(address)));
}

/** One received message. */
export interface IpcMessage {
  /** The message's bytes. */
  readonly data: Uint8Array;
  /** File descriptors that came with it, now open in this process (the receiver must close them). */
  readonly fds: number[];
}

/** The largest message `receive` accepts by default. */
const MAX_MESSAGE_BYTES = 64 * 1024;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function deadline(options: IpcWaitOptions | undefined): { ms: number; at: number } {
  const ms = options?.timeoutMs ?? 30_000;
  if (typeof ms !== "number" || !(ms >= 0)) throw new RangeError(`timeoutMs is a non-negative number of milliseconds, not ${String(ms)}`);
  return { ms, at: Date.now() + ms };
}

/** Polls `attempt` (which returns undefined for "not yet") until it gives a value or the deadline passes. */
async function poll<T>(what: string, options: IpcWaitOptions | undefined, attempt: () => T | undefined): Promise<T> {
  const d = deadline(options);
  let pause = 1;
  for (;;) {
    const v = attempt();
    if (v !== undefined) return v;
    if (Date.now() >= d.at) throw new IpcTimeoutError(what, d.ms);
    await sleep(pause);
    pause = Math.min(pause * 2, 20);
  }
}

function newSocket(): number {
  const fd = lib().socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) throw new SystemCallError("socket(AF_UNIX, SOCK_SEQPACKET)", errno());
  return fd;
}

/** A connection of a listener with tokens that has not presented its token yet. */
interface Handshake {
  readonly fd: number;
  readonly peer: PeerCredentials;
  /** When it is refused if still silent (Date.now() milliseconds). */
  readonly at: number;
}

/** How many connections may wait for their token at once; more stay in the kernel's queue meanwhile. */
const MAX_HANDSHAKES = 64;

/** A listening socket that accepts {@link IpcChannel}s from allowed peers only. */
export class IpcListener {
  #fd: number;
  readonly #policy: Policy;
  /** Digests of the one-time tokens not used yet (undefined: no token required). */
  readonly #tokens: Buffer[] | undefined;
  readonly #handshakeMs: number;
  /** A private directory this listener made and removes when it closes. */
  readonly #ownDirectory: string | undefined;
  /** The socket file it made (device and inode), for a path address. */
  readonly #socketFile: { readonly dev: string; readonly ino: bigint } | undefined;
  /** Connections waiting to present their token. */
  #handshakes: Handshake[] = [];
  /** Admitted connections not handed to an accept() yet. */
  readonly #admitted: IpcChannel[] = [];
  #tokenBlock: MessageBlock | undefined;
  /** The address it listens on. */
  readonly address: string;

  private constructor(
    fd: number,
    address: string,
    policy: Policy,
    tokens: Buffer[] | undefined,
    handshakeMs: number,
    ownDirectory: string | undefined,
    socketFile: { readonly dev: string; readonly ino: bigint } | undefined,
  ) {
    this.#fd = fd;
    this.address = address;
    this.#policy = policy;
    this.#tokens = tokens;
    this.#handshakeMs = handshakeMs;
    this.#ownDirectory = ownDirectory;
    this.#socketFile = socketFile;
  }

  /** A fresh random one-time token (32 random bytes in hex) for {@link IpcListenOptions.tokens}. */
  static newToken(): string {
    return nodeCrypto().randomBytes(32).toString("hex");
  }

  /**
   * Listens on `address` (`"@name"` abstract, or a filesystem path); default a fresh random abstract name. A path is
   * refused ({@link InsecurePathError}) when another user could redirect or replace it: a symbolic link on the way
   * owned by another user than this one or root, a directory on the way that another user owns or may write without
   * the sticky bit, or a final name that is a symbolic link. A missing directory is created 0700; the socket is made
   * 0600, and close() removes it only while it is still the file this listener made.
   */
  static listen(address: string = `@cuda-ts-${crypto.randomUUID()}`, options?: IpcListenOptions): IpcListener {
    return IpcListener.#listen(address, options, undefined);
  }

  /**
   * Listens on a socket file in a fresh directory of mode 0700 (under `$XDG_RUNTIME_DIR` when set, else the
   * temporary directory), removed again when the listener closes.
   */
  static listenPrivate(options?: IpcListenOptions): IpcListener {
    const runtime = getEnv("XDG_RUNTIME_DIR");
    const parent = runtime !== undefined && nodePath().isAbsolute(runtime) && isDirectory(runtime) ? runtime : undefined;
    const dir = makeTemporaryPrivateDirectory("cuda-ts-ipc-", parent);
    try {
      return IpcListener.#listen(nodePath().join(dir, "socket"), options, dir);
    } catch (e) {
      removeDirectory(dir);
      throw e;
    }
  }

  static #listen(address: string, options: IpcListenOptions | undefined, ownDirectory: string | undefined): IpcListener {
    const a = socketAddress(address);
    const policy = checkPolicy("IpcListener.listen", options);
    const given = options?.tokens;
    if (given !== undefined && (!Array.isArray(given) || given.length === 0)) {
      throw new TypeError(`IpcListener.listen: tokens is a non-empty array of strings (IpcListener.newToken()), not ${describeValue(given)}`);
    }
    const tokens = given?.map((t) => tokenDigest(tokenBytes(t, "IpcListener.listen")));
    const handshakeMs = options?.handshakeTimeoutMs ?? 5000;
    if (typeof handshakeMs !== "number" || !(handshakeMs >= 0) || !Number.isFinite(handshakeMs)) {
      throw new RangeError(`IpcListener.listen: handshakeTimeoutMs is a non-negative number of milliseconds, not ${describeValue(handshakeMs)}`);
    }
    const abstract = address.startsWith("@");
    if (!abstract) prepareSocketPath(address);
    const fd = newSocket();
    if (lib().bind(fd, ffi.pointerOf(a.bytes), a.length) !== 0) {
      const e = errno();
      closeFd(fd);
      throw new SystemCallError(`bind(${JSON.stringify(address)})`, e, "the address may be in use: pick another name, or remove a stale socket file");
    }
    let made: { dev: string; ino: bigint } | undefined;
    try {
      if (!abstract) {
        const st = linkStatus(address);
        if (st === undefined || st.type !== "socket" || st.uid !== currentUid()) {
          throw new InsecurePathError(address, `the socket file ${address} was replaced right after it was made`);
        }
        made = { dev: st.dev, ino: st.ino };
        setMode(address, 0o600); // before listen(): nobody can connect yet
      }
      if (lib().listen(fd, 16) !== 0) throw new SystemCallError("listen", errno());
    } catch (e) {
      closeFd(fd);
      if (!abstract) unlinkOwnSocket(address, made);
      throw e;
    }
    return new IpcListener(fd, address, policy, tokens, handshakeMs, ownDirectory, made);
  }

  /**
   * Waits for an allowed process to connect, and returns the connection. A refused peer (another user, a failing
   * `allowPeer`, a missing, late or wrong token) is disconnected without being sent anything, reported to
   * `onRefused` when given, and accept() keeps waiting: no other process can make it fail. Connections waiting to
   * present their token are served side by side, each with its own deadline (`handshakeTimeoutMs` of listen).
   *
   * @throws IpcTimeoutError when no allowed peer came within `timeoutMs`.
   */
  async accept(options?: IpcAcceptOptions): Promise<IpcChannel> {
    const onRefused = options?.onRefused;
    if (onRefused !== undefined && typeof onRefused !== "function") throw new TypeError(`IpcListener.accept: onRefused is a function (error) => void, not ${describeValue(onRefused)}`);
    return poll(`accepting a connection on ${this.address}`, options, () => {
      const refused: IpcPeerRefusedError[] = [];
      const ch = this.#step(refused);
      if (onRefused !== undefined) for (const e of refused) onRefused(e);
      return ch;
    });
  }

  /** Takes new connections, advances handshakes, and hands out one admitted connection if there is one. */
  #step(refused: IpcPeerRefusedError[]): IpcChannel | undefined {
    if (this.#fd < 0) throw new ClosedError("this IpcListener", "accept connections");
    while (this.#handshakes.length < MAX_HANDSHAKES) {
      const c = lib().accept4(this.#fd, null, null, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (c < 0) {
        const e = errno();
        if (e === EINTR || e === ECONNABORTED) continue;
        if (e === EAGAIN) break;
        throw new SystemCallError("accept4", e);
      }
      const r = this.#admit(c);
      if (r !== undefined) {
        closeFd(c);
        refused.push(r);
      }
    }
    if (this.#handshakes.length > 0) {
      const now = Date.now();
      this.#handshakes = this.#handshakes.filter((h) => {
        const r = this.#advance(h, now);
        if (r === "waiting") return true;
        if (r !== "admitted") {
          closeFd(h.fd);
          refused.push(r);
        }
        return false;
      });
    }
    return this.#admitted.shift();
  }

  /** Checks a new connection's peer: a refusal, or undefined when it was admitted or waits for its token. */
  #admit(fd: number): IpcPeerRefusedError | undefined {
    let peer: PeerCredentials;
    try {
      peer = peerCredentials(fd);
    } catch {
      return new IpcPeerRefusedError({ uid: -1, gid: -1, pid: 0 }, "uid", "a peer whose credentials could not be read was refused: the connection was closed");
    }
    const refused = refusal(peer, this.#policy, "a connecting process");
    if (refused !== undefined) return refused;
    if (this.#tokens === undefined) {
      this.#admitted.push(new IpcChannel(INTERNAL, fd, peer));
      return undefined;
    }
    if (this.#tokens.length === 0) return tokenRefusal(peer, "every one-time token of this listener has been used");
    this.#handshakes.push({ fd, peer, at: Date.now() + this.#handshakeMs });
    return undefined;
  }

  /** Looks for a waiting connection's token message (without waiting). */
  #advance(h: Handshake, now: number): "waiting" | "admitted" | IpcPeerRefusedError {
    const maxBytes = 12 + MAX_TOKEN_BYTES;
    const block = (this.#tokenBlock ??= new MessageBlock(maxBytes, 0));
    let m: IpcMessage | undefined;
    try {
      m = receiveNow(h.fd, block, maxBytes, 0);
    } catch (e) {
      return tokenRefusal(h.peer, `no valid token message came first (${e instanceof Error ? e.message : String(e)})`);
    }
    if (m === undefined) return now >= h.at ? tokenRefusal(h.peer, `it sent no token within ${this.#handshakeMs} ms`) : "waiting";
    for (const f of m.fds) closeFd(f);
    let digest: Buffer;
    try {
      digest = tokenDigest(decodeTokenMessage(m.data));
    } catch (e) {
      return tokenRefusal(h.peer, e instanceof Error ? e.message : String(e));
    }
    const tokens = this.#tokens!;
    let match = -1;
    tokens.forEach((t, i) => {
      if (nodeCrypto().timingSafeEqual(t, digest)) match = i;
    });
    if (match < 0) return tokenRefusal(h.peer, tokens.length === 0 ? "every one-time token of this listener has been used" : "its token is not one of this listener's (or was used already)");
    tokens.splice(match, 1);
    this.#admitted.push(new IpcChannel(INTERNAL, h.fd, h.peer));
    return "admitted";
  }

  /**
   * Stops listening: closes connections not accepted yet, removes the socket file of a filesystem address (only
   * while it is still the file this listener made) and the directory listenPrivate made. Closing twice is harmless.
   */
  close(): void {
    if (this.#fd < 0) return;
    closeFd(this.#fd);
    this.#fd = -1;
    for (const h of this.#handshakes) closeFd(h.fd);
    this.#handshakes = [];
    for (const ch of this.#admitted.splice(0)) ch.close();
    if (!this.address.startsWith("@")) unlinkOwnSocket(this.address, this.#socketFile);
    if (this.#ownDirectory !== undefined) removeDirectory(this.#ownDirectory);
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

function tokenRefusal(peer: PeerCredentials, why: string): IpcPeerRefusedError {
  return new IpcPeerRefusedError(peer, "token", `a connecting process (uid ${peer.uid}, pid ${peer.pid}) was refused: ${why}. The connection was closed and nothing was sent`);
}

/**
 * One message from `fd` if one is there (without waiting), else undefined.
 *
 * @throws IpcDisconnectedError when the other end closed; RangeError when the message did not fit `m`.
 */
function receiveNow(fd: number, m: MessageBlock, maxBytes: number, maxFds: number): IpcMessage | undefined {
  m.prepareReceive();
  const n = Number(lib().recvmsg(fd, m.pointer, MSG_DONTWAIT | MSG_CMSG_CLOEXEC));
  if (n < 0) {
    const e = errno();
    if (e === EAGAIN || e === EINTR) return undefined;
    throw new SystemCallError("recvmsg", e);
  }
  const fds = m.receivedFds();
  if (n === 0 && fds.length === 0 && maxBytes > 0) {
    throw new IpcDisconnectedError("the other process closed the connection before sending a message");
  }
  if ((m.flags & (MSG_CTRUNC | MSG_TRUNC)) !== 0) {
    for (const f of fds) closeFd(f);
    throw new RangeError(
      (m.flags & MSG_TRUNC) !== 0
        ? `a message was longer than ${maxBytes} bytes and was cut: pass a larger maxBytes`
        : `a message carried more than ${maxFds} file descriptors and some were lost: pass a larger maxFds`,
    );
  }
  return { data: m.data.slice(0, n), fds };
}

/** A connected socket carrying messages with file descriptors (one message per send, kept whole). */
export class IpcChannel {
  #fd: number;
  /** The process at the other end, as the kernel recorded it when the connection was made. */
  readonly peer: PeerCredentials;

  /** Reserved to cuda-ts (the token is not exported): use {@link IpcChannel.connect} or {@link IpcListener.accept}. */
  constructor(token: Internal, fd: number, peer: PeerCredentials) {
    checkInternal(token, "IpcChannel", "IpcChannel.connect or IpcListener.accept");
    this.#fd = fd;
    this.peer = peer;
  }

  /**
   * Connects to a listener, retrying until it exists (the other process may still be starting). The listening
   * process must be an allowed peer (by default: this user), else the connection is closed and the promise
   * rejects with an {@link IpcPeerRefusedError}, nothing sent. With `token`, sends it as the first message.
   */
  static async connect(address: string, options?: IpcConnectOptions): Promise<IpcChannel> {
    const a = socketAddress(address);
    const policy = checkPolicy("IpcChannel.connect", options);
    const token = options?.token === undefined ? undefined : encodeTokenMessage(options.token);
    const fd = await poll(`connecting to ${address}`, options, () => {
      const fd = newSocket();
      if (lib().connect(fd, ffi.pointerOf(a.bytes), a.length) === 0) return fd;
      const e = errno();
      closeFd(fd);
      if (e === ENOENT || e === ECONNREFUSED || e === EAGAIN || e === EINTR) return undefined;
      throw new SystemCallError(`connect(${JSON.stringify(address)})`, e);
    });
    let peer: PeerCredentials;
    try {
      peer = peerCredentials(fd);
    } catch (e) {
      closeFd(fd);
      throw e;
    }
    const refused = refusal(peer, policy, `the process listening on ${address}`);
    if (refused !== undefined) {
      closeFd(fd);
      throw refused;
    }
    const ch = new IpcChannel(INTERNAL, fd, peer);
    if (token !== undefined) {
      try {
        ch.send(token);
      } catch (e) {
        ch.close();
        if (e instanceof SystemCallError && (e.errno === EPIPE || e.errno === ECONNRESET)) {
          throw new IpcDisconnectedError(`the process listening on ${address} closed the connection before the token was sent: it refused this process (another user's listener, or no token left)`);
        }
        throw e;
      }
    }
    return ch;
  }

  #socket(action: string): number {
    if (this.#fd < 0) throw new ClosedError("this IpcChannel", action);
    return this.#fd;
  }

  /**
   * Sends one message: bytes, plus file descriptors to duplicate into the receiver (they stay open here too).
   *
   * @throws SystemCallError when the peer is gone or the socket's buffer is full.
   */
  send(data: Uint8Array, fds: readonly number[] = []): void {
    const fd = this.#socket("send");
    if (!(data instanceof Uint8Array)) throw new TypeError(`IpcChannel.send takes a Uint8Array, not ${describeValue(data)}`);
    for (const f of fds) if (!Number.isInteger(f) || f < 0) throw new RangeError(`a file descriptor is a non-negative integer, not ${f}`);
    const m = new MessageBlock(data.length, fds.length);
    m.data.set(data);
    m.setFds(fds);
    for (;;) {
      const n = lib().sendmsg(fd, m.pointer, MSG_NOSIGNAL);
      if (Number(n) >= 0) return;
      const e = errno();
      if (e !== EINTR) throw new SystemCallError("sendmsg", e, "is the other process still connected?");
    }
  }

  /**
   * Waits for one message. Descriptors that arrive are open in this process; close them (or hand them to
   * something that does).
   */
  receive(options?: IpcWaitOptions & { readonly maxBytes?: number; readonly maxFds?: number }): Promise<IpcMessage> {
    const maxBytes = options?.maxBytes ?? MAX_MESSAGE_BYTES;
    const maxFds = options?.maxFds ?? 16;
    const m = new MessageBlock(maxBytes, maxFds);
    return poll("waiting for a message", options, () => receiveNow(this.#socket("receive"), m, maxBytes, maxFds));
  }

  /** Sends a pool's allocation handle (its descriptor and UUID). The handle stays open here. */
  sendAllocationHandle(handle: IPCAllocationHandle): void {
    if (!(handle instanceof IPCAllocationHandle)) throw new TypeError("sendAllocationHandle takes an IPCAllocationHandle (a resource's allocationHandle)");
    this.send(handle.encodeMessage(), [handle.fd]);
  }

  /** Waits for an allocation handle sent with {@link IpcChannel.sendAllocationHandle}. */
  async receiveAllocationHandle(options?: IpcWaitOptions): Promise<IPCAllocationHandle> {
    const m = await this.receive({ ...options, maxBytes: HANDLE_MESSAGE_BYTES + 1, maxFds: 4 });
    try {
      if (m.fds.length !== 1) throw new RangeError(`an allocation-handle message carries one file descriptor, this one carried ${m.fds.length}: was it sent with sendAllocationHandle?`);
      const { uuid } = IPCAllocationHandle.decodeMessage(m.data);
      return new IPCAllocationHandle(INTERNAL, m.fds[0]!, uuid);
    } catch (e) {
      for (const f of m.fds) closeFd(f);
      throw e;
    }
  }

  /** Closes the connection. Closing twice is harmless. */
  close(): void {
    if (this.#fd < 0) return;
    closeFd(this.#fd);
    this.#fd = -1;
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
