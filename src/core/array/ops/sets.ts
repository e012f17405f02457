/**
 * Membership: `isin` (whether each element of an array is among the elements of another, as NumPy's), a function of
 * `cuda-ts/array`.
 *
 * ```ts
 * const seen = isin(ids, known);                      // bool, ids' shape
 * const fresh = isin(ids, known, { invert: true });   // the ones not among them
 * ```
 *
 * The test elements are sorted once (flattened), then one elementwise kernel searches the sorted elements for each
 * element (the binary search of `searchsorted`, on the left) and compares the element found with it: equal means
 * present. Both are compared in the dtype they promote to, as NumPy compares values; NaN equals nothing (NaN is never
 * found, as in NumPy), `-0.0` equals `+0.0`. Nothing is read back to the host.
 *
 * @module
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { dtypes, type DType } from "../dtype.ts";
import { operationType } from "../promotion.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import { toWorking, workingType } from "./cast.ts";
import { cachedKernel, checkArrayArgument, checkOneDevice } from "./elementwise.ts";
import { searchPreamble } from "./search.ts";
import { sort } from "./sort.ts";

/** Options of `isin`. */
export interface IsinOptions extends ArrayOperationOptions {
  /** Whether the result is inverted: true where an element is not among the test elements (default false). */
  readonly invert?: boolean;
}

/**
 * The kernel that tells, for each value `v` of dtype `tv`, whether it is among the sorted raw elements `a` of dtype
 * `ta` (`len` of them), comparing in `r`; with `invert`, whether it is not (exported for tests: no GPU needed).
 * Parameters: `raw ta a, tv v, int64 len` in, `bool z` out; the body calls {@link searchPreamble}'s `_ct_search` on
 * the left and compares the element there.
 */
export function isinKernel(ta: DType, tv: DType, r: DType, invert: boolean): ElementwiseKernel {
  return cachedKernel(`isin|${invert}|${ta.name}|${tv.name}|${r.name}`, () => {
    const w = workingType(r);
    // _ct_ names: the builder's loops take _i, _n, _r and other short ones.
    const found = `(_ct_at < len && ${toWorking("a[_ct_at]", ta, r)} == _ct_v)`;
    const body = `const ${w} _ct_v = ${toWorking("v", tv, r)}; const long long _ct_at = _ct_search(a, _ct_v, len); z = ${invert ? `!${found}` : found}`;
    return new ElementwiseKernel(`raw ${ta.name} a, ${tv.name} v, int64 len`, "bool z", body, `cuda_ts_isin${invert ? "_invert" : ""}_${ta.name}_${tv.name}_${r.name}`, {
      preamble: searchPreamble(ta, r, "left"),
    });
  });
}

/**
 * Whether each element of `element` is among the elements of `testElements` (any shape, flattened), as NumPy's
 * `isin`: a new bool array of `element`'s shape; with `invert: true`, whether it is not. The two are compared in the
 * dtype they promote to (an int32 3 is among float64 [3.0]); NaN is never among anything (NaN equals nothing, as in
 * NumPy), `-0.0` is among `[0.0]`. Every dtype, complex too. Sorts the test elements (a temporary copy) and searches
 * them per element; nothing waits for the stream.
 *
 * ```ts
 * const mask = isin(labels, wanted);                  // labels.shape, true where a label is one of wanted
 * const other = isin(labels, wanted, { invert: true });
 * ```
 *
 * @throws TypeError when `element` or `testElements` is not a DeviceArray, or `invert` is not a boolean.
 * @throws ArrayLayoutError when either was closed.
 * @throws DeviceMismatchError when the arrays (and the stream) are on different devices.
 */
export function isin(element: DeviceArray, testElements: DeviceArray, options?: IsinOptions): DeviceArray<"bool"> {
  const what = "isin";
  checkArrayArgument(element, what, "element");
  checkArrayArgument(testElements, what, "testElements");
  if (options !== undefined && (options === null || typeof options !== "object")) throw new TypeError(`${what} takes its options as an object ({ invert?, stream? }), not ${describeValue(options)}`);
  const invert = options?.invert ?? false;
  if (typeof invert !== "boolean") throw new TypeError(`${what}: invert is a boolean, not ${describeValue(invert)}`);
  const arrays = [["element", element], ["testElements", testElements]] as const;
  checkOneDevice(what, arrays);
  const r = operationType([element, testElements], what);
  const stream = operationStream(what, options, [element, testElements]);
  checkOneDevice(what, arrays, stream);
  if (element.size === 0) return DeviceArray.empty(element.shape, dtypes.bool, { stream });
  if (testElements.size === 0) return DeviceArray.full(element.shape, invert, dtypes.bool, { stream });
  const sorted = sort(testElements, { axis: null, stream });
  try {
    return isinKernel(sorted.dtype, element.dtype, r, invert).launch(stream, sorted, element, BigInt(sorted.size)) as DeviceArray<"bool">;
  } finally {
    sorted.close(stream);
  }
}
