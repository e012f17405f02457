/**
 * The CheckedRuntime the generated checked call style runs on: output slots in one reusable native buffer, input
 * conversions, and the library's typed error. Nothing on a call's path allocates except what the call returns.
 *
 * @module
 */
import { ffi } from "../ffi/index.ts";
import { getEnv } from "../host.ts";
import type { NativePointer, Pointer } from "../ffi/types.ts";
import type { ArrayElement, ArraySpec, CheckedRuntime, PointerLike } from "../tables-runtime/checked.ts";
import { RecordBase, type RecordClass } from "../tables-runtime/record.ts";
import type { ArgumentKind } from "../tables-runtime/argument-checks.ts";
import { describeValue } from "../errors/describe.ts";
import { argumentError, arityError } from "./arguments.ts";
import { BindingArgumentError, GuardError } from "./errors.ts";

const SLOTS = 16;
/** Guard bytes after each guarded region, and their pattern. */
const GUARD = 64;
const PATTERN = 0xa5;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Whether debug guards are on (`CUDA_TS_DEBUG` lists `guards`), read once. */
export function guardsEnabled(): boolean {
  const v = getEnv("CUDA_TS_DEBUG");
  return v !== undefined && v.split(/[,\s]+/).includes("guards");
}

function guardFill(bytes: Uint8Array): void {
  bytes.fill(PATTERN);
}

function guardIntact(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] !== PATTERN) return false;
  return true;
}

/** A fresh buffer for an array output of `n` elements, with guard bytes after it in debug mode. */
function arrayBuffer(n: number, el: ArrayElement, guards: boolean): { buffer: ArrayBuffer; guard?: Uint8Array } {
  const size = n * el.size;
  const buffer = new ArrayBuffer(Math.max(8, Math.ceil(size / 8) * 8) + (guards ? GUARD : 0));
  if (!guards) return { buffer };
  const guard = new Uint8Array(buffer, buffer.byteLength - GUARD - (Math.max(8, Math.ceil(size / 8) * 8) - size));
  guardFill(guard);
  return { buffer, guard };
}

function decode(el: ArrayElement, buffer: ArrayBuffer, length: number): unknown {
  switch (el.kind) {
    case "i8":
      return new Int8Array(buffer, 0, length);
    case "u8":
      return new Uint8Array(buffer, 0, length);
    case "i16":
      return new Int16Array(buffer, 0, length);
    case "u16":
      return new Uint16Array(buffer, 0, length);
    case "i32":
      return new Int32Array(buffer, 0, length);
    case "u32":
      return new Uint32Array(buffer, 0, length);
    case "i64":
      return new BigInt64Array(buffer, 0, length);
    case "u64":
      return new BigUint64Array(buffer, 0, length);
    case "f32":
      return new Float32Array(buffer, 0, length);
    case "f64":
      return new Float64Array(buffer, 0, length);
    case "pointer": {
      const dv = new DataView(buffer);
      return Array.from({ length }, (_, i) => ffi.readPointer(dv, i * 8));
    }
    case "string": {
      const bytes = new Uint8Array(buffer, 0, length);
      const end = bytes.indexOf(0);
      return decoder.decode(end < 0 ? bytes : bytes.subarray(0, end));
    }
    case "record":
      return Array.from({ length }, (_, i) => new el.cls(buffer, i * el.size));
  }
}

/** A reusable NUL-terminated string buffer with a stable native address. */
class StringSlot {
  private bytes = new Uint8Array(new ArrayBuffer(256));
  private pointer: NativePointer = ffi.pointerOf(this.bytes);

  /** The bytes the last {@link encode} wrote, without the NUL. */
  written = 0;

