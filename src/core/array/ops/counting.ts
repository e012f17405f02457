/**
 * Counting: `bincount` (how often each non-negative integer occurs, as NumPy's), as a function of `cuda-ts/array`.
 *
 * ```ts
 * const counts = bincount(labels);                                  // int64, length max(labels) + 1
 * const sums = bincount(labels, { weights: w, minlength: 10 });     // float64
 * ```
 *
 * It sizes its result from the data, as NumPy does: it reads the smallest and largest value back to the host (one
 * small reduction kernel and one synchronous read on the stream, as CuPy reads its maximum). The counts come from one
 * `atomicAdd` kernel: each block counts into a histogram of its own in shared memory when the bins are few (up to
 * 4,096), then adds it to the result; more bins are counted straight into the result. Weights are summed in float64
 * with `atomicAdd` on doubles (sm_60 and later), in an order of the GPU's: the last bits of a weighted sum may differ
 * from NumPy's sequential one.
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypes } from "../dtype.ts";
import { ArrayLayoutError, DTypeError, ShapeMismatchError } from "../errors.ts";
import { coalesceAxes } from "../broadcast.ts";
import { sameShape } from "../layout.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import type { Device } from "../../device.ts";
import type { Kernel } from "../../launch/kernel.ts";
import { launch } from "../../launch/launch.ts";
import { i32, i64, u64 } from "../../launch/scalars.ts";
import type { Stream } from "../../stream.ts";
import { compileKernels, configFor } from "../../kernels/compile.ts";
import { headersFor } from "../../kernels/params.ts";
import { checkOneDevice } from "./elementwise.ts";
import { COUNT_BLOCK, COUNT_RECORD_WORDS, COUNT_SHARED_BINS, countingKernelNames, countingName, countingSource, type CountingSpec } from "./counting-source.ts";

/** Options of `bincount`. */
export interface BincountOptions extends ArrayOperationOptions {
  /** One weight per element of `x` (1-d, real): the result sums the weights of each value instead of counting it. */
  readonly weights?: DeviceArray;
  /** The least length of the result (a non-negative integer; default 0). */
  readonly minlength?: number;
}

// ---- kernels ----

interface CountingKernels {
  readonly range: Kernel;
  readonly count: Kernel;
  /** The device's multiprocessors (the grids' caps are multiples of it). */
  readonly multiprocessors: number;
}

const programs = new Map<string, CountingKernels>();

function kernelsFor(device: Device, spec: CountingSpec): CountingKernels {
  const name = countingName(spec);
  const key = `${device.id}|${name}`;
  let k = programs.get(key);
  if (k === undefined || k.range.isClosed) {
    const used = [spec.input, ...(spec.weights !== undefined ? [spec.weights] : [])];
    const [range, count] = compileKernels(countingSource(spec), countingKernelNames(spec), device, headersFor(used), {}, `${name}.cu`);
    k = { range: range!, count: count!, multiprocessors: device.properties.multiprocessorCount };
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

/** The smallest and largest value `_range` found (int64), read back to the host: one synchronous read on `stream`. */
function readRange(record: DeviceArray, stream: Stream): { min: bigint; max: bigint } {
  const words = record.toTypedArraySync({ stream }) as BigUint64Array;
  return { min: BigInt.asIntN(64, (~words[0]! & MASK64) ^ SIGN64), max: BigInt.asIntN(64, words[1]! ^ SIGN64) };
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

function checkArray(x: unknown, what: string, name: string): DeviceArray {
  if (!(x instanceof DeviceArray)) throw new TypeError(`${what}: ${name} is a DeviceArray, not ${describeValue(x)}`);
  if (x.isClosed) throw new ArrayLayoutError(`${what}: ${name} (${x.dtype.name} [${x.shape.join(", ")}]) was closed`);
  return x;
}

function checkOptions(options: unknown, what: string, fields: string): void {
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes its options as an object ({ ${fields} }), not ${describeValue(options)}`);
}

/** Weights: a DeviceArray of a real dtype (bool, integers, floats), of `shape`. */
function checkWeights(w: unknown, shape: readonly number[], what: string, data: string): DeviceArray | undefined {
  if (w === undefined) return undefined;
  const weights = checkArray(w, what, "weights");
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
  checkArray(x, what, "x");
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
    const { min, max } = readRange(record, stream);
    if (min < 0n) {
      const wrapped = x.dtype.name === "uint64" ? " (a uint64 value of 2^63 or more reads as negative: NumPy converts x to int64)" : "";
      throw new ArgumentError(`${what}: x holds a negative value (${min})${wrapped}; bincount counts non-negative integers`);
    }
    const top = max + 1n;
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
