/**
 * Conversions between the 15 dtypes, as C++ expressions for generated kernels, and `astype`, the operation built on
 * them.
 *
 * The conversions are C++'s, with NumPy's choices where C++ leaves the result open: float to integer truncates
 * toward zero (through a 64-bit integer, so a negative float wraps into an unsigned type as on NumPy's usual
 * platforms: -1.0 gives 255 as a uint8); complex to real takes the real part (NumPy warns, cuda-ts does not); to bool
 * is "not zero" (complex: either part); float16 and bfloat16 go through float32 (one rounding: the CUDA intrinsics
 * round to nearest even, from float64 and 64-bit integers directly); integers to integers wrap (two's complement).
 * Values outside a target's range (a float beyond an integer type, NaN to an integer) are undefined, as in NumPy.
 *
 * @module
 */
import { DeviceArray, operationStream } from "../device-array.ts";
import { dtypeOf, dtypes, type DType, type DTypeName } from "../dtype.ts";
import { realOf } from "../promotion.ts";
import type { AstypeOptions, DTypeArgument } from "../options.ts";
import { provideArrayMethods } from "../methods.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import type { Stream } from "../../stream.ts";

const isHalf = (d: DType): boolean => d.name === "float16" || d.name === "bfloat16";

/** `expr` (a float32 value) rounded to float16 or bfloat16. */
function fromFloat(expr: string, to: DType): string {
  return to.name === "float16" ? `__float2half_rn(${expr})` : `__float2bfloat16_rn(${expr})`;
}

/** The intrinsic converting an integer, bool or float64 of dtype `from` to a half type (`h`: "half" or "bfloat16"). */
function toHalfFrom(expr: string, from: DType, to: DType): string {
  const h = to.name === "float16" ? "half" : "bfloat16";
  switch (from.name) {
    case "float64":
      return `__double2${h}(${expr})`;
    case "float32":
      return fromFloat(expr, to);
    case "int64":
      return `__ll2${h}_rn(${expr})`;
    case "uint64":
      return `__ull2${h}_rn(${expr})`;
    case "int32":
      return `__int2${h}_rn(${expr})`;
    case "uint32":
      return `__uint2${h}_rn(${expr})`;
    case "int8":
    case "int16":
      return `__short2${h}_rn((short)(${expr}))`;
    default: // bool, uint8, uint16
      return `__ushort2${h}_rn((unsigned short)(${expr}))`;
  }
}

/** A half value as float32. */
function halfToFloat(expr: string, from: DType): string {
  return from.name === "float16" ? `__half2float(${expr})` : `__bfloat162float(${expr})`;
}

/**
 * The C++ expression converting `expr`, a value of dtype `from`, to dtype `to` (see the module's description for the
 * rules). Exported for tests and for the other elementwise operations.
 */
export function castExpression(expr: string, from: DType, to: DType): string {
  if (from === to) return expr;
  if (to.kind === "b") {
    if (from.kind === "c") return `((${expr}).real() != 0 || (${expr}).imag() != 0)`;
    if (isHalf(from)) return `(${halfToFloat(expr, from)} != 0.0f)`;
    return `((${expr}) != 0)`;
  }
  if (from.kind === "c") {
    if (to.kind === "c") return `${to.ctype}(${expr})`;
    return castExpression(`(${expr}).real()`, realOf(from), to);
  }
  if (to.kind === "c") return `${to.ctype}(${castExpression(expr, from, realOf(to))})`;
  if (isHalf(from)) {
    const f = halfToFloat(expr, from);
    return isHalf(to) ? fromFloat(f, to) : castExpression(f, dtypes.float32, to);
  }
  if (isHalf(to)) return toHalfFrom(expr, from, to);
  if (from.kind === "f" && (to.kind === "i" || to.kind === "u")) {
    if (to.name === "int64") return `(long long)(${expr})`;
    if (to.name === "uint64") return `((${expr}) < 0 ? (unsigned long long)(long long)(${expr}) : (unsigned long long)(${expr}))`;
    return `(${to.ctype})(long long)(${expr})`;
  }
  return `(${to.ctype})(${expr})`;
}

/** The C++ type a dtype is computed in: float for float16 and bfloat16, the dtype's own otherwise. */
export function workingType(d: DType): string {
  return isHalf(d) ? "float" : d.ctype;
}

/** The dtype whose C++ type {@link workingType} gives: float32 for the half types. */
export function workingDType(d: DType): DType {
  return isHalf(d) ? dtypes.float32 : d;
}