  encode(s: string): NativePointer {
    // UTF-8 needs at most 3 bytes per UTF-16 unit.
    if (s.length * 3 + 1 > this.bytes.length) {
      this.bytes = new Uint8Array(new ArrayBuffer(s.length * 3 + 1));
      this.pointer = ffi.pointerOf(this.bytes);
    }
    const { written } = encoder.encodeInto(s, this.bytes);
    this.bytes[written] = 0;
    this.written = written;
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
  private readonly stringSlots: StringSlot[] = [];
  private readonly stringArrays: StringArraySlot[] = [];
  readonly guards: boolean;
  /** Debug mode: the guard after the output slots, and the guards of records allocated since the last check. */
  private readonly slotGuard: Uint8Array | undefined;
  private pending: { guard: Uint8Array; what: string }[] = [];

  /**
   * @param onFailure - builds the library's typed error for a failed call.
   * @param guards - debug guards (default: from `CUDA_TS_DEBUG`).
   */
  constructor(private readonly onFailure: (code: number | bigint, fn: string, subject?: unknown) => Error, guards = guardsEnabled()) {
    this.guards = guards;
    const buffer = new ArrayBuffer(SLOTS * 8 + (guards ? GUARD : 0));
    if (guards) {
      this.slotGuard = new Uint8Array(buffer, SLOTS * 8, GUARD);
      guardFill(this.slotGuard);
    }
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

  readonly isPointer: (value: unknown) => boolean = ffi.isPointer;

  bad(fn: string, param: string, kind: ArgumentKind, value: unknown): never {
    throw argumentError(fn, param, kind, value);
  }

  arity(fn: string, names: string, min: number, got: number): never {
    throw arityError(fn, names === "" ? [] : names.split(","), min, got);
  }

  ptr(value: PointerLike, fn = "a checked call", param = "a pointer argument"): Pointer {
    if (value === null) return null;
    if (value instanceof RecordBase) return value.$pointer();
    // An empty array has no address (bun:ffi refuses it): C takes NULL with a count of 0.
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) return value.byteLength === 0 ? null : ffi.pointerOf(value);
    if (ffi.isPointer(value)) return value;
    throw new BindingArgumentError(fn, param, "a pointer-like value: null, a Pointer, an ArrayBuffer, a typed array or a record", describeValue(value), "Pass the memory, or null where the library allows it.");
  }

  cstr(value: string | PointerLike, index: number, fn?: string, param?: string): Pointer {
    if (typeof value !== "string") return this.ptr(value, fn, param);
    return this.stringSlot(index, value, fn, param).encode(value);
  }

  cstrSized(value: string | PointerLike, size: number | bigint, index: number, fn: string, param: string, sizeParam: string): Pointer {
    this.count(size, fn, sizeParam);
    if (typeof value !== "string") return this.sized(value, size, 1, fn, param);
    const slot = this.stringSlot(index, value, fn, param);
    const p = slot.encode(value);
    // The library reads `size` bytes: the string's bytes and the NUL after them are all there is.
    if (Number(size) > slot.written + 1) {
      throw new BindingArgumentError(fn, sizeParam, `at most the ${slot.written} bytes of \`${param}\` (its UTF-8 bytes; ${slot.written + 1} with the NUL)`, String(size), `Pass the byte length of \`${param}\` (new TextEncoder().encode(s).length).`);
    }
    return p;
  }

  /** The reusable buffer `index` for a string input, after refusing a string that holds NUL. */
  private stringSlot(index: number, value: string, fn?: string, param?: string): StringSlot {
    if (value.includes("\0")) {
      throw new BindingArgumentError(fn ?? "a checked call", param ?? "a string argument", "a string without NUL characters (C reads it up to the first NUL)", `a string with NUL at ${value.indexOf("\0")}`, "Remove the NUL, or pass the bytes with their length.");
    }
    let slot = this.stringSlots[index];
    if (slot === undefined) this.stringSlots[index] = slot = new StringSlot();
    return slot;
  }

  cstrs(value: readonly string[] | PointerLike, index: number, fn?: string, param?: string): Pointer {
    if (!Array.isArray(value)) return this.ptr(value as PointerLike, fn, param);
    const values = value as readonly unknown[];
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v !== "string" || v.includes("\0")) {
        throw new BindingArgumentError(fn ?? "a checked call", `${param ?? "a string array"}[${i}]`, "a string without NUL characters", typeof v === "string" ? `a string with NUL at ${v.indexOf("\0")}` : describeValue(v), "Pass an array of strings.");
      }
    }
    let slot = this.stringArrays[index];
    if (slot === undefined) this.stringArrays[index] = slot = new StringArraySlot();
    return slot.encode(value as readonly string[]);
  }

  bytes(value: Uint8Array | RecordBase): Uint8Array {
    return value instanceof RecordBase ? value.$bytes() : value;
  }

  struct(value: Uint8Array | RecordBase, size: number, fn: string, param: string, cls?: RecordClass<RecordBase>): Uint8Array {
    if (value instanceof RecordBase) {
      if (cls !== undefined) this.expect(value, cls, fn, param);
      const b = value.$bytes();
      if (b.byteLength >= size) return b;
    } else if (value instanceof Uint8Array && value.byteLength >= size) return value;
    throw argumentError(fn, param, "struct", value, "checked", size);
  }

  recordArg<T extends RecordBase>(value: T, cls: RecordClass<RecordBase>, fn: string, param: string): T {
    if (!(value instanceof RecordBase)) {
      throw new BindingArgumentError(fn, param, `a ${(cls as unknown as { name: string }).name} record to fill, or nothing`, describeValue(value), "Leave it out to get a new one.");
    }
    return this.expect(value, cls, fn, param);
  }

  string(pointer: Pointer): string | null {
    return ffi.readCString(pointer);
  }

  fail(code: number | bigint, fn: string, subject?: unknown): never {
    throw this.onFailure(code, fn, subject);
  }

  check(fn: string): void {
    if (this.slotGuard !== undefined && !guardIntact(this.slotGuard)) {
      guardFill(this.slotGuard);
      this.pending = [];
      throw new GuardError(fn, `the ${SLOTS} output slots of 8 bytes`);
    }
    const pending = this.pending;
    if (pending.length === 0) return;
    this.pending = [];
    for (const p of pending) if (!guardIntact(p.guard)) throw new GuardError(fn, p.what);
  }

  record<T extends RecordBase>(cls: RecordClass<T>): T {
    // A record aligned past what an ArrayBuffer gives (CUtensorMap: 64 bytes) is placed at an aligned offset.
    const align = cls.$align > 8 ? cls.$align : 0;
    if (!this.guards && align === 0) return new cls();
    const size = Math.ceil(cls.$size / 8) * 8;
    const buffer = new ArrayBuffer(size + align + (this.guards ? GUARD : 0));
    const offset = align === 0 ? 0 : (align - (ffi.addressOf(ffi.pointerOf(buffer)) % align)) % align;
    if (this.guards) {
      const guard = new Uint8Array(buffer, offset + cls.$size);
      guardFill(guard);
      this.pending.push({ guard, what: `a ${cls.$cName} of ${cls.$size} bytes` });
    }
    return new cls(buffer, offset);
  }

  expect<V>(given: V, cls: RecordClass<RecordBase>, fn: string, param: string): V {
    const value = given as unknown;
    if (value instanceof RecordBase && !(value instanceof (cls as unknown as typeof RecordBase))) {
      // Another generated class for the same C type (an alias from another library's module) is the same record.
      const other = (value as RecordBase).constructor as RecordClass<RecordBase>;
      if (other.$cName !== cls.$cName || other.$size !== cls.$size) {
        throw new BindingArgumentError(fn, param, `a ${cls.$cName} (${cls.$size} bytes)`, describeValue(value), `Pass a ${(cls as unknown as { name: string }).name} or its bytes.`);
      }
    }
    if (ArrayBuffer.isView(value) && value.byteLength < cls.$size) {
      throw new BindingArgumentError(fn, param, `a ${cls.$cName} of ${cls.$size} bytes`, describeValue(value), `Pass a ${(cls as unknown as { name: string }).name} or ${cls.$size} bytes.`);
    }
    return given;
  }

  count(value: number | bigint, fn: string, param: string): void {
    if (typeof value === "bigint" ? value < 0n : !(Number.isSafeInteger(value) && value >= 0)) {
      throw new BindingArgumentError(fn, param, "a non-negative integer count", describeValue(value), "Pass the number of elements.");
    }
  }

  sized(value: PointerLike, count: number | bigint, elementSize: number, fn: string, param: string, cls?: RecordClass<RecordBase>): Pointer {
    if (cls !== undefined) this.expect(value, cls, fn, param);
    if (typeof count === "bigint" ? count < 0n : !(Number.isSafeInteger(count) && count >= 0)) {
      throw new BindingArgumentError(fn, param, "sized by a non-negative integer count", describeValue(count), "Pass the number of elements.");
    }
    let have: number | undefined;
    if (value instanceof RecordBase) have = value.$view.byteLength;
    else if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) have = value.byteLength;
    if (have !== undefined) {
      const need = Number(count) * elementSize;
      if (need > have) {
        throw new BindingArgumentError(
          fn,
          param,
          `at least ${need} bytes (${count} × ${elementSize})`,
          describeValue(value),
          "Pass a larger array, or a count no larger than what it holds.",
        );
      }
    }
    return this.ptr(value, fn, param);
  }

  strings(value: readonly string[] | PointerLike, count: number | bigint, fn: string, param: string): void {
    this.count(count, fn, param);
    if (Array.isArray(value) && value.length < Number(count)) {
      throw new BindingArgumentError(fn, param, `an array of at least ${count} strings`, `${value.length}`, "Pass as many strings as the count says.");
    }
  }

  writeCount(slot: number, bytes: number, value: number | bigint, fn: string, param: string): void {
    this.count(value, fn, param);
    if (bytes === 8) this.u64[slot] = BigInt(value);
    else this.u32[slot * 2] = Number(value);
  }

  writePointer(slot: number, value: Pointer, fn?: string, param?: string): void {
    if (fn !== undefined && !ffi.isPointer(value)) throw argumentError(fn, param ?? "a handle", "pointer", value);
    ffi.writePointer(this.dv, slot * 8, value);
  }

  arrays(fn: string, spec: ArraySpec, capacity: number | bigint | undefined, call: (p: readonly Pointer[]) => number | bigint, subject?: unknown): unknown[] {
    const c = spec.count;
    const readCount = (): number => (c === null ? 0 : c.bytes === 8 ? Number(this.u64[c.slot]!) : this.u32[c.slot * 2]!);
    const writeCount = (n: number): void => {
      if (c === null) return;
      if (c.bytes === 8) this.u64[c.slot] = BigInt(n);
      else this.u32[c.slot * 2] = n;
    };
    const failed = (r: number | bigint): boolean => r !== 0 && r !== 0n;
    let n: number;
    if (capacity !== undefined) {
      this.count(capacity, fn, "capacity");
      n = Number(capacity);
    } else if (c !== null && spec.query) {
      writeCount(0);
      const r = call(spec.elements.map(() => null));
      if (this.guards) this.check(fn);
      if (failed(r) && !spec.retry.includes(Number(r))) this.fail(r, fn, subject);
      n = readCount();
    } else {
      throw new BindingArgumentError(fn, "capacity", "the number of elements to return", "nothing", "Pass the count.");
    }
    for (let attempt = 0; ; attempt++) {
      const buffers = spec.elements.map((el) => arrayBuffer(n, el, this.guards));
      writeCount(n);
      const r = call(buffers.map((b) => ffi.pointerOf(b.buffer)));
      if (this.guards) {
        this.check(fn);
        for (const [k, b] of buffers.entries()) {
          if (b.guard && !guardIntact(b.guard)) throw new GuardError(fn, `array output ${k} of ${n} elements`);
        }
      }
      if (failed(r)) {
        if (capacity === undefined && spec.retry.includes(Number(r)) && attempt < 8) {
          n = Math.max(readCount(), n + 1);
          continue;
        }
        this.fail(r, fn, subject);
      }
      const length = c === null ? n : Math.min(n, readCount());
      return spec.elements.map((el, k) => decode(el, buffers[k]!.buffer, length));
    }
  }
}
