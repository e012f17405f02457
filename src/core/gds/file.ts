/**
 * GPUDirect Storage objects over cuFile:
 *
 * - `CuFile.open(path, mode)`: the file opened (O_DIRECT where the file system takes it) and registered with
 *   cuFile (cuFileHandleRegister); `using` deregisters and closes it. The cuFile driver is opened once per process
 *   and held while files or registered buffers are open (driver.ts).
 * - `file.read(target, { fileOffset, deviceOffset, size })` / `file.write(source, ...)`: synchronous I/O between the
 *   file and a Buffer or a contiguous DeviceArray, at offsets, returning the bytes moved.
 * - `file.readAsync(...)` / `file.writeAsync(...)`: stream-ordered I/O (cuFileReadAsync/WriteAsync), returning an
 *   operation whose `bytes` is valid once the stream has passed it.
 * - `registerGdsBuffer(target)`: cuFileBufRegister for a buffer reused across many I/Os; `using` deregisters it.
 * - `CuFileBatch`: batch I/O (cuFileBatchIO*): submit reads and writes at once, then `wait()`.
 *
 * Everything is checked before it reaches cuFile: offsets and sizes are non-negative integers, the range fits the
 * buffer, the path is a string without NUL. cuFile's failures throw CuFileError (with the CU_FILE_* name); a
 * negative result of cuFileRead/Write that carries errno throws SystemCallError naming it.
 *
 * @module
 */
import { CuFileError } from "../../bindings/errors.ts";
import type { CUfileBatchHandle_t, CUfileHandle_t } from "../../bindings/cufile.ts";
import { CUfileOpError } from "../../../generated/cuda-13.0/cufile/gds.enums.ts";
import { cufileModule } from "./cufile-module.ts";
import { ffi } from "../../ffi/index.ts";
import type { NativePointer, Pointer } from "../../ffi/types.ts";
import { EINVAL, SystemCallError, closeFile, errno, openFd, openFlags } from "../../ffi/libc-file.ts";
import { describeValue } from "../../errors/describe.ts";
import { architecture } from "../../host.ts";
import { ClosedError } from "../base/errors.ts";
import { DeviceArray } from "../array/device-array.ts";
import { Buffer } from "../memory/buffer.ts";
import type { Stream } from "../stream.ts";
import { acquireGdsDriver, type GdsDriverHold } from "./driver.ts";
import { takeStream } from "../base/stream-arg.ts";
import { checkInternal, type Internal, INTERNAL } from "../base/internal.ts";

/** Where GPUDirect Storage reads into and writes from: a Buffer, or a contiguous DeviceArray (its bytes). */
export type GdsTarget = Buffer | DeviceArray;

/** How a file is opened: `"r"` read only, `"w"` created or truncated for writing, `"r+"` read and write (kept), `"w+"` created or truncated for reading and writing. */
export type GdsOpenMode = "r" | "w" | "r+" | "w+";

/** Options of {@link CuFile.open}. */
export interface CuFileOpenOptions {
  /**
   * O_DIRECT: `"auto"` (default) tries it and opens without it where the file system refuses it (tmpfs; cuFile then
   * uses its compatibility path), `true` requires it, `false` never asks for it.
   */
  readonly direct?: boolean | "auto";
  /** The permission bits of a file created by `"w"`/`"w+"` (default 0o600). */
  readonly permissions?: number;
}

/** A range of an I/O: where in the file, where in the buffer, how many bytes. */
export interface GdsRange {
  /** Byte offset in the file (default 0). */
  readonly fileOffset?: number;
  /** Byte offset in the Buffer or DeviceArray (default 0). */
  readonly deviceOffset?: number;
  /** Bytes to move (default: the rest of the Buffer or DeviceArray after deviceOffset). */
  readonly size?: number;
}

interface Resolved {
  readonly base: Pointer;
  readonly deviceOffset: number;
  readonly size: number;
  readonly fileOffset: number;
}

