/**
 * Scans: `cumsum` and `cumprod`, as functions of `cuda-ts/array` and as DeviceArray methods, and NumPy 2's
 * `cumulativeSum` and `cumulativeProd` (one axis, optionally the identity first).
 *
 * ```ts
 * const c = cumsum(x);                        // the flattened array's running sum (1-d)
 * const rows = x.cumsum({ axis: -1 });        // along the last axis, x's shape
 * const p = cumprod(x, { axis: 0, dtype: "float64" });
 * ```
 *
 * Dtypes as `sum`: bool and signed integers give int64, unsigned integers uint64, floats and complex their dtype
 * (float16 and bfloat16 accumulate in float32); `dtype` picks another (integers narrower than 32 bits accumulate in
 * 32 bits and wrap as their dtype does). A contiguous run (the flattened array, or an axis that is the only one) is
 * scanned in one pass (decoupled look-back: scan-source.ts); other axes by a warp per line (lines contiguous along the
 * axis) or a thread per line (short axes, coalesced across lines).
 *
 * @module
 */
import { mayShareMemory, sameElements } from "./overlap.ts";
import { DeviceArray, checkWritable, operationStream } from "../device-array.ts";
import { dtypeOf, dtypes, type DType } from "../dtype.ts";
import { ArrayLayoutError, AxisError, DTypeError, ShapeMismatchError } from "../errors.ts";
import { coalesceAxes, normalizeAxis } from "../broadcast.ts";
import { elementCount, sameShape } from "../layout.ts";
import { provideArrayMethods } from "../methods.ts";
import type { ScanOptions } from "../options.ts";
import { reductionDTypes } from "../reductions.ts";
import { describeValue } from "../../../errors/describe.ts";
import { driver } from "../../base/driver-state.ts";
import type { CUdeviceptr } from "../../../bindings/driver.ts";
import type { Device } from "../../device.ts";
import type { Kernel } from "../../launch/kernel.ts";
import { launch } from "../../launch/launch.ts";
import { i32, i64, u64 } from "../../launch/scalars.ts";
import type { Stream } from "../../stream.ts";
import { compileKernels, configFor } from "../../kernels/compile.ts";
import { headersFor } from "../../kernels/params.ts";
import {
  SCAN_BLOCK,
  SCAN_MAX_DIMS,
  scanAccumulateName,
  scanKernelName,
  scanLinesLayout,
  scanOutputAlign,
  scanSource,
  scanTileShape,
  scanTuningKey,
  type ScanOp,
} from "./scan-source.ts";

export type { ScanOptions } from "../options.ts";
export type { ScanOp } from "./scan-source.ts";

/** The compiled kernels of one scan signature on one device. */
interface ScanKernels {
  readonly tiles: Kernel;
  readonly rows: Kernel;
  readonly lines: Kernel;
  /** Blocks of SCAN_BLOCK threads the device holds at once (the line kernels' grid cap). */
  readonly maxGrid: number;
}

const kernels = new Map<string, ScanKernels>();

function kernelsFor(device: Device, op: ScanOp, input: DType, accumulate: DType, out: DType, exclusive: boolean): ScanKernels {
  const key = `${device.id}|${op}|${input.name}|${accumulate.name}|${out.name}|${exclusive ? 1 : 0}|${scanTuningKey(input, accumulate)}`;
  let k = kernels.get(key);
  if (k === undefined || k.tiles.isClosed) {
    const name = scanKernelName(op, input, accumulate, out, exclusive);
    const [tiles, rows, lines] = compileKernels(scanSource(op, input, accumulate, out, exclusive), [`${name}_tiles`, `${name}_rows`, `${name}_lines`], device, headersFor([input, accumulate, out]), {}, `${name}.cu`);
    const perSm = rows!.occupancy(device).maxActiveBlocksPerMultiprocessor(SCAN_BLOCK, 0);
    k = { tiles: tiles!, rows: rows!, lines: lines!, maxGrid: Math.max(1, perSm * device.properties.multiprocessorCount) };
    kernels.set(key, k);
  }
  return k;
}

