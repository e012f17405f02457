/**
 * Typed kernel arguments: `i32(n)`, `f32(x)`, `u64(n)`, `f16(x)`, `complex64(re, im)` ... Each fixes the C type a
 * JavaScript value is passed as. A scalar object is mutable (`s.value = ...`) so a hot loop can reuse it.
 *
 * @module
 */
import type { ScalarKind } from "./mangling.ts";
import { argumentsChanged } from "../base/epoch.ts";

/** Size in bytes of each scalar kind. */
export const SCALAR_SIZE: Readonly<Record<ScalarKind, number>> = {
  bool: 1,
  i8: 1,
  u8: 1,
  i16: 2,
  u16: 2,
  i32: 4,
  u32: 4,
  i64: 8,
  u64: 8,
  f16: 2,
  bf16: 2,
  f32: 4,
  f64: 8,
  complex64: 8,
  complex128: 16,
};

const INT_RANGE: Partial<Record<ScalarKind, [number, number]>> = {
  i8: [-128, 127],
  u8: [0, 255],
  i16: [-32768, 32767],
  u16: [0, 65535],
  i32: [-2147483648, 2147483647],
  u32: [0, 4294967295],
};

const convView = new DataView(new ArrayBuffer(8));

/**
 * Rounds a finite, non-negative number once, to nearest with ties to even, onto a binary format with `p` fraction
 * bits and smallest normal exponent `emin`, and returns the format's bits (without the sign; the exponent field
 * may reach the infinity encoding or beyond, which the caller checks). Adding and subtracting 1.5·2^(52+q) rounds
 * to a multiple of 2^q in one double operation, which rounds to nearest even by IEEE 754.
 */
function roundToBits(a: number, p: number, emin: number, emax: number): number {
  if (a === 0) return 0;
  convView.setFloat64(0, a);
  const biased = (convView.getUint32(0) >>> 20) & 0x7ff;
  if (biased - 1023 > emax) return (emax - emin + 2) * 2 ** p; // beyond the largest binade: infinity
  const e = Math.max(biased - 1023, emin); // double subnormals are far below every target's range: e = emin
  const q = e - p;
  const c = 1.5 * 2 ** (52 + q);
  const r = a + c - c; // a rounded to a multiple of 2^q
  // r / 2^q is in [0, 2^(p+1)]: the fraction with its leading bit, or the subnormal count where e = emin.
  return (e - emin) * 2 ** p + r / 2 ** q;
}

/** IEEE 754 binary16 bits of a number, rounded once from the double to nearest, ties to even. */
export function toHalfBits(x: number): number {
  if (Number.isNaN(x)) return 0x7e00;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === Infinity) return sign | 0x7c00;
  return sign | Math.min(roundToBits(a, 10, -14, 15), 0x7c00);
}

/** bfloat16 bits of a number, rounded once from the double to nearest, ties to even. */
export function toBFloat16Bits(x: number): number {
  if (Number.isNaN(x)) return 0x7fc0;
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  if (a === Infinity) return sign | 0x7f80;
  return sign | Math.min(roundToBits(a, 7, -126, 127), 0x7f80);
}

const encodeView = new DataView(new ArrayBuffer(16));

/**
 * A JavaScript value with the C type it is passed to a kernel as. The value's bytes are computed when it is set,
 * so writing it into a launch's argument memory is one or two word stores.
 */
export class KernelScalar {
  #value: number | bigint | boolean | readonly [number, number];
  /** Size in bytes. */
  readonly size: number;
  /** The value's bytes as little-endian 32-bit words. */
  #w0 = 0;
  #w1 = 0;
  #w2 = 0;
  #w3 = 0;

  constructor(
    /** The C type. */
    readonly kind: ScalarKind,
    value: number | bigint | boolean | readonly [number, number],
  ) {
    this.size = SCALAR_SIZE[kind];
    this.#value = check(kind, value);
    this.#encode();
  }

  #encode(): void {
    writeScalar(this.kind, this.#value, encodeView, 0);
    this.#w0 = encodeView.getUint32(0, true);
    this.#w1 = encodeView.getUint32(4, true);
    this.#w2 = encodeView.getUint32(8, true);
    this.#w3 = encodeView.getUint32(12, true);
  }

  /** The value (settable: reuse one scalar across launches). */
  get value(): number | bigint | boolean | readonly [number, number] {
    return this.#value;
  }
  set value(v: number | bigint | boolean | readonly [number, number]) {
    this.#value = check(this.kind, v);
    this.#encode();
    argumentsChanged();
  }

