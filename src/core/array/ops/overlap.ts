/**
 * Whether two arrays may share memory (NumPy's `may_share_memory`). Operations that take an `out` use it where the
 * result is not computed element for element in place (`matmul`): an `out` that overlaps an operand is computed into
 * a temporary first and then copied, so that no element is overwritten before it is read, as NumPy guarantees. The
 * elementwise builder makes its own finer test (an `out` that is the very same view as an input is written in place).
 *
 * @module
 */
import { DeviceArray } from "../device-array.ts";
import { byteRange } from "../layout.ts";
import { describeValue } from "../../../errors/describe.ts";

/**
 * Whether `a` and `b` may share memory: whether the bytes from each one's lowest to its highest element meet (NumPy's
 * `may_share_memory`). A view and its base do; two slices of one array that do not overlap do not; two interleaved
 * views (every other element, one starting one later) do, though no element is in both. Empty arrays share nothing.
 * Reads only the arrays' addresses and layouts: nothing is queued or waited for. ClosedError for a closed array.
 *
 * ```ts
 * mayShareMemory(x, x.slice([0, 10]));                 // true
 * mayShareMemory(x.slice([0, 10]), x.slice([10, 20])); // false
 * ```
 */
export function mayShareMemory(a: DeviceArray, b: DeviceArray): boolean {
  if (!(a instanceof DeviceArray)) throw new TypeError(`mayShareMemory: a is a DeviceArray, not ${describeValue(a)}`);
  if (!(b instanceof DeviceArray)) throw new TypeError(`mayShareMemory: b is a DeviceArray, not ${describeValue(b)}`);
  // The addresses first: ClosedError for a closed array, even an empty one.
  const aStart = Number(a.address);
  const bStart = Number(b.address);
  if (a.size === 0 || b.size === 0) return false;
  const [a0, a1] = byteRange(aStart, a.shape, a.strides, a.itemsize);
  const [b0, b1] = byteRange(bStart, b.shape, b.strides, b.itemsize);
  return a0 < b1 && b0 < a1;
}

/**
 * @internal Whether `a` and `b` are the same elements in the same order: one address, itemsize, shape and strides.
 * An operation that reads each element before it writes the same position (a scan, an elementwise kernel) may take
 * such an `out` in place; any other overlap needs a temporary.
 */
export function sameElements(a: DeviceArray, b: DeviceArray): boolean {
  if (a.address !== b.address || a.itemsize !== b.itemsize || a.ndim !== b.ndim) return false;
  for (let d = 0; d < a.ndim; d++) {
    if (a.shape[d] !== b.shape[d]) return false;
    if (a.shape[d]! > 1 && a.strides[d] !== b.strides[d]) return false;
  }
  return true;
}