/** The dtypes of a scan of `input`: the result's (as `sum`, or `requested`), and the accumulation's. */
export function scanDTypes(op: ScanOp, input: DType, requested?: DType, what = `cum${op}`): { out: DType; accumulate: DType } {
  const out = requested ?? reductionDTypes(op, input).out;
  if (input.kind === "c" && out.kind !== "c") {
    throw new DTypeError(`${what}: a complex array's running ${op} is complex; ${out.name} would drop the imaginary parts (take .real first, or ask for a complex dtype)`);
  }
  return { out, accumulate: dtypes[scanAccumulateName(out) as keyof typeof dtypes] };
}

/** How a scan runs (exported for tests: no GPU needed). */
export type ScanPlan =
  | { readonly kind: "empty" }
  /** One contiguous run per launch: the single-pass tile kernel; `lineOffsets` are each run's first element (input, output). */
  | { readonly kind: "tiles"; readonly len: number; readonly lineOffsets: readonly (readonly [number, number])[] }
  /**
   * A warp per line, or a thread per (chunk, line), over the merged other axes: `chunks` pieces of `chunkLen`
   * elements per line (1: a thread per line).
   */
  | {
      readonly kind: "rows" | "lines";
      readonly lines: number;
      readonly len: number;
      readonly shape: readonly number[];
      readonly stridesIn: readonly number[];
      readonly stridesOut: readonly number[];
      readonly axisIn: number;
      readonly axisOut: number;
      readonly chunks: number;
      readonly chunkLen: number;
    };

/** Lines at most this many, each at least {@link SCAN_TILES_MIN_LENGTH} long and contiguous, get a tile-kernel launch each. */
export const SCAN_TILES_MAX_LINES = 64;
/** See {@link SCAN_TILES_MAX_LINES}. */
export const SCAN_TILES_MIN_LENGTH = 1 << 16;
/** Threads a thread-per-line scan aims for (lines × chunks): enough to keep a large GPU's memory busy. */
export const SCAN_FILL_THREADS = 1 << 18;
/** The shortest chunk a line is cut into. */
export const SCAN_MIN_CHUNK = 64;

/**
 * The plan of a scan along `axis` of an input of `shape` and `stridesIn` into an output with `stridesOut` (strides in
 * elements). One contiguous line (or a few long ones): the tile kernel per line; lines contiguous along the axis and
 * at least 64 long: a warp per line; otherwise a thread per line, each line cut into chunks when the lines alone
 * give fewer than `fillThreads` threads.
 */
export function scanPlan(shape: readonly number[], stridesIn: readonly number[], stridesOut: readonly number[], axis: number, fillThreads = SCAN_FILL_THREADS): ScanPlan {
  if (elementCount(shape) === 0) return { kind: "empty" };
  const len = shape[axis]!;
  const others = shape.filter((_, d) => d !== axis);
  const merged = coalesceAxes(
    others,
    [stridesIn.filter((_, d) => d !== axis), stridesOut.filter((_, d) => d !== axis)],
  );
  const lines = elementCount(merged.shape);
  const axisIn = len === 1 ? 1 : stridesIn[axis]!;
  const axisOut = len === 1 ? 1 : stridesOut[axis]!;
  if (axisIn === 1 && axisOut === 1 && (lines === 1 || (lines <= SCAN_TILES_MAX_LINES && len >= SCAN_TILES_MIN_LENGTH))) {
    const offsets: [number, number][] = [];
    for (let t = 0; t < lines; t++) {
      let r = t;
      let oi = 0;
      let oo = 0;
      for (let d = merged.shape.length - 1; d >= 0; d--) {
        const e = merged.shape[d]!;
        const c = r % e;
        r = Math.floor(r / e);
        oi += c * merged.strides[0]![d]!;
        oo += c * merged.strides[1]![d]!;
      }
      offsets.push([oi, oo]);
    }
    return { kind: "tiles", len, lineOffsets: offsets };
  }
  if (merged.shape.length > SCAN_MAX_DIMS) {
    throw new ArrayLayoutError(`cumsum/cumprod: the axes besides the scanned one merge into ${merged.shape.length} axes, more than ${SCAN_MAX_DIMS}; copy the array to a contiguous one first`);
  }
  const rows = axisIn === 1 && len >= 64;
  const chunks = rows ? 1 : Math.max(1, Math.min(Math.ceil(fillThreads / lines), Math.floor(len / SCAN_MIN_CHUNK)));
  const chunkLen = Math.ceil(len / chunks);
  return {
    kind: rows ? "rows" : "lines",
    lines,
    len,
    shape: merged.shape,
    stridesIn: merged.strides[0]!,
    stridesOut: merged.strides[1]!,
    axisIn,
    axisOut,
    chunks: Math.ceil(len / chunkLen),
    chunkLen,
  };
}

