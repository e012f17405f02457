/**
 * Facts about dtypes, as NumPy's functions of these names: `finfo` (a float dtype's epsilon, range and precision),
 * `iinfo` (an integer dtype's range), `canCast` (whether one dtype converts to another under a casting rule) and
 * `isdtype` (whether a dtype is of a kind, the Array API's names). Nothing here touches the GPU.
 *
 * ```ts
 * finfo("float32").eps;                       // 1.1920928955078125e-7
 * iinfo("int64").max;                         // 9223372036854775807n
 * canCast("int64", "float64", "same_kind");   // true
 * isdtype("uint8", "integral");               // true
 * ```
 *
 * @module
 */
import { dtypeOf, type DType, type DTypeName } from "./dtype.ts";
import { DTypeError } from "./errors.ts";
import { canCastSafely, canCastSameKind } from "./promotion.ts";
import { ArgumentError } from "../../errors/base.ts";
import { describeValue } from "../../errors/describe.ts";

/** A dtype as the functions here take it: a name or a DType. */
export type DTypeLike = DTypeName | DType;

/** What {@link finfo} says of a float dtype (NumPy's `finfo` attributes, camelCased). */
export interface FloatInfo {
  /** The real float dtype these are facts of (float32 for complex64). */
  readonly dtype: DType;
  /** Bits of one value. */
  readonly bits: number;
  /** The gap between 1 and the next larger value: 2^-nmant. */
  readonly eps: number;
  /** The gap between 1 and the next smaller value: 2^-(nmant + 1). */
  readonly epsneg: number;
  /** The largest finite value. */
  readonly max: number;
  /** The most negative finite value, -max. */
  readonly min: number;
  /** The smallest positive normal value (NumPy's `smallest_normal`, also `tiny`). */
  readonly smallestNormal: number;
  /** The same, by NumPy's older name. */
  readonly tiny: number;
  /** The smallest positive subnormal value. */
  readonly smallestSubnormal: number;
  /** Decimal digits a value holds: floor(nmant · log10(2)). */
  readonly precision: number;
  /** 10^-precision, in the dtype. */
  readonly resolution: number;
  /** Bits of the fraction (without the implicit leading 1). */
  readonly nmant: number;
  /** Bits of the exponent. */
  readonly nexp: number;
  /** The exponent of eps (-nmant) and of epsneg. */
  readonly machep: number;
  readonly negep: number;
  /** The smallest power of 2 that overflows, and the exponent of smallestNormal. */
  readonly maxexp: number;
  readonly minexp: number;
  /** NumPy's `iexp`: the exponent's bits, as nexp. */
  readonly iexp: number;
}

/** What {@link iinfo} says of an integer dtype: bigints for the 64-bit dtypes, whose limits no number holds. */
export interface IntInfo<T extends number | bigint = number | bigint> {
  readonly dtype: DType;
  readonly bits: number;
  readonly min: T;
  readonly max: T;
  /** "i" for signed, "u" for unsigned. */
  readonly kind: "i" | "u";
}

function dtypeArgument(d: unknown, what: string): DType {
  try {
    return dtypeOf(d as DTypeName);
  } catch {
    throw new DTypeError(`${what}: expected a dtype (a name such as "float32", or a DType), got ${describeValue(d)}`);
  }
}

const FLOAT_BITS: Readonly<Record<string, { bits: number; nmant: number; nexp: number; precision: number }>> = {
  float16: { bits: 16, nmant: 10, nexp: 5, precision: 3 },
  bfloat16: { bits: 16, nmant: 7, nexp: 8, precision: 2 },
  float32: { bits: 32, nmant: 23, nexp: 8, precision: 6 },
  float64: { bits: 64, nmant: 52, nexp: 11, precision: 15 },
};

const floatCache = new Map<string, FloatInfo>();

/** `v` rounded to the float format of `nmant` fraction bits (round half to even), for a normal `v`. */
function roundToFormat(v: number, nmant: number): number {
  const e = Math.floor(Math.log2(v));
  const scale = 2 ** (nmant - e);
  const scaled = v * scale;
  const floor = Math.floor(scaled);
  const rest = scaled - floor;
  const n = rest > 0.5 || (rest === 0.5 && floor % 2 === 1) ? floor + 1 : floor;
  return n / scale;
}

/**
 * Machine limits of a float dtype, as NumPy's `finfo`: `eps`, `max`, `smallestNormal`, `precision`, ... (every value
 * exact, as a number). A complex dtype gives its parts' (complex64: float32's); bfloat16 gives ml_dtypes' values.
 * DTypeError for a dtype that is not a float (`iinfo` has the integers').
 *
 * ```ts
 * const { eps, max } = finfo("float16");      // 0.0009765625, 65504
 * ```
 */
export function finfo(dtype: DTypeLike): FloatInfo {
  const d = dtypeArgument(dtype, "finfo");
  const real = d.name === "complex64" ? "float32" : d.name === "complex128" ? "float64" : d.name;
  const facts = FLOAT_BITS[real];
  if (facts === undefined) throw new DTypeError(`finfo: ${d.name} is not a float dtype; use iinfo for integers (bool has neither)`);
  let info = floatCache.get(real);
  if (info === undefined) {
    const { bits, nmant, nexp, precision } = facts;
    const maxexp = 2 ** (nexp - 1);
    const minexp = 2 - maxexp;
    const max = (2 - 2 ** -nmant) * 2 ** (maxexp - 1);
    const smallestNormal = 2 ** minexp;
    info = Object.freeze({
      dtype: dtypeOf(real as DTypeName),
      bits,
      eps: 2 ** -nmant,
      epsneg: 2 ** -(nmant + 1),
      max,
      min: -max,
      smallestNormal,
      tiny: smallestNormal,
      smallestSubnormal: 2 ** (minexp - nmant),
      precision,
      resolution: roundToFormat(10 ** -precision, nmant),
      nmant,
      nexp,
      machep: -nmant,
      negep: -(nmant + 1),
      maxexp,
      minexp,
      iexp: nexp,
    });
    floatCache.set(real, info);
  }
  return info;
}

