/**
 * `partition`, `argpartition`, `lexsort` and `sortComplex` without a GPU: the typed errors that come before any stream
 * is used (arguments that are not arrays, closed arrays, options that are not an object, kth that is not an integer
 * or out of range, axes out of range, keys of two shapes or on two devices, no keys), NumPy's 0-d and empty cases that
 * get as far as the stream, and sortComplex's result dtypes. (The operations on data are in
 * sort-routines.gpu.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, ArrayLayoutError, DeviceArray, DeviceMismatchError, type DTypeName } from "../../../src/index.ts";
import { argpartition, AxisError, IndexError, lexsort, partition, sortComplex } from "../../../src/array.ts";
import { ShapeMismatchError } from "../../../src/core/array/errors.ts";
import { dtypes } from "../../../src/core/array/dtype.ts";
import { sortComplexDType } from "../../../src/core/array/ops/sort-routines.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

const arr = (shape: number[], dtype: DTypeName = "float32", deviceId = -1): DeviceArray => fakeArray(shape, dtype, deviceId);
const STREAM = "needs a stream";

const partitions = {
  partition: (a: DeviceArray, kth: unknown, options?: unknown): unknown => partition(a, kth as number, options as object),
  argpartition: (a: DeviceArray, kth: unknown, options?: unknown): unknown => argpartition(a, kth as number, options as object),
} as const;

describe("partition and argpartition, before any stream is used", () => {
  it("take an open DeviceArray and options as an object", () => {
    for (const [name, f] of Object.entries(partitions)) {
      expect(() => f([3, 1] as unknown as DeviceArray, 0), name).toThrow(TypeError);
      expect(() => f([3, 1] as unknown as DeviceArray, 0), name).toThrow(`${name}: a is a DeviceArray, not`);
      const closed = arr([3], "int32");
      closed.close();
      expect(() => f(closed, 0), name).toThrow(ArrayLayoutError);
      expect(() => f(closed, 0), name).toThrow(`${name}: a (int32 [3]) was closed`);
      expect(() => f(arr([3]), 0, 1), name).toThrow(TypeError);
      expect(() => f(arr([3]), 0, 1), name).toThrow(`${name} takes its options as an object ({ axis?, stream? }), not 1`);
      expect(() => f(arr([3]), 0, null), name).toThrow(`${name} takes its options as an object ({ axis?, stream? }), not null`);
    }
  });

  it("take kth as an integer or a list of integers (NumPy: TypeError, or ValueError for a bool)", () => {
    for (const [name, f] of Object.entries(partitions)) {
      // np.partition(np.arange(3), 1.0) → TypeError: Partition index must be integer
      expect(() => f(arr([3]), 1.5), name).toThrow(TypeError);
      expect(() => f(arr([3]), 1.5), name).toThrow(`${name}: kth holds integers (the positions to put in place), got 1.5`);
      expect(() => f(arr([3]), [0, 0.5]), name).toThrow(`${name}: kth holds integers (the positions to put in place), got 0.5`);
      expect(() => f(arr([3]), [0, "1"]), name).toThrow(`${name}: kth holds integers (the positions to put in place), got "1"`);
      expect(() => f(arr([3]), true), name).toThrow(`${name}: kth is an integer or a list of integers, not true`);
      expect(() => f(arr([3]), "1"), name).toThrow(TypeError);
      expect(() => f(arr([3]), undefined), name).toThrow(`${name}: kth is an integer or a list of integers, not undefined`);
      expect(() => f(arr([3]), arr([1], "int64")), name).toThrow(`${name}: kth is an integer or a list of integers, not`);
      expect(() => f(arr([3]), NaN), name).toThrow(TypeError);
    }
  });

  it("check kth against the axis: an IndexError (NumPy's ValueError) outside -n … n - 1", () => {
    for (const [name, f] of Object.entries(partitions)) {
      // np.partition(np.arange(3), 3) → ValueError: kth(=3) out of bounds (3)
      expect(() => f(arr([3]), 3), name).toThrow(IndexError);
      expect(() => f(arr([3]), 3), name).toThrow(`${name}: kth 3 is out of range for an axis of 3 elements; give kth from -3 to 2`);
      // np.partition(np.arange(3), -4) → ValueError: kth(=-1) out of bounds (3)
      expect(() => f(arr([3]), -4), name).toThrow(IndexError);
      expect(() => f(arr([3]), [0, 2, -4]), name).toThrow(`${name}: kth -4 is out of range`);
      expect(() => f(arr([3]), 2), name).toThrow(STREAM);
      expect(() => f(arr([3]), -3), name).toThrow(STREAM);
      expect(() => f(arr([3]), [2, -3, 0, 0]), name).toThrow(STREAM);
      // np.partition(np.arange(3.), []) → TypeError: Partition index must be integer
      expect(() => f(arr([3]), []), name).toThrow(`${name}: kth is an empty list`);
      // np.partition(np.zeros((2, 3)), 2, axis=0) → ValueError: kth(=2) out of bounds (2)
      expect(() => f(arr([2, 3]), 2, { axis: 0 }), name).toThrow(`${name}: kth 2 is out of range for an axis of 2 elements; give kth from -2 to 1`);
      expect(() => f(arr([2, 3]), 2), name).toThrow(STREAM);
      expect(() => f(arr([2, 3]), 2, { axis: -1 }), name).toThrow(STREAM);
      // np.partition(np.zeros((2, 3)), 5, axis=None) works; kth 6 → ValueError
      expect(() => f(arr([2, 3]), 5, { axis: null }), name).toThrow(STREAM);
      expect(() => f(arr([2, 3]), 6, { axis: null }), name).toThrow(`${name}: kth 6 is out of range for an axis of 6 elements`);
      expect(() => f(arr([4, 1]), 1), name).toThrow(`${name}: kth 1 is out of range for an axis of 1 element; give kth from -1 to 0`);
    }
  });

  it("take any kth for an empty array, as NumPy's", () => {
    for (const [name, f] of Object.entries(partitions)) {
      // np.partition(np.zeros((2, 0)), 5), np.partition(np.zeros((0, 3)), 5), np.partition(np.zeros(0), -1) → empty, no error
      expect(() => f(arr([2, 0]), 5), name).toThrow(STREAM);
      expect(() => f(arr([0, 3]), 5), name).toThrow(STREAM);
      expect(() => f(arr([0]), -1), name).toThrow(STREAM);
      expect(() => f(arr([0, 3]), 7, { axis: null }), name).toThrow(STREAM);
      expect(() => f(arr([0]), 0.5), name).toThrow(TypeError);
    }
  });

  it("check the axis: AxisError out of range", () => {
    for (const [name, f] of Object.entries(partitions)) {
      // np.partition(np.zeros((2, 3)), 1, axis=2) → AxisError: axis 2 is out of bounds for array of dimension 2
      expect(() => f(arr([2, 3]), 1, { axis: 2 }), name).toThrow(AxisError);
      expect(() => f(arr([2, 3]), 1, { axis: -3 }), name).toThrow(AxisError);
      expect(() => f(arr([2, 3]), 1, { axis: 0.5 }), name).toThrow(AxisError);
      expect(() => f(arr([2, 3], "complex64"), 1, { axis: -2 }), name).toThrow(STREAM);
      expect(() => f(arr([2, 3], "bool"), [0, 1], { axis: 0 }), name).toThrow(STREAM);
    }
  });

  it("follow NumPy for 0-d arrays: partition needs axis null; argpartition takes the array as 1-d", () => {
    // np.partition(np.array(5), 0) → AxisError: axis -1 is out of bounds for array of dimension 0
    expect(() => partition(arr([]), 0)).toThrow(AxisError);
    expect(() => partition(arr([]), 0)).toThrow("partition: a 0-d array has no axis -1");
    expect(() => partition(arr([]), 0, { axis: 0 })).toThrow(AxisError);
    // np.partition(np.array(5), 0, axis=None) → [5]
    expect(() => partition(arr([]), 0, { axis: null })).toThrow(STREAM);
    expect(() => partition(arr([]), -1, { axis: null })).toThrow(STREAM);
    expect(() => partition(arr([]), 1, { axis: null })).toThrow(IndexError);
    // np.argpartition(np.array(5), 0) → [0]; axis=0 and axis=None the same; kth 1 → ValueError: kth(=1) out of bounds (1)
    expect(() => argpartition(arr([]), 0)).toThrow(STREAM);
    expect(() => argpartition(arr([]), -1, { axis: 0 })).toThrow(STREAM);
    expect(() => argpartition(arr([]), 0, { axis: null })).toThrow(STREAM);
    expect(() => argpartition(arr([]), 1)).toThrow(IndexError);
    expect(() => argpartition(arr([]), 1)).toThrow("argpartition: kth 1 is out of range for an axis of 1 element; give kth from -1 to 0");
    // np.argpartition(np.array(5), 0, axis=1) → AxisError: axis 1 is out of bounds for array of dimension 1; axis=-2 too
    expect(() => argpartition(arr([]), 0, { axis: 1 })).toThrow(AxisError);
    expect(() => argpartition(arr([]), 0, { axis: 1 })).toThrow("argpartition: axis 1 is out of range for a 0-d array, which argpartition takes as 1-d (axis -1, 0 or null)");
    expect(() => argpartition(arr([]), 0, { axis: -2 })).toThrow(AxisError);
    expect(() => argpartition(arr([]), 0, { axis: 0.5 })).toThrow(AxisError);
  });

  it("type partition's result as its input's, argpartition's as int64 (checked by the compiler, not run)", () => {
    const typed = (a: DeviceArray<"float32">): void => {
      const p: DeviceArray<"float32"> = partition(a, [1, 2]);
      const i: DeviceArray<"int64"> = argpartition(a, 1, { axis: null });
      void [p, i];
    };
    expect(typeof typed).toBe("function");
  });
});

describe("lexsort, before any stream is used", () => {
  it("takes a list of DeviceArrays or one DeviceArray", () => {
    expect(() => lexsort(5 as unknown as DeviceArray)).toThrow(TypeError);
    expect(() => lexsort(5 as unknown as DeviceArray)).toThrow("lexsort: keys are a list of DeviceArrays or one DeviceArray whose first axis runs over the keys, not 5");
    expect(() => lexsort(undefined as unknown as DeviceArray)).toThrow(TypeError);
    expect(() => lexsort([arr([3]), [1, 2, 3]] as unknown as DeviceArray[])).toThrow("lexsort: keys[1] is a DeviceArray, not");
    const closed = arr([3], "int8");
    closed.close();
    expect(() => lexsort([arr([3]), closed])).toThrow(ArrayLayoutError);
    expect(() => lexsort([arr([3]), closed])).toThrow("lexsort: keys[1] (int8 [3]) was closed");
    expect(() => lexsort(closed)).toThrow("lexsort: keys (int8 [3]) was closed");
  });

  it("needs at least one key (NumPy: TypeError: need sequence of keys with len > 0)", () => {
    // np.lexsort([]) and np.lexsort(np.zeros(0)) → TypeError
    expect(() => lexsort([])).toThrow(ArgumentError);
    expect(() => lexsort([])).toThrow("lexsort: there are no keys; give at least one key array");
    expect(() => lexsort(arr([0]))).toThrow(ArgumentError);
    expect(() => lexsort(arr([0, 4]))).toThrow("lexsort: there are no keys");
    // np.lexsort(np.array(5)) → TypeError
    expect(() => lexsort(arr([]))).toThrow(ShapeMismatchError);
    expect(() => lexsort(arr([]))).toThrow("lexsort: keys as one array holds a key per element of its first axis, but a 0-d array has none; pass a list of arrays ([keys]) to sort by one 0-d key");
  });

  it("takes keys of one shape, any dtypes", () => {
    // np.lexsort([np.array([1, 2]), np.array([1, 2, 3])]) → ValueError: all keys need to be the same shape
    expect(() => lexsort([arr([2]), arr([3])])).toThrow(ShapeMismatchError);
    expect(() => lexsort([arr([2]), arr([3])])).toThrow("lexsort: keys[1] has shape [3] but keys[0] has [2]; every key has one shape (keys do not broadcast)");
    // np.lexsort([np.array([2, 1]), np.array([[1, 2]])]) → ValueError (no broadcasting)
    expect(() => lexsort([arr([2]), arr([1, 2])])).toThrow(ShapeMismatchError);
    expect(() => lexsort([arr([2], "int8"), arr([2], "complex128"), arr([2], "bool"), arr([2], "uint64"), arr([2], "float16")])).toThrow(STREAM);
    expect(() => lexsort(arr([3, 4], "int16"))).toThrow(STREAM);
    expect(() => lexsort(arr([3, 4, 5]), { axis: 0 })).toThrow(STREAM);
  });

  it("checks the axis against the keys' axes (NumPy's AxisError), no flattened form", () => {
    // np.lexsort(np.zeros((2, 3)), axis=1) → AxisError: axis 1 is out of bounds for array of dimension 1
    expect(() => lexsort(arr([2, 3]), { axis: 1 })).toThrow(AxisError);
    expect(() => lexsort(arr([2, 3]), { axis: -2 })).toThrow(AxisError);
    expect(() => lexsort(arr([2, 3]), { axis: 0 })).toThrow(STREAM);
    expect(() => lexsort([arr([3, 4])], { axis: 0 })).toThrow(STREAM);
    expect(() => lexsort([arr([3, 4])], { axis: -2 })).toThrow(STREAM);
    expect(() => lexsort([arr([3, 4])], { axis: 2 })).toThrow("lexsort: axis 2 is out of range for an array of 2 axes (from -2 to 1)");
    // np.lexsort([...], axis=None) → TypeError; axis=1.0 → TypeError
    expect(() => lexsort([arr([3])], { axis: null as unknown as number })).toThrow(AxisError);
    expect(() => lexsort([arr([3])], { axis: 1.5 })).toThrow(AxisError);
    expect(() => lexsort([arr([3])], 3 as unknown as object)).toThrow("lexsort takes its options as an object ({ axis?, stream? }), not 3");
    // 0-d keys: np.lexsort([np.array(5)], axis=0) → 0 (0-d); axis=1 → AxisError
    expect(() => lexsort([arr([])])).toThrow(STREAM);
    expect(() => lexsort([arr([]), arr([], "int8")], { axis: 0 })).toThrow(STREAM);
    expect(() => lexsort(arr([2]))).toThrow(STREAM);
    expect(() => lexsort([arr([])], { axis: 1 })).toThrow(AxisError);
    expect(() => lexsort([arr([])], { axis: 1 })).toThrow("lexsort: axis 1 is out of range for 0-d keys (axis -1 or 0)");
    expect(() => lexsort([arr([])], { axis: -2 })).toThrow(AxisError);
  });

  it("refuses keys on two devices, naming both", () => {
    const call = (): unknown => lexsort([arr([4], "float32", 0), arr([4], "int32", 1)]);
    expect(call).toThrow(DeviceMismatchError);
    expect(call).toThrow("lexsort: keys[1] is on device 1, but device 0 is needed here");
  });
});

describe("sortComplex, before any stream is used", () => {
  it("takes an open DeviceArray of at least one axis", () => {
    expect(() => sortComplex([1, 2] as unknown as DeviceArray)).toThrow(TypeError);
    expect(() => sortComplex([1, 2] as unknown as DeviceArray)).toThrow("sortComplex: a is a DeviceArray, not");
    const closed = arr([3]);
    closed.close();
    expect(() => sortComplex(closed)).toThrow(ArrayLayoutError);
    expect(() => sortComplex(arr([3]), 2 as unknown as object)).toThrow("sortComplex takes its options as an object ({ stream? }), not 2");
    // np.sort_complex(np.array(5)) → AxisError: axis -1 is out of bounds for array of dimension 0
    expect(() => sortComplex(arr([]))).toThrow(AxisError);
    expect(() => sortComplex(arr([]))).toThrow("sortComplex: a 0-d array has no last axis to sort along; reshape it to [1] first");
    expect(() => sortComplex(arr([2, 3], "int8"))).toThrow(STREAM);
    expect(() => sortComplex(arr([0]))).toThrow(STREAM);
  });

  it("gives NumPy's result dtypes: complex64 for (u)int8, (u)int16 and complex64, complex128 for the rest", () => {
    // for t in "?bBhHiIlLefdFD": np.sort_complex(np.array([3, 1, 2], dtype=t)).dtype
    const expected: Record<DTypeName, DTypeName> = {
      bool: "complex128",
      int8: "complex64",
      uint8: "complex64",
      int16: "complex64",
      uint16: "complex64",
      int32: "complex128",
      uint32: "complex128",
      int64: "complex128",
      uint64: "complex128",
      float16: "complex128",
      bfloat16: "complex128", // not NumPy's; ml_dtypes' bfloat16 goes as float16 does
      float32: "complex128",
      float64: "complex128",
      complex64: "complex64",
      complex128: "complex128",
    };
    for (const [from, to] of Object.entries(expected)) expect(sortComplexDType(dtypes[from as DTypeName]).name, from).toBe(to);
  });
});
