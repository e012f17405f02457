/**
 * NumPy 2's array-API forms of `unique`: `uniqueValues`, `uniqueCounts`, `uniqueInverse` and `uniqueAll`. They are
 * `unique` with NumPy's `equal_nan=False`: each NaN is a value of its own (count 1, its own index, its own slot in
 * the inverse), where `unique` merges every NaN into one. Values come back sorted (NumPy 2.3 and later leaves their
 * order unspecified; sorted is one such order), the NaNs last in NumPy's sort order of them.
 *
 * ```ts
 * const { values, counts } = uniqueCounts(labels);
 * const { values, inverseIndices } = uniqueInverse(x);      // x's shape: x.flat[i] is values[inverseIndices.flat[i]]
 * const all = uniqueAll(x);                                 // { values, indices, inverseIndices, counts }
 * ```
 *
 * Each is one `unique` (one sort, one wait for the count) and, for float and complex arrays holding two NaNs or more,
 * a few more operations on the device to give each NaN its own entry (`flatnonzero` of `isnan`, a second wait for the
 * NaNs' count, a stable `argsort` of the NaNs, `concatenate`, `cumsum`, `take`, `put`, `where`).
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypes } from "../dtype.ts";
import { describeValue } from "../../../errors/describe.ts";
import type { Stream } from "../../stream.ts";
import { add, sub } from "./arithmetic.ts";
import { arange, ones } from "./creation.ts";
import { put, take } from "./indexing.ts";
import { flatnonzero } from "./index-helpers.ts";
import { isnan } from "./math.ts";
import { cumsum } from "./scan.ts";
import { where } from "./selection.ts";
import { checkArray, concatenate, ravel } from "./shape.ts";
import { argsort, uniqueRuns, uniqueSorted, type UniqueResult } from "./sort.ts";
import { withTemporaries } from "./temporaries.ts";

/** What `uniqueCounts` gives: the values and how many elements equal each (NaNs: 1 each). */
export interface UniqueCountsResult {
  readonly values: DeviceArray;
  readonly counts: DeviceArray<"int64">;
}

/** What `uniqueInverse` gives: the values and, in the input's shape, the index of each element's value. */
export interface UniqueInverseResult {
  readonly values: DeviceArray;
  readonly inverseIndices: DeviceArray<"int64">;
}

/** What `uniqueAll` gives: the values, each one's first index in the flattened input, the inverse and the counts. */
export interface UniqueAllResult {
  readonly values: DeviceArray;
  readonly indices: DeviceArray<"int64">;
  readonly inverseIndices: DeviceArray<"int64">;
  readonly counts: DeviceArray<"int64">;
}

/** unique's results: the values and the int64 arrays asked for. */
interface Parts {
  values: DeviceArray;
  indices?: DeviceArray<"int64">;
  inverse?: DeviceArray<"int64">;
  counts?: DeviceArray<"int64">;
}

