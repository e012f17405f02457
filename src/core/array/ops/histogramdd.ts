/**
 * Histograms of several variables, as NumPy's `histogramdd` and `histogram2d`, and `histogramBinEdges` (the edges
 * `histogram` would use). Made of the array operations: per dimension the edges (NumPy's `linspace` over the range,
 * or the edges given), `searchsorted` of the samples (side "right", values on the last edge moved into the last bin),
 * then `ravelMultiIndex` over the bins with an outlier bin at each end, `bincount`, and the inner bins kept.
 *
 * ```ts
 * const { hist, edges } = histogramdd(points, { bins: [8, 8, 4] });   // points [N, 3]: hist float64 [8, 8, 4]
 * const { hist: h, xedges, yedges } = histogram2d(x, y, { bins: 16, range: [[0, 1], [0, 1]] });
 * const e = histogramBinEdges(x, { bins: 10 });                        // histogram(x).binEdges, without keeping the counts
 * ```
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { operationType } from "../promotion.ts";
import { DTypeError, ShapeMismatchError } from "../errors.ts";
import { max, min, sum } from "../reductions.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ArgumentError } from "../../../errors/base.ts";
import type { Stream } from "../../stream.ts";
import { div, eq, sub } from "./arithmetic.ts";
import { bincount, histogram, uniformBins, uniformEdges, type HistogramOptions } from "./counting.ts";
import { asarray } from "./creation.ts";
import { diff } from "./differences.ts";
import { checkArrayArgument, checkOneDevice } from "./elementwise.ts";
import { decodeElement } from "./host.ts";
import { ravelMultiIndex } from "./index-helpers.ts";
import { searchsorted } from "./search.ts";

/** The bins of one dimension: a count of equal bins, or the edges (a 1-d DeviceArray, or numbers). */
export type HistogramddBins = number | DeviceArray | readonly number[];

/** Options of {@link histogramdd}. */
export interface HistogramddOptions extends ArrayOperationOptions {
  /**
   * The bins: one count for every dimension (default 10), or one entry per dimension, each a count of equal bins or
   * the edges of that dimension's bins (increasing, the last edge included).
   */
  readonly bins?: number | readonly HistogramddBins[];
  /** Per dimension `[lo, hi]` (finite, `lo <= hi`) for counted bins, or null for the data's own range. */
  readonly range?: readonly (readonly [number, number] | null | undefined)[];
  /** One weight per sample (`[N]`, real): each sample adds its weight to its bin instead of 1. */
  readonly weights?: DeviceArray;
  /** Whether to give the density (each bin's count over the total and the bin's volume) instead of counts. */
  readonly density?: boolean;
}

/** What {@link histogramdd} returns: the histogram (float64, one axis per dimension) and each dimension's edges. */
export interface HistogramddResult {
  readonly hist: DeviceArray;
  readonly edges: DeviceArray[];
}

/** Options of {@link histogram2d}: as {@link HistogramddOptions}, the bins also one list of edges for both. */
export interface Histogram2dOptions extends ArrayOperationOptions {
  /**
   * A count for both dimensions (default 10), `[bx, by]` (each a count or edges), or one list of edges (a DeviceArray
   * or numbers, of a length other than 1 and 2) for both, as NumPy's `histogram2d`.
   */
  readonly bins?: number | DeviceArray | readonly HistogramddBins[];
  /** `[[xlo, xhi], [ylo, yhi]]`, either null for that variable's own range. */
  readonly range?: readonly [readonly [number, number] | null, readonly [number, number] | null];
  readonly weights?: DeviceArray;
  readonly density?: boolean;
}

/** What {@link histogram2d} returns: the histogram `[nx, ny]` (x along the first axis) and both variables' edges. */
export interface Histogram2dResult {
  readonly hist: DeviceArray;
  readonly xedges: DeviceArray;
  readonly yedges: DeviceArray;
}

