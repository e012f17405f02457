/**
 * Indexing by arrays and masks: `take`, `put`, `takeAlongAxis`, `nonzero` (NumPy's one-argument `where`),
 * `argwhere`, `extract`, `compress`, `putMask`.
 *
 * ```ts
 * const rows = take(x, idx, { axis: 0 });            // idx: an integer DeviceArray, or [2, 0, 1]
 * put(x, [0, 3], 7);                                  // x.flat[0] = x.flat[3] = 7
 * const [r, c] = nonzero(x.gt(0));                     // int64 index arrays, one per axis
 * const positive = extract(x.gt(0), x);                // x[x > 0], flattened
 * putMask(x, x.lt(0), 0);                              // x[x < 0] = 0, in place
 * ```
 *
 * Indices given as JavaScript numbers are checked on the host (IndexError naming the index and the extent). Index
 * arrays are checked on the device: with `mode: "raise"` (the default) an out-of-range index is skipped (nothing is
 * read or written outside an array; `take` writes 0 there) and recorded in a small host-mapped record of the stream,
 * and the next synchronised read on that stream (`toTypedArray`, `toTypedArraySync`, `item`) throws the IndexError.
 * `mode: "wrap"` takes indices modulo the extent, `"clip"` clamps them (negative to 0), as NumPy.
 *
 * Masks (`nonzero`, `argwhere`, `extract`, `compress`) size their result from the mask's count of true elements,
 * which is read back to the host: these calls synchronise with their stream (as CuPy's do). The count comes from a
 * running sum of the mask (the scan kernels), the elements from one compaction kernel.
 *
 * @module
 */
import { mayShareMemory } from "./overlap.ts";
import { DeviceArray, checkWritable, encodeElement, operationStream, provideAfterReadCheck, type ArrayOperationOptions, type ArrayScalar } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { ArrayLayoutError, DTypeError, IndexError, ShapeMismatchError } from "../errors.ts";
import { broadcastShapes, broadcastStrides, coalesceAxes, normalizeAxis } from "../broadcast.ts";
import { elementCount, sameShape } from "../layout.ts";
import { provideArrayMethods } from "../methods.ts";
import type { TakeOptions } from "../options.ts";
import { describeValue } from "../../../errors/describe.ts";
import { CU_MEMHOSTALLOC_DEVICEMAP, CU_MEMHOSTALLOC_PORTABLE } from "../../../bindings/driver.ts";
import { ffi } from "../../../ffi/index.ts";
import type { NativePointer } from "../../../ffi/types.ts";
import { driver, withCurrentContext } from "../../base/driver-state.ts";
import type { Device } from "../../device.ts";
import type { Kernel } from "../../launch/kernel.ts";
import { launch, type KernelArgument } from "../../launch/launch.ts";
import { i32, i64, u64 } from "../../launch/scalars.ts";
import type { Stream } from "../../stream.ts";
import { compileKernels, configFor } from "../../kernels/compile.ts";
import { castInto } from "./cast.ts";
import { scanContiguous } from "./scan.ts";
import { viewWith } from "./shape.ts";
import { INDEX_FLAG_BYTES, INDEX_MAX_DIMS, INDEX_MODES, indexLayout, indexingName, indexingSource } from "./indexing-source.ts";

export type { TakeOptions } from "../options.ts";

/** Options of `put`: the index mode and the stream. */
export type PutOptions = Omit<TakeOptions, "axis" | "out">;

/** Options of `takeAlongAxis`: the axis (required, as NumPy's) and the index mode. */
export interface TakeAlongAxisOptions extends Omit<TakeOptions, "axis"> {
  readonly axis: number;
}

/** Options of `compress`: the axis (default: the flattened array). */
export interface CompressOptions extends ArrayOperationOptions {
  readonly axis?: number;
}

// ---- the device-side index check ----

/** The operations named in the flag record (its `op` field is the position here). */
const OPERATIONS = ["take", "put", "takeAlongAxis", "unravelIndex", "ravelMultiIndex", "choose", "putAlongAxis"] as const;
type IndexOperation = (typeof OPERATIONS)[number];

interface FlagSlot {
  /** The record's address (host-mapped: the same on the host and the devices). */
  readonly address: bigint;
  readonly ints: Int32Array;
  readonly longs: BigInt64Array;
  /** The record's position, in int32 and in int64 units. */
  readonly at32: number;
  readonly at64: number;
}

