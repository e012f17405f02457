/**
 * Binary elementwise operations of `cuda-ts/array`: arithmetic (`add`, `sub`, `mul`, `div`, `floorDiv`, `mod`, `divmod`, `pow`,
 * `maximum`, `minimum`, `fmax`, `fmin`, `arctan2`, `hypot`, `copysign`), bitwise and logical operations, comparisons
 * and `isclose`. Each takes arrays or JavaScript scalars, broadcasts them (NumPy's rules), promotes their dtypes
 * (NumPy 2's rules, scalars weak: `int8Array.add(1)` stays int8) and writes a new array, or `options.out`.
 *
 * ```ts
 * const c = add(a, b);                       // also a.add(b)
 * add(a, 1, { out: a });                     // in place
 * const m = lt(x, 0.5);                      // a bool array
 * const q = floorDiv(i, -3);                 // Python's //: rounds toward -infinity
 * ```
 *
 * Integer semantics are NumPy's, never a trap: arithmetic wraps (two's complement); `floorDiv` and `mod` follow
 * Python (the remainder has the divisor's sign) and give 0 for a zero divisor; shifts by the type's width or more
 * (or by a negative count) give 0 (`rightShift` of a negative number: -1); `pow` with a negative exponent gives 0
 * except for bases 1 and -1 (NumPy raises; the device cannot). Float semantics are IEEE: division by zero gives
 * infinities or NaN.
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { DTypeError } from "../errors.ts";
import { promoteTypes, operationType } from "../promotion.ts";
import type { ElementwiseOptions } from "../options.ts";
import { provideArrayMethods, type ArrayOperand } from "../methods.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { castExpression, toWorking, workingType } from "./cast.ts";
import {
  LOOPS,
  applyBinary,
  binaryKernel,
  broadcastOf,
  cachedKernel,
  checkOperand,
  checkOut,
  computeDType,
  launchInto,
  resultDType,
  scalarFor,
  type CodeContext,
  type OpSpec,
} from "./elementwise.ts";

// ---- code helpers ----

/** The unsigned type integer arithmetic wraps in. */
const unsignedOf = (c: DType): string => (c.itemsize === 8 ? "unsigned long long" : "unsigned int");

/** `a op b` on integers, wrapping (computed unsigned: no undefined overflow). */
const wrap = (x: CodeContext, op: string): string => `(${x.w})((${unsignedOf(x.c)})${x.a} ${op} (${unsignedOf(x.c)})${x.b})`;

const isInteger = (c: DType): boolean => c.kind === "i" || c.kind === "u";

/** A math function for the working type: `sqrtf` for float, `sqrt` for double, `cuda::std::sqrt` for complex. */
export function mathFunction(name: string, x: { readonly c: DType; readonly w: string }): string {
  if (x.c.kind === "c") return `cuda::std::${name}`;
  return x.w === "float" ? `${name}f` : name;
}

