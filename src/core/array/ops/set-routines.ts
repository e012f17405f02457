/**
 * NumPy's 1-d set routines: `union1d`, `intersect1d`, `setdiff1d` and `setxor1d`, functions of `cuda-ts/array`.
 *
 * ```ts
 * const all = union1d(a, b);                  // the sorted unique elements of both
 * const both = intersect1d(a, b);             // those in both
 * const onlyA = setdiff1d(a, b);              // those of a not in b
 * const either = setxor1d(a, b);              // those in exactly one
 * const { values, indices1, indices2 } = intersect1d(a, b, { returnIndices: true });
 * ```
 *
 * Each is NumPy 2.4's algorithm written with operations of this library (no kernels of its own): `unique` of each
 * input (or the flattened input with `assumeUnique`), `concatenate` (the dtypes promote), `sort` or a stable
 * `argsort`, a comparison of neighbours (`eq`, `ne`), and a selection by mask (`extract`, or `nonzero` and `take`).
 * `setdiff1d` is `unique(a)` where `isin(…, b, { invert: true })`. So their results are NumPy's, NaNs included: NaN
 * equals nothing, so a NaN is never in an intersection, `setdiff1d` keeps `a`'s NaN, and `setxor1d` keeps the NaN of
 * each input. Each reads a count to the host (the size of its result), so each waits for its stream.
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { operationType } from "../promotion.ts";
import { describeValue } from "../../../errors/describe.ts";
import type { Stream } from "../../stream.ts";
import { eq, logicalAnd, ne, sub } from "./arithmetic.ts";
import { checkArrayArgument, checkOneDevice } from "./elementwise.ts";
import { extract, nonzero, take } from "./indexing.ts";
import { isin } from "./sets.ts";
import { concatenate, ravel } from "./shape.ts";
import { argsort, sort } from "./sort.ts";
import { unique } from "./unique.ts";
import { withTemporaries } from "./temporaries.ts";

/** Options of `setdiff1d` and `setxor1d` (and, with `returnIndices`, of `intersect1d`). */
export interface SetRoutineOptions extends ArrayOperationOptions {
  /**
   * Whether the inputs may be taken as unique already (NumPy's `assume_unique`; default false): their `unique` is not
   * computed, which saves a sort each. Inputs that are not unique then give what NumPy gives for them (repeated values
   * may come back, and `setdiff1d` keeps `a`'s order), except that `setdiff1d` keeps every repeat of a value of `a`
   * not in `b`, as NumPy's does for a small `b` (its sort-based path for a large one may drop all but one).
   */
  readonly assumeUnique?: boolean;
}

/** Options of `intersect1d`: `assumeUnique`, and whether the indices of the common values come back too. */
export interface Intersect1dOptions extends SetRoutineOptions {
  /** Whether `{ values, indices1, indices2 }` comes back instead of the values alone (NumPy's `return_indices`; default false). */
  readonly returnIndices?: boolean;
}

/**
 * What `intersect1d` gives with `returnIndices: true`: the sorted common values, and for each the int64 index of its
 * first occurrence in the flattened `a` (`indices1`) and in the flattened `b` (`indices2`), so `values[k]` equals
 * `a.flat[indices1[k]]` and `b.flat[indices2[k]]`. With `assumeUnique`, the index of the occurrence that was used.
 */
export interface Intersect1dResult {
  /** The sorted common values, 1-d, the dtype `a` and `b` promote to. */
  readonly values: DeviceArray;
  /** int64, one per value: where it is in the flattened `a`. */
  readonly indices1: DeviceArray<"int64">;
  /** int64, one per value: where it is in the flattened `b`. */
  readonly indices2: DeviceArray<"int64">;
}