const CHUNK_BYTES = 4096;
const SLOTS_PER_CHUNK = CHUNK_BYTES / INDEX_FLAG_BYTES;
/**
 * The current chunk of records: page-locked, mapped host memory from cuMemHostAlloc (portable: any context may use
 * it; with unified addressing its address is the same on the host and the devices). Chunks are never freed (4 KiB
 * per 128 streams) and belong to no Buffer, so no scope can close them under a running kernel.
 */
let chunk: { address: bigint; ints: Int32Array; longs: BigInt64Array; used: number } | undefined;
const slots = new WeakMap<Stream, FlagSlot>();

/** The flag record of `stream` (allocated at its first checked launch, reused after). */
function flagFor(stream: Stream): FlagSlot {
  let s = slots.get(stream);
  if (s !== undefined) return s;
  if (chunk === undefined || chunk.used >= SLOTS_PER_CHUNK) {
    const ptr = withCurrentContext(stream.context.handle, () => driver.cuMemHostAlloc(CHUNK_BYTES, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP)) as NativePointer;
    const memory = ffi.view(ptr as Parameters<typeof ffi.view>[0], CHUNK_BYTES);
    chunk = { address: ffi.bigAddressOf(ptr), ints: new Int32Array(memory), longs: new BigInt64Array(memory), used: 0 };
    chunk.ints.fill(0);
  }
  const k = chunk.used++;
  s = { address: chunk.address + BigInt(k * INDEX_FLAG_BYTES), ints: chunk.ints, longs: chunk.longs, at32: (k * INDEX_FLAG_BYTES) / 4, at64: (k * INDEX_FLAG_BYTES) / 8 };
  slots.set(stream, s);
  return s;
}

provideAfterReadCheck((stream) => {
  const s = slots.get(stream);
  if (s === undefined || s.ints[s.at32] === 0) return;
  const op = OPERATIONS[s.ints[s.at32 + 1]!] ?? "an indexing operation";
  const index = s.longs[s.at64 + 1]!;
  const extent = s.longs[s.at64 + 2]!;
  s.ints[s.at32] = 0;
  const found = "found on the device; reported at this read, the first synchronisation of the stream after it";
  if (op === "unravelIndex") {
    throw new IndexError(
      `unravelIndex: flat position ${index} is out of range for a shape of ${extent} element${extent === 1n ? "" : "s"} (${found}). ` +
        (extent === 0n ? "A shape with no elements has no positions" : `Pass positions from 0 to ${extent - 1n}`) +
        "; the coordinates computed for it are out of range",
    );
  }
  if (op === "choose") {
    throw new IndexError(
      `choose: entry ${index} of the index array is out of range for ${extent} choice${extent === 1n ? "" : "s"} (${found}). ` +
        `Pass entries from 0 to ${extent - 1n}, or { mode: "wrap" } / { mode: "clip" }; the result holds choice 0 there`,
    );
  }
  if (op === "ravelMultiIndex") {
    throw new IndexError(
      `ravelMultiIndex: coordinate ${index} is out of range for an axis of extent ${extent} (${found}). ` +
        `Pass coordinates from 0 to ${extent - 1n}, or { mode: "wrap" } / { mode: "clip" }; the position computed for it is out of range`,
    );
  }
  throw new IndexError(
    `${op}: index ${index} is out of range for an axis of extent ${extent} (${found}). ` +
      `Pass indices from ${-extent} to ${extent - 1n}, or { mode: "wrap" } / { mode: "clip" }; the out-of-range elements were left alone (take wrote 0 for them)`,
  );
});

// ---- kernels ----

interface IndexKernels {
  readonly gather: Kernel;
  readonly scatter: Kernel;
  readonly putmask: Kernel;
  readonly compact: Kernel;
  readonly coords: Kernel;
  readonly check: Kernel;
  readonly maxGrid: number;
}

const kernels = new Map<string, IndexKernels>();

