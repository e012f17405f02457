/**
 * Polynomials as coefficient arrays, highest power first, as NumPy's (and CuPy's) `polyval`, `polyadd`, `polysub`,
 * `polymul`, `polydiv`, `polyder` and `polyint`: `[3, 0, 1]` is `3x² + 1`. (`polyfit` and `roots` need cuSOLVER and live in
 * `cuda-ts/array/linalg`.)
 *
 * ```ts
 * const p = asarray([3, 0, 1], { stream, dtype: "float32" });
 * polyval(p, x);                 // 3x² + 1 at each element of x, one kernel (Horner's rule)
 * polyder(p);                    // [6, 0]
 * polyint(p);                    // [1, 0, 1, 0]
 * polymul(p, p);                 // [9, 0, 6, 0, 1]
 * ```
 *
 * Coefficients may be a 1-d DeviceArray or a JavaScript list of numbers (copied to the device as NumPy's array of
 * them: int64 when every value is a safe integer, float64 otherwise); `polyadd`, `polysub` and `polymul` also take a
 * 0-d array as one coefficient, as NumPy's `atleast_1d` does. Results are new arrays in NumPy's dtypes; only
 * `polymul` and `polydiv` wait for the stream (`polymul` reads the coefficients back to drop leading zeros, as NumPy's
 * `poly1d` does; `polydiv` divides on the host, as NumPy's loop does, the coefficients being few).
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ShapeMismatchError } from "../errors.ts";
import { decodeBFloat16, decodeHalf, dtypes, encodeBFloat16, encodeHalf, type DType } from "../dtype.ts";
import { promoteTypes } from "../promotion.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { ROUNDING_PREAMBLE, fromWorking, toWorking, workingType } from "./cast.ts";
import { cachedKernel, checkArrayArgument, checkOneDevice } from "./elementwise.ts";
import { add, div, mul, sub } from "./arithmetic.ts";
import { arange, full, scalarDType } from "./creation.ts";
import type { Stream } from "../../stream.ts";
import { concatenate, reshape } from "./shape.ts";
import { convolve } from "./convolution.ts";
import { withTemporaries } from "./temporaries.ts";
import { decodeElement } from "./host.ts";

/** Coefficients of a polynomial, highest power first: a 1-d array, or a list of numbers. */
export type PolynomialCoefficients = DeviceArray | readonly number[];

/** Options of `polyint`. */
export interface PolyintOptions extends ArrayOperationOptions {
  /** The integration constants, one per integration (the first for the first); one value serves every integration. Default 0. */
  readonly k?: number | readonly number[];
}

/** Checks `p` without a stream: a 1-d open DeviceArray (or 0-d with `scalar`, as NumPy's `atleast_1d`), or a list of numbers. */
function checkCoefficients(p: unknown, what: string, name: string, scalar = false): void {
  if (!(p instanceof DeviceArray)) {
    listOf(p, what, name);
    return;
  }
  checkArrayArgument(p, what, name);
  if (p.ndim !== 1 && !(scalar && p.ndim === 0)) throw new ShapeMismatchError(`${what}: ${name} is a 1-d array of coefficients (highest power first), got shape [${p.shape.join(", ")}]; pass a 1-d array (ravel it)`);
}

/**
 * `p` (checked) as a 1-d device array on `stream`: a list is copied there (int64 when every value is a safe integer,
 * float64 otherwise, as NumPy reads a list of Python ints or floats), a temporary of `temp`; a 0-d array (accepted
 * where NumPy's `atleast_1d` reads it) as its one element.
 */
function coefficients(p: PolynomialCoefficients, stream: Stream, temp: <A extends DeviceArray>(x: A) => A): DeviceArray {
  if (p instanceof DeviceArray) return p.ndim === 0 ? reshape(p, [1]) : p;
  const values = [...p];
  // As NumPy's asarray: int64 when every value is an integer, float64 otherwise (an empty list too).
  if (values.length > 0 && values.every((v) => Number.isSafeInteger(v))) return temp(DeviceArray.from(BigInt64Array.from(values, (v) => BigInt(v)), { stream, dtype: "int64" }));
  return temp(DeviceArray.from(Float64Array.from(values), { stream, dtype: "float64" }));
}