/** The checks every set routine makes before anything is queued; returns the stream and the result dtype. */
function prepare(what: string, a: unknown, b: unknown, options: unknown, flags: readonly string[]): { stream: Stream; dtype: DType; flag: (name: string) => boolean } {
  const x = checkArrayArgument(a, what, "a");
  const y = checkArrayArgument(b, what, "b");
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError(`${what} takes its options as an object ({ ${[...flags, "stream"].map((f) => `${f}?`).join(", ")} }), not ${describeValue(options)}`);
  }
  const values = new Map<string, boolean>();
  for (const name of flags) {
    const v = (options as Record<string, unknown> | undefined)?.[name] ?? false;
    if (typeof v !== "boolean") throw new TypeError(`${what}: ${name} is a boolean, not ${describeValue(v)}`);
    values.set(name, v);
  }
  const arrays = [["a", x], ["b", y]] as const;
  checkOneDevice(what, arrays);
  const dtype = operationType([x, y], what);
  const stream = operationStream(what, options as ArrayOperationOptions | undefined, [x, y]);
  checkOneDevice(what, arrays, stream);
  return { stream, dtype, flag: (name) => values.get(name) ?? false };
}


/**
 * The sorted unique elements of `a` and `b` together (both flattened), as NumPy's `union1d`: a new 1-d array of the
 * dtype they promote to. NaNs count as one value (the last), `-0.0` and `+0.0` as one, as in `unique`. Reads the
 * count to the host, so it waits for the stream.
 *
 * ```ts
 * const labels = union1d(trainLabels, testLabels);   // e.g. [0, 1, 2, 5] of int32 [[5, 1], [1, 0]] and [2, 0]
 * ```
 *
 * @throws TypeError when `a` or `b` is not a DeviceArray, or the options are not an object.
 * @throws ArrayLayoutError when either was closed.
 * @throws DeviceMismatchError when the arrays (and the stream) are on different devices.
 */
export function union1d(a: DeviceArray, b: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  const what = "union1d";
  const { stream } = prepare(what, a, b, options, []);
  return withTemporaries(stream, (temp) => unique(temp(concatenate([a, b], { axis: null, stream })), { stream }));
}

/**
 * The sorted values found in both `a` and `b` (both flattened), as NumPy's `intersect1d`: a new 1-d array of the
 * dtype they promote to, each value once (with `assumeUnique`, inputs that repeat a value may give it more than once,
 * as NumPy's). NaN is never in both (NaN equals nothing). A zero comes back as +0 (NumPy may give -0, as `unique`
 * makes every zero +0). Reads a count to the host, so it waits for the stream.
 *
 * With `returnIndices: true` (NumPy's `return_indices`) it returns `{ values, indices1, indices2 }` (see
 * {@link Intersect1dResult}): the int64 indices of each value's first occurrence in the flattened `a` and `b`.
 *
 * ```ts
 * const common = intersect1d(a, b);   // [1, 3] of [1, 3, 4, 3] and [3, 1, 2, 1]
 * const { values, indices1, indices2 } = intersect1d(a, b, { returnIndices: true });   // [1, 3], [0, 1], [1, 0]
 * ```
 *
 * @throws TypeError when `a` or `b` is not a DeviceArray, or an option is not a boolean.
 * @throws ArrayLayoutError when either was closed.
 * @throws DeviceMismatchError when the arrays (and the stream) are on different devices.
 */