function kernelsFor(device: Device, width: number, index: DType): IndexKernels {
  const key = `${device.id}|${width}|${index.name}`;
  let k = kernels.get(key);
  if (k === undefined || k.gather.isClosed) {
    const name = indexingName(width, index);
    const [gather, scatter, putmask, compact, coords, check] = compileKernels(
      indexingSource(width, index),
      ["gather", "scatter", "putmask", "compact", "coords", "check"].map((s) => `${name}_${s}`),
      device,
      { fp16: false, bf16: false, complex: false },
      {},
      `${name}.cu`,
    );
    k = { gather: gather!, scatter: scatter!, putmask: putmask!, compact: compact!, coords: coords!, check: check!, maxGrid: device.properties.multiprocessorCount * 16 };
    kernels.set(key, k);
  }
  return k;
}

const BLOCK = 256;

function run(stream: Stream, kernel: Kernel, maxGrid: number, n: number, args: KernelArgument[]): void {
  if (n === 0) return;
  launch(stream, configFor(Math.max(1, Math.min(Math.ceil(n / BLOCK), maxGrid)), BLOCK), kernel, args);
}

/**
 * Checks the integer array `indices` against [0, `extent`) on the device, for the index helpers whose positions
 * count from 0 only (NumPy's `unravel_index`, `ravel_multi_index` and `choose`), or against [-extent, extent) with
 * `negative` (`putAlongAxis`): one kernel that writes nothing but records the first index outside in the stream's
 * flag record, so the IndexError comes at the stream's next synchronised read, as `take`'s does. Enqueued on
 * `stream`; `indices` may be any view.
 */
export function checkIndexRange(what: "unravelIndex" | "ravelMultiIndex" | "choose" | "putAlongAxis", indices: DeviceArray, extent: number, stream: Stream, negative = false): void {
  if (indices.size === 0) return;
  let m = coalesceAxes(indices.shape, [indices.strides]);
  let x = indices;
  if (m.shape.length > INDEX_MAX_DIMS) {
    x = indices.copy({ stream });
    m = { shape: [x.size], strides: [[1]] };
  }
  try {
    // Elements are never moved here: the 8-byte program (the one int64 results use) carries the check.
    const k = kernelsFor(stream.device, 8, x.dtype);
    run(stream, k.check, k.maxGrid, x.size, [
      x.address,
      u64(x.size),
      indexLayout(m.shape, m.strides[0]!, []),
      i64(extent),
      i32(negative ? INDEX_MODES.raise : INDEX_MODES.raiseNonNegative),
      flagFor(stream).address,
      i32(OPERATIONS.indexOf(what)),
    ]);
  } finally {
    if (x !== indices) x.close(stream);
  }
}

// ---- checks ----

type Mode = "raise" | "wrap" | "clip";

function checkMode(mode: unknown, what: string): Mode {
  if (mode === undefined) return "raise";
  if (mode !== "raise" && mode !== "wrap" && mode !== "clip") throw new TypeError(`${what}: mode is "raise", "wrap" or "clip", got ${describeValue(mode)}`);
  return mode;
}