function checkOptions(options: unknown, what: string): void {
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes options { stream? }, not ${describeValue(options)}`);
}

/**
 * `unique` of `x` with each NaN a value of its own: unique's results, and where `x` holds two NaNs or more, its one
 * merged NaN (the last value) replaced by one entry per NaN, in NumPy's sort order of them (stable).
 */
function uniqueEachNaN(what: string, x: DeviceArray, want: { indices: boolean; inverse: boolean; counts: boolean }, options: ArrayOperationOptions | undefined): Parts {
  checkArray(x, what);
  checkOptions(options, what);
  return uniqueSplittingNaNs(x, operationStream(what, options, [x]), want);
}

/**
 * @internal `unique`'s results for `x` (flattened, checked) on `stream`, each NaN a value of its own: the arrays
 * `want` asks for beside the values; nothing is left open if it throws.
 */
export function uniqueSplittingNaNs(x: DeviceArray, stream: Stream, want: { indices: boolean; inverse: boolean; counts: boolean }): Parts {
  const parts = (want.indices || want.inverse || want.counts ? { ...uniqueRuns(x, stream, want.indices, want.inverse, want.counts) } : { values: uniqueSorted(x, stream) }) as Parts;
  if (x.dtype.kind !== "f" && x.dtype.kind !== "c") return parts;
  try {
    return splitNaNs(x, parts, stream);
  } catch (e) {
    for (const a of Object.values(parts)) a?.close(stream);
    throw e;
  }
}

/** `parts` (unique's results for `x`) with their merged NaN split into one entry per NaN of `x` (closing the arrays it replaces). */
function splitNaNs(x: DeviceArray, parts: Parts, stream: Stream): Parts {
  return withTemporaries(stream, (temp) => {
    const flat = ravel(x, { stream });
    if (flat.base === undefined) temp(flat); // ravel's own copy of a strided x
    const nan = temp(isnan(flat, { stream }));
    const nanAt = temp(flatnonzero(nan, { stream })); // synchronises: the NaNs' count sizes the entries
    const count = nanAt.size;
    if (count <= 1) return parts; // one NaN is one value either way
    const kept = parts.values.size - 1; // unique's values: every number, then the merged NaN
    // The NaNs in NumPy's sort order (floats: their own order; complex: by parts), their positions along.
    const order = temp(argsort(temp(take(flat, nanAt, { stream })), { stream }));
    const nanPositions = temp(take(nanAt, order, { stream }));
    const head = (a: DeviceArray): DeviceArray => a.slice([0, kept]);
    const out: Parts = { values: concatenate([head(parts.values), temp(take(flat, nanPositions, { stream }))], { stream }) };
    try {
      if (parts.indices !== undefined) out.indices = concatenate([head(parts.indices), nanPositions], { stream }) as DeviceArray<"int64">;
      if (parts.counts !== undefined) out.counts = concatenate([head(parts.counts), temp(ones([count], { stream, dtype: "int64" }))], { stream }) as DeviceArray<"int64">;
      if (parts.inverse !== undefined) {
        // The j-th NaN in x's order takes slot kept + (its rank in the sorted order): rank[order[r]] = r.
        const rank = temp(DeviceArray.empty([count], dtypes.int64, { stream }));
        put(rank, order, temp(arange(count, { stream })), { stream });
        const nth = temp(cumsum(nan, { stream })); // int64, as every bool scan
        sub(nth, 1, { stream, out: nth });
        const slot = temp(take(rank, nth, { stream, mode: "clip" }));
        add(slot, kept, { stream, out: slot });
        const inverse = DeviceArray.empty(x.shape, dtypes.int64, { stream });
        out.inverse = inverse;
        where(nan, slot, parts.inverse.reshape([x.size]), { stream, out: inverse.reshape([x.size]) });
      }
    } catch (e) {
      for (const a of Object.values(out)) a?.close(stream);
      throw e;
    }
    for (const a of Object.values(parts)) a?.close(stream);
    return out;
  });
}

/**
 * The unique values of `x` (flattened), each NaN one of its own, as NumPy 2's `unique_values` (`unique` with
 * `equal_nan=False`): a new 1-d array of `x`'s dtype, sorted, the NaNs last. Waits for the stream (the count sizes
 * the result).
 *
 * ```ts
 * uniqueValues(x);          // [3, NaN, 1, NaN, 3] → [1, 3, NaN, NaN]
 * ```
 */
export function uniqueValues(x: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  return uniqueEachNaN("uniqueValues", x, { indices: false, inverse: false, counts: false }, options).values;
}

/**
 * The unique values of `x` (flattened) and how many elements equal each, as NumPy 2's `unique_counts` (each NaN a
 * value of its own, count 1): `{ values, counts }`, counts int64. Waits for the stream.
 *
 * ```ts
 * const { values, counts } = uniqueCounts(labels);   // [2, 1, 2] → values [1, 2], counts [1, 2]
 * ```
 */
export function uniqueCounts(x: DeviceArray, options?: ArrayOperationOptions): UniqueCountsResult {
  const r = uniqueEachNaN("uniqueCounts", x, { indices: false, inverse: false, counts: true }, options);
  return { values: r.values, counts: r.counts! };
}

/**
 * The unique values of `x` (flattened) and the index of each element's value, as NumPy 2's `unique_inverse` (each
 * NaN a value of its own): `{ values, inverseIndices }`, the inverse int64 in `x`'s shape (`x.flat[i]` is
 * `values[inverseIndices.flat[i]]`). Waits for the stream.
 *
 * ```ts
 * const { values, inverseIndices } = uniqueInverse(x);   // [[3, 1], [1, 2]] → [1, 2, 3], [[2, 0], [0, 1]]
 * ```
 */
export function uniqueInverse(x: DeviceArray, options?: ArrayOperationOptions): UniqueInverseResult {
  const r = uniqueEachNaN("uniqueInverse", x, { indices: false, inverse: true, counts: false }, options);
  return { values: r.values, inverseIndices: r.inverse! };
}

/**
 * The unique values of `x` (flattened) with every further result, as NumPy 2's `unique_all` (each NaN a value of its
 * own): `{ values, indices, inverseIndices, counts }`: `indices` the first occurrence of each value in the flattened
 * `x` (each NaN's own position), the inverse in `x`'s shape, the counts; int64. Waits for the stream.
 *
 * ```ts
 * const { values, indices, inverseIndices, counts } = uniqueAll(x);
 * ```
 */
export function uniqueAll(x: DeviceArray, options?: ArrayOperationOptions): UniqueAllResult {
  const r = uniqueEachNaN("uniqueAll", x, { indices: true, inverse: true, counts: true }, options);
  return { values: r.values, indices: r.indices!, inverseIndices: r.inverse!, counts: r.counts! };
}
