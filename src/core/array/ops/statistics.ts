/**
 * Statistics and logical reductions of arrays, as NumPy's: `var` and `std` (two passes: the mean, then the sum of
 * squared deviations, both along the same axes as `sum`), `argmin` and `argmax` (int64 indices, the first occurrence,
 * NaN wins), `any` and `all`, `countNonzero`, `norm` (numpy.linalg.norm of vectors and matrices), `allclose` and
 * `arrayEqual` (read back as one boolean).
 *
 * ```ts
 * const s = x.std({ axis: 0, ddof: 1 });      // the sample standard deviation of each column
 * const i = x.argmax({ axis: -1 });            // int64 indices along the last axis
 * const ok = await allclose(a, b, { rtol: 1e-6 });
 * ```
 *
 * Every check (axes, dtypes, empty arg-reductions, norm orders) comes before anything is queued on the stream.
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions, type ReduceOptions } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { ShapeMismatchError } from "../errors.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { broadcastShapes, normalizeAxes, coalesceAxes, reducedShape } from "../broadcast.ts";
import { elementCount } from "../layout.ts";
import { realOf } from "../promotion.ts";
import { provideArrayMethods } from "../methods.ts";
import { checkReduceOut, deliverReduction, max as maxReduce, min as minReduce } from "../reductions.ts";
import { ReductionKernel, axisChunks, axisLaunchShape } from "../../kernels/reduction.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { compileKernels, configFor, includeLines } from "../../kernels/compile.ts";
import { headersFor } from "../../kernels/params.ts";
import { launch } from "../../launch/launch.ts";
import { u32 } from "../../launch/scalars.ts";
import type { Kernel } from "../../launch/kernel.ts";
import type { Stream } from "../../stream.ts";
import type { ArgReduceOptions, VarianceOptions } from "../options.ts";
import { item } from "./host.ts";

export type { ArgReduceOptions, VarianceOptions } from "../options.ts";

// ---- shared pieces ----

function checkArray(a: unknown, what: string): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(a)}`);
  return a;
}

function checkOptions<T extends object>(options: T | undefined, what: string): T | Record<string, never> {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object" || Array.isArray(options)) throw new TypeError(`${what} takes its options as an object, got ${describeValue(options)}`);
  return options;
}

function checkKeepdims(k: unknown, what: string): boolean {
  if (k === undefined) return false;
  if (typeof k !== "boolean") throw new TypeError(`${what}: keepdims is a boolean, got ${describeValue(k)}`);
  return k;
}

/** A C++ expression converting `x` (of `d`) to double (complex: to cuda::std::complex<double>). */
function toDouble(d: DType, x: string): string {
  if (d.name === "float16") return `(double)__half2float(${x})`;
  if (d.name === "bfloat16") return `(double)__bfloat162float(${x})`;
  if (d.kind === "c") return `cuda::std::complex<double>((double)(${x}).real(), (double)(${x}).imag())`;
  return `(double)(${x})`;
}

/** A C++ expression converting `x` (of `d`) to the real or complex type `to` (float16 through float). */
function convert(d: DType, to: DType, x: string): string {
  if (d.name === "float16") return `(${to.ctype})__half2float(${x})`;
  if (d.name === "bfloat16") return `(${to.ctype})__bfloat162float(${x})`;
  if (d.kind === "c" && to.kind === "c") return `${to.ctype}((${x}).real(), (${x}).imag())`;
  return `(${to.ctype})(${x})`;
}

/** A C++ boolean expression: whether `x` (of `d`) is non-zero (NaN counts as non-zero, as NumPy's). */
function nonzero(d: DType, x: string): string {
  if (d.name === "float16") return `(__half2float(${x}) != 0.0f)`;
  if (d.name === "bfloat16") return `(__bfloat162float(${x}) != 0.0f)`;
  if (d.kind === "c") return `((${x}).real() != 0 || (${x}).imag() != 0)`;
  return `(${x} != 0)`;
}

/** The C++ literal of +infinity in a float type. */
function infinity(d: DType): string {
  return d.name === "float64" ? "__longlong_as_double(0x7ff0000000000000LL)" : "__int_as_float(0x7f800000)";
}

const castKernels = new Map<string, ElementwiseKernel>();

/** @internal `y = f(s)` from dtype `from` to dtype `to`, with `f` one of: the value, its square root, `pow(s, e)`, `s / e` (exported for tests: the generated source). */
export function finishKernel(from: DType, to: DType, f: "id" | "sqrt" | "pow" | "div" | "divsqrt"): ElementwiseKernel {
  const key = `${from.name}|${to.name}|${f}`;
  let k = castKernels.get(key);
  if (k === undefined) {
    const expr = { id: "s", sqrt: "sqrt(s)", pow: "pow(s, e)", div: "s / e", divsqrt: "sqrt(s / e)" }[f];
    const inParams = f === "id" || f === "sqrt" ? `${from.name} s` : `${from.name} s, ${from.name} e`;
    k = new ElementwiseKernel(inParams, `${to.name} y`, `y = (${to.ctype})(${expr})`, `cuda_ts_finish_${f}_${from.name}_${to.name}`);
    castKernels.set(key, k);
  }
  return k;
}

/** Runs a finishing kernel from `s` into a new array of `to` (or in place where the dtypes agree); closes `s` otherwise. */
function finish(stream: Stream, s: DeviceArray, to: DType, f: "id" | "sqrt" | "pow" | "div" | "divsqrt", e?: number): DeviceArray {
  if (f === "id" && s.dtype === to) return s;
  const k = finishKernel(s.dtype, to, f);
  const args = e === undefined ? [s] : [s, e];
  if (s.dtype === to) {
    if (s.size > 0) k.launch(stream, ...args, s);
    return s;
  }
  try {
    return k.launch(stream, ...args) as DeviceArray;
  } finally {
    s.close(stream);
  }
}

// ---- var, std ----

/**
 * The dtypes of `var`/`std` of `dtype` (exported for tests): the result's (float64 for bool and integers, the real
 * dtype for complex, the dtype for floats), the one the mean is computed in (float32 for float16 and bfloat16), and
 * the one the squared deviations are summed in.
 */
