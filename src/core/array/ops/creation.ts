/**
 * Creating arrays, as NumPy's functions of the same names: `empty`, `zeros`, `ones`, `full`, the `*Like` forms,
 * `arange`, `linspace`, `logspace`, `geomspace`, `eye`, `identity`, `tri`, `tril`, `triu`, `diag`, `vander`,
 * `asarray` / `array` from nested JavaScript arrays, typed arrays or DeviceArrays, and `copy` / `ascontiguousarray` of
 * a DeviceArray.
 *
 * ```ts
 * const z = zeros([3, 4], { stream, dtype: "float32" });   // memset
 * const r = arange(0, 1, 0.25, { stream });                 // float64 [0, 0.25, 0.5, 0.75]
 * const x = asarray([[1, 2], [3, 4]], { stream });          // int64 [2, 2]
 * const l = tril(x);                                        // on x.stream
 * ```
 *
 * Functions without an array operand need `{ stream }`; the `*Like` functions and those of an array run on its
 * stream unless given one. Dtypes default as NumPy's (float64 for `zeros`, `arange` int64 when every argument is
 * an integer, `full` from its value). Zeros, ones and `full` use memset where the element width allows it.
 *
 * @module
 */
import { DeviceArray, encodeElement, operationStream, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import { decodeBFloat16, decodeHalf, dtypeOf, dtypeOfHostArray, dtypes, encodeBFloat16, encodeHalf, type DType, type DTypeName, type HostArray } from "../dtype.ts";
import { DTypeError, ShapeMismatchError, ArrayLayoutError } from "../errors.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { checkShape, diagonalLayout, elementCount } from "../layout.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { mul, pow } from "./arithmetic.ts";
import { castInto } from "./cast.ts";
import { cumprod } from "./scan.ts";
import { promoteTypes } from "../promotion.ts";
import { INTERNAL } from "../../base/internal.ts";
import type { Stream } from "../../stream.ts";
import type { CreationOptions, DTypeArgument } from "../options.ts";
import type { MemoryResource } from "../../memory/resource.ts";

export type { CreationOptions } from "../options.ts";

/** A shape: one extent or a list of them. */
export type ShapeArgument = number | readonly number[];

/** Options of the `*Like` functions: the prototype's dtype and shape unless given, its stream unless given. */
export interface LikeOptions<N extends DTypeName = DTypeName> extends CreationOptions<N> {
  /** The shape (default: the prototype's). */
  readonly shape?: ShapeArgument;
}

/** Options of `linspace`. */
export interface LinspaceOptions<N extends DTypeName = DTypeName> extends CreationOptions<N> {
  /** Whether `stop` is the last value (default true); false: `num` values spaced by `(stop - start) / num`. */
  readonly endpoint?: boolean;
}

/** Options of `logspace`: `linspace`'s, and the base. */
export interface LogspaceOptions<N extends DTypeName = DTypeName> extends LinspaceOptions<N> {
  /** The base raised to each exponent (default 10). */
  readonly base?: number;
}

/** Options of `eye` and `tri`: the columns and the diagonal. */
export interface EyeOptions<N extends DTypeName = DTypeName> extends CreationOptions<N> {
  /** The number of columns (default: `n`). */
  readonly m?: number;
  /** The diagonal: 0 the main one, positive above it, negative below (default 0). */
  readonly k?: number;
}

/** Options of `tril`, `triu` and `diag`: the diagonal and the stream. */
export interface DiagonalOptions extends CreationOptions {
  /** The diagonal: 0 the main one, positive above it, negative below (default 0). */
  readonly k?: number;
}

/** Options of `asarray` and `array`. */
export interface AsArrayOptions<N extends DTypeName = DTypeName> extends CreationOptions<N> {
  /** The shape (default: the nested lists' shape, a typed array's length, a DeviceArray's shape). */
  readonly shape?: ShapeArgument;
}

/** Nested JavaScript arrays of numbers, bigints and booleans (a scalar is a 0-d array). */
export type NestedData = number | bigint | boolean | readonly NestedData[];

// ---- helpers ----

function allocate<N extends DTypeName>(action: string, shape: ShapeArgument, dtype: DType<N>, options: CreationOptions | undefined, stream: Stream): DeviceArray<N> {
  const sh = checkShape(shape, `${action}: shape`);
  return DeviceArray.empty(sh, dtype, { stream, ...(options?.memoryResource !== undefined ? { memoryResource: options.memoryResource } : {}) });
}

function checkOptionsObject(options: unknown, action: string): void {
  if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) {
    throw new ArgumentError(`${action} takes its options as an object ({ stream, dtype?, ... }), not ${describeValue(options)}`);
  }
}

function dtypeOption(options: { readonly dtype?: DTypeArgument } | undefined, fallback: DType): DType {
  return options?.dtype === undefined ? fallback : dtypeOf(options.dtype);
}

function checkInteger(v: unknown, what: string, min = -Infinity): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < min) {
    throw new ArgumentError(`${what} is ${min === 0 ? "a non-negative integer" : "an integer"}, got ${describeValue(v)}`);
  }
  return v;
}

