/**
 * Sorting arrays: `sort` (a sorted copy) and `argsort` (the int64 indices that sort, stable), along an axis (default
 * the last) or over the flattened array (`axis: null`), as functions of `cuda-ts/array` and DeviceArray methods:
 *
 * ```ts
 * const s = sort(x);                      // or x.sort(): each row of x sorted
 * const order = argsort(x, { axis: 0 });  // int64, the order of each column
 * const flat = x.sort({ axis: null });    // every element, 1-d
 * ```
 *
 * Every dtype sorts: bool, the integers, float16, bfloat16, float32, float64, and complex (by real part, then
 * imaginary part, those with a NaN part last in NumPy's classes: R + nanj, nan + Rj, nan + nanj). NaN sorts last;
 * `-0.0` and `+0.0` are equal (argsort keeps their order). The sort is a
 * radix sort compiled with NVRTC at first use per device and dtype (see sort-kernels.ts).
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { AxisError } from "../errors.ts";
import type { SortOptions } from "../options.ts";
import { provideArrayMethods } from "../methods.ts";
import { describeValue } from "../../../errors/describe.ts";
import { closedError } from "../../memory/scope.ts";
import { driver } from "../../base/driver-state.ts";
import type { CUdeviceptr } from "../../../bindings/driver.ts";
import type { Device } from "../../device.ts";
import type { Kernel } from "../../launch/kernel.ts";
import { launch } from "../../launch/launch.ts";
import { i32, u32 } from "../../launch/scalars.ts";
import type { Stream } from "../../stream.ts";
import { compileKernels, configFor } from "../../kernels/compile.ts";
import { diff } from "./differences.ts";
import { HISTOGRAM_BLOCK, HISTOGRAM_ITEMS, PassFlag, RADIX, SORT_KERNELS, UNIQUE_BLOCK, UNIQUE_CHUNK, UNIQUE_SCAN_BLOCK, onesweepVariant, passTarget, sortKeyType, sortPlan, sortSource, sortTuningKey, type OnesweepVariant, type SortPlan } from "./sort-kernels.ts";

export type { SortOptions } from "../options.ts";

/** The kernels of one sort: histogram, scan and unique, and the onesweep kernel of one variant (none for unique alone). */
interface SortModule {
  readonly histogram: Kernel;
  readonly scan: Kernel;
  readonly uniqueCount: Kernel;
  readonly uniqueScan: Kernel;
  readonly uniqueWrite: Kernel;
  readonly uniqueRuns: Kernel;
  readonly onesweep: Kernel | undefined;
}

const modules = new Map<string, SortModule>();

/** The sort kernels for `dtype` on `device`, with the onesweep kernel of `variant`, compiled at first use. */
function sortModule(device: Device, dtype: DType, variant: OnesweepVariant | undefined): SortModule {
  const name = variant === undefined ? "base" : SORT_KERNELS.onesweep(variant.pairs, variant.wide, variant.rows);
  const key = `${device.id}|${dtype.name}|${name}|${sortTuningKey()}`;
  let m = modules.get(key);
  if (m === undefined || m.histogram.isClosed) {
    const names: string[] = [SORT_KERNELS.histogram, SORT_KERNELS.scan, SORT_KERNELS.uniqueCount, SORT_KERNELS.uniqueScan, SORT_KERNELS.uniqueWrite, SORT_KERNELS.uniqueRuns];
    if (variant !== undefined) names.push(name);
    const source = sortSource(sortKeyType(dtype), variant === undefined ? [] : [variant]);
    const kernels = compileKernels(source, names, device, { fp16: false, bf16: false, complex: false }, {}, `cuda_ts_sort_${dtype.name}_${name}.cu`);
    m = { histogram: kernels[0]!, scan: kernels[1]!, uniqueCount: kernels[2]!, uniqueScan: kernels[3]!, uniqueWrite: kernels[4]!, uniqueRuns: kernels[5]!, onesweep: kernels[6] };
    modules.set(key, m);
  }
  return m;
}

/** What a sort writes: the sorted keys, the indices (within their rows), or both. */
interface SortOutputs {
  readonly keys?: DeviceArray;
  readonly indices?: DeviceArray<"int64">;
  /** Whether `-0.0` sorts (and is stored) as `+0.0` (default: where indices are stored, so equal keys keep their order). */
  readonly canonicalZero?: boolean;
}

/**
 * @internal Sorts the `n` elements of the contiguous array `input` in rows of `rowLength` (each row sorted in place
 * of itself), writing the sorted keys and/or the int64 indices within each row into the contiguous `outputs`.
 * Returns the kernels it ran (undefined for an empty input).
 */