export function varianceDTypes(dtype: DType): { out: DType; mean: DType; accumulate: DType } {
  if (dtype.kind === "b" || dtype.kind === "i" || dtype.kind === "u") return { out: dtypes.float64, mean: dtypes.float64, accumulate: dtypes.float64 };
  if (dtype.name === "float16" || dtype.name === "bfloat16") return { out: dtype, mean: dtypes.float32, accumulate: dtypes.float32 };
  return { out: realOf(dtype), mean: dtype, accumulate: realOf(dtype) };
}

const sumKernels = new Map<string, ReductionKernel>();

/** @internal The sum of `T` elements in dtype `A` (the first pass of the variance; exported for tests: the generated source). */
export function sumInto(dtype: DType, acc: DType): ReductionKernel {
  const key = `${dtype.name}|${acc.name}`;
  let k = sumKernels.get(key);
  if (k === undefined) {
    k = new ReductionKernel(`${dtype.name} x`, `${acc.name} y`, convert(dtype, acc, "x"), "a + b", "y = a", "0", `cuda_ts_var_sum_${dtype.name}`, { reduceType: acc.name });
    sumKernels.set(key, k);
  }
  return k;
}

const deviationKernels = new Map<string, ReductionKernel>();

/** @internal The sum of squared deviations `|x - m|^2` (`m` broadcast: the mean with the reduced axes kept; exported for tests: the generated source). */
export function deviations(dtype: DType, mean: DType, acc: DType): ReductionKernel {
  const key = dtype.name;
  let k = deviationKernels.get(key);
  if (k === undefined) {
    const d = `(${convert(dtype, mean, "x")} - m)`;
    const map = mean.kind === "c" ? `cuda::std::norm${d}` : `${d} * ${d}`;
    k = new ReductionKernel(`${dtype.name} x, ${mean.name} m`, `${acc.name} y`, map, "a + b", "y = a", "0", `cuda_ts_var_dev_${dtype.name}`, { reduceType: acc.name });
    deviationKernels.set(key, k);
  }
  return k;
}

function varianceOf(what: "var" | "std", array: DeviceArray, opts: VarianceOptions | undefined): DeviceArray {
  const a = checkArray(array, what);
  const options = checkOptions(opts, what) as VarianceOptions;
  const axes = normalizeAxes(options.axis, a.ndim, what);
  const keepdims = checkKeepdims(options.keepdims, what);
  const ddof = options.ddof ?? 0;
  if (typeof ddof !== "number" || !Number.isFinite(ddof)) throw new ArgumentError(`${what}: ddof is a finite number, got ${describeValue(ddof)}`);
  const { out, mean, accumulate } = varianceDTypes(a.dtype);
  const given = checkReduceOut(options.out, a, axes, keepdims, out, what);
  const count = elementCount(axes.map((d) => a.shape[d]!));
  const stream = operationStream(what, options, given === undefined ? [a] : [a, given]);
  // Pass 1: the mean, the reduced axes kept (so that it broadcasts against a in pass 2).
  const m = sumInto(a.dtype, mean).launch(stream, a, { axis: axes, keepdims: true }) as DeviceArray;
  try {
    if (m.size > 0) finishKernel(mean, mean, "div").launch(stream, m, mean.kind === "c" ? [count, 0] : count, m);
    // Pass 2: the sum of squared deviations over the same axes, then divided by max(count - ddof, 0) (and rooted).
    const s = deviations(a.dtype, mean, accumulate).launch(stream, a, m, { axis: axes, keepdims }) as DeviceArray;
    return deliverReduction(stream, finish(stream, s, out, what === "std" ? "divsqrt" : "div", Math.max(count - ddof, 0)), given);
  } finally {
    m.close(stream);
  }
}

/**
 * The variance of `a` over `axis` (default: all), as NumPy's `var`: the mean of `|x - mean|^2`, divided by
 * `count - ddof` (ddof default 0). float64 for bool and integers, the real dtype for complex; float16 and bfloat16
 * accumulate in float32. Two passes over the array (the mean, then the squared deviations), each at the bandwidth of
 * `sum` along the same axes.
 */
export function variance(a: DeviceArray, options?: VarianceOptions): DeviceArray {
  return varianceOf("var", a, options);
}

export { variance as var };

/** The standard deviation of `a` over `axis` (default: all): the square root of {@link variance}. */
export function std(a: DeviceArray, options?: VarianceOptions): DeviceArray {
  return varianceOf("std", a, options);
}

// ---- argmin, argmax ----

/** The compared value type of an arg-reduction: float for float16/bfloat16, int for bool, the dtype's otherwise. */
function argValueType(d: DType): string {
  if (d.name === "float16" || d.name === "bfloat16") return "float";
  if (d.kind === "b") return "int";
  return d.ctype;
}

/** Bytes of one compared value in device memory (the split reduction's partial results). */
function argValueBytes(d: DType): number {
  return d.name === "float16" || d.name === "bfloat16" || d.kind === "b" ? 4 : d.itemsize;
}

/** Threads per block of the arg-reduction kernel. */
export const ARG_BLOCK = 256;

/**
 * The source of the arg-reduction kernels `<name>` and `<name>_final` for `dtype`, kept and reduced layouts of
 * ranks `keptRank` and `reducedRank` (exported for tests: no GPU needed). Groups of threads each take one output
 * (or one chunk of its reduced range): each thread keeps the best (value, index) pair of the elements it reads (in
 * increasing index order), then a shared-memory tree per group combines the pairs: a NaN beats any number, a
 * better value beats a worse one, and of two equal values (or two NaNs) the smaller index wins, so the result is
 * the first occurrence, as NumPy's.
 */