function listOf(p: unknown, what: string, name: string): number[] {
  if (!Array.isArray(p) || !p.every((v) => typeof v === "number")) {
    throw new TypeError(`${what}: ${name} is a 1-d DeviceArray or a list of numbers (highest power first), got ${describeValue(p)}`);
  }
  return p as number[];
}

/** The stream of an operation on coefficient arguments (each a DeviceArray or a list). */
function polyStream(what: string, options: ArrayOperationOptions | undefined, args: readonly unknown[]): Stream {
  if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) {
    throw new TypeError(`${what} takes options { stream? }, got ${describeValue(options)}`);
  }
  const arrays = args.filter((a): a is DeviceArray => a instanceof DeviceArray);
  const stream = operationStream(what, options, arrays);
  checkOneDevice(what, arrays.map((a, k) => [`argument ${k}`, a] as [string, DeviceArray]), stream);
  return stream;
}

/**
 * The Horner kernel of `polyval` (exported for tests: no GPU needed): `raw tp p, tx x, int64 len` in, `tr z` out,
 * each step `z = z * x + p[k]` in the result's dtype as NumPy's loop computes it (rounded to a half type after each
 * operation, wrapping for integers, and/or for bool).
 */
export function polyvalKernel(tp: DType, tx: DType, tr: DType): ElementwiseKernel {
  return cachedKernel(`polyval|${tp.name}|${tx.name}|${tr.name}`, () => {
    const w = workingType(tr);
    const xw = toWorking("x", tx, tr);
    const pw = toWorking("p[k]", tp, tr);
    let step: string;
    if (tr.kind === "b") step = `acc = (acc && xv) || ${pw};`;
    else if (tr.kind === "i" || tr.kind === "u") {
      const u = tr.itemsize === 8 ? "unsigned long long" : "unsigned int";
      step = `acc = (${w})((${u})acc * (${u})xv + (${u})${pw});`;
    } else if (tr.name === "float16" || tr.name === "bfloat16") {
      const r = tr.name === "float16" ? "_ct_round_f16" : "_ct_round_bf16";
      step = `acc = ${r}(${r}(acc * xv) + ${pw});`;
    } else if (tr.kind === "c") {
      // NumPy's complex product, each operation rounded on its own (no fused multiply-add).
      const [m, a, d] = tr.name === "complex64" ? ["__fmul_rn", "__fadd_rn", "__fsub_rn"] : ["__dmul_rn", "__dadd_rn", "__dsub_rn"];
      step =
        `{ const ${w} q = ${pw}; const auto ar = acc.real(), ai = acc.imag(), xr = xv.real(), xi = xv.imag(); ` +
        `acc = ${w}(${a}(${d}(${m}(ar, xr), ${m}(ai, xi)), q.real()), ${a}(${a}(${m}(ar, xi), ${m}(ai, xr)), q.imag())); }`;
    } else {
      // Rounded after the product and after the sum, as NumPy's two operations (no fused multiply-add).
      const [m, a] = w === "float" ? ["__fmul_rn", "__fadd_rn"] : ["__dmul_rn", "__dadd_rn"];
      step = `acc = ${a}(${m}(acc, xv), ${pw});`;
    }
    const body = [`const ${w} xv = ${xw};`, `${w} acc = ${w === "bool" ? "false" : `(${w})0`};`, `for (long long k = 0; k < len; k++) { ${step} }`, `z = ${fromWorking("acc", tr, tr)};`].join(" ");
    return new ElementwiseKernel(`raw ${tp.name} p, ${tx.name} x, int64 len`, `${tr.name} z`, body, `cuda_ts_polyval_${tp.name}_${tx.name}_${tr.name}`, { preamble: ROUNDING_PREAMBLE });
  });
}

/**
 * The polynomial `p` at each element of `x`, as NumPy's `polyval`: `p[0]·xᴺ⁻¹ + ... + p[N-1]`, by Horner's rule in
 * one kernel, each step `acc * x + p[k]` rounded as NumPy's two operations round it (no fused multiply-add; integers
 * wrap; half types round after each operation; bool ors ands). The result has `x`'s shape and the dtype `p` and `x` promote to (a JavaScript number `x` counts as
 * NumPy's array of it: int64 or float64, giving a 0-d result); an empty `p` gives zeros of `x`'s dtype. Does not
 * wait for the stream.
 *
 * ```ts
 * polyval([3, 0, 1], x);           // 3x² + 1
 * polyval(p, 2, { stream });       // a 0-d array: p at 2
 * ```
 *
 * @throws ShapeMismatchError when `p` is not 1-d; TypeError when it is neither a DeviceArray nor a list of numbers.
 * @throws DeviceMismatchError when the arrays are on different devices.
 */
