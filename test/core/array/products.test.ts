/**
 * `cross`, `kron`, `inner`, `matrixPower`, `pinv` and `matrixRank` without a GPU: the shapes planned on the host
 * (NumPy's, each beside the NumPy call that gives it), the tolerances NumPy 2 works out, and every argument check
 * before anything is queued; arrays that pass the checks reach the stream lookup (host-reachable fake memory has no
 * stream), the next thing checked.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, AxisError, BroadcastError, DTypeError, ShapeMismatchError, dtypes } from "../../../src/index.ts";
import { cross, inner, kron, matrixPower, matrixRank, pinv } from "../../../src/array-linalg.ts";
import { crossPlan, kronPlan } from "../../../src/core/array/linalg/products.ts";
import { pinvCutoff, rankTolerance } from "../../../src/core/array/linalg/singular-values.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

const NO_STREAM = /needs a stream/;

describe("crossPlan: NumPy's shapes", () => {
  it("vectors of 3 along the last axes, the other axes broadcast", () => {
    // np.cross(np.zeros((5, 3)), np.zeros(3)).shape == (5, 3)
    expect(crossPlan([5, 3], [3], {})).toEqual({ axisa: 1, axisb: 0, na: 3, nb: 3, axisc: 1, batch: [5], shape: [5, 3] });
    // np.cross(np.zeros((4, 1, 3)), np.zeros((2, 3)), axisc=0).shape == (3, 4, 2)
    expect(crossPlan([4, 1, 3], [2, 3], { axisc: 0 }).shape).toEqual([3, 4, 2]);
    // np.cross(np.zeros((2, 4, 3)), np.zeros((2, 4, 3)), axisc=1).shape == (2, 3, 4)
    expect(crossPlan([2, 4, 3], [2, 4, 3], { axisc: 1 }).shape).toEqual([2, 3, 4]);
  });

  it("axisa, axisb and axis", () => {
    // np.cross(np.zeros((3, 5)), np.zeros((5, 3)), axisa=0).shape == (5, 3)
    expect(crossPlan([3, 5], [5, 3], { axisa: 0 })).toMatchObject({ axisa: 0, axisb: 1, shape: [5, 3] });
    // np.cross(np.zeros((3, 5)), np.zeros((3, 5)), axis=0).shape == (3, 5): axis overrides the three others
    expect(crossPlan([3, 5], [3, 5], { axis: 0, axisa: 1, axisc: 1 })).toMatchObject({ axisa: 0, axisb: 0, axisc: 0, shape: [3, 5] });
  });

  it("vectors of 2: a scalar per pair, or a 3-vector beside a 3-vector", () => {
    // np.cross(np.zeros((4, 2)), np.zeros((4, 2))).shape == (4,); np.cross([1, 2], [3, 4]) is a 0-d -2
    expect(crossPlan([4, 2], [4, 2], { axisc: 5 })).toEqual({ axisa: 1, axisb: 1, na: 2, nb: 2, axisc: undefined, batch: [4], shape: [4] });
    expect(crossPlan([2], [2], {}).shape).toEqual([]);
    // np.cross(np.zeros(2), np.zeros(3)).shape == (3,)
    expect(crossPlan([2], [3], {})).toMatchObject({ na: 2, nb: 3, shape: [3] });
  });

  it("refuses axes out of range, vectors of other lengths, other axes that do not broadcast", () => {
    expect(() => crossPlan([3], [3], { axisc: 1 })).toThrow(AxisError); // NumPy: AxisError for axisc
    expect(() => crossPlan([3], [3], { axisa: -2 })).toThrow(/cross: axisa/);
    expect(() => crossPlan([], [3], {})).toThrow(AxisError);
    expect(() => crossPlan([3], [3], { axis: 0.5 })).toThrow(AxisError);
    expect(() => crossPlan([4], [3], {})).toThrow(ShapeMismatchError); // NumPy: "incompatible dimensions for cross product"
    expect(() => crossPlan([3, 5], [3], {})).toThrow(/a cross product takes vectors of 3 \(or 2\) components/);
    expect(() => crossPlan([4, 3], [5, 3], {})).toThrow(BroadcastError);
  });
});

describe("kronPlan: NumPy's shapes", () => {
  it("pads the operand of fewer axes with leading 1s", () => {
    // np.kron(np.zeros((2, 3)), np.zeros((4, 5))).shape == (8, 15)
    expect(kronPlan([2, 3], [4, 5])).toEqual({ aView: [2, 1, 3, 1], bView: [1, 4, 1, 5], product: [2, 4, 3, 5], shape: [8, 15] });
    expect(kronPlan([2, 3], [4]).shape).toEqual([2, 12]); // np.kron(np.zeros((2, 3)), np.zeros(4)).shape
    expect(kronPlan([2], [3, 4]).shape).toEqual([3, 8]); // np.kron(np.zeros(2), np.zeros((3, 4))).shape
    expect(kronPlan([2, 1, 3], [4, 5])).toMatchObject({ bView: [1, 1, 1, 4, 1, 5], shape: [2, 4, 15] });
    expect(kronPlan([0, 3], [2, 2]).shape).toEqual([0, 6]);
  });
});

describe("pinv's and matrixRank's tolerances", () => {
  it("pinv: rcond, else rtol, else 1e-15; rtol null is max(m, n)·eps", () => {
    expect(pinvCutoff(undefined, undefined, 3, 5, dtypes.float64)).toBe(1e-15);
    expect(pinvCutoff(0.1, undefined, 3, 5, dtypes.float64)).toBe(0.1);
    expect(pinvCutoff(undefined, 0.2, 3, 5, dtypes.float32)).toBe(0.2);
    expect(pinvCutoff(undefined, null, 3, 5, dtypes.float64)).toBe(5 * 2 ** -52);
    expect(pinvCutoff(undefined, null, 4, 2, dtypes.complex64)).toBe(4 * 2 ** -23); // np.finfo(np.complex64).eps
    expect(() => pinvCutoff(0.1, 0.1, 3, 5, dtypes.float64)).toThrow(ArgumentError);
    expect(() => pinvCutoff(0.1, null, 3, 5, dtypes.float64)).toThrow(/give one of them/);
  });

  it("matrixRank: tol absolute, else rtol, else max(m, n)·eps of the singular values", () => {
    expect(rankTolerance(undefined, undefined, 3, 7, dtypes.float32)).toEqual({ relative: 7 * 2 ** -23, given: false });
    expect(rankTolerance(undefined, undefined, 3, 2, dtypes.float64)).toEqual({ relative: 3 * 2 ** -52, given: false });
    expect(rankTolerance(undefined, 1e-3, 3, 2, dtypes.float64)).toEqual({ relative: 1e-3, given: true });
    expect(rankTolerance(0.5, undefined, 3, 2, dtypes.float64)).toEqual({ absolute: 0.5 });
    expect(() => rankTolerance(0.5, 0.5, 3, 2, dtypes.float64)).toThrow(ArgumentError);
  });
});

describe("argument checks before anything is queued", () => {
  const v3 = fakeArray([4, 3], "float64");
  const m = fakeArray([3, 3], "float32");

  it("cross", () => {
    expect(() => cross([1, 2, 3] as never, v3)).toThrow(/cross: a is a DeviceArray/);
    expect(() => cross(v3, null as never)).toThrow(TypeError);
    expect(() => cross(v3, v3, 3 as never)).toThrow(/cross takes options/);
    expect(() => cross(v3, fakeArray([4, 4], "float64"))).toThrow(ShapeMismatchError);
    expect(() => cross(v3, v3, { axisa: 2 })).toThrow(AxisError);
    expect(() => cross(fakeArray([3], "bool"), fakeArray([3], "bool"))).toThrow(DTypeError);
    expect(() => cross(v3, fakeArray([3], "int8"))).toThrow(NO_STREAM);
    expect(() => cross(fakeArray([2], "uint8"), fakeArray([3], "uint8"))).toThrow(NO_STREAM);
    expect(() => cross(fakeArray([3, 6], "complex64"), v3, { axisa: 0, axisc: 0 })).toThrow(BroadcastError);
  });

  it("kron and inner", () => {
    expect(() => kron({} as never, m)).toThrow(/kron: a is a DeviceArray/);
    expect(() => kron(m, m, "x" as never)).toThrow(/kron takes options/);
    expect(() => kron(m, fakeArray([2], "bool"))).toThrow(NO_STREAM);
    expect(() => kron(fakeArray([], "int32"), m)).toThrow(NO_STREAM);
    expect(() => inner(m, 2 as never)).toThrow(/inner: b is a DeviceArray/);
    expect(() => inner(m, fakeArray([2, 4], "float32"))).toThrow(/last axes of a \(shape \[3, 3\]\) and b \(shape \[2, 4\]\) have extents 3 and 4/);
    expect(() => inner(fakeArray([3], "float64"), fakeArray([4], "float64"))).toThrow(ShapeMismatchError);
    expect(() => inner(m, fakeArray([5, 2, 3], "int32"))).toThrow(NO_STREAM);
    expect(() => inner(fakeArray([], "float64"), m)).toThrow(NO_STREAM);
  });

  it("matrixPower", () => {
    expect(() => matrixPower(m, 1.5)).toThrow(TypeError); // NumPy: "exponent must be an integer"
    expect(() => matrixPower(m, "2" as never)).toThrow(/the exponent n is an integer/);
    expect(() => matrixPower(fakeArray([3], "float64"), 2)).toThrow(ShapeMismatchError);
    expect(() => matrixPower(fakeArray([2, 3, 4], "float64"), 2)).toThrow(/square matrix or a stack of them/);
    expect(() => matrixPower(fakeArray([3, 3], "float16"), -1)).toThrow(DTypeError);
    expect(() => matrixPower(fakeArray([3, 3], "bfloat16"), -2)).toThrow(DTypeError);
    expect(() => matrixPower(fakeArray([3, 3], "float16"), 3)).toThrow(NO_STREAM);
    expect(() => matrixPower(fakeArray([2, 3, 3], "int32"), -1)).toThrow(NO_STREAM); // NumPy inverts integers in float64
    expect(() => matrixPower(m, 0)).toThrow(NO_STREAM);
    expect(() => matrixPower(m, 1, null as never)).toThrow(/matrixPower takes options/);
  });

  it("pinv", () => {
    expect(() => pinv([[1]] as never)).toThrow(/pinv: a is a DeviceArray/);
    expect(() => pinv(fakeArray([3], "float64"))).toThrow(ShapeMismatchError);
    expect(() => pinv(fakeArray([3, 4], "float64"), { hermitian: true })).toThrow(/with hermitian, a must be square/);
    expect(() => pinv(m, { hermitian: 1 as never })).toThrow(/hermitian is a boolean/);
    expect(() => pinv(m, { rcond: "1e-3" as never })).toThrow(/rcond is a number/);
    expect(() => pinv(m, { rtol: Number.NaN })).toThrow(TypeError);
    expect(() => pinv(m, { rcond: 1e-3, rtol: 1e-3 })).toThrow(ArgumentError);
    expect(() => pinv(m, { rcond: 1e-3, rtol: null })).toThrow(ArgumentError);
    expect(() => pinv(fakeArray([3, 3], "float16"))).toThrow(DTypeError);
    expect(() => pinv(m, 7 as never)).toThrow(/pinv takes options/);
    expect(() => pinv(m, { rtol: null })).toThrow(NO_STREAM);
    expect(() => pinv(fakeArray([2, 5, 3], "complex128"), { rcond: 0.01 })).toThrow(NO_STREAM);
    expect(() => pinv(fakeArray([4, 4], "int64"), { hermitian: true })).toThrow(NO_STREAM);
  });

  it("matrixRank", () => {
    expect(() => matrixRank(3 as never)).toThrow(/matrixRank: a is a DeviceArray/);
    expect(() => matrixRank(m, { tol: 0.1, rtol: 0.1 })).toThrow(ArgumentError);
    expect(() => matrixRank(fakeArray([4], "float64"), { tol: 0.1, rtol: 0.1 })).toThrow(ArgumentError);
    expect(() => matrixRank(m, { tol: "0.1" as never })).toThrow(/tol is a number/);
    expect(() => matrixRank(m, { hermitian: "no" as never })).toThrow(TypeError);
    expect(() => matrixRank(fakeArray([3, 4], "float64"), { hermitian: true })).toThrow(ShapeMismatchError);
    expect(() => matrixRank(fakeArray([3, 3], "bfloat16"))).toThrow(DTypeError);
    expect(() => matrixRank(m)).toThrow(NO_STREAM);
    expect(() => matrixRank(fakeArray([4], "float16"))).toThrow(NO_STREAM); // a vector: any dtype, as NumPy's
    expect(() => matrixRank(fakeArray([2, 0, 3], "float64"), { rtol: 0.5 })).toThrow(NO_STREAM);
  });
});
