/**
 * NumPy's `numpy.fft` over DeviceArrays, through cuFFT: `fft`/`ifft`, `rfft`/`irfft`, their 2-d and n-d forms,
 * `fftfreq`, `rfftfreq`, `fftshift`, `ifftshift`.
 *
 * How a transform runs: the input is copied (cast to the transform's dtype: float32 → complex64, float64 and
 * integers → complex128, float16 and bfloat16 → complex64, as NumPy promotes) into a contiguous array whose
 * transformed axes come last, in the order given, each cut or zero-padded to its size (`n`, `s`). cuFFT then
 * transforms those trailing axes as a batch (at most 3 at a time: more axes take several passes, each moving its
 * axes last), and the result's axes are put back in their places (a copy, unless they already were there). cuFFT's
 * inverse is unnormalised: the `norm` factor ("backward": 1/n on the inverse, "ortho": 1/√n both ways, "forward":
 * 1/n on the forward transform) is one more elementwise pass.
 *
 * Plans are cached per device (per CUDA context), keyed by kind, precision, sizes and batch (at most
 * {@link FFT_PLAN_CACHE_SIZE}; the oldest is destroyed when more are made), each with its own work area; a plan
 * moves to each call's stream, which first waits for the previous one. Nothing here waits for the stream.
 *
 * @module
 */
import { cufft, type cufftHandle } from "../../../bindings/cufft.ts";
import { CUFFT_FORWARD, CUFFT_INVERSE } from "../../../../generated/cuda-13.0/cufft/constants.ts";
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { elementCount } from "../layout.ts";
import type { Stream } from "../../stream.ts";
import { contextScope } from "../../base/context-scope.ts";
import { withCurrentContext } from "../../base/driver-state.ts";
import { track, untrack } from "../../base/lifetime.ts";
import { takeStream, STREAM_OPTION } from "../../base/stream-arg.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ClosedError } from "../../base/errors.ts";
import { fftLayout, type FftLayout } from "../../math/fft/layout.ts";
import { pointerOf } from "../../math/rng/shared.ts";
import { contiguousAs, scaleInPlace } from "../math-shared.ts";
import { normalizeAxes } from "../broadcast.ts";
import {
  axesLast,
  fftFrequencies,
  inputExtents,
  normFactor,
  oneAxis,
  rankGroups,
  rfftFrequencies,
  transformAxes,
  transformDtype,
  twoAxes,
  type FftNorm,
  type TransformAxes,
  type TransformKind,
} from "./plan.ts";

/** How many plans each device keeps (the oldest is destroyed when another is made). */
export const FFT_PLAN_CACHE_SIZE = 32;

/** Options of the 1-d transforms. */
export interface FftOptions extends ArrayOperationOptions {
  /** The transform's size along the axis: the input is cut or zero-padded to it (default: the axis's extent; irfft: 2·(m − 1)). */
  readonly n?: number;
  /** The axis transformed (default -1, the last). */
  readonly axis?: number;
  /** The normalisation (default "backward"). */
  readonly norm?: FftNorm;
}

/** Options of the 2-d and n-d transforms. */
export interface FftnOptions extends ArrayOperationOptions {
  /** The sizes per transformed axis (default: the axes' extents; irfftn: the last is 2·(m − 1)). */
  readonly s?: readonly number[];
  /** The axes transformed (fft2: default [-2, -1]; fftn: the last `s.length`, or every axis). */
  readonly axes?: readonly number[];
  /** The normalisation (default "backward"). */
  readonly norm?: FftNorm;
}

export type { FftNorm };

// ---- plans ----

interface CachedPlan {
  readonly handle: cufftHandle;
  readonly layout: FftLayout;
  stream: Stream;
}

const planCaches = new WeakMap<object, Map<string, CachedPlan>>();

