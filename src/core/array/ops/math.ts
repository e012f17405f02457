/**
 * Unary elementwise math of `cuda-ts/array`: `neg`, `abs`, `sqrt`, `exp`, `log`, the trigonometric and hyperbolic
 * functions, rounding, classification (`isnan`, ...), the parts of complex numbers, `nanToNum`. Each maps an array to a new
 * array of its shape (or writes `options.out`), in the dtype NumPy's ufunc gives: integers compute in the float that
 * holds them (`sqrt` of int8 is float16, of int32 float64), float16 and bfloat16 compute in float32 and round back,
 * complex keeps complex (`abs` and `angle` give the real dtype).
 *
 * ```ts
 * const y = exp(x.neg());        // also x.neg()
 * const m = abs(z);              // complex64 → float32
 * const r = round(x, { decimals: 2 });
 * ```
 *
 * @module
 */
import { DeviceArray, checkWritable, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { realOf, operationType } from "../promotion.ts";
import type { ElementwiseOptions } from "../options.ts";
import { provideArrayMethods } from "../methods.ts";
import { describeValue } from "../../../errors/describe.ts";
import { INTERNAL } from "../../base/internal.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { ROUNDING_PREAMBLE, castExpression, castInto, fromWorking, toWorking, workingType } from "./cast.ts";
import { mathFunction, nextafterCall, nextafterPreamble } from "./arithmetic.ts";
import { LOOPS, applyUnary, cachedKernel, checkOut, computeDType, launchInto, resultDType, scalarFor, searchLoop, type CodeContext, type OpSpec } from "./elementwise.ts";

const isInteger = (c: DType): boolean => c.kind === "i" || c.kind === "u";
const unsignedOf = (c: DType): string => (c.itemsize === 8 ? "unsigned long long" : "unsigned int");
/** The real C++ type of a complex working type. */
const realType = (c: DType): string => (c.name === "complex64" ? "float" : "double");

/** Device functions for complex numbers NumPy defines and cuda::std does not (sign, expm1): for complex kernels only. */
export const COMPLEX_PREAMBLE = `
template <typename C> __device__ __forceinline__ C _ct_csign(C z) {
  const auto r = cuda::std::abs(z);
  return r == 0 ? C(0) : (r != r ? C(r, r) : z / r);
}
template <typename C> __device__ __forceinline__ C _ct_cexpm1(C z) {
  const auto x = z.real(), y = z.imag();
  const auto s = sin(y / 2);
  return C(expm1(x) * cos(y) - 2 * s * s, exp(x) * sin(y));
}
`;

/** {@link COMPLEX_PREAMBLE} where the compute dtype is complex (only then is cuda::std declared). */
const MATH_PREAMBLE = (c: DType): string => (c.kind === "c" ? COMPLEX_PREAMBLE : "");

function spec(name: string, loops: string, code: (x: CodeContext) => string, extra: Partial<OpSpec> = {}): OpSpec {
  return { name, loops, result: "same", code, ...extra };
}

const noBool = (what: string) => (d: DType): string | undefined => (d.kind === "b" ? `bool operands have no ${what} (NumPy refuses too); convert with astype` : undefined);
const noComplex = (what: string) => (d: DType): string | undefined => (d.kind === "c" ? `complex numbers have no ${what}` : undefined);

/** A transcendental function over floats and complex (`sqrtf`, `sqrt`, `cuda::std::sqrt`). */
const inexact = (name: string, cname = name): OpSpec => spec(name, LOOPS.inexact, (x) => `${mathFunction(x.c.kind === "c" ? cname : name, x)}(${x.a})`, { preamble: MATH_PREAMBLE });

/** The unary operations, by function name. */
export const UNARY_OPS = {
  neg: spec("neg", LOOPS.numeric, (x) => (isInteger(x.c) ? `(${x.w})((${unsignedOf(x.c)})0 - (${unsignedOf(x.c)})${x.a})` : `(-${x.a})`), { refuse: noBool("negative") }),
  positive: spec("positive", LOOPS.numeric, (x) => x.a, { refuse: noBool("positive") }),
  abs: spec(
    "abs",
    LOOPS.all,
    (x) =>
      x.c.kind === "b" || x.c.kind === "u"
        ? x.a
        : x.c.kind === "i"
          ? `(${x.w})(${x.a} < 0 ? (${unsignedOf(x.c)})0 - (${unsignedOf(x.c)})${x.a} : (${unsignedOf(x.c)})${x.a})`
          : `${mathFunction(x.c.kind === "c" ? "abs" : "fabs", x)}(${x.a})`,
    { result: "real" },
  ),
  sign: spec(
    "sign",
    LOOPS.numeric,
    (x) =>
      isInteger(x.c)
        ? `(${x.w})((${x.a} > 0) - (${x.a} < 0))`
        : x.c.kind === "c"
          ? `_ct_csign(${x.a})`
          : `(${x.a} > (${x.w})0 ? (${x.w})1 : (${x.a} < (${x.w})0 ? (${x.w})(-1) : ${x.a}))`,
    { refuse: noBool("sign"), preamble: MATH_PREAMBLE },
  ),
  sqrt: inexact("sqrt"),
  cbrt: spec("cbrt", LOOPS.float, (x) => `${mathFunction("cbrt", x)}(${x.a})`, { refuse: noComplex("cbrt") }),
  square: spec("square", LOOPS.numeric, (x) => (isInteger(x.c) ? `(${x.w})((${unsignedOf(x.c)})${x.a} * (${unsignedOf(x.c)})${x.a})` : `(${x.a} * ${x.a})`)),
  reciprocal: spec("reciprocal", LOOPS.numeric, (x) => (isInteger(x.c) ? `(${x.a} == 0 ? (${x.w})0 : (${x.w})(1 / ${x.a}))` : `(${x.w}(1) / ${x.a})`)),
  exp: inexact("exp"),
  exp2: spec("exp2", LOOPS.inexact, (x) => (x.c.kind === "c" ? `cuda::std::exp(${x.a} * (${realType(x.c)})0.6931471805599453)` : `${mathFunction("exp2", x)}(${x.a})`)),
  expm1: spec("expm1", LOOPS.inexact, (x) => (x.c.kind === "c" ? `_ct_cexpm1(${x.a})` : `${mathFunction("expm1", x)}(${x.a})`), { preamble: MATH_PREAMBLE }),
  log: inexact("log"),
  log2: spec("log2", LOOPS.inexact, (x) => (x.c.kind === "c" ? `(cuda::std::log(${x.a}) / (${realType(x.c)})0.6931471805599453)` : `${mathFunction("log2", x)}(${x.a})`)),
  log10: inexact("log10"),
  log1p: spec("log1p", LOOPS.inexact, (x) => (x.c.kind === "c" ? `cuda::std::log(${x.w}(1) + ${x.a})` : `${mathFunction("log1p", x)}(${x.a})`)),
  sin: inexact("sin"),
  cos: inexact("cos"),
  tan: inexact("tan"),
  asin: inexact("asin"),
  acos: inexact("acos"),
  atan: inexact("atan"),
  sinh: inexact("sinh"),
  cosh: inexact("cosh"),
  tanh: inexact("tanh"),
  asinh: inexact("asinh"),
  acosh: inexact("acosh"),
  atanh: inexact("atanh"),
  floor: spec("floor", LOOPS.real, (x) => (x.c.kind === "f" ? `${mathFunction("floor", x)}(${x.a})` : x.a), { refuse: noComplex("floor") }),
  ceil: spec("ceil", LOOPS.real, (x) => (x.c.kind === "f" ? `${mathFunction("ceil", x)}(${x.a})` : x.a), { refuse: noComplex("ceiling") }),
  trunc: spec("trunc", LOOPS.real, (x) => (x.c.kind === "f" ? `${mathFunction("trunc", x)}(${x.a})` : x.a), { refuse: noComplex("truncation") }),
  rint: spec("rint", LOOPS.inexact, (x) => (x.c.kind === "c" ? `${x.w}(rint(${x.a}.real()), rint(${x.a}.imag()))` : `${mathFunction("rint", x)}(${x.a})`)),
  isnan: spec("isnan", LOOPS.all, (x) => (x.c.kind === "c" ? `(isnan(${x.a}.real()) || isnan(${x.a}.imag()))` : x.c.kind === "f" ? `(isnan(${x.a}) != 0)` : "false"), { result: "bool" }),
  isinf: spec("isinf", LOOPS.all, (x) => (x.c.kind === "c" ? `(isinf(${x.a}.real()) || isinf(${x.a}.imag()))` : x.c.kind === "f" ? `(isinf(${x.a}) != 0)` : "false"), { result: "bool" }),
  isfinite: spec("isfinite", LOOPS.all, (x) => (x.c.kind === "c" ? `(isfinite(${x.a}.real()) && isfinite(${x.a}.imag()))` : x.c.kind === "f" ? `(isfinite(${x.a}) != 0)` : "true"), {
    result: "bool",
  }),
  signbit: spec("signbit", LOOPS.float, (x) => `(signbit(${x.a}) != 0)`, { result: "bool", refuse: noComplex("sign bit") }),
  isposinf: spec("isposinf", LOOPS.real, (x) => (x.c.kind === "f" ? `(isinf(${x.a}) != 0 && ${x.a} > (${x.w})0)` : "false"), { result: "bool", refuse: noComplex("sign of infinity") }),
  isneginf: spec("isneginf", LOOPS.real, (x) => (x.c.kind === "f" ? `(isinf(${x.a}) != 0 && ${x.a} < (${x.w})0)` : "false"), { result: "bool", refuse: noComplex("sign of infinity") }),
  spacing: spec(
    "spacing",
    LOOPS.float,
    // NumPy's float16 spacing is the step up toward +infinity (positive, and toward zero for a negative power of
    // two); its float32 and float64 spacings step away from zero (negative for negative elements).
    (x) =>
      x.c.name === "float16"
        ? `(isinf(${x.a}) != 0 ? ${x.a} - ${x.a} : ${nextafterCall(x.c, x.a, "__int_as_float(0x7f800000)")} - ${x.a})`
        : `(isinf(${x.a}) != 0 ? ${x.a} - ${x.a} : (${x.a} == (${x.w})0 ? ${nextafterCall(x.c, `(${x.w})0`, `(${x.w})1`)} : ${nextafterCall(x.c, x.a, `${x.a} * (${x.w})2`)} - ${x.a}))`,
    { preamble: nextafterPreamble, refuse: noComplex("spacing") },
  ),
  sinc: spec(
    "sinc",
    LOOPS.inexact,
    (x) =>
      x.c.kind === "c"
        ? `(${x.a} == ${x.w}(0) ? ${x.w}(1) : cuda::std::sin(${x.w}(3.141592653589793238462643383279502884) * ${x.a}) / (${x.w}(3.141592653589793238462643383279502884) * ${x.a}))`
        : `(${x.a} == (${x.w})0 ? (${x.w})1 : ${mathFunction("sin", x)}((${x.w})3.141592653589793238462643383279502884 * ${x.a}) / ((${x.w})3.141592653589793238462643383279502884 * ${x.a}))`,
    // NumPy's sinc is sin(pi x) / (pi x) in Python: integers and bool become float64, as they do there.
    { preamble: MATH_PREAMBLE, compute: (d) => (d.kind === "b" || d.kind === "i" || d.kind === "u" ? dtypes.float64 : d) },
  ),
  conj: spec("conj", LOOPS.numeric, (x) => (x.c.kind === "c" ? `cuda::std::conj(${x.a})` : x.a)),
  angle: spec("angle", LOOPS.inexact, (x) => (x.c.kind === "c" ? `cuda::std::arg(${x.a})` : `${mathFunction("atan2", x)}((${x.w})0, ${x.a})`), {
    result: "real",
    // NumPy: arctan2(0, x) for real x (so a bool or integer x meets a weak integer 0 first).
    compute: (d) => (d.kind === "c" ? d : searchLoop(LOOPS.float, [d, operationType([d, 0], "angle")])),
  }),
  deg2rad: spec("deg2rad", LOOPS.float, (x) => `(${x.a} * (${x.w})0.017453292519943295)`, { refuse: noComplex("degrees") }),
  rad2deg: spec("rad2deg", LOOPS.float, (x) => `(${x.a} * (${x.w})57.29577951308232)`, { refuse: noComplex("degrees") }),
  fabs: spec("fabs", LOOPS.float, (x) => `${mathFunction("fabs", x)}(${x.a})`, {
    refuse: (d) => (d.kind === "c" ? "it takes real numbers (NumPy refuses complex too); abs gives a complex number's magnitude" : undefined),
  }),
  i0: spec("i0", LOOPS.float, (x) => `${mathFunction("cyl_bessel_i0", x)}(${x.a})`, {
    // NumPy's i0 is a function, not a ufunc: floats keep their dtype, integers and bool become float64.
    compute: (d) => (d.kind === "f" ? d : d.kind === "c" ? undefined : dtypes.float64),
    refuse: (d) => (d.kind === "c" ? "i0 is not defined for complex numbers (NumPy refuses them too)" : undefined),
  }),
  bitwiseCount: spec(
    "bitwiseCount",
    LOOPS.integer,
    (x) => `__popcll(${x.c.kind === "i" ? `(${x.a} < 0 ? 0ull - (unsigned long long)(long long)${x.a} : (unsigned long long)(long long)${x.a})` : `(unsigned long long)${x.a}`})`,
    { result: "uint8", refuse: (d) => (d.kind === "f" || d.kind === "c" ? "it counts the bits of integers (NumPy refuses floats too)" : undefined) },
  ),
  invert: spec("invert", LOOPS.integerBool, (x) => (x.c.kind === "b" ? `(!${x.a})` : `(${x.w})(~${x.a})`)),
  logicalNot: spec("logicalNot", "?", (x) => `(!${x.a})`, { result: "bool", compute: () => dtypes.bool }),
} as const satisfies Record<string, OpSpec>;

/** The names of the unary operations. */
export type UnaryOpName = keyof typeof UNARY_OPS;

/** `-a` (integers wrap; not for bool). Also `a.neg()`. */
export function neg(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.neg, a, options);
}
/** `+a`, a copy (not for bool). */
export function positive(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.positive, a, options);
}
/** `|a|` (complex: the magnitude, in the real dtype; the least signed integer stays itself). Also `a.abs()`. */
export function abs(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.abs, a, options);
}
/** -1, 0 or 1 by the sign (NaN stays NaN; complex: `z / |z|`). Not for bool. */
export function sign(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.sign, a, options);
}
/** The square root (integers: in the float that holds them; negative reals give NaN). */
export function sqrt(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.sqrt, a, options);
}
/** The cube root (real dtypes). */
export function cbrt(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.cbrt, a, options);
}
/** `a * a` (bool computes as int8). */
export function square(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.square, a, options);
}
/** `1 / a` (integers: integer division, 0 for 0). */
export function reciprocal(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.reciprocal, a, options);
}
/** `e ** a`. */
export function exp(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.exp, a, options);
}
/** `2 ** a`. */
export function exp2(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.exp2, a, options);
}
/** `e ** a - 1`, accurate near 0. */
export function expm1(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.expm1, a, options);
}
/** The natural logarithm. */
export function log(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.log, a, options);
}
/** The base-2 logarithm. */
export function log2(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.log2, a, options);
}
/** The base-10 logarithm. */
export function log10(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.log10, a, options);
}
/** `log(1 + a)`, accurate near 0. */
export function log1p(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.log1p, a, options);
}
/** The sine (radians). */
export function sin(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.sin, a, options);
}
/** The cosine (radians). */
export function cos(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.cos, a, options);
}
/** The tangent (radians). */
export function tan(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.tan, a, options);
}
/** The inverse sine. */
export function asin(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.asin, a, options);
}
/** The inverse cosine. */
export function acos(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.acos, a, options);
}
/** The inverse tangent. */
export function atan(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.atan, a, options);
}
/** The hyperbolic sine. */
export function sinh(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.sinh, a, options);
}
/** The hyperbolic cosine. */
export function cosh(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.cosh, a, options);
}
/** The hyperbolic tangent. */
export function tanh(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.tanh, a, options);
}
/** The inverse hyperbolic sine. */
export function asinh(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.asinh, a, options);
}
/** The inverse hyperbolic cosine. */
export function acosh(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.acosh, a, options);
}
/** The inverse hyperbolic tangent. */
export function atanh(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.atanh, a, options);
}
/** The greatest integer not above (integers and bool: themselves, in their dtype). */
export function floor(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.floor, a, options);
}
/** The least integer not below (integers and bool: themselves, in their dtype). */
export function ceil(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.ceil, a, options);
}
/** Rounded toward zero (integers and bool: themselves, in their dtype). */
export function trunc(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.trunc, a, options);
}
/** Rounded to the nearest integer, ties to even (integers compute in the float that holds them). */
export function rint(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.rint, a, options);
}
/** Whether each element is NaN (complex: either part): a bool array. */
export function isnan(a: DeviceArray, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return applyUnary(UNARY_OPS.isnan, a, options) as DeviceArray<"bool">;
}
/** Whether each element is infinite (complex: either part): a bool array. */
export function isinf(a: DeviceArray, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return applyUnary(UNARY_OPS.isinf, a, options) as DeviceArray<"bool">;
}
/** Whether each element is finite (complex: both parts): a bool array. */
export function isfinite(a: DeviceArray, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return applyUnary(UNARY_OPS.isfinite, a, options) as DeviceArray<"bool">;
}
/** Whether the sign bit is set (-0.0 included): a bool array. Real dtypes. */
export function signbit(a: DeviceArray, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return applyUnary(UNARY_OPS.signbit, a, options) as DeviceArray<"bool">;
}
/** Whether each element is +infinity (false for integers and bool; not for complex), as NumPy's `isposinf`. */
export function isposinf(a: DeviceArray, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return applyUnary(UNARY_OPS.isposinf, a, options) as DeviceArray<"bool">;
}
/** Whether each element is -infinity (false for integers and bool; not for complex), as NumPy's `isneginf`. */
export function isneginf(a: DeviceArray, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return applyUnary(UNARY_OPS.isneginf, a, options) as DeviceArray<"bool">;
}
/**
 * The distance from each element to the next representable value away from zero, in its own dtype, as NumPy's
 * `spacing` (the size of one unit in the last place, negative for negative elements): `spacing(1)` in float32 is
 * 2^-23; 0 gives the smallest subnormal, infinities and NaN give NaN. float16 follows NumPy's float16 loop, which
 * steps toward +infinity instead (always positive: `spacing(-1)` is 2^-11). Floats (integers compute in the float
 * that holds them); not for complex.
 */
