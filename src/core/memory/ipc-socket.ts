/**
 * Passing file descriptors between processes without compiled code: an AF_UNIX SOCK_SEQPACKET socket, driven
 * through libc with the FFI, carries each message's bytes plus descriptors as SCM_RIGHTS ancillary data. The
 * receiving kernel installs new descriptors (close-on-exec) for the same open files, which is what
 * `cuMemPoolImportFromShareableHandle` needs.
 *
 * Addresses: `"@name"` is Linux's abstract socket namespace (no file is created, nothing to clean up, no Deno
 * read/write permission involved; visible to processes in the same network namespace), any other string a
 * filesystem path (removed again when the listener closes). Waiting never blocks the event loop: sockets are
 * non-blocking and polled with timers.
 *
 * Who may connect: abstract names have no permissions and every local user can list them, so both ends check the
 * other's credentials as the kernel recorded them (`SO_PEERCRED`): by default only processes of the same user are
 * accepted (`allowUids` adds users, `allowPeer` decides alone from uid, gid and pid). A refused peer's connection
 * is closed before anything is sent over it, and reported as an {@link IpcPeerRefusedError} (to `accept()`'s
 * caller, or to its `onRefused` callback while it keeps waiting). A listener may also require a one-time token
 * (`tokens`) in the first message: a second factor for peers of the same user. Default names are random (122
 * bits); a filesystem socket is made mode 0600 in a directory no other user can write ({@link IpcListener.listenPrivate}
 * makes a fresh 0700 one).
 *
 * ```ts
 * // exporter                                        // importer (another process)
 * using listener = IpcListener.listen("@my-app");    using ch = await IpcChannel.connect("@my-app");
 * using ch = await listener.accept();                const h = await ch.receiveAllocationHandle();
 * ch.sendAllocationHandle(mr.allocationHandle);       const mr = DeviceMemoryResource.fromAllocationHandle(dev, h);
 * ch.send(buffer.ipcDescriptor.toBytes());           const d = IPCBufferDescriptor.fromBytes((await ch.receive()).data);
 * ```
 *
 * @module
 */
import type { Buffer } from "node:buffer";
import { ClosedError, InsecurePathError } from "../base/errors.ts";
import { IpcTimeoutError, IpcDisconnectedError, IpcPeerRefusedError } from "./ipc-errors.ts";
import { decodeTokenMessage, encodeTokenMessage, HANDLE_MESSAGE_BYTES, IPCAllocationHandle, MAX_TOKEN_BYTES, tokenBytes } from "./ipc.ts";
import { getEnv, nodeBuiltin, isDirectory, makePrivateDirectory, makeTemporaryPrivateDirectory, pathOwnership, removeDirectory, setMode } from "../../host.ts";
import {
  AF_UNIX,
  closeFd,
  EAGAIN,
  ECONNREFUSED,
  EINTR,
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
}

