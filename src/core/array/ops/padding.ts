/**
 * NumPy's `pad`: an array grown along its axes, the new elements a constant or taken from the array by a rule (its
 * edge, its mirror image without or with the edge, its other end), as a function of `cuda-ts/array`.
 *
 * ```ts
 * pad(x, 2);                                       // [1, 2, 3] → [0, 0, 1, 2, 3, 0, 0]
 * pad(x, [1, 2], { mode: "edge" });                // [1, 1, 2, 3, 3, 3]
 * pad(m, [[1, 1], [0, 2]], { mode: "reflect" });   // a row mirrored above and below, two columns on the right
 * ```
 *
 * One gather kernel (an ElementwiseKernel) writes the result: each element's index is split into one coordinate per
 * axis, each coordinate mapped to the source's by the mode, and the element read from the source, or, for
 * "constant", the constant written. The source may be any view: its strides are passed to the kernel, which reads it
 * through a contiguous view of the memory its elements span. Axes that are not padded and lie one inside the other in
 * memory are merged first, so the kernel walks as few axes as it can (one kernel per dtype, mode and number of axes).
 *
 * The modes' rules, for a coordinate `j` counted from the source's first element along an axis of extent `n` (they
 * give NumPy's results for pads of any width, NumPy's repeated padding of wide pads included):
 *
 * | mode | source coordinate |
 * | --- | --- |
 * | "edge" | `j` clamped to [0, n - 1] |
 * | "wrap" | `j` modulo `n` |
 * | "symmetric" | `m = j` modulo `2n`; `m` below `n`, else `2n - 1 - m` (the edge repeated) |
 * | "reflect" | `m = j` modulo `2(n - 1)`; `m` below `n`, else `2(n - 1) - m` (the edge not repeated); `n = 1`: the element |
 *
 * @module
 */