/** Device functions with NumPy's integer and float semantics for floor division, remainder, shifts and powers. */
export const ARITHMETIC_PREAMBLE = `
template <typename T> __device__ __forceinline__ bool _ct_signed() { return (T)(-1) < (T)0; }
template <typename T> __device__ __forceinline__ T _ct_ifloordiv(T a, T b) {
  if (b == (T)0) return (T)0;
  if (_ct_signed<T>() && b == (T)(-1)) return (T)(0ull - (unsigned long long)(long long)a);
  T q = (T)(a / b);
  if (_ct_signed<T>() && (T)(a % b) != (T)0 && ((a < (T)0) != (b < (T)0))) q = (T)(q - (T)1);
  return q;
}
template <typename T> __device__ __forceinline__ T _ct_imod(T a, T b) {
  if (b == (T)0) return (T)0;
  if (_ct_signed<T>() && b == (T)(-1)) return (T)0;
  T r = (T)(a % b);
  if (_ct_signed<T>() && r != (T)0 && ((r < (T)0) != (b < (T)0))) r = (T)(r + b);
  return r;
}
template <typename T> __device__ __forceinline__ T _ct_fmod(T a, T b) {
  T mod = fmod(a, b);
  if (b == (T)0) return mod;
  if (mod != (T)0) { if ((b < (T)0) != (mod < (T)0)) mod += b; }
  else mod = copysign((T)0, b);
  return mod;
}
template <typename T> __device__ __forceinline__ T _ct_ffloordiv(T a, T b) {
  if (b == (T)0) return a / b;
  T mod = fmod(a, b);
  T div = (a - mod) / b;
  if (mod != (T)0) { if ((b < (T)0) != (mod < (T)0)) div -= (T)1; }
  T fd;
  if (div != (T)0) { fd = floor(div); if (div - fd > (T)0.5) fd += (T)1; }
  else fd = copysign((T)0, a / b);
  return fd;
}
template <typename T> __device__ __forceinline__ T _ct_shl(T a, T b) {
  return ((unsigned long long)(long long)b < sizeof(T) * 8) ? (T)((unsigned long long)(long long)a << (unsigned long long)(long long)b) : (T)0;
}
template <typename T> __device__ __forceinline__ T _ct_shr(T a, T b) {
  if ((unsigned long long)(long long)b < sizeof(T) * 8) return (T)(a >> (int)b);
  return (_ct_signed<T>() && a < (T)0) ? (T)(-1) : (T)0;
}
template <typename T> __device__ __forceinline__ T _ct_ipow(T a, T b) {
  if (_ct_signed<T>() && b < (T)0) {
    if (a == (T)1) return (T)1;
    if (_ct_signed<T>() && a == (T)(-1)) return (b & (T)1) ? (T)(-1) : (T)1;
    return (T)0;
  }
  unsigned long long r = 1ull, base = (unsigned long long)(long long)a, e = (unsigned long long)(long long)b;
  while (e != 0ull) { if (e & 1ull) r *= base; base *= base; e >>= 1; }
  return (T)r;
}
template <typename T> __device__ __forceinline__ T _ct_ifmod(T a, T b) {
  if (b == (T)0) return (T)0;
  if (_ct_signed<T>() && b == (T)(-1)) return (T)0;
  return (T)(a % b);
}
template <typename T> __device__ __forceinline__ unsigned long long _ct_magnitude(T a) {
  const unsigned long long u = (unsigned long long)(long long)a;
  return (_ct_signed<T>() && a < (T)0) ? 0ull - u : u;
}
__device__ __forceinline__ unsigned long long _ct_ugcd(unsigned long long x, unsigned long long y) {
  while (y != 0ull) { const unsigned long long t = x % y; x = y; y = t; }
  return x;
}
template <typename T> __device__ __forceinline__ T _ct_gcd(T a, T b) { return (T)_ct_ugcd(_ct_magnitude(a), _ct_magnitude(b)); }
template <typename T> __device__ __forceinline__ T _ct_lcm(T a, T b) {
  const unsigned long long x = _ct_magnitude(a), y = _ct_magnitude(b);
  if (x == 0ull || y == 0ull) return (T)0;
  return (T)((x / _ct_ugcd(x, y)) * y);
}
template <typename T> __device__ __forceinline__ T _ct_logaddexp(T a, T b) {
  if (a == b) return a + (T)0.693147180559945309417232121458176568;
  const T d = a - b;
  if (d > (T)0) return a + log1p(exp(-d));
  if (d <= (T)0) return b + log1p(exp(d));
  return d;
}
template <typename T> __device__ __forceinline__ T _ct_logaddexp2(T a, T b) {
  if (a == b) return a + (T)1;
  const T d = a - b;
  if (d > (T)0) return a + log1p(exp2(-d)) * (T)1.442695040888963407359924681001892137;
  if (d <= (T)0) return b + log1p(exp2(d)) * (T)1.442695040888963407359924681001892137;
  return d;
}
__device__ __forceinline__ int _ct_cmp_su(long long s, unsigned long long u) {
  return s < 0 ? -1 : ((unsigned long long)s < u ? -1 : ((unsigned long long)s == u ? 0 : 1));
}
`;

/**
 * Device functions stepping a float16 or bfloat16 value (held in a float) to its neighbour toward another: the step
 * is one unit in the last place of the 16-bit type, which float's `nextafterf` would not take. They need no fp16
 * header (a kernel computing in float16 may have no float16 argument): float16's bits come from PTX conversions,
 * bfloat16's are a float's top half. Equal values give `a` for float16 (NumPy's float16 loop: `nextafter(-0, 0)` is
 * -0) and `b` for bfloat16, as C's `nextafter` and NumPy's float32 and float64 loops.
 */
