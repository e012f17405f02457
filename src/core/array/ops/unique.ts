/**
 * `unique`: the sorted distinct elements of an array (NumPy's `unique`), with NumPy's `return_index`,
 * `return_inverse`, `return_counts`, `axis` and `equal_nan`. The flattened array's come from one radix sort
 * (sort.ts), the sub-arrays along an axis from unique-axis.ts, and `equalNan: false` splits the merged NaN as the
 * array-API forms do (unique-results.ts).
 *
 * ```ts
 * const labels = unique(y);
 * const { values, counts } = unique(y, { returnCounts: true });
 * const rows = unique(m, { axis: 0 });
 * ```
 *
 * @module
 */
import { DeviceArray, operationStream } from "../device-array.ts";
import { AxisError } from "../errors.ts";
import { normalizeAxis } from "../broadcast.ts";
import { describeValue } from "../../../errors/describe.ts";
import { checkSortable, uniqueRuns, uniqueSorted, type UniqueOptions, type UniqueResult } from "./sort.ts";
import { uniqueAlongAxis } from "./unique-axis.ts";
import { uniqueSplittingNaNs } from "./unique-results.ts";

/** The option `name` of `unique`, a boolean (default false). */
function flagOption(options: UniqueOptions | undefined, name: "returnIndex" | "returnInverse" | "returnCounts"): boolean {
  const v = options?.[name] ?? false;
  if (typeof v !== "boolean") throw new TypeError(`unique: ${name} is a boolean, not ${describeValue(v)}`);
  return v;
}

/**
 * The sorted unique elements of `a` (flattened), a new 1-d array of its dtype, as NumPy's `unique`: NaNs count as one
 * value (the last; of complex numbers, every one with a NaN part), `-0.0` and `+0.0` as one (`+0.0`). Reads the count to the host, so it waits for the stream.
 * With `axis`, the distinct sub-arrays along that axis instead (`unique(m, { axis: 0 })`: the distinct rows, in
 * lexicographic order), compared element by element: a row holding NaN equals no other, as in NumPy 2; the further
 * results are then 1-d, along the axis. `equalNan: false` (NumPy's `equal_nan=False`) keeps each NaN a value of its own.
 *
 * With `returnIndex`, `returnInverse` or `returnCounts` (NumPy's `return_index`, `return_inverse`, `return_counts`)
 * it returns `{ values, indices?, inverse?, counts? }` instead (see {@link UniqueResult}): the first occurrence of
 * each value in the flattened `a` (of `-0.0` and `+0.0` together, of the NaNs together), the index of each element's
 * value (of `a`'s shape, as NumPy 2's), how many elements equal each value; int64 arrays from one sort that carries
 * the indices (none for `returnCounts` alone), still one wait for the stream.
 *
 * ```ts
 * const labels = unique(y);   // e.g. [0, 1, 2] of an int32 label array
 * const { values, counts } = unique(y, { returnCounts: true });
 * const { inverse } = unique(y, { returnInverse: true });   // y's shape: y.flat[i] is values[inverse.flat[i]]
 * ```
 */
export function unique(a: DeviceArray, options?: UniqueOptions & { readonly returnIndex?: false; readonly returnInverse?: false; readonly returnCounts?: false }): DeviceArray;
/** The sorted unique elements of `a` and the further results `options` asks for (see the first overload). */
export function unique<O extends UniqueOptions & ({ readonly returnIndex: true } | { readonly returnInverse: true } | { readonly returnCounts: true })>(a: DeviceArray, options: O): UniqueResult<O>;
/** The sorted unique elements of `a`, and the further results where `options` asks for any (see the first overload). */
export function unique(a: DeviceArray, options?: UniqueOptions): DeviceArray | UniqueResult;
export function unique(a: DeviceArray, options?: UniqueOptions): DeviceArray | UniqueResult {
  checkSortable(a, "unique");
  if (options !== undefined && (options === null || typeof options !== "object")) {
    throw new TypeError(`unique takes its options as an object ({ axis?, returnIndex?, returnInverse?, returnCounts?, equalNan?, stream? }), not ${describeValue(options)}`);
  }
  const returnIndex = flagOption(options, "returnIndex");
  const returnInverse = flagOption(options, "returnInverse");
  const returnCounts = flagOption(options, "returnCounts");
  const equalNan = options?.equalNan ?? true;
  if (typeof equalNan !== "boolean") throw new TypeError(`unique: equalNan is a boolean, not ${describeValue(equalNan)}`);
  const further = returnIndex || returnInverse || returnCounts;
  const axis = options?.axis;
  let ax: number | undefined;
  if (axis !== undefined && axis !== null) {
    if (typeof axis !== "number") throw new AxisError(`unique: axis is an integer or null, got ${describeValue(axis)}`);
    ax = normalizeAxis(axis, a.ndim, "unique");
  }
  const stream = operationStream("unique", options, [a]);
  const want = { indices: returnIndex, inverse: returnInverse, counts: returnCounts };
  let r: UniqueResult;
  if (ax !== undefined) r = uniqueAlongAxis(a, ax, stream, want) as UniqueResult;
  else if (!equalNan) r = uniqueSplittingNaNs(a, stream, want) as UniqueResult;
  else return further ? uniqueRuns(a, stream, returnIndex, returnInverse, returnCounts) : uniqueSorted(a, stream);
  return further ? r : r.values;
}