/** One dimension's checked bins: a count, or edges as host numbers (DeviceArray edges are read back to check them). */
type DimBins = { readonly count: number } | { readonly edges: DeviceArray | readonly number[] };

function checkDimBins(b: unknown, i: number, what: string): DimBins {
  if (typeof b === "number") {
    if (!Number.isSafeInteger(b) || b < 1) throw new ArgumentError(`${what}: bins[${i}] must be a positive integer when a count, got ${describeValue(b)}`);
    return { count: b };
  }
  if (b instanceof DeviceArray) {
    checkArrayArgument(b, what, `bins[${i}]`);
    if (b.ndim !== 1 || b.size === 0) throw new ShapeMismatchError(`${what}: bins[${i}] as edges is a 1-d array of at least one edge, got shape [${b.shape.join(", ")}]`);
    if (b.dtype.kind === "c" || b.dtype.kind === "b") throw new DTypeError(`${what}: bins[${i}] as edges are integers or floats, not ${b.dtype.name}`);
    return { edges: b };
  }
  if (Array.isArray(b)) {
    if (b.length === 0) throw new ShapeMismatchError(`${what}: bins[${i}] as edges holds at least one edge`);
    b.forEach((e: unknown, j) => {
      if (typeof e !== "number") throw new TypeError(`${what}: bins[${i}] as edges are numbers, got ${describeValue(e)} at position ${j}`);
    });
    return { edges: b as readonly number[] };
  }
  throw new TypeError(`${what}: bins[${i}] is a positive integer or the edges (a DeviceArray or numbers), not ${describeValue(b)}`);
}

function checkRangeEntry(r: unknown, i: number, what: string): readonly [number, number] | undefined {
  if (r === null || r === undefined) return undefined;
  if (!Array.isArray(r) || r.length !== 2 || typeof r[0] !== "number" || typeof r[1] !== "number") throw new TypeError(`${what}: range[${i}] is [lo, hi] or null, not ${describeValue(r)}`);
  const [lo, hi] = r as [number, number];
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) throw new ArgumentError(`${what}: the supplied range [${lo}, ${hi}] of dimension ${i} is not finite`);
  if (lo > hi) throw new ArgumentError(`${what}: range[${i}] is [lo, hi] with lo <= hi, got [${lo}, ${hi}]`);
  return [lo, hi];
}

/** Reads a one-element array to a number, on `stream` (waits for it). */
function readNumber(a: DeviceArray, stream: Stream): number {
  return Number(decodeElement(a.dtype, a.toTypedArraySync({ stream }), 0));
}

/**
 * The edges of dimension `i` as a new array, NumPy's: counted bins are `linspace(lo, hi, count + 1)` in the dtype
 * `linspace` takes (the data's float dtype where the range is the data's own, float64 where it is given or the data
 * are integers), the range widened by 0.5 each way where it is one value, [0, 1] for no data; edges given are checked
 * to increase and copied (numbers as `asarray` makes them: int64 when all are integers).
 */
function dimensionEdges(col: DeviceArray, common: DType, bins: DimBins, range: readonly [number, number] | undefined, i: number, what: string, stream: Stream): DeviceArray {
  if ("count" in bins) {
    let found: { min: number; max: number } | undefined;
    if (range === undefined && col.size > 0) {
      using lo = min(col, { stream });
      using hi = max(col, { stream });
      found = { min: readNumber(lo, stream), max: readNumber(hi, stream) };
      if (!Number.isFinite(found.min) || !Number.isFinite(found.max)) {
        throw new ArgumentError(`${what}: the autodetected range [${found.min}, ${found.max}] of dimension ${i} is not finite; pass range[${i}] = [lo, hi] to count the values inside it`);
      }
    }
    const b = uniformBins(common, range, found);
    // NumPy's linspace(lo, hi) computes in and gives the dtype of lo and hi: the data's float, or float64.
    const values = uniformEdges(b.lo, b.hi, bins.count, b.calc);
    return asarray(values, { dtype: b.calc, stream });
  }
  const given = bins.edges;
  let host: readonly number[];
  if (given instanceof DeviceArray) {
    const values = given.toTypedArraySync({ stream });
    host = Array.from({ length: given.size }, (_, j) => Number(decodeElement(given.dtype, values, j)));
  } else host = given;
  for (let j = 0; j + 1 < host.length; j++) {
    if (host[j]! > host[j + 1]!) throw new ArgumentError(`${what}: bins[${i}] must increase monotonically when edges: edge ${j} (${host[j]}) is greater than edge ${j + 1} (${host[j + 1]})`);
  }
  if (given instanceof DeviceArray) return given.copy({ stream });
  // np.asarray's dtype: int64 where every edge is an integer (one past int64 is a float in Python too), else float64.
  return asarray([...host], { stream, dtype: host.every((v) => Number.isSafeInteger(v)) ? "int64" : "float64" });
}

