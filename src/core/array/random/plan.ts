/**
 * What `cuda-ts/array/random` checks on the host before a draw (exported for tests, no GPU needed): seeds, dtypes,
 * the bounds of `integers`, and the arguments of `permutation` and `choice`.
 *
 * @module
 */
import { DeviceArray } from "../device-array.ts";
import { dtypeOf, type DType } from "../dtype.ts";
import { ArrayLayoutError, DTypeError, ShapeMismatchError } from "../errors.ts";
import { normalizeAxis } from "../broadcast.ts";
import { elementCount } from "../layout.ts";
import { shapeArgument } from "../math-shared.ts";
import { integerRange } from "../promotion.ts";
import { describeValue } from "../../../errors/describe.ts";
import { UnsupportedError } from "../../../errors/base.ts";

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

/** A population's size or a permutation's length: a non-negative integer (a safe-integer number or a bigint below 2⁵³). */
export function countArgument(x: unknown, name: string, action: string): number {
  const n = typeof x === "bigint" && x >= 0n && x <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(x) : x;
  if (typeof n !== "number" || !Number.isSafeInteger(n)) {
    throw new TypeError(`${action}: ${name} is a DeviceArray or a non-negative integer (a safe-integer number or a bigint), not ${describeValue(x)}`);
  }
  if (n < 0) throw new RangeError(`${action}: ${name} must be non-negative, not ${n}`);
  return n;
}

/** The array a permutation or a choice draws from: open, with at least one axis; and the axis (default 0). */
export function populationAxis(x: DeviceArray, axis: unknown, name: string, action: string): number {
  if (x.isClosed) throw new ArrayLayoutError(`${action}: ${name} (${x.dtype.name} [${x.shape.join(", ")}]) was closed`);
  if (x.ndim === 0) throw new ShapeMismatchError(`${action}: ${name} is an integer or an array of at least one axis, got a 0-d array`);
  return normalizeAxis(axis ?? 0, x.ndim, action);
}

/** What `choice` takes besides the population and the size (see random.ts, ChoiceOptions). */
export interface ChoiceArguments {
  readonly replace?: unknown;
  readonly p?: unknown;
  readonly axis?: unknown;
  readonly shuffle?: unknown;
}

/** What `choice` draws: from `n` entries (along `axis` of an array), `count` of them in `shape`. */
export interface ChoicePlan {
  readonly n: number;
  readonly axis: number;
  readonly shape: number[];
  readonly count: number;
  readonly replace: boolean;
  readonly p: DeviceArray | undefined;
}

/**
 * The checks of `choice` (NumPy's rules, on the host): the population (an integer n, or an array and the axis drawn
 * along), the size, `replace` and `shuffle` booleans, `p` a 1-d real float array of one probability per entry; a
 * sample without replacement no larger than the population; none at all from an empty one.
 */
export function choicePlan(a: unknown, size: unknown, options: ChoiceArguments | undefined, action: string): ChoicePlan {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError(`${action} takes its options as an object ({ replace?, p?, axis?, shuffle?, stream? }), not ${describeValue(options)}`);
  }
  const array = a instanceof DeviceArray ? a : undefined;
  const axis = array === undefined ? 0 : populationAxis(array, options?.axis, "a", action);
  const n = array === undefined ? countArgument(a, "a", action) : array.shape[axis]!;
  const shape = shapeArgument(size, action);
  const count = elementCount(shape);
  for (const key of ["replace", "shuffle"] as const) {
    const v = options?.[key];
    if (v !== undefined && typeof v !== "boolean") throw new TypeError(`${action}: ${key} is a boolean, not ${describeValue(v)}`);
  }
  const replace = (options?.replace as boolean | undefined) ?? true;
  const p = options?.p === undefined ? undefined : probabilities(options.p, n, action);
  if (p !== undefined && !replace) {
    throw new UnsupportedError(`${action}: a sample without replacement with probabilities p is not supported yet; draw with replacement, or without p`);
  }
  if (count > 0 && n === 0) throw new RangeError(`${action}: ${array === undefined ? "a must be positive" : "a cannot be empty"} unless no samples are taken (the size asks for ${count})`);
  if (!replace && count > n) throw new RangeError(`${action}: cannot take a larger sample than the population when replace is false (${count} from ${n})`);
  return { n, axis, shape, count, replace, p };
}

/** Checks `p`: a 1-d array of a real float dtype with `n` entries. */
function probabilities(p: unknown, n: number, action: string): DeviceArray {
  if (!(p instanceof DeviceArray)) throw new TypeError(`${action}: p is a DeviceArray of probabilities, not ${describeValue(p)}`);
  if (p.isClosed) throw new ArrayLayoutError(`${action}: p (${p.dtype.name} [${p.shape.join(", ")}]) was closed`);
  if (p.dtype.kind !== "f") throw new DTypeError(`${action}: p holds probabilities of a float dtype (float32 or float64), not ${p.dtype.name}`);
  if (p.ndim !== 1 || p.size !== n) throw new ShapeMismatchError(`${action}: p is 1-d with one probability per entry of a ([${n}]), got shape [${p.shape.join(", ")}]`);
  return p;
}