/** The bytes of the tile kernel's scratch for `tiles` tiles of `accumulate` values: counter, flags, aggregates, inclusive prefixes. */
export function scanScratchLayout(tiles: number, accumulate: DType): { flagsAt: number; aggregatesAt: number; inclusivesAt: number; bytes: number; zeroWords: number } {
  const up16 = (x: number): number => Math.ceil(x / 16) * 16;
  const flagsAt = 16;
  // 8 bytes of status per tile: a flag, or (4-byte accumulations) a flag and the value in one word.
  const aggregatesAt = up16(flagsAt + 8 * tiles);
  const inclusivesAt = up16(aggregatesAt + accumulate.itemsize * tiles);
  return { flagsAt, aggregatesAt, inclusivesAt, bytes: up16(inclusivesAt + accumulate.itemsize * tiles), zeroWords: aggregatesAt / 4 };
}

/**
 * Runs a planned scan: `src` and `dst` are the addresses of element [0, ...] of the input and output. Every check was
 * made; this only queues work on `stream`.
 */
function runScan(stream: Stream, plan: ScanPlan, op: ScanOp, input: DType, accumulate: DType, out: DType, exclusive: boolean, src: bigint, dst: bigint): void {
  if (plan.kind === "empty") return;
  const k = kernelsFor(stream.device, op, input, accumulate, out, exclusive);
  if (plan.kind === "tiles") {
    const { tile, vec, block, stashBytes } = scanTileShape(input, accumulate);
    const tiles = Math.ceil(plan.len / tile);
    const layout = scanScratchLayout(tiles, accumulate);
    const scratch = DeviceArray.empty([layout.bytes], dtypes.uint8, { stream });
    try {
      const base = scratch.address;
      const outAlign = scanOutputAlign(input, accumulate, out);
      const inAlign = BigInt(vec * input.itemsize);
      for (const [oi, oo] of plan.lineOffsets) {
        const from = src + BigInt(oi * input.itemsize);
        const to = dst + BigInt(oo * out.itemsize);
        const aligned = from % inAlign === 0n && to % BigInt(outAlign) === 0n ? 1 : 0;
        driver.cuMemsetD32Async(base as CUdeviceptr, 0, layout.zeroWords, stream.handle);
        launch(stream, configFor(tiles, block, stashBytes), k.tiles, [
          from,
          to,
          u64(plan.len),
          base,
          base + BigInt(layout.flagsAt),
          base + BigInt(layout.aggregatesAt),
          base + BigInt(layout.inclusivesAt),
          i32(aligned),
        ]);
      }
    } finally {
      scratch.close(stream);
    }
    return;
  }
  const bytes = scanLinesLayout(plan.shape, plan.stridesIn, plan.stridesOut, plan.len, plan.axisIn, plan.axisOut);
  const threads = plan.kind === "rows" ? plan.lines * 32 : plan.lines * plan.chunks;
  const config = configFor(Math.max(1, Math.min(Math.ceil(threads / SCAN_BLOCK), k.maxGrid)), SCAN_BLOCK);
  if (plan.kind === "rows") {
    launch(stream, config, k.rows, [src, dst, u64(plan.lines), bytes]);
    return;
  }
  if (plan.chunks === 1) {
    launch(stream, config, k.lines, [src, dst, u64(plan.lines), bytes, i64(plan.chunkLen), i64(1), 0n, i32(1)]);
    return;
  }
  // Two passes over the chunks: their totals, then the scan of each from the totals before it.
  const totals = DeviceArray.empty([plan.lines * plan.chunks], accumulate, { stream });
  try {
    for (const phase of [0, 1]) launch(stream, config, k.lines, [src, dst, u64(plan.lines), bytes, i64(plan.chunkLen), i64(plan.chunks), totals.address, i32(phase)]);
  } finally {
    totals.close(stream);
  }
}

