/**
 * A float's parts, as NumPy's ufuncs of these names: `frexp` (mantissa and binary exponent), `ldexp` (a mantissa
 * times a power of two) and `modf` (fractional and integral parts).
 *
 * ```ts
 * const [m, e] = frexp(x);     // x = m * 2**e, 0.5 <= |m| < 1 (m is x's float dtype, e int32)
 * const y = ldexp(m, e);       // y equals x, bit for bit
 * const [f, n] = modf(x);      // [-2.5, 3.75] → f [-0.5, 0.75], n [-2, 3]
 * ```
 *
 * Dtypes as NumPy's loops (`e`, `f`, `d`): the first of float16, float32, float64 an input converts to safely
 * (int8, uint8 and bool compute in float16; int16 and uint16 in float32; wider integers in float64); bfloat16 stays
 * bfloat16. float16 and bfloat16 compute in float32 and round once, which gives their exact results. Complex inputs
 * are refused, as NumPy refuses them.
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { DTypeError } from "../errors.ts";
import type { ElementwiseOptions } from "../options.ts";
import type { ArrayOperand } from "../methods.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import type { Stream } from "../../stream.ts";
import { mathFunction } from "./arithmetic.ts";
import { ROUNDING_PREAMBLE, fromWorking, toWorking, workingType } from "./cast.ts";
import { LOOPS, broadcastOf, cachedKernel, checkArrayArgument, checkOperand, checkOut, launchInto, searchLoop } from "./elementwise.ts";

/** The float loop (NumPy's `e`, `f`, `d`; bfloat16 as itself) an input of dtype `d` computes in, or a DTypeError. */
function floatLoop(what: string, d: DType): DType {
  const c = d.kind === "c" ? undefined : searchLoop(LOOPS.float, [d]);
  if (c === undefined) {
    throw new DTypeError(`${what}: not supported for ${d.name} (it takes real numbers: bool, integers, float16, bfloat16, float32, float64); pass the real part (real) or the magnitude (abs)`);
  }
  return c;
}

/** The C math function `name` for the working type of float dtype `c`: `frexpf` for float, `frexp` for double. */
const mathName = (name: string, c: DType): string => mathFunction(name, { c, w: workingType(c) });

/** Checks the options of the two-result functions: `{ stream? }` (their two results are new arrays). */
function checkPairOptions(what: string, options: ArrayOperationOptions | undefined): void {
  if (options === undefined) return;
  if (options === null || typeof options !== "object" || Array.isArray(options)) throw new TypeError(`${what} takes options { stream? }, got ${describeValue(options)}`);
  if ("out" in options) throw new TypeError(`${what} takes no out (it makes two new arrays); copy its results where they must go (copyFrom)`);
}

/** Launches `k` from `a` into two new arrays of `a`'s shape and dtypes `first` and `second` (closed if it fails). */
function launchPair(k: ElementwiseKernel, stream: Stream, a: DeviceArray, first: DType, second: DType): [DeviceArray, DeviceArray] {
  const made: DeviceArray[] = [];
  try {
    made.push(DeviceArray.empty(a.shape, first, { stream }), DeviceArray.empty(a.shape, second, { stream }));
    k.launch(stream, a, made[0]!, made[1]!);
  } catch (err) {
    for (const x of made) x.close(stream);
    throw err;
  }
  return [made[0]!, made[1]!];
}

/**
 * Each element as a mantissa and a power of two, `x = m * 2**e` with `0.5 <= |m| < 1`, as NumPy's `frexp`: zeros
 * give `[±0, 0]`, infinities and NaN themselves with exponent 0; subnormal numbers their exact exponent
 * (`frexp(5e-324)` is `[0.5, -1073]`). Two new arrays: the mantissas in the input's float dtype (see the module's
 * description), the exponents int32. Not for complex.
 *
 * ```ts
 * const [m, e] = frexp(x);   // [8, -3, 0.1] → m [0.5, -0.75, 0.8], e [4, 2, -3]
 * ```
 */
export function frexp(a: DeviceArray, options?: ArrayOperationOptions): [DeviceArray, DeviceArray<"int32">] {
  const what = "frexp";
  checkArrayArgument(a, what, "the array");
  checkPairOptions(what, options);
  const c = floatLoop(what, a.dtype);
  const k = cachedKernel(`frexp|${a.dtype.name}|${c.name}`, () => {
    const w = workingType(c);
    const body = [
      `const ${w} _v = ${toWorking("x", a.dtype, c)};`,
      "int _e = 0;",
      `const ${w} _m = ${mathName("frexp", c)}(_v, &_e);`,
      // CUDA leaves the exponent of an infinity or a NaN unspecified; NumPy (C's libm) gives 0.
      `const bool _finite = isfinite(_v);`,
      `m = ${fromWorking("(_finite ? _m : _v)", c, c)};`,
      "e = _finite ? _e : 0;",
    ].join(" ");
    return new ElementwiseKernel(`${a.dtype.name} x`, `${c.name} m, int32 e`, body, `cuda_ts_frexp_${a.dtype.name}_${c.name}`, { preamble: ROUNDING_PREAMBLE });
  });
  return launchPair(k, operationStream(what, options, [a]), a, c, dtypes.int32) as [DeviceArray, DeviceArray<"int32">];
}

/**
 * Each element's fractional and integral parts, both with its sign, as NumPy's `modf` (C's `modf`): `-2.5` gives
 * `[-0.5, -2]`; infinities give `[±0, ±inf]`, NaN `[NaN, NaN]`. Two new arrays of the input's float dtype (see the
 * module's description). Not for complex.
 *
 * ```ts
 * const [frac, whole] = modf(x);   // [-2.5, 3.75] → frac [-0.5, 0.75], whole [-2, 3]
 * ```
 */
