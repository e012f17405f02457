/**
 * Counting: `bincount` (how often each non-negative integer occurs, as NumPy's) and `histogram` (counts over bins of
 * equal width or over given edges, as NumPy's), as functions of `cuda-ts/array`.
 *
 * ```ts
 * const counts = bincount(labels);                                  // int64, length max(labels) + 1
 * const sums = bincount(labels, { weights: w, minlength: 10 });     // float64
 * const { hist, binEdges } = histogram(x, { bins: 50 });            // int64 counts, 51 edges
 * const { hist: pdf } = histogram(x, { bins: edges, density: true }); // float64
 * ```
 *
 * Both size their result from the data where NumPy does: `bincount` reads the smallest and largest value back to the
 * host (one small reduction kernel and one synchronous read on the stream, as CuPy reads its maximum), and so does
 * `histogram` when it finds the range itself (integer bins without `range`), or checks that edges given as a
 * DeviceArray increase. The counts come from one `atomicAdd` kernel: each block counts into a histogram of its own in
 * shared memory when the bins are few (up to 4,096), then adds it to the result; more bins are counted straight into
 * the result. Weights are summed in float64 with `atomicAdd` on doubles (sm_60 and later), in an order of the GPU's:
 * the last bits of a weighted sum may differ from NumPy's sequential one.
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { decodeBFloat16, decodeHalf, dtypes, encodeBFloat16, encodeHalf, type DType } from "../dtype.ts";
import { DTypeError, ShapeMismatchError } from "../errors.ts";
import { coalesceAxes } from "../broadcast.ts";
import { sameShape } from "../layout.ts";
import { promoteTypes } from "../promotion.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import type { Device } from "../../device.ts";
import type { Kernel } from "../../launch/kernel.ts";
import { launch } from "../../launch/launch.ts";
import { f64, i32, i64, u64 } from "../../launch/scalars.ts";
import type { Stream } from "../../stream.ts";
import { compileKernels, configFor } from "../../kernels/compile.ts";
import { headersFor } from "../../kernels/params.ts";
import { checkArrayArgument, checkOneDevice } from "./elementwise.ts";
import {
  COUNT_BLOCK,
  COUNT_RECORD_WORDS,
  COUNT_SHARED_BINS,
  countingKernelNames,
  countingName,
  countingSource,
  rangeDomain,
  type CountingSpec,
  type RangeDomain,
} from "./counting-source.ts";

/** Options of `bincount`. */
export interface BincountOptions extends ArrayOperationOptions {
  /** One weight per element of `x` (1-d, real): the result sums the weights of each value instead of counting it. */
  readonly weights?: DeviceArray;
  /** The least length of the result (a non-negative integer; default 0). */
  readonly minlength?: number;
}

/** Options of `histogram`. */
export interface HistogramOptions extends ArrayOperationOptions {
  /**
   * A number of equal-width bins (a positive integer; default 10) over `range`, or the edges of the bins: a 1-d
   * DeviceArray of a real dtype or a list of numbers, increasing (equal neighbours allowed), the last edge included.
   */
  readonly bins?: number | DeviceArray | readonly number[];
  /** `[lo, hi]`, finite, `lo <= hi`: the span of equal-width bins (default: the data's smallest and largest value). */
  readonly range?: readonly [number, number];
  /** One weight per element of `a` (its shape, real): each value adds its weight to its bin instead of 1. */
  readonly weights?: DeviceArray;
  /** Whether to give the density (each bin's count over the total count and the bin's width) instead of counts. */
  readonly density?: boolean;
}

/** What `histogram` returns: the counts and the edges of their bins (one more edge than counts). */
export interface HistogramResult {
  /** The count (int64), weight sum or density (float64) of each bin. */
  readonly hist: DeviceArray;
  /**
   * The bins' edges, `hist.size + 1` of them: float64 for integer data, the data's dtype for floating data, the given
   * edges' dtype for a DeviceArray of edges.
   */
  readonly binEdges: DeviceArray;
}

// ---- kernels ----