function checkArray(a: unknown, action: string): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${action} takes a DeviceArray, not ${describeValue(a)}`);
  if (a.isClosed) throw new ArrayLayoutError(`${action}: the array was closed`);
  return a;
}

/**
 * The dtype `full` gives a value when none is named (NumPy's for the corresponding Python value): a boolean bool, a
 * bigint or an integer-valued number int64, any other number float64, `[re, im]` complex128. A whole number past
 * 2^53 (`1e20`) is float64: a JavaScript number that large is a double, not a count (a bigint is int64).
 */
export function scalarDType(value: ArrayScalar): DType {
  if (typeof value === "boolean") return dtypes.bool;
  if (typeof value === "bigint") return dtypes.int64;
  if (typeof value === "number") return Number.isSafeInteger(value) ? dtypes.int64 : dtypes.float64;
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === "number" && typeof value[1] === "number") return dtypes.complex128;
  throw new DTypeError(`a fill value is a number, a bigint, a boolean or [re, im], got ${describeValue(value)}`);
}

/**
 * `value` as an element of `dtype` is written (NumPy's cast of a Python scalar): fractional numbers into integer
 * dtypes truncate toward zero, booleans are 0 or 1, bigints become numbers for float dtypes, a number is the real part
 * of a complex. A complex value for a real dtype, and an integer outside an integer dtype's range, are DTypeErrors.
 */
export function castScalar(value: ArrayScalar, dtype: DType): ArrayScalar {
  if (Array.isArray(value)) {
    if (dtype.kind !== "c") throw new DTypeError(`a complex value [${String(value)}] cannot fill a ${dtype.name} array (it would drop the imaginary part); take its real part, or use a complex dtype`);
    return value;
  }
  if (dtype.kind === "b") return typeof value === "bigint" ? value !== 0n : Boolean(value);
  if (dtype.kind === "c") return typeof value === "bigint" ? Number(value) : Number(value);
  if (dtype.kind === "f") return typeof value === "bigint" ? Number(value) : Number(value);
  // integers
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "number") {
    if (Number.isNaN(value) || !Number.isFinite(value)) throw new DTypeError(`${String(value)} cannot be a ${dtype.name} element (not a finite number)`);
    const t = Math.trunc(value);
    return (dtype.name === "int64" || dtype.name === "uint64") && !Number.isSafeInteger(t) ? BigInt(t) : t;
  }
  if (dtype.name === "int64" || dtype.name === "uint64") return value;
  return Number(value);
}

// ---- empty, zeros, ones, full ----

/** An uninitialised array of `shape` (default dtype float64), on `options.stream`. */
export function empty<N extends DTypeName = "float64">(shape: ShapeArgument, options: CreationOptions<N>): DeviceArray<N> {
  checkOptionsObject(options, "empty");
  const dt = dtypeOption(options, dtypes.float64) as DType<N>;
  const sh = checkShape(shape, "empty: shape");
  return allocate("empty", sh, dt, options, operationStream("empty", options, []));
}

/** An array of `shape` filled with zeros (default dtype float64; a memset), on `options.stream`. */
export function zeros<N extends DTypeName = "float64">(shape: ShapeArgument, options: CreationOptions<N>): DeviceArray<N> {
  checkOptionsObject(options, "zeros");
  const dt = dtypeOption(options, dtypes.float64) as DType<N>;
  const sh = checkShape(shape, "zeros: shape");
  const stream = operationStream("zeros", options, []);
  return DeviceArray.zeros(sh, dt, { stream, ...(options.memoryResource !== undefined ? { memoryResource: options.memoryResource } : {}) });
}

/** An array of `shape` filled with ones (default dtype float64; a memset where the width allows), on `options.stream`. */
export function ones<N extends DTypeName = "float64">(shape: ShapeArgument, options: CreationOptions<N>): DeviceArray<N> {
  checkOptionsObject(options, "ones");
  const dt = dtypeOption(options, dtypes.float64) as DType<N>;
  const sh = checkShape(shape, "ones: shape");
  const stream = operationStream("ones", options, []);
  return DeviceArray.full(sh, castScalar(1, dt), dt, { stream, ...(options.memoryResource !== undefined ? { memoryResource: options.memoryResource } : {}) });
}

/**
 * An array of `shape` with every element `value`, on `options.stream`. The dtype defaults to the value's as NumPy's
 * (`full(s, 3)` int64, `full(s, 3.5)` float64, `full(s, true)` bool, `full(s, 3n)` int64, `full(s, [1, 2])`
 * complex128); a value of another kind is cast to a given dtype (see {@link castScalar}).
 */
export function full<N extends DTypeName = DTypeName>(shape: ShapeArgument, value: ArrayScalar, options: CreationOptions<N>): DeviceArray<N> {
  checkOptionsObject(options, "full");
  const dt = (options?.dtype === undefined ? scalarDType(value) : dtypeOf(options.dtype)) as DType<N>;
  const v = castScalar(value, dt);
  encodeElement(dt, v); // range checked before the stream is used
  const sh = checkShape(shape, "full: shape");
  const stream = operationStream("full", options, []);
  return DeviceArray.full(sh, v, dt, { stream, ...(options.memoryResource !== undefined ? { memoryResource: options.memoryResource } : {}) });
}

function likeArgs(action: string, prototype: DeviceArray, options: LikeOptions | undefined): { shape: number[]; dtype: DType; stream: Stream; alloc: { stream: Stream; memoryResource?: LikeOptions["memoryResource"] } } {
  checkArray(prototype, action);
  checkOptionsObject(options, action);
  const dtype = dtypeOption(options, prototype.dtype);
  const shape = options?.shape === undefined ? [...prototype.shape] : checkShape(options.shape, `${action}: shape`);
  const stream = operationStream(action, options, [prototype]);
  return { shape, dtype, stream, alloc: { stream, ...(options?.memoryResource !== undefined ? { memoryResource: options.memoryResource } : {}) } };
}

/** An uninitialised array of `prototype`'s shape and dtype (unless given), on its stream (unless given). */
export function emptyLike(prototype: DeviceArray, options?: LikeOptions): DeviceArray {
  const { shape, dtype, alloc } = likeArgs("emptyLike", prototype, options);
  return DeviceArray.empty(shape, dtype, alloc);
}

/** Zeros of `prototype`'s shape and dtype (unless given), on its stream (unless given). */
export function zerosLike(prototype: DeviceArray, options?: LikeOptions): DeviceArray {
  const { shape, dtype, alloc } = likeArgs("zerosLike", prototype, options);
  return DeviceArray.zeros(shape, dtype, alloc);
}

/** Ones of `prototype`'s shape and dtype (unless given), on its stream (unless given). */
export function onesLike(prototype: DeviceArray, options?: LikeOptions): DeviceArray {
  const { shape, dtype, alloc } = likeArgs("onesLike", prototype, options);
  return DeviceArray.full(shape, castScalar(1, dtype), dtype, alloc);
}

/** `value` in every element, of `prototype`'s shape and dtype (unless given), on its stream (unless given). */
export function fullLike(prototype: DeviceArray, value: ArrayScalar, options?: LikeOptions): DeviceArray {
  checkArray(prototype, "fullLike");
  checkOptionsObject(options, "fullLike");
  const v = castScalar(value, dtypeOption(options, prototype.dtype));
  encodeElement(dtypeOption(options, prototype.dtype), v); // range checked before the stream is used
  const { shape, dtype, alloc } = likeArgs("fullLike", prototype, options);
  return DeviceArray.full(shape, v, dtype, alloc);
}

// ---- arange, linspace ----

/**
 * What `arange` computes (exported for tests: no GPU), as NumPy's `arange` fills its result: the first two values
 * are `start` and `start + step` converted to the dtype, and element `i` (from 2) is `v0 + i * delta` with
 * `delta = v1 - v0`, in the dtype's arithmetic (int64 arithmetic then wrapped for integers, float for float32,
 * float16 and bfloat16, double for float64).
 */
export interface ArangePlan {
  readonly length: number;
  readonly dtype: DType;
  /** The arithmetic of the kernel: integers, float or double. */
  readonly compute: "int64" | "float32" | "float64";
  /** The first value, the second, and their difference (in the compute type). */
  readonly v0: number | bigint;
  readonly v1: number | bigint;
  readonly delta: number | bigint;
}

type RangeNumber = number | bigint;

/** `arange`'s arguments: `(stop, options)`, `(start, stop, options)` or `(start, stop, step, options)`. */
export type ArangeArguments =
  | [stop: number | bigint, options: CreationOptions]
  | [start: number | bigint, stop: number | bigint, options: CreationOptions]
  | [start: number | bigint, stop: number | bigint, step: number | bigint, options: CreationOptions];

const isRangeNumber = (v: unknown): v is RangeNumber => (typeof v === "number" && !Number.isNaN(v)) || typeof v === "bigint";

/** `x` rounded to the float dtype `d` (as a number). */
function roundTo(d: DType, x: number): number {
  if (d.name === "float32") return Math.fround(x);
  if (d.name === "float16") return decodeHalf(encodeHalf(x));
  if (d.name === "bfloat16") return decodeBFloat16(encodeBFloat16(x));
  return x;
}

/** `x` (a whole number) as an element of the integer dtype `d`: a DTypeError outside its range, as NumPy 2's. */
function integerOf(d: DType, x: bigint, what: string): bigint {
  const bits = BigInt(d.itemsize * 8);
  const [lo, hi] = d.kind === "i" ? [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n] : [0n, (1n << bits) - 1n];
  if (x < lo || x > hi) throw new DTypeError(`arange: ${what} ${x} is outside the ${d.name} range (${lo} to ${hi})`);
  return x;
}

/**
 * The plan of `arange(start, stop, step)` (exported for tests): int64 when every argument is an integer (a bigint or
 * an integer-valued number), float64 otherwise (or the dtype given); `ceil((stop - start) / step)` elements (none
 * when that is negative); the values as {@link ArangePlan} describes. A step of 0, a non-finite argument, a complex
 * dtype, a bool range of more than two elements and a length beyond 2^53 are refused.
 */
export function arangePlan(start: RangeNumber, stop: RangeNumber, step: RangeNumber, dtype?: DTypeArgument): ArangePlan {
  for (const [name, v] of [["start", start], ["stop", stop], ["step", step]] as const) {
    if (!isRangeNumber(v) || (typeof v === "number" && !Number.isFinite(v))) throw new ArgumentError(`arange: ${name} is a finite number or a bigint, got ${describeValue(v)}`);
  }
  const ints = [start, stop, step].every((v) => typeof v === "bigint" || Number.isInteger(v));
  const dt = dtype === undefined ? (ints ? dtypes.int64 : dtypes.float64) : dtypeOf(dtype);
  if (dt.kind === "c") throw new DTypeError("arange: complex ranges are not supported; make a real range and convert it with astype");
  let length: number;
  if (ints) {
    const [a, b, s] = [BigInt(start), BigInt(stop), BigInt(step)];
    if (s === 0n) throw new ArgumentError("arange: step is 0; a range needs a non-zero step");
    const span = b - a;
    // ceil(span / s) for either sign of s.
    let n = span / s;
    if (n * s !== span && span > 0n === s > 0n) n += 1n;
    if (n < 0n) n = 0n;
    if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new ArgumentError(`arange: ${n} elements are too many`);
    length = Number(n);
  } else {
    const [a, b, s] = [Number(start), Number(stop), Number(step)];
    if (s === 0) throw new ArgumentError("arange: step is 0; a range needs a non-zero step");
    length = Math.max(0, Math.ceil((b - a) / s));
    if (!Number.isSafeInteger(length)) throw new ArgumentError(`arange: ${length} elements are too many`);
  }
  if (dt.kind === "b" && length > 2) throw new DTypeError(`arange: a bool range holds at most two elements (False, True), this one ${length}; make an integer range and compare it`);
  if (dt.kind === "f") {
    const compute = dt.name === "float64" ? "float64" : "float32";
    const v0 = roundTo(dt, Number(start));
    const v1 = roundTo(dt, ints ? Number(BigInt(start) + BigInt(step)) : Number(start) + Number(step));
    const delta = compute === "float32" ? Math.fround(v1 - v0) : v1 - v0;
    return { length, dtype: dt, compute, v0, v1, delta };
  }
  // Integers and bool: the first two values truncated to integers, then int64 arithmetic, wrapped by the final cast.
  const whole = (x: RangeNumber): bigint => (typeof x === "bigint" ? x : BigInt(Math.trunc(x)));
  const first = whole(start);
  const second = ints ? BigInt(start) + BigInt(step) : whole(Number(start) + Number(step));
  if (dt.kind === "b") {
    return { length, dtype: dt, compute: "int64", v0: first !== 0n ? 1n : 0n, v1: second !== 0n ? 1n : 0n, delta: 0n };
  }
  const v0 = integerOf(dt, first, "start");
  const v1 = length > 1 ? integerOf(dt, second, "start + step") : v0;
  return { length, dtype: dt, compute: "int64", v0: BigInt.asIntN(64, v0), v1: BigInt.asIntN(64, v1), delta: BigInt.asIntN(64, v1 - v0) };
}

const rangeKernels = new Map<string, ElementwiseKernel>();

/** @internal Exported for tests (the generated source): `arange`'s kernel for a compute type. */
export function rangeKernel(compute: ArangePlan["compute"]): ElementwiseKernel {
  let k = rangeKernels.get(compute);
  if (k === undefined) {
    // Element i >= 2 is v0 + i * delta, rounded as NumPy's loop rounds it (no fused multiply-add).
    const next =
      compute === "int64"
        ? "v0 + (long long)i * delta"
        : compute === "float32"
          ? "__fadd_rn(v0, __fmul_rn((float)i, delta))"
          : "__dadd_rn(v0, __dmul_rn((double)i, delta))";
    k = new ElementwiseKernel(`${compute} v0, ${compute} v1, ${compute} delta`, "T y", `y = (T)(i == 0 ? v0 : i == 1 ? v1 : ${next})`, `cuda_ts_arange_${compute}`);
    rangeKernels.set(compute, k);
  }
  return k;
}

/**
 * Evenly spaced values in `[start, stop)`, as NumPy's `arange`: `arange(stop, options)`, `arange(start, stop,
 * options)`, `arange(start, stop, step, options)`. int64 when every argument is an integer, float64 otherwise (or
 * `options.dtype`); the values as NumPy computes them (see {@link ArangePlan}).
 *
 * ```ts
 * arange(5, { stream });                   // int64 [0, 1, 2, 3, 4]
 * arange(1, 2, 0.25, { stream, dtype: "float32" });
 * ```
 */
export function arange(...args: ArangeArguments): DeviceArray {
  const list = [...args] as unknown[];
  const last = list[list.length - 1];
  const options = (typeof last === "object" && last !== null ? list.pop() : undefined) as CreationOptions | undefined;
  checkOptionsObject(options, "arange");
  const nums = list as RangeNumber[];
  if (nums.length < 1 || nums.length > 3) throw new ArgumentError(`arange takes (stop), (start, stop) or (start, stop, step), then options; got ${nums.length} numbers`);
  const [start, stop, step] = nums.length === 1 ? [0, nums[0]!, 1] : [nums[0]!, nums[1]!, nums[2] ?? 1];
  const plan = arangePlan(start, stop, step, options?.dtype);
  const stream = operationStream("arange", options, []);
  const out = allocate("arange", [plan.length], plan.dtype, options, stream);
  if (plan.length > 0) rangeKernel(plan.compute).launch(stream, plan.v0, plan.v1, plan.delta, out);
  return out;
}

/**
 * Element `i` of `linspace(start, stop, num, { endpoint })` in float64, as NumPy computes it (exported for tests;
 * the kernel computes the same expression): `start + i * step` with `step = (stop - start) / div` (`div = num - 1`
 * with the endpoint, `num` without), `(i / div) * delta` when the step is 0, the last element exactly `stop` with the
 * endpoint.
 */
export function linspaceValue(i: number, start: number, stop: number, num: number, endpoint: boolean): number {
  const div = endpoint ? num - 1 : num;
  const delta = stop - start;
  const step = delta / div;
  if (endpoint && num > 1 && i === num - 1) return stop;
  if (div <= 0) return start;
  return (step === 0 ? (i / div) * delta : i * step) + start;
}

/** The C++ of {@link linspaceValue} (a double `_ct_v` from `i` and the scalars start, stop, num, endp). */
const LINSPACE_BODY = [
  "const double _ct_div = endp ? (double)(num - 1) : (double)num;",
  "const double _ct_delta = stop - start;",
  "const double _ct_step = _ct_delta / _ct_div;",
  "double _ct_v;",
  "if (endp && num > 1 && (long long)i == num - 1) _ct_v = stop;",
  "else if (_ct_div <= 0.0) _ct_v = start;",
  "else _ct_v = __dadd_rn(_ct_step == 0.0 ? __dmul_rn((double)i / _ct_div, _ct_delta) : __dmul_rn((double)i, _ct_step), start);",
].join(" ");

const linspaceKernels = new Map<string, ElementwiseKernel>();

/** @internal The kernel of `linspace` (exported for tests: the generated source). */
export function linspaceKernel(integer: boolean): ElementwiseKernel {
  const key = integer ? "int" : "float";
  let k = linspaceKernels.get(key);
  if (k === undefined) {
    // Integer dtypes take the floor, as NumPy's linspace does before casting.
    const write = integer ? "y = (T)floor(_ct_v);" : "y = (T)(_ct_v);";
    k = new ElementwiseKernel("float64 start, float64 stop, int64 num, bool endp", "T y", `${LINSPACE_BODY} ${write}`, `cuda_ts_linspace_${key}`);
    linspaceKernels.set(key, k);
  }
  return k;
}

/**
 * `num` evenly spaced values from `start` to `stop` (with it unless `endpoint: false`), as NumPy's `linspace`:
 * float64 by default; integer dtypes take the floor of each value.
 *
 * ```ts
 * linspace(0, 1, 5, { stream });           // [0, 0.25, 0.5, 0.75, 1]
 * ```
 */
export function linspace<N extends DTypeName = "float64">(start: number, stop: number, num: number, options: LinspaceOptions<N>): DeviceArray<N> {
  checkOptionsObject(options, "linspace");
  for (const [name, v] of [["start", start], ["stop", stop]] as const) {
    if (typeof v !== "number") throw new ArgumentError(`linspace: ${name} is a number, got ${describeValue(v)}`);
  }
  checkInteger(num, "linspace: num", 0);
  const endpoint = options?.endpoint ?? true;
  if (typeof endpoint !== "boolean") throw new ArgumentError(`linspace: endpoint is a boolean, got ${describeValue(endpoint)}`);
  const dt = dtypeOption(options, dtypes.float64) as DType<N>;
  if (dt.kind === "c") throw new DTypeError("linspace: complex results are not supported; make a real range and convert it with astype");
  const stream = operationStream("linspace", options, []);
  const out = allocate("linspace", [num], dt, options, stream);
  if (num > 0) linspaceKernel(dt.kind === "i" || dt.kind === "u").launch(stream, start, stop, num, endpoint, out);
  return out;
}

/** The count and options of `logspace` and `geomspace` (`num` may be left out: 50), checked. */
function spaceArguments<O extends LinspaceOptions>(action: string, start: unknown, stop: unknown, numOrOptions: number | O, maybeOptions: O | undefined): { num: number; options: O; endpoint: boolean } {
  const given = typeof numOrOptions === "number";
  if (!given && maybeOptions !== undefined) throw new ArgumentError(`${action}: num is a count (a non-negative integer), got ${describeValue(numOrOptions)}`);
  const options = (given ? maybeOptions : numOrOptions) as O;
  if (options === undefined || options === null) throw new ArgumentError(`${action} takes its options last ({ stream, ... }), got ${describeValue(options)}`);
  checkOptionsObject(options, action);
  for (const [name, v] of [["start", start], ["stop", stop]] as const) {
    if (typeof v !== "number") throw new ArgumentError(`${action}: ${name} is a number, got ${describeValue(v)}`);
  }
  const num = given ? checkInteger(numOrOptions, `${action}: num`, 0) : 50;
  const endpoint = options.endpoint ?? true;
  if (typeof endpoint !== "boolean") throw new ArgumentError(`${action}: endpoint is a boolean, got ${describeValue(endpoint)}`);
  return { num, options, endpoint };
}

/** `y` (float64) as `dtype`, in a new array from the options' memory resource; `y` itself when nothing changes. */
function deliverSpace<N extends DTypeName>(action: string, y: DeviceArray, dtype: DType<N>, options: CreationOptions, stream: Stream): DeviceArray<N> {
  if (dtype === dtypes.float64 && options.memoryResource === undefined) return y as DeviceArray<N>;
  try {
    const out = allocate(action, y.shape, dtype, options, stream);
    castInto(stream, y, out);
    return out;
  } finally {
    y.close(stream);
  }
}

/**
 * `num` (default 50) values spaced evenly on a log scale, `base ** linspace(start, stop, num, { endpoint })`, as
 * NumPy's `logspace`: from `base ** start` to `base ** stop` (with it unless `endpoint: false`). Computed in float64
 * (`linspace`, then `pow`: CUDA's pow, within an ulp or two of the C library's NumPy calls), then converted to
 * `dtype` (default float64) as `astype` converts (integers truncate toward zero; complex dtypes take the values as
 * real parts). A negative base gives NaN where the exponent is not an integer, as NumPy's.
 *
 * ```ts
 * logspace(0, 3, 4, { stream });                  // [1, 10, 100, 1000]
 * logspace(0, 1, 5, { stream, base: 2 });         // [1, 1.189, 1.414, 1.682, 2]
 * ```
 */
export function logspace<N extends DTypeName = "float64">(start: number, stop: number, options: LogspaceOptions<N>): DeviceArray<N>;
export function logspace<N extends DTypeName = "float64">(start: number, stop: number, num: number, options: LogspaceOptions<N>): DeviceArray<N>;
export function logspace<N extends DTypeName = "float64">(start: number, stop: number, numOrOptions: number | LogspaceOptions<N>, maybeOptions?: LogspaceOptions<N>): DeviceArray<N> {
  const action = "logspace";
  const { num, options, endpoint } = spaceArguments(action, start, stop, numOrOptions, maybeOptions);
  const base = options.base ?? 10;
  if (typeof base !== "number") throw new ArgumentError(`${action}: base is a number, got ${describeValue(base)}`);
  const dt = dtypeOption(options, dtypes.float64) as DType<N>;
  const stream = operationStream(action, options, []);
  const y = linspace(start, stop, num, { stream, endpoint });
  try {
    if (num > 0) pow(base, y, { stream, out: y });
  } catch (e) {
    y.close(stream);
    throw e;
  }
  return deliverSpace(action, y, dt, options, stream);
}

/**
 * `num` (default 50) values in a geometric progression from `start` to `stop` (with it unless `endpoint: false`), as
 * NumPy's `geomspace`: each a constant multiple of the one before. Computed as NumPy does, in float64: `start`'s
 * sign is taken out (both ends divided by it), the values are `logspace(log10(|start|), log10(stop / sign), num)`,
 * the first set exactly to `start` and the last (with the endpoint) exactly to `stop`, and the sign put back; then
 * converted to `dtype` (default float64) as `astype` converts (integers truncate toward zero, as NumPy's: a value
 * a hair under an integer truncates to the one below, so integer results can differ from NumPy's where CUDA's pow
 * rounds the other way). Negative ends give a negative progression; ends of two signs give NaN between them (NumPy
 * warns and gives NaN too). A zero end is an ArgumentError (NumPy's ValueError); complex dtypes are a DTypeError
 * (NumPy computes complex progressions: make a real one and `astype` it where the ends share a sign).
 *
 * ```ts
 * geomspace(1, 1000, 4, { stream });              // [1, 10, 100, 1000]
 * geomspace(-1, -1000, 4, { stream });            // [-1, -10, -100, -1000]
 * ```
 */
export function geomspace<N extends DTypeName = "float64">(start: number, stop: number, options: LinspaceOptions<N>): DeviceArray<N>;
export function geomspace<N extends DTypeName = "float64">(start: number, stop: number, num: number, options: LinspaceOptions<N>): DeviceArray<N>;
export function geomspace<N extends DTypeName = "float64">(start: number, stop: number, numOrOptions: number | LinspaceOptions<N>, maybeOptions?: LinspaceOptions<N>): DeviceArray<N> {
  const action = "geomspace";
  const { num, options, endpoint } = spaceArguments(action, start, stop, numOrOptions, maybeOptions);
  if (start === 0 || stop === 0) throw new ArgumentError(`${action}: a geometric sequence cannot include zero (${start === 0 ? "start" : "stop"} is 0); give ends of one sign, both non-zero`);
  const dt = dtypeOption(options, dtypes.float64) as DType<N>;
  if (dt.kind === "c") throw new DTypeError(`${action}: complex results are not supported; make a real progression and convert it with astype`);
  // As NumPy's: start's sign taken out, so that negative ends give a negative progression.
  const sign = Math.sign(start);
  const first = start / sign;
  const last = stop / sign;
  const stream = operationStream(action, options, []);
  const y = linspace(Math.log10(first), Math.log10(last), num, { stream, endpoint });
  try {
    if (num > 0) {
      pow(10, y, { stream, out: y });
      // The ends exactly (10 ** log10(x) need not be x).
      y.slice([0, 1]).fill(first, { stream });
      if (num > 1 && endpoint) y.slice([num - 1, num]).fill(last, { stream });
      if (sign !== 1) mul(y, sign, { stream, out: y });
    }
  } catch (e) {
    y.close(stream);
    throw e;
  }
  return deliverSpace(action, y, dt, options, stream);
}

// ---- eye, identity, tri, tril, triu, diag ----

const bandKernels = new Map<string, ElementwiseKernel>();

/** @internal Writes 1 where `col - row` compares with k (`==` for eye, `<=` for tri), 0 elsewhere; the output is [n, m] (exported for tests: the generated source). */
export function bandKernel(op: "eq" | "le"): ElementwiseKernel {
  let k = bandKernels.get(op);
  if (k === undefined) {
    const cmp = op === "eq" ? "==" : "<=";
    k = new ElementwiseKernel(
      "int64 m, int64 k",
      "T y",
      `const long long _ct_c = (long long)(i % (unsigned long long)m); const long long _ct_r = (long long)(i / (unsigned long long)m); y = (T)((_ct_c - _ct_r ${cmp} k) ? 1.0 : 0.0);`,
      `cuda_ts_band_${op}`,
    );
    bandKernels.set(op, k);
  }
  return k;
}

/** A 2-d array with ones on the `k`-th diagonal and zeros elsewhere (`n` rows, `m` columns; default float64). */
export function eye<N extends DTypeName = "float64">(n: number, options: EyeOptions<N>): DeviceArray<N> {
  return band("eye", "eq", n, options);
}

/** The `n` × `n` identity matrix (default float64). */
export function identity<N extends DTypeName = "float64">(n: number, options: CreationOptions<N>): DeviceArray<N> {
  return band("identity", "eq", n, options);
}

/** A 2-d array with ones at and below the `k`-th diagonal and zeros above (`n` rows, `m` columns; default float64). */
export function tri<N extends DTypeName = "float64">(n: number, options: EyeOptions<N>): DeviceArray<N> {
  return band("tri", "le", n, options);
}

function band<N extends DTypeName>(action: string, op: "eq" | "le", n: number, options: EyeOptions<N>): DeviceArray<N> {
  checkOptionsObject(options, action);
  checkInteger(n, `${action}: n`, 0);
  const m = options?.m === undefined ? n : checkInteger(options.m, `${action}: m`, 0);
  const k = options?.k === undefined ? 0 : checkInteger(options.k, `${action}: k`);
  const dt = dtypeOption(options, dtypes.float64) as DType<N>;
  const stream = operationStream(action, options, []);
  const out = allocate(action, [n, m], dt, options, stream);
  if (n * m > 0) bandKernel(op).launch(stream, m, k, out);
  return out;
}

const triangleKernels = new Map<string, ElementwiseKernel>();

/** @internal The kernel of `tril` (lower) and `triu` (exported for tests: the generated source). */
export function triangleKernel(lower: boolean): ElementwiseKernel {
  const key = lower ? "lower" : "upper";
  let k = triangleKernels.get(key);
  if (k === undefined) {
    const cmp = lower ? "<=" : ">=";
    k = new ElementwiseKernel(
      "T x, int64 rows, int64 cols, int64 k",
      "T y",
      `const long long _ct_c = (long long)(i % (unsigned long long)cols); const long long _ct_r = (long long)((i / (unsigned long long)cols) % (unsigned long long)rows); y = (_ct_c - _ct_r ${cmp} k) ? x : T();`,
      `cuda_ts_triangle_${key}`,
    );
    triangleKernels.set(key, k);
  }
  return k;
}

function triangle(action: string, lower: boolean, a: DeviceArray, options: DiagonalOptions | undefined): DeviceArray {
  checkArray(a, action);
  checkOptionsObject(options, action);
  if (a.ndim < 2) throw new ShapeMismatchError(`${action}: the array has ${a.ndim} ax${a.ndim === 1 ? "is" : "es"} (shape [${a.shape.join(", ")}]); it takes a matrix, or a stack of them (2 axes or more)`);
  const k = options?.k === undefined ? 0 : checkInteger(options.k, `${action}: k`);
  if (options?.dtype !== undefined) throw new ArgumentError(`${action} keeps the array's dtype; convert it with astype instead of passing dtype`);
  const stream = operationStream(action, options, [a]);
  const out = DeviceArray.empty(a.shape, a.dtype, { stream, ...(options?.memoryResource !== undefined ? { memoryResource: options.memoryResource } : {}) });
  if (a.size > 0) triangleKernel(lower).launch(stream, a, a.shape[a.ndim - 2]!, a.shape[a.ndim - 1]!, k, out);
  return out;
}

