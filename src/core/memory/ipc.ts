/**
 * Sharing pool memory between processes (Linux), as cuda.core does:
 *
 * 1. The exporter creates an IPC-enabled pool (`new DeviceMemoryResource(dev, { ipcEnabled: true })`, handle type
 *    POSIX file descriptor). Its {@link IPCAllocationHandle} is the pool's exported file descriptor plus a UUID.
 * 2. The descriptor travels to the importer over a Unix socket as SCM_RIGHTS ancillary data (see
 *    memory-ipc-socket.ts: `IpcListener` / `IpcChannel`); the kernel installs a new descriptor for the same open
 *    file in the receiving process. (A file descriptor number means nothing in another process, and reopening
 *    `/proc/<pid>/fd/<n>` opens the device file anew rather than sharing the exported handle, so neither works.)
 * 3. The importer maps the pool: `DeviceMemoryResource.fromAllocationHandle(dev, handle)`.
 * 4. Each buffer travels as an {@link IPCBufferDescriptor} (`buffer.ipcDescriptor`: the 64 bytes of
 *    `cuMemPoolExportPointer`, the size and the pool's UUID) in plain bytes (`toBytes()` / `fromBytes()`), and is
 *    opened with `Buffer.fromIpcDescriptor(mr, descriptor, { stream })`.
 *
 * Ordering rules (the driver's): the exporter synchronises the allocating stream before sending a descriptor, and
 * frees the buffer only after every importer closed its copy.
 *
 * @module
 */
import { ClosedError } from "../base/errors.ts";
import { IPCFormatError } from "./ipc-errors.ts";
import { closeFd } from "../../ffi/libc-socket.ts";
import { describeValue } from "../../errors/describe.ts";
import { checkInternal, type Internal, INTERNAL } from "../base/internal.ts";

const HANDLE_MAGIC = 0x48415443; // "CTAH" little-endian
const BUFFER_MAGIC = 0x42495443; // "CTIB" little-endian
const TOKEN_MAGIC = 0x4b545443; // "CTTK" little-endian
const VERSION = 1;

/** The byte length of an encoded {@link IPCAllocationHandle} message (without the descriptor itself). */
export const HANDLE_MESSAGE_BYTES = 24;
/** The byte length of an encoded {@link IPCBufferDescriptor}. */
export const BUFFER_DESCRIPTOR_BYTES = 96;

/** The most bytes of a one-time token (UTF-8). */
export const MAX_TOKEN_BYTES = 256;
const TOKEN_HEADER_BYTES = 12;

/** Checks a one-time token: a non-empty string of at most {@link MAX_TOKEN_BYTES} UTF-8 bytes; returns its bytes. */
export function tokenBytes(token: unknown, what: string): Uint8Array {
  if (typeof token !== "string" || token.length === 0) throw new TypeError(`${what}: a token is a non-empty string (such as IpcListener.newToken()), not ${describeValue(token)}`);
  const bytes = new TextEncoder().encode(token);
  if (bytes.length > MAX_TOKEN_BYTES) throw new RangeError(`${what}: a token holds at most ${MAX_TOKEN_BYTES} bytes, this one ${bytes.length}: use a shorter one, such as IpcListener.newToken()`);
  return bytes;
}

/** The first message of a connection that presents a one-time token: magic, version, length, the token's bytes. */
export function encodeTokenMessage(token: string): Uint8Array {
  const t = tokenBytes(token, "encodeTokenMessage");
  const out = new Uint8Array(TOKEN_HEADER_BYTES + t.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, TOKEN_MAGIC, true);
  dv.setUint32(4, VERSION, true);
  dv.setUint32(8, t.length, true);
  out.set(t, TOKEN_HEADER_BYTES);
  return out;
}

/** The token bytes of a token message. Throws an {@link IPCFormatError} for anything else. */
export function decodeTokenMessage(bytes: Uint8Array): Uint8Array {
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`a token message is decoded from a Uint8Array, not ${describeValue(bytes)}`);
  if (bytes.length < TOKEN_HEADER_BYTES + 1 || bytes.length > TOKEN_HEADER_BYTES + MAX_TOKEN_BYTES) {
    throw new IPCFormatError(`a token message is ${TOKEN_HEADER_BYTES + 1} to ${TOKEN_HEADER_BYTES + MAX_TOKEN_BYTES} bytes, not ${bytes.length}: connect with { token }`);
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getUint32(0, true) !== TOKEN_MAGIC) throw new IPCFormatError("the first message is not a token message (wrong magic number): connect with { token }");
  const version = dv.getUint32(4, true);
  if (version !== VERSION) throw new IPCFormatError(`a token message of format version ${version} cannot be read by this version (format ${VERSION}): use the same cuda-ts version on both sides`);
  const n = dv.getUint32(8, true);
  if (n !== bytes.length - TOKEN_HEADER_BYTES) throw new IPCFormatError(`a token message says ${n} token bytes but holds ${bytes.length - TOKEN_HEADER_BYTES}`);
  return bytes.slice(TOKEN_HEADER_BYTES);
}