export function argReduceSource(name: string, dtype: DType, isMax: boolean, keptRank: number, reducedRank: number): string {
  const V = argValueType(dtype);
  const cmp = isMax ? ">" : "<";
  const complex = dtype.kind === "c";
  const load = dtype.name === "float16" ? "__half2float(x)" : dtype.name === "bfloat16" ? "__bfloat162float(x)" : `(${V})(x)`;
  const decompose = (v: string, n: number, shape: string, strides: string, into: string): string[] => [
    `      unsigned long long _q = ${v};`,
    "#pragma unroll",
    `      for (int _k = ${n - 1}; _k > 0; --_k) {`,
    `        const unsigned long long _e = (unsigned long long)_l.${shape}[_k];`,
    "        const unsigned long long _u = _q / _e;",
    `        ${into} += (long long)(_q - _u * _e) * _l.${strides}[_k];`,
    "        _q = _u;",
    "      }",
    `      ${into} += (long long)_q * _l.${strides}[0];`,
  ];
  const lines = [
    ...includeLines(headersFor([dtype])),
    `typedef ${dtype.ctype} _ct_T;`,
    `typedef ${V} _ct_V;`,
    `__device__ __forceinline__ _ct_V _ct_load(const _ct_T x) { return ${load}; }`,
    complex
      ? "__device__ __forceinline__ bool _ct_nan(const _ct_V v) { return v.real() != v.real() || v.imag() != v.imag(); }"
      : "__device__ __forceinline__ bool _ct_nan(const _ct_V v) { return v != v; }",
    complex
      ? `__device__ __forceinline__ bool _ct_better(const _ct_V v, const _ct_V w) { return v.real() ${cmp} w.real() || (v.real() == w.real() && v.imag() ${cmp} w.imag()); }`
      : `__device__ __forceinline__ bool _ct_better(const _ct_V v, const _ct_V w) { return v ${cmp} w; }`,
    "// Whether (vb, ib) replaces (va, ia); an index below 0 marks no element yet.",
    "__device__ __forceinline__ bool _ct_takes(const _ct_V va, const long long ia, const _ct_V vb, const long long ib) {",
    "  if (ib < 0) return false;",
    "  if (ia < 0) return true;",
    "  const bool na = _ct_nan(va), nb = _ct_nan(vb);",
    "  if (na || nb) return nb && (!na || ib < ia);",
    "  if (_ct_better(vb, va)) return true;",
    "  if (_ct_better(va, vb)) return false;",
    "  return ib < ia;",
    "}",
    `struct _ct_layout { long long kshape[${keptRank}]; long long rshape[${reducedRank}]; long long ks[${keptRank}]; long long rs[${reducedRank}]; };`,
    `extern "C" __global__ void ${name}(const _ct_T* __restrict__ _x, long long* __restrict__ _out, const unsigned long long _nout, const unsigned long long _nred, const unsigned int _g, const unsigned int _ls, const unsigned long long _chunks, unsigned char* __restrict__ _pv, long long* __restrict__ _pi, const _ct_layout _l) {`,
    `  __shared__ __align__(16) unsigned char _sv_raw[${ARG_BLOCK} * sizeof(_ct_V)];`,
    `  __shared__ long long _si[${ARG_BLOCK}];`,
    "  _ct_V* _sv = reinterpret_cast<_ct_V*>(_sv_raw);",
    "  const unsigned int _t = threadIdx.x;",
    "  const unsigned int _w = blockDim.x / _g;",
    "  const unsigned int _lane = _ls == 1 ? _t % _g : _t / _w;",
    "  const unsigned int _slot = _ls == 1 ? _t / _g : _t % _w;",
    "  const unsigned long long _nv = _nout * _chunks;",
    "  const unsigned long long _len = (_nred + _chunks - 1) / _chunks;",
    "  for (unsigned long long _base = (unsigned long long)blockIdx.x * _w; _base < _nv; _base += (unsigned long long)gridDim.x * _w) {",
    "    const unsigned long long _v = _base + _slot;",
    "    _ct_V _bv = _ct_V();",
    "    long long _bi = -1;",
    "    if (_v < _nv) {",
    "      const unsigned long long _o = _v % _nout;",
    "      const unsigned long long _lo = (_v / _nout) * _len;",
    "      const unsigned long long _hi = _lo + _len < _nred ? _lo + _len : _nred;",
    "      long long _ko = 0;",
    "      {",
    ...decompose("_o", keptRank, "kshape", "ks", "_ko").map((l) => "  " + l),
    "      }",
    "      for (unsigned long long _r = _lo + _lane; _r < _hi; _r += _g) {",
    "        long long _ro = 0;",
    "        {",
    ...decompose("_r", reducedRank, "rshape", "rs", "_ro").map((l) => "    " + l),
    "        }",
    "        const _ct_V _e = _ct_load(_x[_ko + _ro]);",
    "        if (_ct_takes(_bv, _bi, _e, (long long)_r)) { _bv = _e; _bi = (long long)_r; }",
    "      }",
    "    }",
    "    _sv[_t] = _bv;",
    "    _si[_t] = _bi;",
    "    __syncthreads();",
    "    for (unsigned int _off = _g >> 1; _off > 0; _off >>= 1) {",
    "      if (_lane < _off) {",
    "        const unsigned int _p = _t + _off * _ls;",
    "        if (_ct_takes(_sv[_t], _si[_t], _sv[_p], _si[_p])) { _sv[_t] = _sv[_p]; _si[_t] = _si[_p]; }",
    "      }",
    "      __syncthreads();",
    "    }",
    "    if (_lane == 0 && _v < _nv) {",
    "      if (_chunks > 1) { reinterpret_cast<_ct_V*>(_pv)[_v] = _sv[_t]; _pi[_v] = _si[_t]; }",
    "      else _out[_v] = _si[_t];",
    "    }",
    "    __syncthreads();",
    "  }",
    "}",
    // The second pass of a split reduction: a thread per output combines its chunks' pairs.
    `extern "C" __global__ void ${name}_final(long long* __restrict__ _out, const unsigned long long _nout, const unsigned long long _chunks, const unsigned char* __restrict__ _pv, const long long* __restrict__ _pi) {`,
    "  for (unsigned long long _o = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; _o < _nout; _o += (unsigned long long)gridDim.x * blockDim.x) {",
    "    _ct_V _bv = _ct_V();",
    "    long long _bi = -1;",
    "    for (unsigned long long _c = 0; _c < _chunks; _c++) {",
    "      const _ct_V _e = reinterpret_cast<const _ct_V*>(_pv)[_c * _nout + _o];",
    "      const long long _ei = _pi[_c * _nout + _o];",
    "      if (_ct_takes(_bv, _bi, _e, _ei)) { _bv = _e; _bi = _ei; }",
    "    }",
    "    _out[_o] = _bi;",
    "  }",
    "}",
  ];
  return lines.join("\n") + "\n";
}

