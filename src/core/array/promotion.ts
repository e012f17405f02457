/**
 * Dtype promotion: the dtype an operation on several operands computes in, as NumPy 2 decides it (NEP 50), with
 * bfloat16 as ml_dtypes adds it.
 *
 * - Between arrays (and dtypes): bool gives way to anything; signed with signed, unsigned with unsigned take the
 *   wider; a signed and an unsigned integer take the signed type wide enough for both (int64 with uint64: float64);
 *   an integer with a float takes the float that holds the integer (8-bit: float16, 16-bit: float32, wider: float64)
 *   or the float, whichever is wider (an 8-bit integer with bfloat16: bfloat16, which holds it, as ml_dtypes has
 *   it); float16 with bfloat16 is float32; complex takes the complex of the wider real.
 * - JavaScript scalars are weak: they take the array's dtype where their kind fits it (`int8Array.add(1)` stays int8,
 *   `float16Array.mul(0.5)` stays float16), so only a scalar of a higher kind promotes: an integer-valued number or
 *   bigint with bool gives int64, a fractional number with bool or integers gives float64, `[re, im]` with bool or
 *   integers complex128 and with floats the complex of their width. An integer scalar outside an integer array's
 *   range is a {@link DTypeError}, not a wrapped value. A JavaScript number with an integral value (`1`, `2.0`) counts
 *   as an integer.
 *
 * The whole table is in docs/arrays.md, checked against {@link promoteTypes} by the tests.
 *
 * @module
 */
import { DeviceArray, type ArrayScalar } from "./device-array.ts";
import { dtypeOf, dtypes, type DType, type DTypeLike, type DTypeName } from "./dtype.ts";
import { DTypeError } from "./errors.ts";
import { describeValue } from "../../errors/describe.ts";

/** An operand whose dtype counts: an array, a dtype, or a (weak) scalar. */
export type PromotionOperand = DeviceArray | DType | ArrayScalar;

const INT_BITS: Partial<Record<DTypeName, number>> = { int8: 8, int16: 16, int32: 32, int64: 64, uint8: 8, uint16: 16, uint32: 32, uint64: 64 };

function signed(bits: number): DType {
  return bits <= 8 ? dtypes.int8 : bits <= 16 ? dtypes.int16 : bits <= 32 ? dtypes.int32 : dtypes.int64;
}
function unsigned(bits: number): DType {
  return bits <= 8 ? dtypes.uint8 : bits <= 16 ? dtypes.uint16 : bits <= 32 ? dtypes.uint32 : dtypes.uint64;
}

/** The smallest float that holds every value of an integer dtype. */
function floatOfInteger(d: DType): DType {
  const bits = INT_BITS[d.name]!;
  return bits <= 8 ? dtypes.float16 : bits <= 16 ? dtypes.float32 : dtypes.float64;
}

function promoteFloats(a: DType, b: DType): DType {
  if (a === b) return a;
  if ((a.name === "float16" && b.name === "bfloat16") || (a.name === "bfloat16" && b.name === "float16")) return dtypes.float32;
  return a.itemsize >= b.itemsize ? a : b;
}

/** The real dtype of a complex one (complex64: float32). */
export function realOf(d: DType): DType {
  return d.name === "complex64" ? dtypes.float32 : d.name === "complex128" ? dtypes.float64 : d;
}

/** The complex dtype whose parts are `real` (float16, bfloat16 and float32: complex64). */
export function complexOf(real: DType): DType {
  return real.name === "float64" ? dtypes.complex128 : dtypes.complex64;
}

/**
 * The dtype two dtypes promote to (symmetric; NumPy's `promote_types`, with bfloat16): `promoteTypes("int8",
 * "uint8")` is int16, `promoteTypes("int64", "float16")` float64.
 *
 * @throws DTypeError when either is not a dtype or a dtype's name.
 */
export function promoteTypes(a: DTypeLike, b: DTypeLike): DType {
  return promote(dtypeOf(a), dtypeOf(b));
}