  /** Writes the value's bytes at `offset` (little-endian, as the GPU reads them). */
  write(dv: DataView, offset: number): void {
    const size = this.size;
    // The common sizes first (int, float, pointers, 64-bit integers and doubles).
    if (size === 4) dv.setUint32(offset, this.#w0, true);
    else if (size === 8) {
      dv.setUint32(offset, this.#w0, true);
      dv.setUint32(offset + 4, this.#w1, true);
    } else if (size === 1) dv.setUint8(offset, this.#w0);
    else if (size === 2) dv.setUint16(offset, this.#w0, true);
    else {
      dv.setUint32(offset, this.#w0, true);
      dv.setUint32(offset + 4, this.#w1, true);
      dv.setUint32(offset + 8, this.#w2, true);
      dv.setUint32(offset + 12, this.#w3, true);
    }
  }

  toString(): string {
    return `${this.kind}(${String(this.#value)})`;
  }
}

function check(kind: ScalarKind, v: unknown): number | bigint | boolean | readonly [number, number] {
  const bad = (what: string): never => {
    throw new RangeError(`${kind}(${String(v)}): ${what}`);
  };
  switch (kind) {
    case "bool":
      if (typeof v !== "boolean") bad("expected true or false");
      return v as boolean;
    case "i64":
    case "u64": {
      if (typeof v !== "bigint" && typeof v !== "number") bad("expected a bigint or an integer number");
      const b = typeof v === "bigint" ? v : Number.isSafeInteger(v) ? BigInt(v as number) : bad("expected an integer (a bigint for values beyond 2^53)");
      if (kind === "u64" && (b < 0n || b > 0xffffffffffffffffn)) bad("out of range for u64 (0 .. 2^64-1)");
      if (kind === "i64" && (b < -(2n ** 63n) || b >= 2n ** 63n)) bad("out of range for i64");
      return b;
    }
    case "complex64":
    case "complex128":
      if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== "number" || typeof v[1] !== "number") bad("expected [real, imaginary]");
      return v as readonly [number, number];
    case "f16":
    case "bf16":
    case "f32":
    case "f64":
      if (typeof v !== "number") bad("expected a number");
      return v as number;
    default: {
      if (typeof v !== "number" || !Number.isInteger(v)) bad("expected an integer number");
      const [lo, hi] = INT_RANGE[kind]!;
      if ((v as number) < lo || (v as number) > hi) bad(`out of range (${lo} .. ${hi})`);
      return v as number;
    }
  }
}

/** Writes a value of a scalar kind (already checked) at `offset`. */
export function writeScalar(kind: ScalarKind, v: unknown, dv: DataView, o: number): void {
  switch (kind) {
    case "bool":
      dv.setUint8(o, v ? 1 : 0);
      return;
    case "i8":
      dv.setInt8(o, v as number);
      return;
    case "u8":
      dv.setUint8(o, v as number);
      return;
    case "i16":
      dv.setInt16(o, v as number, true);
      return;
    case "u16":
      dv.setUint16(o, v as number, true);
      return;
    case "i32":
      dv.setInt32(o, v as number, true);
      return;
    case "u32":
      dv.setUint32(o, v as number, true);
      return;
    case "i64":
      dv.setBigInt64(o, typeof v === "bigint" ? v : BigInt(v as number), true);
      return;
    case "u64":
      dv.setBigUint64(o, typeof v === "bigint" ? v : BigInt(v as number), true);
      return;
    case "f16":
      dv.setUint16(o, toHalfBits(v as number), true);
      return;
    case "bf16":
      dv.setUint16(o, toBFloat16Bits(v as number), true);
      return;
    case "f32":
      dv.setFloat32(o, v as number, true);
      return;
    case "f64":
      dv.setFloat64(o, v as number, true);
      return;
    case "complex64": {
      const [re, im] = v as readonly [number, number];
      dv.setFloat32(o, re, true);
      dv.setFloat32(o + 4, im, true);
      return;
    }
    case "complex128": {
      const [re, im] = v as readonly [number, number];
      dv.setFloat64(o, re, true);
      dv.setFloat64(o + 8, im, true);
      return;
    }
  }
}

/** `bool` argument. */
export const bool = (v: boolean): KernelScalar => new KernelScalar("bool", v);
/** `int8_t` argument. */
export const i8 = (v: number): KernelScalar => new KernelScalar("i8", v);
/** `uint8_t` argument. */
export const u8 = (v: number): KernelScalar => new KernelScalar("u8", v);
/** `int16_t` argument. */
export const i16 = (v: number): KernelScalar => new KernelScalar("i16", v);
/** `uint16_t` argument. */
export const u16 = (v: number): KernelScalar => new KernelScalar("u16", v);
/** `int32_t` argument. */
export const i32 = (v: number): KernelScalar => new KernelScalar("i32", v);
/** `uint32_t` argument. */
export const u32 = (v: number): KernelScalar => new KernelScalar("u32", v);
/** `int64_t` argument. */
export const i64 = (v: bigint | number): KernelScalar => new KernelScalar("i64", v);
/** `uint64_t` argument. */
export const u64 = (v: bigint | number): KernelScalar => new KernelScalar("u64", v);
/** `__half` argument (the number is rounded to binary16). */
export const f16 = (v: number): KernelScalar => new KernelScalar("f16", v);
/** `__nv_bfloat16` argument (the number is rounded to bfloat16). */
export const bf16 = (v: number): KernelScalar => new KernelScalar("bf16", v);
/** `float` argument. */
export const f32 = (v: number): KernelScalar => new KernelScalar("f32", v);
/** `double` argument. */
export const f64 = (v: number): KernelScalar => new KernelScalar("f64", v);
/** `cuda::std::complex<float>` argument. */
export const complex64 = (re: number, im: number): KernelScalar => new KernelScalar("complex64", [re, im]);
/** `cuda::std::complex<double>` argument. */
export const complex128 = (re: number, im: number): KernelScalar => new KernelScalar("complex128", [re, im]);