export function polyval(p: PolynomialCoefficients, x: DeviceArray | number, options?: ArrayOperationOptions): DeviceArray {
  const what = "polyval";
  checkCoefficients(p, what, "p");
  if (x instanceof DeviceArray) checkArrayArgument(x, what, "x");
  else if (typeof x !== "number") throw new TypeError(`${what}: x is a DeviceArray or a number, got ${describeValue(x)}`);
  const stream = polyStream(what, options, [p, x]);
  return withTemporaries(stream, (temp) => {
    const coef = coefficients(p, stream, temp);
    const xs = x instanceof DeviceArray ? x : temp(full([], x, { stream, dtype: scalarDType(x).name }));
    if (coef.size === 0) return DeviceArray.zeros(xs.shape, xs.dtype, { stream });
    const tr = promoteTypes(coef.dtype, xs.dtype);
    const out = DeviceArray.empty(xs.shape, tr, { stream });
    if (out.size === 0) return out;
    try {
      // The coefficients read as a contiguous block: a strided p is copied first.
      const pc = coef.isContiguous ? coef : temp(coef.copy({ stream }));
      polyvalKernel(pc.dtype, xs.dtype, tr).launch(stream, pc, xs, pc.size, out);
    } catch (e) {
      out.close(stream);
      throw e;
    }
    return out;
  });
}

/** `a1` and `a2` aligned at their last coefficient and combined by `op`: polyadd and polysub. */
function combine(what: string, a1: PolynomialCoefficients, a2: PolynomialCoefficients, op: typeof add, options: ArrayOperationOptions | undefined): DeviceArray {
  checkCoefficients(a1, what, "a1", true);
  checkCoefficients(a2, what, "a2", true);
  const stream = polyStream(what, options, [a1, a2]);
  return withTemporaries(stream, (temp) => {
    const x = coefficients(a1, stream, temp);
    const y = coefficients(a2, stream, temp);
    const diff = x.size - y.size;
    // The shorter one gets leading zeros of its own dtype, as NumPy's.
    const lift = (a: DeviceArray, by: number): DeviceArray => (by <= 0 ? a : temp(concatenate([temp(DeviceArray.zeros([by], a.dtype, { stream })), a], { stream })));
    return op(lift(x, -diff), lift(y, diff), { stream });
  });
}

/**
 * The sum of two polynomials, as NumPy's `polyadd`: the shorter padded with leading zeros, then added (the dtype
 * the two promote to).
 */
export function polyadd(a1: PolynomialCoefficients, a2: PolynomialCoefficients, options?: ArrayOperationOptions): DeviceArray {
  return combine("polyadd", a1, a2, add, options);
}

/** The difference `a1 - a2` of two polynomials, as NumPy's `polysub` (bool coefficients are refused, as NumPy's subtraction refuses them). */
export function polysub(a1: PolynomialCoefficients, a2: PolynomialCoefficients, options?: ArrayOperationOptions): DeviceArray {
  return combine("polysub", a1, a2, sub, options);
}

/**
 * @internal The coefficients of `p` read back as [re, im] pairs (bool as 0/1, integers as numbers): waits for the
 * stream. Shared with `roots`.
 */
export function hostCoefficients(p: DeviceArray, stream: Stream): [number, number][] {
  if (p.size === 0) return [];
  const host = p.toTypedArraySync({ stream });
  return Array.from({ length: p.size }, (_, j) => {
    const v = decodeElement(p.dtype, host, j);
    if (Array.isArray(v)) return [v[0], v[1]];
    return [typeof v === "boolean" ? (v ? 1 : 0) : Number(v), 0];
  });
}

/**
 * @internal `(re + i·im) / (a + i·b)` by Smith's method (no overflow or underflow of `a² + b²`), as NumPy's complex
 * division. Shared with `roots`.
 */