export function intersect1d(a: DeviceArray, b: DeviceArray, options?: Intersect1dOptions & { readonly returnIndices?: false }): DeviceArray;
/** The common values of `a` and `b` with their indices in each (see the first overload). */
export function intersect1d(a: DeviceArray, b: DeviceArray, options: Intersect1dOptions & { readonly returnIndices: true }): Intersect1dResult;
/** The common values of `a` and `b`, with their indices where `options.returnIndices` is true (see the first overload). */
export function intersect1d(a: DeviceArray, b: DeviceArray, options?: Intersect1dOptions): DeviceArray | Intersect1dResult;
export function intersect1d(a: DeviceArray, b: DeviceArray, options?: Intersect1dOptions): DeviceArray | Intersect1dResult {
  const what = "intersect1d";
  const { stream, dtype, flag } = prepare(what, a, b, options, ["assumeUnique", "returnIndices"]);
  const assumeUnique = flag("assumeUnique");
  if (flag("returnIndices")) return intersectWithIndices(a, b, assumeUnique, dtype, stream);
  return withTemporaries(stream, (temp) => {
    const ua = assumeUnique ? a : temp(unique(a, { stream }));
    const ub = assumeUnique ? b : temp(unique(b, { stream }));
    // NumPy: aux = sort(concatenate(ua, ub)); aux[:-1][aux[1:] == aux[:-1]].
    const aux = temp(concatenate([ua, ub], { axis: null, stream }));
    if (aux.size < 2) {
      stream.sync(); // no count to read, but the wait is promised all the same
      return DeviceArray.empty([0], dtype, { stream });
    }
    const sorted = temp(sort(aux, { axis: null, stream }));
    const head = sorted.slice([0, -1]);
    const same = temp(eq(sorted.slice([1, null]), head, { stream }));
    return extract(same, head, { stream });
  });
}

/**
 * `intersect1d` with `returnIndices`, as NumPy's: a stable argsort of the concatenated (unique) inputs, the positions
 * where a sorted value equals the next, and the values and both indices taken there (one wait, for the count).
 */
function intersectWithIndices(a: DeviceArray, b: DeviceArray, assumeUnique: boolean, dtype: DType, stream: Stream): Intersect1dResult {
  const made: DeviceArray[] = [];
  const make = <A extends DeviceArray>(x: A): A => {
    made.push(x);
    return x;
  };
  try {
    return withTemporaries(stream, (temp) => {
      const ra = assumeUnique ? undefined : unique(a, { returnIndex: true, stream });
      if (ra !== undefined) [ra.values, ra.indices].forEach(temp);
      const rb = assumeUnique ? undefined : unique(b, { returnIndex: true, stream });
      if (rb !== undefined) [rb.values, rb.indices].forEach(temp);
      const ua = ra?.values ?? a;
      const ub = rb?.values ?? b;
      const aux = temp(concatenate([ua, ub], { axis: null, stream }));
      if (aux.size < 2) {
        stream.sync(); // no count to read, but the wait is promised all the same
        const none = (): DeviceArray<"int64"> => make(DeviceArray.empty([0], dtypes.int64, { stream }));
        return { values: make(DeviceArray.empty([0], dtype, { stream })), indices1: none(), indices2: none() };
      }
      // Stable, as NumPy's mergesort: of two equal values, ua's comes first. Every index taken below is in range by
      // construction, so "clip" (which leaves the device's range record alone) changes nothing.
      const order = temp(argsort(aux, { axis: null, stream }));
      const sorted = temp(take(aux, order, { mode: "clip", stream }));
      const same = temp(eq(sorted.slice([1, null]), sorted.slice([0, -1]), { stream }));
      const at = temp(nonzero(same, { stream })[0]!);
      const values = make(take(sorted, at, { mode: "clip", stream }));
      // Where the pair's first is in ua, and where its second is in ub.
      const inA = take(order, at, { mode: "clip", stream }) as DeviceArray<"int64">;
      const indices1 = make(ra === undefined ? inA : (take(ra.indices, temp(inA), { mode: "clip", stream }) as DeviceArray<"int64">));
      const second = temp(take(order.slice([1, null]), at, { mode: "clip", stream }));
      const inB = sub(second, ua.size, { stream }) as DeviceArray<"int64">;
      const indices2 = make(rb === undefined ? inB : (take(rb.indices, temp(inB), { mode: "clip", stream }) as DeviceArray<"int64">));
      return { values, indices1, indices2 };
    });
  } catch (e) {
    for (const x of made) x.close(stream);
    throw e;
  }
}