export function spacing(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.spacing, a, options);
}
/**
 * The normalised sinc, `sin(pi x) / (pi x)` and 1 at 0, as NumPy's `sinc`: floats and complex keep their dtype,
 * integers and bool give float64 (as NumPy's, which computes it in Python floats).
 */
export function sinc(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.sinc, a, options);
}
/** The complex conjugate (real dtypes: a copy; bool computes as int8). */
export function conj(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.conj, a, options);
}
/** The argument of complex numbers (`atan2(im, re)`), in radians, in the real dtype; reals: 0 or π. */
export function angle(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.angle, a, options);
}
/** Degrees to radians. */
export function deg2rad(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.deg2rad, a, options);
}
/** Radians to degrees. */
export function rad2deg(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.rad2deg, a, options);
}
/** `|a|` of real numbers, in the float that holds the dtype (`fabs` of int8 is float16), as NumPy's `fabs`; not for complex (`abs` is). */
export function fabs(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.fabs, a, options);
}
/**
 * The modified Bessel function of the first kind, order 0 (CUDA's `cyl_bessel_i0`), as NumPy's `i0`: floats keep
 * their dtype (float16 and bfloat16 compute in float32), integers and bool give float64; not for complex. An
 * infinity gives +Infinity (NumPy's formula gives NaN there); NumPy computes in the input's own float, so its float16
 * `i0(12)` and float32 `i0(89)` overflow to Infinity where these give the finite values (1.894e4, 1.9e37).
 */