function checkArray(a: unknown, what: string): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${what} takes a DeviceArray, not ${describeValue(a)}`);
  if (a.isClosed) throw new ArrayLayoutError(`${what}: the array (${a.dtype.name} [${a.shape.join(", ")}]) was closed`);
  return a;
}

/**
 * Indices given as numbers, checked against `extent` on the host and brought into [0, extent) by the mode
 * (exported for tests): IndexError naming the index and the extent.
 */
export function hostIndices(indices: readonly number[], extent: number, mode: Mode, what: string): BigInt64Array {
  const out = new BigInt64Array(indices.length);
  if (indices.length > 0 && extent === 0 && mode !== "raise") throw new IndexError(`${what}: cannot take from an empty axis (extent 0) with mode "${mode}"`);
  indices.forEach((v, j) => {
    if (typeof v !== "number" || !Number.isSafeInteger(v)) throw new IndexError(`${what}: indices are integers, got ${describeValue(v)} at position ${j}`);
    let k = v;
    if (mode === "wrap") k = ((k % extent) + extent) % extent;
    else if (mode === "clip") k = Math.min(Math.max(k, 0), extent - 1);
    else {
      if (k < 0) k += extent;
      if (k < 0 || k >= extent) throw new IndexError(`${what}: index ${v} (position ${j}) is out of range for an axis of extent ${extent} (from ${-extent} to ${extent - 1})`);
    }
    out[j] = BigInt(k);
  });
  return out;
}

/** An index operand as a DeviceArray of an integer dtype (numbers, checked on the host already, uploaded as int64). */
function indexArray(indices: DeviceArray | BigInt64Array, stream: Stream): { array: DeviceArray; owned: boolean } {
  if (indices instanceof DeviceArray) return { array: indices, owned: false };
  return { array: DeviceArray.from(indices, { stream }), owned: true };
}

/** Index arrays as they are; numbers checked against `extent` now (before any stream is used). */
function checkedIndices(indices: DeviceArray | readonly number[], extent: number, mode: Mode, what: string): DeviceArray | BigInt64Array {
  return indices instanceof DeviceArray ? indices : hostIndices(indices, extent, mode, what);
}

function checkIndexOperand(indices: unknown, what: string): void {
  if (indices instanceof DeviceArray) {
    checkArray(indices, `${what}: indices`);
    if (indices.dtype.kind !== "i" && indices.dtype.kind !== "u") {
      throw new DTypeError(`${what}: indices are an integer array, got ${indices.dtype.name}${indices.dtype.kind === "b" ? " (for a boolean mask use extract, compress or putMask)" : ""}`);
    }
    return;
  }
  if (!Array.isArray(indices)) throw new TypeError(`${what}: indices are an integer DeviceArray or a list of numbers, not ${describeValue(indices)}`);
}

// ---- take ----

/** What a gather reads (exported for tests): the result's shape, the merged layout, the indexed axis. */
export interface GatherPlan {
  readonly shape: number[];
  readonly layout: { shape: number[]; strides: number[][] };
  readonly extent: number;
  readonly axisStride: number;
}

/** The plan of `take(a, indices, { axis })` for an `a` of `shape`/`strides` (already flattened when no axis is given). */
export function takePlan(shape: readonly number[], strides: readonly number[], indexShape: readonly number[], indexStrides: readonly number[], axis: number): GatherPlan {
  const pre = shape.slice(0, axis);
  const post = shape.slice(axis + 1);
  const out = [...pre, ...indexShape, ...post];
  const stIdx = [...pre.map(() => 0), ...indexStrides, ...post.map(() => 0)];
  const stA = [...strides.slice(0, axis), ...indexShape.map(() => 0), ...strides.slice(axis + 1)];
  return { shape: out, layout: mergeLayout(out, stIdx, stA), extent: shape[axis]!, axisStride: strides[axis]! };
}

/** The plan of `takeAlongAxis` (exported for tests): indices and `a` broadcast against each other except along `axis`. */
export function takeAlongAxisPlan(shape: readonly number[], strides: readonly number[], indexShape: readonly number[], indexStrides: readonly number[], axis: number): GatherPlan {
  if (indexShape.length !== shape.length) {
    throw new ShapeMismatchError(`takeAlongAxis: indices have ${indexShape.length} axes ([${indexShape.join(", ")}]) but the array has ${shape.length} ([${shape.join(", ")}]); give them the same number of axes`);
  }
  const aShape = shape.map((n, d) => (d === axis ? indexShape[d]! : n));
  const out = broadcastShapes([{ name: "the array", shape: aShape }, { name: "indices", shape: indexShape }], "takeAlongAxis");
  const stA = broadcastStrides(aShape, strides.map((s, d) => (d === axis ? 0 : s)), out);
  stA[axis] = 0;
  const stIdx = broadcastStrides(indexShape, indexStrides, out);
  return { shape: out, layout: mergeLayout(out, stIdx, stA), extent: shape[axis]!, axisStride: strides[axis]! };
}

function mergeLayout(shape: readonly number[], stIdx: readonly number[], stA: readonly number[]): { shape: number[]; strides: number[][] } {
  const m = coalesceAxes(shape, [stIdx, stA]);
  if (m.shape.length > INDEX_MAX_DIMS) {
    throw new ArrayLayoutError(`indexing: the result's layout needs ${m.shape.length} axes after merging, more than ${INDEX_MAX_DIMS}; copy the operands to contiguous arrays first`);
  }
  return m;
}

/** The checks of a gather's plan and `out` (before any stream is used). */
function checkGather(what: IndexOperation, a: DeviceArray, plan: GatherPlan, given: DeviceArray | undefined): void {
  if (given !== undefined) {
    checkArray(given, `${what}: out`);
    checkWritable(given, `${what}: out`);
    if (!sameShape(given.shape, plan.shape)) throw new ShapeMismatchError(`${what}: out has shape [${given.shape.join(", ")}] but the result has shape [${plan.shape.join(", ")}]`);
    if (given.dtype !== a.dtype) throw new DTypeError(`${what}: out is ${given.dtype.name} but the array is ${a.dtype.name}`);
  }
  if (elementCount(plan.shape) > 0 && plan.extent === 0) throw new IndexError(`${what}: cannot take from an empty axis (extent 0)`);
}