export function nextafterPreamble(c: DType): string {
  if (c.name !== "float16" && c.name !== "bfloat16") return "";
  const half = c.name === "float16";
  const toBits = half ? `unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(v)); return h;` : "return (unsigned short)(__float_as_uint(v) >> 16);";
  const fromBits = half ? `float r; asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(u)); return r;` : "return __uint_as_float((unsigned int)u << 16);";
  return `
__device__ __forceinline__ unsigned short _ct_bits16(float v) { ${toBits} }
__device__ __forceinline__ float _ct_from_bits16(unsigned short u) { ${fromBits} }
__device__ __forceinline__ float _ct_nextafter16(float a, float b) {
  if (a != a || b != b) return a + b;
  if (a == b) return ${half ? "a" : "b"};
  unsigned short u;
  if (a == 0.0f) u = (unsigned short)(b < 0.0f ? 0x8001u : 0x0001u);
  else { u = _ct_bits16(a); u = (unsigned short)(((a < b) == (a > 0.0f)) ? u + 1u : u - 1u); }
  return _ct_from_bits16(u);
}
`;
}

/** The C++ of `nextafter(a, b)` in the compute dtype `c`'s own precision (a float16 steps by a float16's ulp). */
export function nextafterCall(c: DType, a: string, b: string): string {
  if (c.name === "float16" || c.name === "bfloat16") return `_ct_nextafter16(${a}, ${b})`;
  return `${c.name === "float32" ? "nextafterf" : "nextafter"}(${a}, ${b})`;
}

const complexNotOrdered = (d: DType): string | undefined => (d.kind === "c" ? "complex numbers are not ordered; compare their real parts (real) or magnitudes (abs)" : undefined);
const noBoolDivisor = (d: DType): string | undefined => (d.kind === "b" ? "bool operands have no divisors (NumPy refuses too); convert with astype" : undefined);
const noBoolSub = (d: DType): string | undefined => (d.kind === "b" ? "bool operands do not subtract (NumPy refuses too); use logicalXor, or convert with astype" : undefined);

function spec(name: string, loops: string, code: (x: CodeContext) => string, extra: Partial<OpSpec> = {}): OpSpec {
  return { name, loops, result: "same", code, preamble: ARITHMETIC_PREAMBLE, ...extra };
}