export function sortRows(stream: Stream, input: DeviceArray, rowLength: number, outputs: SortOutputs): SortModule | undefined {
  const n = input.size;
  if (n === 0) return undefined;
  const key = sortKeyType(input.dtype);
  const plan = sortPlan(key, n, rowLength, outputs.indices !== undefined);
  const device = stream.device;
  const mod = sortModule(device, input.dtype, onesweepVariant(plan));
  const onesweep = mod.onesweep!;
  const temps: DeviceArray[] = [];
  const temp = (dtype: DType): DeviceArray => {
    const t = DeviceArray.empty([n], dtype, { stream });
    temps.push(t);
    return t;
  };
  try {
    const scratch = DeviceArray.empty([plan.scratchBytes / 4], dtypes.uint32, { stream });
    temps.push(scratch);
    const base = scratch.address;
    const zeroWords = (plan.scratchBytes - plan.histogramOffset) / 4;
    driver.cuMemsetD32Async((base + BigInt(plan.histogramOffset)) as CUdeviceptr, 0, zeroWords, stream.handle);
    // Where each pass writes: the last pass into the outputs; the passes before alternate with one temporary.
    const finalKeys = outputs.keys?.address ?? (plan.passes >= 3 ? temp(input.dtype).address : 0n);
    const tempKeys = plan.passes >= 2 ? temp(input.dtype).address : 0n;
    const finalVals = plan.pairs ? (outputs.indices?.address ?? (plan.passes >= 3 ? temp(dtypes.int64).address : 0n)) : 0n;
    const tempVals = plan.pairs && plan.passes >= 2 ? temp(dtypes.int64).address : 0n;
    const canonical = (outputs.canonicalZero ?? outputs.indices !== undefined) && (key.kind === "float" || key.kind === "complex") ? PassFlag.CANONICAL_ZERO : 0;

    const histGrid = Math.max(1, Math.min(Math.ceil(n / (HISTOGRAM_BLOCK * HISTOGRAM_ITEMS)), device.properties.multiprocessorCount * 4));
    launch(stream, configFor(histGrid, HISTOGRAM_BLOCK), mod.histogram, [input.address, BigInt(n), BigInt(rowLength), i32(plan.rowPasses), i32(canonical), base + BigInt(plan.histogramOffset)]);
    launch(stream, configFor(plan.passes, RADIX), mod.scan, [base + BigInt(plan.histogramOffset), base + BigInt(plan.startsOffset)]);

    let keysIn = input.address;
    let valsIn = 0n;
    const config = configFor(plan.tiles, plan.block, plan.sharedBytes);
    for (let p = 0; p < plan.passes; p++) {
      const toFinal = passTarget(p, plan.passes) === "final";
      const keysOut = toFinal ? finalKeys : tempKeys;
      const valsOut = toFinal ? finalVals : tempVals;
      let flags = canonical;
      if (p === 0) flags |= PassFlag.FIRST;
      if (p === plan.passes - 1) {
        flags |= PassFlag.LAST;
        if (outputs.keys !== undefined) flags |= PassFlag.STORE_KEYS;
        if (outputs.indices !== undefined) flags |= PassFlag.STORE_VALUES | (plan.rows > 1 ? PassFlag.LOCAL_INDEX : 0);
      }
      launch(stream, config, onesweep, [
        keysIn,
        keysOut,
        valsIn,
        valsOut,
        BigInt(n),
        BigInt(rowLength),
        i32(p),
        i32(flags),
        base + BigInt(plan.startsOffset + p * RADIX * 8),
        base + BigInt(plan.lookbackOffset + p * plan.lookbackPassBytes),
        base + BigInt(plan.countersOffset + p * 4),
      ]);
      keysIn = keysOut;
      valsIn = valsOut;
    }
  } finally {
    for (const t of temps) t.close(stream);
  }
  return mod;
}

/** @internal The plan a sort of `n` elements of `dtype` in rows of `rowLength` follows (for tests and tools). */
export function planOfSort(dtype: DType, n: number, rowLength: number, argsort: boolean): SortPlan {
  return sortPlan(sortKeyType(dtype), n, rowLength, argsort);
}

