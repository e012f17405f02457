/**
 * The base of every generated struct and union class: typed accessors over the record's bytes, which live in a
 * JavaScript ArrayBuffer (the default: `new CUmemLocation()`), in part of another buffer, or in native memory
 * (`CUmemLocation.at(pointer)`, zero-copy).
 *
 * Members of the base start with `$`, which no C field name can, so they never collide with a field.
 *
 * @module
 */
import { ffi } from "../ffi/index.ts";
import type { NativePointer, Pointer } from "../ffi/types.ts";
import { ArgumentError } from "../errors/base.ts";

/** One field's place in its record (byte offset and size; bit offset and width for bit-fields). */
export interface FieldInfo {
  readonly name: string;
  readonly offset: number;
  readonly size: number;
  readonly bitOffset?: number;
  readonly bitWidth?: number;
}

/** Where a record's bytes are. */
export type RecordSource = ArrayBuffer | ArrayBufferView | NativePointer;

/** A generated record class. */
export interface RecordClass<T extends RecordBase> {
  new (source?: RecordSource, byteOffset?: number): T;
  /** The C type (`struct CUuuid_st`). */
  readonly $cName: string;
  /** `sizeof`. */
  readonly $size: number;
  /** `_Alignof`. */
  readonly $align: number;
  /** Every field's place, in declaration order (anonymous members flattened). */
  readonly $fields: readonly FieldInfo[];
}

/** Raised when a record is placed over memory too small for it. */
export class RecordRangeError extends ArgumentError {
  constructor(name: string, need: number, have: number) {
    super(`${name} needs ${need} bytes but the memory given holds ${have}; pass a larger buffer or offset.`);
    this.name = "RecordRangeError";
  }
}

type TypedArrayCtor =
  | Int8ArrayConstructor
  | Uint8ArrayConstructor
  | Int16ArrayConstructor
  | Uint16ArrayConstructor
  | Int32ArrayConstructor
  | Uint32ArrayConstructor
  | Float32ArrayConstructor
  | Float64ArrayConstructor
  | BigInt64ArrayConstructor
  | BigUint64ArrayConstructor;

/** A fixed-length array of records inside another record. */
export class RecordArray<T extends RecordBase> {
  constructor(
    private readonly cls: RecordClass<T>,
    private readonly buffer: ArrayBuffer,
    private readonly byteOffset: number,
    /** Number of elements. */
    readonly length: number,
  ) {}

  /** The element at `index` (a view: writes go to the parent record). */
  at(index: number): T {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) {
      throw new RangeError(`index ${index} is outside 0..${this.length - 1}`);
    }
    return new this.cls(this.buffer, this.byteOffset + index * this.cls.$size);
  }

  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }
}

/** A fixed-length array of pointers inside a record. */
export class PointerArray {
  private readonly view: DataView;
  constructor(buffer: ArrayBuffer, byteOffset: number, readonly length: number) {
    this.view = new DataView(buffer, byteOffset, length * 8);
  }

  get(index: number): Pointer {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) {
      throw new RangeError(`index ${index} is outside 0..${this.length - 1}`);
    }
    return ffi.readPointer(this.view, index * 8);
  }

  set(index: number, value: Pointer): void {
    if (!Number.isInteger(index) || index < 0 || index >= this.length) {
      throw new RangeError(`index ${index} is outside 0..${this.length - 1}`);
    }
    ffi.writePointer(this.view, index * 8, value);
  }
}


/**
 * What a generated record class is, made when the class is first used (RecordBase.$define): its C facts, its
 * fields' places, and the accessors of its fields (put on the class's prototype).
 */
export interface RecordDefinition {
  readonly cName: string;
  readonly size: number;
  readonly align: number;
  readonly fields: readonly FieldInfo[];
  readonly accessors: PropertyDescriptorMap;
}

/**
 * A field's accessor as generated tables describe it (the JSON of `RecordBase.$define`'s description), by kind:
 * `s` a scalar (`$i32`...; with its setter), `b` bits as a number (`bool` 1: as a boolean) and `B` as a bigint, `p` a
 * pointer, `a` a typed array (the constructor's name), `P` an array of pointers, `R` an array of records and `r` a
 * record (the class by its index in the description's list of referenced classes; `size` for the setter).
 */