function gather(what: IndexOperation, a: DeviceArray, idx: DeviceArray, plan: GatherPlan, mode: Mode, given: DeviceArray | undefined, stream: Stream): DeviceArray {
  const n = elementCount(plan.shape);
  // An out that overlaps the source or the indices is written through a temporary: other threads still read them.
  const direct = given !== undefined && given.isContiguous && !mayShareMemory(given, a) && !mayShareMemory(given, idx);
  const out = direct ? given : DeviceArray.empty(plan.shape, a.dtype, { stream });
  if (n > 0) {
    const k = kernelsFor(stream.device, a.itemsize, idx.dtype);
    const flag = flagFor(stream);
    run(stream, k.gather, k.maxGrid, n, [
      a.address,
      idx.address,
      out.address,
      u64(n),
      indexLayout(plan.layout.shape, plan.layout.strides[0]!, plan.layout.strides[1]!),
      i64(plan.extent),
      i64(plan.axisStride),
      i32(INDEX_MODES[mode]),
      flag.address,
      i32(OPERATIONS.indexOf(what)),
    ]);
  }
  if (given !== undefined && !direct) {
    given.copyFrom(out, { stream });
    out.close(stream);
    return given;
  }
  return out;
}

/**
 * The elements of `a` at `indices` (an integer DeviceArray of any shape, or a list of numbers) along `axis` (default:
 * the flattened array): the result's shape is `a.shape[:axis] + indices.shape + a.shape[axis+1:]`. Negative indices
 * count from the end. See the module's description for `mode` and how out-of-range indices are reported.
 */
export function take(a: DeviceArray, indices: DeviceArray | readonly number[], options?: TakeOptions): DeviceArray {
  const what = "take";
  checkArray(a, what);
  checkIndexOperand(indices, what);
  const mode = checkMode(options?.mode, what);
  const axis = options?.axis === undefined || options.axis === null ? undefined : normalizeAxis(options.axis, a.ndim, what);
  const extent = axis === undefined ? a.size : a.shape[axis]!;
  const checked = checkedIndices(indices, extent, mode, what);
  const [idxShape, idxStrides] = checked instanceof DeviceArray ? [checked.shape, checked.strides] : [[checked.length], [1]];
  const plan = axis === undefined ? takePlan([a.size], [1], idxShape, idxStrides, 0) : takePlan(a.shape, a.strides, idxShape, idxStrides, axis);
  checkGather(what, a, plan, options?.out);
  const stream = operationStream(what, options, [a, ...(indices instanceof DeviceArray ? [indices] : []), ...(options?.out !== undefined ? [options.out] : [])]);
  const { array: idx, owned } = indexArray(checked, stream);
  const flat = axis === undefined && !a.isContiguous ? a.copy({ stream }) : a;
  try {
    return gather(what, flat, idx, plan, mode, options?.out, stream);
  } finally {
    if (owned) idx.close(stream);
    if (flat !== a) flat.close(stream);
  }
}

/**
 * `a` gathered along `axis` by `indices` of the same number of axes (NumPy's `take_along_axis`): the result's
 * element at position p is `a` at p with coordinate `axis` replaced by `indices` at p (the two broadcast against each
 * other on the other axes). For the result of `argsort(a, { axis })`, this sorts `a`.
 */
export function takeAlongAxis(a: DeviceArray, indices: DeviceArray, options: TakeAlongAxisOptions): DeviceArray {
  const what = "takeAlongAxis";
  checkArray(a, what);
  checkIndexOperand(indices, what);
  if (!(indices instanceof DeviceArray)) throw new TypeError(`${what}: indices are an integer DeviceArray`);
  if (options === undefined || options === null || typeof options !== "object") throw new TypeError(`${what} takes options { axis, mode?, out?, stream? }`);
  const mode = checkMode(options.mode, what);
  const axis = normalizeAxis(options.axis, a.ndim, what);
  const plan = takeAlongAxisPlan(a.shape, a.strides, indices.shape, indices.strides, axis);
  checkGather(what, a, plan, options.out);
  const stream = operationStream(what, options, [a, indices, ...(options.out !== undefined ? [options.out] : [])]);
  return gather(what, a, indices, plan, mode, options.out, stream);
}