/** A copy of `a` with the elements above the `k`-th diagonal zeroed (over the last two axes, for each leading index). */
export function tril(a: DeviceArray, options?: DiagonalOptions): DeviceArray {
  return triangle("tril", true, a, options);
}

/** A copy of `a` with the elements below the `k`-th diagonal zeroed (over the last two axes, for each leading index). */
export function triu(a: DeviceArray, options?: DiagonalOptions): DeviceArray {
  return triangle("triu", false, a, options);
}

/** The view of the `k`-th diagonal of a 2-d array (internal: `diag` copies it). */
function diagonalView(a: DeviceArray, k: number): DeviceArray {
  const d = diagonalLayout({ shape: a.shape, strides: a.strides, offset: 0 }, k, 0, 1);
  return new DeviceArray(INTERNAL, a.buffer, a.dtype, d.shape, d.strides, a.byteOffset + d.offset * a.itemsize, a, false);
}

/**
 * As NumPy's `diag`: of a 1-d array, the 2-d array with it on the `k`-th diagonal (zeros elsewhere); of a 2-d array,
 * a copy of its `k`-th diagonal (a 1-d array).
 */
export function diag(v: DeviceArray, options?: DiagonalOptions): DeviceArray {
  checkArray(v, "diag");
  checkOptionsObject(options, "diag");
  const k = options?.k === undefined ? 0 : checkInteger(options.k, "diag: k");
  if (options?.dtype !== undefined) throw new ArgumentError("diag keeps the array's dtype; convert it with astype instead of passing dtype");
  if (v.ndim !== 1 && v.ndim !== 2) throw new ShapeMismatchError(`diag takes a 1-d or a 2-d array, got shape [${v.shape.join(", ")}]`);
  const stream = operationStream("diag", options, [v]);
  const alloc = { stream, ...(options?.memoryResource !== undefined ? { memoryResource: options.memoryResource } : {}) };
  if (v.ndim === 2) {
    const d = diagonalView(v, k);
    const out = DeviceArray.empty(d.shape, v.dtype, alloc);
    if (out.size > 0) out.copyFrom(d, { stream });
    return out;
  }
  const n = v.shape[0]! + Math.abs(k);
  const out = DeviceArray.zeros([n, n], v.dtype, alloc);
  if (v.size > 0) diagonalView(out, k).copyFrom(v, { stream });
  return out;
}

