/**
 * `bincount` and `histogram` without a GPU: the kernels' source (keys of the range reduction, the bin search, the
 * shared-memory counters, the density's widths in the edges' dtype), the equal-width edges as NumPy's `linspace` makes
 * them, and the typed errors that come before any stream is used. (The counting itself, on data, is in
 * counting.gpu.test.ts; the sources' syntax in test/core/kernels/parse.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, DTypeError, DeviceArray, DeviceMismatchError, ShapeMismatchError, type DTypeName } from "../../../src/index.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import { bincount, histogram } from "../../../src/array.ts";
import { COUNT_SHARED_BINS, countingKernelNames, countingName, countingSource, rangeDomain } from "../../../src/core/array/ops/counting-source.ts";
import { uniformBins, uniformEdges } from "../../../src/core/array/ops/counting.ts";
import { dtypes } from "../../../src/core/array/dtype.ts";

const arr = (shape: number[], dtype: DTypeName = "int32", deviceId = -1): DeviceArray => fakeArray(shape, dtype, deviceId);

describe("the counting kernels' source", () => {
  it("names one program per signature, bincount's with two kernels and histogram's with four", () => {
    expect(countingName({ input: dtypes.int32 })).toBe("cuda_ts_bincount_int32_counts");
    expect(countingName({ input: dtypes.uint8, weights: dtypes.float32 })).toBe("cuda_ts_bincount_uint8_float32");
    expect(countingKernelNames({ input: dtypes.int8 })).toEqual(["cuda_ts_bincount_int8_counts_range", "cuda_ts_bincount_int8_counts_count"]);
    const h = { input: dtypes.int32, edges: dtypes.float64, compare: dtypes.float64 };
    expect(countingKernelNames(h)).toEqual(["range", "order", "hist", "density"].map((k) => `cuda_ts_histogram_int32_float64_float64_counts_${k}`));
  });

  it("keys bincount's values as int64 (uint64 wrapping, as NumPy converts it) and a histogram's by their kind", () => {
    expect(rangeDomain({ input: dtypes.uint64 })).toBe("signed");
    const s = countingSource({ input: dtypes.uint64 });
    expect(s).toContain("const unsigned long long k = ((unsigned long long)(long long)(x[(long long)i * sx]) ^ 0x8000000000000000ull);");
    expect(s).not.toContain("nan");
    expect(rangeDomain({ input: dtypes.uint64, edges: dtypes.float64 })).toBe("unsigned");
    expect(rangeDomain({ input: dtypes.int16, edges: dtypes.float64 })).toBe("signed");
    expect(rangeDomain({ input: dtypes.float16, edges: dtypes.float16 })).toBe("float");
    const f = countingSource({ input: dtypes.float16, edges: dtypes.float16, compare: dtypes.float16 });
    expect(f).toContain("#include <cuda_fp16.h>");
    expect(f).toContain("const double d = (double)(__half2float(x[(long long)i * sx]));");
    expect(f).toContain("if (d != d) { nan = true; continue; }");
  });

  it("counts in shared memory (32-bit counters, doubles for weights) or straight into the result", () => {
    const c = countingSource({ input: dtypes.int32 });
    expect(c).toContain("unsigned int* const h = reinterpret_cast<unsigned int*>(ct_smem);");
    expect(c).toContain("if (local) atomicAdd(&h[b], (unsigned int)(1));");
    expect(c).toContain("else atomicAdd(&out[b], (unsigned long long)(1));");
    const w = countingSource({ input: dtypes.int32, weights: dtypes.float32 });
    expect(w).toContain("double* const h = reinterpret_cast<double*>(ct_smem);");
    expect(w).toContain("atomicAdd(&out[b], (double)((double)(w[(long long)i * sw])));");
    expect(COUNT_SHARED_BINS).toBe(4096);
  });

  it("bins a value by the edges in the compare dtype, and takes the density's widths in the edges' dtype", () => {
    const s = countingSource({ input: dtypes.int32, edges: dtypes.float64, compare: dtypes.float64 });
    expect(s).toContain("const long long b = ct_bin((double)(x[(long long)i * sx]), e, bins, uniform, (ct_c)lo_, (ct_c)denom_);");
    expect(s).toContain("if (!(v >= e[0] && v <= e[bins])) return -1;");
    expect(s).toContain("while (i > 0 && v < e[i]) --i;");
    expect(s).toContain("while (i < bins - 1 && v >= e[i + 1]) ++i;");
    expect(s).toContain("const double width = (double)(double)(e[j + 1] - e[j]);");
    expect(s).toContain("__shared__ long long part[256];");
    const i8 = countingSource({ input: dtypes.int8, edges: dtypes.int8, compare: dtypes.int8 });
    // NumPy's np.diff of int8 edges is int8 (it wraps), as here.
    expect(i8).toContain("const double width = (double)(signed char)(e[j + 1] - e[j]);");
    const h = countingSource({ input: dtypes.float16, edges: dtypes.float16, compare: dtypes.float16, weights: dtypes.float64 });
    expect(h).toContain("const double width = (double)(_ct_round_f16((__half2float(e[j + 1]) - __half2float(e[j]))));");
    expect(h).toContain("__shared__ double part[256];");
  });
});

describe("the equal-width edges, as NumPy's histogram makes them", () => {
  it("computes linspace in float64 for a given range or integer data, in the data's dtype for a range found in floats", () => {
    // np.histogram(a, bins=10, range=(0, 1))[1]: linspace in float64, i * 0.1 + 0.
    expect(uniformEdges(0, 1, 10, dtypes.float64)).toEqual([0, 0.1, 0.2, 0.30000000000000004, 0.4, 0.5, 0.6000000000000001, 0.7000000000000001, 0.8, 0.9, 1]);
    // np.histogram(np.arange(10, dtype=np.float32))[1]: float32 arithmetic (0.9 rounded, then each product).
    expect(uniformEdges(0, 9, 10, dtypes.float32).map(Math.fround)).toEqual(
      [0, 0.8999999761581421, 1.7999999523162842, 2.6999998092651367, 3.5999999046325684, 4.5, 5.399999618530273, 6.299999713897705, 7.199999809265137, 8.09999942779541, 9],
    );
    expect(uniformBins(dtypes.float32, undefined, { min: 0, max: 9 })).toEqual({ lo: 0, hi: 9, edges: dtypes.float32, calc: dtypes.float32 });
    expect(uniformBins(dtypes.float32, [0, 10], undefined)).toEqual({ lo: 0, hi: 10, edges: dtypes.float32, calc: dtypes.float64 });
    expect(uniformBins(dtypes.int16, undefined, { min: -3, max: 17 })).toEqual({ lo: -3, hi: 17, edges: dtypes.float64, calc: dtypes.float64 });
    expect(uniformBins(dtypes.float16, undefined, undefined)).toEqual({ lo: 0, hi: 1, edges: dtypes.float16, calc: dtypes.float64 });
  });

  it("widens an empty range by 0.5 each way, in the data's arithmetic", () => {
    expect(uniformBins(dtypes.int64, undefined, { min: 5, max: 5 })).toMatchObject({ lo: 4.5, hi: 5.5 });
    expect(uniformBins(dtypes.float64, [2, 2], undefined)).toMatchObject({ lo: 1.5, hi: 2.5 });
    const f = Math.fround(1.3);
    expect(uniformBins(dtypes.float32, undefined, { min: f, max: f })).toMatchObject({ lo: Math.fround(f - 0.5), hi: Math.fround(f + 0.5) });
  });
});

describe("bincount's errors, before any stream is used", () => {
  it("takes a 1-d array of an integer dtype or bool", () => {
    expect(() => bincount([1, 2] as unknown as DeviceArray)).toThrow(TypeError);
    expect(() => bincount(arr([2, 3]))).toThrow(ShapeMismatchError);
    expect(() => bincount(arr([2, 3]))).toThrow("bincount: x is a 1-d array of non-negative integers, got shape [2, 3]");
    expect(() => bincount(arr([]))).toThrow("got shape []");
    expect(() => bincount(arr([4], "float32"))).toThrow(DTypeError);
    expect(() => bincount(arr([4], "float32"))).toThrow("x holds non-negative integers (an integer dtype or bool), not float32");
    expect(() => bincount(arr([4], "complex64"))).toThrow(DTypeError);
  });

  it("takes weights of x's length, real, and a non-negative integer minlength", () => {
    expect(() => bincount(arr([4]), { weights: arr([5], "float64") })).toThrow(ShapeMismatchError);
    expect(() => bincount(arr([4]), { weights: arr([5], "float64") })).toThrow("bincount: weights have shape [5] but x has shape [4]; give one weight per element");
    expect(() => bincount(arr([4]), { weights: arr([4], "complex128") })).toThrow(DTypeError);
    expect(() => bincount(arr([4]), { weights: Float64Array.of(1, 2, 3, 4) as unknown as DeviceArray })).toThrow(TypeError);
    expect(() => bincount(arr([4]), { minlength: -1 })).toThrow(ArgumentError);
    expect(() => bincount(arr([4]), { minlength: -1 })).toThrow("bincount: minlength is a non-negative integer, got -1");
    expect(() => bincount(arr([4]), { minlength: 1.5 })).toThrow(ArgumentError);
    expect(() => bincount(arr([4]), { minlength: "3" as unknown as number })).toThrow(ArgumentError);
    expect(() => bincount(arr([4]), 3 as unknown as object)).toThrow("bincount takes its options as an object");
  });

  it("refuses arrays on two devices, and gets as far as the stream with good arguments (fake arrays have none)", () => {
    expect(() => bincount(arr([4], "int32", 0), { weights: arr([4], "float32", 1) })).toThrow(DeviceMismatchError);
    expect(() => bincount(arr([4], "uint64"), { minlength: 3 })).toThrow("needs a stream");
    expect(() => bincount(arr([4], "bool"), { weights: arr([4], "int8") })).toThrow("needs a stream");
    expect(() => bincount(arr([0], "int8"))).toThrow("needs a stream");
  });
});

describe("histogram's errors, before any stream is used", () => {
  it("refuses complex data and weights of another shape", () => {
    expect(() => histogram(arr([4], "complex64"))).toThrow(DTypeError);
    expect(() => histogram({} as DeviceArray)).toThrow(TypeError);
    expect(() => histogram(arr([2, 3]), { weights: arr([6], "float32") })).toThrow(ShapeMismatchError);
    expect(() => histogram(arr([2, 3]), { weights: arr([6], "float32") })).toThrow("histogram: weights have shape [6] but a has shape [2, 3]");
    expect(() => histogram(arr([3]), { weights: arr([3], "complex64") })).toThrow(DTypeError);
  });

  it("takes bins as a positive integer or increasing edges", () => {
    expect(() => histogram(arr([4]), { bins: 0 })).toThrow(ArgumentError);
    expect(() => histogram(arr([4]), { bins: 2.5 })).toThrow("histogram: bins is a positive integer (a count of equal bins) or the edges, got 2.5");
    expect(() => histogram(arr([4]), { bins: "auto" as unknown as number })).toThrow(TypeError);
    expect(() => histogram(arr([4]), { bins: [] })).toThrow(ShapeMismatchError);
    expect(() => histogram(arr([4]), { bins: [0, 2, 1] })).toThrow(ArgumentError);
    expect(() => histogram(arr([4]), { bins: [0, 2, 1] })).toThrow("histogram: bins must increase monotonically: edge 1 (2) is greater than edge 2 (1)");
    expect(() => histogram(arr([4]), { bins: [0, "1"] as unknown as number[] })).toThrow(TypeError);
    expect(() => histogram(arr([4]), { bins: arr([2, 2], "float64") })).toThrow(ShapeMismatchError);
    expect(() => histogram(arr([4]), { bins: arr([0], "float64") })).toThrow(ShapeMismatchError);
    expect(() => histogram(arr([4]), { bins: arr([3], "bool") })).toThrow(DTypeError);
    expect(() => histogram(arr([4]), { bins: arr([3], "complex64") })).toThrow(DTypeError);
  });

  it("takes range as two finite numbers in order, and density as a boolean", () => {
    expect(() => histogram(arr([4]), { range: [1, 0] })).toThrow(ArgumentError);
    expect(() => histogram(arr([4]), { range: [1, 0] })).toThrow("histogram: range is [lo, hi] with lo <= hi, got [1, 0]");
    expect(() => histogram(arr([4]), { range: [0, Infinity] })).toThrow("histogram: the supplied range of [0, Infinity] is not finite");
    expect(() => histogram(arr([4]), { range: [NaN, 1] })).toThrow(ArgumentError);
    expect(() => histogram(arr([4]), { range: [0] as unknown as [number, number] })).toThrow(TypeError);
    expect(() => histogram(arr([4]), { density: 1 as unknown as boolean })).toThrow("histogram: density is a boolean, not 1");
    expect(() => histogram(arr([4]), null as unknown as object)).toThrow("histogram takes its options as an object");
  });

  it("refuses arrays on two devices, and gets as far as the stream with good arguments", () => {
    expect(() => histogram(arr([4], "float32", 0), { bins: arr([3], "float32", 1) })).toThrow(DeviceMismatchError);
    expect(() => histogram(arr([4], "float32", 0), { weights: arr([4], "float32", 2) })).toThrow("weights is on device 2");
    expect(() => histogram(arr([4], "bool"), { bins: [0, 0.5, 1], density: true })).toThrow("needs a stream");
    expect(() => histogram(arr([2, 2], "float16"), { bins: 3, range: [0, 1], weights: arr([2, 2], "int8") })).toThrow("needs a stream");
    expect(() => histogram(arr([4], "uint64"), { bins: arr([5], "int64") })).toThrow("needs a stream");
  });
});
