/**
 * The few libc calls IPC needs (Linux, glibc 2.28 or later): AF_UNIX sockets that carry file descriptors
 * (SCM_RIGHTS), closing descriptors (a path's components without following links: ./libc-stat.ts). Bound through the FFI on first use; no compiled code. The structs (sockaddr_un, msghdr,
 * iovec, cmsghdr) are laid out here for LP64 Linux (x86-64 and aarch64 share these layouts).
 *
 * @module
 */
import type { NativeFunction } from "./index.ts";
import { ffi } from "./index.ts";
import type { NativePointer } from "./types.ts";
import { SymbolNotFoundError } from "./errors.ts";
import { LibraryError, quietFields } from "../errors/base.ts";

const signatures = {
  socket: { parameters: ["i32", "i32", "i32"], result: "i32" },
  bind: { parameters: ["i32", "pointer", "u32"], result: "i32" },
  listen: { parameters: ["i32", "i32"], result: "i32" },
  accept4: { parameters: ["i32", "pointer", "pointer", "i32"], result: "i32" },
  connect: { parameters: ["i32", "pointer", "u32"], result: "i32" },
  sendmsg: { parameters: ["i32", "pointer", "i32"], result: "i64" },
  recvmsg: { parameters: ["i32", "pointer", "i32"], result: "i64" },
  close: { parameters: ["i32"], result: "i32" },
  unlink: { parameters: ["pointer"], result: "i32" },
  dup: { parameters: ["i32"], result: "i32" },
  getsockopt: { parameters: ["i32", "i32", "i32", "pointer", "pointer"], result: "i32" },
  getuid: { parameters: [], result: "u32" },
  strerror: { parameters: ["i32"], result: "pointer" },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

type Libc = { readonly [K in keyof typeof signatures]: NativeFunction<(typeof signatures)[K]> };

let libc: Libc | undefined;

/** libc, bound on first use. */
export function lib(): Libc {
  if (libc !== undefined) return libc;
  const l = ffi.openLibrary("libc.so.6");
  const out: Partial<Record<keyof typeof signatures, unknown>> = {};
  for (const name of Object.keys(signatures) as (keyof typeof signatures)[]) {
    const fn = l.bind(name, signatures[name]);
    if (fn === null) throw new SymbolNotFoundError("libc.so.6", name, "IPC needs glibc on Linux");
    out[name] = fn;
  }
  libc = out as Libc;
  return libc;
}

/** Linux constants. */
export const AF_UNIX = 1;
export const SOCK_SEQPACKET = 5;
export const SOCK_NONBLOCK = 0o4000;
export const SOCK_CLOEXEC = 0o2000000;
export const SOL_SOCKET = 1;
export const SCM_RIGHTS = 1;
export const SO_PEERCRED = 17;
export const MSG_DONTWAIT = 0x40;
export const MSG_CTRUNC = 0x8;
export const MSG_TRUNC = 0x20;
export const MSG_NOSIGNAL = 0x4000;
export const MSG_CMSG_CLOEXEC = 0x40000000;
export const EAGAIN = 11;
export const EINTR = 4;
export const ENOENT = 2;
export const ECONNREFUSED = 111;
export const ECONNABORTED = 103;
export const ECONNRESET = 104;
export const EPIPE = 32;
export const EINPROGRESS = 115;
export const ENOTDIR = 20;

/** The calling thread's errno (read right after the failed call). */
export function errno(): number {
  return ffi.readI32(lib().__errno_location() as NativePointer, 0);
}

const ERRNO_NAMES: Readonly<Record<number, string>> = { 2: "ENOENT", 4: "EINTR", 9: "EBADF", 11: "EAGAIN", 13: "EACCES", 20: "ENOTDIR", 32: "EPIPE", 98: "EADDRINUSE", 103: "ECONNABORTED", 104: "ECONNRESET", 111: "ECONNREFUSED", 115: "EINPROGRESS" };

/** An OS error from a libc call, with errno and its text (a {@link LibraryError} of `"libc"`: `status` is errno). */
export class SystemCallError extends LibraryError {
  /** The errno value. */
  readonly errno: number;
  /** The call that failed. */
  readonly call: string;
  constructor(call: string, code: number, hint = "") {
    const text = ffi.readCString(lib().strerror(code)) ?? `errno ${code}`;
    super("libc", code, ERRNO_NAMES[code] ?? `errno ${code}`, text, call, { message: `${call} failed: ${text} (errno ${code})${hint ? `. ${hint}` : ""}` });
    this.name = "SystemCallError";
    this.errno = code;
    this.call = call;
    quietFields(this);
  }
}

/** Closes a file descriptor (errors ignored except EBADF, which means it was not open). */
export function closeFd(fd: number): void {
  if (lib().close(fd) !== 0 && errno() === 9) throw new SystemCallError("close", 9, `file descriptor ${fd} is not open`);
}

/** Duplicates a file descriptor (`dup`). */
export function dupFd(fd: number): number {
  const r = lib().dup(fd);
  if (r < 0) throw new SystemCallError("dup", errno(), `could not duplicate file descriptor ${fd}`);
  return r;
}

/** The credentials of a Unix socket's peer (`SO_PEERCRED`): taken by the kernel when it connected or listened. */
export interface PeerCredentials {
  /** The peer process's id (in this process's PID namespace; 0 when it is outside it). */
  readonly pid: number;
  /** The peer's effective user id. */
  readonly uid: number;
  /** The peer's effective group id. */
  readonly gid: number;
}

/** The credentials of the process at the other end of a connected Unix socket (`getsockopt(SO_PEERCRED)`). */
export function peerCredentials(fd: number): PeerCredentials {
  const cred = new Uint8Array(new ArrayBuffer(12)); // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
  const len = new Uint8Array(new ArrayBuffer(4));
  new DataView(len.buffer).setUint32(0, 12, true);
  if (lib().getsockopt(fd, SOL_SOCKET, SO_PEERCRED, ffi.pointerOf(cred), ffi.pointerOf(len)) !== 0) {
    throw new SystemCallError("getsockopt(SO_PEERCRED)", errno(), "could not learn who is at the other end of the socket");
  }
  const dv = new DataView(cred.buffer);
  return { pid: dv.getInt32(0, true), uid: dv.getUint32(4, true), gid: dv.getUint32(8, true) };
}

/** This process's real user id (`getuid`). */
export function currentUid(): number {
  return lib().getuid();
}

const SUN_PATH = 108;

/**
 * Encodes a socket address: `"@name"` is Linux's abstract namespace (no file, gone with the last socket), anything
 * else a filesystem path. Returns the sockaddr_un bytes and the length to pass.
 */
export function socketAddress(address: string): { bytes: Uint8Array; length: number } {
  if (typeof address !== "string" || address.length === 0) throw new TypeError(`a socket address is a non-empty string ("@name" or a path), not ${JSON.stringify(address)}`);
  const abstract = address.startsWith("@");
  const name = new TextEncoder().encode(abstract ? address.slice(1) : address);
  const room = SUN_PATH - 1; // abstract: a leading NUL; a path: a trailing NUL
  if (name.length === 0 || name.length > room || (!abstract && name.includes(0))) {
    throw new RangeError(`a Unix socket address holds 1 to ${room} bytes without NULs; ${JSON.stringify(address)} has ${name.length}: use a shorter name or path`);
  }
  const bytes = new Uint8Array(new ArrayBuffer(2 + SUN_PATH));
  new DataView(bytes.buffer).setUint16(0, AF_UNIX, true);
  bytes.set(name, abstract ? 3 : 2);
  return { bytes, length: abstract ? 3 + name.length : 2 + name.length + 1 };
}

/** A message for sendmsg/recvmsg: the msghdr, one iovec, and room for `maxFds` descriptors, in one block. */
export class MessageBlock {
  readonly memory: ArrayBuffer;
  readonly dv: DataView;
  readonly pointer: NativePointer;
  readonly data: Uint8Array;
  readonly #controlSpace: number;

  static readonly MSGHDR = 56;
  static readonly IOVEC = 16;
  static readonly CMSGHDR = 16;

  constructor(dataBytes: number, maxFds: number) {
    this.#controlSpace = maxFds === 0 ? 0 : MessageBlock.CMSGHDR + align8(4 * maxFds);
    const size = MessageBlock.MSGHDR + MessageBlock.IOVEC + this.#controlSpace + Math.max(dataBytes, 1);
    this.memory = new ArrayBuffer(align8(size));
    this.dv = new DataView(this.memory);
    this.pointer = ffi.pointerOf(this.memory);
    const dataOffset = MessageBlock.MSGHDR + MessageBlock.IOVEC + this.#controlSpace;
    this.data = new Uint8Array(this.memory, dataOffset, dataBytes);
    const iov = MessageBlock.MSGHDR;
    const base = ffi.bigAddressOf(this.pointer);
    // msghdr: name NULL, namelen 0, iov, iovlen 1, control, controllen, flags 0
    this.dv.setBigUint64(16, base + BigInt(iov), true);
    this.dv.setBigUint64(24, 1n, true);
    this.dv.setBigUint64(32, this.#controlSpace === 0 ? 0n : base + BigInt(iov + MessageBlock.IOVEC), true);
    this.dv.setBigUint64(40, BigInt(this.#controlSpace), true);
    // iovec: base, len
    this.dv.setBigUint64(iov, base + BigInt(dataOffset), true);
    this.dv.setBigUint64(iov + 8, BigInt(dataBytes), true);
  }

  /** Restores the control block's full room before a recvmsg (the kernel shrinks msg_controllen to what arrived). */
  prepareReceive(): void {
    const base = ffi.bigAddressOf(this.pointer);
    this.dv.setBigUint64(32, this.#controlSpace === 0 ? 0n : base + BigInt(MessageBlock.MSGHDR + MessageBlock.IOVEC), true);
    this.dv.setBigUint64(40, BigInt(this.#controlSpace), true);
    this.dv.setInt32(48, 0, true);
  }

  /** Puts file descriptors in the control block (one SCM_RIGHTS message). */
  setFds(fds: readonly number[]): void {
    const c = MessageBlock.MSGHDR + MessageBlock.IOVEC;
    if (fds.length === 0) {
      this.dv.setBigUint64(32, 0n, true);
      this.dv.setBigUint64(40, 0n, true);
      return;
    }
    if (MessageBlock.CMSGHDR + align8(4 * fds.length) > this.#controlSpace) throw new RangeError(`room for fewer than ${fds.length} file descriptors`);
    this.dv.setBigUint64(c, BigInt(MessageBlock.CMSGHDR + 4 * fds.length), true);
    this.dv.setInt32(c + 8, SOL_SOCKET, true);
    this.dv.setInt32(c + 12, SCM_RIGHTS, true);
    fds.forEach((fd, i) => this.dv.setInt32(c + MessageBlock.CMSGHDR + 4 * i, fd, true));
    this.dv.setBigUint64(40, BigInt(MessageBlock.CMSGHDR + align8(4 * fds.length)), true);
  }

  /** The received message flags (msg_flags). */
  get flags(): number {
    return this.dv.getInt32(48, true);
  }

  /**
   * The file descriptors of every SCM_RIGHTS message received in the control block. Reads only inside the control
   * block, whatever msg_controllen and the cmsg lengths say.
   */
  receivedFds(): number[] {
    const c = MessageBlock.MSGHDR + MessageBlock.IOVEC;
    const used = Math.min(Number(this.dv.getBigUint64(40, true)), this.#controlSpace);
    const fds: number[] = [];
    let o = 0;
    while (o + MessageBlock.CMSGHDR <= used) {
      const len = Number(this.dv.getBigUint64(c + o, true));
      if (len < MessageBlock.CMSGHDR || len > used - o) break;
      if (this.dv.getInt32(c + o + 8, true) === SOL_SOCKET && this.dv.getInt32(c + o + 12, true) === SCM_RIGHTS) {
        const n = Math.floor((len - MessageBlock.CMSGHDR) / 4);
        for (let i = 0; i < n; i++) fds.push(this.dv.getInt32(c + o + MessageBlock.CMSGHDR + 4 * i, true));
      }
      o += align8(len);
    }
    return fds;
  }
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8;
}
