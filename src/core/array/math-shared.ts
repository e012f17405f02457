/**
 * What the array math entry points (`cuda-ts/array/linalg`, `cuda-ts/array/random`, `cuda-ts/array/fft`) share:
 * library handles cached per CUDA context (made synchronously, on first use, from binding tables their entry points
 * import statically; each moved to the call's stream per call, the new stream first waiting on the previous one, whose
 * work may still use the handle's workspace), and small kernels (casts, scaling, conjugation) built on
 * ElementwiseKernel and cached per module.
 *
 * The cached handles are released by the lifetime safety net (FinalizationRegistry, see base/lifetime.ts) and, at the
 * latest, with their context when the process ends, as every handle the package makes.
 *
 * @module
 */
import { DeviceArray } from "./device-array.ts";
import type { DType, DTypeName } from "./dtype.ts";
import { DTypeError } from "./errors.ts";
import { contiguousStrides, elementCount } from "./layout.ts";
import { broadcastStrides } from "./broadcast.ts";
import { realOf } from "./promotion.ts";
import { viewWith } from "./ops/shape.ts";
import { ElementwiseKernel } from "../kernels/elementwise.ts";
import type { Stream } from "../stream.ts";
import { castSpec, conjugateSpec, scaleSpec, type KernelSpec } from "./math-kernels.ts";
import { describeValue } from "../../errors/describe.ts";

/** A handle cached per context (one per device's primary context), made once on first use. */
export interface CachedHandle {
  /** The stream the handle was last set to (its work is ordered there). */
  stream: Stream;
}

const caches = new Map<string, WeakMap<object, CachedHandle>>();

/**
 * The handle of `kind` cached for `stream`'s context, made by `make` on first use; `setStream` moves it to `stream`
 * when it was set to another one (that stream waits first for the work queued on the previous one).
 */
export function cachedHandle<H extends CachedHandle>(kind: string, stream: Stream, make: (stream: Stream) => H, setStream: (handle: H, stream: Stream) => void): H {
  let cache = caches.get(kind);
  if (cache === undefined) caches.set(kind, (cache = new WeakMap()));
  const key = stream.context as unknown as object;
  let h = cache.get(key) as H | undefined;
  if (h === undefined) {
    h = make(stream);
    cache.set(key, h);
    return h;
  }
  if (h.stream !== stream && !h.stream.equals(stream)) {
    if (h.stream.isClosed) stream.device.sync();
    else stream.wait(h.stream);
    setStream(h, stream);
    h.stream = stream;
  }
  return h;
}

/** A view of `a` with `shape`, broadcasting axes of extent 1 (and missing leading axes) with stride 0. */
export function broadcastView<N extends DTypeName>(a: DeviceArray<N>, shape: readonly number[]): DeviceArray<N> {
  return stridedView(a, shape, broadcastStrides(a.shape, a.strides, shape));
}

/** A view of `a` with its own shape and strides (strides in elements), over the same bytes. */
export function stridedView<N extends DTypeName>(a: DeviceArray<N>, shape: readonly number[], strides: readonly number[]): DeviceArray<N> {
  return viewWith(a, shape, strides);
}

/** The axes of an `ndim`-axis array with its last two swapped (a batch of matrices transposed). */
export function swapLastTwo(ndim: number): number[] {
  const p = [...Array(ndim).keys()];
  if (ndim >= 2) [p[ndim - 2], p[ndim - 1]] = [p[ndim - 1]!, p[ndim - 2]!];
  return p;
}

const kernels = new Map<string, ElementwiseKernel>();

/** The ElementwiseKernel of a spec, cached by its name (compiled per dtype signature on first launch). */
export function kernelOf(spec: KernelSpec): ElementwiseKernel {
  let k = kernels.get(spec.name);
  if (k === undefined) kernels.set(spec.name, (k = new ElementwiseKernel(spec.inParams, spec.outParams, spec.body, spec.name)));
  return k;
}

/**
 * A new contiguous array of `dtype` holding `a`'s elements (a copy when the dtype is the same, a cast otherwise).
 * `shape` broadcasts `a` first (default: its own shape).
 */
export function contiguousAs(a: DeviceArray, dtype: DType, stream: Stream, shape: readonly number[] = a.shape): DeviceArray {
  const src = sameShapeAs(a.shape, shape) ? a : broadcastView(a, shape);
  if (a.dtype === dtype) return src.copy({ stream });
  const out = DeviceArray.empty(shape, dtype, { stream });
  if (elementCount(shape) === 0) return out;
  if (a.dtype.kind === "c" && dtype.kind !== "c") throw new DTypeError(`cannot cast ${a.dtype.name} to ${dtype.name} (it would drop the imaginary part)`);
  kernelOf(castSpec(a.dtype, dtype)).launch(stream, src, out);
  return out;
}

function sameShapeAs(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((n, k) => n === b[k]);
}

/** A view of a contiguous complex array as its real parts and imaginary parts interleaved (a flat real array). */
export function flatReal(a: DeviceArray): DeviceArray {
  const flat = stridedView(a, [a.size], [1]);
  return a.dtype.kind === "c" ? flat.view(realOf(a.dtype)) : flat;
}

/** Multiplies every element of the contiguous float or complex array `a` by `factor`, in place, on `stream`. */
export function scaleInPlace(a: DeviceArray, factor: number, stream: Stream): void {
  if (factor === 1 || a.size === 0) return;
  const r = flatReal(a);
  const name = r.dtype.name;
  if (name !== "float32" && name !== "float64") throw new DTypeError(`scaling takes float or complex arrays, not ${a.dtype.name}`);
  kernelOf(scaleSpec(name)).launch(stream, factor, r);
}

/** Conjugates the contiguous complex array `a` in place (real arrays are left as they are). */
export function conjugateInPlace(a: DeviceArray, stream: Stream): void {
  if (a.dtype.kind !== "c" || a.size === 0) return;
  const r = flatReal(a);
  const name = r.dtype.name;
  // Every second real is an imaginary part.
  kernelOf(conjugateSpec(name as "float32" | "float64")).launch(stream, r);
}

/** Checks a shape argument (a number or a list of non-negative integers); returns it as a list. */
export function shapeArgument(shape: unknown, action: string): number[] {
  if (shape === undefined) return [];
  const list = typeof shape === "number" ? [shape] : Array.isArray(shape) ? [...(shape as unknown[])] : undefined;
  if (list === undefined || !list.every((n) => typeof n === "number" && Number.isSafeInteger(n) && n >= 0)) {
    throw new TypeError(`${action}: a shape is a non-negative integer or a list of them, not ${describeValue(shape)}`);
  }
  return list as number[];
}

/** Row-major strides of `shape` (re-exported for the math modules). */
export { contiguousStrides };