/** An arg-reduction's plan (exported for tests: no GPU needed). */
export interface ArgReducePlan {
  /** The result's shape. */
  readonly outShape: number[];
  readonly nOut: number;
  readonly nReduced: number;
  readonly keptRank: number;
  readonly reducedRank: number;
  readonly group: number;
  readonly outputsPerBlock: number;
  readonly laneStride: number;
  /** The layout struct by value (int64): kept extents, reduced extents, kept strides, reduced strides (elements). */
  readonly layout: Uint8Array;
}

/**
 * The plan of `argmin`/`argmax` of an array of `shape` and `strides` over `axis` (undefined: the flat index over
 * every element, row-major). The kept and the reduced axes are each merged where the strides allow (which keeps
 * row-major indices); an index along them is decomposed into an element offset.
 */
export function argReducePlan(shape: readonly number[], strides: readonly number[], axis: number | undefined, keepdims: boolean): ArgReducePlan {
  const ndim = shape.length;
  const axes = axis === undefined ? [...Array(ndim).keys()] : [axis];
  const set = new Set(axes);
  const kept = shape.map((_, d) => d).filter((d) => !set.has(d));
  const k = coalesceAxes(kept.map((d) => shape[d]!), [kept.map((d) => strides[d]!)]);
  const r = coalesceAxes(axes.map((d) => shape[d]!), [axes.map((d) => strides[d]!)]);
  const ks = k.shape.length > 0 ? { shape: k.shape, strides: k.strides[0]! } : { shape: [1], strides: [0] };
  const rs = r.shape.length > 0 ? { shape: r.shape, strides: r.strides[0]! } : { shape: [1], strides: [0] };
  const nOut = elementCount(kept.map((d) => shape[d]!));
  const nReduced = elementCount(axes.map((d) => shape[d]!));
  const innerR = Math.abs(rs.strides.at(-1)!);
  const innerK = Math.abs(ks.strides.at(-1)!);
  const inner = nOut === 1 || (nReduced > 1 && innerR !== 0 && (innerK === 0 || innerR <= innerK));
  const values = [...ks.shape, ...rs.shape, ...ks.strides, ...rs.strides];
  const layout = new Uint8Array(8 * values.length);
  const dv = new DataView(layout.buffer);
  values.forEach((v, j) => dv.setBigInt64(8 * j, BigInt(v), true));
  const outShape = axis === undefined ? (keepdims ? shape.map(() => 1) : []) : reducedShape(shape, axes, keepdims);
  return { outShape, nOut, nReduced, keptRank: ks.shape.length, reducedRank: rs.shape.length, ...axisLaunchShape(nOut, nReduced, inner), layout };
}

interface ArgInstance {
  readonly kernel: Kernel;
  readonly final: Kernel;
}

const argInstances = new Map<string, ArgInstance>();

/**
 * @internal `argmin` or `argmax` (`isMax`) under the name `what`, every check made before anything is queued. `input`,
 * given, makes the array actually reduced from `a` on the reduction's stream (a new array of `a`'s shape and dtype,
 * closed once the reduction is queued; it may throw instead): the NaN-skipping arg-reductions replace NaN with it.
 */
export function argReduce(
  what: string,
  isMax: boolean,
  array: DeviceArray,
  opts: ArgReduceOptions | undefined,
  input?: (a: DeviceArray, stream: Stream, axis: number | undefined) => DeviceArray,
): DeviceArray<"int64"> {
  const checked = checkArray(array, what);
  const options = checkOptions(opts, what) as ArgReduceOptions;
  if (options.axis !== undefined && typeof options.axis !== "number") throw new ArgumentError(`${what}: axis is one axis (a number) or left out (the flat index), got ${describeValue(options.axis)}`);
  const axis = options.axis === undefined ? undefined : normalizeAxes(options.axis, checked.ndim, what)[0]!;
  const keepdims = checkKeepdims(options.keepdims, what);
  const checkedPlan = argReducePlan(checked.shape, checked.strides, axis, keepdims);
  if (checkedPlan.nReduced === 0) {
    throw new ShapeMismatchError(`${what}: ${axis === undefined ? `the array of shape [${checked.shape.join(", ")}] is empty` : `axis ${axis} of shape [${checked.shape.join(", ")}] is empty`}, and an empty sequence has no ${isMax ? "greatest" : "least"} element`);
  }
  const stream = operationStream(what, options, [checked]);
  if (checkedPlan.nOut === 0 || input === undefined) return argReduceOn(stream, checked, checkedPlan, isMax);
  const replaced = input(checked, stream, axis);
  try {
    return argReduceOn(stream, replaced, argReducePlan(replaced.shape, replaced.strides, axis, keepdims), isMax);
  } finally {
    replaced.close(stream);
  }
}

