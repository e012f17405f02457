/**
 * NumPy's sorting routines beyond `sort` and `argsort`: `partition` and `argpartition` (the kth elements in their
 * sorted places), `lexsort` (an indirect sort by several keys, the last one first) and `sortComplex` (a sort whose
 * result is complex), functions of `cuda-ts/array`.
 *
 * ```ts
 * const p = partition(x, 2);                  // p[..., 2] is the third smallest of each row, smaller ones before it
 * const top = argpartition(scores, -3);       // int64: the 3 largest of each row at the end
 * const order = lexsort([firstNames, surnames]);   // by surname, then by first name
 * const z = sortComplex(x);                   // sorted, as complex64 or complex128
 * ```
 *
 * Each is composed from `sort` and `argsort` (the radix sort of sort.ts: stable, NaN last, complex numbers by real
 * then imaginary part), with `takeAlongAxis` for `lexsort` and `astype` for `sortComplex`; no kernel of its own.
 * `partition` and `argpartition` return the fully sorted axis: a valid partition for every kth at once (NumPy
 * leaves the order within the parts unspecified). Every check comes before anything is queued on the stream, and
 * nothing waits for it.
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { AxisError, IndexError, ShapeMismatchError } from "../errors.ts";
import type { SortOptions } from "../options.ts";
import { ArgumentError } from "../../../errors/base.ts";
import { describeValue } from "../../../errors/describe.ts";
import { normalizeAxis } from "../broadcast.ts";
import { sameShape } from "../layout.ts";
import { astype } from "./cast.ts";
import { checkArrayArgument, checkOneDevice } from "./elementwise.ts";
import { takeAlongAxis } from "./indexing.ts";
import { argsort, sort, sortAxis } from "./sort.ts";

/** The positions `partition` and `argpartition` put in place: one integer or a list of them (negative: from the end). */
export type PartitionKth = number | readonly number[];

/** Options of `lexsort`: the axis sorted along and the stream. */
export interface LexsortOptions extends ArrayOperationOptions {
  /** The axis of the keys sorted along (default -1, the last); there is no flattened form (ravel the keys first). */
  readonly axis?: number;
}

/** Throws the TypeError of options that are not an object, listing `names` (and the stream). */
function checkOptions(options: unknown, what: string, names: readonly string[]): void {
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError(`${what} takes its options as an object ({ ${[...names, "stream"].map((n) => `${n}?`).join(", ")} }), not ${describeValue(options)}`);
  }
}

/** kth as a list of integers (the range is checked by {@link checkKthRange}). */
function kthList(kth: unknown, what: string): number[] {
  const list = typeof kth === "number" ? [kth] : Array.isArray(kth) ? [...(kth as readonly unknown[])] : undefined;
  if (list === undefined) throw new TypeError(`${what}: kth is an integer or a list of integers, not ${describeValue(kth)}`);
  // NumPy refuses an empty list too (TypeError: Partition index must be integer).
  if (list.length === 0) throw new TypeError(`${what}: kth is an empty list; give at least one position to put in place`);
  for (const k of list) {
    if (typeof k !== "number" || !Number.isSafeInteger(k)) throw new TypeError(`${what}: kth holds integers (the positions to put in place), got ${describeValue(k)}`);
  }
  return list as number[];
}

/**
 * Checks every kth against an axis of `n` elements (from -n to n - 1): an IndexError (NumPy's ValueError) otherwise.
 * An empty array takes any kth, as NumPy's does.
 */
function checkKthRange(kths: readonly number[], n: number, size: number, what: string): void {
  if (size === 0) return;
  for (const k of kths) {
    if (k < -n || k >= n) {
      throw new IndexError(`${what}: kth ${k} is out of range for an axis of ${n} element${n === 1 ? "" : "s"}; give kth from ${-n} to ${n - 1}`);
    }
  }
}

/**
 * A copy of `a` partitioned along `axis` (default -1, the last; `null`: the flattened array, a 1-d result) at each
 * `kth` (an integer or a list, negative counting from the end), as NumPy's `partition`: the element at position kth is
 * the one a sort would put there, those before it are not greater, those after it not less. On the stream of
 * `options` or of `a`.
 *
 * The result is the fully sorted axis (`sort(a, { axis })`): a valid partition for every kth; NumPy's order within
 * the parts is unspecified, so its elements there may come in another order. NaN sorts last.
 *
 * ```ts
 * const p = partition(x, 2);                 // [1, 2, 3, 4, 7] of [3, 4, 2, 1, 7]: p[2] = 3
 * const q = partition(x, [0, -1], { axis: 0 });
 * ```
 *
 * @throws TypeError when `a` is not a DeviceArray, kth is not an integer or a list of integers, or the options are
 *   not an object.
 * @throws AxisError when `axis` is out of range (a 0-d `a` needs `axis: null`, as NumPy's).
 * @throws IndexError when a kth is outside the axis, from -n to n - 1 (NumPy's ValueError); an empty `a` takes any kth.
 */