export function complexDivide(re: number, im: number, a: number, b: number): [number, number] {
  if (b === 0) return [re / a, im / a];
  if (Math.abs(a) >= Math.abs(b)) {
    const r = b / a;
    const den = a + b * r;
    return [(re + im * r) / den, (im - re * r) / den];
  }
  const r = a / b;
  const den = a * r + b;
  return [(re * r + im) / den, (im * r - re) / den];
}

/** @internal Rounding to the real precision of a float or complex dtype (doubles: none), after each host operation. */
export function hostRounding(d: DType): (v: number) => number {
  switch (d.name) {
    case "float32":
    case "complex64":
      return Math.fround;
    case "float16":
      return (v) => decodeHalf(encodeHalf(v));
    case "bfloat16":
      return (v) => decodeBFloat16(encodeBFloat16(v));
    default:
      return (v) => v;
  }
}

/** @internal Host values ([re, im] pairs) as a new 1-d array of the float or complex dtype `d`. */
export function uploadCoefficients(values: readonly (readonly [number, number])[], d: DType, stream: Stream): DeviceArray {
  if (d.kind === "c") {
    const flat = values.flatMap(([re, im]) => [re, im]);
    return DeviceArray.from(d.name === "complex64" ? Float32Array.from(flat) : Float64Array.from(flat), { stream, dtype: d, shape: [values.length] });
  }
  if (d.name === "float16" || d.name === "bfloat16") {
    const encode = d.name === "float16" ? encodeHalf : encodeBFloat16;
    return DeviceArray.from(Uint16Array.from(values, ([re]) => encode(re)), { stream, dtype: d });
  }
  return DeviceArray.from(d.name === "float32" ? Float32Array.from(values, ([re]) => re) : Float64Array.from(values, ([re]) => re), { stream, dtype: d });
}

/** @internal The float dtype of NumPy's `a + 0.0`: float64 for bool and integers, a float or complex dtype itself. Shared with polyfit and roots. */
export function floatOf(d: DType): DType {
  return d.kind === "f" || d.kind === "c" ? d : dtypes.float64;
}

/** `1 / (a + i·b)` as NumPy's complex scalar division computes it (Smith's method, a reciprocal scale), rounded by `R`. */
function reciprocal([a, b]: readonly [number, number], R: (v: number) => number): [number, number] {
  if (Math.abs(a) >= Math.abs(b)) {
    if (a === 0 && b === 0) return [1 / 0, NaN];
    const rat = R(b / a);
    const scl = R(1 / R(a + R(b * rat)));
    return [scl, R(-rat * scl)];
  }
  const rat = R(a / b);
  const scl = R(1 / R(b + R(a * rat)));
  return [R(rat * scl), R(-scl)];
}

/**
 * @internal NumPy's `polydiv` loop on the host: `u` and `v` ([re, im] pairs, highest power first, non-empty) in the
 * dtype `w`, rounded to it after every operation (`1 / v[0]` to `v`'s float dtype `vType`, as NumPy's scalar is); the remainder without its leading near-zeros (at least one kept).
 */
export function dividePolynomials(u: readonly (readonly [number, number])[], v: readonly (readonly [number, number])[], w: DType, vType: DType = w): { q: [number, number][]; r: [number, number][] } {
  const R = hostRounding(w);
  // NumPy's 1 / v[0] is a scalar of v's own float dtype (u + 0.0 and v + 0.0 keep theirs): rounded to that.
  const Rv = hostRounding(vType);
  const complex = w.kind === "c";
  const r = u.map(([re, im]) => [R(re), complex ? R(im) : 0] as [number, number]);
  const d = v.map(([re, im]) => [R(re), complex ? R(im) : 0] as [number, number]);
  const m = r.length - 1;
  const n = d.length - 1;
  // As NumPy computes them: a product of scalars with each product rounded; the array product d · v as its SIMD
  // loop does, the first product of each part fused (fma(a.re, b.re, -(a.im · b.im)), fma(a.re, b.im, a.im · b.re)).
  const scalarTimes = ([a, b]: readonly [number, number], [c, e]: readonly [number, number]): [number, number] => (complex ? [R(R(a * c) - R(b * e)), R(R(a * e) + R(b * c))] : [R(a * c), 0]);
  const times = ([a, b]: readonly [number, number], [c, e]: readonly [number, number]): [number, number] => (complex ? [R(a * c - R(b * e)), R(a * e + R(b * c))] : [R(a * c), 0]);
  const scale = vType.kind === "c" ? reciprocal(d[0]!, Rv) : ([Rv(1 / d[0]![0]), 0] as [number, number]);
  const q: [number, number][] = Array.from({ length: Math.max(m - n + 1, 1) }, () => [0, 0]);
  for (let k = 0; k <= m - n; k++) {
    const f = scalarTimes(scale, r[k]!);
    q[k] = f;
    for (let j = 0; j <= n; j++) {
      const [pr, pi] = times(f, d[j]!);
      r[k + j] = [R(r[k + j]![0] - pr), complex ? R(r[k + j]![1] - pi) : 0];
    }
  }
  // NumPy's allclose(r[0], 0, rtol=1e-14): |r[0]| <= 1e-8 (+ 1e-14 · 0); NaN is never close.
  let first = 0;
  while (r.length - first > 1 && Math.hypot(r[first]![0], r[first]![1]) <= 1e-8) first++;
  return { q, r: r.slice(first) };
}