export type AccessorSpec =
  | readonly [key: string, kind: "s", code: string, offset: number]
  | readonly [key: string, kind: "b", bitOffset: number, width: number, signed: 0 | 1, bool: 0 | 1]
  | readonly [key: string, kind: "B", bitOffset: number, width: number, signed: 0 | 1]
  | readonly [key: string, kind: "p", offset: number]
  | readonly [key: string, kind: "a", ctor: string, offset: number, length: number]
  | readonly [key: string, kind: "P", offset: number, length: number]
  | readonly [key: string, kind: "R", classIndex: number, offset: number, length: number]
  | readonly [key: string, kind: "r", classIndex: number, offset: number, size: number];

/** The JSON a generated record's description holds: C name, size, alignment, fields, accessors. */
interface RecordSpec {
  readonly c: string;
  readonly s: number;
  readonly a: number;
  /** Fields: name, offset, size, and for a bit-field its bit offset and width. */
  readonly f: readonly (readonly [string, number, number] | readonly [string, number, number, number, number])[];
  readonly x: readonly AccessorSpec[];
}

const TYPED_ARRAYS: Readonly<Record<string, TypedArrayCtor>> = {
  Int8Array,
  Uint8Array,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
};

/** The accessor pair of a scalar field at an offset, by the field's type: what generated code used to spell out. */
const SCALARS: Readonly<Record<string, (o: number) => PropertyDescriptor>> = {
  i8: (o) => ({ get(this: RecordBase) { return this.$i8(o); }, set(this: RecordBase, v: number) { this.$setI8(o, v); } }),
  u8: (o) => ({ get(this: RecordBase) { return this.$u8(o); }, set(this: RecordBase, v: number) { this.$setU8(o, v); } }),
  i16: (o) => ({ get(this: RecordBase) { return this.$i16(o); }, set(this: RecordBase, v: number) { this.$setI16(o, v); } }),
  u16: (o) => ({ get(this: RecordBase) { return this.$u16(o); }, set(this: RecordBase, v: number) { this.$setU16(o, v); } }),
  i32: (o) => ({ get(this: RecordBase) { return this.$i32(o); }, set(this: RecordBase, v: number) { this.$setI32(o, v); } }),
  u32: (o) => ({ get(this: RecordBase) { return this.$u32(o); }, set(this: RecordBase, v: number) { this.$setU32(o, v); } }),
  i64: (o) => ({ get(this: RecordBase) { return this.$i64(o); }, set(this: RecordBase, v: bigint | number) { this.$setI64(o, v); } }),
  u64: (o) => ({ get(this: RecordBase) { return this.$u64(o); }, set(this: RecordBase, v: bigint | number) { this.$setU64(o, v); } }),
  f32: (o) => ({ get(this: RecordBase) { return this.$f32(o); }, set(this: RecordBase, v: number) { this.$setF32(o, v); } }),
  f64: (o) => ({ get(this: RecordBase) { return this.$f64(o); }, set(this: RecordBase, v: number) { this.$setF64(o, v); } }),
  bool: (o) => ({ get(this: RecordBase) { return this.$bool(o); }, set(this: RecordBase, v: boolean) { this.$setBool(o, v); } }),
};

/** One field's property descriptor from its description: the getter (and setter) generated code used to spell out. */
function accessorOf(x: AccessorSpec, refs: () => readonly RecordClass<RecordBase>[]): PropertyDescriptor {
  switch (x[1]) {
    case "s": {
      const scalar = SCALARS[x[2]];
      if (scalar === undefined) throw new TypeError(`a generated record names the scalar type "${x[2]}", which RecordBase has no accessor for (regenerate the tables)`);
      return scalar(x[3]);
    }
    case "b": {
      const [, , bo, w, signed, bool] = x;
      return bool === 1
        ? {
            get(this: RecordBase) {
              return this.$bits(bo, w, false) !== 0;
            },
            set(this: RecordBase, v: boolean) {
              this.$setBits(bo, w, v ? 1 : 0);
            },
          }
        : {
            get(this: RecordBase) {
              return this.$bits(bo, w, signed === 1);
            },
            set(this: RecordBase, v: number) {
              this.$setBits(bo, w, v);
            },
          };
    }
    case "B": {
      const [, , bo, w, signed] = x;
      return {
        get(this: RecordBase) {
          return this.$bitsBig(bo, w, signed === 1);
        },
        set(this: RecordBase, v: bigint | number) {
          this.$setBitsBig(bo, w, v);
        },
      };
    }
    case "p": {
      const o = x[2];
      return {
        get(this: RecordBase) {
          return this.$ptr(o);
        },
        set(this: RecordBase, v: Pointer) {
          this.$setPtr(o, v);
        },
      };
    }
    case "a": {
      const [, , name, o, length] = x;
      const ctor = TYPED_ARRAYS[name];
      if (ctor === undefined) throw new TypeError(`a generated record names the array type "${name}", which is not a typed array (regenerate the tables)`);
      return {
        get(this: RecordBase) {
          return this.$array(ctor, o, length);
        },
      };
    }
    case "P": {
      const [, , o, length] = x;
      return {
        get(this: RecordBase) {
          return this.$pointers(o, length);
        },
      };
    }
    case "R": {
      const [, , k, o, length] = x;
      return {
        get(this: RecordBase) {
          return this.$records(refs()[k]!, o, length);
        },
      };
    }
    case "r": {
      const [, , k, o, size] = x;
      return {
        get(this: RecordBase) {
          return this.$record(refs()[k]!, o);
        },
        set(this: RecordBase, v: RecordBase) {
          this.$setRecord(o, size, v);
        },
      };
    }
  }
}

