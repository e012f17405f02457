/**
 * The CheckedRuntime the generated checked call style runs on: output slots in one reusable native buffer, input
 * conversions, and the library's typed error. Nothing on a call's path allocates except what the call returns.
 *
 * @module
 */
import { ffi } from "../ffi/index.ts";
import type { NativePointer, Pointer } from "../ffi/types.ts";
import type { CheckedRuntime, PointerLike } from "../sys/checked.ts";
import { RecordBase } from "../sys/record.ts";

const SLOTS = 16;
const encoder = new TextEncoder();

/** A reusable NUL-terminated string buffer with a stable native address. */
class StringSlot {
  private bytes = new Uint8Array(new ArrayBuffer(256));
  private pointer: NativePointer = ffi.pointerOf(this.bytes);

  encode(s: string): NativePointer {
    // UTF-8 needs at most 3 bytes per UTF-16 unit.
    if (s.length * 3 + 1 > this.bytes.length) {
      this.bytes = new Uint8Array(new ArrayBuffer(s.length * 3 + 1));
      this.pointer = ffi.pointerOf(this.bytes);
    }
    const { written } = encoder.encodeInto(s, this.bytes);
    this.bytes[written] = 0;
    return this.pointer;
  }
}

/** A reusable native array of C strings (char**), with the strings' bytes kept beside it. */
class StringArraySlot {
  private table = new ArrayBuffer(64);
  private view = new DataView(this.table);
  private strings: Uint8Array = new Uint8Array(new ArrayBuffer(256));

  encode(values: readonly string[]): NativePointer {
    const n = values.length;
    if ((n + 1) * 8 > this.table.byteLength) {
      this.table = new ArrayBuffer((n + 1) * 8);
      this.view = new DataView(this.table);
    }
    let total = 0;
    for (const v of values) total += v.length * 3 + 1;
    if (total > this.strings.length) this.strings = new Uint8Array(new ArrayBuffer(total));
    const base = ffi.pointerOf(this.strings);
    let at = 0;
    for (let i = 0; i < n; i++) {
      const { written } = encoder.encodeInto(values[i]!, this.strings.subarray(at));
      this.strings[at + written] = 0;
      ffi.writePointer(this.view, i * 8, at === 0 ? base : ffi.offsetPointer(base, at));
      at += written + 1;
    }
    ffi.writePointer(this.view, n * 8, null);
    return ffi.pointerOf(this.table);
  }
}

/** The bindings' CheckedRuntime for one library. */
export class CheckedRuntimeImpl implements CheckedRuntime {
  readonly out: readonly NativePointer[];
  readonly i8: Int8Array;
  readonly u8: Uint8Array;
  readonly i16: Int16Array;
  readonly u16: Uint16Array;
  readonly i32: Int32Array;
  readonly u32: Uint32Array;
  readonly f32: Float32Array;
  readonly f64: Float64Array;
  readonly i64: BigInt64Array;
  readonly u64: BigUint64Array;
  private readonly dv: DataView;
  private readonly strings: StringSlot[] = [];
  private readonly stringArrays: StringArraySlot[] = [];

  /** @param onFailure - builds the library's typed error for a failed call. */
  constructor(private readonly onFailure: (code: number | bigint, fn: string, subject?: unknown) => Error) {
    const buffer = new ArrayBuffer(SLOTS * 8);
    this.i8 = new Int8Array(buffer);
    this.u8 = new Uint8Array(buffer);
    this.i16 = new Int16Array(buffer);
    this.u16 = new Uint16Array(buffer);
    this.i32 = new Int32Array(buffer);
    this.u32 = new Uint32Array(buffer);
    this.f32 = new Float32Array(buffer);
    this.f64 = new Float64Array(buffer);
    this.i64 = new BigInt64Array(buffer);
    this.u64 = new BigUint64Array(buffer);
    this.dv = new DataView(buffer);
    const base = ffi.pointerOf(buffer);
    this.out = Array.from({ length: SLOTS }, (_, k) => (k === 0 ? base : ffi.offsetPointer(base, k * 8)));
  }

  readPointer(slot: number): Pointer {
    return ffi.readPointer(this.dv, slot * 8);
  }

  readString(slot: number): string | null {
    return ffi.readCString(this.readPointer(slot));
  }

  ptr(value: PointerLike): Pointer {
    if (value === null) return null;
    if (value instanceof RecordBase) return value.$pointer();
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return ffi.pointerOf(value);
    return value;
  }

  cstr(value: string | PointerLike, index: number): Pointer {
    if (typeof value !== "string") return this.ptr(value);
    let slot = this.strings[index];
    if (slot === undefined) this.strings[index] = slot = new StringSlot();
    return slot.encode(value);
  }

  cstrs(value: readonly string[] | PointerLike, index: number): Pointer {
    if (!Array.isArray(value)) return this.ptr(value as PointerLike);
    let slot = this.stringArrays[index];
    if (slot === undefined) this.stringArrays[index] = slot = new StringArraySlot();
    return slot.encode(value as readonly string[]);
  }

  bytes(value: Uint8Array | RecordBase): Uint8Array {
    return value instanceof RecordBase ? value.$bytes() : value;
  }

  string(pointer: Pointer): string | null {
    return ffi.readCString(pointer);
  }

  fail(code: number | bigint, fn: string, subject?: unknown): never {
    throw this.onFailure(code, fn, subject);
  }
}