// ---- put ----

/** Checks `values` (an array, or a scalar that `dtype` holds) before anything is queued. */
function checkValues(values: unknown, dtype: DType, what: string): void {
  if (values instanceof DeviceArray) {
    checkArray(values, `${what}: values`);
    if (values.size === 0) throw new ShapeMismatchError(`${what}: values is empty; give at least one value`);
    return;
  }
  if (typeof values !== "number" && typeof values !== "bigint" && typeof values !== "boolean" && !Array.isArray(values)) {
    throw new TypeError(`${what}: values is a DeviceArray or a scalar, not ${describeValue(values)}`);
  }
  encodeElement(dtype, values as ArrayScalar);
}

/** `values` as a contiguous array of `dtype` with at least one element (a scalar becomes one element). */
function valuesArray(values: DeviceArray | ArrayScalar, dtype: DType, what: string, stream: Stream): { array: DeviceArray; owned: boolean } {
  if (values instanceof DeviceArray) {
    checkArray(values, `${what}: values`);
    if (values.size === 0) throw new ShapeMismatchError(`${what}: values is empty; give at least one value`);
    if (values.dtype === dtype && values.isContiguous) return { array: values, owned: false };
    const c = DeviceArray.empty(values.shape, dtype, { stream });
    castInto(stream, values, c);
    return { array: c, owned: true };
  }
  return { array: DeviceArray.full([1], values, dtype, { stream }), owned: true };
}

/**
 * Writes `values` into `a` at the flat `indices` (an integer DeviceArray or a list of numbers), in place:
 * `a.flat[indices[j]] = values.flat[j % values.size]` (a scalar: every one), values converted to `a`'s dtype. With
 * repeated indices the last write is not defined (as on the GPU in CuPy). See the module's description for `mode`.
 */
export function put(a: DeviceArray, indices: DeviceArray | readonly number[], values: DeviceArray | ArrayScalar, options?: PutOptions): void {
  const what = "put";
  checkArray(a, what);
  checkWritable(a, what);
  checkIndexOperand(indices, what);
  const mode = checkMode(options?.mode, what);
  checkValues(values, a.dtype, what);
  const count = indices instanceof DeviceArray ? indices.size : indices.length;
  if (count > 0 && a.size === 0) throw new IndexError(`${what}: cannot put into an empty array`);
  const checked = checkedIndices(indices, a.size, mode, what);
  const m = coalesceAxes(a.shape, [a.strides]);
  if (m.shape.length > INDEX_MAX_DIMS) throw new ArrayLayoutError(`${what}: the array's layout needs ${m.shape.length} axes after merging, more than ${INDEX_MAX_DIMS}`);
  const stream = operationStream(what, options, [a, ...(indices instanceof DeviceArray ? [indices] : []), ...(values instanceof DeviceArray ? [values] : [])]);
  if (count === 0) return;
  const { array: idx0, owned: ownIdx } = indexArray(checked, stream);
  const idx = idx0.isContiguous ? idx0 : idx0.copy({ stream });
  const { array: vals, owned: ownVals } = valuesArray(values, a.dtype, what, stream);
  try {
    const k = kernelsFor(stream.device, a.itemsize, idx.dtype);
    run(stream, k.scatter, k.maxGrid, count, [
      a.address,
      idx.address,
      vals.address,
      u64(count),
      u64(vals.size),
      indexLayout(m.shape, m.shape.map(() => 0), m.strides[0]!),
      i64(a.size),
      i32(INDEX_MODES[mode]),
      flagFor(stream).address,
      i32(OPERATIONS.indexOf(what)),
    ]);
  } finally {
    if (idx !== idx0) idx.close(stream);
    if (ownIdx) idx0.close(stream);
    if (ownVals) vals.close(stream);
  }
}

// ---- masks ----

/** A mask as contiguous bool bytes (any dtype: non-zero is true), and whether it was made here (then the caller closes it). */
export function maskBytes(mask: DeviceArray, stream: Stream): { array: DeviceArray; owned: boolean } {
  if (mask.dtype === dtypes.bool && mask.isContiguous) return { array: mask, owned: false };
  const m = DeviceArray.empty(mask.shape, dtypes.bool, { stream });
  castInto(stream, mask, m);
  return { array: m, owned: true };
}