/** A record's definition from its description (the JSON text) and the classes it refers to. */
function definitionOf(json: string, refs: () => readonly RecordClass<RecordBase>[]): RecordDefinition {
  const spec = JSON.parse(json) as RecordSpec;
  const accessors: PropertyDescriptorMap = {};
  for (const x of spec.x) accessors[x[0]] = accessorOf(x, refs);
  return {
    cName: spec.c,
    size: spec.s,
    align: spec.a,
    fields: spec.f.map((f) => (f.length === 5 ? { name: f[0], offset: f[1], size: f[2], bitOffset: f[3], bitWidth: f[4] } : { name: f[0], offset: f[1], size: f[2] })),
    accessors,
  };
}

const NO_REFS = (): readonly RecordClass<RecordBase>[] => [];

const pendingRecords = new Map<abstract new (...args: never[]) => RecordBase, () => RecordDefinition>();

/** Makes a registered record class (once): accessors on its prototype, its facts as static properties. */
function defineRecord(cls: abstract new (...args: never[]) => RecordBase): void {
  const make = pendingRecords.get(cls);
  if (make === undefined) {
    throw new TypeError(`${cls.name} is not a generated record class: it has no layout (generated records register one with RecordBase.$define)`);
  }
  pendingRecords.delete(cls);
  const d = make();
  for (const key of Object.keys(d.accessors)) Object.defineProperty(cls.prototype, key, { ...d.accessors[key], configurable: true, enumerable: false });
  Object.defineProperties(cls, {
    $cName: { value: d.cName, enumerable: true },
    $size: { value: d.size, enumerable: true },
    $align: { value: d.align, enumerable: true },
    $fields: { value: d.fields, enumerable: true },
  });
}

/**
 * The base class of generated records. The `$i8`...`$setRecord` helpers are what generated field accessors call
 * (public so that accessors made outside the class body can reach them); use the named fields instead.
 */
export abstract class RecordBase {
  /**
   * Registers a generated record class: `description` gives its facts and field accessors (the JSON text of a
   * record's C name `c`, size `s`, alignment `a`, fields `f` and accessors `x`: {@link AccessorSpec}; `refs` the
   * classes its record fields name, by index), or a function that makes its definition. Either is read when the
   * class is first used (the first record made, or the first read of `$size`, `$fields`, ...): importing a library's
   * records defines classes, and neither their accessors nor the code of any.
   */
  static $define(cls: abstract new (...args: never[]) => RecordBase, description: string | (() => RecordDefinition), refs: () => readonly RecordClass<RecordBase>[] = NO_REFS): void {
    pendingRecords.set(cls, typeof description === "function" ? description : () => definitionOf(description, refs));
  }

  /** The C type (`struct CUuuid_st`). */
  static get $cName(): string {
    defineRecord(this);
    return this.$cName;
  }

  /** `sizeof`. */
  static get $size(): number {
    defineRecord(this);
    return this.$size;
  }

  /** `_Alignof`. */
  static get $align(): number {
    defineRecord(this);
    return this.$align;
  }

  /** Every field's place, in declaration order (anonymous members flattened). */
  static get $fields(): readonly FieldInfo[] {
    defineRecord(this);
    return this.$fields;
  }

  /** The record's bytes. */
  readonly $view: DataView;

