/**
 * fromfunction, applyAlongAxis and block on a real GPU against NumPy 2.4 (`np.fromfunction`, `np.apply_along_axis`,
 * `np.block`; values in the tests). Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Device, type Stream } from "../../../src/index.ts";
import { add, applyAlongAxis, applyOverAxes, block, ge, gt, lt, neg, piecewise, sqrt, eq, expandDims, fromfunction, max, min, mul, ones, stack, sum } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, readDecoded } from "../../support/gpu-arrays.ts";

describe.skipIf(!gpu.available)(`fromfunction, applyAlongAxis and block on a GPU${skipNote}`, () => {
  let stream: Stream;
  let device: Device;
  onGpuStream((s, d) => {
    stream = s;
    device = d;
  });

  it("fromfunction: float64 coordinates by default, another dtype, a result that is a coordinate array", () => {
    expect(readDecoded(fromfunction((i, j) => add(mul(i!, 10), j!), [2, 3], { stream }), stream)).toEqual(["float64", [2, 3], [0, 1, 2, 10, 11, 12]]);
    expect(readDecoded(fromfunction((i, j) => eq(i!, j!), [2, 2], { stream, dtype: "int32" }), stream)).toEqual(["bool", [2, 2], [true, false, false, true]]);
    // The coordinates themselves come back as a copy (the grid is freed).
    expect(readDecoded(fromfunction((i) => i!, [3], { stream, dtype: "int64" }), stream)).toEqual(["int64", [3], [0, 1, 2]]);
    expect(readDecoded(fromfunction((_i, j) => j!, [0, 3], { stream }), stream)).toEqual(["float64", [0, 3], []]);
    const [rows, cols] = fromfunction((i, j) => [i!, j!], [2, 2], { stream });
    expect(readDecoded(rows!, stream)).toEqual(["float64", [2, 2], [0, 0, 1, 1]]);
    expect(readDecoded(cols!, stream)).toEqual(["float64", [2, 2], [0, 1, 0, 1]]);
  });

  it("applyAlongAxis: same-shape, scalar and array results, results placed at the axis", () => {
    using x = DeviceArray.from(Float64Array.from({ length: 12 }, (_, k) => k), { stream, shape: [3, 4] });
    expect(readDecoded(applyAlongAxis((r) => mul(r, 2, { stream }), 1, x), stream)).toEqual(["float64", [3, 4], [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22]]);
    expect(readDecoded(applyAlongAxis((c) => sum(c, { stream }), 0, x), stream)).toEqual(["float64", [4], [12, 15, 18, 21]]);
    expect(readDecoded(applyAlongAxis((r) => stack([min(r, { stream }), max(r, { stream })], { stream }), 1, x), stream)).toEqual(["float64", [3, 2], [0, 3, 4, 7, 8, 11]]);
    // np.apply_along_axis(lambda v: np.outer(v[:2], v[:2]), 1, arange(24).reshape(2, 3, 4)): shape (2, 2, 2, 4)
    using y = DeviceArray.from(BigInt64Array.from({ length: 24 }, (_, k) => BigInt(k)), { stream, shape: [2, 3, 4] });
    const r = applyAlongAxis((v) => mul(expandDims(v.slice([0, 2]), 1), v.slice([0, 2]), { stream }), 1, y);
    expect(r.shape).toEqual([2, 2, 2, 4]);
    using last = r.slice(1, null, null, 3).copy({ stream });
    expect(readDecoded(last, stream)).toEqual(["int64", [2, 2], [225, 285, 285, 361]]);
    r.close();
    // JavaScript numbers are doubles: float64 results, as NumPy's Python floats; lists of numbers are 1-d results.
    expect(readDecoded(applyAlongAxis((_v, k) => k / 2, 0, x), stream)).toEqual(["float64", [4], [0, 0.5, 1, 1.5]]);
    expect(readDecoded(applyAlongAxis((_v, k) => [k, 0 - k], 0, x), stream)).toEqual(["float64", [2, 4], [0, 1, 2, 3, 0, -1, -2, -3]]);
    // Later results broadcast to the first's shape, as NumPy assigns them.
    expect(readDecoded(applyAlongAxis((_v, k) => (k === 1 ? 7 : [k, k + 1]), 1, x), stream)).toEqual(["float64", [3, 2], [0, 1, 7, 7, 2, 3]]);
  });

  it("applyOverAxes: sums over two axes, keepdims-style (np.apply_over_axes(np.sum, a, [0, 2]))", () => {
    using x = DeviceArray.from(BigInt64Array.from({ length: 24 }, (_, k) => BigInt(k)), { stream, shape: [2, 3, 4] });
    expect(readDecoded(applyOverAxes((v, axis) => sum(v, { axis, stream }), x, [0, 2]), stream)).toEqual(["int64", [1, 3, 1], [60, 92, 124]]);
    expect(readDecoded(applyOverAxes((v, axis) => sum(v, { axis, keepdims: true, stream }), x, -1), stream)).toEqual(["int64", [2, 3, 1], [6, 22, 38, 54, 70, 86]]);
  });

  it("piecewise: functions and values by condition, an otherwise piece, NumPy's conversions", () => {
    using x = DeviceArray.from(Float32Array.from([-3, -2, -1, 0, 1, 2, 3]), { stream });
    const r = readDecoded(piecewise(x, [lt(x, 0), ge(x, 0)], [(v) => neg(v), (v) => sqrt(v)]), stream);
    expect(r.slice(0, 2)).toEqual(["float32", [7]]);
    expect(r[2]).toEqual([3, 2, 1, 0, 1, Math.fround(Math.SQRT2), Math.fround(Math.sqrt(3))]);
    expect(readDecoded(piecewise(x, [lt(x, 0)], [-1, 1]), stream)).toEqual(["float32", [7], [-1, -1, -1, 1, 1, 1, 1]]);
    using xi = DeviceArray.from(BigInt64Array.from([-3n, -2n, -1n, 0n, 1n, 2n, 3n]), { stream });
    // np.piecewise(xi, [xi < -1, xi > 1], [lambda v: v * 1.5, 7.9]): float results truncated into int64.
    expect(readDecoded(piecewise(xi, [lt(xi, -1), gt(xi, 1)], [(v) => v.mul(1.5), 7.9]), stream)).toEqual(["int64", [7], [-4, -3, 0, 0, 0, 7, 7]]);
    // Later pieces win where conditions overlap.
    expect(readDecoded(piecewise(xi, [lt(xi, 0), lt(xi, -2)], [1, 2]), stream)).toEqual(["int64", [7], [2, 1, 1, 0, 0, 0, 0]]);
    // One value for all the elements a function got.
    using m = DeviceArray.from(Float64Array.from([0, 1, 2, 3, 4, 5]), { stream, shape: [2, 3] });
    expect(readDecoded(piecewise(m, [gt(m, 2)], [(v) => sum(v, { stream })]), stream)).toEqual(["float64", [2, 3], [0, 0, 0, 12, 12, 12]]);
  });

  it("orders work fn queued on another stream: results converted and grids freed after it", () => {
    using other = device.createStream();
    const n = 1 << 20;
    using x = DeviceArray.from(Float64Array.from({ length: 2 * n }, (_, k) => k % 1000), { stream, shape: [2, n] });
    // Slice 0 gives float32 (the result's dtype); slice 1 a float64 made on the other stream, converted on `stream`.
    const r = applyAlongAxis((v, k) => (k === 0 ? v.astype("float32", { stream: other }) : mul(v, 3, { stream: other })), 1, x, { stream });
    const got = r.toTypedArraySync({ stream }) as Float32Array;
    r.close();
    expect([got[0], got[999], got[n], got[n + 999], got[2 * n - 1]]).toEqual([0, 999, (n % 1000) * 3, ((n + 999) % 1000) * 3, ((2 * n - 1) % 1000) * 3]);
    const f = fromfunction((i, j) => add(mul(i!, n, { stream: other }), j!, { stream: other }), [2, n], { stream });
    const fh = f.toTypedArraySync({ stream }) as Float64Array;
    f.close();
    expect([fh[0], fh[n - 1], fh[n], fh[2 * n - 1]]).toEqual([0, n - 1, n, 2 * n - 1]);
  });

  it("block: a block matrix, 1-d blocks as one row, rows of 1-d blocks, 0-d blocks", () => {
    using a = ones([2, 2], { stream, dtype: "float64" });
    using b = DeviceArray.zeros([2, 3], "float64", { stream });
    using c = DeviceArray.from(Float64Array.from([2, 2]), { stream, shape: [1, 2] });
    using d = DeviceArray.from(BigInt64Array.from([3n, 3n, 3n]), { stream, shape: [1, 3] });
    expect(readDecoded(block([[a, b], [c, d]]), stream)).toEqual(["float64", [3, 5], [1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 2, 2, 3, 3, 3]]);
    using p = DeviceArray.from(BigInt64Array.from([1n, 2n]), { stream });
    using q = DeviceArray.from(BigInt64Array.from([3n]), { stream });
    using s = DeviceArray.from(BigInt64Array.from([3n, 4n]), { stream });
    expect(readDecoded(block([p, q]), stream)).toEqual(["int64", [3], [1, 2, 3]]);
    expect(readDecoded(block([[p], [s]]), stream)).toEqual(["int64", [2, 2], [1, 2, 3, 4]]);
    using one = DeviceArray.from(BigInt64Array.from([1n]), { stream, shape: [] });
    using two = DeviceArray.from(BigInt64Array.from([2n]), { stream, shape: [] });
    expect(readDecoded(block([[one, two]]), stream)).toEqual(["int64", [1, 2], [1, 2]]);
    expect(readDecoded(block(one, { stream }), stream)).toEqual(["int64", [], [1]]);
    // Each join promotes what it joins, as NumPy's block of small arrays: the int8, uint8 row (int16) beside float16 gives float32.
    using i8 = DeviceArray.from(Int8Array.from([1]), { stream, shape: [1, 1] });
    using u8 = DeviceArray.from(Uint8Array.from([2]), { stream, shape: [1, 1] });
    using h = DeviceArray.from(Float32Array.from([3, 4]), { stream, shape: [1, 2] });
    using h16 = h.astype("float16", { stream });
    expect(readDecoded(block([[i8, u8], [h16]]), stream)).toEqual(["float32", [2, 2], [1, 2, 3, 4]]);
  });
});