export function i0(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.i0, a, options);
}
/**
 * The number of 1 bits in each element's absolute value, as NumPy 2's `bitwise_count`: a uint8 array (`-1` counts
 * 1, int8 `-128` counts 1); integers and bool only.
 */
export function bitwiseCount(a: DeviceArray, options?: ElementwiseOptions): DeviceArray<"uint8"> {
  return applyUnary(UNARY_OPS.bitwiseCount, a, options) as DeviceArray<"uint8">;
}
/** `~a` of integers (bool: logical not). */
export function invert(a: DeviceArray, options?: ElementwiseOptions): DeviceArray {
  return applyUnary(UNARY_OPS.invert, a, options);
}
/** Whether each element is zero: a bool array (any dtype). */
export function logicalNot(a: DeviceArray, options?: ElementwiseOptions): DeviceArray<"bool"> {
  return applyUnary(UNARY_OPS.logicalNot, a, options) as DeviceArray<"bool">;
}

/** Options of {@link round}. */
export interface RoundOptions extends ElementwiseOptions {
  /** The decimal places kept (default 0; negative rounds to tens, hundreds, ...). */
  readonly decimals?: number;
}

const ROUND_PREAMBLE = `
template <typename S> __device__ __forceinline__ S _ct_round_multiple(S a, S m) {
  S q = a / m;
  S r = a - q * m;
  if (r < (S)0) { r += m; q -= (S)1; }
  const S twice = r * (S)2;
  if (twice > m || (twice == m && (q & (S)1))) q += (S)1;
  return q * m;
}
`;