/**
 * @internal A scan of a contiguous array into a contiguous array of the same size (any shapes: both are read as one
 * run), on `stream`: inclusive, or `exclusive` (each element's prefix before it, 0 first for a sum). The mask
 * compaction of the indexing operations counts positions with it (a bool or int32 input into int64).
 */
export function scanContiguous(stream: Stream, op: ScanOp, src: DeviceArray, dst: DeviceArray, exclusive = false): void {
  if (!src.isContiguous || !dst.isContiguous) throw new ArrayLayoutError("scanContiguous: both arrays must be contiguous");
  if (src.size !== dst.size) throw new ShapeMismatchError(`scanContiguous: ${src.size} elements into ${dst.size}`);
  const { accumulate } = scanDTypes(op, src.dtype, dst.dtype);
  runScan(stream, scanPlan([src.size], [1], [1], 0), op, src.dtype, accumulate, dst.dtype, exclusive, src.address, dst.address);
}

function checkOptions(options: unknown, what: string): ScanOptions {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object") throw new TypeError(`${what} takes options { stream?, axis?, dtype?, out? }, got ${describeValue(options)}`);
  return options as ScanOptions;
}

/** A scan's `out` (checked: a writable DeviceArray of the requested dtype, if both are given) and its dtypes. */
function scanResult(op: ScanOp, input: DType, options: ScanOptions, what: string): { given: DeviceArray | undefined; out: DType; accumulate: DType } {
  const given = options.out;
  if (given !== undefined && !(given instanceof DeviceArray)) throw new TypeError(`${what}: out is a DeviceArray, not ${describeValue(given)}`);
  if (given !== undefined) checkWritable(given, `${what}: out`);
  const requested = options.dtype !== undefined ? dtypeOf(options.dtype) : given?.dtype;
  if (options.dtype !== undefined && given !== undefined && given.dtype !== requested) {
    throw new DTypeError(`${what}: dtype is ${requested!.name} but out is ${given.dtype.name}; pass one of them, or both the same`);
  }
  return { given, ...scanDTypes(op, input, requested, what) };
}

/**
 * @internal The scans (`cumsum`, `cumprod`, and the NaN-skipping ones, named `what`): every check before anything is
 * queued. `input`, given, makes the array actually scanned from `a` on the scan's stream (a new array of `a`'s shape
 * and dtype, closed once the scan is queued): the NaN-skipping scans replace NaN with it.
 */