/**
 * The quotient and remainder of dividing polynomial `u` by `v`, as NumPy's `polydiv`: `[q, r]` with u = q·v + r,
 * computed as NumPy's loop computes them, on the host (the coefficients are read back: waits for the stream), in
 * the dtype `u[0] + v[0]` has after both are made floats (integers and bool as float64, `u + 0.0`), rounded to it
 * after every operation; leading remainder coefficients of magnitude at most 1e-8 are dropped (NumPy's `allclose(r[0],
 * 0)`), keeping at least one. Dividing by a `v` whose first coefficient is 0 gives infinities and NaN, as in NumPy.
 *
 * ```ts
 * const [q, r] = polydiv([1, -3, 2, 5], [1, -1], { stream });   // q [1, -2, 0], r [5]
 * ```
 *
 * @throws ShapeMismatchError for an empty polynomial (NumPy's IndexError).
 */
export function polydiv(u: PolynomialCoefficients, v: PolynomialCoefficients, options?: ArrayOperationOptions): [quotient: DeviceArray, remainder: DeviceArray] {
  const what = "polydiv";
  checkCoefficients(u, what, "u", true);
  checkCoefficients(v, what, "v", true);
  for (const [name, p] of [["u", u], ["v", v]] as const) {
    if ((p instanceof DeviceArray ? p.size : p.length) === 0) throw new ShapeMismatchError(`${what}: ${name} has no coefficients; give at least one`);
  }
  const stream = polyStream(what, options, [u, v]);
  const dtypeOf = (p: PolynomialCoefficients): DType => (p instanceof DeviceArray ? floatOf(p.dtype) : dtypes.float64);
  const w = promoteTypes(dtypeOf(u), dtypeOf(v));
  const read = (p: PolynomialCoefficients): [number, number][] => (p instanceof DeviceArray ? hostCoefficients(p, stream) : p.map((x) => [x, 0] as [number, number]));
  const { q, r } = dividePolynomials(read(u), read(v), w, dtypeOf(v));
  const quotient = uploadCoefficients(q, w, stream);
  try {
    return [quotient, uploadCoefficients(r, w, stream)];
  } catch (e) {
    quotient.close(stream);
    throw e;
  }
}

/** How many leading coefficients of `p` are zero (NaN is not), read on the host (waits for the stream). */
function leadingZeros(p: DeviceArray, stream: Stream): number {
  const c = hostCoefficients(p, stream);
  const j = c.findIndex(([re, im]) => re !== 0 || im !== 0);
  return j < 0 ? c.length : j;
}

/**
 * The product of two polynomials, as NumPy's `polymul`: each first trimmed of its leading zeros as NumPy's `poly1d`
 * trims them (an empty or all-zero polynomial is `[0]`), then the full convolution of their coefficients, in the
 * dtype the two promote to. Reads the coefficients back to find the leading zeros, so it waits for the stream.
 *
 * ```ts
 * polymul([1, 2], [1, -2, 3], { stream });   // [1, 0, -1, 6]
 * polymul([0, 0, 1, 2], [1, 1], { stream }); // [1, 3, 2]
 * ```
 */