/** The dtype `round` computes in: bool as float16 (NumPy), the dtype otherwise. */
const ROUND_SPEC: OpSpec = { name: "round", loops: "ebBhHiIqQefdFD", result: "same", code: (x) => x.a, compute: (d) => (d.kind === "b" ? dtypes.float16 : d) };

/**
 * Rounded to `decimals` places (default 0), ties to even, as NumPy's `round`: floats as `rint(a * 10^d) / 10^d`
 * (the float's arithmetic), integers kept (negative `decimals`: to a multiple of `10^-d`, ties to even), complex by
 * parts, bool as float16.
 */
export function round(a: DeviceArray, options?: RoundOptions): DeviceArray {
  const what = "round";
  if (!(a instanceof DeviceArray)) throw new TypeError(`round takes a DeviceArray, not ${describeValue(a)}`);
  const decimals = options?.decimals ?? 0;
  if (typeof decimals !== "number" || !Number.isInteger(decimals) || Math.abs(decimals) > 300) throw new TypeError(`round: decimals is an integer (from -300 to 300), got ${describeValue(decimals)}`);
  const c = computeDType(ROUND_SPEC, a.dtype);
  const r = resultDType(ROUND_SPEC, c);
  const out = checkOut(options, a.shape, r, what);
  const { kernel, args } = roundKernel(a, decimals, c, r, out?.dtype ?? r);
  const stream = operationStream(what, options, [a, out]);
  return launchInto(kernel, stream, args, out);
}