export function modf(a: DeviceArray, options?: ArrayOperationOptions): [DeviceArray, DeviceArray] {
  const what = "modf";
  checkArrayArgument(a, what, "the array");
  checkPairOptions(what, options);
  const c = floatLoop(what, a.dtype);
  const k = cachedKernel(`modf|${a.dtype.name}|${c.name}`, () => {
    const w = workingType(c);
    const body = `const ${w} _v = ${toWorking("x", a.dtype, c)}; ${w} _n; const ${w} _f = ${mathName("modf", c)}(_v, &_n); f = ${fromWorking("_f", c, c)}; n = ${fromWorking("_n", c, c)};`;
    return new ElementwiseKernel(`${a.dtype.name} x`, `${c.name} f, ${c.name} n`, body, `cuda_ts_modf_${a.dtype.name}_${c.name}`, { preamble: ROUNDING_PREAMBLE });
  });
  return launchPair(k, operationStream(what, options, [a]), a, c, c);
}

/** Checks an exponent array's dtype: one that converts safely to int32 or int64 (NumPy's `i` and `l` loops). */
function checkExponentDType(d: DType): void {
  if ((d.kind === "b" || d.kind === "i" || d.kind === "u") && d.name !== "uint64") return;
  const why = d.kind === "f" || d.kind === "c" ? "the exponents are integers" : "uint64 does not convert safely to int64";
  throw new DTypeError(`ldexp: the exponent array is ${d.name}, but ${why} (bool, int8 to int64, uint8 to uint32); convert it with astype("int64") or astype("int32")`);
}

/**
 * `a * 2**b`, elementwise and broadcast, as NumPy's `ldexp`: `a` gives the float dtype (see the module's description;
 * a JavaScript number is float64, where NumPy takes a Python int as float16), `b` the integer exponents: an array of bool or an integer dtype up to int64
 * (uint64 and floats are refused, as NumPy refuses them) or a JavaScript integer within int32's range. Exact where the
 * result is representable; past the range, infinities and zeros with `a`'s sign (`ldexp(1, 1e5)` is Infinity).
 * A new array of that dtype, or `options.out` (NumPy's "same_kind" casting).
 *
 * ```ts
 * ldexp(m, e);                 // undoes frexp
 * ldexp(x, 3);                 // x * 8, exactly
 * ```
 */
export function ldexp(a: ArrayOperand, b: ArrayOperand, options?: ElementwiseOptions): DeviceArray {
  const what = "ldexp";
  checkOperand(a, what, "the mantissa");
  checkOperand(b, what, "the exponent");
  if (a instanceof DeviceArray) checkArrayArgument(a, what, "the mantissa");
  if (b instanceof DeviceArray) checkArrayArgument(b, what, "the exponent");
  if (!(a instanceof DeviceArray) && !(b instanceof DeviceArray)) {
    throw new TypeError(`${what}: the mantissa or the exponent must be a DeviceArray; both are scalars (${describeValue(a)}, ${describeValue(b)}): compute ${describeValue(a)} * 2 ** ${describeValue(b)} in JavaScript, or make one an array`);
  }
  let c: DType;
  if (a instanceof DeviceArray) c = floatLoop(what, a.dtype);
  else if (typeof a === "number" || typeof a === "bigint" || typeof a === "boolean") c = dtypes.float64;
  else throw new DTypeError(`${what}: the mantissa is complex (${describeValue(a)}); ldexp takes real numbers`);
  const ta = a instanceof DeviceArray ? a.dtype : c;
  let te: DType;
  let exponent: ArrayOperand;
  if (b instanceof DeviceArray) {
    checkExponentDType(b.dtype);
    te = b.dtype;
    exponent = b;
  } else {
    const v = typeof b === "boolean" ? Number(b) : typeof b === "bigint" ? Number(b) : typeof b === "number" ? b : Number.NaN;
    if (Array.isArray(b) || !Number.isInteger(v)) {
      throw new DTypeError(`${what}: the exponent is an integer (a number without a fraction, a bigint, or an integer array), got ${describeValue(b)}`);
    }
    if (v < -(2 ** 31) || v >= 2 ** 31) throw new ArgumentError(`${what}: the exponent ${String(b)} is past int32's range, where NumPy takes a Python int; pass it as an int64 array if you mean it`);
    te = dtypes.int32;
    exponent = v;
  }
  const shape = broadcastOf([a, b], ["the mantissa", "the exponent"], what);
  const out = checkOut(options, shape, c, what);
  const to = out?.dtype ?? c;
  const k = cachedKernel(`ldexp|${ta.name}|${te.name}|${c.name}|${to.name}`, () => {
    const w = workingType(c);
    // Exponents past ±100,000 scale every finite number of every dtype to infinity or zero, as the exponent does.
    const n = te.name === "int64" ? "(int)(n > 100000 ? 100000 : n < -100000 ? -100000 : n)" : te.name === "uint32" ? "(int)(n > 100000u ? 100000u : n)" : "(int)n";
    const body = `z = ${fromWorking(`${mathName("ldexp", c)}(${toWorking("x", ta, c)}, ${n})`, c, to)};`;
    return new ElementwiseKernel(`${ta.name} x, ${te.name} n`, `${to.name} z`, body, `cuda_ts_ldexp_${ta.name}_${te.name}_${c.name}_${to.name}`, { preamble: ROUNDING_PREAMBLE });
  });
  const stream = operationStream(what, options, [a, b, out]);
  return launchInto(k, stream, [a instanceof DeviceArray ? a : Number(a), exponent], out);
}