/** Options of {@link IpcListener.accept}. */
export interface IpcAcceptOptions extends IpcWaitOptions {
  /**
   * Called with each refused peer's error, and accept() keeps waiting for an allowed one; without it, accept()
   * rejects with the error (the listener stays open: call accept() again).
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

/** The directory of an address that is a path, checked or made private (0700 when this call creates it). */
function prepareSocketDirectory(address: string): void {
  const dir = nodePath().dirname(nodePath().resolve(address));
  if (!isDirectory(dir)) makePrivateDirectory(dir);
  const st = pathOwnership(dir, true);
  if (st === undefined) throw new InsecurePathError(dir, `${dir} cannot be read: cannot check who may replace the socket ${address}`);
  const uid = currentUid();
  if (st.uid !== uid && st.uid !== 0) {
    throw new InsecurePathError(dir, `the socket's directory ${dir} is owned by uid ${st.uid}, not this user (uid ${uid}) or root: its owner could replace the socket. Use IpcListener.listenPrivate(), or a directory of your own`);
  }
  if ((st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0) {
    throw new InsecurePathError(dir, `the socket's directory ${dir} is writable by group or others without the sticky bit: they could replace the socket. Use IpcListener.listenPrivate(), or a directory of mode 0700`);
  }
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

/** A listening socket that accepts {@link IpcChannel}s from allowed peers only. */
export class IpcListener {
  #fd: number;
  readonly #policy: Policy;
  /** Digests of the one-time tokens not used yet (undefined: no token required). */
  readonly #tokens: Buffer[] | undefined;
  /** A private directory this listener made and removes when it closes. */
  readonly #ownDirectory: string | undefined;
  /** The address it listens on. */
  readonly address: string;

  private constructor(fd: number, address: string, policy: Policy, tokens: Buffer[] | undefined, ownDirectory: string | undefined) {
    this.#fd = fd;
    this.address = address;
    this.#policy = policy;
    this.#tokens = tokens;
    this.#ownDirectory = ownDirectory;
  }

  /** A fresh random one-time token (32 random bytes in hex) for {@link IpcListenOptions.tokens}. */
  static newToken(): string {
    return nodeCrypto().randomBytes(32).toString("hex");
  }

  /**
   * Listens on `address` (`"@name"` abstract, or a filesystem path); default a fresh random abstract name. A path's
   * directory is created 0700 when missing and refused ({@link InsecurePathError}) when others could write it; the
   * socket is made 0600.
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
    const abstract = address.startsWith("@");
    if (!abstract && ownDirectory === undefined) prepareSocketDirectory(address);
    const fd = newSocket();
    if (lib().bind(fd, ffi.pointerOf(a.bytes), a.length) !== 0) {
      const e = errno();
      closeFd(fd);
      throw new SystemCallError(`bind(${JSON.stringify(address)})`, e, "the address may be in use: pick another name, or remove a stale socket file");
    }
    try {
      if (!abstract) setMode(address, 0o600); // before listen(): nobody can connect yet
      if (lib().listen(fd, 16) !== 0) throw new SystemCallError("listen", errno());
    } catch (e) {
      closeFd(fd);
      if (!abstract) lib().unlink(ffi.pointerOf(ffi.cstring(address)));
      throw e;
    }
    return new IpcListener(fd, address, policy, tokens, ownDirectory);
  }

  /**
   * Waits for an allowed process to connect, and returns the connection. A refused peer (another user, a failing
   * `allowPeer`, a missing or wrong token) is disconnected without being sent anything, and reported: to
   * `onRefused` when given (accept keeps waiting), else as an {@link IpcPeerRefusedError} rejection.
   */
  async accept(options?: IpcAcceptOptions): Promise<IpcChannel> {
    const onRefused = options?.onRefused;
    if (onRefused !== undefined && typeof onRefused !== "function") throw new TypeError(`IpcListener.accept: onRefused is a function (error) => void, not ${describeValue(onRefused)}`);
    const d = deadline(options);
    for (;;) {
      const remaining = Math.max(0, d.at - Date.now());
      let fd: number;
      try {
        fd = await poll(`accepting a connection on ${this.address}`, { timeoutMs: remaining }, () => {
          if (this.#fd < 0) throw new ClosedError("this IpcListener", "accept connections");
          const c = lib().accept4(this.#fd, null, null, SOCK_NONBLOCK | SOCK_CLOEXEC);
          if (c >= 0) return c;
          const e = errno();
          if (e === EAGAIN || e === EINTR) return undefined;
          throw new SystemCallError("accept4", e);
        });
      } catch (e) {
        if (e instanceof IpcTimeoutError) throw new IpcTimeoutError(`accepting a connection on ${this.address}`, d.ms);
        throw e;
      }
      const admitted = await this.#admit(fd, d.at);
      if (!(admitted instanceof IpcPeerRefusedError)) return new IpcChannel(INTERNAL, fd, admitted);
      closeFd(fd);
      if (onRefused === undefined) throw admitted;
      onRefused(admitted);
    }
  }

  /** Checks a new connection's peer (and token): the refusal, or the peer's credentials when it may stay. */
  async #admit(fd: number, at: number): Promise<IpcPeerRefusedError | PeerCredentials> {
    let peer: PeerCredentials;
    try {
      peer = peerCredentials(fd);
    } catch {
      return new IpcPeerRefusedError({ uid: -1, gid: -1, pid: 0 }, "uid", "a peer whose credentials could not be read was refused: the connection was closed");
    }
    const refused = refusal(peer, this.#policy, "a connecting process");
    if (refused !== undefined) return refused;
    if (this.#tokens === undefined) return peer;
    const tokens = this.#tokens;
    const fail = (why: string): IpcPeerRefusedError =>
      new IpcPeerRefusedError(peer, "token", `a connecting process (uid ${peer.uid}, pid ${peer.pid}) was refused: ${why}. The connection was closed and nothing was sent`);
    if (tokens.length === 0) return fail("every one-time token of this listener has been used");
    let data: Uint8Array;
    try {
      const ch = new IpcChannel(INTERNAL, fd, peer);
      const m = await ch.receive({ timeoutMs: Math.min(10_000, Math.max(0, at - Date.now())), maxBytes: 12 + MAX_TOKEN_BYTES, maxFds: 0 });
      data = m.data;
      for (const f of m.fds) closeFd(f);
    } catch (e) {
      return fail(`no valid token message came first (${e instanceof Error ? e.message : String(e)})`);
    }
    let digest: Buffer;
    try {
      digest = tokenDigest(decodeTokenMessage(data));
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e));
    }
    let match = -1;
    tokens.forEach((t, i) => {
      if (nodeCrypto().timingSafeEqual(t, digest)) match = i;
    });
    if (match < 0) return fail("its token is not one of this listener's (or was used already)");
    tokens.splice(match, 1);
    return peer;
  }

  /** Stops listening (removes the socket file of a filesystem address, and the directory listenPrivate made). Closing twice is harmless. */
  close(): void {
    if (this.#fd < 0) return;
    closeFd(this.#fd);
    this.#fd = -1;
    if (!this.address.startsWith("@")) lib().unlink(ffi.pointerOf(ffi.cstring(this.address)));
    if (this.#ownDirectory !== undefined) removeDirectory(this.#ownDirectory);
  }

  [Symbol.dispose](): void {
    this.close();
  }
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
    return poll("waiting for a message", options, () => {
      const fd = this.#socket("receive");
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
    });
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