/** The cached plan of `kind` over the trailing `sizes` with `batch` transforms, on `stream`'s context, set to `stream`. */
function planFor(kind: TransformKind, precision: "single" | "double", sizes: readonly number[], batch: number, stream: Stream): CachedPlan {
  const key = stream.context as unknown as object;
  let cache = planCaches.get(key);
  if (cache === undefined) planCaches.set(key, (cache = new Map()));
  const layout = fftLayout({ kind, precision, shape: sizes, batch });
  let plan = cache.get(layout.key);
  if (plan !== undefined) {
    // Most recently used last.
    cache.delete(layout.key);
    cache.set(layout.key, plan);
    if (plan.stream !== stream && !plan.stream.equals(stream)) {
      if (plan.stream.isClosed) stream.device.sync();
      else stream.wait(plan.stream);
      cufft.cufftSetStream(plan.handle, stream.handle);
      plan.stream = stream;
    }
    return plan;
  }
  if (cache.size >= FFT_PLAN_CACHE_SIZE) {
    const [oldest, old] = cache.entries().next().value as [string, CachedPlan];
    cache.delete(oldest);
    // Its work area may still be in use by queued transforms.
    if (!old.stream.isClosed) old.stream.sync();
    untrack(old);
    withCurrentContext(stream.context.handle, () => cufft.cufftDestroy(old.handle));
  }
  plan = withCurrentContext(stream.context.handle, () => makePlan(layout, stream));
  cache.set(layout.key, plan);
  return plan;
}

function makePlan(L: FftLayout, stream: Stream): CachedPlan {
  const arr = (xs: readonly number[]): BigInt64Array => BigInt64Array.from(xs.map((x) => BigInt(x)));
  const workSize = new BigUint64Array(1);
  const handle = cufft.cufftCreate();
  try {
    cufft.cufftMakePlanMany64(handle, L.rank, arr(L.n), arr(L.inembed), 1, L.idist, arr(L.onembed), 1, L.odist, L.type as Parameters<typeof cufft.cufftMakePlanMany64>[9], L.batch, workSize);
    cufft.cufftSetStream(handle, stream.handle);
  } catch (e) {
    cufft.cufftDestroy(handle);
    throw e;
  }
  const plan: CachedPlan = { handle, layout: L, stream };
  const ctx = stream.context.handle;
  track(plan, "cuFFT plan", () => withCurrentContext(ctx, () => cufft.cufftDestroy(handle)));
  return plan;
}

function exec(plan: CachedPlan, input: DeviceArray, output: DeviceArray, inverse: boolean, stream: Stream): void {
  const L = plan.layout;
  const i = pointerOf(input);
  const o = pointerOf(output);
  const h = plan.handle;
  using _ = contextScope(stream.context.handle);
  const direction = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  if (L.precision === "single") {
    if (L.kind === "c2c") cufft.cufftExecC2C(h, i, o, direction);
    else if (L.kind === "r2c") cufft.cufftExecR2C(h, i, o);
    else cufft.cufftExecC2R(h, i, o);
  } else if (L.kind === "c2c") cufft.cufftExecZ2Z(h, i, o, direction);
  else if (L.kind === "r2c") cufft.cufftExecD2Z(h, i, o);
  else cufft.cufftExecZ2D(h, i, o);
}

// ---- the transforms ----

/**
 * A contiguous copy of `a` in `dtype` with `axes` moved last (in order), each cut or zero-padded to `extents`.
 */
function prepare(a: DeviceArray, axes: readonly number[], extents: readonly number[], dtype: DType, stream: Stream): { x: DeviceArray; inverse: number[] } {
  const { perm, inverse } = axesLast(a.ndim, axes);
  const moved = a.transpose(perm);
  const lead = a.ndim - axes.length;
  const shape = [...moved.shape.slice(0, lead), ...extents];
  const specs = moved.shape.map((n, d) => (d < lead ? null : ([0, Math.min(n, shape[d]!)] as const)));
  const src = moved.slice(...specs);
  if (src.shape.every((n, d) => n === shape[d])) return { x: contiguousAs(src, dtype, stream), inverse };
  const x = DeviceArray.zeros(shape, dtype, { stream });
  if (src.size > 0) {
    const cast = contiguousAs(src, dtype, stream);
    try {
      cast.copyTo(x.slice(...src.shape.map((n) => [0, n] as const)), { stream });
    } finally {
      cast.close(stream);
    }
  }
  return { x, inverse };
}

/** `x` (contiguous) with its axes permuted by `perm` into a new contiguous array (x itself when `perm` is the identity); x is closed otherwise. */
function permuted(x: DeviceArray, perm: readonly number[], stream: Stream): DeviceArray {
  if (perm.every((p, k) => p === k)) return x;
  const y = x.transpose([...perm]).copy({ stream });
  x.close(stream);
  return y;
}