/**
 * Machine limits of an integer dtype, as NumPy's `iinfo`: `min`, `max` (numbers, or bigints for int64 and uint64),
 * `bits`, `kind`. DTypeError for a dtype that is not an integer (bool included, as NumPy).
 *
 * ```ts
 * iinfo("uint8").max;                          // 255
 * iinfo("int64").min;                          // -9223372036854775808n
 * ```
 */
export function iinfo(dtype: "int64" | "uint64"): IntInfo<bigint>;
export function iinfo(dtype: "int8" | "uint8" | "int16" | "uint16" | "int32" | "uint32"): IntInfo<number>;
export function iinfo(dtype: DTypeLike): IntInfo;
export function iinfo(dtype: DTypeLike): IntInfo {
  const d = dtypeArgument(dtype, "iinfo");
  if (d.kind !== "i" && d.kind !== "u") throw new DTypeError(`iinfo: ${d.name} is not an integer dtype; use finfo for floats (bool has neither)`);
  const bits = d.itemsize * 8;
  const kind = d.kind;
  if (bits === 64) {
    const min = kind === "i" ? -(2n ** 63n) : 0n;
    const max = kind === "i" ? 2n ** 63n - 1n : 2n ** 64n - 1n;
    return Object.freeze({ dtype: d, bits, min, max, kind });
  }
  const min = kind === "i" ? -(2 ** (bits - 1)) : 0;
  const max = kind === "i" ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
  return Object.freeze({ dtype: d, bits, min, max, kind });
}

/** NumPy's casting rules, from the strictest: the same dtype, the same dtype, no loss, no loss of kind, anything. */
export type CastingRule = "no" | "equiv" | "safe" | "same_kind" | "unsafe";

/** @internal The casting rules, strictest first. */
export const CASTING_RULES: readonly CastingRule[] = ["no", "equiv", "safe", "same_kind", "unsafe"];

/**
 * Whether `from` converts to `to` under `casting` (default "safe"), as NumPy's `can_cast` of two dtypes: "no" and
 * "equiv" only the same dtype (byte order is always native here), "safe" where NumPy's promotion of the two is `to` (int32
 * and int64 to float64, not int64 to float32), "same_kind" a safe cast or one within a kind or up the order bool, unsigned, signed,
 * float, complex (float64 to float16, not float to integer), "unsafe" any.
 */
export function canCast(from: DTypeLike, to: DTypeLike, casting: CastingRule = "safe"): boolean {
  const f = dtypeArgument(from, "canCast");
  const t = dtypeArgument(to, "canCast");
  if (!CASTING_RULES.includes(casting)) throw new ArgumentError(`canCast: casting is one of ${CASTING_RULES.map((c) => `"${c}"`).join(", ")}, not ${describeValue(casting)}`);
  return castAllowed(f, t, casting);
}

/** @internal Whether `from` converts to `to` under `rule` (checked). */
export function castAllowed(f: DType, t: DType, rule: CastingRule): boolean {
  switch (rule) {
    case "no":
    case "equiv":
      return f === t;
    case "safe":
      return canCastSafely(f, t);
    case "same_kind":
      return canCastSameKind(f, t);
    case "unsafe":
      return true;
  }
}

/** The kinds {@link isdtype} knows (the Array API's, as NumPy 2's `isdtype`). */
export type DTypeKind = "bool" | "signed integer" | "unsigned integer" | "integral" | "real floating" | "complex floating" | "numeric";

const KINDS: Readonly<Record<DTypeKind, (d: DType) => boolean>> = {
  bool: (d) => d.kind === "b",
  "signed integer": (d) => d.kind === "i",
  "unsigned integer": (d) => d.kind === "u",
  integral: (d) => d.kind === "i" || d.kind === "u",
  "real floating": (d) => d.kind === "f",
  "complex floating": (d) => d.kind === "c",
  numeric: (d) => d.kind !== "b",
};

/**
 * Whether `dtype` is of `kind`, as NumPy 2's (and the Array API's) `isdtype`: `kind` a kind name ("bool", "signed
 * integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric"), a dtype (that very
 * dtype), or a list of either (any of them). bfloat16 is a real floating dtype.
 */
export function isdtype(dtype: DTypeLike, kind: DTypeKind | DTypeLike | readonly (DTypeKind | DTypeLike)[]): boolean {
  const d = dtypeArgument(dtype, "isdtype");
  const one = (k: DTypeKind | DTypeLike): boolean => {
    if (typeof k === "string" && Object.hasOwn(KINDS, k)) return KINDS[k as DTypeKind](d);
    let other: DType;
    try {
      other = dtypeOf(k as DTypeName);
    } catch {
      throw new ArgumentError(`isdtype: kind is a kind name (${Object.keys(KINDS).map((n) => `"${n}"`).join(", ")}), a dtype, or a list of them; got ${describeValue(k)}`);
    }
    return other === d;
  };
  return Array.isArray(kind) ? (kind as readonly (DTypeKind | DTypeLike)[]).some(one) : one(kind as DTypeKind | DTypeLike);
}