function promote(a: DType, b: DType): DType {
  if (a === b) return a;
  if (a.kind === "b") return b;
  if (b.kind === "b") return a;
  if (a.kind === "c" || b.kind === "c") {
    const ra = a.kind === "c" ? realOf(a) : a;
    const rb = b.kind === "c" ? realOf(b) : b;
    return complexOf(promote(ra, rb));
  }
  if (a.kind === "f" || b.kind === "f") {
    // bfloat16 holds every 8-bit integer (8 significant bits), as ml_dtypes promotes them: bfloat16, not float32.
    if ((a.name === "bfloat16" && INT_BITS[b.name] === 8) || (b.name === "bfloat16" && INT_BITS[a.name] === 8)) return dtypes.bfloat16;
    const fa = a.kind === "f" ? a : floatOfInteger(a);
    const fb = b.kind === "f" ? b : floatOfInteger(b);
    return promoteFloats(fa, fb);
  }
  const ba = INT_BITS[a.name]!;
  const bb = INT_BITS[b.name]!;
  if (a.kind === b.kind) return a.kind === "i" ? signed(Math.max(ba, bb)) : unsigned(Math.max(ba, bb));
  const [sBits, uBits] = a.kind === "i" ? [ba, bb] : [bb, ba];
  if (uBits < sBits) return signed(sBits);
  return uBits < 64 ? signed(uBits * 2) : dtypes.float64;
}

/** How a weak scalar ranks: bool < integer < float < complex. */
function scalarKind(v: ArrayScalar): ScalarKind {
  if (typeof v === "boolean") return "b";
  if (typeof v === "bigint") return "i";
  // An integral number counts as an integer where some integer dtype could hold it ([-2^63, 2^64)); 1e20 is a float.
  if (typeof v === "number") return Number.isInteger(v) && v >= -(2 ** 63) && v < 2 ** 64 ? "i" : "f";
  if (Array.isArray(v) && v.length === 2 && typeof v[0] === "number" && typeof v[1] === "number") return "c";
  throw new DTypeError(`an operand is a DeviceArray, a dtype or a scalar (a number, a bigint, a boolean or [re, im]), got ${describeValue(v)}`);
}

const RANK = { b: 0, i: 1, u: 1, f: 2, c: 3 } as const;

/** The range of an integer dtype (or bool: 0 to 1), as bigints. */
export function integerRange(d: DType): [bigint, bigint] {
  if (d.kind === "b") return [0n, 1n];
  const bits = BigInt(INT_BITS[d.name]!);
  return d.kind === "i" ? [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n] : [0n, (1n << bits) - 1n];
}

/** The dtype weak scalars of kind `k` (the highest among an operation's scalars) meet the operands' dtype `d` with. */
function withScalarKind(d: DType, k: ScalarKind): DType {
  if (RANK[k] <= RANK[d.kind]) return d;
  switch (k) {
    case "i":
      return dtypes.int64;
    case "f":
      return dtypes.float64;
    default:
      return d.kind === "f" ? complexOf(d) : dtypes.complex128;
  }
}

/** Checks that an integer scalar fits the integer dtype `d` it is computed in (the result is not wrapped). */
function checkScalarRange(d: DType, v: ArrayScalar, what: string): void {
  const x = typeof v === "bigint" ? v : BigInt(v as number);
  const [lo, hi] = integerRange(d);
  if (x < lo || x > hi) {
    throw new DTypeError(`${what}: the scalar ${String(v)} is outside the ${d.name} range [${lo}, ${hi}]; convert the array first (astype) or pass a scalar in range`);
  }
}

/** Whether `x` is an operand with a dtype of its own (an array, a dtype or a dtype's name), not a weak scalar. */
function strongDType(x: PromotionOperand | DTypeName): DType | undefined {
  if (x instanceof DeviceArray) return x.dtype;
  if (typeof x === "string") return dtypeOf(x);
  if (typeof x === "object" && x !== null && !Array.isArray(x)) return dtypeOf(x as DType);
  return undefined;
}

/**
 * The dtype `operands` promote to (NumPy's `result_type`): the arrays' and dtypes' promotion (the floats and complex
 * first, as NumPy: promotion is not associative), then the weak scalars' as one, by the highest kind among them (see
 * the module's description), whatever their order. Scalars alone give NumPy's defaults (`1`: int64, `1.5`: float64).
 *
 * ```ts
 * resultType([dtypes.int8, 1000, 1.5]);   // float64: the float scalar lifts the result, so 1000 fits
 * resultType([x, 2]);                      // x.dtype for an integer or float x
 * resultType(["float32", 1]);              // float32
 * ```
 *
 * @throws DTypeError when no operand came, an operand is no dtype, array or scalar, or an integer scalar does not fit
 *   the integer dtype the operands compute in (NumPy's OverflowError).
 */
