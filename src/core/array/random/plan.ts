/**
 * What `cuda-ts/array/random` checks on the host before a draw (exported for tests, no GPU needed): seeds, dtypes,
 * and the bounds of `integers`.
 *
 * @module
 */
import { dtypeOf, type DType } from "../dtype.ts";
import { DTypeError } from "../errors.ts";
import { integerRange } from "../promotion.ts";
import { describeValue } from "../../../errors/describe.ts";

/** A seed: a non-negative integer below 2⁶⁴ as a bigint; undefined draws one from the platform's crypto source. */
export function seedArgument(seed: unknown, action: string): bigint {
  if (seed === undefined || seed === null) {
    const words = new Uint32Array(2);
    globalThis.crypto.getRandomValues(words);
    return (BigInt(words[0]!) << 32n) | BigInt(words[1]!);
  }
  const ok = typeof seed === "bigint" ? seed >= 0n && seed < 1n << 64n : typeof seed === "number" && Number.isSafeInteger(seed) && seed >= 0;
  if (!ok) throw new RangeError(`${action}: a seed is a non-negative integer below 2^64 (a number or a bigint), not ${describeValue(seed)}`);
  return BigInt(seed as number | bigint);
}

/** The dtype of a float draw: float32 or float64 (default). */
export function randomDtype(dtype: unknown, action: string): DType {
  if (dtype === undefined) return dtypeOf("float64");
  let d: DType;
  try {
    d = dtypeOf(dtype as "float64");
  } catch {
    throw new DTypeError(`${action}: dtype is "float32" or "float64", not ${describeValue(dtype)}`);
  }
  if (d.name !== "float32" && d.name !== "float64") throw new DTypeError(`${action}: draws floats of float32 or float64, not ${d.name}`);
  return d;
}

function toBigInt(v: unknown, name: string, action: string): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isSafeInteger(v)) return BigInt(v);
  throw new TypeError(`${action}: ${name} must be an integer (a safe-integer number or a bigint), not ${describeValue(v)}`);
}

/**
 * The kernel's arguments of `integers(low, high)` for `dtype`: `lo` (low as 64-bit two's complement) and `span`
 * (how many values). NumPy's rules: one bound means [0, low); the range must be non-empty and inside the dtype's.
 */
export function integerBounds(low: unknown, high: unknown, endpoint: boolean, dtype: DType, action: string): { lo: bigint; span: bigint } {
  if (dtype.kind !== "i" && dtype.kind !== "u" && dtype.kind !== "b") throw new DTypeError(`${action}: draws integers of an integer dtype or bool, not ${dtype.name}`);
  let lo = toBigInt(low, "low", action);
  let hi: bigint;
  if (high === undefined || high === null) {
    hi = lo;
    lo = 0n;
  } else {
    hi = toBigInt(high, "high", action);
  }
  const last = endpoint ? hi : hi - 1n;
  if (last < lo) throw new RangeError(`${action}: the range is empty (low ${lo}, high ${hi}${endpoint ? " included" : " excluded"}); high must exceed low`);
  const [min, max] = integerRange(dtype);
  if (lo < min || last > max) throw new RangeError(`${action}: [${lo}, ${last}] is outside the ${dtype.name} range [${min}, ${max}]`);
  const span = last - lo + 1n;
  if (span >= 1n << 64n) throw new RangeError(`${action}: a range of 2^64 values is not drawn here; narrow it by one`);
  return { lo: BigInt.asUintN(64, lo), span };
}