/** Options of `vander`. */
export interface VanderOptions extends ArrayOperationOptions {
  /** The number of columns (default `x`'s length). NumPy's name, kept. */
  readonly N?: number;
  /** Powers increasing from the left (`x^0, x^1, ...`) instead of decreasing (default false, as NumPy). */
  readonly increasing?: boolean;
}

/**
 * The Vandermonde matrix of a 1-d `x`, as NumPy's `vander`: `[x.length, N]`, column `j` holding `x^(N - 1 - j)`
 * (`x^j` with `increasing`), the column of `x^0` all ones (NaN included). The dtype is `x`'s promoted with int64, as
 * NumPy's `promote_types(x.dtype, int)`: int64 for bool and integers, float64 for uint64 and for every float dtype
 * (float16 and float32 too), complex128 for complex. The powers are a running product (`cumprod` along the rows of
 * `x` repeated, in the result's dtype: integers wrap as NumPy's), not `pow`; past 128 columns the scan multiplies in
 * blocks, so a float may differ from NumPy's strictly sequential product in the last bit. Does not wait for the stream.
 *
 * ```ts
 * vander(x);                           // [1, 2, 3] → [[1, 1, 1], [4, 2, 1], [9, 3, 1]] (int64)
 * vander(x, { N: 4, increasing: true });
 * ```
 *
 * @throws ShapeMismatchError when `x` is not 1-d; ArgumentError for an `N` that is not a non-negative integer.
 */