/** @internal `a` as a DeviceArray that is open; TypeError or the closed-array error naming `action` otherwise. */
export function checkSortable(a: unknown, action: string): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${action} takes a DeviceArray, not ${describeValue(a)}`);
  if (a.isClosed) throw closedError(a, `this DeviceArray (${a.dtype.name} [${a.shape.join(", ")}])`, action);
  return a;
}

/** The axis sorted (null: the flattened array), checked against `ndim`. */
export function sortAxis(axis: unknown, ndim: number, action: string): number | null {
  if (axis === null) return null;
  const ax = axis === undefined ? -1 : axis;
  if (typeof ax !== "number" || !Number.isInteger(ax)) throw new AxisError(`${action}: axis is an integer or null (the flattened array), got ${describeValue(axis)}`);
  if (ax < -ndim || ax >= ndim) {
    throw new AxisError(
      ndim === 0
        ? `${action}: a 0-d array has no axis ${ax}; pass { axis: null } to sort its one element as a 1-d array`
        : `${action}: axis ${ax} is out of range for an array of ${ndim} dimension${ndim === 1 ? "" : "s"} (from ${-ndim} to ${ndim - 1})`,
    );
  }
  return ax < 0 ? ax + ndim : ax;
}

function sortImpl(a: DeviceArray, options: SortOptions | undefined, indices: boolean): DeviceArray {
  const action = indices ? "argsort" : "sort";
  checkSortable(a, action);
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${action} takes its options as an object ({ axis?, stream? }), not ${describeValue(options)}`);
  // NumPy's argsort of a 0-d array sorts it as a 1-d one (axis -1, 0 or None): [0]. Its sort needs axis None.
  const scalarArgsort = indices && a.ndim === 0 && (options?.axis === undefined || options.axis === null || options.axis === 0 || options.axis === -1);
  const axis = scalarArgsort ? null : sortAxis(options?.axis, a.ndim, action);
  const stream = operationStream(action, options, [a]);
  const outDType = indices ? dtypes.int64 : a.dtype;
  // The sorted axis is made the last of a contiguous array (a copy where the layout is not so already).
  const flat = axis === null;
  const last = flat ? 0 : a.ndim - 1;
  const perm = flat ? [] : [...a.shape.keys()].filter((d) => d !== axis).concat([axis]);
  const moved = flat || axis === last ? a : a.transpose(perm);
  const movedShape = flat ? [a.size] : moved.shape;
  const rowLength = flat ? a.size : a.shape[axis]!;
  if (a.size === 0 || rowLength <= 1) {
    const out = DeviceArray.empty(flat ? [a.size] : a.shape, outDType, { stream });
    if (a.size === 0) return out;
    if (indices) out.fill(0n, { stream });
    else out.copyFrom(flat ? a.reshape([1]) : a, { stream }); // flat: rowLength is the size, 1
    return out;
  }
  let input = moved;
  let ownInput = false;
  if (!moved.isContiguous) {
    input = moved.copy({ stream });
    ownInput = true;
  }
  const out = DeviceArray.empty(movedShape, outDType, { stream });
  try {
    sortRows(stream, input, rowLength, indices ? { indices: out as DeviceArray<"int64"> } : { keys: out });
  } catch (e) {
    out.close(stream);
    throw e;
  } finally {
    if (ownInput) input.close(stream);
  }
  if (moved === a || flat) return out;
  // Back to the input's axis order, contiguous.
  const inverse = new Array<number>(perm.length);
  perm.forEach((d, i) => (inverse[d] = i));
  const result = DeviceArray.empty(a.shape, outDType, { stream });
  result.copyFrom(out.transpose(inverse), { stream });
  out.close(stream);
  return result;
}

/**
 * A sorted copy of `a` along `axis` (default -1, the last; `null`: the flattened array, a 1-d result), on the stream
 * of `options` or of `a`. NaN sorts last, complex numbers by real then imaginary part.
 *
 * ```ts
 * const s = sort(x);               // x.sort()
 * const cols = sort(x, { axis: 0 });
 * ```
 */
export function sort<A extends DeviceArray>(a: A, options?: SortOptions): A {
  return sortImpl(a, options, false) as A;
}

/**
 * The int64 indices that sort `a` along `axis` (default -1, the last; `null`: the flattened array), each index
 * within its row; stable: equal elements keep their order (`-0.0` equals `+0.0`; NaNs go last, in their order). A 0-d
 * array gives `[0]` (axis -1, 0 or null), as NumPy's.
 *
 * ```ts
 * const order = argsort(scores);   // scores.argsort()
 * ```
 */
export function argsort(a: DeviceArray, options?: SortOptions): DeviceArray<"int64"> {
  return sortImpl(a, options, true) as DeviceArray<"int64">;
}

