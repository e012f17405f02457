/**
 * `diff`, `ediff1d`, `gradient`, `trapezoid`, `unwrap`, `meshgrid` and the NaN-ignoring reductions without a GPU: the
 * argument errors that come before anything is queued (NumPy 2.4's errors, as typed errors), on arrays over a made-up
 * device address; a call whose checks all pass stops at the stream it needs.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, AxisError, BroadcastError, Buffer, DTypeError, DeviceArray, DeviceMismatchError, ShapeMismatchError, type DTypeName } from "../../../src/index.ts";
import { diff, ediff1d, gradient, meshgrid, nanmax, nanmean, nansum, ptp, trapezoid, unwrap } from "../../../src/array.ts";
import { fakeArray } from "../../support/fake-arrays.ts";

const arr = (shape: number[]): DeviceArray => DeviceArray.fromBuffer(Buffer.fromHandle(0x7f00_0000_0000n, 1 << 16, { owner: {} }), { dtype: "float32", shape });

describe("diff, meshgrid and the NaN-ignoring reductions refuse bad arguments", () => {
  it("diff", () => {
    expect(() => diff(arr([]))).toThrow(ShapeMismatchError);
    expect(() => diff(arr([4]), { n: -1 })).toThrow(ArgumentError);
    expect(() => diff(arr([4]), { n: 1.5 })).toThrow(/n is a non-negative integer/);
    expect(() => diff(arr([4]), { axis: 1 })).toThrow(AxisError);
    expect(() => diff([1, 2] as unknown as DeviceArray)).toThrow(TypeError);
  });

  it("meshgrid", () => {
    expect(meshgrid([])).toEqual([]);
    expect(() => meshgrid([arr([3]), 5 as unknown as DeviceArray])).toThrow(/input 1 is a DeviceArray/);
    expect(() => meshgrid([arr([3])], { indexing: "yx" as "xy" })).toThrow(/indexing is "xy" or "ij"/);
  });

  it("the reductions", () => {
    for (const f of [nansum, nanmean, nanmax, ptp]) expect(() => f({} as DeviceArray)).toThrow(TypeError);
    expect(() => nansum(arr([3]), 3 as unknown as undefined)).toThrow(/takes options/);
  });
});

/** A fake array (no stream): an operation whose checks pass throws the ArgumentError asking for a stream. */
const fake = (shape: number[], dtype: DTypeName = "float64", device = -1): DeviceArray => fakeArray(shape, dtype, device);
const NEEDS_STREAM = /needs a stream/;