/**
 * The mask's running count of true elements (int64, contiguous) and the total, read back to the host: this
 * synchronises with the stream.
 */
function maskPositions(mask: DeviceArray, stream: Stream): { positions: DeviceArray; count: number } {
  const positions = DeviceArray.empty([mask.size], dtypes.int64, { stream });
  try {
    scanContiguous(stream, "sum", mask, positions);
    const last = viewWith(positions, [1], [1], positions.byteOffset + (mask.size - 1) * 8);
    // The read may throw an error an earlier operation left on the stream (an index out of range found on the device).
    const count = Number((last.toTypedArraySync({ stream }) as BigInt64Array)[0]!);
    return { positions, count };
  } catch (e) {
    positions.close(stream);
    throw e;
  }
}

/** The mask of `a` as contiguous bytes and its running count (closing the bytes if the count fails). */
function maskAndPositions(a: DeviceArray, stream: Stream): { mask: DeviceArray; owned: boolean; positions: DeviceArray; count: number } {
  const { array: mask, owned } = maskBytes(a, stream);
  try {
    return { mask, owned, ...maskPositions(mask, stream) };
  } catch (e) {
    if (owned) mask.close(stream);
    throw e;
  }
}

/** The coordinates of `a`'s non-zero elements: one int64 array per axis (`perAxis`), or one [count, ndim] array. */
function coordinates(what: string, a: DeviceArray, options: ArrayOperationOptions | undefined, perAxis: boolean): DeviceArray[] {
  checkArray(a, what);
  if (a.ndim === 0) throw new ShapeMismatchError(`${what}: a 0-d array has no axes to give indices along; use atleast1d first`);
  if (a.ndim > INDEX_MAX_DIMS) throw new ArrayLayoutError(`${what}: arrays of up to ${INDEX_MAX_DIMS} axes, got ${a.ndim}`);
  const stream = operationStream(what, options, [a]);
  const nd = a.ndim;
  const allocate = (count: number): DeviceArray[] =>
    perAxis ? [...Array(nd).keys()].map(() => DeviceArray.empty([count], dtypes.int64, { stream })) : [DeviceArray.empty([count, nd], dtypes.int64, { stream })];
  if (a.size === 0) return allocate(0);
  const { mask, owned, positions, count } = maskAndPositions(a, stream);
  try {
    const outs = allocate(count);
    const k = kernelsFor(stream.device, 8, dtypes.int64);
    const layout = indexLayout(a.shape, a.shape.map(() => 0), a.shape.map(() => 0));
    for (let axis = 0; axis < nd && count > 0; axis++) {
      const base = perAxis ? outs[axis]!.address : outs[0]!.address + BigInt(8 * axis);
      run(stream, k.coords, k.maxGrid, a.size, [mask.address, positions.address, base, u64(a.size), layout, i64(axis), i64(perAxis ? 1 : nd)]);
    }
    return outs;
  } finally {
    positions.close(stream);
    if (owned) mask.close(stream);
  }
}

/**
 * The indices of `a`'s non-zero elements, one int64 array per axis (NumPy's `nonzero`, and `where(condition)` with one
 * argument), in row-major order. Synchronises with the stream (the count sizes the result).
 */
export function nonzero(a: DeviceArray, options?: ArrayOperationOptions): DeviceArray[] {
  return coordinates("nonzero", a, options, true);
}

/** The indices of `a`'s non-zero elements as one int64 array of shape [count, ndim]. Synchronises with the stream. */
export function argwhere(a: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  return coordinates("argwhere", a, options, false)[0]!;
}

/**
 * The elements of `a` where `condition` is non-zero, flattened (NumPy's `extract`, `a[mask]` for a mask of `a`'s
 * shape): `condition` has `a`'s element count (any dtype). Synchronises with the stream.
 */