export function scan(op: ScanOp, a: DeviceArray, opts: ScanOptions | undefined, what: string = op === "sum" ? "cumsum" : "cumprod", input?: (a: DeviceArray, stream: Stream) => DeviceArray): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(a)}`);
  const options = checkOptions(opts, what);
  if (a.isClosed) throw new ArrayLayoutError(`${what}: the array was closed`);
  const { given, out: outType, accumulate } = scanResult(op, a.dtype, options, what);
  let axis: number | undefined;
  if (options.axis !== undefined && options.axis !== null) {
    axis = normalizeAxis(options.axis, a.ndim, what);
  }
  const shape = axis === undefined ? [a.size] : [...a.shape];
  if (given !== undefined && !sameShape(given.shape, shape)) {
    throw new ShapeMismatchError(`${what}: out has shape [${given.shape.join(", ")}] but the result has shape [${shape.join(", ")}]`);
  }
  if (given?.isClosed) throw new ArrayLayoutError(`${what}: out was closed`);
  const stream = operationStream(what, options, [a, ...(given !== undefined ? [given] : [])]);
  if (input === undefined) return scanOn(stream, op, a, given, shape, axis, outType, accumulate);
  const replaced = input(a, stream);
  try {
    return scanOn(stream, op, replaced, given, shape, axis, outType, accumulate);
  } finally {
    replaced.close(stream);
  }
}

/** Queues a checked scan of `a` on `stream` along `axis` (undefined: flattened) into `given` or a new array. */
function scanOn(stream: Stream, op: ScanOp, a: DeviceArray, given: DeviceArray | undefined, shape: readonly number[], axis: number | undefined, outType: DType, accumulate: DType): DeviceArray {
  if (axis === undefined) {
    // The flattened array: one contiguous run in, one out.
    const src = a.isContiguous ? a : a.copy({ stream });
    // In place (out the very elements of the input) is safe: each block reads its tile before it writes it. An out
    // that overlaps the input otherwise goes through a temporary.
    const inPlace = given !== undefined && given.address === src.address && given.itemsize === src.itemsize; // both contiguous runs
    const direct = given !== undefined && given.isContiguous && (inPlace || !mayShareMemory(given, src));
    const dst = direct ? given : DeviceArray.empty(shape, outType, { stream });
    try {
      runScan(stream, scanPlan([a.size], [1], [1], 0), op, a.dtype, accumulate, outType, false, src.address, dst.address);
      if (given !== undefined && !direct) given.copyFrom(dst, { stream });
    } finally {
      if (src !== a) src.close(stream);
      if (given !== undefined && !direct) dst.close(stream);
    }
    return given ?? dst;
  }
  const staged = given !== undefined && !sameElements(given, a) && mayShareMemory(given, a);
  const dst = given !== undefined && !staged ? given : DeviceArray.empty(shape, outType, { stream });
  runScan(stream, scanPlan(a.shape, a.strides, dst.strides, axis), op, a.dtype, accumulate, outType, false, a.address, dst.address);
  if (staged) {
    given.copyFrom(dst, { stream });
    dst.close(stream);
    return given;
  }
  return dst;
}

/**
 * The running sum of `a` along `axis` (default: the flattened array, a 1-d result), a new array (or `out`), on the
 * stream of `options` or `a`'s. Also `a.cumsum(options)`.
 *
 * ```ts
 * const c = cumsum(x, { axis: 1 });   // x: [[1, 2], [3, 4]] → [[1, 3], [3, 7]]
 * ```
 */
export function cumsum(a: DeviceArray, options?: ScanOptions): DeviceArray {
  return scan("sum", a, options);
}

/** The running product of `a` along `axis` (default: the flattened array); dtypes as {@link cumsum}. Also `a.cumprod(options)`. */
export function cumprod(a: DeviceArray, options?: ScanOptions): DeviceArray {
  return scan("prod", a, options);
}

/** Options of `cumulativeSum` and `cumulativeProd`: those of `cumsum`, and whether the identity comes first. */
export interface CumulativeOptions extends ScanOptions {
  /** Whether the result starts with the identity (0 for a sum, 1 for a product), one longer along the axis (default false). */
  readonly includeInitial?: boolean;
}

/** NumPy 2's `cumulative_sum` and `cumulative_prod` over {@link scan}: one axis, required past 1-d; 0-d is 1-d. */
function cumulative(op: ScanOp, a: DeviceArray, opts: CumulativeOptions | undefined, what: string): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(a)}`);
  if (opts !== undefined && (opts === null || typeof opts !== "object")) throw new TypeError(`${what} takes options { axis?, dtype?, includeInitial?, out?, stream? }, got ${describeValue(opts)}`);
  if (a.isClosed) throw new ArrayLayoutError(`${what}: the array was closed`);
  const { includeInitial = false, ...options } = opts ?? {};
  if (typeof includeInitial !== "boolean") throw new TypeError(`${what}: includeInitial is a boolean, got ${describeValue(includeInitial)}`);
  if (a.ndim > 1 && (options.axis === undefined || options.axis === null)) {
    throw new AxisError(`${what}: give axis for an array of ${a.ndim} axes (shape [${a.shape.join(", ")}]); it scans one axis, where cum${op} scans the flattened array`);
  }
  const src = a.ndim === 0 ? a.reshape([1]) : a;
  const axis = normalizeAxis(options.axis ?? 0, src.ndim, what);
  if (!includeInitial) return scan(op, src, { ...options, axis }, what);
  const { given, out: outType } = scanResult(op, src.dtype, options, what);
  const shape = src.shape.map((n, d) => (d === axis ? n + 1 : n));
  if (given !== undefined && !sameShape(given.shape, shape)) {
    throw new ShapeMismatchError(`${what}: out has shape [${given.shape.join(", ")}] but the result (with the initial ${op === "sum" ? 0 : 1}) has shape [${shape.join(", ")}]`);
  }
  if (given?.isClosed) throw new ArrayLayoutError(`${what}: out was closed`);
  const stream = operationStream(what, options, [a, ...(given !== undefined ? [given] : [])]);
  if (given !== undefined && mayShareMemory(given, src)) {
    // The identity row would overwrite input not yet scanned: scan into a new array, then copy.
    const staged = cumulative(op, src, { axis, dtype: outType.name, includeInitial, stream }, what);
    try {
      given.copyFrom(staged, { stream });
    } finally {
      staged.close(stream);
    }
    return given;
  }
  const result = given ?? DeviceArray.empty(shape, outType, { stream });
  const along = (spec: readonly [number, number | null]) => result.slice(...shape.map((_, d) => (d === axis ? spec : null)));
  try {
    along([0, 1]).fill(op === "sum" ? 0 : 1, { stream });
    scan(op, src, { axis, out: along([1, null]), stream }, what);
  } catch (e) {
    if (given === undefined) result.close(stream);
    throw e;
  }
  return result;
}

/**
 * The running sum of `a` along one axis, as NumPy 2's `cumulative_sum` (the array API's): `axis` may be left out
 * only for a 1-d array (a 0-d one counts as 1-d; `cumsum` instead scans the flattened array); `includeInitial`
 * puts 0 first, the result one longer along the axis. Dtypes, `out` and the stream as {@link cumsum}.
 *
 * ```ts
 * cumulativeSum(x, { includeInitial: true });     // [1, 2, 3] → [0, 1, 3, 6]
 * cumulativeSum(m, { axis: 1 });                  // each row's running sum
 * ```
 */
export function cumulativeSum(a: DeviceArray, options?: CumulativeOptions): DeviceArray {
  return cumulative("sum", a, options, "cumulativeSum");
}

/** The running product of `a` along one axis, as NumPy 2's `cumulative_prod`; `includeInitial` puts 1 first. As {@link cumulativeSum}. */
export function cumulativeProd(a: DeviceArray, options?: CumulativeOptions): DeviceArray {
  return cumulative("prod", a, options, "cumulativeProd");
}

provideArrayMethods({
  cumsum: (self, options) => cumsum(self, options),
  cumprod: (self, options) => cumprod(self, options),
});