export function resultType(operands: readonly (PromotionOperand | DTypeName)[], what = "resultType"): DType {
  if (!Array.isArray(operands)) throw new TypeError(`${what}: expected an array of operands (arrays, dtypes or scalars), got ${describeValue(operands)}`);
  return promoteOperands(operands, what, false);
}

/**
 * @internal {@link resultType} for an operation that needs an array among its operands (its shape and stream come
 * from it): scalars alone are a {@link DTypeError} that says to make one of them an array.
 */
export function operationType(operands: readonly PromotionOperand[], what: string): DType {
  return promoteOperands(operands, what, true);
}

type ScalarKind = "b" | "i" | "f" | "c";

/** The dtype of each scalar kind alone (NumPy's defaults). */
const SCALAR_DEFAULTS: Readonly<Record<ScalarKind, DType>> = { b: dtypes.bool, i: dtypes.int64, f: dtypes.float64, c: dtypes.complex128 };

/**
 * One pass per group (the floats and complex first, then the rest) over the operands, allocating nothing: the strong
 * dtypes' promotion and the highest scalar kind, met at the end; integer scalars checked against an integer result.
 */
function promoteOperands(operands: readonly (PromotionOperand | DTypeName)[], what: string, needArray: boolean): DType {
  let d: DType | undefined;
  let k: ScalarKind | undefined;
  for (let pass = 0; pass < 2; pass++) {
    for (const x of operands) {
      const s = strongDType(x);
      if (s === undefined) {
        if (pass === 0) {
          const kv = scalarKind(x as ArrayScalar);
          if (k === undefined || RANK[kv] > RANK[k]) k = kv;
        }
      } else if ((s.kind === "f" || s.kind === "c") === (pass === 0)) {
        d = d === undefined ? s : promote(d, s);
      }
    }
  }
  if (d === undefined) {
    if (needArray) throw new DTypeError(`${what}: at least one operand must be a DeviceArray (or a dtype); only scalars came: make one of them an array`);
    if (k === undefined) throw new DTypeError(`${what}: expected at least one array, dtype or scalar, got none`);
    d = SCALAR_DEFAULTS[k];
    // Integer scalars alone past int64's range: uint64, as NumPy.
    if (k === "i" && operands.some((v) => scalarKind(v as ArrayScalar) === "i" && BigInt(v as number | bigint) > integerRange(dtypes.int64)[1])) d = dtypes.uint64;
  } else if (k !== undefined) {
    d = withScalarKind(d, k);
  }
  if (k !== undefined && k !== "b" && (d.kind === "i" || d.kind === "u")) {
    for (const x of operands) if (strongDType(x) === undefined && scalarKind(x as ArrayScalar) === "i") checkScalarRange(d, x as ArrayScalar, what);
  }
  return d;
}

/**
 * Whether a value of dtype `from` converts to `to` without loss of kind or range (NumPy's `can_cast(from, to,
 * "safe")`). An `out` array accepts more: {@link canCastSameKind}.
 */
export function canCastSafely(from: DType, to: DType): boolean {
  return promote(from, to) === to;
}

const SAME_KIND_ORDER = { b: 0, u: 1, i: 2, f: 3, c: 4 } as const;

/**
 * Whether a value of dtype `from` may be stored as `to` under NumPy's "same_kind" casting (`np.can_cast(from, to,
 * "same_kind")`): a safe cast, or one within a kind (float64 to float16, int64 to int8), or to a higher kind in the
 * order bool, unsigned, signed, float, complex (uint64 to int8 is allowed, int8 to uint8 is not, float to integer is
 * not). What an elementwise operation's `out` must accept.
 */
export function canCastSameKind(from: DType, to: DType): boolean {
  return SAME_KIND_ORDER[from.kind] <= SAME_KIND_ORDER[to.kind];
}