/** The binary operations, by function name. */
export const BINARY_OPS = {
  add: spec("add", LOOPS.all, (x) => (x.c.kind === "b" ? `(${x.a} || ${x.b})` : isInteger(x.c) ? wrap(x, "+") : `(${x.a} + ${x.b})`)),
  sub: spec("sub", LOOPS.numeric, (x) => (isInteger(x.c) ? wrap(x, "-") : `(${x.a} - ${x.b})`), { refuse: noBoolSub }),
  mul: spec("mul", LOOPS.all, (x) => (x.c.kind === "b" ? `(${x.a} && ${x.b})` : isInteger(x.c) ? wrap(x, "*") : `(${x.a} * ${x.b})`)),
  div: spec("div", LOOPS.inexact, (x) => `(${x.a} / ${x.b})`, { compute: (d) => (d.kind === "b" || d.kind === "i" || d.kind === "u" ? dtypes.float64 : d) }),
  floorDiv: spec("floorDiv", LOOPS.realNumeric, (x) => (isInteger(x.c) ? `_ct_ifloordiv<${x.w}>(${x.a}, ${x.b})` : `_ct_ffloordiv<${x.w}>(${x.a}, ${x.b})`), {
    refuse: (d) => (d.kind === "c" ? "complex numbers have no floor division" : undefined),
  }),
  mod: spec("mod", LOOPS.realNumeric, (x) => (isInteger(x.c) ? `_ct_imod<${x.w}>(${x.a}, ${x.b})` : `_ct_fmod<${x.w}>(${x.a}, ${x.b})`), {
    refuse: (d) => (d.kind === "c" ? "complex numbers have no remainder" : undefined),
  }),
  pow: spec("pow", LOOPS.numeric, (x) => (isInteger(x.c) ? `_ct_ipow<${x.w}>(${x.a}, ${x.b})` : `${mathFunction("pow", x)}(${x.a}, ${x.b})`)),
  maximum: spec("maximum", LOOPS.real, (x) => `((${x.a} > ${x.b} || ${x.a} != ${x.a}) ? ${x.a} : ${x.b})`, { refuse: complexNotOrdered }),
  minimum: spec("minimum", LOOPS.real, (x) => `((${x.a} < ${x.b} || ${x.a} != ${x.a}) ? ${x.a} : ${x.b})`, { refuse: complexNotOrdered }),
  fmax: spec("fmax", LOOPS.real, (x) => (x.c.kind === "f" ? `${mathFunction("fmax", x)}(${x.a}, ${x.b})` : `(${x.a} > ${x.b} ? ${x.a} : ${x.b})`), { refuse: complexNotOrdered }),
  fmin: spec("fmin", LOOPS.real, (x) => (x.c.kind === "f" ? `${mathFunction("fmin", x)}(${x.a}, ${x.b})` : `(${x.a} < ${x.b} ? ${x.a} : ${x.b})`), { refuse: complexNotOrdered }),
  arctan2: spec("arctan2", LOOPS.float, (x) => `${mathFunction("atan2", x)}(${x.a}, ${x.b})`),
  hypot: spec("hypot", LOOPS.float, (x) => `${mathFunction("hypot", x)}(${x.a}, ${x.b})`),
  copysign: spec("copysign", LOOPS.float, (x) => `${mathFunction("copysign", x)}(${x.a}, ${x.b})`),
  fmod: spec("fmod", LOOPS.realNumeric, (x) => (isInteger(x.c) ? `_ct_ifmod<${x.w}>(${x.a}, ${x.b})` : `${mathFunction("fmod", x)}(${x.a}, ${x.b})`), {
    refuse: (d) => (d.kind === "c" ? "complex numbers have no remainder" : undefined),
  }),
  gcd: spec("gcd", LOOPS.integer, (x) => `_ct_gcd<${x.w}>(${x.a}, ${x.b})`, { refuse: noBoolDivisor }),
  lcm: spec("lcm", LOOPS.integer, (x) => `_ct_lcm<${x.w}>(${x.a}, ${x.b})`, { refuse: noBoolDivisor }),
  logaddexp: spec("logaddexp", LOOPS.float, (x) => `_ct_logaddexp<${x.w}>(${x.a}, ${x.b})`),
  logaddexp2: spec("logaddexp2", LOOPS.float, (x) => `_ct_logaddexp2<${x.w}>(${x.a}, ${x.b})`),
  nextafter: spec("nextafter", LOOPS.float, (x) => nextafterCall(x.c, x.a, x.b), { preamble: (c) => ARITHMETIC_PREAMBLE + nextafterPreamble(c) }),
  heaviside: spec("heaviside", LOOPS.float, (x) => `(${x.a} != ${x.a} ? ${x.a} : (${x.a} < (${x.w})0 ? (${x.w})0 : (${x.a} > (${x.w})0 ? (${x.w})1 : ${x.b})))`),
  floatPower: spec("floatPower", "dD", (x) => `${mathFunction("pow", x)}(${x.a}, ${x.b})`),
  bitwiseAnd: spec("bitwiseAnd", LOOPS.integerBool, (x) => (x.c.kind === "b" ? `(${x.a} && ${x.b})` : `(${x.w})(${x.a} & ${x.b})`)),
  bitwiseOr: spec("bitwiseOr", LOOPS.integerBool, (x) => (x.c.kind === "b" ? `(${x.a} || ${x.b})` : `(${x.w})(${x.a} | ${x.b})`)),
  bitwiseXor: spec("bitwiseXor", LOOPS.integerBool, (x) => (x.c.kind === "b" ? `(${x.a} != ${x.b})` : `(${x.w})(${x.a} ^ ${x.b})`)),
  leftShift: spec("leftShift", LOOPS.integer, (x) => `_ct_shl<${x.w}>(${x.a}, ${x.b})`),
  rightShift: spec("rightShift", LOOPS.integer, (x) => `_ct_shr<${x.w}>(${x.a}, ${x.b})`),
  logicalAnd: spec("logicalAnd", "?", (x) => `(${x.a} && ${x.b})`, { result: "bool", compute: () => dtypes.bool }),
  logicalOr: spec("logicalOr", "?", (x) => `(${x.a} || ${x.b})`, { result: "bool", compute: () => dtypes.bool }),
  logicalXor: spec("logicalXor", "?", (x) => `(${x.a} != ${x.b})`, { result: "bool", compute: () => dtypes.bool }),
  eq: spec("eq", LOOPS.all, (x) => `(${x.a} == ${x.b})`, { result: "bool" }),
  ne: spec("ne", LOOPS.all, (x) => `(${x.a} != ${x.b})`, { result: "bool" }),
  lt: spec("lt", LOOPS.real, (x) => `(${x.a} < ${x.b})`, { result: "bool", refuse: complexNotOrdered }),
  le: spec("le", LOOPS.real, (x) => `(${x.a} <= ${x.b})`, { result: "bool", refuse: complexNotOrdered }),
  gt: spec("gt", LOOPS.real, (x) => `(${x.a} > ${x.b})`, { result: "bool", refuse: complexNotOrdered }),
  ge: spec("ge", LOOPS.real, (x) => `(${x.a} >= ${x.b})`, { result: "bool", refuse: complexNotOrdered }),
} as const satisfies Record<string, OpSpec>;