/** c2c in place over the trailing `count` axes of the contiguous `x`, in groups of at most 3. */
function c2cTrailing(x: DeviceArray, count: number, inverse: boolean, stream: Stream): DeviceArray {
  const precision = x.dtype.name === "complex64" ? "single" : "double";
  const nd = x.ndim;
  let y = x;
  for (const g of rankGroups(count)) {
    const lead = nd - count;
    const first = lead + g.start;
    // The group's axes must be last: move them there (and back after).
    const groupAxes = [...Array(g.rank).keys()].map((k) => first + k);
    const { perm, inverse: back } = axesLast(nd, groupAxes);
    const z = permuted(y, perm, stream);
    if (z.size > 0) {
      const sizes = z.shape.slice(nd - g.rank);
      exec(planFor("c2c", precision, sizes, z.size / elementCount(sizes), stream), z, z, inverse, stream);
    }
    y = permuted(z, back, stream);
  }
  return y;
}

/** The shape of `a`, a TypeError naming the function when `a` is not a DeviceArray. */
function shapeOf(a: unknown, action: string): readonly number[] {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${action}: takes a DeviceArray, not ${describeValue(a)}`);
  if (a.isClosed) throw new ClosedError(`${action}: its array (${a.dtype.name} [${a.shape.join(", ")}])`, "transform it");
  return a.shape;
}

function transform(kind: TransformKind, a: DeviceArray, spec: TransformAxes, inverse: boolean, norm: FftNorm | undefined, options: ArrayOperationOptions | undefined, action: string): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${action}: takes a DeviceArray, not ${describeValue(a)}`);
  const stream = operationStream(action, options, [a]);
  const dtype = transformDtype(a.dtype, kind, action);
  const factor = normFactor(norm, inverse, elementCount(spec.sizes), action);
  const { axes, sizes } = spec;
  const L = axes.length;
  const { x, inverse: back } = prepare(a, axes, inputExtents(kind, sizes), dtype, stream);
  let y: DeviceArray = x;
  try {
    const nd = x.ndim;
    if (kind === "c2c") {
      y = c2cTrailing(x, L, inverse, stream);
    } else if (kind === "r2c") {
      // The last (up to 3) axes real-to-complex, the rest complex-to-complex.
      const r = Math.min(3, L);
      const realSizes = sizes.slice(L - r);
      const precision = dtype.name === "float32" ? "single" : "double";
      const outShape = [...x.shape.slice(0, nd - 1), Math.floor(sizes[L - 1]! / 2) + 1];
      const out = DeviceArray.empty(outShape, precision === "single" ? dtypes.complex64 : dtypes.complex128, { stream });
      if (out.size > 0) exec(planFor("r2c", precision, realSizes, x.size / elementCount(realSizes), stream), x, out, false, stream);
      x.close(stream);
      y = out;
      if (L > r) {
        // The leading transformed axes: moved last, transformed, moved back.
        const lead = [...Array(L - r).keys()].map((k) => nd - L + k);
        const { perm, inverse: undo } = axesLast(nd, lead);
        y = permuted(c2cTrailing(permuted(y, perm, stream), L - r, false, stream), undo, stream);
      }
    } else {
      const r = Math.min(3, L);
      let z: DeviceArray = x;
      if (L > r) {
        const lead = [...Array(L - r).keys()].map((k) => nd - L + k);
        const { perm, inverse: undo } = axesLast(nd, lead);
        z = permuted(c2cTrailing(permuted(x, perm, stream), L - r, true, stream), undo, stream);
      }
      const realSizes = sizes.slice(L - r);
      const precision = dtype.name === "complex64" ? "single" : "double";
      const outShape = [...z.shape.slice(0, nd - 1), sizes[L - 1]!];
      const out = DeviceArray.empty(outShape, precision === "single" ? dtypes.float32 : dtypes.float64, { stream });
      // cuFFT's c2r overwrites its input: z is this call's own copy.
      if (out.size > 0) exec(planFor("c2r", precision, realSizes, out.size / elementCount(realSizes), stream), z, out, true, stream);
      z.close(stream);
      y = out;
    }
    scaleInPlace(y, factor, stream);
    return permuted(y, back, stream);
  } catch (e) {
    if (!x.isClosed) x.close(stream);
    if (y !== x && !y.isClosed) y.close(stream);
    throw e;
  }
}

