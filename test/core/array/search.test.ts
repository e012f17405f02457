/**
 * `searchsorted` and `digitize` without a GPU: the kernel's source (the comparison NaN-last for floats, the side, the
 * conversions to the promoted dtype), and the typed errors that come before any stream is used: `a` not 1-d, a bad
 * side, a sorter of the wrong dtype or length, complex operands, arrays on two devices, `out` of the wrong shape or
 * dtype. (The search itself, on data, is in search.gpu.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { BroadcastError, DTypeError, DeviceArray, DeviceMismatchError, ShapeMismatchError, type DTypeName } from "../../../src/index.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import { digitize, searchsorted } from "../../../src/array.ts";
import { searchKernel, searchPreamble } from "../../../src/core/array/ops/search.ts";
import { dtypes } from "../../../src/core/array/dtype.ts";

const arr = (shape: number[], dtype: DTypeName = "float32", deviceId = -1): DeviceArray => fakeArray(shape, dtype, deviceId);

describe("the search kernel", () => {
  it("compares floats with NaN last and integers plainly, on either side", () => {
    const f = searchPreamble(dtypes.float32, dtypes.float32, "left");
    expect(f).toContain("return x < y || (y != y && x == x);");
    expect(f).toContain("if (_ct_before(x, v)) lo = mid + 1;");
    const i = searchPreamble(dtypes.int64, dtypes.int64, "right");
    expect(i).toContain("return x < y;");
    expect(i).toContain("if (!_ct_before(v, x)) lo = mid + 1;");
    expect(i).toContain("const long long* __restrict__ a");
  });

  it("converts the sorted array's elements and the values to the promoted dtype's working type", () => {
    const h = searchPreamble(dtypes.float16, dtypes.float32, "left");
    expect(h).toContain("const float x = __half2float(a[mid]);");
    const k = searchKernel(dtypes.int32, dtypes.float32, dtypes.float64, dtypes.int64, "right");
    expect(k.name).toBe("cuda_ts_searchsorted_right_int32_float32_float64_int64");
    expect(k.params.map((p) => `${p.raw ? "raw " : ""}${p.type} ${p.name}`)).toEqual(["raw int32 a", "float32 v", "int64 len", "int64 z"]);
    expect(k.operation).toBe("z = _ct_search(a, (double)(v), len)");
    // One kernel per signature, kept.
    expect(searchKernel(dtypes.int32, dtypes.float32, dtypes.float64, dtypes.int64, "right")).toBe(k);
  });
});

describe("searchsorted's errors, before any stream is used", () => {
  it("takes a 1-d array to search", () => {
    expect(() => searchsorted(arr([2, 3]), arr([4]))).toThrow(ShapeMismatchError);
    expect(() => searchsorted(arr([2, 3]), arr([4]))).toThrow("searchsorted: a is a sorted 1-d array, got shape [2, 3]");
    expect(() => searchsorted(arr([]), 1)).toThrow("got shape []");
    expect(() => searchsorted([1, 2] as unknown as DeviceArray, 1)).toThrow(TypeError);
    expect(() => searchsorted(arr([4]), "x" as unknown as number)).toThrow("searchsorted: v is a DeviceArray or a scalar");
  });

  it("takes side left or right", () => {
    expect(() => searchsorted(arr([4]), arr([2]), { side: "middle" as "left" })).toThrow(RangeError);
    expect(() => searchsorted(arr([4]), arr([2]), { side: "middle" as "left" })).toThrow('searchsorted: side is "left" or "right", not "middle"');
    expect(() => searchsorted(arr([4]), arr([2]), 3 as unknown as object)).toThrow("takes its options as an object");
  });

  it("takes a sorter of integer indices, one per element", () => {
    expect(() => searchsorted(arr([4]), arr([2]), { sorter: arr([4], "float32") })).toThrow(DTypeError);
    expect(() => searchsorted(arr([4]), arr([2]), { sorter: arr([4], "float32") })).toThrow("sorter holds integer indices (int64, as argsort gives), not float32");
    expect(() => searchsorted(arr([4]), arr([2]), { sorter: arr([5], "int64") })).toThrow(ShapeMismatchError);
    expect(() => searchsorted(arr([4]), arr([2]), { sorter: arr([5], "int64") })).toThrow("sorter is 1-d with one index per element of a ([4]), got shape [5]");
    expect(() => searchsorted(arr([4]), arr([2]), { sorter: arr([2, 2], "int64") })).toThrow("got shape [2, 2]");
    expect(() => searchsorted(arr([4]), arr([2]), { sorter: [0, 1, 2, 3] as unknown as DeviceArray })).toThrow(TypeError);
  });

  it("refuses complex operands, scalars outside an integer array's range, and out of another shape or kind", () => {
    expect(() => searchsorted(arr([4], "complex64"), arr([2]))).toThrow(DTypeError);
    expect(() => searchsorted(arr([4]), [1, 2])).toThrow("complex values are not ordered here (a and v promote to complex64)");
    expect(() => searchsorted(arr([4], "int8"), 1000)).toThrow(DTypeError);
    expect(() => searchsorted(arr([4]), arr([2, 3]), { out: arr([3, 2], "int64") })).toThrow(BroadcastError);
    expect(() => searchsorted(arr([4]), arr([2]), { out: arr([2], "bool") })).toThrow(DTypeError);
    expect(() => searchsorted(arr([4]), arr([2]), { out: arr([2], "uint64") })).toThrow(DTypeError);
  });

  it("refuses arrays on two devices, naming both", () => {
    const call = (): DeviceArray => searchsorted(arr([4], "float32", 0), arr([2], "float32", 1));
    expect(call).toThrow(DeviceMismatchError);
    expect(call).toThrow("searchsorted: v is on device 1, but device 0 is needed here; a is on device 0");
    expect(() => searchsorted(arr([4], "float32", 0), arr([2], "float32", 0), { sorter: arr([4], "int64", 1) })).toThrow(DeviceMismatchError);
    expect(() => searchsorted(arr([4], "float32", 0), arr([2], "float32", 0), { out: arr([2], "int64", 2) })).toThrow("out is on device 2");
  });

  it("gets as far as the stream with good arguments (fake arrays have none)", () => {
    expect(() => searchsorted(arr([4]), arr([2, 3]), { side: "right", sorter: arr([4], "int32") })).toThrow("needs a stream");
    expect(() => searchsorted(arr([4], "int64"), 3n)).toThrow("needs a stream");
    expect(() => arr([4]).searchsorted(0.5)).toThrow("needs a stream");
  });
});

describe("digitize's errors", () => {
  it("names bins and x, and takes right as a boolean", () => {
    expect(() => digitize(arr([3]), arr([2, 2]))).toThrow("digitize: bins is a sorted 1-d array, got shape [2, 2]");
    expect(() => digitize(arr([3], "complex128"), arr([4]))).toThrow("digitize: complex values are not ordered here (bins and x promote to complex128)");
    expect(() => digitize(arr([3]), arr([4]), { right: 1 as unknown as boolean })).toThrow("digitize: right is a boolean, not 1");
    expect(() => digitize(arr([3]), arr([4]), { right: true })).toThrow("needs a stream");
  });
});