function nonNegativeInteger(owner: string, name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${owner}: ${name} must be a non-negative integer (bytes), got ${describeValue(value)}`);
  }
  return value;
}

/** The device memory of `target`: its allocation's base and the target's own byte offset and length. */
function regionOf(owner: string, target: unknown): { base: Pointer; offset: number; length: number } {
  if (target instanceof Buffer) return { base: ffi.pointerFromAddress(target.handle), offset: 0, length: target.size };
  if (target instanceof DeviceArray) {
    if (!target.isContiguous) throw new RangeError(`${owner}: the DeviceArray must be contiguous (copy a strided view first: arr.copy())`);
    return { base: ffi.pointerFromAddress(target.buffer.handle), offset: target.byteOffset, length: target.nbytes };
  }
  throw new TypeError(`${owner}: expected a Buffer or a DeviceArray, got ${describeValue(target)}`);
}

/** Checks a range against `target` (exported for tests). */
export function resolveRange(owner: string, target: GdsTarget, range: GdsRange | undefined): Resolved {
  if (range !== undefined && (typeof range !== "object" || range === null)) throw new TypeError(`${owner}: expected a range object, got ${describeValue(range)}`);
  const r = regionOf(owner, target);
  const deviceOffset = nonNegativeInteger(owner, "deviceOffset", range?.deviceOffset ?? 0);
  const fileOffset = nonNegativeInteger(owner, "fileOffset", range?.fileOffset ?? 0);
  if (deviceOffset > r.length) throw new RangeError(`${owner}: deviceOffset ${deviceOffset} is past the end of the ${r.length}-byte target`);
  const size = nonNegativeInteger(owner, "size", range?.size ?? r.length - deviceOffset);
  if (deviceOffset + size > r.length) {
    throw new RangeError(`${owner}: ${size} bytes at deviceOffset ${deviceOffset} do not fit the ${r.length}-byte target (at most ${r.length - deviceOffset})`);
  }
  return { base: r.base, deviceOffset: r.offset + deviceOffset, size, fileOffset };
}

/** The error of a negative cuFileRead/Write result: -1 with errno, or a negated CU_FILE_* code. */
function ioError(fn: string, result: bigint, path: string): Error {
  const code = Number(-result);
  if (result === -1n) return new SystemCallError(`${fn}(${JSON.stringify(path)})`, errno());
  if (code < 5000) return new SystemCallError(`${fn}(${JSON.stringify(path)})`, code);
  return cufileModule().cuFileError(code, fn);
}

const MODES: Readonly<Record<GdsOpenMode, (f: ReturnType<typeof openFlags>) => number>> = {
  r: (f) => f.O_RDONLY,
  "r+": (f) => f.O_RDWR,
  w: (f) => f.O_WRONLY | f.O_CREAT | f.O_TRUNC,
  "w+": (f) => f.O_RDWR | f.O_CREAT | f.O_TRUNC,
};


/** CUfileOpError's CU_FILE_HANDLE_NOT_REGISTERED: cuFileHandleRegister refused the file. */
export const CU_FILE_HANDLE_NOT_REGISTERED = CUfileOpError.CU_FILE_HANDLE_NOT_REGISTERED;

/**
 * cuFile's refusal to register a file, said in full: cuFile gives only "handle not registered", and the usual cause
 * (seen on the H200 VM) is that it cannot read the file's volume attributes through udev, which containers and some
 * VMs lack; it then refuses every file, even in compatibility mode.
 */
function registrationRefused(e: unknown, path: string): unknown {
  if (!(e instanceof CuFileError) || e.code !== CU_FILE_HANDLE_NOT_REGISTERED) return e;
  return new CuFileError(
    e.code,
    e.codeName,
    `handle not registered: cuFile refused ${path}. Where udev has no attributes of the file's volume (containers, some VMs), cuFile registers no file, ` +
      "even in compatibility mode; its log says why (CUFILE_LOGGING_LEVEL=TRACE CUFILE_LOGFILE_PATH=/tmp/cufile.log): give the process udev's database " +
      "(/run/udev; without udev, root can write the volume's entry: /run/udev/data/b<major>:<minor>, from `stat -c %Hd:%Ld FILE`, holding the lines " +
      "I:1000000, E:ID_FS_USAGE=filesystem, E:ID_FS_TYPE=<its file system> and E:DEVTYPE=disk), or read with read() into pinned memory and copy",
    "cuFileHandleRegister",
  );
}