/** Converts a UUID string to its 16 bytes. */
export function uuidToBytes(uuid: string): Uint8Array {
  const hex = typeof uuid === "string" ? uuid.replace(/-/g, "") : "";
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new IPCFormatError(`a UUID is 32 hex digits (8-4-4-4-12), not ${JSON.stringify(uuid)}`);
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Converts 16 bytes to a UUID string (8-4-4-4-12). */
export function uuidFromBytes(bytes: Uint8Array): string {
  if (bytes.length !== 16) throw new IPCFormatError(`a UUID is 16 bytes, not ${bytes.length}`);
  const h = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A new random UUID. */
export function newUuid(): string {
  return crypto.randomUUID();
}

function header(bytes: Uint8Array, magic: number, length: number, what: string): DataView {
  if (!(bytes instanceof Uint8Array)) throw new TypeError(`${what} is decoded from a Uint8Array, not ${describeValue(bytes)}`);
  if (bytes.length !== length) throw new IPCFormatError(`${what} is ${length} bytes, not ${bytes.length}: pass exactly the bytes toBytes() gave`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (dv.getUint32(0, true) !== magic) throw new IPCFormatError(`these bytes are not ${what} (wrong magic number): pass the bytes toBytes() gave`);
  const version = dv.getUint32(4, true);
  if (version !== VERSION) throw new IPCFormatError(`${what} of format version ${version} cannot be read by this version (format ${VERSION}): use the same cuda-ts version on both sides`);
  return dv;
}

/**
 * A memory pool's shareable handle: an open file descriptor of this process plus the pool's UUID. The resource
 * that exported it owns it (and closes it when the resource closes); a received handle belongs to its receiver,
 * and `fromAllocationHandle` closes it once the pool is mapped.
 */
export class IPCAllocationHandle {
  #fd: number;
  /** The pool's UUID: the same in every process that maps the pool. */
  readonly uuid: string;

  /**
   * Reserved to cuda-ts (the token is not exported): use a resource's `allocationHandle` or `IpcChannel.receiveAllocationHandle()`.
   */
  constructor(token: Internal, fd: number, uuid: string) {
    checkInternal(token, "IPCAllocationHandle", "a resource's allocationHandle or IpcChannel.receiveAllocationHandle()");
    if (!Number.isInteger(fd) || fd < 0) throw new RangeError(`a file descriptor is a non-negative integer, not ${fd}`);
    uuidToBytes(uuid);
    this.#fd = fd;
    this.uuid = uuid;
  }

  /** The file descriptor (valid in this process only). */
  get fd(): number {
    if (this.#fd < 0) throw new ClosedError("this IPCAllocationHandle", "use its file descriptor");
    return this.#fd;
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#fd < 0;
  }

  /** Closes the file descriptor. Closing twice is harmless. */
  close(): void {
    if (this.#fd < 0) return;
    const fd = this.#fd;
    this.#fd = -1;
    closeFd(fd);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** The bytes sent alongside the descriptor (magic, version, UUID). */
  encodeMessage(): Uint8Array {
    const out = new Uint8Array(HANDLE_MESSAGE_BYTES);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, HANDLE_MAGIC, true);
    dv.setUint32(4, VERSION, true);
    out.set(uuidToBytes(this.uuid), 8);
    return out;
  }

  /** The UUID in a handle message. */
  static decodeMessage(bytes: Uint8Array): { uuid: string } {
    header(bytes, HANDLE_MAGIC, HANDLE_MESSAGE_BYTES, "an allocation-handle message");
    return { uuid: uuidFromBytes(bytes.slice(8, 24)) };
  }

  toString(): string {
    return `IPCAllocationHandle(fd ${this.#fd}, ${this.uuid})`;
  }
}

/** Describes one pool allocation for another process: serializable with `toBytes()` / `fromBytes()`. */
export class IPCBufferDescriptor {
  /** The 64 bytes of CUmemPoolPtrExportData. */
  readonly payload: Uint8Array;
  /** The buffer's size in bytes. */
  readonly size: number;
  /** The UUID of the pool the buffer belongs to. */
  readonly poolUuid: string;

  /**
   * Reserved to cuda-ts (the token is not exported): use `buffer.ipcDescriptor` or `IPCBufferDescriptor.fromBytes()`.
   */
  constructor(token: Internal, payload: Uint8Array, size: number, poolUuid: string) {
    checkInternal(token, "IPCBufferDescriptor", "buffer.ipcDescriptor or IPCBufferDescriptor.fromBytes()");
    if (!(payload instanceof Uint8Array) || payload.length !== 64) throw new IPCFormatError(`an export payload is 64 bytes (CUmemPoolPtrExportData), not ${payload?.length}`);
    if (!Number.isSafeInteger(size) || size < 0) throw new IPCFormatError(`a buffer size is a non-negative integer, not ${size}`);
    uuidToBytes(poolUuid);
    this.payload = payload.slice();
    this.size = size;
    this.poolUuid = poolUuid;
  }

  /** The descriptor as {@link BUFFER_DESCRIPTOR_BYTES} bytes (magic, version, size, pool UUID, payload). */
  toBytes(): Uint8Array {
    const out = new Uint8Array(BUFFER_DESCRIPTOR_BYTES);
    const dv = new DataView(out.buffer);
    dv.setUint32(0, BUFFER_MAGIC, true);
    dv.setUint32(4, VERSION, true);
    dv.setBigUint64(8, BigInt(this.size), true);
    out.set(uuidToBytes(this.poolUuid), 16);
    out.set(this.payload, 32);
    return out;
  }

  /** Reads a descriptor from the bytes `toBytes()` gave. */
  static fromBytes(bytes: Uint8Array): IPCBufferDescriptor {
    const dv = header(bytes, BUFFER_MAGIC, BUFFER_DESCRIPTOR_BYTES, "a buffer descriptor");
    const size = dv.getBigUint64(8, true);
    if (size > BigInt(Number.MAX_SAFE_INTEGER)) throw new IPCFormatError(`a buffer descriptor's size ${size} is larger than any buffer`);
    return new IPCBufferDescriptor(INTERNAL, bytes.slice(32, 96), Number(size), uuidFromBytes(bytes.slice(16, 32)));
  }

  toString(): string {
    return `IPCBufferDescriptor(${this.size} bytes, pool ${this.poolUuid})`;
  }
}