export function vander(x: DeviceArray, options?: VanderOptions): DeviceArray {
  const what = "vander";
  checkArray(x, what);
  checkOptionsObject(options, what);
  if (x.ndim !== 1) throw new ShapeMismatchError(`${what}: x is a 1-d array, got shape [${x.shape.join(", ")}]`);
  const n = x.shape[0]!;
  const cols = options?.N === undefined ? n : checkInteger(options.N, `${what}: N (the number of columns)`, 0);
  const increasing = options?.increasing ?? false;
  if (typeof increasing !== "boolean") throw new ArgumentError(`${what}: increasing is a boolean, got ${describeValue(increasing)}`);
  const dtype = promoteTypes(x.dtype, dtypes.int64);
  const stream = operationStream(what, options, [x]);
  const v = DeviceArray.empty([n, cols], dtype, { stream });
  if (n === 0 || cols === 0) return v;
  try {
    // The columns in increasing powers: v itself, or v with its columns reversed (a view).
    const powers = increasing ? v : v.slice(null, [null, null, -1]);
    powers.slice(null, 0).fill(1, { stream });
    if (cols > 1) {
      // x repeated along the row (stride 0), its running product into the columns of x^1 ... x^(N-1).
      const repeated = new DeviceArray(INTERNAL, x.buffer, x.dtype, [n, cols - 1], [x.strides[0]!, 0], x.byteOffset, x, false);
      cumprod(repeated, { axis: 1, out: powers.slice(null, [1, null]), stream });
    }
    return v;
  } catch (e) {
    v.close(stream);
    throw e;
  }
}