/**
 * The histogram of `N` samples of `D` variables, as NumPy's `histogramdd`: `sample` is `[N, D]` (a 1-d array is one
 * variable) or a list of `D` 1-d arrays of `N` values each; `hist` is float64 of shape `[bins_0, ..., bins_{D-1}]`,
 * `hist[i, j, ...]` counting the samples in bin `i` of the first variable, `j` of the second, ...: bin `k` holds
 * `edges[k] <= v < edges[k + 1]`, the last bin its right edge too; samples outside any dimension's edges (and NaN)
 * are not counted. `edges` holds each dimension's edges (`bins + 1` of them). With `weights` the bins sum them
 * (float64); with `density` each bin is divided by its volume and by the total, as NumPy's.
 *
 * Counted bins over a dimension's own range read its smallest and largest values back (the call waits for the
 * stream; NaN or an infinity there is an ArgumentError, as NumPy's ValueError); edges given as a DeviceArray are read
 * back to check that they increase. The counting itself is `searchsorted`, `ravelMultiIndex` and `bincount` (which
 * waits for the stream too).
 *
 * @throws ArgumentError for counts that are not positive integers, edges that do not increase, a range that is not
 * finite or not ordered, or data whose own range is not finite.
 * @throws ShapeMismatchError for a sample that is not `[N, D]` or `D` arrays of one length, `bins` or `range` not of
 * `D` entries, or `weights` not of `N` elements.
 * @throws DTypeError for complex samples or weights, or bool edges.
 */