  /**
   * @param source - where the bytes are: omitted for a new zeroed record, an ArrayBuffer or view (with
   *   `byteOffset`), or a native pointer (read and written in place, zero-copy).
   * @param byteOffset - offset into `source`.
   */
  constructor(source?: RecordSource, byteOffset = 0) {
    const cls = new.target as unknown as RecordClass<RecordBase>;
    const size = cls.$size;
    if (source === undefined) {
      this.$view = new DataView(new ArrayBuffer(Math.max(8, Math.ceil(size / 8) * 8)), 0, size);
    } else if (source instanceof ArrayBuffer) {
      if (byteOffset + size > source.byteLength) throw new RecordRangeError(cls.$cName, byteOffset + size, source.byteLength);
      this.$view = new DataView(source, byteOffset, size);
    } else if (ArrayBuffer.isView(source)) {
      if (byteOffset + size > source.byteLength) throw new RecordRangeError(cls.$cName, byteOffset + size, source.byteLength);
      this.$view = new DataView(source.buffer as ArrayBuffer, source.byteOffset + byteOffset, size);
    } else {
      const p = byteOffset === 0 ? source : ffi.offsetPointer(source, byteOffset);
      this.$view = new DataView(ffi.view(p, size));
    }
  }

  /** A record over native memory at `pointer` (zero-copy; the memory must stay valid while it is used). */
  static at<T extends RecordBase>(this: RecordClass<T>, pointer: NativePointer): T {
    return new this(pointer);
  }

  /** A new record holding a copy of `bytes`. */
  static from<T extends RecordBase>(this: RecordClass<T>, bytes: ArrayBufferView): T {
    const r = new this();
    r.$copyFrom(bytes);
    return r;
  }

  /** The native address of the record's first byte (for passing `&record` to C). */
  $pointer(): NativePointer {
    return ffi.pointerOf(this.$view);
  }

  /** The record's bytes (a view, not a copy). */
  $bytes(): Uint8Array {
    return new Uint8Array(this.$view.buffer, this.$view.byteOffset, this.$view.byteLength);
  }

  /** Copies another record's (or buffer's) bytes into this one. */
  $copyFrom(other: RecordBase | ArrayBufferView): void {
    const src =
      other instanceof RecordBase
        ? other.$bytes()
        : new Uint8Array(other.buffer, other.byteOffset, other.byteLength);
    if (src.byteLength !== this.$view.byteLength) {
      throw new RangeError(`cannot copy ${src.byteLength} bytes into a ${this.$view.byteLength}-byte record`);
    }
    this.$bytes().set(src);
  }

  /** Every named field's current value, for logging and tests. */
  $toObject(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const cls = this.constructor as RecordClass<RecordBase>;
    for (const f of cls.$fields) {
      if (f.name === "") continue;
      const v = (this as unknown as Record<string, unknown>)[f.name];
      out[f.name] = v instanceof RecordBase ? v.$toObject() : v;
    }
    return out;
  }

  $i8(o: number): number {
    return this.$view.getInt8(o);
  }
  $u8(o: number): number {
    return this.$view.getUint8(o);
  }
  $i16(o: number): number {
    return this.$view.getInt16(o, true);
  }
  $u16(o: number): number {
    return this.$view.getUint16(o, true);
  }
  $i32(o: number): number {
    return this.$view.getInt32(o, true);
  }
  $u32(o: number): number {
    return this.$view.getUint32(o, true);
  }
  $i64(o: number): bigint {
    return this.$view.getBigInt64(o, true);
  }
  $u64(o: number): bigint {
    return this.$view.getBigUint64(o, true);
  }
  $f32(o: number): number {
    return this.$view.getFloat32(o, true);
  }
  $f64(o: number): number {
    return this.$view.getFloat64(o, true);
  }
  $bool(o: number): boolean {
    return this.$view.getUint8(o) !== 0;
  }
  $ptr(o: number): Pointer {
    return ffi.readPointer(this.$view, o);
  }
  $setI8(o: number, v: number): void {
    this.$view.setInt8(o, v);
  }
  $setU8(o: number, v: number): void {
    this.$view.setUint8(o, v);
  }
  $setI16(o: number, v: number): void {
    this.$view.setInt16(o, v, true);
  }
  $setU16(o: number, v: number): void {
    this.$view.setUint16(o, v, true);
  }
  $setI32(o: number, v: number): void {
    this.$view.setInt32(o, v, true);
  }
  $setU32(o: number, v: number): void {
    this.$view.setUint32(o, v, true);
  }
  $setI64(o: number, v: bigint | number): void {
    this.$view.setBigInt64(o, BigInt(v), true);
  }
  $setU64(o: number, v: bigint | number): void {
    this.$view.setBigUint64(o, BigInt(v), true);
  }
  $setF32(o: number, v: number): void {
    this.$view.setFloat32(o, v, true);
  }
  $setF64(o: number, v: number): void {
    this.$view.setFloat64(o, v, true);
  }
  $setBool(o: number, v: boolean): void {
    this.$view.setUint8(o, v ? 1 : 0);
  }
  $setPtr(o: number, v: Pointer): void {
    ffi.writePointer(this.$view, o, v);
  }