describe("ediff1d refuses bad arguments before the stream", () => {
  it("checks a and the extra values' dtypes by NumPy's same_kind rule", () => {
    expect(() => ediff1d([1, 2] as unknown as DeviceArray)).toThrow(TypeError);
    expect(() => ediff1d(fake([3]), 5 as unknown as undefined)).toThrow(/takes options/);
    // np.ediff1d(np.array([True, False])) → TypeError: numpy boolean subtract ... is not supported
    expect(() => ediff1d(fake([3], "bool"))).toThrow(DTypeError);
    // np.ediff1d(np.array([1, 2], dtype=np.uint8), to_begin=5) → TypeError (int64 to uint8 is not same_kind)
    expect(() => ediff1d(fake([3], "uint8"), { toBegin: 5 })).toThrow(/toBegin is a scalar of int64, which does not convert to a's uint8/);
    // np.ediff1d(np.array([1, 2], dtype=np.int8), to_begin=1.5) → TypeError; to_end=1j with float32 → TypeError
    expect(() => ediff1d(fake([3], "int8"), { toBegin: 1.5 })).toThrow(DTypeError);
    expect(() => ediff1d(fake([3], "float32"), { toEnd: [0, 1] })).toThrow(DTypeError);
    expect(() => ediff1d(fake([3], "int8"), { toEnd: fake([2], "float32") })).toThrow(/toEnd is a float32 array/);
    expect(() => ediff1d(fake([3]), { toEnd: "x" as unknown as number })).toThrow(TypeError);
  });

  it("passes what NumPy takes on to the stream", () => {
    // np.ediff1d(np.array([1, 2], dtype=np.int8), to_begin=300) → [44, 1] (wrapped, as NumPy's cast)
    expect(() => ediff1d(fake([3], "int8"), { toBegin: 300, toEnd: fake([2, 2], "int64") })).toThrow(NEEDS_STREAM);
    expect(() => ediff1d(fake([3], "uint8"), { toBegin: true })).toThrow(NEEDS_STREAM);
    expect(() => ediff1d(fake([0, 4], "float32"), { toEnd: 1e40 })).toThrow(NEEDS_STREAM);
    expect(() => ediff1d(fake([], "complex64"), { toBegin: [1, 2] })).toThrow(NEEDS_STREAM);
    expect(() => ediff1d(fake([3], "int8", 0), { toEnd: fake([2], "int8", 1) })).toThrow(DeviceMismatchError);
  });
});

describe("trapezoid refuses bad arguments before the stream", () => {
  it("checks the axis, dx and the sample points", () => {
    expect(() => trapezoid({} as DeviceArray)).toThrow(TypeError);
    // np.trapezoid(np.array(3.)) → IndexError (no axis)
    expect(() => trapezoid(fake([]))).toThrow(AxisError);
    expect(() => trapezoid(fake([2, 3]), { axis: 2 })).toThrow(AxisError);
    expect(() => trapezoid(fake([3]), { dx: "1" as unknown as number })).toThrow(/dx \(the spacing\) is a number/);
    // np.trapezoid([1, 2, 3], x=[0, 1, 3, 4]) → ValueError (shapes (3,) (2,) do not broadcast)
    expect(() => trapezoid(fake([3]), { x: fake([4]) })).toThrow(/x has 4 sample points but y has 3 samples along axis 0/);
    expect(() => trapezoid(fake([2, 3]), { x: fake([2, 2, 3]) })).toThrow(ShapeMismatchError);
    expect(() => trapezoid(fake([2, 3]), { x: fake([3, 3]) })).toThrow(BroadcastError);
    expect(() => trapezoid(fake([3], "float32", 0), { x: fake([3], "float32", 1) })).toThrow(DeviceMismatchError);
  });

  it("passes NumPy's broadcasting cases on to the stream", () => {
    // np.trapezoid([1, 2, 3], x=[0, 1]) → 4.0: diff(x) of one element broadcasts
    expect(() => trapezoid(fake([3]), { x: fake([2]) })).toThrow(NEEDS_STREAM);
    expect(() => trapezoid(fake([2, 3]), { x: fake([1, 3]) })).toThrow(NEEDS_STREAM);
    expect(() => trapezoid(fake([2, 3], "int8"), { axis: 0, dx: 0.5 })).toThrow(NEEDS_STREAM);
    expect(() => trapezoid(fake([0]))).toThrow(NEEDS_STREAM);
  });
});

describe("gradient refuses bad arguments before the stream", () => {
  it("checks f, the axes, the edge order and the number of spacings", () => {
    expect(() => gradient(3 as unknown as DeviceArray)).toThrow(TypeError);
    // np.gradient(np.array([True, False, True])) → TypeError: numpy boolean subtract
    expect(() => gradient(fake([3], "bool"))).toThrow(DTypeError);
    // np.gradient(np.array([1., 2]), edge_order=3) → ValueError: 'edge_order' greater than 2 not supported
    expect(() => gradient(fake([4]), { edgeOrder: 3 as 2 })).toThrow(/edgeOrder is 1 or 2/);
    expect(() => gradient(fake([4]), { edgeOrder: 0 as 1 })).toThrow(ArgumentError);
    // np.gradient(m, axis=(0, 0)) → ValueError: repeated axis
    expect(() => gradient(fake([2, 3]), { axis: [0, -2] })).toThrow(/named twice/);
    expect(() => gradient(fake([2, 3]), { axis: 2 })).toThrow(AxisError);
    // np.gradient(m, 2, 3, 4) → TypeError: invalid number of arguments
    expect(() => gradient(fake([2, 3]), 2, 3, 4)).toThrow(/one spacing per axis \(2\); got 3 spacing arguments/);
    expect(() => gradient(fake([2, 3]), fake([2]))).toThrow(ArgumentError);
    expect(() => gradient(fake([3]), "2" as unknown as number)).toThrow(/spacing 0 is a number or a DeviceArray/);
  });

  it("checks the spacings against their axes", () => {
    // np.gradient(np.array([1, 2, 4.]), np.array([[1, 2, 3]])) → ValueError: distances must be either scalars or 1d
    expect(() => gradient(fake([3]), fake([1, 3]))).toThrow(/give a number, a 0-d array or 1-d coordinates/);
    // np.gradient(m, np.array([0, 1]), np.array([1, 2])) → ValueError: when 1d, distances must match the length
    expect(() => gradient(fake([2, 3]), fake([2]), fake([2]))).toThrow(/the coordinates along axis 1 are 2 but the axis has 3 samples/);
    expect(() => gradient(fake([3]), fake([3], "bool"))).toThrow(DTypeError);
    expect(() => gradient(fake([3]), fake([3], "complex64"))).toThrow(/is complex64 but f is real/);
    // np.gradient(np.array([1.])) and np.gradient(np.array([1., 2]), edge_order=2) → ValueError: Shape of array too small
    expect(() => gradient(fake([1]))).toThrow(/axis 0 has 1 sample, too few for a gradient with edgeOrder 1: at least 2/);
    expect(() => gradient(fake([2]), { edgeOrder: 2 })).toThrow(ShapeMismatchError);
    expect(() => gradient(fake([3], "float64", 0), fake([3], "float64", 1))).toThrow(DeviceMismatchError);
  });

  it("gives a 0-d f no gradient, and passes the rest on to the stream", () => {
    // np.gradient(np.array(5.)) → ()
    expect(gradient(fake([]))).toEqual([]);
    expect(() => gradient(fake([3], "int8"))).toThrow(NEEDS_STREAM);
    expect(() => gradient(fake([2, 3]), 2)).toThrow(NEEDS_STREAM);
    expect(() => gradient(fake([2, 3]), fake([]), { edgeOrder: 2, axis: 1 })).toThrow(NEEDS_STREAM);
    expect(() => gradient(fake([2, 3]), fake([2], "int32"), fake([3], "float32"))).toThrow(NEEDS_STREAM);
    expect(() => gradient(fake([3], "complex64"), fake([3], "complex64"))).toThrow(NEEDS_STREAM);
  });
});

describe("unwrap refuses bad arguments before the stream", () => {
  it("checks p, the axis, the period and discont", () => {
    expect(() => unwrap(null as unknown as DeviceArray)).toThrow(TypeError);
    // np.unwrap(np.array(1.)) → ValueError: diff requires input that is at least one dimensional
    expect(() => unwrap(fake([]))).toThrow(ShapeMismatchError);
    expect(() => unwrap(fake([3]), { axis: 1 })).toThrow(AxisError);
    // np.unwrap(np.array([1 + 1j])) → TypeError: ufunc 'remainder' not supported for the input types
    expect(() => unwrap(fake([3], "complex128"))).toThrow(DTypeError);
    expect(() => unwrap(fake([3]), { period: "360" as unknown as number })).toThrow(/period is a number/);
    expect(() => unwrap(fake([3]), { discont: null as unknown as number })).toThrow(/discont is a number/);
  });

  it("refuses integer periods whose half does not fit p's dtype (NumPy's OverflowError)", () => {
    // np.unwrap(np.array([0, 1, 3], dtype=np.uint8), period=4) → OverflowError: Python integer -2 out of bounds for uint8
    expect(() => unwrap(fake([3], "uint8"), { period: 4 })).toThrow(/-2 is outside the uint8 range/);
    expect(() => unwrap(fake([3], "int8"), { period: 1000 })).toThrow(DTypeError);
    // Both halves fit int8 but the period does not: np.unwrap(np.array([0, 1], np.int8), period=200) → OverflowError
    expect(() => unwrap(fake([3], "int8"), { period: 200 })).toThrow(/200 is outside the int8 range/);
  });

  it("passes what NumPy takes on to the stream", () => {
    expect(() => unwrap(fake([3], "int8"), { period: 4 })).toThrow(NEEDS_STREAM);
    expect(() => unwrap(fake([3], "uint8"), { period: 1 })).toThrow(NEEDS_STREAM);
    expect(() => unwrap(fake([3], "uint8"))).toThrow(NEEDS_STREAM);
    expect(() => unwrap(fake([3], "bool"))).toThrow(NEEDS_STREAM);
    expect(() => unwrap(fake([0]))).toThrow(NEEDS_STREAM);
  });
});