export function histogramdd(sample: DeviceArray | readonly DeviceArray[], options?: HistogramddOptions): HistogramddResult {
  const what = "histogramdd";
  if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) {
    throw new TypeError(`${what} takes options { bins?, range?, weights?, density?, stream? }, got ${describeValue(options)}`);
  }
  let columns: DeviceArray[];
  if (sample instanceof DeviceArray) {
    checkArrayArgument(sample, what, "the sample");
    if (sample.ndim === 1) columns = [sample];
    else if (sample.ndim === 2) columns = Array.from({ length: sample.shape[1]! }, (_, i) => sample.slice(null, i));
    else throw new ShapeMismatchError(`${what}: the sample is [N, D] (or 1-d, one variable), got shape [${sample.shape.join(", ")}]`);
  } else if (Array.isArray(sample)) {
    columns = sample.map((c: unknown, i) => checkArrayArgument(c, what, `sample[${i}]`));
    columns.forEach((c, i) => {
      if (c.ndim !== 1 || c.size !== columns[0]!.size) throw new ShapeMismatchError(`${what}: the sample's variables are 1-d arrays of one length; sample[${i}] has shape [${c.shape.join(", ")}], sample[0] [${columns[0]!.shape.join(", ")}]`);
    });
  } else throw new TypeError(`${what}: the sample is a DeviceArray [N, D] or a list of 1-d DeviceArrays, not ${describeValue(sample)}`);
  const D = columns.length;
  if (D === 0) throw new ShapeMismatchError(`${what}: the sample has no variable (D is 0)`);
  const n = columns[0]!.size;
  for (const c of columns) if (c.dtype.kind === "c") throw new DTypeError(`${what}: complex samples have no order to bin by (got ${c.dtype.name}); take their real parts or magnitudes first`);
  const binsOption = options?.bins ?? 10;
  let perDim: unknown[];
  if (typeof binsOption === "number") perDim = Array.from({ length: D }, () => binsOption);
  else if (Array.isArray(binsOption)) {
    if (binsOption.length !== D) throw new ShapeMismatchError(`${what}: bins has ${binsOption.length} entries but the sample has ${D} dimension${D === 1 ? "" : "s"}; give one count or one list of edges per dimension`);
    perDim = binsOption;
  } else throw new TypeError(`${what}: bins is a count, or a list of one count or list of edges per dimension, not ${describeValue(binsOption)}`);
  const bins = perDim.map((b, i) => checkDimBins(b, i, what));
  const rangeOption = options?.range;
  if (rangeOption !== undefined && (!Array.isArray(rangeOption) || rangeOption.length !== D)) {
    throw new ShapeMismatchError(`${what}: range has one entry per dimension (${D}), got ${describeValue(rangeOption)}`);
  }
  // NumPy reads a dimension's range only where its bins are counted.
  const ranges = Array.from({ length: D }, (_, i) => ("count" in bins[i]! ? checkRangeEntry(rangeOption?.[i], i, what) : undefined));
  const weights = options?.weights;
  if (weights !== undefined) {
    checkArrayArgument(weights, what, "weights");
    if (weights.ndim !== 1 || weights.size !== n) throw new ShapeMismatchError(`${what}: weights have shape [${weights.shape.join(", ")}]; give one weight per sample ([${n}])`);
    if (weights.dtype.kind === "c") throw new DTypeError(`${what}: weights are real, not ${weights.dtype.name}`);
  }
  const density = options?.density ?? false;
  if (typeof density !== "boolean") throw new TypeError(`${what}: density is a boolean, not ${describeValue(density)}`);
  const givenEdges = bins.flatMap((b) => ("edges" in b && b.edges instanceof DeviceArray ? [b.edges] : []));
  const named = [...columns.map((c, i) => [`sample[${i}]`, c] as const), ["weights", weights] as const, ...givenEdges.map((e, i) => [`edges ${i}`, e] as const)];
  checkOneDevice(what, named);
  const stream = operationStream(what, options, [...columns, weights]);
  checkOneDevice(what, named, stream);
  // NumPy makes one array of the variables: their common dtype sets the counted edges' dtype. The comparisons below
  // promote each variable with the edges' dtype, which gives the same answers; bool compares as its bytes (0 and 1).
  const common = operationType(columns.map((c) => c.dtype), what);
  const data = columns.map((c) => (c.dtype.kind === "b" ? c.view(dtypes.uint8) : c));
  const edges: DeviceArray[] = [];
  const temps: DeviceArray[] = [];
  const keep = <A extends DeviceArray>(a: A): A => {
    temps.push(a);
    return a;
  };
  let hist: DeviceArray | undefined;
  try {
    for (let i = 0; i < D; i++) edges.push(dimensionEdges(data[i]!, common, bins[i]!, ranges[i], i, what, stream));
    const nbin = edges.map((e) => e.size + 1);
    // Each sample's bin along each dimension, 0 and nbin - 1 the outliers; a value on the last edge goes in the last bin.
    const index = data.map((col, i) => {
      const e = edges[i]!;
      const right = keep(searchsorted(e, col, { side: "right", stream }));
      const onLast = keep(eq(col, e.slice([e.size - 1, e.size]), { stream }));
      return keep(sub(right, onLast, { stream }));
    });
    const flat = keep(ravelMultiIndex(index, nbin, { stream }));
    const total = nbin.reduce((p, k) => p * k, 1);
    const counts = keep(bincount(flat, { minlength: total, stream, ...(weights !== undefined ? { weights } : {}) }));
    const asFloat = counts.dtype === dtypes.float64 ? counts : keep(counts.astype(dtypes.float64, { stream }));
    const inner = asFloat.reshape(nbin).slice(...nbin.map((k) => [1, k - 1] as const));
    hist = inner.copy({ stream });
    if (density) {
      const s = keep(sum(hist, { stream }));
      for (let i = 0; i < D; i++) {
        const widths = keep(diff(edges[i]!, { stream }));
        const shape = nbin.map((k, j) => (j === i ? k - 2 : 1));
        const next = div(hist, widths.reshape(shape), { stream });
        hist.close(stream);
        hist = next;
      }
      const next = div(hist, s, { stream });
      hist.close(stream);
      hist = next;
    }
    return { hist, edges };
  } catch (e) {
    hist?.close(stream);
    for (const x of edges) x.close(stream);
    throw e;
  } finally {
    for (const t of temps) t.close(stream);
  }
}