/** The names of the binary operations. */
export type BinaryOpName = keyof typeof BINARY_OPS;

const COMPARISON_SIGN = { eq: "==", ne: "!=", lt: "<", le: "<=", gt: ">", ge: ">=" } as const;
type Comparison = keyof typeof COMPARISON_SIGN;

// ---- arithmetic ----

/** `a + b`, elementwise, broadcast (bool: logical or). Also `a.add(b)`. */
export function add(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.add, a, b, options);
}
/** `a - b`, elementwise, broadcast (not for two bools). Also `a.sub(b)`. */
export function sub(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.sub, a, b, options);
}
/** `a * b`, elementwise, broadcast (bool: logical and). Also `a.mul(b)`. */
export function mul(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.mul, a, b, options);
}
/** `a / b`, true division: bool and integers give float64 (`int8 / int8` is float64, as NumPy). Also `a.div(b)`. */
export function div(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.div, a, b, options);
}
/** `floor(a / b)`, Python's `//` (integers: 0 for a zero divisor). Not for complex. Also `a.floorDiv(b)`. */
export function floorDiv(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.floorDiv, a, b, options);
}
/** The remainder with the divisor's sign, Python's `%` (integers: 0 for a zero divisor). Also `a.mod(b)`. */
export function mod(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.mod, a, b, options);
}
/**
 * `[floorDiv(a, b), mod(a, b)]`, as NumPy's `divmod` (Python's `divmod` elementwise): the quotient rounded toward
 * -infinity and the remainder with the divisor's sign, two new arrays of the dtype both operations give (integers: 0
 * for a zero divisor). Not for complex. Two kernels; if the second fails the first result is closed.
 *
 * ```ts
 * const [q, r] = divmod(x, 3);             // [7, -7] → q [2, -3], r [1, 2]
 * ```
 */
export function divmod(a: ArrayOperand, b: ArrayOperand, options?: ArrayOperationOptions): [DeviceArray, DeviceArray] {
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`divmod takes options { stream? }, got ${describeValue(options)}`);
  if (options !== undefined && "out" in options) throw new TypeError("divmod takes no out (it makes two arrays); call floorDiv and mod with out instead");
  const q = floorDiv(a, b, options);
  try {
    return [q, mod(a, b, options)];
  } catch (e) {
    q.close(q.stream);
    throw e;
  }
}
/** `a ** b` (integers: by repeated squaring, wrapping; a negative exponent gives 0 unless the base is 1 or -1). Also `a.pow(b)`. */
export function pow(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  if (b !== null && (typeof b === "number" || typeof b === "bigint") && b < 0 && a instanceof DeviceArray && (a.dtype.kind === "i" || a.dtype.kind === "u" || a.dtype.kind === "b") && Number.isInteger(Number(b))) {
    throw new DTypeError(`pow: integers to negative integer powers are not allowed (${a.dtype.name} ** ${String(b)}); convert the base to a float dtype first (astype)`);
  }
  return applyBinary(BINARY_OPS.pow, a, b, options);
}
/** The greater of each pair; NaN wins. Not for complex. Also `a.maximum(b)`. */
export function maximum(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.maximum, a, b, options);
}
/** The lesser of each pair; NaN wins. Not for complex. Also `a.minimum(b)`. */
export function minimum(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.minimum, a, b, options);
}
/** The greater of each pair; NaN loses (the other is taken). */
export function fmax(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.fmax, a, b, options);
}
/** The lesser of each pair; NaN loses (the other is taken). */
export function fmin(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.fmin, a, b, options);
}
/** The angle of the point (b, a): `atan2(a, b)`, in radians. Floats (integers compute in the float that holds them). */
export function arctan2(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.arctan2, a, b, options);
}
/** `sqrt(a² + b²)` without undue overflow. */
export function hypot(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.hypot, a, b, options);
}
/** `|a|` with the sign of `b`. */
export function copysign(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.copysign, a, b, options);
}
/**
 * The remainder of `a / b` with the dividend's sign, C's `fmod` (NumPy's `fmod`; `mod` takes the divisor's sign):
 * `fmod(-7, 3)` is -1 where `mod(-7, 3)` is 2. Integers: 0 for a zero divisor (NumPy gives 0 and warns); floats: NaN.
 * Not for complex.
 */