// ---- asarray, array ----

/**
 * The shape of nested arrays and their leaves in row-major order (exported for tests): ShapeMismatchError for
 * ragged nesting (lists of different lengths at one depth, or a list beside a scalar).
 */
export function nestedShape(data: NestedData): { shape: number[]; leaves: (number | bigint | boolean)[] } {
  const shape: number[] = [];
  let level: unknown[] = [data];
  for (let depth = 0; ; depth++) {
    const lists = level.filter((x) => Array.isArray(x)).length;
    if (lists === 0) break;
    if (lists !== level.length) throw new ShapeMismatchError(`asarray: the nested lists are ragged: along axis ${depth} some entries are lists and some are scalars; nest every entry to the same depth`);
    const len = (level[0] as unknown[]).length;
    const next: unknown[] = [];
    for (const x of level as unknown[][]) {
      if (x.length !== len) throw new ShapeMismatchError(`asarray: the nested lists are ragged: along axis ${depth} there are lists of length ${len} and ${x.length}; give the lists of one axis the same length`);
      for (const y of x) next.push(y);
    }
    shape.push(len);
    level = next;
    if (len === 0) break;
  }
  for (const x of level) {
    if (typeof x !== "number" && typeof x !== "bigint" && typeof x !== "boolean") {
      throw new DTypeError(`asarray: the data holds ${describeValue(x)}; it takes numbers, bigints and booleans (nested in arrays), typed arrays or DeviceArrays`);
    }
  }
  return { shape, leaves: level as (number | bigint | boolean)[] };
}