/** NumPy's `fft`: the 1-d discrete Fourier transform along `axis` (default the last), complex output. */
export function fft(a: DeviceArray, options?: FftOptions): DeviceArray {
  return transform("c2c", a, oneAxis(shapeOf(a, "fft"), "c2c", options?.n, options?.axis, "fft"), false, options?.norm, options, "fft");
}

/** NumPy's `ifft`: the 1-d inverse transform (scaled by 1/n with the default "backward" norm). */
export function ifft(a: DeviceArray, options?: FftOptions): DeviceArray {
  return transform("c2c", a, oneAxis(shapeOf(a, "ifft"), "c2c", options?.n, options?.axis, "ifft"), true, options?.norm, options, "ifft");
}

/** NumPy's `rfft`: the 1-d transform of real input, the n/2 + 1 non-negative frequencies. */
export function rfft(a: DeviceArray, options?: FftOptions): DeviceArray {
  return transform("r2c", a, oneAxis(shapeOf(a, "rfft"), "r2c", options?.n, options?.axis, "rfft"), false, options?.norm, options, "rfft");
}

/** NumPy's `irfft`: the inverse of rfft, real output of `n` points (default 2·(m − 1)). */
export function irfft(a: DeviceArray, options?: FftOptions): DeviceArray {
  return transform("c2r", a, oneAxis(shapeOf(a, "irfft"), "c2r", options?.n, options?.axis, "irfft"), true, options?.norm, options, "irfft");
}

/** NumPy's `fft2`: the transform over two axes (default the last two). */
export function fft2(a: DeviceArray, options?: FftnOptions): DeviceArray {
  return transform("c2c", a, twoAxes(shapeOf(a, "fft2"), "c2c", options?.s, options?.axes, "fft2"), false, options?.norm, options, "fft2");
}

/** NumPy's `ifft2`. */
export function ifft2(a: DeviceArray, options?: FftnOptions): DeviceArray {
  return transform("c2c", a, twoAxes(shapeOf(a, "ifft2"), "c2c", options?.s, options?.axes, "ifft2"), true, options?.norm, options, "ifft2");
}

/** NumPy's `rfft2`. */
export function rfft2(a: DeviceArray, options?: FftnOptions): DeviceArray {
  return transform("r2c", a, twoAxes(shapeOf(a, "rfft2"), "r2c", options?.s, options?.axes, "rfft2"), false, options?.norm, options, "rfft2");
}

/** NumPy's `irfft2`. */
export function irfft2(a: DeviceArray, options?: FftnOptions): DeviceArray {
  return transform("c2r", a, twoAxes(shapeOf(a, "irfft2"), "c2r", options?.s, options?.axes, "irfft2"), true, options?.norm, options, "irfft2");
}

/** NumPy's `fftn`: the transform over `axes` (default: the last `s.length`, or every axis). */
export function fftn(a: DeviceArray, options?: FftnOptions): DeviceArray {
  return transform("c2c", a, transformAxes(shapeOf(a, "fftn"), "c2c", options?.s, options?.axes, "fftn"), false, options?.norm, options, "fftn");
}

/** NumPy's `ifftn`. */
export function ifftn(a: DeviceArray, options?: FftnOptions): DeviceArray {
  return transform("c2c", a, transformAxes(shapeOf(a, "ifftn"), "c2c", options?.s, options?.axes, "ifftn"), true, options?.norm, options, "ifftn");
}

/** NumPy's `rfftn`: real input, the last axis halved (n/2 + 1). */
export function rfftn(a: DeviceArray, options?: FftnOptions): DeviceArray {
  return transform("r2c", a, transformAxes(shapeOf(a, "rfftn"), "r2c", options?.s, options?.axes, "rfftn"), false, options?.norm, options, "rfftn");
}

/** NumPy's `irfftn`: the inverse of rfftn, real output. */
export function irfftn(a: DeviceArray, options?: FftnOptions): DeviceArray {
  return transform("c2r", a, transformAxes(shapeOf(a, "irfftn"), "c2r", options?.s, options?.axes, "irfftn"), true, options?.norm, options, "irfftn");
}

