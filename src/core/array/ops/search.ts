/**
 * Searching a sorted array: `searchsorted` (where values would be inserted to keep a sorted 1-d array sorted, as
 * NumPy's) and `digitize` (the bin each value falls in), as functions of `cuda-ts/array`, and `a.searchsorted(v)`.
 *
 * ```ts
 * const at = searchsorted(edges, x);                      // int64, x's shape: first i with edges[i] >= x
 * const after = edges.searchsorted(x, { side: "right" }); // first i with edges[i] > x
 * const bin = digitize(x, edges);                          // as NumPy's digitize (increasing bins)
 * ```
 *
 * One elementwise kernel: a binary search per value over the whole sorted array (passed raw), the sorted array and
 * the values compared in the dtype they promote to (NumPy's rules, scalars weak), NaN greater than every other value
 * (NaN sorts last, as `sort` puts it). Nothing checks on the device that the array is sorted: an unsorted one gives
 * some index, as NumPy's does.
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayScalar } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { DTypeError, ShapeMismatchError } from "../errors.ts";
import { operationType } from "../promotion.ts";
import type { ElementwiseOptions, SearchSide, SearchSortedOptions } from "../options.ts";
import { provideArrayMethods, type ArrayOperand } from "../methods.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { castExpression, toWorking, workingType } from "./cast.ts";
import { cachedKernel, checkArrayArgument, checkOneDevice, checkOperand, checkOut, launchInto, scalarFor } from "./elementwise.ts";
import { take } from "./indexing.ts";

export type { SearchSide, SearchSortedOptions } from "../options.ts";

/** Options of `digitize`. */
export interface DigitizeOptions extends ElementwiseOptions {
  /** Whether a bin includes its right edge (`bins[i-1] < x <= bins[i]`) rather than its left (default false). */
  readonly right?: boolean;
}

/**
 * The device functions of a search (exported for tests: no GPU needed): `_ct_search(a, v, n)`, the first index of the
 * sorted `a` (of dtype `ta`, `n` elements) where `v` goes on `side`, comparing in `r`'s working type, NaN last. A
 * complex `r` (for `isin`; `searchsorted` refuses complex operands) compares as `sort` orders complex numbers: by real
 * part, then imaginary part, those with a NaN part last in NumPy's classes (R + nanj, nan + Rj, nan + nanj).
 */
export function searchPreamble(ta: DType, r: DType, side: SearchSide): string {
  const w = workingType(r);
  // x before y in the sorted order: NaN after everything (and equal to NaN), as the sort puts it; complex numbers in
  // NumPy's classes (R + Rj, R + nanj, nan + Rj, nan + nanj), each by its parts without NaN.
  const before = r.kind === "f" ? "x < y || (y != y && x == x)" : r.kind === "c" ? "_ct_complex_before(x, y)" : "x < y";
  const parts =
    r.kind === "c"
      ? [
          `__device__ __forceinline__ int _ct_class(const ${w} x) { return (x.real() != x.real() ? 2 : 0) + (x.imag() != x.imag() ? 1 : 0); }`,
          `__device__ __forceinline__ bool _ct_complex_before(const ${w} x, const ${w} y) {`,
          "  const int cx = _ct_class(x), cy = _ct_class(y);",
          "  if (cx != cy) return cx < cy;",
          "  if (cx == 0) return x.real() < y.real() || (x.real() == y.real() && x.imag() < y.imag());",
          "  if (cx == 1) return x.real() < y.real();",
          "  if (cx == 2) return x.imag() < y.imag();",
          "  return false;",
          "}",
        ]
      : [];
  return [
    ...parts,
    `__device__ __forceinline__ bool _ct_before(const ${w} x, const ${w} y) { return ${before}; }`,
    `__device__ __forceinline__ long long _ct_search(const ${ta.ctype}* __restrict__ a, const ${w} v, const long long n) {`,
    "  long long lo = 0, hi = n;",
    "  while (lo < hi) {",
    "    const long long mid = lo + ((hi - lo) >> 1);",
    `    const ${w} x = ${toWorking("a[mid]", ta, r)};`,
    `    if (${side === "left" ? "_ct_before(x, v)" : "!_ct_before(v, x)"}) lo = mid + 1;`,
    "    else hi = mid;",
    "  }",
    "  return lo;",
    "}",
    "",
  ].join("\n");
}