/**
 * The histogram of two variables, as NumPy's `histogram2d`: `histogramdd([x, y], ...)`, `hist[i, j]` counting the
 * samples with `x` in x-bin `i` and `y` in y-bin `j`. `bins` is a count for both (default 10), `[bx, by]` (each a
 * count or edges), or one list of edges for both (a DeviceArray or numbers, of a length other than 1 and 2).
 *
 * ```ts
 * const { hist, xedges, yedges } = histogram2d(x, y, { bins: [20, 10] });
 * ```
 */
export function histogram2d(x: DeviceArray, y: DeviceArray, options?: Histogram2dOptions): Histogram2dResult {
  const what = "histogram2d";
  if (options !== undefined && (options === null || typeof options !== "object" || Array.isArray(options))) {
    throw new TypeError(`${what} takes options { bins?, range?, weights?, density?, stream? }, got ${describeValue(options)}`);
  }
  const b = options?.bins;
  let bins: number | readonly HistogramddBins[] | undefined;
  // NumPy takes a list of a length other than 1 and 2 as the edges of both; one of two elements as the counts.
  if (b instanceof DeviceArray) {
    if (b.ndim === 1 && (b.size === 1 || b.size === 2)) {
      throw new ArgumentError(`${what}: bins is a DeviceArray of ${b.size} element${b.size === 1 ? "" : "s"}, which NumPy reads as counts; pass the counts as numbers ([bx, by]), or edges of 3 or more`);
    }
    bins = [b, b];
  } else if (Array.isArray(b) && b.length !== 1 && b.length !== 2) bins = [b as readonly number[], b as readonly number[]];
  else bins = b as number | readonly HistogramddBins[] | undefined;
  const { hist, edges } = histogramdd([x, y], { ...options, ...(bins !== undefined ? { bins } : {}) } as HistogramddOptions);
  return { hist, xedges: edges[0]!, yedges: edges[1]! };
}

/**
 * The bin edges `histogram` would use for `a` with these `bins` and `range`, as NumPy's `histogram_bin_edges` (a
 * count of equal bins over the range or the data's own, or edges given, copied: numbers as `np.asarray` makes them,
 * int64 where all are integers). The data are counted and the counts dropped: counted edges are exactly `histogram`'s.
 */
export function histogramBinEdges(a: DeviceArray, options?: Pick<HistogramOptions, "bins" | "range" | "weights" | "stream">): DeviceArray {
  const { hist, binEdges } = histogram(a, options);
  const stream = operationStream("histogramBinEdges", options, [a]);
  hist.close(stream);
  const bins = options?.bins;
  if (!Array.isArray(bins)) return binEdges;
  // Edges given as numbers: np.asarray's dtype (int64 where all are integers), where histogram keeps float64.
  binEdges.close(stream);
  const host = bins as readonly number[];
  return asarray([...host], { stream, dtype: host.every((v) => Number.isSafeInteger(v)) ? "int64" : "float64" });
}
