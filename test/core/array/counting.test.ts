/**
 * `bincount` without a GPU: the kernels' source (keys of the range reduction, the shared-memory counters), and the
 * typed errors that come before any stream is used. (The sources' syntax is checked in
 * test/core/kernels/parse.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, Buffer, DTypeError, DeviceArray, DeviceMismatchError, ShapeMismatchError, type DTypeName, type MemoryResource } from "../../../src/index.ts";
import { bincount } from "../../../src/array.ts";
import { COUNT_SHARED_BINS, countingKernelNames, countingName, countingSource } from "../../../src/core/array/ops/counting-source.ts";
import { dtypes } from "../../../src/core/array/dtype.ts";

/** A resource of fake memory: host-reachable (no device), or on device `deviceId`. */
function resource(deviceId: number): MemoryResource {
  return {
    allocate: () => {
      throw new Error("not used");
    },
    deallocate: () => undefined,
    isDeviceAccessible: true,
    isHostAccessible: deviceId < 0,
    deviceId,
  };
}
function arr(shape: number[], dtype: DTypeName = "int32", deviceId = -1): DeviceArray {
  return DeviceArray.fromBuffer(Buffer.fromHandle(0x7f00_0000_0000n, 1 << 16, { memoryResource: resource(deviceId) }), { dtype, shape });
}

describe("the counting kernels' source", () => {
  it("names one program per signature, of two kernels", () => {
    expect(countingName({ input: dtypes.int32 })).toBe("cuda_ts_bincount_int32_counts");
    expect(countingName({ input: dtypes.uint8, weights: dtypes.float32 })).toBe("cuda_ts_bincount_uint8_float32");
    expect(countingKernelNames({ input: dtypes.int8 })).toEqual(["cuda_ts_bincount_int8_counts_range", "cuda_ts_bincount_int8_counts_count"]);
  });

  it("keys values as int64, uint64 wrapping (as NumPy converts it)", () => {
    const s = countingSource({ input: dtypes.uint64 });
    expect(s).toContain("const unsigned long long k = ((unsigned long long)(long long)(x[(long long)i * sx]) ^ 0x8000000000000000ull);");
    expect(s).toContain("atomicMax(&out[0], lo);");
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