/** The kernel of `round` and its arguments. */
function roundKernel(a: DeviceArray, decimals: number, c: DType, r: DType, to: DType): { kernel: ElementwiseKernel; args: (DeviceArray | number | bigint)[] } {
  const ta = a.dtype;
  if (isInteger(c)) {
    if (decimals >= 0) return { kernel: unaryCopy(ta, c, to), args: [a] };
    const wide = c.name === "uint64" ? "unsigned long long" : "long long";
    const m = 10n ** BigInt(-decimals);
    // Beyond 10^18 every int64 rounds to 0 (uint64 too, but for values from 5·10^18 up).
    if (m > 10n ** 18n) {
      const zeros = cachedKernel(`round|${ta.name}|${to.name}|zero`, () => new ElementwiseKernel(`${ta.name} x`, `${to.name} z`, `z = ${fromWorking("0", r, to)}`, `cuda_ts_round_${ta.name}_${to.name}_zero`, { preamble: ROUNDING_PREAMBLE }));
      return { kernel: zeros, args: [a] };
    }
    const k = cachedKernel(`round|${ta.name}|${to.name}|int`, () => {
      const w = workingType(c);
      const body = `const ${w} _ca = ${toWorking("x", ta, c)}; z = ${fromWorking(`(${w})_ct_round_multiple<${wide}>((${wide})_ca, (${wide})m)`, r, to)}`;
      return new ElementwiseKernel(`${ta.name} x, ${c.name === "uint64" ? "uint64" : "int64"} m`, `${to.name} z`, body, `cuda_ts_round_${ta.name}_${to.name}_int`, { preamble: ROUNDING_PREAMBLE + ROUND_PREAMBLE });
    });
    return { kernel: k, args: [a, m] };
  }
  const k = cachedKernel(`round|${ta.name}|${c.name}|${to.name}|${decimals >= 0 ? "pos" : "neg"}`, () => {
    const w = workingType(c);
    const real = c.kind === "c" ? realType(c) : w;
    const one = (v: string): string => (decimals >= 0 ? `(rint(${v} * (${real})f) / (${real})f)` : `(rint(${v} / (${real})f) * (${real})f)`);
    const expr = c.kind === "c" ? `${w}(${one("_ca.real()")}, ${one("_ca.imag()")})` : one("_ca");
    const body = `const ${w} _ca = ${toWorking("x", ta, c)}; z = ${fromWorking(expr, r, to)}`;
    return new ElementwiseKernel(`${ta.name} x, float64 f`, `${to.name} z`, body, `cuda_ts_round_${ta.name}_${c.name}_${to.name}_${decimals >= 0 ? "pos" : "neg"}`, { preamble: ROUNDING_PREAMBLE });
  });
  return { kernel: k, args: [a, 10 ** Math.abs(decimals)] };
}