/** Queues a checked arg-reduction of `a` on `stream` as `plan` says. */
function argReduceOn(stream: Stream, a: DeviceArray, plan: ArgReducePlan, isMax: boolean): DeviceArray<"int64"> {
  const out = DeviceArray.empty(plan.outShape, dtypes.int64, { stream });
  if (plan.nOut === 0) return out;
  const op = isMax ? "argmax" : "argmin";
  const device = stream.device;
  const key = `${device.id}|${op}|${a.dtype.name}|${plan.keptRank}x${plan.reducedRank}`;
  let inst = argInstances.get(key);
  if (inst === undefined || inst.kernel.isClosed) {
    const name = `cuda_ts_${op}_${a.dtype.name}`;
    const [kernel, final] = compileKernels(argReduceSource(name, a.dtype, isMax, plan.keptRank, plan.reducedRank), [name, `${name}_final`], device, headersFor([a.dtype]), {}, `${name}.cu`);
    inst = { kernel: kernel!, final: final! };
    argInstances.set(key, inst);
  }
  const sms = device.properties.multiprocessorCount;
  const chunks = axisChunks(plan.nOut, plan.nReduced, plan.group, plan.outputsPerBlock, sms);
  const block = plan.group * plan.outputsPerBlock;
  const grid = Math.max(1, Math.min(Math.ceil((plan.nOut * chunks) / plan.outputsPerBlock), sms * 32));
  const pv = chunks > 1 ? DeviceArray.empty([chunks * plan.nOut * argValueBytes(a.dtype)], dtypes.uint8, { stream }) : undefined;
  const pi = chunks > 1 ? DeviceArray.empty([chunks * plan.nOut], dtypes.int64, { stream }) : undefined;
  try {
    launch(stream, configFor(grid, block), inst.kernel, [a, out, BigInt(plan.nOut), BigInt(plan.nReduced), u32(plan.group), u32(plan.laneStride), BigInt(chunks), pv ?? 0n, pi ?? 0n, plan.layout]);
    if (pv !== undefined && pi !== undefined) {
      launch(stream, configFor(Math.max(1, Math.min(Math.ceil(plan.nOut / ARG_BLOCK), sms * 32)), ARG_BLOCK), inst.final, [out, BigInt(plan.nOut), BigInt(chunks), pv, pi]);
    }
  } finally {
    pv?.close(stream);
    pi?.close(stream);
  }
  return out;
}

/**
 * The index of the least element of `a` (the first one; NaN wins), as NumPy's `argmin`: over the flattened array
 * (row-major) by default, or along `options.axis`; an int64 array. An empty array (or axis) is a ShapeMismatchError.
 */
export function argmin(a: DeviceArray, options?: ArgReduceOptions): DeviceArray<"int64"> {
  return argReduce("argmin", false, a, options);
}

/** The index of the greatest element of `a` (the first one; NaN wins), as NumPy's `argmax` (see {@link argmin}). */
export function argmax(a: DeviceArray, options?: ArgReduceOptions): DeviceArray<"int64"> {
  return argReduce("argmax", true, a, options);
}

// ---- any, all, countNonzero ----

const logicalKernels = new Map<string, ReductionKernel>();

/** @internal The kernel of `any`, `all` or `countNonzero` for a dtype (exported for tests: the generated source). */
export function logicalKernel(op: "any" | "all" | "count", dtype: DType): ReductionKernel {
  const key = `${op}|${dtype.name}`;
  let k = logicalKernels.get(key);
  if (k === undefined) {
    const nz = nonzero(dtype, "x");
    if (op === "count") k = new ReductionKernel(`${dtype.name} x`, "int64 y", `${nz} ? 1 : 0`, "a + b", "y = a", "0", `cuda_ts_count_nonzero_${dtype.name}`, { reduceType: "int64" });
    else k = new ReductionKernel(`${dtype.name} x`, "bool y", `${nz} ? 1 : 0`, op === "any" ? "a | b" : "a & b", "y = (a != 0)", op === "any" ? "0" : "1", `cuda_ts_${op}_${dtype.name}`, { reduceType: "int32" });
    logicalKernels.set(key, k);
  }
  return k;
}

function logical(op: "any" | "all" | "count", what: string, array: DeviceArray, opts: ReduceOptions | undefined): DeviceArray {
  const a = checkArray(array, what);
  const options = checkOptions(opts, what) as ReduceOptions;
  const axes = normalizeAxes(options.axis, a.ndim, what);
  const keepdims = checkKeepdims(options.keepdims, what);
  const result = op === "count" ? dtypes.int64 : dtypes.bool;
  const given = checkReduceOut(options.out, a, axes, keepdims, result, what);
  const stream = operationStream(what, options, given === undefined ? [a] : [a, given]);
  const k = logicalKernel(op, a.dtype);
  // An out of the result's dtype is written by the kernel itself; another is converted into.
  if (given !== undefined && given.dtype === result) return k.launch(stream, a, given, { axis: axes, keepdims }) as DeviceArray;
  return deliverReduction(stream, k.launch(stream, a, { axis: axes, keepdims }) as DeviceArray, given);
}

/** Whether any element of `a` over `axis` (default: all) is non-zero (NaN counts), as NumPy's `any`: a bool array. */
export function any(a: DeviceArray, options?: ReduceOptions): DeviceArray<"bool"> {
  return logical("any", "any", a, options) as DeviceArray<"bool">;
}

/** Whether every element of `a` over `axis` (default: all) is non-zero, as NumPy's `all`: a bool array. */
export function all(a: DeviceArray, options?: ReduceOptions): DeviceArray<"bool"> {
  return logical("all", "all", a, options) as DeviceArray<"bool">;
}

/** The number of non-zero elements of `a` over `axis` (default: all), as NumPy's `count_nonzero`: an int64 array. */
export function countNonzero(a: DeviceArray, options?: ReduceOptions): DeviceArray<"int64"> {
  return logical("count", "countNonzero", a, options) as DeviceArray<"int64">;
}

// ---- norm ----

/** A norm's order: a number (vectors: any; matrices: 1, -1, 2, -2, ±Infinity), `"fro"` or `"nuc"` (matrices). */
export type NormOrder = number | "fro" | "nuc";

/** Options of `norm`. */
export interface NormOptions extends ArrayOperationOptions {
  /** The order (default: the 2-norm of vectors, Frobenius of matrices; see numpy.linalg.norm). */
  readonly ord?: NormOrder;
  /** One axis (vector norms), two (matrix norms), or none (a vector norm of the flattened array when `ord` is not given). */
  readonly axis?: number | readonly [number] | readonly [number, number];
  /** Whether the reduced axes stay, with extent 1 (default false). */
  readonly keepdims?: boolean;
}