export function polymul(a1: PolynomialCoefficients, a2: PolynomialCoefficients, options?: ArrayOperationOptions): DeviceArray {
  const what = "polymul";
  checkCoefficients(a1, what, "a1", true);
  checkCoefficients(a2, what, "a2", true);
  const stream = polyStream(what, options, [a1, a2]);
  return withTemporaries(stream, (temp) => {
    const trimmed = (a: DeviceArray): DeviceArray => {
      const lead = leadingZeros(a, stream);
      return lead === a.size ? temp(DeviceArray.zeros([1], a.dtype, { stream })) : a.slice([lead, null]);
    };
    return convolve(trimmed(coefficients(a1, stream, temp)), trimmed(coefficients(a2, stream, temp)), { stream });
  });
}

function orderArgument(m: unknown, what: string): number {
  if (typeof m !== "number" || !Number.isSafeInteger(m) || m < 0) throw new ArgumentError(`${what}: the order m is a non-negative integer, got ${describeValue(m)}`);
  return m;
}

/**
 * The `m`-th derivative of a polynomial (default the first), as NumPy's `polyder`: `[3, 0, 1]` → `[6, 0]`. Each
 * derivative multiplies by NumPy's int64 powers, so the dtype is the coefficients' promoted with int64 (float32 →
 * float64, as NumPy's); `m` of 0 returns a copy; past the degree the result is empty.
 *
 * @throws ArgumentError for an `m` that is not a non-negative integer.
 */
export function polyder(p: PolynomialCoefficients, m = 1, options?: ArrayOperationOptions): DeviceArray {
  const what = "polyder";
  const order = orderArgument(m, what);
  checkCoefficients(p, what, "p");
  const stream = polyStream(what, options, [p]);
  return withTemporaries(stream, (temp) => {
    let cur = coefficients(p, stream, temp);
    if (order === 0) return cur.copy({ stream });
    for (let k = 0; k < order; k++) {
      const n = cur.size - 1;
      const powers = temp(arange(Math.max(n, 0), 0, -1, { stream, dtype: "int64" }));
      const next = mul(cur.slice([0, Math.max(n, 0)]), powers, { stream });
      if (k === order - 1) return next;
      cur = temp(next);
    }
    return cur;
  });
}

/**
 * The `m`-th antiderivative of a polynomial (default the first), as NumPy's `polyint`: `[3, 0, 1]` → `[1, 0, 1, 0]`,
 * each integration adding its constant from `k` (default 0; one value serves every integration). Integration
 * divides by NumPy's int64 powers, so the result is float64 for real coefficients (complex128 for complex ones);
 * `m` of 0 returns a copy.
 *
 * @throws ArgumentError for an `m` that is not a non-negative integer, or fewer constants than integrations.
 */
export function polyint(p: PolynomialCoefficients, m = 1, options?: PolyintOptions): DeviceArray {
  const what = "polyint";
  const order = orderArgument(m, what);
  checkCoefficients(p, what, "p");
  const kOption: unknown = options?.k ?? 0;
  let ks: number[];
  if (typeof kOption === "number") ks = Array<number>(Math.max(order, 1)).fill(kOption);
  else {
    ks = listOf(kOption, what, "k");
    if (ks.length === 1 && order > 1) ks = Array<number>(order).fill(ks[0]!);
  }
  if (order > 0 && ks.length < order) throw new ArgumentError(`${what}: k gives ${ks.length} constant${ks.length === 1 ? "" : "s"} for ${order} integrations; give one per integration, or one for all`);
  const stream = polyStream(what, options, [p]);
  return withTemporaries(stream, (temp) => {
    let cur = coefficients(p, stream, temp);
    if (order === 0) return cur.copy({ stream });
    for (let j = 0; j < order; j++) {
      const n = cur.size;
      const powers = temp(arange(n, 0, -1, { stream, dtype: "int64" }));
      const q = temp(div(cur, powers, { stream }));
      const constant: ArrayScalar = ks[j]!;
      const kArr = temp(full([1], constant, { stream, dtype: q.dtype.kind === "c" ? q.dtype.name : "float64" }));
      const next = concatenate([q, kArr], { stream });
      if (j === order - 1) return next;
      cur = temp(next);
    }
    return cur;
  });
}