/** A file registered with cuFile. */
export class CuFile {
  /** The path it was opened with. */
  readonly path: string;
  /** The open mode. */
  readonly mode: GdsOpenMode;
  /** Whether the file is open with O_DIRECT (false: cuFile moves its data through its compatibility path). */
  readonly direct: boolean;
  readonly #fd: number;
  readonly #handle: CUfileHandle_t;
  readonly #hold: GdsDriverHold;
  /** The parameter blocks of stream-ordered operations: cuFile reads them when the stream gets there. */
  readonly #inflight: BigInt64Array[] = [];
  #closed = false;

  private constructor(path: string, mode: GdsOpenMode, direct: boolean, fd: number, handle: CUfileHandle_t, hold: GdsDriverHold) {
    this.path = path;
    this.mode = mode;
    this.direct = direct;
    this.#fd = fd;
    this.#handle = handle;
    this.#hold = hold;
  }

  /**
   * Opens `path` and registers it with cuFile (opening the cuFile driver on first use). A device must be current
   * (`device.setCurrent()`). Throws SystemCallError when the file cannot be opened, CuFileError when cuFile refuses
   * it (for example a file system that needs GDS while compatibility mode is off).
   */
  static open(path: string, mode: GdsOpenMode = "r", options: CuFileOpenOptions = {}): CuFile {
    if (typeof path !== "string" || path === "" || path.includes("\0")) throw new TypeError(`CuFile.open: expected a file path (a non-empty string without NUL), got ${describeValue(path)}`);
    if (!Object.hasOwn(MODES, mode)) throw new RangeError(`CuFile.open: mode must be one of "r", "w", "r+", "w+", got ${describeValue(mode)}`);
    if (typeof options !== "object" || options === null) throw new TypeError(`CuFile.open: expected an options object, got ${describeValue(options)}`);
    const direct = options.direct ?? "auto";
    if (direct !== "auto" && typeof direct !== "boolean") throw new TypeError(`CuFile.open: direct must be true, false or "auto", got ${describeValue(direct)}`);
    const permissions = options.permissions ?? 0o600;
    if (!Number.isInteger(permissions) || permissions < 0 || permissions > 0o7777) throw new RangeError(`CuFile.open: permissions must be mode bits (0 to 0o7777), got ${describeValue(permissions)}`);
    const f = openFlags(architecture);
    const flags = MODES[mode](f) | f.O_CLOEXEC;
    let fd: number;
    let isDirect = direct !== false;
    try {
      fd = openFd(path, flags | (isDirect ? f.O_DIRECT : 0), permissions);
    } catch (e) {
      if (direct !== "auto" || !(e instanceof SystemCallError) || e.errno !== EINVAL) throw e;
      isDirect = false;
      fd = openFd(path, flags, permissions);
    }
    let hold: GdsDriverHold | undefined;
    try {
      hold = acquireGdsDriver();
      const { cufile, CUfileDescr_t, CUfileFileHandleType } = cufileModule();
      const descr = new CUfileDescr_t();
      descr.type = CUfileFileHandleType.CU_FILE_HANDLE_TYPE_OPAQUE_FD;
      descr.handle.fd = fd;
      let handle: CUfileHandle_t;
      try {
        handle = cufile.cuFileHandleRegister(descr);
      } catch (e) {
        throw registrationRefused(e, path);
      }
      return new CuFile(path, mode, isDirect, fd, handle, hold);
    } catch (e) {
      hold?.release();
      closeFile(fd);
      throw e;
    }
  }