/** `expr` of dtype `from` as a value of `compute`'s working type (float for the half types). */
export function toWorking(expr: string, from: DType, compute: DType): string {
  if (!isHalf(compute)) return castExpression(expr, from, compute);
  return from === compute ? halfToFloat(expr, from) : castExpression(expr, from, dtypes.float32);
}

/**
 * `expr`, a result of dtype `result` in its working type, stored as `to` (a half result is rounded to its dtype
 * first, so an `out` of another dtype gets what the result's dtype holds, as NumPy).
 */
export function fromWorking(expr: string, result: DType, to: DType): string {
  if (!isHalf(result)) return castExpression(expr, result, to);
  if (result === to) return castExpression(expr, dtypes.float32, result);
  // Rounded onto the half type's values as a float (no header needed: the kernel may have no half parameter).
  return castExpression(`${result.name === "float16" ? "_ct_round_f16" : "_ct_round_bf16"}(${expr})`, dtypes.float32, to);
}

/**
 * Device functions rounding a float onto float16's or bfloat16's values, kept as a float (to nearest, ties to even;
 * NaN stays NaN), without the half headers: what {@link fromWorking} calls when a half result goes to another dtype.
 */
export const ROUNDING_PREAMBLE = `
__device__ __forceinline__ float _ct_round_f16(float x) {
  unsigned short h;
  float r;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
  asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(h));
  return r;
}
__device__ __forceinline__ float _ct_round_bf16(float x) {
  unsigned int u = __float_as_uint(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return x;
  u += 0x7fffu + ((u >> 16) & 1u);
  return __uint_as_float(u & 0xffff0000u);
}
`;

const casts = new Map<string, ElementwiseKernel>();

/** @internal The kernel converting `from` to `to` (an array or a scalar `x`), made once. */
export function castKernel(from: DType, to: DType): ElementwiseKernel {
  const key = `${from.name}>${to.name}`;
  let k = casts.get(key);
  if (k === undefined) {
    k = new ElementwiseKernel(`${from.name} x`, `${to.name} z`, `z = ${castExpression("x", from, to)}`, `cuda_ts_astype_${from.name}_${to.name}`);
    casts.set(key, k);
  }
  return k;
}

/**
 * @internal Copies `src` into `dst` (one shape, any views), converted to `dst`'s dtype by astype's rules, on `stream`:
 * what `concatenate` of mixed dtypes and the indexing operations use. `stream` first waits for the streams `src` and
 * `dst` were made on, as every array operation does (a result a caller's function made on another stream, say).
 */
export function castInto(stream: Stream, src: DeviceArray, dst: DeviceArray): void {
  if (src.dtype === dst.dtype) {
    dst.copyFrom(src, { stream });
    return;
  }
  operationStream("castInto", { stream }, [src, dst]);
  castKernel(src.dtype, dst.dtype).launch(stream, src, dst);
}

/** @internal For tests: the generated source of a conversion kernel. */
export function castKernelSource(from: DTypeName, to: DTypeName): string {
  const f = dtypes[from];
  const t = dtypes[to];
  const k = castKernel(f, t);
  return k.source({ types: new Map(), dtypes: [f, t], scalar: [false, false], shape: [1], key: "" });
}

/**
 * The elements of `a` converted to `dtype`, a new contiguous array of `a`'s shape on the operation's stream (also
 * `a.astype(dtype)`). Every pair of the 15 dtypes converts (see the module's description for the rules). With
 * `{ copy: false }` an array that already has the dtype is returned itself.
 *
 * ```ts
 * const h = astype(x, "float16");          // float32 → float16, rounded to nearest even
 * const i = x.astype("int32");             // truncated toward zero
 * ```
 */
export function astype<M extends DTypeName>(a: DeviceArray, dtype: DTypeArgument<M>, options?: AstypeOptions): DeviceArray<M> {
  if (!(a instanceof DeviceArray)) throw new TypeError(`astype takes a DeviceArray, not ${describeValue(a)}`);
  const to = dtypeOf(dtype);
  const copy = options?.copy ?? true;
  if (typeof copy !== "boolean") throw new TypeError(`astype: copy is a boolean, got ${describeValue(copy)}`);
  if (a.dtype === to && !copy) return a as unknown as DeviceArray<M>;
  const k = a.dtype === to ? undefined : castKernel(a.dtype, to);
  const stream = operationStream("astype", options, [a]);
  if (k === undefined) return a.copy({ stream }) as unknown as DeviceArray<M>;
  return k.launch(stream, a) as DeviceArray<M>;
}

provideArrayMethods({ astype: (self, dtype, options) => astype(self, dtype, options) });