import { DeviceArray, encodeElement, operationStream, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import type { DType } from "../dtype.ts";
import { ArrayLayoutError, ShapeMismatchError } from "../errors.ts";
import { elementCount } from "../layout.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { castScalar } from "./creation.ts";
import { cachedKernel, checkOneDevice } from "./elementwise.ts";
import { viewWith } from "./shape.ts";

/** How `pad` fills the new elements. */
export type PadMode = "constant" | "edge" | "reflect" | "symmetric" | "wrap";

/**
 * Pad widths, as NumPy's `pad_width`: one count for every side of every axis, `[before, after]` for every axis, or one
 * `[before, after]` pair per axis (`[n]` and `[[before, after]]` count for every axis too). Non-negative integers.
 */
export type PadWidth = number | readonly number[] | readonly (readonly number[])[];

/** A constant `pad` writes: converted to the array's dtype as `full` converts its value. */
export type PadValue = number | bigint | boolean;

/**
 * The constants of mode "constant", as NumPy's `constant_values`: one value, `[before, after]` for every axis, or one
 * `[before, after]` pair per axis.
 */
export type PadConstantValues = PadValue | readonly PadValue[] | readonly (readonly PadValue[])[];

/** Options of `pad`. */
export interface PadOptions extends ArrayOperationOptions {
  /** How the new elements are filled (default "constant"). */
  readonly mode?: PadMode;
  /** The values of mode "constant" (default 0); where two axes' pads meet, the later axis's value (as NumPy). */
  readonly constantValues?: PadConstantValues;
}

const MODES: readonly PadMode[] = ["constant", "edge", "reflect", "symmetric", "wrap"];

/** The most axes the kernel walks, after merging the unpadded axes that lie one inside the other. */
export const PAD_MAX_DIMS = 32;

const isWidth = (v: unknown): v is number => typeof v === "number";
const isValue = (v: unknown): v is PadValue => typeof v === "number" || typeof v === "bigint" || typeof v === "boolean";

/**
 * `x` as one [before, after] pair per axis, broadcast as NumPy broadcasts `pad_width` and `constant_values` to shape
 * [ndim, 2]: a value, [v], [before, after], [[before, after]] or one pair per axis (a pair may be [v]).
 */
function asPairs<T>(x: unknown, ndim: number, is: (v: unknown) => v is T, what: string, name: string, kind: string): [T, T][] {
  const all = (pair: readonly [T, T]): [T, T][] => Array.from({ length: ndim }, () => [pair[0], pair[1]]);
  const shapes = `a ${kind}, [before, after] for every axis, or one [before, after] pair per axis`;
  if (is(x)) return all([x, x]);
  if (!Array.isArray(x)) throw new ArgumentError(`${what}: ${name} is ${shapes}, got ${describeValue(x)}`);
  const list = x as readonly unknown[];
  if (list.length > 0 && list.every(is)) {
    if (list.length === 1) return all([list[0] as T, list[0] as T]);
    if (list.length === 2) return all([list[0] as T, list[1] as T]);
    throw new ShapeMismatchError(`${what}: ${name} [${list.map((v) => describeValue(v)).join(", ")}] has ${list.length} entries; give one [before, after] pair (or a list of one pair per axis)`);
  }
  if (list.length > 0 && list.every((row) => Array.isArray(row) && (row.length === 1 || row.length === 2) && (row as readonly unknown[]).every(is))) {
    const rows = (list as readonly (readonly T[])[]).map((row): [T, T] => [row[0]!, row[row.length - 1]!]);
    if (rows.length === 1) return all(rows[0]!);
    if (rows.length === ndim) return rows;
    throw new ShapeMismatchError(`${what}: ${name} has ${rows.length} pairs but the array has ${ndim} axes; give one [before, after] pair per axis, or one pair for every axis`);
  }
  throw new ArgumentError(`${what}: ${name} is ${shapes}, got ${describeValue(x)}`);
}

/**
 * The [before, after] widths of each of `ndim` axes from `pad`'s `padWidth` (exported for tests): ArgumentError for
 * anything but non-negative integers, ShapeMismatchError for a count of pairs that is neither 1 nor `ndim`.
 */
export function padWidths(padWidth: unknown, ndim: number, what = "pad"): [number, number][] {
  const pairs = asPairs(padWidth, ndim, isWidth, what, "padWidth", "non-negative integer");
  for (const [b, f] of pairs) {
    for (const w of [b, f]) if (!Number.isSafeInteger(w) || w < 0) throw new ArgumentError(`${what}: pad widths are non-negative integers, got ${describeValue(w)}`);
  }
  return pairs;
}

/**
 * The [before, after] constants of each of `ndim` axes from `pad`'s `constantValues`, converted to `dtype` as `full`
 * converts its value (exported for tests): DTypeError for a value the dtype cannot hold (NaN or out of range for an
 * integer dtype).
 */
export function padConstants(values: unknown, ndim: number, dtype: DType, what = "pad"): [ArrayScalar, ArrayScalar][] {
  return asPairs(values, ndim, isValue, what, "constantValues", "number").map(([b, f]) => {
    const pair: [ArrayScalar, ArrayScalar] = [castScalar(b, dtype), castScalar(f, dtype)];
    for (const v of pair) encodeElement(dtype, v); // range checked before the stream is used
    return pair;
  });
}

/** One axis the pad kernel walks. */
export interface PadAxis {
  /** The source's extent along it. */
  readonly extent: number;
  /** The source's stride along it, in elements. */
  readonly stride: number;
  /** Elements added before the source's first. */
  readonly before: number;
  /** The result's extent along it. */
  readonly out: number;
  /** The axis of the array it stands for (the last of merged ones): where its constants come from. */
  readonly axis: number;
}

/** What the pad kernel walks (exported for tests). */
export interface PadPlan {
  /** The result's shape. */
  readonly shape: number[];
  /** The axes walked, outermost first: unpadded axes that lie one inside the other merged, unpadded extents of 1 left out. */
  readonly axes: PadAxis[];
  /** The position of the source's element [0, ...] in the span of its memory, in elements. */
  readonly base: number;
  /** The offset of the span's first element from element [0, ...] (0 or negative, for negative strides), in elements. */
  readonly low: number;
  /** Elements from the lowest to the highest element of the source (0 for an empty source). */
  readonly span: number;
}

/** The plan of `pad` for a source of `shape` and `strides` (in elements) padded by `widths` (exported for tests). */
export function padPlan(shape: readonly number[], strides: readonly number[], widths: readonly (readonly [number, number])[]): PadPlan {
  const axes: { extent: number; stride: number; before: number; out: number; axis: number }[] = [];
  shape.forEach((n, d) => {
    const [b, f] = widths[d]!;
    const st = strides[d]!;
    if (b === 0 && f === 0) {
      if (n === 1) return; // nothing to walk
      const last = axes[axes.length - 1];
      if (last !== undefined && last.before === 0 && last.out === last.extent && last.stride === n * st) {
        last.extent *= n;
        last.out = last.extent;
        last.stride = st;
        last.axis = d;
        return;
      }
    }
    axes.push({ extent: n, stride: st, before: b, out: n + b + f, axis: d });
  });
  if (axes.length === 0) axes.push({ extent: 1, stride: 0, before: 0, out: 1, axis: shape.length - 1 });
  let low = 0;
  let high = 0;
  const size = elementCount(shape);
  if (size > 0) {
    shape.forEach((n, d) => {
      const e = (n - 1) * strides[d]!;
      if (e < 0) low += e;
      else high += e;
    });
  }
  return { shape: shape.map((n, d) => n + widths[d]![0] + widths[d]![1]), axes, base: 0 - low, low, span: size > 0 ? high - low + 1 : 0 };
}

/**
 * The source coordinate of a padded element whose coordinate, counted from the source's first element, is `j`, along
 * an axis of extent `n` (at least 1), by `mode`'s rule (the module's table): what the kernel computes, exported for
 * tests. For "constant" the coordinate itself (outside [0, n) the constant is written).
 */
export function padIndex(mode: PadMode, n: number, j: number): number {
  if (j >= 0 && j < n) return j;
  const mod = (x: number, p: number): number => ((x % p) + p) % p;
  switch (mode) {
    case "constant":
      return j;
    case "edge":
      return j < 0 ? 0 : n - 1;
    case "wrap":
      return mod(j, n);
    case "symmetric": {
      const m = mod(j, 2 * n);
      return m < n ? m : 2 * n - 1 - m;
    }
    case "reflect": {
      if (n === 1) return 0;
      const m = mod(j, 2 * (n - 1));
      return m < n ? m : 2 * (n - 1) - m;
    }
  }
}

/** The C++ of `padIndex`'s rule on `j` along axis `d` (its extent `n<d>`), for a coordinate outside [0, n<d>). */
function mapLines(mode: Exclude<PadMode, "constant">, d: number): string {
  const n = `n${d}`;
  switch (mode) {
    case "edge":
      return `j = j < 0 ? 0 : ${n} - 1;`;
    case "wrap":
      return `j %= ${n}; if (j < 0) j += ${n};`;
    case "symmetric":
      return `const long long p = 2 * ${n}; j %= p; if (j < 0) j += p; if (j >= ${n}) j = p - 1 - j;`;
    case "reflect":
      return `if (${n} == 1) j = 0; else { const long long p = 2 * (${n} - 1); j %= p; if (j < 0) j += p; if (j >= ${n}) j = p - j; }`;
  }
}

/**
 * The device function of the pad kernel (exported for tests: no GPU needed): `_ct_pad(i, a, base, n0, s0, b0, m0,
 * ..., [lo0, hi0, ...])`, the element of the result at row-major index `i` over `rank` axes (extent `n`, stride `s`
 * and pad before `b` of the source, result extent `m`, per axis), read from `a` (the span of the source's memory,
 * element [0, ...] at `base`) or, for "constant", the constant of the last axis whose pad holds it (`lo` before the
 * source, `hi` after). The index is split in 32-bit arithmetic when `index32`.
 */
export function padPreamble(mode: PadMode, dtype: DType, rank: number, index32: boolean): string {
  const T = dtype.ctype;
  const IDX = index32 ? "unsigned int" : "unsigned long long";
  const axes = [...Array(rank).keys()];
  const constant = mode === "constant";
  const params = [
    "const unsigned long long _i",
    `const ${T}* __restrict__ a`,
    "const long long base",
    ...axes.flatMap((d) => [`const long long n${d}`, `const long long s${d}`, `const long long b${d}`, `const long long m${d}`]),
    ...(constant ? axes.flatMap((d) => [`const ${T} lo${d}`, `const ${T} hi${d}`]) : []),
  ];
  const lines = [`__device__ __forceinline__ ${T} _ct_pad(${params.join(", ")}) {`, `  ${IDX} r = (${IDX})_i;`, "  long long off = base;"];
  if (constant) lines.push("  bool hit = false;", `  ${T} v = lo0;`);
  // The innermost axis first: its coordinate is the remainder; for "constant" the first pad met is the last axis's.
  for (let d = rank - 1; d >= 0; d--) {
    lines.push("  {");
    if (d > 0) lines.push(`    const ${IDX} q = r / (${IDX})m${d};`, `    long long j = (long long)(r - q * (${IDX})m${d}) - b${d};`, "    r = q;");
    else lines.push(`    long long j = (long long)r - b0;`);
    if (constant) lines.push(`    if (j < 0 || j >= n${d}) { if (!hit) { hit = true; v = j < 0 ? lo${d} : hi${d}; } }`, `    else off += j * s${d};`);
    else lines.push(`    if (j < 0 || j >= n${d}) { ${mapLines(mode, d)} }`, `    off += j * s${d};`);
    lines.push("  }");
  }
  lines.push(constant ? "  return hit ? v : a[off];" : "  return a[off];", "}", "");
  return lines.join("\n");
}

/** The pad kernel of a mode, dtype and number of axes (exported for tests: no GPU needed), made once and kept. */
export function padKernel(mode: PadMode, dtype: DType, rank: number, index32: boolean): ElementwiseKernel {
  return cachedKernel(`pad|${mode}|${dtype.name}|${rank}|${index32 ? "u32" : "u64"}`, () => {
    const axes = [...Array(rank).keys()];
    const constant = mode === "constant";
    const scalars = [...axes.flatMap((d) => [`n${d}`, `s${d}`, `b${d}`, `m${d}`]), ...(constant ? axes.flatMap((d) => [`lo${d}`, `hi${d}`]) : [])];
    const inParams = [
      `raw ${dtype.name} a`,
      "int64 base",
      ...axes.flatMap((d) => [`int64 n${d}`, `int64 s${d}`, `int64 b${d}`, `int64 m${d}`]),
      ...(constant ? axes.flatMap((d) => [`${dtype.name} lo${d}`, `${dtype.name} hi${d}`]) : []),
    ];
    const body = `z = _ct_pad(i, a, base, ${scalars.join(", ")})`;
    return new ElementwiseKernel(inParams.join(", "), `${dtype.name} z`, body, `cuda_ts_pad_${mode}_${dtype.name}_r${rank}${index32 ? "" : "_i64"}`, {
      preamble: padPreamble(mode, dtype, rank, index32),
    });
  });
}

/**
 * `a` padded along each axis, as NumPy's `pad`: a new array of `a`'s dtype, each axis `before + after` longer.
 * `padWidth` gives the widths (one count for every side, `[before, after]` for every axis, or one pair per axis);
 * `mode` fills the new elements:
 *
 * - "constant" (default): `constantValues` (default 0; one value, `[before, after]`, or one pair per axis), converted
 *   to `a`'s dtype as `full` converts its value; where the pads of two axes meet (the corners), the later axis's value.
 * - "edge": the edge element repeated.
 * - "reflect": the mirror image without the edge (`[1, 2, 3]` → `[3, 2, 1, 2, 3, 2, 1]`), repeated for pads wider
 *   than the axis as NumPy repeats it; an axis of one element repeats it.
 * - "symmetric": the mirror image with the edge (`[1, 2, 3]` → `[2, 1, 1, 2, 3, 3, 2]`), likewise.
 * - "wrap": the other end (`[1, 2, 3]` → `[2, 3, 1, 2, 3, 1, 2]`), likewise.
 *
 * `a` may be any view. Zero widths everywhere give a copy. One gather kernel writes the result (see the module's
 * description); it does not wait for the stream.
 *
 * ```ts
 * const x = ca.asarray([1, 2, 3], { stream, dtype: "float32" });
 * ca.pad(x, 2);                                            // [0, 0, 1, 2, 3, 0, 0]
 * ca.pad(x, [2, 3], { mode: "reflect" });                  // [3, 2, 1, 2, 3, 2, 1, 2]
 * ca.pad(m, [[1, 0], [0, 2]], { constantValues: [[-1, -1], [7, 9]] });  // a row of -1 above, two columns of 9 on the right
 * ```
 *
 * @throws ArgumentError for widths that are not non-negative integers, an unknown mode, or `constantValues` with a
 * mode other than "constant".
 * @throws ShapeMismatchError for per-axis widths or constants that are not one pair per axis, or a non-zero width on
 * an axis of extent 0 in a mode other than "constant" (there is nothing to copy from; NumPy's ValueError).
 * @throws DTypeError for a constant that `a`'s dtype cannot hold (NaN or out of range for an integer dtype).
 * @throws ArrayLayoutError when the result needs more than 32 axes after merging unpadded ones.
 */
export function pad(a: DeviceArray, padWidth: PadWidth, options?: PadOptions): DeviceArray {
  const what = "pad";
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(a)}`);
  if (a.isClosed) throw new ArrayLayoutError(`${what}: the array (${a.dtype.name} [${a.shape.join(", ")}]) was closed`);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { mode?, constantValues?, stream? }, got ${describeValue(options)}`);
  const mode = options?.mode ?? "constant";
  if (!MODES.includes(mode)) {
    throw new ArgumentError(`${what}: mode is ${MODES.map((m) => `"${m}"`).join(", ")}, got ${describeValue(mode)} (NumPy's "linear_ramp", "maximum", "mean", "median", "minimum" and "empty" are not supported)`);
  }
  if (mode !== "constant" && options?.constantValues !== undefined) throw new ArgumentError(`${what}: constantValues is for mode "constant", not "${mode}"; leave it out`);
  const widths = padWidths(padWidth, a.ndim, what);
  const values = mode === "constant" ? padConstants(options?.constantValues ?? 0, a.ndim, a.dtype, what) : undefined;
  if (mode !== "constant") {
    a.shape.forEach((n, d) => {
      if (n === 0 && (widths[d]![0] > 0 || widths[d]![1] > 0)) {
        throw new ShapeMismatchError(`${what}: axis ${d} has extent 0, which mode "${mode}" cannot extend (it has no element to copy); give it zero widths, or use mode "constant"`);
      }
    });
  }
  const plan = padPlan(a.shape, a.strides, widths);
  const rank = plan.axes.length;
  if (rank > PAD_MAX_DIMS) throw new ArrayLayoutError(`${what}: the result needs ${rank} axes after merging the unpadded ones, more than ${PAD_MAX_DIMS}; reshape the array to fewer axes first`);
  const stream = operationStream(what, options, [a]);
  checkOneDevice(what, [["the array", a]], stream);
  if (widths.every(([b, f]) => b === 0 && f === 0)) return a.copy({ stream });
  const out = DeviceArray.empty(plan.shape, a.dtype, { stream });
  if (out.size === 0) return out;
  // The source as the span of memory its elements lie in (contiguous: the kernel indexes it by the strides).
  const source = viewWith(a, [plan.span], [1], a.byteOffset + plan.low * a.itemsize);
  const args: ArrayScalar[] = [plan.base];
  for (const x of plan.axes) args.push(x.extent, x.stride, x.before, x.out);
  if (values !== undefined) for (const x of plan.axes) args.push(...values[x.axis]!);
  try {
    padKernel(mode, a.dtype, rank, out.size <= 0xffff_ffff).launch(stream, source, ...args, out);
  } catch (e) {
    out.close(stream);
    throw e;
  }
  return out;
}