export function extract(condition: DeviceArray, a: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  const what = "extract";
  checkArray(condition, `${what}: condition`);
  checkArray(a, what);
  if (condition.size !== a.size) throw new ShapeMismatchError(`${what}: the condition has shape [${condition.shape.join(", ")}] (${condition.size} elements) but the array has shape [${a.shape.join(", ")}] (${a.size}); give them the same size`);
  const m = coalesceAxes(a.shape, [a.strides]);
  if (m.shape.length > INDEX_MAX_DIMS) throw new ArrayLayoutError(`${what}: the array's layout needs ${m.shape.length} axes after merging, more than ${INDEX_MAX_DIMS}`);
  const stream = operationStream(what, options, [a, condition]);
  if (a.size === 0) return DeviceArray.empty([0], a.dtype, { stream });
  const { mask, owned, positions, count } = maskAndPositions(condition, stream);
  try {
    const out = DeviceArray.empty([count], a.dtype, { stream });
    if (count > 0) {
      const k = kernelsFor(stream.device, a.itemsize, dtypes.int64);
      run(stream, k.compact, k.maxGrid, a.size, [a.address, mask.address, positions.address, out.address, u64(a.size), indexLayout(m.shape, m.shape.map(() => 0), m.strides[0]!)]);
    }
    return out;
  } finally {
    positions.close(stream);
    if (owned) mask.close(stream);
  }
}

/**
 * The slices of `a` along `axis` (default: the flattened array) where the 1-d `condition` is non-zero (NumPy's
 * `compress`); `condition` may be shorter than the axis (the rest is not selected). Synchronises with the stream.
 */
export function compress(condition: DeviceArray, a: DeviceArray, options?: CompressOptions): DeviceArray {
  const what = "compress";
  checkArray(condition, `${what}: condition`);
  checkArray(a, what);
  if (condition.ndim !== 1) throw new ShapeMismatchError(`${what}: the condition is 1-d, got shape [${condition.shape.join(", ")}]`);
  const axis = options?.axis === undefined || options.axis === null ? undefined : normalizeAxis(options.axis, a.ndim, what);
  const extent = axis === undefined ? a.size : a.shape[axis]!;
  if (condition.size > extent) throw new ShapeMismatchError(`${what}: the condition has ${condition.size} elements but the axis has ${extent}; give at most as many`);
  const [idx] = nonzero(condition, options?.stream !== undefined ? { stream: options.stream } : undefined);
  const stream = operationStream(what, options, [a, condition]);
  try {
    return take(a, idx!, { stream, ...(axis !== undefined ? { axis } : {}), mode: "clip" });
  } finally {
    idx!.close(stream);
  }
}

/**
 * Writes `values` where `mask` (of `a`'s shape, any dtype: non-zero is true) is true, in place (NumPy's `putmask`):
 * `a.flat[i] = values.flat[i % values.size]` (a scalar: everywhere the mask is true), converted to `a`'s dtype.
 */
export function putMask(a: DeviceArray, mask: DeviceArray, values: DeviceArray | ArrayScalar, options?: ArrayOperationOptions): void {
  const what = "putMask";
  checkArray(a, what);
  checkWritable(a, what);
  checkArray(mask, `${what}: mask`);
  if (!sameShape(mask.shape, a.shape)) throw new ShapeMismatchError(`${what}: the mask has shape [${mask.shape.join(", ")}] but the array has shape [${a.shape.join(", ")}]; give the mask the array's shape`);
  const m = coalesceAxes(a.shape, [a.strides]);
  if (m.shape.length > INDEX_MAX_DIMS) throw new ArrayLayoutError(`${what}: the array's layout needs ${m.shape.length} axes after merging, more than ${INDEX_MAX_DIMS}`);
  checkValues(values, a.dtype, what);
  const stream = operationStream(what, options, [a, mask, ...(values instanceof DeviceArray ? [values] : [])]);
  if (a.size === 0) return;
  const { array: bytes, owned: ownMask } = maskBytes(mask, stream);
  const { array: vals, owned: ownVals } = valuesArray(values, a.dtype, what, stream);
  try {
    const k = kernelsFor(stream.device, a.itemsize, dtypes.int64);
    run(stream, k.putmask, k.maxGrid, a.size, [a.address, bytes.address, vals.address, u64(a.size), u64(vals.size), indexLayout(m.shape, m.shape.map(() => 0), m.strides[0]!)]);
  } finally {
    if (ownMask) bytes.close(stream);
    if (ownVals) vals.close(stream);
  }
}

provideArrayMethods({
  take: (self, indices, options) => take(self, indices, options),
  put: (self, indices, values, options) => put(self, indices, values, options),
});
