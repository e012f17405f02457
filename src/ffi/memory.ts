/**
 * Reusable native-visible memory for hot paths: out-parameters (`CUdeviceptr*`, `int*`), small argument blocks and
 * C strings, without allocating on every call.
 *
 * The memory is an explicit `ArrayBuffer`, whose storage never moves, so its address stays valid for the life of the
 * `Scratch` (Bun issue 32054: the storage of a small typed array created as `new Uint32Array(1)` can move after JIT
 * tier-up, leaving C to write to a stale address).
 *
 * A `Scratch` is not reentrant: one call's out-parameters must be read before the next call reuses them.
 *
 * @module
 */
import { ffi } from "./current.ts";
import { encodeCString, encodeCStringInto } from "./text.ts";
import type { NativePointer, Pointer } from "./types.ts";

/** Reusable out-parameter memory with its native address and typed views (little-endian, like the host). */
export class Scratch {
  /** The memory. Its length is the requested size rounded up to a multiple of 8. */
  readonly buffer: ArrayBuffer;
  /** The address of byte 0. */
  readonly pointer: NativePointer;
  /** Bytes. */
  readonly u8: Uint8Array;
  /** `int32_t` elements (index = byte offset / 4). */
  readonly i32: Int32Array;
  /** `uint32_t` elements (index = byte offset / 4). */
  readonly u32: Uint32Array;
  /** `float` elements (index = byte offset / 4). */
  readonly f32: Float32Array;
  /** `double` elements (index = byte offset / 8). */
  readonly f64: Float64Array;
  /** `uint64_t` elements (index = byte offset / 8). */
  readonly u64: BigUint64Array;
  /** `int64_t` elements (index = byte offset / 8). */
  readonly i64: BigInt64Array;
  /** The whole buffer, for unaligned or mixed access. */
  readonly dv: DataView;
  readonly #pointers: (NativePointer | undefined)[] = [];
  readonly #rooms: (Uint8Array | undefined)[] = [];
  #spill: Uint8Array | null = null;

  /**
   * @param byteLength - the size needed, in bytes (at least 1).
   */
  constructor(byteLength: number) {
    if (!(byteLength >= 1)) throw new RangeError(`Scratch size must be at least 1 byte, not ${byteLength}`);
    this.buffer = new ArrayBuffer(Math.ceil(byteLength / 8) * 8);
    this.u8 = new Uint8Array(this.buffer);
    this.i32 = new Int32Array(this.buffer);
    this.u32 = new Uint32Array(this.buffer);
    this.f32 = new Float32Array(this.buffer);
    this.f64 = new Float64Array(this.buffer);
    this.u64 = new BigUint64Array(this.buffer);
    this.i64 = new BigInt64Array(this.buffer);
    this.dv = new DataView(this.buffer);
    this.pointer = ffi.pointerOf(this.buffer);
    this.#pointers[0] = this.pointer;
  }

  /** The size in bytes. */
  get byteLength(): number {
    return this.buffer.byteLength;
  }

  /** The address of byte `byteOffset`; computed once per offset, then cached (no allocation on repeated calls). */
  pointerAt(byteOffset: number): NativePointer {
    const cached = this.#pointers[byteOffset];
    if (cached !== undefined) return cached;
    if (!(byteOffset >= 0 && byteOffset < this.buffer.byteLength)) {
      throw new RangeError(`offset ${byteOffset} is outside this ${this.buffer.byteLength}-byte Scratch`);
    }
    const p = ffi.offsetPointer(this.pointer, byteOffset);
    this.#pointers[byteOffset] = p;
    return p;
  }

  /** Reads a pointer (an out-parameter such as `CUstream*`). */
  readPointer(byteOffset = 0): Pointer {
    return ffi.readPointer(this.dv, byteOffset);
  }
  /** Writes a pointer. */
  writePointer(byteOffset: number, p: Pointer): void {
    ffi.writePointer(this.dv, byteOffset, p);
  }
  /** Reads a `uint64_t` (for example a `CUdeviceptr` or `size_t` out-parameter). */
  readU64(byteOffset = 0): bigint {
    return this.dv.getBigUint64(byteOffset, true);
  }
  /** Reads an `int64_t`. */
  readI64(byteOffset = 0): bigint {
    return this.dv.getBigInt64(byteOffset, true);
  }
  /** Reads a `uint32_t`. */
  readU32(byteOffset = 0): number {
    return this.dv.getUint32(byteOffset, true);
  }
  /** Reads an `int32_t`. */
  readI32(byteOffset = 0): number {
    return this.dv.getInt32(byteOffset, true);
  }
  /** Reads a `uint8_t`. */
  readU8(byteOffset = 0): number {
    return this.u8[byteOffset]!;
  }
  /** Reads a `float`. */
  readF32(byteOffset = 0): number {
    return this.dv.getFloat32(byteOffset, true);
  }
  /** Reads a `double`. */
  readF64(byteOffset = 0): number {
    return this.dv.getFloat64(byteOffset, true);
  }
  /** Reads a NUL-terminated UTF-8 string stored in the scratch at `byteOffset`. */
  readCString(byteOffset = 0): string {
    return ffi.readCString(this.pointerAt(byteOffset)) ?? "";
  }

  /**
   * Writes `s` as a NUL-terminated UTF-8 C string at `byteOffset` and returns its address, without allocating when it
   * fits. When it does not fit, it is encoded into a separate buffer held by this `Scratch`; either way the address
   * stays valid until the next `cstring` call on this `Scratch` (or until the bytes are overwritten).
   */
  cstring(s: string, byteOffset = 0): NativePointer {
    let room = this.#rooms[byteOffset];
    if (room === undefined) {
      this.pointerAt(byteOffset); // range check
      room = this.u8.subarray(byteOffset);
      this.#rooms[byteOffset] = room;
    }
    this.#spill = null;
    if (encodeCStringInto(s, room) >= 0) return this.pointerAt(byteOffset);
    this.#spill = encodeCString(s);
    return ffi.pointerOf(this.#spill);
  }
}