/** The result dtype of `norm` of `dtype` and the one it accumulates in (exported for tests). */
export function normDTypes(dtype: DType): { out: DType; accumulate: DType } {
  if (dtype.kind === "b" || dtype.kind === "i" || dtype.kind === "u") return { out: dtypes.float64, accumulate: dtypes.float64 };
  if (dtype.name === "float16" || dtype.name === "bfloat16") return { out: dtype, accumulate: dtypes.float32 };
  const r = realOf(dtype);
  return { out: r, accumulate: r };
}

/** @internal What a norm kernel reduces. */
export type NormKernelKind = "sumabs" | "sumsq" | "maxabs" | "minabs" | "count" | "sumpow";

const normKernels = new Map<string, ReductionKernel>();

/** @internal A kernel of `norm` for a dtype (exported for tests: the generated source). */
export function normKernel(kind: NormKernelKind, dtype: DType): ReductionKernel {
  const key = `${kind}|${dtype.name}`;
  let k = normKernels.get(key);
  if (k === undefined) {
    const R = normDTypes(dtype).accumulate;
    const x = convert(dtype, dtype.kind === "c" ? dtype : R, "x");
    const abs = dtype.kind === "c" ? `(${R.ctype})cuda::std::abs(${x})` : `(${R.ctype})fabs(${x})`;
    const sq = dtype.kind === "c" ? `(${R.ctype})cuda::std::norm(${x})` : `(${x}) * (${x})`;
    const nan = "(a != a)";
    const args = ({
      sumabs: [abs, "a + b", "y = a", "0", ""],
      sumsq: [sq, "a + b", "y = sqrt(a)", "0", ""],
      maxabs: [abs, `(${nan} || a > b) ? a : b`, "y = a", "0", ""],
      minabs: [abs, `(${nan} || a < b) ? a : b`, "y = a", infinity(R), ""],
      count: [`${nonzero(dtype, "x")} ? 1 : 0`, "a + b", "y = a", "0", ""],
      sumpow: [`pow(${abs}, p)`, "a + b", "y = a", "0", `, ${R.name} p`],
    } as Record<NormKernelKind, [string, string, string, string, string]>)[kind];
    const [map, reduce, post, identity, extra] = args;
    k = new ReductionKernel(`${dtype.name} x${extra}`, `${R.name} y`, map, reduce, post, identity, `cuda_ts_norm_${kind}_${dtype.name}`, { reduceType: R.name });
    normKernels.set(key, k);
  }
  return k;
}

/** How `norm` computes, from its options (exported for tests: no GPU needed). */
export type NormPlan =
  | { readonly kind: "vector"; readonly axes: number[]; readonly ord: number }
  | { readonly kind: "matrix"; readonly row: number; readonly col: number; readonly ord: number | "fro" };

/** The plan of `norm` of an array of `ndim` axes (see numpy.linalg.norm); errors for orders it does not define. */
export function normPlan(ndim: number, ord: NormOrder | undefined, axis: NormOptions["axis"]): NormPlan {
  if (axis === undefined) {
    if (ord === undefined) return { kind: "vector", axes: [...Array(ndim).keys()], ord: 2 };
    if (ndim === 1) return normPlan(1, ord, 0);
    if (ndim === 2) return normPlan(2, ord, [0, 1]);
    throw new ArgumentError(`norm: an order is given but no axis, and the array has ${ndim} axes; norm of order ${String(ord)} takes a 1-d or 2-d array, or name the axes`);
  }
  if (typeof axis === "number" || (Array.isArray(axis) && (axis as readonly number[]).length === 1)) {
    const ax = normalizeAxes(axis as number | readonly number[], ndim, "norm");
    if (ord === undefined) return { kind: "vector", axes: ax, ord: 2 };
    if (typeof ord !== "number" || Number.isNaN(ord)) throw new ArgumentError(`norm: ${describeValue(ord)} is not an order of a vector norm (a number: 1, 2, Infinity, -Infinity, 0, or any p)`);
    return { kind: "vector", axes: ax, ord };
  }
  if (!Array.isArray(axis) || axis.length !== 2) throw new ArgumentError(`norm: axis is one axis or two, got ${describeValue(axis)}`);
  for (const x of axis) normalizeAxes(x as number, ndim, "norm");
  const row = (axis[0] as number) < 0 ? (axis[0] as number) + ndim : (axis[0] as number);
  const col = (axis[1] as number) < 0 ? (axis[1] as number) + ndim : (axis[1] as number);
  if (row === col) throw new ArgumentError(`norm: the two axes of a matrix norm are the same axis (${row})`);
  const o = ord ?? "fro";
  if (o === 2 || o === -2 || o === "nuc") {
    throw new ArgumentError(`norm: the matrix norm of order ${String(o)} needs the singular values (an SVD); compute them with svd from cuda-ts/array/linalg and take their ${o === "nuc" ? "sum" : o === 2 ? "largest" : "smallest"}`);
  }
  if (o !== "fro" && o !== 1 && o !== -1 && o !== Infinity && o !== -Infinity) {
    throw new ArgumentError(`norm: ${describeValue(o)} is not an order of a matrix norm (one of "fro", "nuc", 1, -1, 2, -2, Infinity, -Infinity)`);
  }
  return { kind: "matrix", row, col, ord: o };
}

/**
 * The norm of `a`, as numpy.linalg.norm. Vectors (one axis, or the flattened array when neither `ord` nor `axis` is
 * given): `ord` 2 (default), 1, Infinity (the largest magnitude), -Infinity (the smallest), 0 (the count of non-zero
 * elements), any other p (`sum(|x|^p)^(1/p)`). Matrices (two axes, or a 2-d array with `ord`): "fro" (default), 1
 * and -1 (the largest/smallest column sum of magnitudes), Infinity and -Infinity (row sums); 2, -2 and "nuc" need an
 * SVD (an ArgumentError pointing at `cuda-ts/array/linalg`). Result: float64 for bool and integers, the real dtype
 * for complex.
 */