/**
 * The kernel that searches a sorted raw array `a` of dtype `ta` for each value `v` of dtype `tv`, comparing in `r`
 * (NaN last), and writes the insertion index as `to` (exported for tests: no GPU needed). Parameters: `raw ta a,
 * tv v, int64 len` in, `to z` out; the body calls {@link searchPreamble}'s `_ct_search`.
 */
export function searchKernel(ta: DType, tv: DType, r: DType, to: DType, side: SearchSide): ElementwiseKernel {
  return cachedKernel(`searchsorted|${side}|${ta.name}|${tv.name}|${r.name}|${to.name}`, () => {
    const body = `z = ${castExpression(`_ct_search(a, ${toWorking("v", tv, r)}, len)`, dtypes.int64, to)}`;
    return new ElementwiseKernel(`raw ${ta.name} a, ${tv.name} v, int64 len`, `${to.name} z`, body, `cuda_ts_searchsorted_${side}_${ta.name}_${tv.name}_${r.name}_${to.name}`, {
      preamble: searchPreamble(ta, r, side),
    });
  });
}

/** The checks of a sorter: a 1-d integer array with one index per element of the sorted array. */
function checkSorter(sorter: unknown, n: number, what: string): DeviceArray {
  const s = checkArrayArgument(sorter, what, "sorter");
  if (s.dtype.kind !== "i" && s.dtype.kind !== "u") throw new DTypeError(`${what}: sorter holds integer indices (int64, as argsort gives), not ${s.dtype.name}`);
  if (s.ndim !== 1 || s.size !== n) throw new ShapeMismatchError(`${what}: sorter is 1-d with one index per element of a ([${n}]), got shape [${s.shape.join(", ")}]`);
  return s;
}

/** What `search` names its operands in errors. */
interface Names {
  readonly a: string;
  readonly v: string;
}

function search(what: string, names: Names, a: DeviceArray, v: ArrayOperand, side: SearchSide, sorterArgument: unknown, options: ElementwiseOptions | undefined): DeviceArray {
  checkArrayArgument(a, what, names.a);
  if (a.ndim !== 1) throw new ShapeMismatchError(`${what}: ${names.a} is a sorted 1-d array, got shape [${a.shape.join(", ")}]`);
  const sorter = sorterArgument === undefined ? undefined : checkSorter(sorterArgument, a.size, what);
  checkOperand(v, what, names.v);
  if (v instanceof DeviceArray) checkArrayArgument(v, what, names.v);
  const r = operationType([a, v], what);
  if (r.kind === "c") throw new DTypeError(`${what}: complex values are not ordered here (${names.a} and ${names.v} promote to ${r.name}); search their real parts or magnitudes`);
  const shape = v instanceof DeviceArray ? v.shape : [];
  const out = checkOut(options, shape, dtypes.int64, what);
  const values = v instanceof DeviceArray ? v : undefined;
  const arrays = [[names.a, a], [names.v, values], ["sorter", sorter], ["out", out]] as const;
  checkOneDevice(what, arrays);
  const stream = operationStream(what, options, [a, values, sorter, out]);
  checkOneDevice(what, arrays, stream);
  const to = out?.dtype ?? dtypes.int64;
  if (a.size === 0) {
    // Every value goes in at 0.
    const z = out ?? DeviceArray.empty(shape, to, { stream });
    z.fill(scalarFor(0, to), { stream });
    return z;
  }
  // The sorted elements, contiguous (the kernel reads them raw) and apart from `out`.
  let sorted = a;
  if (sorter !== undefined) sorted = take(a, sorter, { stream });
  else if (!a.isContiguous || (out !== undefined && out.buffer === a.buffer)) sorted = a.copy({ stream });
  try {
    const k = searchKernel(sorted.dtype, values?.dtype ?? r, r, to, side);
    const target = out ?? (values === undefined ? DeviceArray.empty([], to, { stream }) : undefined);
    return launchInto(k, stream, [sorted, values ?? scalarFor(v as ArrayScalar, r), BigInt(a.size)], target);
  } finally {
    if (sorted !== a) sorted.close(stream);
  }
}