  /** A bit-field of at most 32 bits, `bitOffset` counted from the record's first bit. */
  $bits(bitOffset: number, width: number, signed: boolean): number {
    const start = bitOffset >> 3;
    const shift = bitOffset & 7;
    const n = (shift + width + 7) >> 3;
    let raw = 0;
    for (let i = n - 1; i >= 0; i--) raw = raw * 256 + this.$view.getUint8(start + i);
    let v = Math.floor(raw / 2 ** shift) % 2 ** width;
    if (signed && v >= 2 ** (width - 1)) v -= 2 ** width;
    return v;
  }

  $setBits(bitOffset: number, width: number, value: number): void {
    const start = bitOffset >> 3;
    const shift = bitOffset & 7;
    const n = (shift + width + 7) >> 3;
    let raw = 0;
    for (let i = n - 1; i >= 0; i--) raw = raw * 256 + this.$view.getUint8(start + i);
    const span = 2 ** width;
    const field = ((Math.trunc(value) % span) + span) % span;
    const old = Math.floor(raw / 2 ** shift) % span;
    raw += (field - old) * 2 ** shift;
    for (let i = 0; i < n; i++) {
      this.$view.setUint8(start + i, raw % 256);
      raw = Math.floor(raw / 256);
    }
  }

  /** A bit-field wider than 32 bits. */
  $bitsBig(bitOffset: number, width: number, signed: boolean): bigint {
    let v = 0n;
    for (let i = width - 1; i >= 0; i--) {
      const b = bitOffset + i;
      v = (v << 1n) | BigInt((this.$view.getUint8(b >> 3) >> (b & 7)) & 1);
    }
    return signed ? BigInt.asIntN(width, v) : v;
  }

  $setBitsBig(bitOffset: number, width: number, value: bigint | number): void {
    const v = BigInt.asUintN(width, BigInt(value));
    for (let i = 0; i < width; i++) {
      const b = bitOffset + i;
      const byte = this.$view.getUint8(b >> 3);
      const bit = Number((v >> BigInt(i)) & 1n);
      this.$view.setUint8(b >> 3, (byte & ~(1 << (b & 7))) | (bit << (b & 7)));
    }
  }

  /** A typed-array view of an array field. */
  $array<C extends TypedArrayCtor>(ctor: C, o: number, length: number): InstanceType<C> {
    return new ctor(this.$view.buffer as ArrayBuffer, this.$view.byteOffset + o, length) as InstanceType<C>;
  }

  /** A view of a nested record field. */
  $record<T extends RecordBase>(cls: RecordClass<T>, o: number): T {
    return new cls(this.$view.buffer as ArrayBuffer, this.$view.byteOffset + o);
  }

  /** Copies a record into a nested record field. */
  $setRecord(o: number, size: number, v: RecordBase): void {
    const src = v.$bytes();
    if (src.byteLength !== size) throw new RangeError(`expected a ${size}-byte record, got ${src.byteLength} bytes`);
    new Uint8Array(this.$view.buffer as ArrayBuffer, this.$view.byteOffset + o, size).set(src);
  }

  /** A view of an array-of-records field. */
  $records<T extends RecordBase>(cls: RecordClass<T>, o: number, length: number): RecordArray<T> {
    return new RecordArray(cls, this.$view.buffer as ArrayBuffer, this.$view.byteOffset + o, length);
  }

  /** A view of an array-of-pointers field. */
  $pointers(o: number, length: number): PointerArray {
    return new PointerArray(this.$view.buffer as ArrayBuffer, this.$view.byteOffset + o, length);
  }
}