export function norm(array: DeviceArray, options?: NormOptions): DeviceArray {
  const a = checkArray(array, "norm");
  const opts = checkOptions(options, "norm") as NormOptions;
  const keepdims = checkKeepdims(opts.keepdims, "norm");
  const plan = normPlan(a.ndim, opts.ord, opts.axis);
  const { out } = normDTypes(a.dtype);
  if (plan.kind === "vector") {
    const count = elementCount(plan.axes.map((d) => a.shape[d]!));
    if ((plan.ord === Infinity || plan.ord === -Infinity) && count === 0) {
      throw new ShapeMismatchError(`norm: the vector norm of order ${plan.ord} of an empty axis has no value (it is a ${plan.ord > 0 ? "maximum" : "minimum"}); take a non-empty array`);
    }
    const stream = operationStream("norm", opts, [a]);
    const call = { axis: plan.axes, keepdims };
    const p = plan.ord;
    if (p === 2) return finish(stream, normKernel("sumsq", a.dtype).launch(stream, a, call) as DeviceArray, out, "id");
    if (p === 1) return finish(stream, normKernel("sumabs", a.dtype).launch(stream, a, call) as DeviceArray, out, "id");
    if (p === Infinity) return finish(stream, normKernel("maxabs", a.dtype).launch(stream, a, call) as DeviceArray, out, "id");
    if (p === -Infinity) return finish(stream, normKernel("minabs", a.dtype).launch(stream, a, call) as DeviceArray, out, "id");
    if (p === 0) return finish(stream, normKernel("count", a.dtype).launch(stream, a, call) as DeviceArray, out, "id");
    return finish(stream, normKernel("sumpow", a.dtype).launch(stream, a, p, call) as DeviceArray, out, "pow", 1 / p);
  }
  const { row, col, ord } = plan;
  if (a.shape[row] === 0 || a.shape[col] === 0) {
    if (ord !== "fro") throw new ShapeMismatchError(`norm: the matrix norm of order ${ord} of an empty matrix (shape [${a.shape.join(", ")}]) has no value; take a non-empty array`);
  }
  const stream = operationStream("norm", opts, [a]);
  if (ord === "fro") return finish(stream, normKernel("sumsq", a.dtype).launch(stream, a, { axis: [row, col], keepdims }) as DeviceArray, out, "id");
  // 1, -1: sums over the rows (each column's), then the max/min over the columns; Infinity, -Infinity: the reverse.
  const [first, second] = ord === 1 || ord === -1 ? [row, col] : [col, row];
  const sums = normKernel("sumabs", a.dtype).launch(stream, a, { axis: first, keepdims: true }) as DeviceArray;
  try {
    const pick = ord > 0 ? maxReduce : minReduce;
    const r = pick(sums, { stream, axis: [first, second].sort((x, y) => x - y), keepdims });
    return finish(stream, r, out, "id");
  } finally {
    sums.close(stream);
  }
}

// ---- allclose, arrayEqual ----

const compareKernels = new Map<string, ReductionKernel>();

/** The C++ of `isclose(x, y)` for the dtypes of x and y (NumPy's: `|x - y| <= atol + rtol * |y|`, infinities equal, NaN by `eqn`). */
function closePreamble(a: DType, b: DType): string {
  const complex = a.kind === "c" || b.kind === "c";
  const cx = complex && a.kind !== "c" ? `cuda::std::complex<double>(${toDouble(a, "x")}, 0.0)` : toDouble(a, "x");
  const cy = complex && b.kind !== "c" ? `cuda::std::complex<double>(${toDouble(b, "y")}, 0.0)` : toDouble(b, "y");
  if (!complex) {
    return [
      `__device__ __forceinline__ int _ct_close(const ${a.ctype} x, const ${b.ctype} y, const double rtol, const double atol, const bool eqn) {`,
      `  const double u = ${cx}, v = ${cy};`,
      "  if (isnan(u) || isnan(v)) return (eqn && isnan(u) && isnan(v)) ? 1 : 0;",
      "  if (isinf(u) || isinf(v)) return u == v ? 1 : 0;",
      "  return fabs(u - v) <= atol + rtol * fabs(v) ? 1 : 0;",
      "}",
    ].join("\n");
  }
  return [
    `__device__ __forceinline__ int _ct_close(const ${a.ctype} x, const ${b.ctype} y, const double rtol, const double atol, const bool eqn) {`,
    `  const cuda::std::complex<double> u = ${cx}, v = ${cy};`,
    "  const bool nu = isnan(u.real()) || isnan(u.imag()), nv = isnan(v.real()) || isnan(v.imag());",
    "  if (nu || nv) return (eqn && nu && nv) ? 1 : 0;",
    "  if (isinf(u.real()) || isinf(u.imag()) || isinf(v.real()) || isinf(v.imag())) return u == v ? 1 : 0;",
    "  return cuda::std::abs(u - v) <= atol + rtol * cuda::std::abs(v) ? 1 : 0;",
    "}",
  ].join("\n");
}

/** The C++ of `x == y` for the dtypes of x and y, exact for every pair of integer dtypes. */
function equalPreamble(a: DType, b: DType): string {
  const intLike = (d: DType): boolean => d.kind === "b" || d.kind === "i" || d.kind === "u";
  let body: string;
  if (intLike(a) && intLike(b)) {
    const sa = a.kind === "i";
    const sb = b.kind === "i";
    if (sa === sb) body = sa ? "(long long)x == (long long)y" : "(unsigned long long)x == (unsigned long long)y";
    else if (sa) body = "(long long)x >= 0 && (unsigned long long)(long long)x == (unsigned long long)y";
    else body = "(long long)y >= 0 && (unsigned long long)(long long)y == (unsigned long long)x";
  } else if (a.kind === "c" || b.kind === "c") {
    const cx = a.kind === "c" ? toDouble(a, "x") : `cuda::std::complex<double>(${toDouble(a, "x")}, 0.0)`;
    const cy = b.kind === "c" ? toDouble(b, "y") : `cuda::std::complex<double>(${toDouble(b, "y")}, 0.0)`;
    body = `${cx} == ${cy}`;
  } else body = `${toDouble(a, "x")} == ${toDouble(b, "y")}`;
  return `__device__ __forceinline__ int _ct_equal(const ${a.ctype} x, const ${b.ctype} y) { return (${body}) ? 1 : 0; }`;
}