/**
 * @internal Sorts the flattened `a` once and returns both the sorted keys and the stable int64 permutation that
 * sorts it (`keys[i] = a.flat[indices[i]]`), for modules that sort values by keys (they gather the values with the
 * indices). Float keys come back with `-0.0` as `+0.0` and NaNs canonical.
 */
export function sortWithIndices(a: DeviceArray, options?: ArrayOperationOptions): { keys: DeviceArray; indices: DeviceArray<"int64"> } {
  checkSortable(a, "sortWithIndices");
  const stream = operationStream("sortWithIndices", options, [a]);
  const n = a.size;
  const keys = DeviceArray.empty([n], a.dtype, { stream });
  const indices = DeviceArray.empty([n], dtypes.int64, { stream });
  if (n === 0) return { keys, indices };
  const input = a.isContiguous ? a : a.copy({ stream });
  try {
    sortRows(stream, input, n, { keys, indices });
  } catch (e) {
    keys.close(stream);
    indices.close(stream);
    throw e;
  } finally {
    if (input !== a) input.close(stream);
  }
  return { keys, indices };
}

/** Options of `unique`: the stream, and which of NumPy's further results come back with the values. */
export interface UniqueOptions extends ArrayOperationOptions {
  /** Whether `indices` comes back: where each value first occurs in the flattened array (NumPy's `return_index`; default false). */
  readonly returnIndex?: boolean;
  /** Whether `inverse` comes back: the index of each element's value among the values (NumPy's `return_inverse`; default false). */
  readonly returnInverse?: boolean;
  /** Whether `counts` comes back: how many elements equal each value (NumPy's `return_counts`; default false). */
  readonly returnCounts?: boolean;
  /**
   * The axis whose distinct sub-arrays are wanted (the rows of a matrix for 0; negative counts from the end), as
   * NumPy's `axis`: `values` keeps the other axes, `indices`, `inverse` and `counts` are along the axis (1-d). Default:
   * the flattened array's distinct elements.
   */
  readonly axis?: number | null;
  /**
   * Whether NaNs count as one value (default true, NumPy's `equal_nan`); false keeps each NaN a value of its own (its
   * own index and count of 1), as `uniqueValues` and the other array-API forms do. Not used with `axis` (rows holding
   * NaN are never equal).
   */
  readonly equalNan?: boolean;
}

/** One of `unique`'s further results: present where option `K` is true, absent where it is false, maybe where a boolean. */
export type UniqueResultPart<O extends UniqueOptions, K extends "returnIndex" | "returnInverse" | "returnCounts", F extends string> = O extends { readonly [P in K]: true }
  ? { readonly [P in F]: DeviceArray<"int64"> }
  : O extends { readonly [P in K]?: false | undefined }
    ? { readonly [P in F]?: undefined }
    : { readonly [P in F]?: DeviceArray<"int64"> };

/**
 * What `unique` gives when `O` asks for any of `returnIndex`, `returnInverse` or `returnCounts`: `values`, the sorted
 * unique elements (1-d, the input's dtype), and the int64 arrays asked for: `indices` (1-d, one per value: the index
 * of its first occurrence in the flattened input, so `values[k]` is `a.flat[indices[k]]`), `inverse` (the input's
 * shape: the index of each element's value, so `a.flat[i]` is `values[inverse.flat[i]]`) and `counts` (1-d, one per
 * value). Each is present exactly where its option is true.
 */
export type UniqueResult<O extends UniqueOptions = UniqueOptions> = { readonly values: DeviceArray } & UniqueResultPart<O, "returnIndex", "indices"> &
  UniqueResultPart<O, "returnInverse", "inverse"> &
  UniqueResultPart<O, "returnCounts", "counts">;

/** @internal The sorted distinct elements of `a` (flattened; NaNs as one, `-0.0` as `+0.0`): one sort, one wait for the count. */
export function uniqueSorted(a: DeviceArray, stream: Stream): DeviceArray {
  const n = a.size;
  if (n === 0) return DeviceArray.empty([0], a.dtype, { stream });
  const input = a.isContiguous ? a : a.copy({ stream });
  const sorted = DeviceArray.empty([n], a.dtype, { stream });
  try {
    const mod = sortRows(stream, input, n, { keys: sorted, canonicalZero: true }) ?? sortModule(stream.device, a.dtype, undefined);
    const blocks = Math.ceil(n / UNIQUE_CHUNK);
    using counts = DeviceArray.empty([blocks], dtypes.uint32, { stream });
    using offsets = DeviceArray.empty([blocks + 1], dtypes.uint64, { stream });
    launch(stream, configFor(blocks, UNIQUE_BLOCK), mod.uniqueCount, [sorted.address, BigInt(n), counts.address]);
    launch(stream, configFor(1, UNIQUE_SCAN_BLOCK), mod.uniqueScan, [counts.address, offsets.address, u32(blocks)]);
    const total = Number(offsets.slice(blocks).toTypedArraySync({ stream })[0]!);
    const out = DeviceArray.empty([total], a.dtype, { stream });
    launch(stream, configFor(blocks, UNIQUE_BLOCK), mod.uniqueWrite, [sorted.address, BigInt(n), offsets.address, out.address]);
    return out;
  } finally {
    sorted.close(stream);
    if (input !== a) input.close(stream);
  }
}