  /** The cuFile handle (CUfileHandle_t). */
  get handle(): CUfileHandle_t {
    this.#check("use its handle");
    return this.#handle;
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  #check(what: string): void {
    if (this.#closed) throw new ClosedError(`CuFile ${this.path}`, what);
  }

  /** Reads from the file into `target` (synchronously); returns the bytes read (fewer at the end of the file). */
  read(target: GdsTarget, range?: GdsRange): number {
    this.#check("read");
    const r = resolveRange("CuFile.read", target, range);
    const n = cufileModule().cufile.cuFileRead(this.#handle, r.base, r.size, r.fileOffset, r.deviceOffset);
    if (n < 0n) throw ioError("cuFileRead", n, this.path);
    return Number(n);
  }

  /** Writes `source` (or a range of it) to the file (synchronously); returns the bytes written. */
  write(source: GdsTarget, range?: GdsRange): number {
    this.#check("write");
    const r = resolveRange("CuFile.write", source, range);
    const n = cufileModule().cufile.cuFileWrite(this.#handle, r.base, r.size, r.fileOffset, r.deviceOffset);
    if (n < 0n) throw ioError("cuFileWrite", n, this.path);
    return Number(n);
  }

  /**
   * A read ordered on `stream` (cuFileReadAsync): it runs when the stream reaches it; the returned operation's
   * `bytes` is valid once the stream has passed it (`await stream.done()`). Needs stream support (gdsStatus().streams).
   */
  readAsync(target: GdsTarget, stream: Stream, range?: GdsRange): GdsStreamOperation {
    this.#check("read");
    return this.#async("cuFileReadAsync", target, stream, range);
  }

  /** A write ordered on `stream` (cuFileWriteAsync); see {@link readAsync}. */
  writeAsync(source: GdsTarget, stream: Stream, range?: GdsRange): GdsStreamOperation {
    this.#check("write");
    return this.#async("cuFileWriteAsync", source, stream, range);
  }

  #async(fn: "cuFileReadAsync" | "cuFileWriteAsync", target: GdsTarget, stream: Stream, range: GdsRange | undefined): GdsStreamOperation {
    const action = `CuFile.${fn === "cuFileReadAsync" ? "readAsync" : "writeAsync"}`;
    const r = resolveRange(action, target, range);
    takeStream(stream, action);
    // size, file offset, buffer offset, result: read by cuFile when the stream gets there, so they live in the
    // operation object until then.
    const params = new BigInt64Array(new ArrayBuffer(32)); // an ArrayBuffer of its own: its memory does not move
    params[0] = BigInt(r.size);
    params[1] = BigInt(r.fileOffset);
    params[2] = BigInt(r.deviceOffset);
    const p = ffi.pointerOf(params);
    const at = (i: number): NativePointer => ffi.offsetPointer(p, i * 8);
    cufileModule().cufile[fn](this.#handle, r.base, at(0), at(1), at(2), at(3), stream.handle);
    this.#inflight.push(params); // kept alive while the file is open, whoever holds the operation
    return new GdsStreamOperation(INTERNAL, params, this.path, fn);
  }

  /**
   * Deregisters the file from cuFile and closes it (once); releases its hold on the cuFile driver. Synchronise the
   * streams of its stream-ordered operations first.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#inflight.length = 0;
    try {
      cufileModule().cufile.cuFileHandleDeregister(this.#handle);
    } finally {
      closeFile(this.#fd);
      this.#hold.release();
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  /** `CuFile(path, mode, direct)`. */
  toString(): string {
    return `CuFile(${JSON.stringify(this.path)}, ${this.mode}${this.direct ? ", O_DIRECT" : ""})`;
  }
}

/** A stream-ordered read or write: its result once the stream has passed it. */
export class GdsStreamOperation {
  readonly #params: BigInt64Array;
  readonly #path: string;
  readonly #fn: string;

  /** Reserved to cuda-ts (the token is not exported): `file.readAsync()` and `file.writeAsync()` return one. */
  constructor(token: Internal, params: BigInt64Array, path: string, fn: string) {
    checkInternal(token, "GdsStreamOperation", "file.readAsync() or file.writeAsync()");
    this.#params = params;
    this.#path = path;
    this.#fn = fn;
  }

  /** The bytes moved; read it after the stream has passed the operation (throws for a failed one). */
  get bytes(): number {
    const n = this.#params[3]!;
    if (n < 0n) throw ioError(this.#fn, n, this.#path);
    return Number(n);
  }
}

/** A Buffer or DeviceArray registered with cuFile (cuFileBufRegister); `using` deregisters it. */
export class GdsRegisteredBuffer {
  /** The Buffer or DeviceArray. */
  readonly target: GdsTarget;
  readonly #base: Pointer;
  readonly #hold: GdsDriverHold;
  #closed = false;

  private constructor(target: GdsTarget, base: Pointer, hold: GdsDriverHold) {
    this.target = target;
    this.#base = base;
    this.#hold = hold;
  }

  /** Registers the whole allocation behind `target` (a DeviceArray's buffer). */
  static register(target: GdsTarget): GdsRegisteredBuffer {
    const r = regionOf("registerGdsBuffer", target);
    const length = target instanceof DeviceArray ? target.buffer.size : r.length;
    const hold = acquireGdsDriver();
    try {
      cufileModule().cufile.cuFileBufRegister(r.base, length, 0);
    } catch (e) {
      hold.release();
      throw e;
    }
    return new GdsRegisteredBuffer(target, r.base, hold);
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Deregisters the buffer (once). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      cufileModule().cufile.cuFileBufDeregister(this.#base);
    } finally {
      this.#hold.release();
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/** Registers `target`'s memory with cuFile for repeated I/O (cuFileBufRegister); `using` deregisters it. */
export function registerGdsBuffer(target: GdsTarget): GdsRegisteredBuffer {
  return GdsRegisteredBuffer.register(target);
}

/** One operation of a {@link CuFileBatch}. */
export interface GdsBatchOperation extends GdsRange {
  readonly op: "read" | "write";
  readonly file: CuFile;
  readonly target: GdsTarget;
}

/** The outcome of one batch operation, in submission order. */
export interface GdsBatchResult {
  /** `"complete"`, `"failed"`, `"canceled"`, `"timeout"`, `"invalid"`. */
  readonly status: string;
  /** Bytes moved (for a completed operation). */
  readonly bytes: number;
}

let statusNames: ReadonlyMap<number, string> | undefined;

/** CUfileStatus_t's names in lower case, without the prefix ("complete", "failed", ...). */
function statusName(status: number): string {
  statusNames ??= new Map(Object.entries(cufileModule().CUfileStatus_t).map(([k, v]) => [v as number, k.replace(/^CUFILE_/, "").toLowerCase()]));
  return statusNames.get(status) ?? `status ${status}`;
}

/** Batch I/O (cuFileBatchIOSetUp/Submit/GetStatus/Destroy): up to `capacity` reads and writes submitted at once. */
export class CuFileBatch {
  /** The most operations of one submission. */
  readonly capacity: number;
  readonly #handle: CUfileBatchHandle_t;
  readonly #hold: GdsDriverHold;
  readonly #params: ArrayBuffer;
  readonly #events: ArrayBuffer;
  #pending = 0;
  #closed = false;

  /** A batch of at most `capacity` operations (gdsStatus().maxBatchIOSize bounds it). */
  constructor(capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`CuFileBatch: capacity must be an integer ≥ 1, got ${describeValue(capacity)}`);
    this.capacity = capacity;
    this.#hold = acquireGdsDriver();
    try {
      this.#handle = cufileModule().cufile.cuFileBatchIOSetUp(capacity);
    } catch (e) {
      this.#hold.release();
      throw e;
    }
    const { CUfileIOEvents, CUfileIOParams } = cufileModule();
    this.#params = new ArrayBuffer(capacity * CUfileIOParams.$size);
    this.#events = new ArrayBuffer(capacity * CUfileIOEvents.$size);
  }

  /** Submits the operations (checked first) and returns at once; `wait()` gives their results. One submission at a time. */
  submit(operations: readonly GdsBatchOperation[]): void {
    if (this.#closed) throw new ClosedError("CuFileBatch", "submit");
    if (this.#pending > 0) throw new RangeError(`CuFileBatch.submit: ${this.#pending} operations of the last submission are not waited for yet (call wait() first)`);
    if (!Array.isArray(operations) || operations.length === 0 || operations.length > this.capacity) {
      throw new RangeError(`CuFileBatch.submit: expected 1 to ${this.capacity} operations, got ${Array.isArray(operations) ? operations.length : describeValue(operations)}`);
    }
    const { CUfileBatchMode_t, CUfileIOParams, CUfileOpcode_t } = cufileModule();
    operations.forEach((o, i) => {
      if (o.op !== "read" && o.op !== "write") throw new RangeError(`CuFileBatch.submit: operations[${i}].op must be "read" or "write", got ${describeValue(o.op)}`);
      if (!(o.file instanceof CuFile)) throw new TypeError(`CuFileBatch.submit: operations[${i}].file must be a CuFile, got ${describeValue(o.file)}`);
      const r = resolveRange(`CuFileBatch.submit: operations[${i}]`, o.target, o);
      const p = new CUfileIOParams(this.#params, i * CUfileIOParams.$size);
      p.mode = CUfileBatchMode_t.CUFILE_BATCH;
      p.fh = o.file.handle;
      p.opcode = o.op === "read" ? CUfileOpcode_t.CUFILE_READ : CUfileOpcode_t.CUFILE_WRITE;
      p.cookie = ffi.pointerFromAddress(i + 1);
      const b = p.u.batch;
      b.devPtr_base = r.base;
      b.file_offset = BigInt(r.fileOffset);
      b.devPtr_offset = BigInt(r.deviceOffset);
      b.size = BigInt(r.size);
    });
    cufileModule().cufile.cuFileBatchIOSubmit(this.#handle, operations.length, new CUfileIOParams(this.#params, 0), 0);
    this.#pending = operations.length;
  }

  /** Waits for every submitted operation (polling without blocking the event loop); results in submission order. */
  async wait(): Promise<GdsBatchResult[]> {
    if (this.#closed) throw new ClosedError("CuFileBatch", "wait");
    const total = this.#pending;
    const results: GdsBatchResult[] = new Array(total);
    let done = 0;
    const count = new Uint32Array(1);
    const timeout = new BigInt64Array(2); // struct timespec {0, 0}: return at once
    const { cufile, CUfileIOEvents } = cufileModule();
    while (done < total) {
      count[0] = total - done;
      cufile.cuFileBatchIOGetStatus(this.#handle, 0, count, new CUfileIOEvents(this.#events, 0), timeout);
      for (let k = 0; k < count[0]!; k++) {
        const e = new CUfileIOEvents(this.#events, k * CUfileIOEvents.$size);
        const index = ffi.addressOf(e.cookie) - 1;
        const status = statusName(e.status);
        if (index >= 0 && index < total && results[index] === undefined) {
          results[index] = { status, bytes: status === "complete" ? Number(e.ret) : 0 };
          done++;
        }
      }
      if (done < total) await new Promise((r) => setTimeout(r, 0));
    }
    this.#pending = 0;
    return results;
  }

  /** Destroys the batch (once); releases its hold on the cuFile driver. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      cufileModule().cufile.cuFileBatchIODestroy(this.#handle);
    } finally {
      this.#hold.release();
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