/** @internal The kernel of `allclose` or `arrayEqual` for two dtypes (exported for tests: the generated source). */
export function compareKernel(op: "close" | "equal", a: DType, b: DType): ReductionKernel {
  const key = `${op}|${a.name}|${b.name}`;
  let k = compareKernels.get(key);
  if (k === undefined) {
    const name = `cuda_ts_${op}_${a.name}_${b.name}`;
    k =
      op === "close"
        ? new ReductionKernel(`${a.name} x, ${b.name} y, float64 rtol, float64 atol, bool eqn`, "bool z", "_ct_close(x, y, rtol, atol, eqn)", "a & b", "z = (a != 0)", "1", name, { reduceType: "int32", preamble: closePreamble(a, b) })
        : new ReductionKernel(`${a.name} x, ${b.name} y`, "bool z", "_ct_equal(x, y)", "a & b", "z = (a != 0)", "1", name, { reduceType: "int32", preamble: equalPreamble(a, b) });
    compareKernels.set(key, k);
  }
  return k;
}

/** Options of `allclose`. */
export interface AllcloseOptions extends ArrayOperationOptions {
  /** The relative tolerance (default 1e-5). */
  readonly rtol?: number;
  /** The absolute tolerance (default 1e-8). */
  readonly atol?: number;
  /** Whether NaN equals NaN (default false). */
  readonly equalNan?: boolean;
}

async function readBool(stream: Stream, z: DeviceArray): Promise<boolean> {
  try {
    return (await item(z, { stream })) === true;
  } finally {
    z.close(stream);
  }
}

/**
 * Whether every pair of elements of `a` and `b` (broadcast together) is close, as NumPy's `allclose`:
 * `|a - b| <= atol + rtol * |b|`, infinities close only to themselves, NaN close to NaN only with `equalNan`.
 * Resolves once the stream has computed it (one boolean read back).
 */
export async function allclose(a: DeviceArray, b: DeviceArray, options?: AllcloseOptions): Promise<boolean> {
  checkArray(a, "allclose");
  checkArray(b, "allclose");
  const opts = checkOptions(options, "allclose") as AllcloseOptions;
  const rtol = opts.rtol ?? 1e-5;
  const atol = opts.atol ?? 1e-8;
  const equalNan = opts.equalNan ?? false;
  for (const [n, v] of [["rtol", rtol], ["atol", atol]] as const) if (typeof v !== "number" || Number.isNaN(v)) throw new ArgumentError(`allclose: ${n} is a number, got ${describeValue(v)}`);
  if (typeof equalNan !== "boolean") throw new ArgumentError(`allclose: equalNan is a boolean, got ${describeValue(equalNan)}`);
  const stream = operationStream("allclose", opts, [a, b]);
  const z = compareKernel("close", a.dtype, b.dtype).launch(stream, a, b, rtol, atol, equalNan) as DeviceArray;
  return readBool(stream, z);
}

/** Options of `arrayEqual`. */
export interface ArrayEqualOptions extends ArrayOperationOptions {
  /** Whether NaN equals NaN (default false, as NumPy's `equal_nan`); a complex element is NaN when either part is. */
  readonly equalNan?: boolean;
}

/** Every element equal (NaN to NaN with `equalNan`), `a` and `b` broadcast together: one boolean read back. */
function allEqual(what: string, a: DeviceArray, b: DeviceArray, opts: ArrayEqualOptions): Promise<boolean> {
  const equalNan = opts.equalNan ?? false;
  if (typeof equalNan !== "boolean") throw new ArgumentError(`${what}: equalNan is a boolean, got ${describeValue(equalNan)}`);
  const stream = operationStream(what, opts, [a, b]);
  // NaN exists only in floats; there a difference of exactly 0 (infinities only to themselves) is equality.
  const floats = a.dtype.kind === "f" || a.dtype.kind === "c" || b.dtype.kind === "f" || b.dtype.kind === "c";
  const z = (equalNan && floats ? compareKernel("close", a.dtype, b.dtype).launch(stream, a, b, 0, 0, true) : compareKernel("equal", a.dtype, b.dtype).launch(stream, a, b)) as DeviceArray;
  return readBool(stream, z);
}

/**
 * Whether `a` and `b` have the same shape and equal elements, as NumPy's `array_equal` (NaN is not equal to NaN
 * unless `equalNan`; integers compare exactly across dtypes). Resolves to false at once for different shapes.
 */
export async function arrayEqual(a: DeviceArray, b: DeviceArray, options?: ArrayEqualOptions): Promise<boolean> {
  checkArray(a, "arrayEqual");
  checkArray(b, "arrayEqual");
  const opts = checkOptions(options, "arrayEqual") as ArrayEqualOptions;
  if (a.shape.length !== b.shape.length || a.shape.some((n, k) => n !== b.shape[k])) return false;
  return allEqual("arrayEqual", a, b, opts);
}

/**
 * Whether `a` and `b` are equal once broadcast together, as NumPy's `array_equiv`: shapes that do not broadcast
 * resolve to false at once; otherwise every pair of elements must be equal (`[1, 2]` is equivalent to `[[1, 2], [1,
 * 2]]`). NaN is not equal to NaN.
 */
export async function arrayEquiv(a: DeviceArray, b: DeviceArray, options?: ArrayOperationOptions): Promise<boolean> {
  checkArray(a, "arrayEquiv");
  checkArray(b, "arrayEquiv");
  const opts = checkOptions(options, "arrayEquiv") as ArrayOperationOptions;
  try {
    broadcastShapes([{ shape: a.shape, name: "a" }, { shape: b.shape, name: "b" }], "arrayEquiv");
  } catch {
    return false;
  }
  return allEqual("arrayEquiv", a, b, opts);
}

provideArrayMethods({
  var: (self, options) => varianceOf("var", self, options),
  std: (self, options) => varianceOf("std", self, options),
  argmin: (self, options) => argReduce("argmin", false, self, options),
  argmax: (self, options) => argReduce("argmax", true, self, options),
  any: (self, options) => any(self, options),
  all: (self, options) => all(self, options),
});