/** A converting copy `ta` → `to` through `c` (the identity of `round` for integers). */
function unaryCopy(ta: DType, c: DType, to: DType): ElementwiseKernel {
  return cachedKernel(`copy|${ta.name}|${c.name}|${to.name}`, () => new ElementwiseKernel(`${ta.name} x`, `${to.name} z`, `z = ${fromWorking(toWorking("x", ta, c), c, to)}`, `cuda_ts_copy_${ta.name}_${c.name}_${to.name}`, { preamble: ROUNDING_PREAMBLE }));
}

/** A view of the real (`imag`: imaginary) parts of a complex array: the real dtype, strides doubled. */
function partView(a: DeviceArray, imag: boolean): DeviceArray {
  a.slice(); // ClosedError for a closed array
  const r = realOf(a.dtype);
  return new DeviceArray(INTERNAL, a.buffer, r, a.shape, a.strides.map((s) => s * 2), a.byteOffset + (imag ? r.itemsize : 0), a, false);
}

/**
 * The real parts: for a complex array a view of them (writing into it writes the complex array), in the real dtype;
 * for a real array a view of the array itself.
 */
export function real(a: DeviceArray): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`real takes a DeviceArray, not ${describeValue(a)}`);
  return a.dtype.kind === "c" ? partView(a, false) : a.slice();
}

