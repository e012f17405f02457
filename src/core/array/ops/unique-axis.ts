/**
 * `unique` along an axis (NumPy's `unique(a, axis=k)`): the distinct sub-arrays along that axis, the rows of a
 * matrix for axis 0, in lexicographic order. Rows are compared element by element as NumPy 2 compares them: `-0.0`
 * equals `+0.0`, and a row holding NaN equals no other row (each stays), NaN sorting after every number.
 *
 * Built from the array operations: the sub-arrays are the rows of an `[n, m]` matrix (a copy unless `a` is laid out
 * so), ordered by a stable `lexsort` of its columns (the first column the primary key), gathered (`take`), compared
 * with their predecessors (`ne`, `any`), and the heads of the runs of equal rows found with `flatnonzero` (which reads their count back, so
 * this waits for the stream once). The further results come from the same order: the first occurrence of each row
 * (the sort is stable), the run of each row (`cumsum` of the heads, `put` through the order) and the runs' lengths.
 *
 * @module
 */
import { DeviceArray } from "../device-array.ts";
import { elementCount } from "../layout.ts";
import type { Stream } from "../../stream.ts";
import { ne, sub } from "./arithmetic.ts";
import { copy } from "./creation.ts";
import { diff } from "./differences.ts";
import { flatnonzero } from "./index-helpers.ts";
import { put, take } from "./indexing.ts";
import { cumsum } from "./scan.ts";
import { concatenate, flip, moveaxis } from "./shape.ts";
import { lexsort } from "./sort-routines.ts";
import { any } from "./statistics.ts";
import { withTemporaries } from "./temporaries.ts";

/** What `unique` along an axis gives: the distinct sub-arrays, and the int64 arrays asked for (each 1-d). */
export interface UniqueAlongAxis {
  readonly values: DeviceArray;
  readonly indices?: DeviceArray<"int64">;
  readonly inverse?: DeviceArray<"int64">;
  readonly counts?: DeviceArray<"int64">;
}

/**
 * @internal The distinct sub-arrays of `a` along axis `ax` (normalised: 0 to ndim - 1) and the results asked for, on `stream`:
 * `values` has `a`'s shape with that axis as long as the count of distinct sub-arrays; `indices` the first
 * occurrence of each, `inverse` (of length `a.shape[ax]`) the distinct sub-array each one is, `counts` how many.
 */
export function uniqueAlongAxis(a: DeviceArray, ax: number, stream: Stream, want: { indices: boolean; inverse: boolean; counts: boolean }): UniqueAlongAxis {
  const n = a.shape[ax]!;
  const m = elementCount(a.shape.filter((_, d) => d !== ax));
  const int64 = "int64" as const;
  const made: DeviceArray[] = [];
  const keep = <A extends DeviceArray>(x: A): A => {
    made.push(x);
    return x;
  };
  try {
    if (n === 0 || m === 0) {
      // No sub-arrays: nothing. Empty sub-arrays: all equal, one distinct (NumPy's shape (1, 0) for a (3, 0) array).
      const k = n === 0 ? 0 : 1;
      const shape = a.shape.map((e, d) => (d === ax ? k : e));
      return {
        values: keep(DeviceArray.empty(shape, a.dtype, { stream })),
        ...(want.indices ? { indices: keep(DeviceArray.zeros([k], int64, { stream })) } : {}),
        ...(want.inverse ? { inverse: keep(DeviceArray.zeros([n], int64, { stream })) } : {}),
        ...(want.counts ? { counts: keep(DeviceArray.full([k], n, int64, { stream })) } : {}),
      };
    }
    return withTemporaries(stream, (temp) => {
      // The sub-arrays as the rows of an [n, m] matrix: a view where `a` already lays them out so, else a copy.
      const moved = moveaxis(a, ax, 0);
      const rows = (moved.isContiguous ? moved : temp(copy(moved, { stream }))).reshape(n, m);
      // lexsort's last key is its primary: the columns reversed make column 0 the primary key.
      const order = temp(lexsort(flip(rows.T, { axis: 0 }), { stream }));
      const sorted = temp(take(rows, order, { axis: 0, stream }));
      const first = temp(DeviceArray.full([1], true, "bool", { stream }));
      const heads = n === 1 ? first : temp(concatenate([first, temp(any(temp(ne(sorted.slice([1, null]), sorted.slice([0, -1]), { stream })), { axis: 1, stream }))], { stream }));
      const starts = temp(flatnonzero(heads, { stream }));
      // Each distinct sub-array's first occurrence (the sort is stable), and the sub-arrays there, taken from `a`.
      const firstAt = take(order, starts, { stream }) as DeviceArray<"int64">;
      const indices = want.indices ? keep(firstAt) : temp(firstAt);
      const values = keep(take(a, firstAt, { axis: ax, stream }));
      let inverse: DeviceArray<"int64"> | undefined;
      if (want.inverse) {
        const run = temp(sub(temp(cumsum(heads, { stream })), 1, { stream }));
        inverse = keep(DeviceArray.empty([n], int64, { stream }));
        put(inverse, order, run, { stream });
      }
      const counts = want.counts ? keep(diff(temp(concatenate([starts, temp(DeviceArray.full([1], n, int64, { stream }))], { stream })), { stream }) as DeviceArray<"int64">) : undefined;
      return { values, ...(indices !== undefined ? { indices } : {}), ...(inverse !== undefined ? { inverse } : {}), ...(counts !== undefined ? { counts } : {}) };
    });
  } catch (e) {
    for (const x of made) x.close(stream);
    throw e;
  }
}