/**
 * `unique` with its further results: one sort of the flattened `a` (carrying the stable permutation where indices or
 * the inverse are asked for), the heads of the runs of equal sorted keys counted and scanned as the plain call does
 * (one wait for the count), then one kernel that writes the values, each head's original index, each run's start and
 * each element's run at its original place; the counts are the differences of the starts.
 */
export function uniqueRuns(a: DeviceArray, stream: Stream, returnIndex: boolean, returnInverse: boolean, returnCounts: boolean): UniqueResult {
  const n = a.size;
  const made: DeviceArray[] = [];
  const temps: DeviceArray[] = [];
  const make = <A extends DeviceArray>(x: A, temp = false): A => {
    (temp ? temps : made).push(x);
    return x;
  };
  try {
    if (n === 0) {
      const empty = (): DeviceArray<"int64"> => make(DeviceArray.empty([0], dtypes.int64, { stream }));
      return {
        values: make(DeviceArray.empty([0], a.dtype, { stream })),
        ...(returnIndex ? { indices: empty() } : {}),
        ...(returnInverse ? { inverse: make(DeviceArray.empty(a.shape, dtypes.int64, { stream })) } : {}),
        ...(returnCounts ? { counts: empty() } : {}),
      };
    }
    const withIndices = returnIndex || returnInverse;
    const input = a.isContiguous ? a : make(a.copy({ stream }), true);
    const sorted = make(DeviceArray.empty([n], a.dtype, { stream }), true);
    const perm = withIndices ? make(DeviceArray.empty([n], dtypes.int64, { stream }), true) : undefined;
    // -0.0 sorts and is stored as +0.0 and every NaN as one NaN, so equal values are equal words (stable with indices).
    const mod = sortRows(stream, input, n, perm === undefined ? { keys: sorted, canonicalZero: true } : { keys: sorted, indices: perm })!;
    const blocks = Math.ceil(n / UNIQUE_CHUNK);
    const headCounts = make(DeviceArray.empty([blocks], dtypes.uint32, { stream }), true);
    const offsets = make(DeviceArray.empty([blocks + 1], dtypes.uint64, { stream }), true);
    launch(stream, configFor(blocks, UNIQUE_BLOCK), mod.uniqueCount, [sorted.address, BigInt(n), headCounts.address]);
    launch(stream, configFor(1, UNIQUE_SCAN_BLOCK), mod.uniqueScan, [headCounts.address, offsets.address, u32(blocks)]);
    const total = Number(offsets.slice(blocks).toTypedArraySync({ stream })[0]!);
    const values = make(DeviceArray.empty([total], a.dtype, { stream }));
    const indices = returnIndex ? make(DeviceArray.empty([total], dtypes.int64, { stream })) : undefined;
    const inverse = returnInverse ? make(DeviceArray.empty(a.shape, dtypes.int64, { stream })) : undefined;
    const starts = returnCounts ? make(DeviceArray.empty([total + 1], dtypes.int64, { stream }), true) : undefined;
    launch(stream, configFor(blocks, UNIQUE_BLOCK), mod.uniqueRuns, [
      sorted.address,
      perm?.address ?? 0n,
      BigInt(n),
      offsets.address,
      values.address,
      indices?.address ?? 0n,
      starts?.address ?? 0n,
      inverse?.address ?? 0n,
    ]);
    const counts = starts === undefined ? undefined : make(diff(starts, { stream }) as DeviceArray<"int64">);
    return { values, ...(indices !== undefined ? { indices } : {}), ...(inverse !== undefined ? { inverse } : {}), ...(counts !== undefined ? { counts } : {}) };
  } catch (e) {
    for (const x of made) x.close(stream);
    throw e;
  } finally {
    for (const t of temps) t.close(stream);
  }
}

provideArrayMethods({
  sort: (self, options) => sort(self, options),
  argsort: (self, options) => argsort(self, options),
});