export function fmod(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.fmod, a, b, options);
}
/** The greatest common divisor of `|a|` and `|b|`, elementwise (integers only; `gcd(0, 0)` is 0), as NumPy's `gcd`. */
export function gcd(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.gcd, a, b, options);
}
/** The least common multiple of `|a|` and `|b|`, elementwise (integers only; 0 where either is 0; wraps past the dtype), as NumPy's `lcm`. */
export function lcm(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.lcm, a, b, options);
}
/**
 * `log(exp(a) + exp(b))` without overflow or underflow in between, as NumPy's `logaddexp` (for adding probabilities
 * kept as logarithms): floats (integers compute in the float that holds them); `-inf` with `-inf` is `-inf`.
 */
export function logaddexp(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.logaddexp, a, b, options);
}
/** `log2(2 ** a + 2 ** b)` without overflow or underflow in between, as NumPy's `logaddexp2`. */
export function logaddexp2(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.logaddexp2, a, b, options);
}
/**
 * The next representable value after `a` toward `b`, in the floats' own precision (a float16 steps by a float16's
 * unit in the last place), as NumPy's `nextafter`: `nextafter(1, 2)` in float32 is 1.0000001; NaN in either gives NaN;
 * `a == b` gives `b` (float16: `a`, as NumPy's float16 loop, which tells only for zeros of two signs). Floats
 * (integers compute in the float that holds them).
 */
export function nextafter(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.nextafter, a, b, options);
}
/** The Heaviside step of `x`: 0 where `x < 0`, `h0` where `x == 0`, 1 where `x > 0` (NaN stays NaN), as NumPy's `heaviside`. */
export function heaviside(x: ArrayOperand, h0: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.heaviside, x, h0, options);
}
/**
 * `a ** b` computed in float64 (complex128 for complex operands) whatever the operands' dtypes, as NumPy's
 * `float_power`: integers to negative powers are fractions here (`floatPower(2, -1)` is 0.5), unlike `pow`.
 */
export function floatPower(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.floatPower, a, b, options);
}

// ---- bitwise and logical ----

/** `a & b` of integers or bools. */
export function bitwiseAnd(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.bitwiseAnd, a, b, options);
}
/** `a | b` of integers or bools. */
export function bitwiseOr(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.bitwiseOr, a, b, options);
}
/** `a ^ b` of integers or bools. */
export function bitwiseXor(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.bitwiseXor, a, b, options);
}
/** `a << b` of integers (bools compute as int8); a count of the width or more gives 0. */
export function leftShift(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.leftShift, a, b, options);
}
/** `a >> b` of integers (arithmetic for signed ones); a count of the width or more gives 0, or -1 for a negative `a`. */
export function rightShift(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  return applyBinary(BINARY_OPS.rightShift, a, b, options);
}
/** Whether both are non-zero: a bool array (any dtypes). */
export function logicalAnd(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return applyBinary(BINARY_OPS.logicalAnd, a, b, options) as DeviceArray<"bool">;
}
/** Whether either is non-zero: a bool array (any dtypes). */
export function logicalOr(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return applyBinary(BINARY_OPS.logicalOr, a, b, options) as DeviceArray<"bool">;
}
/** Whether exactly one is non-zero: a bool array (any dtypes). */
export function logicalXor(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return applyBinary(BINARY_OPS.logicalXor, a, b, options) as DeviceArray<"bool">;
}

// ---- comparisons ----