interface CountingKernels {
  readonly range: Kernel;
  readonly count: Kernel;
  readonly order: Kernel | undefined;
  readonly density: Kernel | undefined;
  /** The device's multiprocessors (the grids' caps are multiples of it). */
  readonly multiprocessors: number;
}

const programs = new Map<string, CountingKernels>();

function kernelsFor(device: Device, spec: CountingSpec): CountingKernels {
  const name = countingName(spec);
  const key = `${device.id}|${name}`;
  let k = programs.get(key);
  if (k === undefined || k.range.isClosed) {
    const used = [spec.input, ...(spec.weights !== undefined ? [spec.weights] : []), ...(spec.edges !== undefined ? [spec.edges] : [])];
    const kernels = compileKernels(countingSource(spec), countingKernelNames(spec), device, headersFor(used), {}, `${name}.cu`);
    const histogram = spec.edges !== undefined;
    k = {
      range: kernels[0]!,
      count: histogram ? kernels[2]! : kernels[1]!,
      order: histogram ? kernels[1] : undefined,
      density: histogram ? kernels[3] : undefined,
      multiprocessors: device.properties.multiprocessorCount,
    };
    programs.set(key, k);
  }
  return k;
}

/** Blocks of COUNT_BLOCK threads for `n` elements, `perThread` each at least, at most `cap`. */
function gridFor(n: number, perThread: number, cap: number): number {
  return Math.max(1, Math.min(Math.ceil(n / (COUNT_BLOCK * perThread)), cap));
}

/** One strided run over an array's elements in row-major order: the address of the first and the element stride. */
interface Run {
  readonly address: bigint;
  readonly stride: number;
}

/** `a`'s elements, row-major, as one strided run; a layout no single stride walks is copied (the copy into `temps`). */
function flatRun(a: DeviceArray, stream: Stream, temps: DeviceArray[]): Run {
  if (a.isContiguous) return { address: a.address, stride: 1 };
  const m = coalesceAxes(a.shape, [a.strides]);
  if (m.shape.length <= 1) return { address: a.address, stride: m.strides[0]![0] ?? 1 };
  const c = a.copy({ stream });
  temps.push(c);
  return { address: c.address, stride: 1 };
}

const MASK64 = (1n << 64n) - 1n;
const SIGN64 = 1n << 63n;
const keyView = new DataView(new ArrayBuffer(8));

/** The value of a `_range` key in `domain` (bigint for integers). */
function decodeKey(key: bigint, domain: RangeDomain): number | bigint {
  if (domain === "signed") return BigInt.asIntN(64, key ^ SIGN64);
  if (domain === "unsigned") return key;
  keyView.setBigUint64(0, (key & SIGN64) !== 0n ? key ^ SIGN64 : ~key & MASK64);
  return keyView.getFloat64(0);
}

/** What `_range` (and `_order`) found, read back to the host. */
interface RangeRecord {
  readonly min: number | bigint;
  readonly max: number | bigint;
  readonly nan: boolean;
  readonly unordered: boolean;
}

/** Reads the record (one synchronous read on `stream`: it waits for the queued work). */
function readRecord(record: DeviceArray, domain: RangeDomain, stream: Stream): RangeRecord {
  const words = record.toTypedArraySync({ stream }) as BigUint64Array;
  return { min: decodeKey(~words[0]! & MASK64, domain), max: decodeKey(words[1]!, domain), nan: words[2] !== 0n, unordered: words[3] !== 0n };
}

/** Queues `_range` over the `n` elements of `run` into `record` (zeroed). */
function queueRange(stream: Stream, k: CountingKernels, run: Run, n: number, record: DeviceArray): void {
  launch(stream, configFor(gridFor(n, 4, k.multiprocessors * 8), COUNT_BLOCK), k.range, [run.address, i64(run.stride), u64(n), record.address]);
}

/**
 * The launch of a counting kernel over `n` elements into `bins` bins: its configuration, and whether blocks count in
 * shared memory.
 */