/** The dtype NumPy gives nested data of these leaves: bool for booleans only, int64 for integers, float64 otherwise. */
export function nestedDType(leaves: readonly (number | bigint | boolean)[]): DType {
  if (leaves.length === 0) return dtypes.float64;
  let kind: "b" | "i" | "f" = "b";
  for (const x of leaves) {
    if (typeof x === "number" && !Number.isInteger(x)) return dtypes.float64;
    if (typeof x !== "boolean") kind = "i";
  }
  return kind === "b" ? dtypes.bool : dtypes.int64;
}

/** The leaves in a host typed array of `dtype` (cast as {@link castScalar}; complex: real parts). */
export function encodeLeaves(leaves: readonly (number | bigint | boolean)[], dtype: DType): HostArray {
  const out = new dtype.hostArray(new ArrayBuffer(leaves.length * dtype.lanes * dtype.hostArray.BYTES_PER_ELEMENT));
  leaves.forEach((x, j) => {
    const v = castScalar(x, dtype);
    if (dtype.kind === "c") {
      out[2 * j] = v as number;
      out[2 * j + 1] = 0;
    } else if (dtype.name === "float16") out[j] = encodeHalf(v as number);
    else if (dtype.name === "bfloat16") out[j] = encodeBFloat16(v as number);
    else if (dtype.name === "bool") out[j] = v ? 1 : 0;
    else if (dtype.name === "int64" || dtype.name === "uint64") {
      const b = BigInt(v as number | bigint);
      if (dtype.name === "int64" ? BigInt.asIntN(64, b) !== b : BigInt.asUintN(64, b) !== b) throw new DTypeError(`asarray: ${String(x)} is outside the ${dtype.name} range`);
      out[j] = b;
    } else if (dtype.kind === "f") out[j] = v as number;
    else {
      const bits = dtype.itemsize * 8;
      const [lo, hi] = dtype.kind === "i" ? [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1] : [0, 2 ** bits - 1];
      const n = v as number;
      if (n < lo || n > hi) throw new DTypeError(`asarray: ${String(x)} is outside the ${dtype.name} range (${lo} to ${hi})`);
      out[j] = n;
    }
  });
  return out as HostArray;
}

function isHostArray(x: unknown): x is HostArray {
  return ArrayBuffer.isView(x) && !(x instanceof DataView);
}

