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
import { ClosedError, IpcTimeoutError, IpcDisconnectedError } from "../errors.ts";
import { HANDLE_MESSAGE_BYTES, IPCAllocationHandle } from "./ipc.ts";
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
  SOCK_CLOEXEC,
  SOCK_NONBLOCK,
  SOCK_SEQPACKET,
  socketAddress,
  SystemCallError,
} from "../../ffi/libc-socket.ts";
import { ffi } from "../../ffi/index.ts";
import { describeValue } from "../base/checks.ts";

/** Options of waiting calls. */
export interface IpcWaitOptions {
  /** Give up after this many milliseconds (default 30 000). */
  readonly timeoutMs?: number;
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

/** A listening socket that accepts {@link IpcChannel}s. */
export class IpcListener {
  #fd: number;
  /** The address it listens on. */
  readonly address: string;

  private constructor(fd: number, address: string) {
    this.#fd = fd;
    this.address = address;
  }

  /** Listens on `address` (`"@name"` abstract, or a filesystem path); default a fresh random abstract name. */
  static listen(address: string = `@cuda-ts-${crypto.randomUUID()}`): IpcListener {
    const a = socketAddress(address);
    const fd = newSocket();
    if (lib().bind(fd, ffi.pointerOf(a.bytes), a.length) !== 0) {
      const e = errno();
      closeFd(fd);
      throw new SystemCallError(`bind(${JSON.stringify(address)})`, e, "the address may be in use: pick another name, or remove a stale socket file");
    }
    if (lib().listen(fd, 16) !== 0) {
      const e = errno();
      closeFd(fd);
      throw new SystemCallError("listen", e);
    }
    return new IpcListener(fd, address);
  }

  /** Waits for a process to connect, and returns the connection. */
  accept(options?: IpcWaitOptions): Promise<IpcChannel> {
    return poll(`accepting a connection on ${this.address}`, options, () => {
      if (this.#fd < 0) throw new ClosedError("this IpcListener", "accept connections");
      const fd = lib().accept4(this.#fd, null, null, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd >= 0) return new IpcChannel(fd);
      const e = errno();
      if (e === EAGAIN || e === EINTR) return undefined;
      throw new SystemCallError("accept4", e);
    });
  }

  /** Stops listening (removes the socket file of a filesystem address). Closing twice is harmless. */
  close(): void {
    if (this.#fd < 0) return;
    closeFd(this.#fd);
    this.#fd = -1;
    if (!this.address.startsWith("@")) lib().unlink(ffi.pointerOf(ffi.cstring(this.address)));
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/** A connected socket carrying messages with file descriptors (one message per send, kept whole). */
export class IpcChannel {
  #fd: number;

  /** @internal Use {@link IpcChannel.connect} or {@link IpcListener.accept}. */
  constructor(fd: number) {
    this.#fd = fd;
  }

  /** Connects to a listener, retrying until it exists (the other process may still be starting). */
  static connect(address: string, options?: IpcWaitOptions): Promise<IpcChannel> {
    const a = socketAddress(address);
    return poll(`connecting to ${address}`, options, () => {
      const fd = newSocket();
      if (lib().connect(fd, ffi.pointerOf(a.bytes), a.length) === 0) return new IpcChannel(fd);
      const e = errno();
      closeFd(fd);
      if (e === ENOENT || e === ECONNREFUSED || e === EAGAIN || e === EINTR) return undefined;
      throw new SystemCallError(`connect(${JSON.stringify(address)})`, e);
    });
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
      return new IPCAllocationHandle(m.fds[0]!, uuid);
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