/**
 * Where each of `v` would be inserted into the sorted 1-d array `a` to keep it sorted, as NumPy's `searchsorted`: an
 * int64 array of `v`'s shape (0-d for a scalar), each the first `i` with `a[i] >= v` (`side: "left"`, the default)
 * or `a[i] > v` (`side: "right"`), `a.length` where there is none. `a` and `v` are compared in the dtype they promote
 * to; NaN counts as greater than every other value (where `sort` puts it). With `sorter` (int64 indices that sort
 * `a`, as `argsort(a)` gives) `a` need not be sorted: the search runs over `take(a, sorter)`, and an index out of range
 * is reported as `take` reports it (an IndexError at the stream's next synchronised read). Not for complex arrays.
 * Also `a.searchsorted(v, options)`.
 *
 * ```ts
 * const edges = ca.asarray([0, 1, 2, 3], { stream, dtype: "float32" });
 * searchsorted(edges, ca.asarray([1.5, 3, -1], { stream }));            // [2, 3, 0]
 * searchsorted(edges, 3, { side: "right" });                            // 4 (a 0-d array)
 * ```
 *
 * @throws ShapeMismatchError when `a` is not 1-d or `sorter` is not 1-d of `a`'s length.
 * @throws DTypeError for complex operands, a sorter that is not of an integer dtype, or an `out` that int64 does not
 * cast to under "same_kind".
 * @throws RangeError when `side` is neither "left" nor "right".
 * @throws DeviceMismatchError when the arrays are on different devices.
 */
export function searchsorted(a: DeviceArray, v: ArrayOperand, options?: SearchSortedOptions): DeviceArray {
  const what = "searchsorted";
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes its options as an object ({ side?, sorter?, out?, stream? }), not ${describeValue(options)}`);
  const side = options?.side ?? "left";
  if (side !== "left" && side !== "right") throw new RangeError(`${what}: side is "left" or "right", not ${describeValue(side)}`);
  return search(what, { a: "a", v: "v" }, a, v, side, options?.sorter, options);
}

/**
 * The index of the bin each of `x` falls in, as NumPy's `digitize` for increasing `bins` (a sorted 1-d array): `i`
 * with `bins[i-1] <= x < bins[i]` (`right: true`: `bins[i-1] < x <= bins[i]`), 0 below the first edge and
 * `bins.length` above the last. An int64 array of `x`'s shape. It is `searchsorted(bins, x)` with the side flipped.
 * Decreasing bins are not supported (NumPy's digitize reverses them; reverse them with `flip` first and subtract
 * the result from `bins.length`). Not for complex values.
 *
 * ```ts
 * const bins = ca.asarray([0, 1, 2.5, 4], { stream });
 * digitize(ca.asarray([0.2, 6.4, 3.0, 1.6], { stream }), bins);   // [1, 4, 3, 2]
 * ```
 */
export function digitize(x: ArrayOperand, bins: DeviceArray, options?: DigitizeOptions): DeviceArray {
  const what = "digitize";
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes its options as an object ({ right?, out?, stream? }), not ${describeValue(options)}`);
  const right = options?.right ?? false;
  if (typeof right !== "boolean") throw new TypeError(`${what}: right is a boolean, not ${describeValue(right)}`);
  return search(what, { a: "bins", v: "x" }, bins, x, right ? "left" : "right", undefined, options);
}

provideArrayMethods({ searchsorted: (self, v, options) => searchsorted(self, v, options) });