const INT_RANGE: Partial<Record<string, [bigint, bigint]>> = {
  int8: [-128n, 127n],
  int16: [-32768n, 32767n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [0n, 255n],
  uint16: [0n, 65535n],
  uint32: [0n, 2n ** 32n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  bool: [0n, 1n],
};

/**
 * The dtype an integer scalar takes in a comparison with an integer array it does not fit (NumPy compares those
 * exactly: `int8Array.lt(1000)` is all true): int64, else uint64, else float64. Undefined where the scalar is weak
 * as usual.
 */
function holderOf(x: ArrayOperand, other: ArrayOperand): DType | undefined {
  if (x instanceof DeviceArray || !(other instanceof DeviceArray) || other.dtype.kind === "f" || other.dtype.kind === "c" || other.dtype.kind === "b") return undefined;
  if (!(typeof x === "bigint" || (typeof x === "number" && Number.isInteger(x)))) return undefined;
  const v = BigInt(x);
  const [lo, hi] = INT_RANGE[other.dtype.name]!;
  if (v >= lo && v <= hi) return undefined;
  if (v >= -(2n ** 63n) && v < 2n ** 63n) return dtypes.int64;
  if (v >= 0n && v < 2n ** 64n) return dtypes.uint64;
  return dtypes.float64;
}

/** A comparison: NumPy's promotion, exact between signed integers and uint64, exact with integer scalars out of range. */
function compare(op: Comparison, a: ArrayOperand, b: ArrayOperand, options: ElementwiseOptions | undefined): DeviceArray<"bool"> {
  const s = BINARY_OPS[op];
  checkOperand(a, op, "the first operand");
  checkOperand(b, op, "the second operand");
  const ha = holderOf(a, b);
  const hb = holderOf(b, a);
  if (ha === undefined && hb === undefined) {
    const direct = mixedSigns(a, b);
    if (direct === undefined) return applyBinary(s, a, b, options) as DeviceArray<"bool">;
  }
  const ta = a instanceof DeviceArray ? a.dtype : (ha ?? operationType([b, a], op));
  const tb = b instanceof DeviceArray ? b.dtype : (hb ?? operationType([a, b], op));
  const shape = broadcastOf([a, b], ["the first operand", "the second operand"], op);
  const out = checkOut(options, shape, dtypes.bool, op);
  const to = out?.dtype ?? dtypes.bool;
  const promoted = promoteTypes(ta, tb);
  const mixed = mixedPair(ta, tb);
  let k: ElementwiseKernel;
  if (mixed !== undefined) {
    k = cachedKernel(`${op}|${ta.name}|${tb.name}|mixed|${to.name}`, () => {
      const cmp = mixed === "su" ? "_ct_cmp_su((long long)x, (unsigned long long)y)" : "(-_ct_cmp_su((long long)y, (unsigned long long)x))";
      return new ElementwiseKernel(`${ta.name} x, ${tb.name} y`, `${to.name} z`, `z = ${castExpression(`(${cmp} ${COMPARISON_SIGN[op]} 0)`, dtypes.bool, to)}`, `cuda_ts_${op}_${ta.name}_${tb.name}_exact_${to.name}`, {
        preamble: ARITHMETIC_PREAMBLE,
      });
    });
  } else {
    const c = computeDType(s, promoted, [ta, tb]);
    k = binaryKernel(s, ta, tb, c, resultDType(s, c), to);
  }
  const stream = operationStream(op, options, [a, b, out]);
  const va = a instanceof DeviceArray ? a : scalarFor(a, ta);
  const vb = b instanceof DeviceArray ? b : scalarFor(b, tb);
  return launchInto(k, stream, [va, vb], out) as DeviceArray<"bool">;
}

/** "su" where `ta` is a signed integer and `tb` uint64 (or "us" the other way): their promotion (float64) is inexact. */
function mixedPair(ta: DType, tb: DType): "su" | "us" | undefined {
  if (ta.kind === "i" && tb.name === "uint64") return "su";
  if (tb.kind === "i" && ta.name === "uint64") return "us";
  return undefined;
}

/** Whether two array operands are a signed integer and a uint64 (compared exactly, not through float64). */
function mixedSigns(a: ArrayOperand, b: ArrayOperand): "su" | "us" | undefined {
  return a instanceof DeviceArray && b instanceof DeviceArray ? mixedPair(a.dtype, b.dtype) : undefined;
}

/** `a == b`: a bool array. */
export function eq(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return compare("eq", a, b, options);
}
/** `a != b`: a bool array. */
export function ne(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return compare("ne", a, b, options);
}
/** `a < b`: a bool array (not for complex). */
export function lt(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return compare("lt", a, b, options);
}
/** `a <= b`: a bool array (not for complex). */
export function le(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return compare("le", a, b, options);
}
/** `a > b`: a bool array (not for complex). */
export function gt(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return compare("gt", a, b, options);
}
/** `a >= b`: a bool array (not for complex). */
export function ge(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return compare("ge", a, b, options);
}

/** Options of {@link isclose}. */
export interface IsCloseOptions extends ElementwiseOptions {
  /** The relative tolerance (default 1e-5). */
  readonly rtol?: number;
  /** The absolute tolerance (default 1e-8). */
  readonly atol?: number;
  /** Whether NaN equals NaN (default false). */
  readonly equalNan?: boolean;
}

const ISCLOSE_PREAMBLE = `
template <typename T> __device__ __forceinline__ bool _ct_isclose(T a, T b, T rtol, T atol, bool eqnan) {
  if (isnan(a) || isnan(b)) return eqnan && isnan(a) && isnan(b);
  if (isinf(a) || isinf(b)) return a == b;
  return fabs(a - b) <= atol + rtol * fabs(b);
}
`;

/** isclose of complex numbers (cuda::std is declared only in complex kernels). */
const ISCLOSE_COMPLEX_PREAMBLE = `
template <typename C, typename T> __device__ __forceinline__ bool _ct_cisclose(C a, C b, T rtol, T atol, bool eqnan) {
  const bool na = isnan(a.real()) || isnan(a.imag()), nb = isnan(b.real()) || isnan(b.imag());
  if (na || nb) return eqnan && na && nb;
  if (isinf(a.real()) || isinf(a.imag()) || isinf(b.real()) || isinf(b.imag())) return a == b;
  return cuda::std::abs(a - b) <= atol + rtol * cuda::std::abs(b);
}
`;

/**
 * Whether `a` and `b` are equal within a tolerance, elementwise: `|a - b| <= atol + rtol * |b|` (NumPy's `isclose`:
 * infinities close only to themselves, NaN to nothing unless `equalNan`). Integers compare as float64. A bool array.
 */
export function isclose(a: ArrayOperand, b: ArrayOperand, options?: IsCloseOptions): DeviceArray<"bool"> {
  const what = "isclose";
  checkOperand(a, what, "the first operand");
  checkOperand(b, what, "the second operand");
  const rtol = options?.rtol ?? 1e-5;
  const atol = options?.atol ?? 1e-8;
  const equalNan = options?.equalNan ?? false;
  if (typeof rtol !== "number" || typeof atol !== "number") throw new TypeError(`isclose: rtol and atol are numbers, got ${describeValue(rtol)} and ${describeValue(atol)}`);
  if (typeof equalNan !== "boolean") throw new TypeError(`isclose: equalNan is a boolean, got ${describeValue(equalNan)}`);
  const c = operationType([operationType([a, b], what), 1.5], what);
  const shape = broadcastOf([a, b], ["the first operand", "the second operand"], what);
  const out = checkOut(options, shape, dtypes.bool, what);
  const ta = a instanceof DeviceArray ? a.dtype : c;
  const tb = b instanceof DeviceArray ? b.dtype : c;
  const to = out?.dtype ?? dtypes.bool;
  const k = cachedKernel(`isclose|${ta.name}|${tb.name}|${c.name}|${equalNan}|${to.name}`, () => {
    const w = workingType(c);
    const real = c.kind === "c" ? (c.name === "complex64" ? "float" : "double") : w;
    const test = c.kind === "c" ? `_ct_cisclose<${w}, ${real}>(_ca, _cb, (${real})rtol, (${real})atol, ${equalNan})` : `_ct_isclose<${w}>(_ca, _cb, (${w})rtol, (${w})atol, ${equalNan})`;
    const body = `const ${w} _ca = ${toWorking("x", ta, c)}; const ${w} _cb = ${toWorking("y", tb, c)}; z = ${castExpression(test, dtypes.bool, to)}`;
    return new ElementwiseKernel(`${ta.name} x, ${tb.name} y, float64 rtol, float64 atol`, `${to.name} z`, body, `cuda_ts_isclose_${ta.name}_${tb.name}_${c.name}_${equalNan ? "nan" : "nonan"}_${to.name}`, {
      preamble: c.kind === "c" ? ISCLOSE_COMPLEX_PREAMBLE : ISCLOSE_PREAMBLE,
    });
  });
  const stream = operationStream(what, options, [a, b, out]);
  return launchInto(k, stream, [a instanceof DeviceArray ? a : scalarFor(a, c), b instanceof DeviceArray ? b : scalarFor(b, c), rtol, atol], out) as DeviceArray<"bool">;
}

provideArrayMethods({
  add: (self, other, options) => add(self, other, options),
  sub: (self, other, options) => sub(self, other, options),
  mul: (self, other, options) => mul(self, other, options),
  div: (self, other, options) => div(self, other, options),
  floorDiv: (self, other, options) => floorDiv(self, other, options),
  mod: (self, other, options) => mod(self, other, options),
  pow: (self, other, options) => pow(self, other, options),
  maximum: (self, other, options) => maximum(self, other, options),
  minimum: (self, other, options) => minimum(self, other, options),
  eq: (self, other, options) => eq(self, other, options),
  ne: (self, other, options) => ne(self, other, options),
  lt: (self, other, options) => lt(self, other, options),
  le: (self, other, options) => le(self, other, options),
  gt: (self, other, options) => gt(self, other, options),
  ge: (self, other, options) => ge(self, other, options),
});