/**
 * The sorted unique values of `a` (flattened) that are not in `b`, as NumPy's `setdiff1d`: a new 1-d array of `a`'s
 * dtype (the values are compared in the dtype `a` and `b` promote to, as `isin` compares: int64 and uint64 promote to
 * float64, so integers beyond 2^53 may compare equal where NumPy, comparing them exactly, keeps them). NaN is never in `b`, so
 * `a`'s NaN stays. With `assumeUnique`, `a`'s elements in their order (not sorted, not made unique), as NumPy's. Reads a
 * count to the host, so it waits for the stream.
 *
 * ```ts
 * const unseen = setdiff1d(ids, seen);   // [2, 4] of [4, 1, 2, 1] and [1, 3]
 * ```
 *
 * @throws TypeError when `a` or `b` is not a DeviceArray, or `assumeUnique` is not a boolean.
 * @throws ArrayLayoutError when either was closed.
 * @throws DeviceMismatchError when the arrays (and the stream) are on different devices.
 */
export function setdiff1d(a: DeviceArray, b: DeviceArray, options?: SetRoutineOptions): DeviceArray {
  const what = "setdiff1d";
  const { stream, flag } = prepare(what, a, b, options, ["assumeUnique"]);
  const assumeUnique = flag("assumeUnique");
  return withTemporaries(stream, (temp) => {
    // With assumeUnique, a itself (extract flattens it), or a 1-d view of a 0-d a.
    const ua = assumeUnique ? (a.ndim === 0 ? temp(ravel(a, { stream })) : a) : temp(unique(a, { stream }));
    // NumPy's unique(b) changes nothing isin finds: isin sorts b itself.
    const absent = temp(isin(ua, b, { invert: true, stream }));
    return extract(absent, ua, { stream });
  });
}

/**
 * The sorted values found in exactly one of `a` and `b` (both flattened), as NumPy's `setxor1d`: a new 1-d array of
 * the dtype they promote to. As NumPy's, a NaN of each input stays (NaN equals nothing: `setxor1d([1, NaN], [NaN])`
 * is `[1, NaN, NaN]`), and with `assumeUnique` a value repeated within one input counts as in both. A zero comes back
 * as +0 (`unique` makes every zero +0). Reads a count to the host, so it waits for the stream.
 *
 * ```ts
 * const changed = setxor1d(before, after);   // [1, 4] of [1, 2, 3] and [2, 3, 4]
 * ```
 *
 * @throws TypeError when `a` or `b` is not a DeviceArray, or `assumeUnique` is not a boolean.
 * @throws ArrayLayoutError when either was closed.
 * @throws DeviceMismatchError when the arrays (and the stream) are on different devices.
 */
export function setxor1d(a: DeviceArray, b: DeviceArray, options?: SetRoutineOptions): DeviceArray {
  const what = "setxor1d";
  const { stream, flag } = prepare(what, a, b, options, ["assumeUnique"]);
  const assumeUnique = flag("assumeUnique");
  return withTemporaries(stream, (temp) => {
    const ua = assumeUnique ? a : temp(unique(a, { stream }));
    const ub = assumeUnique ? b : temp(unique(b, { stream }));
    const aux = concatenate([ua, ub], { axis: null, stream });
    const n = aux.size;
    if (n < 2) {
      stream.sync(); // nothing to compare (each value is in one input), no count to read: the promised wait
      return aux;
    }
    temp(aux);
    // NumPy: flag = [True, aux[1:] != aux[:-1], True]; aux[flag[1:] & flag[:-1]] of the sorted aux.
    const sorted = temp(sort(aux, { axis: null, stream }));
    const differs = temp(ne(sorted.slice([1, null]), sorted.slice([0, n - 1]), { stream }));
    const edge = temp(DeviceArray.full([1], true, dtypes.bool, { stream }));
    const flags = temp(concatenate([edge, differs, edge], { stream }));
    const keep = temp(logicalAnd(flags.slice([1, null]), flags.slice([0, n]), { stream }));
    return extract(keep, sorted, { stream });
  });
}