/**
 * The imaginary parts: for a complex array a view of them (real dtype); for a real array a new array of zeros of its
 * dtype and shape (on the operation's stream).
 */
export function imag(a: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`imag takes a DeviceArray, not ${describeValue(a)}`);
  if (a.dtype.kind === "c") {
    return partView(a, true);
  }
  const stream = operationStream("imag", options, [a]);
  return DeviceArray.zeros(a.shape, a.dtype, { stream });
}

/** Options of `nanToNum`: the replacements, whether to copy, the stream and an `out`. */
export interface NanToNumOptions extends ElementwiseOptions {
  /** What NaN becomes (default 0). */
  readonly nan?: number;
  /** What +infinity becomes (default: the dtype's largest finite value, 65504 for float16, 3.4028234663852886e38 for float32, ...). */
  readonly posinf?: number;
  /** What -infinity becomes (default: the dtype's most negative finite value). */
  readonly neginf?: number;
  /**
   * Whether the result is a new array (default true); false replaces in `a` itself and returns it (an integer or bool
   * array is returned as it is), as NumPy's `copy=False`. Not with `out`, unless `out` is `a`.
   */
  readonly copy?: boolean;
}

/** The largest finite value of each real float dtype (NumPy's `finfo(dtype).max`). */
const LARGEST_FINITE: Readonly<Record<string, number>> = {
  float16: 65504,
  bfloat16: 3.3895313892515355e38,
  float32: 3.4028234663852886e38,
  float64: Number.MAX_VALUE,
};