export function partition<A extends DeviceArray>(a: A, kth: PartitionKth, options?: SortOptions): A {
  const what = "partition";
  checkArrayArgument(a, what, "a");
  checkOptions(options, what, ["axis"]);
  const kths = kthList(kth, what);
  const axis = sortAxis(options?.axis, a.ndim, what);
  checkKthRange(kths, axis === null ? a.size : a.shape[axis]!, a.size, what);
  const stream = operationStream(what, options, [a]);
  return sort(a, { axis, stream });
}

/**
 * The int64 indices that partition `a` along `axis` (default -1, the last; `null`: the flattened array) at each `kth`
 * (an integer or a list, negative counting from the end), as NumPy's `argpartition`: `takeAlongAxis(a, result, { axis })`
 * is a partition of `a` (see {@link partition}). On the stream of `options` or of `a`.
 *
 * The result is `argsort(a, { axis })`, the indices that sort the axis fully, stable: equal elements keep their order
 * (NumPy's order within the parts is unspecified). A 0-d `a` is taken as 1-d (axis -1, 0 or null), giving `[0]`,
 * as NumPy's does.
 *
 * ```ts
 * const top3 = argpartition(scores, -3).slice(null, [-3, null]);   // each row's 3 largest, by index
 * ```
 *
 * @throws TypeError when `a` is not a DeviceArray, kth is not an integer or a list of integers, or the options are
 *   not an object.
 * @throws AxisError when `axis` is out of range.
 * @throws IndexError when a kth is outside the axis, from -n to n - 1 (NumPy's ValueError); an empty `a` takes any kth.
 */
export function argpartition(a: DeviceArray, kth: PartitionKth, options?: SortOptions): DeviceArray<"int64"> {
  const what = "argpartition";
  checkArrayArgument(a, what, "a");
  checkOptions(options, what, ["axis"]);
  const kths = kthList(kth, what);
  let axis: number | null;
  if (a.ndim === 0 && options?.axis !== null) {
    // NumPy's argpartition takes a 0-d array as its 1-d ravel, so axis -1 and 0 are in range.
    const ax = options?.axis ?? -1;
    if (typeof ax !== "number" || !Number.isInteger(ax)) throw new AxisError(`${what}: axis is an integer or null (the flattened array), got ${describeValue(ax)}`);
    if (ax !== -1 && ax !== 0) throw new AxisError(`${what}: axis ${ax} is out of range for a 0-d array, which argpartition takes as 1-d (axis -1, 0 or null)`);
    axis = null;
  } else {
    axis = sortAxis(options?.axis, a.ndim, what);
  }
  checkKthRange(kths, axis === null ? a.size : a.shape[axis]!, a.size, what);
  const stream = operationStream(what, options, [a]);
  return argsort(a, { axis, stream });
}

/** The keys of `lexsort`: the arrays of a list, or the sub-arrays along the first axis of one array. */
function lexsortKeys(keys: unknown, what: string): { list: DeviceArray[]; names: string[] } {
  if (keys instanceof DeviceArray) {
    checkArrayArgument(keys, what, "keys");
    if (keys.ndim === 0) {
      throw new ShapeMismatchError(`${what}: keys as one array holds a key per element of its first axis, but a 0-d array has none; pass a list of arrays ([keys]) to sort by one 0-d key`);
    }
    const list = Array.from({ length: keys.shape[0]! }, (_, i) => keys.slice(i));
    return { list, names: list.map((_, i) => `keys[${i}]`) };
  }
  if (!Array.isArray(keys)) throw new TypeError(`${what}: keys are a list of DeviceArrays or one DeviceArray whose first axis runs over the keys, not ${describeValue(keys)}`);
  const names = keys.map((_, i) => `keys[${i}]`);
  return { list: keys.map((k, i) => checkArrayArgument(k, what, names[i]!)), names };
}

/**
 * The int64 indices that sort by several keys along `axis` (default -1, the last), as NumPy's `lexsort`: by the LAST
 * key first, equal elements of it by the key before it, and so on back to the first key; elements equal in every key
 * keep their order (stable). `keys` is a list of arrays of one shape (any dtypes, mixed), or one array whose
 * sub-arrays along the first axis are the keys (the rows of a 2-d array, as NumPy takes a 2-d array). The result has
 * the keys' shape, each index within its slice along `axis` (0-d keys give a 0-d `0`, as NumPy's). Each key sorts in
 * its own order: NaN last, `-0.0` equal to `+0.0`, complex numbers by real then imaginary part, false before true.
 *
 * It takes a stable `argsort` of the first key, then for each later key a stable `argsort` of that key gathered
 * through the order so far (`takeAlongAxis`), and gathers the order through it. On the stream of `options` or of the
 * keys.
 *
 * ```ts
 * const order = lexsort([firstNames, surnames]);   // by surname, then by first name
 * const byRows = lexsort(table);                   // table [k, n]: by table[k - 1], then table[k - 2], ...
 * ```
 *
 * @throws TypeError when `keys` is neither a DeviceArray nor a list of them, or the options are not an object.
 * @throws ArgumentError when there are no keys (an empty list, or an array whose first axis is empty).
 * @throws ShapeMismatchError when the keys' shapes differ (they do not broadcast), or `keys` is a 0-d array.
 * @throws AxisError when `axis` is not an integer or out of range for the keys (0-d keys take -1 and 0).
 * @throws ArrayLayoutError when a key was closed.
 * @throws DeviceMismatchError when the keys (and the stream) are on different devices.
 */