function fromData(action: string, data: DeviceArray | HostArray | NestedData, options: AsArrayOptions | undefined, copy: boolean): DeviceArray {
  checkOptionsObject(options, action);
  const shape = options?.shape === undefined ? undefined : checkShape(options.shape, `${action}: shape`);
  const want = options?.dtype === undefined ? undefined : dtypeOf(options.dtype);
  if (data instanceof DeviceArray) {
    checkArray(data, action);
    if (shape !== undefined && elementCount(shape) !== data.size) throw new ShapeMismatchError(`${action}: shape [${shape.join(", ")}] holds ${elementCount(shape)} elements but the array has ${data.size}`);
    const same = want === undefined || want === data.dtype;
    if (same && !copy && (shape === undefined || (shape.length === data.ndim && shape.every((n, k) => n === data.shape[k])))) return data;
    const stream = operationStream(action, options, [data]);
    const a = same ? (copy || !data.isContiguous ? data.copy({ stream }) : data) : data.astype(want, { stream });
    return shape === undefined ? a : a.reshape(shape);
  }
  if (isHostArray(data)) {
    const own = dtypeOfHostArray(data);
    // float16 / bfloat16 come as their bits in a Uint16Array, complex as interleaved pairs: DeviceArray.from reads them so.
    const direct = want === undefined || want.hostArray === data.constructor;
    const stream = operationStream(action, options, []);
    const alloc = { stream, ...(options?.memoryResource !== undefined ? { memoryResource: options.memoryResource } : {}) };
    const a = DeviceArray.from(data, { ...alloc, dtype: direct ? (want ?? own) : own, ...(shape !== undefined && direct ? { shape } : {}) });
    if (direct) return a;
    try {
      const b = a.astype(want!, { stream });
      return shape === undefined ? b : b.reshape(shape);
    } finally {
      a.close(stream);
    }
  }
  // Nested lists: every check and the encoding before the stream is used.
  const { shape: inferred, leaves } = nestedShape(data as NestedData);
  const dt = want ?? nestedDType(leaves);
  const target = shape ?? inferred;
  if (elementCount(target) !== leaves.length) throw new ShapeMismatchError(`${action}: shape [${target.join(", ")}] holds ${elementCount(target)} elements but the data has ${leaves.length} (shape [${inferred.join(", ")}])`);
  const host = encodeLeaves(leaves, dt);
  const stream = operationStream(action, options, []);
  return DeviceArray.from(host, { stream, dtype: dt, shape: target, ...(options?.memoryResource !== undefined ? { memoryResource: options.memoryResource } : {}) });
}

/**
 * An array of `data`: nested JavaScript arrays of numbers, bigints and booleans (shape inferred; ragged nesting is a
 * ShapeMismatchError; dtype as NumPy's: bool, int64 or float64), a typed array (copied with `DeviceArray.from`;
 * float16/bfloat16 as bits in a Uint16Array with `{ dtype }`), or a DeviceArray, returned itself when its dtype is
 * the one asked for (converted otherwise). Needs `{ stream }` unless `data` is an array made on one.
 *
 * ```ts
 * const x = asarray([[1, 2, 3], [4, 5, 6]], { stream, dtype: "float32" });
 * ```
 */
export function asarray(data: DeviceArray | HostArray | NestedData, options?: AsArrayOptions): DeviceArray {
  return fromData("asarray", data, options, false);
}

/** As {@link asarray}, but always a new array (a DeviceArray is copied). */
export function array(data: DeviceArray | HostArray | NestedData, options?: AsArrayOptions): DeviceArray {
  return fromData("array", data, options, true);
}

// ---- copy, ascontiguousarray ----

/** Options of `copy`: the stream and the memory resource of the new array. */
export interface CopyOptions extends ArrayOperationOptions {
  /** The memory resource to allocate from (default: the stream's device's). */
  readonly memoryResource?: MemoryResource;
}

/** Options of `ascontiguousarray`: the dtype, the stream and the memory resource of a new array. */
export interface AscontiguousarrayOptions extends CopyOptions {
  /** The dtype of the result (default: the array's); another dtype converts as `astype` does, into a new array. */
  readonly dtype?: DTypeArgument;
}

function allocationOf(options: CopyOptions | undefined, stream: Stream): { stream: Stream; memoryResource?: MemoryResource } {
  return { stream, ...(options?.memoryResource !== undefined ? { memoryResource: options.memoryResource } : {}) };
}

/**
 * A new array with `a`'s elements, as NumPy's `copy` (`a.copy()` as a function): row-major contiguous whatever
 * `a`'s layout (NumPy's default `order="K"` keeps a transposed layout; cuda-ts arrays are row-major), writable even
 * when `a` is read-only (a broadcast view, memory lent read-only). One memcpy, 2D memcpy or strided copy.
 *
 * ```ts
 * const y = copy(x.T);                      // a contiguous [n, m] array of x's transpose
 * ```
 */
export function copy(a: DeviceArray, options?: CopyOptions): DeviceArray {
  const what = "copy";
  checkArray(a, what);
  checkOptionsObject(options, what);
  const stream = operationStream(what, options, [a]);
  return a.copy(allocationOf(options, stream));
}

/**
 * `a` as a row-major contiguous array of at least one axis, as NumPy's `ascontiguousarray`: `a` itself when it is
 * contiguous already and of the dtype asked for (NumPy returns the same array too; then it shares `a`'s memory and
 * read-only flag), else a new contiguous array (a copy, converted as `astype` converts to `dtype`). A 0-d array gives
 * a one-element 1-d array (NumPy's `ndmin=1`: a view when no copy is needed).
 *
 * ```ts
 * ascontiguousarray(x) === x;               // true for a contiguous x
 * const t = ascontiguousarray(x.T);         // a contiguous copy of the transpose
 * const f = ascontiguousarray(x, { dtype: "float32" });
 * ```
 */
export function ascontiguousarray(a: DeviceArray, options?: AscontiguousarrayOptions): DeviceArray {
  const what = "ascontiguousarray";
  checkArray(a, what);
  checkOptionsObject(options, what);
  const dtype = dtypeOption(options, a.dtype);
  const shaped = a.ndim === 0 ? a.reshape(1) : a;
  if (shaped.isContiguous && dtype === a.dtype) return shaped;
  const stream = operationStream(what, options, [a]);
  if (dtype === a.dtype) return shaped.copy(allocationOf(options, stream));
  const out = DeviceArray.empty(shaped.shape, dtype, allocationOf(options, stream));
  try {
    castInto(stream, shaped, out);
  } catch (e) {
    out.close(stream);
    throw e;
  }
  return out;
}
