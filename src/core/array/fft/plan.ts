/**
 * What `cuda-ts/array/fft` works out on the host (exported for tests, no GPU needed): NumPy's rules for `n`/`s`
 * and `axis`/`axes`, the dtypes transforms compute in, the normalisation factors, and the frequencies of
 * `fftfreq`/`rfftfreq`.
 *
 * @module
 */
import { dtypes, type DType } from "../dtype.ts";
import { AxisError, DTypeError, ShapeMismatchError } from "../errors.ts";
import { describeValue } from "../../../errors/describe.ts";
import { normalizeAxis } from "../broadcast.ts";

/** NumPy's normalisation modes: which direction is scaled by 1/n ("backward", the default: the inverse). */
export type FftNorm = "backward" | "ortho" | "forward";

/** The transforms' kinds: complex to complex, real to complex (half spectrum), complex (half spectrum) to real. */
export type TransformKind = "c2c" | "r2c" | "c2r";

/** The factor a transform's output is multiplied by, for `count` points (the product of the transformed sizes). */
export function normFactor(norm: FftNorm | undefined, inverse: boolean, count: number, action: string): number {
  const mode = norm ?? "backward";
  if (mode !== "backward" && mode !== "ortho" && mode !== "forward") throw new TypeError(`${action}: norm is "backward", "ortho" or "forward", not ${describeValue(norm)}`);
  if (mode === "ortho") return 1 / Math.sqrt(count);
  if (mode === "backward") return inverse ? 1 / count : 1;
  return inverse ? 1 : 1 / count;
}

/**
 * The dtype a transform computes in for an input dtype: complex64 for float32, float16, bfloat16 and complex64
 * (float16 and bfloat16 are promoted: cuFFT's half-precision transforms take only powers of two), complex128 for
 * float64, complex128, bool and integers (NumPy's float64). The real transforms take the real dtype (float32 or
 * float64) and refuse complex input, as NumPy 2's do.
 */
export function transformDtype(input: DType, kind: TransformKind, action: string): DType {
  const single = input.name === "float32" || input.name === "float16" || input.name === "bfloat16" || input.name === "complex64";
  if (kind === "r2c") {
    if (input.kind === "c") throw new DTypeError(`${action}: takes a real array, not ${input.name}; use fft for complex input`);
    return single ? dtypes.float32 : dtypes.float64;
  }
  return single ? dtypes.complex64 : dtypes.complex128;
}

/** The axes and sizes of a transform: axes in the caller's order (normalised), sizes of the logical transform. */
export interface TransformAxes {
  readonly axes: readonly number[];
  /** Logical sizes per axis (for c2r: the real output's sizes). */
  readonly sizes: readonly number[];
}

function checkSize(n: unknown, action: string): number {
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) throw new RangeError(`${action}: a transform's size is an integer of at least 1, not ${describeValue(n)} (NumPy: "Invalid number of FFT data points")`);
  return n;
}

/**
 * NumPy's `_cook_nd_args`: the axes (default: the last `s.length`, or every axis) and sizes (default: the input's
 * extents; for c2r the last one is 2·(m − 1) for an input extent m). `oneAxis`: the 1-d functions' `axis`/`n`.
 */