export function lexsort(keys: DeviceArray | readonly DeviceArray[], options?: LexsortOptions): DeviceArray<"int64"> {
  const what = "lexsort";
  const { list, names } = lexsortKeys(keys, what);
  if (list.length === 0) throw new ArgumentError(`${what}: there are no keys; give at least one key array`);
  const shape = list[0]!.shape;
  list.forEach((k, i) => {
    if (!sameShape(k.shape, shape)) {
      throw new ShapeMismatchError(`${what}: ${names[i]} has shape [${k.shape.join(", ")}] but ${names[0]} has [${shape.join(", ")}]; every key has one shape (keys do not broadcast)`);
    }
  });
  checkOptions(options, what, ["axis"]);
  const ax: unknown = options?.axis === undefined ? -1 : options.axis;
  const ndim = shape.length;
  let axis: number;
  if (ndim === 0) {
    if (typeof ax !== "number" || !Number.isInteger(ax)) throw new AxisError(`${what}: axis is an integer, got ${describeValue(ax)}`);
    if (ax !== -1 && ax !== 0) throw new AxisError(`${what}: axis ${ax} is out of range for 0-d keys (axis -1 or 0)`);
    axis = 0;
  } else {
    axis = normalizeAxis(ax, ndim, what);
  }
  const arrays = list.map((k, i) => [names[i]!, k] as const);
  checkOneDevice(what, arrays);
  const stream = operationStream(what, options, list);
  checkOneDevice(what, arrays, stream);
  if (ndim === 0 || list[0]!.size === 0) {
    const out = DeviceArray.empty(shape, dtypes.int64, { stream });
    if (ndim === 0) out.fill(0n, { stream });
    return out;
  }
  let order = argsort(list[0]!, { axis, stream });
  try {
    for (let i = 1; i < list.length; i++) {
      const gathered = takeAlongAxis(list[i]!, order, { axis, mode: "clip", stream });
      let step: DeviceArray<"int64"> | undefined;
      try {
        step = argsort(gathered, { axis, stream });
        const next = takeAlongAxis(order, step, { axis, mode: "clip", stream }) as DeviceArray<"int64">;
        order.close(stream);
        order = next;
      } finally {
        gathered.close(stream);
        step?.close(stream);
      }
    }
  } catch (e) {
    order.close(stream);
    throw e;
  }
  return order;
}

/**
 * The complex dtype `sortComplex` returns for `dtype`, as NumPy's `sort_complex`: complex64 for int8, uint8, int16,
 * uint16 and complex64; complex128 for every other dtype (bool, the wider integers, every float, float32 included).
 */
export function sortComplexDType(dtype: DType): DType<"complex64" | "complex128"> {
  switch (dtype.name) {
    case "int8":
    case "uint8":
    case "int16":
    case "uint16":
    case "complex64":
      return dtypes.complex64;
    default:
      return dtypes.complex128;
  }
}

/**
 * A copy of `a` sorted along its last axis, as complex numbers, as NumPy's `sort_complex`: sorted in `a`'s dtype
 * (by real part, then imaginary part, for complex `a`; NaN last), then converted to complex64 (int8, uint8, int16,
 * uint16, complex64) or complex128 (every other dtype, float32 and float16 included, as NumPy's). On the stream of
 * `options` or of `a`.
 *
 * ```ts
 * const z = sortComplex(x);   // float32 [3, 1, 2] → complex128 [1+0j, 2+0j, 3+0j]
 * ```
 *
 * @throws TypeError when `a` is not a DeviceArray, or the options are not an object.
 * @throws AxisError when `a` is 0-d (it has no last axis, as in NumPy).
 */
export function sortComplex(a: DeviceArray, options?: ArrayOperationOptions): DeviceArray<"complex64" | "complex128"> {
  const what = "sortComplex";
  checkArrayArgument(a, what, "a");
  checkOptions(options, what, []);
  if (a.ndim === 0) throw new AxisError(`${what}: a 0-d array has no last axis to sort along; reshape it to [1] first`);
  const to = sortComplexDType(a.dtype);
  const stream = operationStream(what, options, [a]);
  if (a.size === 0) return DeviceArray.empty(a.shape, to, { stream });
  const sorted = sort(a, { stream });
  if (sorted.dtype === to) return sorted as DeviceArray<"complex64" | "complex128">;
  try {
    return astype(sorted, to, { stream });
  } finally {
    sorted.close(stream);
  }
}
