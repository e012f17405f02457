/**
 * `unique`'s options and `isin` without a GPU: the typed errors that come before any stream is used (arguments that
 * are not arrays, closed arrays, options that are not booleans, arrays on two devices), the result types that follow
 * `unique`'s options (checked by the compiler), and isin's kernel source (the left search, the comparison in the
 * promoted dtype, complex numbers ordered as the sort orders them). (The operations on data are in
 * sets.gpu.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { ArrayLayoutError, AxisError, DeviceArray, DeviceMismatchError, type DTypeName } from "../../../src/index.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import { isin, unique } from "../../../src/array.ts";
import { isinKernel } from "../../../src/core/array/ops/sets.ts";
import { searchPreamble } from "../../../src/core/array/ops/search.ts";
import { dtypes } from "../../../src/core/array/dtype.ts";

const arr = (shape: number[], dtype: DTypeName = "float32", deviceId = -1): DeviceArray => fakeArray(shape, dtype, deviceId);

describe("unique's options, before any stream is used", () => {
  it("takes returnIndex, returnInverse and returnCounts as booleans", () => {
    expect(() => unique(arr([4]), { returnIndex: 1 as unknown as boolean })).toThrow(TypeError);
    expect(() => unique(arr([4]), { returnIndex: 1 as unknown as boolean })).toThrow("unique: returnIndex is a boolean, not 1");
    expect(() => unique(arr([4]), { returnInverse: "yes" as unknown as boolean })).toThrow('unique: returnInverse is a boolean, not "yes"');
    expect(() => unique(arr([4]), { returnCounts: 0 as unknown as boolean })).toThrow("unique: returnCounts is a boolean, not 0");
    expect(() => unique(arr([4]), 3 as unknown as object)).toThrow("unique takes its options as an object ({ axis?, returnIndex?, returnInverse?, returnCounts?, equalNan?, stream? }), not 3");
    expect(() => unique([1, 2] as unknown as DeviceArray, { returnCounts: true })).toThrow("unique takes a DeviceArray");
    expect(() => unique(arr([4]), { axis: 1 })).toThrow(AxisError);
    expect(() => unique(arr([4]), { axis: 1 })).toThrow("unique: axis 1 is out of range");
    expect(() => unique(arr([4]), { axis: "0" as unknown as number })).toThrow('unique: axis is an integer or null, got "0"');
    expect(() => unique(arr([4]), { axis: 0 })).toThrow("unique needs a stream");
    expect(() => unique(arr([4]), { equalNan: 0 as unknown as boolean })).toThrow("unique: equalNan is a boolean, not 0");
  });

  it("gets as far as the stream with good options (fake arrays have none)", () => {
    expect(() => unique(arr([4]))).toThrow("needs a stream");
    expect(() => unique(arr([2, 3], "int32"), { returnIndex: true, returnInverse: true, returnCounts: true })).toThrow("needs a stream");
    expect(() => unique(arr([0]), { returnIndex: false, returnInverse: false, returnCounts: false })).toThrow("needs a stream");
  });

  it("types the result by the options (checked by the compiler, not run)", () => {
    const typed = (x: DeviceArray): void => {
      const plain: DeviceArray = unique(x);
      const none: DeviceArray = unique(x, { returnCounts: false });
      const r = unique(x, { returnIndex: true, returnCounts: true });
      const values: DeviceArray = r.values;
      const indices: DeviceArray<"int64"> = r.indices;
      const counts: DeviceArray<"int64"> = r.counts;
      // @ts-expect-error: the inverse was not asked for
      const inverse: DeviceArray<"int64"> = r.inverse;
      const all = unique(x, { returnIndex: true, returnInverse: true, returnCounts: true });
      const allInverse: DeviceArray<"int64"> = all.inverse;
      const flag = Math.random() < 0.5;
      const maybe = unique(x, { returnInverse: true, returnCounts: flag });
      const maybeCounts: DeviceArray<"int64"> | undefined = maybe.counts;
      // @ts-expect-error: counts may be absent
      const sureCounts: DeviceArray<"int64"> = maybe.counts;
      const options: { returnIndex?: boolean } = {};
      // @ts-expect-error: an array or an object, by the options' values
      const unknown: DeviceArray = unique(x, options);
      void [plain, none, values, indices, counts, inverse, allInverse, maybeCounts, sureCounts, unknown];
    };
    expect(typeof typed).toBe("function");
  });
});

describe("isin's kernel", () => {
  it("searches on the left and compares the element found, in the promoted dtype's working type", () => {
    const k = isinKernel(dtypes.int32, dtypes.float32, dtypes.float64, false);
    expect(k.name).toBe("cuda_ts_isin_int32_float32_float64");
    expect(k.params.map((p) => `${p.raw ? "raw " : ""}${p.type} ${p.name}`)).toEqual(["raw int32 a", "float32 v", "int64 len", "bool z"]);
    expect(k.operation).toBe("const double _ct_v = (double)(v); const long long _ct_at = _ct_search(a, _ct_v, len); z = (_ct_at < len && (double)(a[_ct_at]) == _ct_v)");
    const inv = isinKernel(dtypes.float16, dtypes.float16, dtypes.float16, true);
    expect(inv.name).toBe("cuda_ts_isin_invert_float16_float16_float16");
    expect(inv.operation).toBe("const float _ct_v = __half2float(v); const long long _ct_at = _ct_search(a, _ct_v, len); z = !(_ct_at < len && __half2float(a[_ct_at]) == _ct_v)");
    // One kernel per signature, kept.
    expect(isinKernel(dtypes.int32, dtypes.float32, dtypes.float64, false)).toBe(k);
  });

  it("orders complex numbers as the sort does: NumPy's classes R + Rj, R + nanj, nan + Rj, nan + nanj, each by value", () => {
    const c = searchPreamble(dtypes.complex64, dtypes.complex128, "left");
    expect(c).toContain("int _ct_class(const cuda::std::complex<double> x) { return (x.real() != x.real() ? 2 : 0) + (x.imag() != x.imag() ? 1 : 0); }");
    expect(c).toContain("  if (cx != cy) return cx < cy;");
    expect(c).toContain("  if (cx == 0) return x.real() < y.real() || (x.real() == y.real() && x.imag() < y.imag());");
    expect(c).toContain("  if (cx == 1) return x.real() < y.real();");
    expect(c).toContain("  if (cx == 2) return x.imag() < y.imag();");
    expect(c).toContain("bool _ct_before(const cuda::std::complex<double> x, const cuda::std::complex<double> y) { return _ct_complex_before(x, y); }");
    expect(c).toContain("const cuda::std::complex<double> x = cuda::std::complex<double>(a[mid]);");
    // Real dtypes keep their comparison (no part functions).
    expect(searchPreamble(dtypes.float32, dtypes.float32, "left")).not.toContain("_ct_class");
  });
});

describe("isin's errors, before any stream is used", () => {
  it("takes two DeviceArrays, open", () => {
    expect(() => isin([1, 2] as unknown as DeviceArray, arr([3]))).toThrow(TypeError);
    expect(() => isin([1, 2] as unknown as DeviceArray, arr([3]))).toThrow("isin: element is a DeviceArray, not");
    expect(() => isin(arr([3]), 5 as unknown as DeviceArray)).toThrow("isin: testElements is a DeviceArray, not 5");
    const closed = arr([2], "int32");
    closed.close();
    expect(() => isin(closed, arr([3]))).toThrow(ArrayLayoutError);
    expect(() => isin(arr([3]), closed)).toThrow("isin: testElements (int32 [2]) was closed");
  });

  it("takes invert as a boolean and options as an object", () => {
    expect(() => isin(arr([3]), arr([3]), { invert: 1 as unknown as boolean })).toThrow(TypeError);
    expect(() => isin(arr([3]), arr([3]), { invert: 1 as unknown as boolean })).toThrow("isin: invert is a boolean, not 1");
    expect(() => isin(arr([3]), arr([3]), "x" as unknown as object)).toThrow('isin takes its options as an object ({ invert?, stream? }), not "x"');
  });

  it("refuses arrays on two devices, naming both", () => {
    const call = (): DeviceArray => isin(arr([4], "float32", 0), arr([2], "int32", 1));
    expect(call).toThrow(DeviceMismatchError);
    expect(call).toThrow("isin: testElements is on device 1, but device 0 is needed here; element is on device 0");
  });

  it("gets as far as the stream with good arguments (fake arrays have none), any dtypes", () => {
    expect(() => isin(arr([2, 3]), arr([4], "int64"), { invert: true })).toThrow("needs a stream");
    expect(() => isin(arr([2], "complex64"), arr([4], "uint8"))).toThrow("needs a stream");
    expect(() => isin(arr([0]), arr([0], "bool"))).toThrow("needs a stream");
  });
});