function countLaunch(k: CountingKernels, n: number, bins: number, weighted: boolean): { config: ReturnType<typeof configFor>; local: boolean } {
  const fits = bins <= COUNT_SHARED_BINS;
  const grid = gridFor(n, 4, k.multiprocessors * (fits ? 4 : 16));
  // Shared counters are 32-bit: a block takes fewer than 2^31 elements.
  const local = fits && n / grid < 2 ** 31;
  return { config: configFor(grid, COUNT_BLOCK, local ? bins * (weighted ? 8 : 4) : 0), local };
}

// ---- checks ----

function checkOptions(options: unknown, what: string, fields: string): void {
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes its options as an object ({ ${fields} }), not ${describeValue(options)}`);
}

/** Weights: a DeviceArray of a real dtype (bool, integers, floats), of `shape`. */
function checkWeights(w: unknown, shape: readonly number[], what: string, data: string): DeviceArray | undefined {
  if (w === undefined) return undefined;
  const weights = checkArrayArgument(w, what, "weights");
  if (weights.dtype.kind === "c") throw new DTypeError(`${what}: weights are real (bool, integers or floats), not ${weights.dtype.name}; count the real and imaginary parts separately`);
  if (!sameShape(weights.shape, shape)) {
    throw new ShapeMismatchError(`${what}: weights have shape [${weights.shape.join(", ")}] but ${data} has shape [${shape.join(", ")}]; give one weight per element`);
  }
  return weights;
}

// ---- bincount ----

/**
 * How often each value of `x` occurs, as NumPy's `bincount`: an int64 array whose element `i` counts the elements of
 * `x` equal to `i`, of length `max(x) + 1` (or `minlength`, when that is larger). With `weights` (one per element of
 * `x`, real) element `i` is the sum of the weights of the elements equal to `i`, and the result is float64 (NumPy
 * converts the weights to float64 and sums them so; the sums here are made in an order of the GPU's).
 *
 * `x` is 1-d, of an integer dtype or bool: NumPy converts it to int64, so uint64 is taken too, and a uint64 value of
 * 2^63 or more reads as negative (as in NumPy 2.3; NumPy before 2.2.4 refused uint64). Floats are refused, as NumPy
 * refuses to convert them. A negative value is an ArgumentError (NumPy's ValueError): the smallest and largest
 * value are read back to the host to check it and to size the result, so the call waits for the stream. An empty `x`
 * gives `minlength` zeros, int64 even with weights (as NumPy's), without that wait.
 *
 * ```ts
 * bincount(ca.asarray([0, 1, 1, 3, 2, 1, 7], { stream, dtype: "int32" }));   // [1, 3, 1, 1, 0, 0, 0, 1]
 * bincount(x, { weights: w });                                               // float64 sums of w per value
 * ```
 *
 * @throws ShapeMismatchError when `x` is not 1-d, or `weights` is not of `x`'s shape.
 * @throws DTypeError when `x` is not of an integer dtype or bool, or `weights` is complex.
 * @throws ArgumentError when `minlength` is not a non-negative integer, or `x` holds a negative value.
 * @throws DeviceMismatchError when the arrays are on different devices.
 */
export function bincount(x: DeviceArray, options?: BincountOptions): DeviceArray {
  const what = "bincount";
  checkArrayArgument(x, what, "x");
  checkOptions(options, what, "weights?, minlength?, stream?");
  if (x.ndim !== 1) throw new ShapeMismatchError(`${what}: x is a 1-d array of non-negative integers, got shape [${x.shape.join(", ")}]`);
  if (x.dtype.kind !== "i" && x.dtype.kind !== "u" && x.dtype.kind !== "b") {
    throw new DTypeError(`${what}: x holds non-negative integers (an integer dtype or bool), not ${x.dtype.name}; convert it with astype first (NumPy refuses floats too)`);
  }
  const weights = checkWeights(options?.weights, x.shape, what, "x");
  const minlength = options?.minlength ?? 0;
  if (typeof minlength !== "number" || !Number.isSafeInteger(minlength) || minlength < 0) throw new ArgumentError(`${what}: minlength is a non-negative integer, got ${describeValue(minlength)}`);
  const arrays = [["x", x], ["weights", weights]] as const;
  checkOneDevice(what, arrays);
  const stream = operationStream(what, options, [x, weights]);
  checkOneDevice(what, arrays, stream);
  // NumPy's answer for an empty x: int64 zeros, weights or not.
  if (x.size === 0) return DeviceArray.zeros([minlength], dtypes.int64, { stream });
  const spec: CountingSpec = weights === undefined ? { input: x.dtype } : { input: x.dtype, weights: weights.dtype };
  const k = kernelsFor(stream.device, spec);
  const n = x.size;
  const temps: DeviceArray[] = [];
  try {
    const xs = flatRun(x, stream, temps);
    const ws = weights === undefined ? undefined : flatRun(weights, stream, temps);
    const record = DeviceArray.zeros([COUNT_RECORD_WORDS], dtypes.uint64, { stream });
    temps.push(record);
    queueRange(stream, k, xs, n, record);
    const { min, max } = readRecord(record, "signed", stream);
    if ((min as bigint) < 0n) {
      const wrapped = x.dtype.name === "uint64" ? " (a uint64 value of 2^63 or more reads as negative: NumPy converts x to int64)" : "";
      throw new ArgumentError(`${what}: x holds a negative value (${min})${wrapped}; bincount counts non-negative integers`);
    }
    const top = (max as bigint) + 1n;
    if (top > BigInt(Number.MAX_SAFE_INTEGER)) throw new ArgumentError(`${what}: x holds ${max}, too large a value to count up to`);
    const length = Math.max(Number(top), minlength);
    const out = DeviceArray.zeros([length], weights === undefined ? dtypes.int64 : dtypes.float64, { stream });
    const { config, local } = countLaunch(k, n, length, weights !== undefined);
    const args = ws === undefined ? [xs.address, i64(xs.stride)] : [xs.address, i64(xs.stride), ws.address, i64(ws.stride)];
    launch(stream, config, k.count, [...args, u64(n), out.address, i64(length), i32(local ? 1 : 0)]);
    return out;
  } finally {
    for (const t of temps) t.close(stream);
  }
}

// ---- histogram ----

/**
 * A rounding of a double onto the values of float dtype `d` (float64: none). Half types go through float32 first, as
 * NumPy's float16 arithmetic computes in float32 and rounds the result.
 */
function roundingTo(d: DType): (x: number) => number {
  switch (d.name) {
    case "float32":
      return Math.fround;
    case "float16":
      return (x) => decodeHalf(encodeHalf(Math.fround(x)));
    case "bfloat16":
      return (x) => decodeBFloat16(encodeBFloat16(Math.fround(x)));
    default:
      return (x) => x;
  }
}

/**
 * The edges of `bins` equal bins from `lo` to `hi` as NumPy's `linspace(lo, hi, bins + 1)` computes them in the
 * arithmetic of `calc` (each operation rounded to it): `i * step + lo` with `step = (hi - lo) / bins` (`i / bins *
 * (hi - lo)` where the step rounds to 0), the last edge `hi` (exported for tests).
 */
export function uniformEdges(lo: number, hi: number, bins: number, calc: DType): number[] {
  const r = roundingTo(calc);
  const delta = r(hi - lo);
  const step = r(delta / bins);
  const out = new Array<number>(bins + 1);
  for (let i = 0; i < bins; i++) {
    const k = r(i); // NumPy's arange in calc's dtype
    out[i] = r((step === 0 ? r(r(k / bins) * delta) : r(k * step)) + lo);
  }
  out[bins] = hi;
  return out;
}

/**
 * The outer edges and the edges' dtype of equal-width bins, as NumPy's `histogram` picks them (exported for tests):
 * `range` where given, (0, 1) for empty data, else the data's `min` and `max`, widened by 0.5 each way where they are
 * equal; the edges' dtype is the data's for floating data, float64 otherwise; the arithmetic the edges are computed in
 * (`calc`) is the data's dtype where the outer edges come from floating data (they are values of it), float64 where
 * they are numbers.
 */
export function uniformBins(data: DType, range: readonly [number, number] | undefined, found: { min: number; max: number } | undefined): { lo: number; hi: number; edges: DType; calc: DType } {
  const edges = data.kind === "f" ? data : dtypes.float64;
  const calc = range === undefined && found !== undefined && data.kind === "f" ? data : dtypes.float64;
  const r = roundingTo(calc);
  let [lo, hi] = range ?? (found === undefined ? [0, 1] : [found.min, found.max]);
  if (lo === hi) [lo, hi] = [r(lo - 0.5), r(hi + 0.5)];
  return { lo, hi, edges, calc };
}

/** Host values of float dtype `d` on the device (float16 and bfloat16 as their bits). */
function edgesArray(values: readonly number[], d: DType, stream: Stream): DeviceArray {
  switch (d.name) {
    case "float32":
      return DeviceArray.from(Float32Array.from(values), { stream });
    case "float16":
      return DeviceArray.from(Uint16Array.from(values, encodeHalf), { stream, dtype: "float16" });
    case "bfloat16":
      return DeviceArray.from(Uint16Array.from(values, encodeBFloat16), { stream, dtype: "bfloat16" });
    default:
      return DeviceArray.from(Float64Array.from(values), { stream });
  }
}

/** The checked `bins` option: a count, a DeviceArray of edges, or host edges. */
type Bins = { readonly kind: "count"; readonly count: number } | { readonly kind: "device"; readonly edges: DeviceArray } | { readonly kind: "host"; readonly edges: readonly number[] };

function checkBins(bins: unknown, what: string): Bins {
  if (bins === undefined) return { kind: "count", count: 10 };
  if (typeof bins === "number") {
    if (!Number.isSafeInteger(bins) || bins < 1) throw new ArgumentError(`${what}: bins is a positive integer (a count of equal bins) or the edges, got ${describeValue(bins)}`);
    return { kind: "count", count: bins };
  }
  if (bins instanceof DeviceArray) {
    checkArrayArgument(bins, what, "bins");
    if (bins.ndim !== 1 || bins.size === 0) throw new ShapeMismatchError(`${what}: bins as edges is a 1-d array of at least one edge, got shape [${bins.shape.join(", ")}]`);
    if (bins.dtype.kind !== "i" && bins.dtype.kind !== "u" && bins.dtype.kind !== "f") throw new DTypeError(`${what}: bins as edges are integers or floats, not ${bins.dtype.name}`);
    return { kind: "device", edges: bins };
  }
  if (Array.isArray(bins)) {
    const edges = bins as readonly unknown[];
    if (edges.length === 0) throw new ShapeMismatchError(`${what}: bins as edges holds at least one edge`);
    edges.forEach((e, j) => {
      if (typeof e !== "number") throw new TypeError(`${what}: bins as edges are numbers, got ${describeValue(e)} at position ${j}`);
    });
    const numbers = edges as readonly number[];
    for (let j = 0; j + 1 < numbers.length; j++) {
      if (numbers[j]! > numbers[j + 1]!) throw new ArgumentError(`${what}: bins must increase monotonically: edge ${j} (${numbers[j]}) is greater than edge ${j + 1} (${numbers[j + 1]})`);
    }
    return { kind: "host", edges: numbers };
  }
  throw new TypeError(`${what}: bins is a positive integer, a DeviceArray of edges or a list of edges, not ${describeValue(bins)}`);
}

function checkRange(range: unknown, what: string): readonly [number, number] | undefined {
  if (range === undefined) return undefined;
  if (!Array.isArray(range) || range.length !== 2 || typeof range[0] !== "number" || typeof range[1] !== "number") {
    throw new TypeError(`${what}: range is [lo, hi], two numbers, not ${describeValue(range)}`);
  }
  const [lo, hi] = range as [number, number];
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) throw new ArgumentError(`${what}: the supplied range of [${lo}, ${hi}] is not finite`);
  if (lo > hi) throw new ArgumentError(`${what}: range is [lo, hi] with lo <= hi, got [${lo}, ${hi}]`);
  return [lo, hi];
}

/**
 * The histogram of `a` (flattened), as NumPy's `histogram`: `{ hist, binEdges }`, `hist[i]` counting the elements
 * with `binEdges[i] <= v < binEdges[i + 1]`, the last bin including its right edge; values outside the edges (and
 * NaN) are not counted.
 *
 * - `bins` a count (default 10): equal bins over `range`, or over the data's smallest and largest value (read back to
 *   the host: the call waits for the stream; NaN or an infinity there is an ArgumentError, as NumPy's ValueError
 *   "autodetected range ... is not finite"; equal smallest and largest widen to [v - 0.5, v + 0.5]; empty data takes
 *   [0, 1]). The edges are NumPy's `linspace`: float64 for integer (and bool) data, the data's dtype for floating
 *   data, computed in that dtype's arithmetic where the range comes from the data, in float64 where it is given. A
 *   value's bin is computed from its offset in the range and corrected against the edges, so it is always the bin the
 *   edges give.
 * - `bins` edges (a 1-d DeviceArray of a real dtype, or numbers): a binary search per value, values and edges compared
 *   in the dtype they promote to. Edges must increase (equal neighbours allowed): numbers are checked on the host, a
 *   DeviceArray on the device, read back (the call waits for the stream). `range` is then not used (as in NumPy).
 *   `binEdges` is a copy of them (numbers: float64).
 *
 * `hist` is int64; float64 with `weights` (NumPy gives the weights' dtype; here they are summed in float64, in an
 * order of the GPU's) or with `density` (`hist[i] / (sum(hist) * width[i])`, width in the edges' dtype, as NumPy's
 * `n / db / n.sum()`: NaN everywhere when nothing was counted). Bool data is read as 0 and 1 (NumPy converts it to
 * uint8); complex data and weights are refused.
 *
 * ```ts
 * const { hist, binEdges } = histogram(x, { bins: 4, range: [0, 1] });   // edges [0, 0.25, 0.5, 0.75, 1]
 * const { hist: pdf } = histogram(x, { bins: [0, 1, 2, 4], density: true });
 * ```
 *
 * @throws ArgumentError for bins that are not a positive integer or edges that do not increase, a range that is not
 * finite or not ordered, or data whose own range is not finite (NaN, infinities) when no range is given.
 * @throws ShapeMismatchError when `weights` is not of `a`'s shape, or edges are not 1-d with at least one edge.
 * @throws DTypeError for complex data, weights or edges, or bool edges.
 * @throws DeviceMismatchError when the arrays are on different devices.
 */
export function histogram(a: DeviceArray, options?: HistogramOptions): HistogramResult {
  const what = "histogram";
  checkArrayArgument(a, what, "a");
  checkOptions(options, what, "bins?, range?, weights?, density?, stream?");
  if (a.dtype.kind === "c") throw new DTypeError(`${what}: complex data has no order to bin by (got ${a.dtype.name}); take its real part or magnitude first`);
  const weights = checkWeights(options?.weights, a.shape, what, "a");
  const bins = checkBins(options?.bins, what);
  const range = checkRange(options?.range, what);
  const density = options?.density ?? false;
  if (typeof density !== "boolean") throw new TypeError(`${what}: density is a boolean, not ${describeValue(density)}`);
  const given = bins.kind === "device" ? bins.edges : undefined;
  const arrays = [["a", a], ["weights", weights], ["bins", given]] as const;
  checkOneDevice(what, arrays);
  const stream = operationStream(what, options, [a, weights, given]);
  checkOneDevice(what, arrays, stream);
  // NumPy reads bool data as uint8; the bytes are the same.
  const data = a.dtype.kind === "b" ? dtypes.uint8 : a.dtype;
  const n = a.size;
  const temps: DeviceArray[] = [];
  let edges: DeviceArray | undefined;
  let hist: DeviceArray | undefined;
  try {
    const xs = n > 0 ? flatRun(a, stream, temps) : { address: 0n, stride: 1 };
    const ws = weights !== undefined && n > 0 ? flatRun(weights, stream, temps) : undefined;
    let uniform: { lo: number; hi: number } | undefined;
    let spec: CountingSpec;
    const withWeights = (s: CountingSpec): CountingSpec => (weights === undefined ? s : { ...s, weights: weights.dtype });
    if (bins.kind === "count") {
      let found: { min: number; max: number } | undefined;
      const edgeType = data.kind === "f" ? data : dtypes.float64;
      spec = withWeights({ input: data, edges: edgeType, compare: promoteTypes(data, edgeType) });
      if (range === undefined && n > 0) {
        const k = kernelsFor(stream.device, spec);
        const record = DeviceArray.zeros([COUNT_RECORD_WORDS], dtypes.uint64, { stream });
        temps.push(record);
        queueRange(stream, k, xs, n, record);
        const r = readRecord(record, rangeDomain(spec), stream);
        const [min, max] = r.nan ? [NaN, NaN] : [Number(r.min), Number(r.max)];
        if (!Number.isFinite(min) || !Number.isFinite(max)) {
          throw new ArgumentError(`${what}: the autodetected range of [${min}, ${max}] is not finite${r.nan ? " (the data holds NaN)" : ""}; pass { range: [lo, hi] } to count the values inside it`);
        }
        found = { min, max };
      }
      const b = uniformBins(data, range, found);
      const values = uniformEdges(b.lo, b.hi, bins.count, b.calc).map(roundingTo(b.edges));
      if (values.some((v, j) => j > 0 && !(values[j - 1]! < v))) {
        throw new ArgumentError(`${what}: too many bins for the data's range: ${bins.count} bins of ${b.edges.name} edges from ${b.lo} to ${b.hi} are not all of finite, non-zero width; ask for fewer bins`);
      }
      edges = edgesArray(values, b.edges, stream);
      uniform = { lo: values[0]!, hi: values[bins.count]! };
    } else if (bins.kind === "host") {
      edges = DeviceArray.from(Float64Array.from(bins.edges), { stream });
      spec = withWeights({ input: data, edges: dtypes.float64, compare: promoteTypes(data, dtypes.float64) });
    } else {
      const e = bins.edges;
      spec = withWeights({ input: data, edges: e.dtype, compare: promoteTypes(data, e.dtype) });
      edges = e.copy({ stream });
      if (e.size > 1) {
        const k = kernelsFor(stream.device, spec);
        const record = DeviceArray.zeros([COUNT_RECORD_WORDS], dtypes.uint64, { stream });
        temps.push(record);
        launch(stream, configFor(gridFor(e.size, 1, k.multiprocessors * 8), COUNT_BLOCK), k.order!, [edges.address, u64(e.size), record.address]);
        if (readRecord(record, "signed", stream).unordered) throw new ArgumentError(`${what}: bins must increase monotonically (an edge is greater than the next one)`);
      }
    }
    const count = edges.size - 1;
    const weighted = weights !== undefined;
    hist = DeviceArray.zeros([count], weighted || density ? dtypes.float64 : dtypes.int64, { stream });
    if (count > 0) {
      const k = kernelsFor(stream.device, spec);
      // Unweighted densities count into int64 first.
      const counts = density && !weighted ? DeviceArray.zeros([count], dtypes.int64, { stream }) : hist;
      if (counts !== hist) temps.push(counts);
      if (n > 0) {
        const { config, local } = countLaunch(k, n, count, weighted);
        const args = ws === undefined ? [xs.address, i64(xs.stride)] : [xs.address, i64(xs.stride), ws.address, i64(ws.stride)];
        const lo = uniform?.lo ?? 0;
        const denom = uniform === undefined ? 1 : uniform.hi - uniform.lo;
        launch(stream, config, k.count, [...args, u64(n), edges.address, i32(uniform === undefined ? 0 : 1), f64(lo), f64(denom), counts.address, i64(count), i32(local ? 1 : 0)]);
      }
      if (density) launch(stream, configFor(1, COUNT_BLOCK), k.density!, [counts.address, edges.address, i64(count), hist.address]);
    }
    const result = { hist, binEdges: edges };
    hist = undefined;
    edges = undefined;
    return result;
  } finally {
    for (const t of temps) t.close(stream);
    hist?.close(stream);
    edges?.close(stream);
  }
}