/**
 * `a` with NaN, +infinity and -infinity replaced by finite numbers, as NumPy's `nan_to_num`: NaN by `nan` (default
 * 0), the infinities by `posinf` and `neginf` (default the dtype's largest finite value and its negative); a complex
 * array's real and imaginary parts each so. Integer and bool arrays hold none: they are copied as they are (or, with
 * `copy: false`, returned themselves). Float16 and bfloat16 take their own largest values; replacements convert to
 * the dtype as a weak scalar does (a value past its range becomes an infinity). A new array of `a`'s dtype and shape,
 * `a` itself with `copy: false`, or `out` (of `a`'s shape, a dtype `a`'s converts to under "same_kind": the result in
 * `a`'s dtype, then cast). One kernel per real part.
 *
 * ```ts
 * nanToNum(x);                                   // [NaN, Infinity, -Infinity, 1.5] → [0, 1.797e308, -1.797e308, 1.5]
 * nanToNum(x, { nan: -1, posinf: 9, neginf: -9 }); // → [-1, 9, -9, 1.5]
 * nanToNum(x, { copy: false });                   // in place: x itself
 * ```
 */
export function nanToNum(a: DeviceArray, options?: NanToNumOptions): DeviceArray {
  const what = "nanToNum";
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(a)}`);
  if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) {
    throw new TypeError(`${what} takes options { nan?, posinf?, neginf?, copy?, out?, stream? }, got ${describeValue(options)}`);
  }
  for (const name of ["nan", "posinf", "neginf"] as const) {
    const v = options?.[name];
    if (v !== undefined && typeof v !== "number") throw new TypeError(`${what}: ${name} is a number (the value it becomes), got ${describeValue(v)}`);
  }
  const copy = options?.copy ?? true;
  if (typeof copy !== "boolean") throw new TypeError(`${what}: copy is a boolean, got ${describeValue(copy)}`);
  const out = checkOut(options, a.shape, a.dtype, what);
  if (out !== undefined && !copy && out !== a) {
    throw new ArgumentError(`${what}: copy: false replaces in the array itself, but out is another array; pass out, or copy: false, not both`);
  }
  const inexact = a.dtype.kind === "f" || a.dtype.kind === "c";
  if (inexact && !copy) checkWritable(a, `${what} (copy: false)`);
  if (!inexact && (out === a || (out === undefined && !copy))) return a; // nothing to replace, nothing queued
  const stream = operationStream(what, options, [a, out]);
  if (!inexact) {
    if (out === undefined) return a.copy({ stream });
    castInto(stream, a, out);
    return out;
  }
  const part = realOf(a.dtype);
  const largest = LARGEST_FINITE[part.name]!;
  const nan = options?.nan ?? 0;
  const posinf = options?.posinf ?? largest;
  const neginf = options?.neginf ?? -largest;
  const dst = out ?? (copy ? DeviceArray.empty(a.shape, a.dtype, { stream }) : a);
  const parts: [DeviceArray, DeviceArray][] = a.dtype.kind === "c" ? [[real(a), real(dst)], [imag(a), imag(dst)]] : [[a, dst]];
  const to = realOf(dst.dtype);
  const k = cachedKernel(`nanToNum|${part.name}|${to.name}`, () => {
    // Tested in float for float16 and bfloat16; the replacements are of `a`'s dtype, the result cast to the destination's.
    const v = castExpression("x", part, part.itemsize === 2 ? dtypes.float32 : part);
    const body = `z = ${castExpression(`(isnan(${v}) ? n : isinf(${v}) ? (${v} > 0 ? p : m) : x)`, part, to)}`;
    return new ElementwiseKernel(`${part.name} x, ${part.name} n, ${part.name} p, ${part.name} m`, `${to.name} z`, body, `cuda_ts_nan_to_num_${part.name}_${to.name}`);
  });
  try {
    for (const [src, into] of parts) k.launch(stream, src, scalarFor(nan, part), scalarFor(posinf, part), scalarFor(neginf, part), into);
  } catch (e) {
    if (dst !== a && dst !== out) dst.close(stream);
    throw e;
  }
  return dst;
}

provideArrayMethods({
  neg: (self, options) => neg(self, options),
  abs: (self, options) => abs(self, options),
});