export function transformAxes(shape: readonly number[], kind: TransformKind, s: readonly number[] | undefined, axes: readonly number[] | undefined, action: string): TransformAxes {
  const ndim = shape.length;
  if (ndim === 0) throw new ShapeMismatchError(`${action}: a 0-d array has no axis to transform`);
  if (s !== undefined && !Array.isArray(s)) throw new TypeError(`${action}: s is a list of sizes, not ${describeValue(s)}`);
  if (axes !== undefined && !Array.isArray(axes)) throw new TypeError(`${action}: axes is a list of axes, not ${describeValue(axes)}`);
  let list: number[];
  if (axes === undefined) {
    const count = s === undefined ? ndim : s.length;
    if (count > ndim) throw new ShapeMismatchError(`${action}: s has ${count} sizes but the array has ${ndim} axes`);
    list = [...Array(count).keys()].map((k) => ndim - count + k);
  } else {
    list = axes.map((a) => normalizeAxis(a, ndim, action));
    if (new Set(list).size !== list.length) throw new AxisError(`${action}: axes [${axes.join(", ")}] name an axis twice`);
  }
  if (list.length === 0) throw new AxisError(`${action}: no axis to transform`);
  if (s !== undefined && s.length !== list.length) throw new ShapeMismatchError(`${action}: s has ${s.length} sizes but ${list.length} axes are transformed; give one size per axis`);
  const sizes = list.map((ax, k) => {
    if (s !== undefined) return checkSize(s[k], action);
    if (kind === "c2r" && k === list.length - 1) return checkSize(2 * (shape[ax]! - 1), action);
    return checkSize(shape[ax]!, action);
  });
  return { axes: list, sizes };
}

/** The 1-d functions' axis and size, as a {@link TransformAxes}. */
export function oneAxis(shape: readonly number[], kind: TransformKind, n: number | undefined, axis: number | undefined, action: string): TransformAxes {
  return transformAxes(shape, kind, n === undefined ? undefined : [n], [axis ?? -1], action);
}

/** The two axes of the 2-d functions (default the last two). */
export function twoAxes(shape: readonly number[], kind: TransformKind, s: readonly number[] | undefined, axes: readonly number[] | undefined, action: string): TransformAxes {
  return transformAxes(shape, kind, s, axes ?? [-2, -1], action);
}

/** The input extents a transform reads along its axes: the sizes, but the last is n/2 + 1 for c2r. */
export function inputExtents(kind: TransformKind, sizes: readonly number[]): number[] {
  return sizes.map((n, k) => (kind === "c2r" && k === sizes.length - 1 ? Math.floor(n / 2) + 1 : n));
}

/** The output extents along the axes: the sizes, but the last is n/2 + 1 for r2c. */
export function outputExtents(kind: TransformKind, sizes: readonly number[]): number[] {
  return sizes.map((n, k) => (kind === "r2c" && k === sizes.length - 1 ? Math.floor(n / 2) + 1 : n));
}

/** The axes permutation that moves `axes` (in order) to the end, and its inverse. */
export function axesLast(ndim: number, axes: readonly number[]): { perm: number[]; inverse: number[] } {
  const rest = [...Array(ndim).keys()].filter((a) => !axes.includes(a));
  const perm = [...rest, ...axes];
  const inverse = new Array<number>(ndim);
  perm.forEach((p, k) => (inverse[p] = k));
  return { perm, inverse };
}

/** The groups of at most 3 trailing positions cuFFT plans take at once, innermost first (cuFFT's ranks are 1 to 3). */
export function rankGroups(count: number): { start: number; rank: number }[] {
  const groups: { start: number; rank: number }[] = [];
  let end = count;
  while (end > 0) {
    const rank = Math.min(3, end);
    groups.push({ start: end - rank, rank });
    end -= rank;
  }
  return groups;
}

/** NumPy's `fftfreq(n, d)`: [0, 1, ..., ⌈n/2⌉−1, −⌊n/2⌋, ..., −1] / (d·n). */
export function fftFrequencies(n: number, d: number): Float64Array {
  const out = new Float64Array(n);
  const half = Math.floor((n - 1) / 2) + 1;
  for (let i = 0; i < half; i++) out[i] = i / (d * n);
  for (let i = half; i < n; i++) out[i] = (i - n) / (d * n);
  return out;
}

/** NumPy's `rfftfreq(n, d)`: [0, 1, ..., ⌊n/2⌋] / (d·n). */
export function rfftFrequencies(n: number, d: number): Float64Array {
  const out = new Float64Array(Math.floor(n / 2) + 1);
  for (let i = 0; i < out.length; i++) out[i] = i / (d * n);
  return out;
}