// ---- helpers ----

/** Options of `fftfreq` and `rfftfreq`: the stream is required (no array gives one). */
export interface FftFreqOptions {
  readonly stream: Stream;
  /** float64 (default) or float32. */
  readonly dtype?: "float32" | "float64";
}

function frequencies(values: Float64Array, options: FftFreqOptions, action: string): DeviceArray {
  const stream = takeStream(options?.stream, action, STREAM_OPTION);
  const dtype = options.dtype ?? "float64";
  if (dtype !== "float32" && dtype !== "float64") throw new TypeError(`${action}: dtype is "float32" or "float64", not ${describeValue(dtype)}`);
  return dtype === "float64" ? DeviceArray.from(values, { stream }) : DeviceArray.from(Float32Array.from(values), { stream });
}

function checkFreqArgs(n: unknown, d: unknown, action: string): void {
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) throw new RangeError(`${action}: n is an integer of at least 1, not ${describeValue(n)}`);
  if (typeof d !== "number" || !Number.isFinite(d) || d === 0) throw new RangeError(`${action}: d is a finite non-zero number, not ${describeValue(d)}`);
}

/** NumPy's `fftfreq(n, d)`: the sample frequencies of an n-point fft with sample spacing d. */
export function fftfreq(n: number, d: number | undefined, options: FftFreqOptions): DeviceArray {
  checkFreqArgs(n, d ?? 1, "fftfreq");
  return frequencies(fftFrequencies(n, d ?? 1), options, "fftfreq");
}

/** NumPy's `rfftfreq(n, d)`: the n/2 + 1 non-negative sample frequencies of an n-point rfft. */
export function rfftfreq(n: number, d: number | undefined, options: FftFreqOptions): DeviceArray {
  checkFreqArgs(n, d ?? 1, "rfftfreq");
  return frequencies(rfftFrequencies(n, d ?? 1), options, "rfftfreq");
}

/** Options of `fftshift` and `ifftshift`. */
export interface FftShiftOptions extends ArrayOperationOptions {
  /** The axes shifted (default: every axis). */
  readonly axes?: number | readonly number[];
}

/** `a` rolled by `shifts[k]` along `axes[k]`, a new contiguous array (two strided copies per axis). */
function roll(a: DeviceArray, axes: readonly number[], shifts: readonly number[], stream: Stream): DeviceArray {
  let x = a.copy({ stream });
  axes.forEach((axis, k) => {
    const n = x.shape[axis]!;
    const s = ((shifts[k]! % n) + n) % n;
    if (n === 0 || s === 0 || x.size === 0) return;
    const y = DeviceArray.empty(x.shape, x.dtype, { stream });
    const along = (range: readonly [number, number]) => x.shape.map((_, d) => (d === axis ? range : null));
    // y[s:] = x[:n-s], y[:s] = x[n-s:]
    x.slice(...along([0, n - s])).copyTo(y.slice(...along([s, n])), { stream });
    x.slice(...along([n - s, n])).copyTo(y.slice(...along([0, s])), { stream });
    x.close(stream);
    x = y;
  });
  return x;
}

/** NumPy's `fftshift`: the zero frequency moved to the centre (a roll by ⌊n/2⌋ along each axis), a new array. */
export function fftshift(a: DeviceArray, options?: FftShiftOptions): DeviceArray {
  shapeOf(a, "fftshift");
  const stream = operationStream("fftshift", options, [a]);
  const axes = normalizeAxes(options?.axes, a.ndim, "fftshift");
  return roll(a, axes, axes.map((d) => Math.floor(a.shape[d]! / 2)), stream);
}

/** NumPy's `ifftshift`: the inverse of fftshift (a roll by −⌊n/2⌋ along each axis), a new array. */
export function ifftshift(a: DeviceArray, options?: FftShiftOptions): DeviceArray {
  shapeOf(a, "ifftshift");
  const stream = operationStream("ifftshift", options, [a]);
  const axes = normalizeAxes(options?.axes, a.ndim, "ifftshift");
  return roll(a, axes, axes.map((d) => -Math.floor(a.shape[d]! / 2)), stream);
}

