/**
 * `diff` and `meshgrid` on a real GPU, against NumPy's results worked out by hand: differences of order 1 and 2,
 * along either axis, of bool arrays (not-equal), with a scalar or array prepended or appended; coordinate grids with
 * "xy" and "ij" indexing, sparse and as views. Then `ediff1d`, `trapezoid`, `gradient` and `unwrap` read back
 * against NumPy 2.4's results (each NumPy call in a comment): dtypes, empty and 0-d inputs, several axes, views,
 * integer, float16, float and complex inputs, NaN and infinities. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type DTypeName, type Stream } from "../../../src/index.ts";
import * as ca from "../../../src/array.ts";
import { diff, meshgrid } from "../../../src/array.ts";
import type { NestedData } from "../../../src/core/array/ops/creation.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, readDecoded, type ElementValue } from "../../support/gpu-arrays.ts";
import { readAndClose } from "../../support/arrays.ts";


/** Each of `got` within `rel` (relative, or absolute below 1) of `want`; NaN and infinities exactly. */
function expectClose(got: readonly ElementValue[], want: readonly number[], rel: number): void {
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => {
    const w = want[i]!;
    if (Number.isNaN(w) || !Number.isFinite(w)) expect(g).toBe(w);
    else expect(Math.abs((g as number) - w)).toBeLessThanOrEqual(rel * Math.max(1, Math.abs(w)));
  });
}

describe.skipIf(!gpu.available)(`diff and meshgrid on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const read = (x: DeviceArray): number[] => readAndClose(x, stream);

  it("takes differences of neighbours, n times, along an axis", () => {
    using x = DeviceArray.from(Float64Array.from([1, 4, 9, 16]), { stream });
    expect(read(diff(x))).toEqual([3, 5, 7]);
    expect(read(diff(x, { n: 2 }))).toEqual([2, 2]);
    expect(read(diff(x, { n: 4 }))).toEqual([]);
    expect(read(diff(x, { n: 0 }))).toEqual([1, 4, 9, 16]);
    using m = DeviceArray.from(Int32Array.from([1, 3, 6, 10, 0, 5, 2, 2]), { stream, shape: [2, 4] });
    using d0 = diff(m, { axis: 0 });
    expect([d0.shape, d0.dtype.name]).toEqual([[1, 4], "int32"]);
    expect(read(d0.copy({ stream }))).toEqual([-1, 2, -4, -8]);
    expect(read(diff(m))).toEqual([2, 3, 4, 5, -3, 0]);
    using b = DeviceArray.from(Uint8Array.from([1, 1, 0, 1]), { stream, dtype: "bool" });
    using db = diff(b);
    expect(db.dtype.name).toBe("bool");
    expect(read(db.copy({ stream }))).toEqual([0, 1, 1]);
  });

  it("prepends and appends before taking differences", () => {
    using x = DeviceArray.from(Float32Array.from([2, 5, 6]), { stream });
    expect(read(diff(x, { prepend: 0 }))).toEqual([2, 3, 1]);
    expect(read(diff(x, { append: 10 }))).toEqual([3, 1, 4]);
    using m = DeviceArray.from(Int32Array.from([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    using p = DeviceArray.from(Int32Array.from([10, 20]), { stream, shape: [2, 1] });
    using d = diff(m, { prepend: p });
    expect(d.shape).toEqual([2, 3]);
    expect(read(d.copy({ stream }))).toEqual([-9, 1, 1, -16, 1, 1]);
  });

  it("makes coordinate grids with xy and ij indexing, sparse and as views", () => {
    using x = DeviceArray.from(Float32Array.from([1, 2, 3]), { stream });
    using y = DeviceArray.from(Float32Array.from([10, 20]), { stream });
    const [X, Y] = meshgrid([x, y]);
    expect([X!.shape, Y!.shape]).toEqual([[2, 3], [2, 3]]);
    expect(read(X!)).toEqual([1, 2, 3, 1, 2, 3]);
    expect(read(Y!)).toEqual([10, 10, 10, 20, 20, 20]);
    const [I, J] = meshgrid([x, y], { indexing: "ij" });
    expect(I!.shape).toEqual([3, 2]);
    expect(read(I!)).toEqual([1, 1, 2, 2, 3, 3]);
    expect(read(J!)).toEqual([10, 20, 10, 20, 10, 20]);
    const [sx, sy] = meshgrid([x, y], { sparse: true });
    expect([sx!.shape, sy!.shape]).toEqual([[1, 3], [2, 1]]);
    const [vx] = meshgrid([x, y], { copy: false });
    expect([vx!.shape, vx!.strides, vx!.base !== undefined]).toEqual([[2, 3], [0, 1], true]);
    expect(read(vx!.copy({ stream }))).toEqual([1, 2, 3, 1, 2, 3]);
  });

  it("hands out a flattened copy of a transposed input as a view that frees it when closed", () => {
    using flat = DeviceArray.from(Float32Array.from([1, 2, 3, 4]), { stream });
    const m = flat.reshape([2, 2]);
    using y = DeviceArray.from(Float32Array.from([10, 20, 30]), { stream });
    // m.T flattened is [1, 3, 2, 4]: no flat view of it exists, so meshgrid copies it first.
    const [vx, vy] = meshgrid([m.transpose(), y], { copy: false });
    expect([vx!.shape, vx!.strides, vx!.base]).toEqual([[3, 4], [0, 1], undefined]);
    expect(vx!.buffer).not.toBe(m.buffer);
    expect(vy!.buffer).toBe(y.buffer);
    expect(read(vx!.copy({ stream }))).toEqual([1, 3, 2, 4, 1, 3, 2, 4, 1, 3, 2, 4]);
    vx!.close();
    expect(vx!.buffer.isClosed).toBe(true);
    expect(m.isClosed).toBe(false);
  });
});

describe.skipIf(!gpu.available)(`ediff1d, trapezoid, gradient and unwrap on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const arr = (data: NestedData, dtype?: DTypeName): DeviceArray => ca.asarray(data, { stream, ...(dtype !== undefined ? { dtype } : {}) });
  const cplx = (pairs: readonly (readonly [number, number])[], dtype: "complex64" | "complex128" = "complex128"): DeviceArray =>
    DeviceArray.from((dtype === "complex64" ? Float32Array : Float64Array).from(pairs.flat()), { stream, dtype });
  const read = (x: DeviceArray): [string, number[], ElementValue[]] => readDecoded(x, stream);

  it("ediff1d: flattened differences with values before and after, in a's dtype", () => {
    using a = arr([1, 2, 4, 7, 0], "int32");
    // np.ediff1d(np.array([1, 2, 4, 7, 0], dtype=np.int32)) → int32 [1, 2, 3, -7]
    expect(read(ca.ediff1d(a))).toEqual(["int32", [4], [1, 2, 3, -7]]);
    // np.ediff1d(a, to_begin=-99, to_end=np.array([88, 99])) → int32 [-99, 1, 2, 3, -7, 88, 99]
    using ends = arr([88, 99]);
    expect(read(ca.ediff1d(a, { toBegin: -99, toEnd: ends }))).toEqual(["int32", [7], [-99, 1, 2, 3, -7, 88, 99]]);
    // np.ediff1d(np.array([[1, 2, 4], [1, 6, 24]], dtype=np.int32)) → [1, 2, -3, 5, 18]
    using m = arr([[1, 2, 4], [1, 6, 24]], "int32");
    expect(read(ca.ediff1d(m))).toEqual(["int32", [5], [1, 2, -3, 5, 18]]);
    // np.ediff1d(np.arange(6.).reshape(2, 3).T) → [3, -2, 3, -2, 3] (a transposed view, read flattened)
    using t = ca.arange(6, { stream, dtype: "float64" });
    expect(read(ca.ediff1d(t.reshape(2, 3).T))).toEqual(["float64", [5], [3, -2, 3, -2, 3]]);
    // np.ediff1d(np.array([1, 2, 3], dtype=np.int8), to_begin=300) → int8 [44, 1, 1] (300 wraps)
    using b = arr([1, 2, 3], "int8");
    expect(read(ca.ediff1d(b, { toBegin: 300 }))).toEqual(["int8", [3], [44, 1, 1]]);
    // np.ediff1d(np.array([3, 1], dtype=np.uint8), to_end=True) → uint8 [254, 1]
    using u = arr([3, 1], "uint8");
    expect(read(ca.ediff1d(u, { toEnd: true }))).toEqual(["uint8", [2], [254, 1]]);
  });

  it("ediff1d: NaN, overflow into float32, float16, complex, empty and 0-d inputs", () => {
    // np.ediff1d(np.array([1, 2.5, np.nan, 4], dtype=np.float32), to_begin=np.array([1, 2]), to_end=1e40) → float32 [1, 2, 1.5, nan, nan, inf]
    using f = arr([1, 2.5, NaN, 4], "float32");
    using begin = arr([1, 2]);
    expect(read(ca.ediff1d(f, { toBegin: begin, toEnd: 1e40 }))).toEqual(["float32", [6], [1, 2, 1.5, NaN, NaN, Infinity]]);
    // np.ediff1d(np.array([1, 2, 4], dtype=np.float16), to_begin=0.1) → float16 [0.0999755859375, 1, 2]
    using h = arr([1, 2, 4], "float16");
    expect(read(ca.ediff1d(h, { toBegin: 0.1 }))).toEqual(["float16", [3], [0.0999755859375, 1, 2]]);
    // np.ediff1d(np.array([1+2j, 3-1j]), to_begin=5) → [5+0j, 2-3j]
    using c = cplx([[1, 2], [3, -1]]);
    expect(read(ca.ediff1d(c, { toBegin: 5 }))).toEqual(["complex128", [2], [[5, 0], [2, -3]]]);
    // np.ediff1d(np.array([], dtype=np.int16), to_begin=3, to_end=np.array([[4], [5]], dtype=np.int16)) → int16 [3, 4, 5]
    using e = arr([], "int16");
    using col = arr([[4], [5]], "int16");
    expect(read(ca.ediff1d(e, { toBegin: 3, toEnd: col }))).toEqual(["int16", [3], [3, 4, 5]]);
    // np.ediff1d(np.array(5.5)) → float64 []
    using z = arr(5.5);
    expect(read(ca.ediff1d(z))).toEqual(["float64", [0], []]);
  });

  it("trapezoid: the trapezoidal rule, NumPy's dtypes", () => {
    // np.trapezoid(np.array([1, 2, 3], dtype=np.float32)) → float32 4.0
    using y = arr([1, 2, 3], "float32");
    expect(read(ca.trapezoid(y))).toEqual(["float32", [], [4]]);
    // np.trapezoid(np.array([100, 100], dtype=np.int8)) → float64 -28.0 (100 + 100 wraps in int8)
    using w = arr([100, 100], "int8");
    expect(read(ca.trapezoid(w))).toEqual(["float64", [], [-28]]);
    // np.trapezoid(np.array([True, False, True])) → float64 1.0
    using b = arr([true, false, true]);
    expect(read(ca.trapezoid(b))).toEqual(["float64", [], [1]]);
    // A whole-number dx multiplies integer sums in float64, as NumPy's float dx does:
    // np.trapezoid(np.array([100, 27], np.int8), dx=2.0) → 127.0; np.trapezoid(np.array([1, 2, 3], np.uint8), dx=-1.0) → -4.0
    using i8 = arr([100, 27], "int8");
    expect(read(ca.trapezoid(i8, { dx: 2 }))).toEqual(["float64", [], [127]]);
    using u8 = arr([1, 2, 3], "uint8");
    expect(read(ca.trapezoid(u8, { dx: -1 }))).toEqual(["float64", [], [-4]]);
    // np.trapezoid(np.array([1, 2, 3], dtype=np.float16), dx=0.5) → float16 2.0
    using h = arr([1, 2, 3], "float16");
    expect(read(ca.trapezoid(h, { dx: 0.5 }))).toEqual(["float16", [], [2]]);
    // np.trapezoid(np.array([1+1j, 2, 3])) → (4+0.5j)
    using c = cplx([[1, 1], [2, 0], [3, 0]]);
    expect(read(ca.trapezoid(c))).toEqual(["complex128", [], [[4, 0.5]]]);
    // np.trapezoid(np.array([1, np.nan, 3])) → nan
    using n = arr([1, NaN, 3]);
    expect(read(ca.trapezoid(n))).toEqual(["float64", [], [NaN]]);
    // np.trapezoid(np.array([], dtype=np.int32)) → float64 0.0; np.trapezoid(np.zeros((2, 0)), axis=0) → float64 []
    using e = arr([], "int32");
    expect(read(ca.trapezoid(e))).toEqual(["float64", [], [0]]);
    using e2 = ca.zeros([2, 0], { stream });
    expect(read(ca.trapezoid(e2, { axis: 0 }))).toEqual(["float64", [0], []]);
  });

  it("trapezoid: sample points, axes and views", () => {
    // np.trapezoid(np.array([1, 2, 3.]), x=np.array([0, 1, 3], dtype=np.int32)) → float64 6.5
    using y = arr([1, 2, 3], "float64");
    using xi = arr([0, 1, 3], "int32");
    expect(read(ca.trapezoid(y, { x: xi }))).toEqual(["float64", [], [6.5]]);
    // np.trapezoid(np.array([1, 2, 3], dtype=np.float32), x=np.array([0, 1, 3], dtype=np.float32)) → float32 6.5
    using yf = arr([1, 2, 3], "float32");
    using xf = arr([0, 1, 3], "float32");
    expect(read(ca.trapezoid(yf, { x: xf }))).toEqual(["float32", [], [6.5]]);
    // np.trapezoid(np.array([1, 2, 3.]), x=np.array([0, 1.])) → 4.0 (one difference, broadcast)
    using x2 = arr([0, 1], "float64");
    expect(read(ca.trapezoid(y, { x: x2 }))).toEqual(["float64", [], [4]]);
    using base = ca.arange(6, { stream });
    const m = base.reshape(2, 3);
    // np.trapezoid(np.arange(6).reshape(2, 3), axis=0) → [1.5, 2.5, 3.5]; default axis → [2, 8]
    expect(read(ca.trapezoid(m, { axis: 0 }))).toEqual(["float64", [3], [1.5, 2.5, 3.5]]);
    expect(read(ca.trapezoid(m))).toEqual(["float64", [2], [2, 8]]);
    // np.trapezoid(np.arange(6).reshape(2, 3), x=np.array([[0, 1, 3], [0, 2, 4]])) → [3.5, 16]
    using xm = arr([[0, 1, 3], [0, 2, 4]]);
    expect(read(ca.trapezoid(m, { x: xm }))).toEqual(["float64", [2], [3.5, 16]]);
    // np.trapezoid(np.arange(6.).reshape(2, 3).T, dx=2, axis=0) → [4, 16]
    using t = ca.arange(6, { stream, dtype: "float64" });
    expect(read(ca.trapezoid(t.reshape(2, 3).T, { dx: 2, axis: 0 }))).toEqual(["float64", [2], [4, 16]]);
  });

  it("gradient: uniform spacing, edge orders 1 and 2, dtypes", () => {
    // np.gradient(np.array([1, 2, 4, 7, 11, 16], dtype=np.int8)) → float64 [1, 1.5, 2.5, 3.5, 4.5, 5]
    using i8 = arr([1, 2, 4, 7, 11, 16], "int8");
    expect(read(ca.gradient(i8) as DeviceArray)).toEqual(["float64", [6], [1, 1.5, 2.5, 3.5, 4.5, 5]]);
    // np.gradient(np.array([1, 2, 4, 7, 11, 16], dtype=np.float32), 2.) → float32 [0.5, 0.75, 1.25, 1.75, 2.25, 2.5]
    using f32 = arr([1, 2, 4, 7, 11, 16], "float32");
    expect(read(ca.gradient(f32, 2) as DeviceArray)).toEqual(["float32", [6], [0.5, 0.75, 1.25, 1.75, 2.25, 2.5]]);
    // np.gradient(np.array([1, 2, 4, 7, 11, 16], dtype=np.float16), edge_order=2) → float16 [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]
    using f16 = arr([1, 2, 4, 7, 11, 16], "float16");
    expect(read(ca.gradient(f16, { edgeOrder: 2 }) as DeviceArray)).toEqual(["float16", [6], [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]]);
    // np.gradient(np.array([3, 1, 4, 1, 5], dtype=np.int64), edge_order=2) → [-4.5, 0.5, 0, 0.5, 7.5]
    using i64 = arr([3, 1, 4, 1, 5]);
    expect(read(ca.gradient(i64, { edgeOrder: 2 }) as DeviceArray)).toEqual(["float64", [5], [-4.5, 0.5, 0, 0.5, 7.5]]);
    // np.gradient(np.array([1, 2, 4.]), np.array(2., dtype=np.float32)) → [0.5, 0.75, 1]
    using f = arr([1, 2, 4], "float64");
    using two = arr(2, "float32");
    expect(read(ca.gradient(f, two) as DeviceArray)).toEqual(["float64", [3], [0.5, 0.75, 1]]);
    // np.gradient(np.array([1, 5, 4., 2]), np.array(2., dtype=np.float32), edge_order=2) → [3.25, 0.75, -0.75, -1.25]
    using g = arr([1, 5, 4, 2], "float64");
    expect(read(ca.gradient(g, two, { edgeOrder: 2 }) as DeviceArray)).toEqual(["float64", [4], [3.25, 0.75, -0.75, -1.25]]);
    // np.gradient(np.array([1+1j, 2, 4-2j])) → [1-1j, 1.5-1.5j, 2-2j]
    using c = cplx([[1, 1], [2, 0], [4, -2]]);
    expect(read(ca.gradient(c) as DeviceArray)).toEqual(["complex128", [3], [[1, -1], [1.5, -1.5], [2, -2]]]);
    // np.gradient(np.array([1, np.nan, 4, 7, np.inf, 16.])) → [nan, 1.5, nan, inf, 4.5, -inf]
    using n = arr([1, NaN, 4, 7, Infinity, 16]);
    expect(read(ca.gradient(n) as DeviceArray)).toEqual(["float64", [6], [NaN, 1.5, NaN, Infinity, 4.5, -Infinity]]);
  });

  it("gradient: coordinates, uneven and even", () => {
    using f = arr([1, 2, 4, 7, 11, 16], "float64");
    using x = arr([0, 1, 1.5, 3.5, 4, 6], "float64");
    // np.gradient(f, np.array([0, 1, 1.5, 3.5, 4, 6])) → [1, 2.9999999999999996, 3.5, 6.700000000000001, 6.899999999999999, 2.5]
    expect(read(ca.gradient(f, x) as DeviceArray)).toEqual(["float64", [6], [1, 2.9999999999999996, 3.5, 6.700000000000001, 6.899999999999999, 2.5]]);
    // edge_order=2 → [-1, 2.9999999999999996, 3.5, 6.700000000000001, 6.899999999999999, -1.8999999999999968]
    expect(read(ca.gradient(f, x, { edgeOrder: 2 }) as DeviceArray)).toEqual(["float64", [6], [-1, 2.9999999999999996, 3.5, 6.700000000000001, 6.899999999999999, -1.8999999999999968]]);
    // np.gradient(f.astype(np.float32), x) → float32 [1, 3, 3.5, 6.699999809265137, 6.900000095367432, 2.5]
    using f32 = arr([1, 2, 4, 7, 11, 16], "float32");
    expect(read(ca.gradient(f32, x) as DeviceArray)).toEqual(["float32", [6], [1, 3, 3.5, 6.699999809265137, 6.900000095367432, 2.5]]);
    // np.gradient(f, np.array([0, 2, 4, 6, 8, 10])) → [0.5, 0.75, 1.25, 1.75, 2.25, 2.5] (even: NumPy's uniform formulas)
    using even = arr([0, 2, 4, 6, 8, 10]);
    expect(read(ca.gradient(f, even) as DeviceArray)).toEqual(["float64", [6], [0.5, 0.75, 1.25, 1.75, 2.25, 2.5]]);
    // np.gradient(np.array([1, np.nan, 4, 7, np.inf, 16.]), np.array([0, 1, 2, 3, 4.5, 5])) → [nan, nan, nan, inf, -inf, -inf]
    using n = arr([1, NaN, 4, 7, Infinity, 16]);
    using xn = arr([0, 1, 2, 3, 4.5, 5]);
    expect(read(ca.gradient(n, xn) as DeviceArray)).toEqual(["float64", [6], [NaN, NaN, NaN, Infinity, -Infinity, -Infinity]]);
    // np.gradient(np.array([1, 2, 4.]), np.array([0, 1, 3], dtype=np.int32)) → [1, 1, 1]
    using g = arr([1, 2, 4], "float64");
    using xi = arr([0, 1, 3], "int32");
    expect(read(ca.gradient(g, xi) as DeviceArray)).toEqual(["float64", [3], [1, 1, 1]]);
    // np.gradient(np.array([1, 2, 4.], dtype=np.float16), np.array([0, 1, 3.])) → float16 [1, 1, 1]
    using h = arr([1, 2, 4], "float16");
    using x3 = arr([0, 1, 3], "float64");
    expect(read(ca.gradient(h, x3) as DeviceArray)).toEqual(["float16", [3], [1, 1, 1]]);
  });

  it("gradient: several axes, in the order asked, with a spacing each", () => {
    using m = arr([[1, 2, 6], [3, 4, 5]], "float64");
    // np.gradient(m) → ([[2, 2, -1], [2, 2, -1]], [[1, 2.5, 4], [1, 1, 1]])
    const both = ca.gradient(m) as DeviceArray[];
    expect(both.map(read)).toEqual([
      ["float64", [2, 3], [2, 2, -1, 2, 2, -1]],
      ["float64", [2, 3], [1, 2.5, 4, 1, 1, 1]],
    ]);
    // np.gradient(m, axis=1) → [[1, 2.5, 4], [1, 1, 1]] (one array); axis=(1, 0) → the two in that order
    expect(read(ca.gradient(m, { axis: 1 }) as DeviceArray)).toEqual(["float64", [2, 3], [1, 2.5, 4, 1, 1, 1]]);
    expect((ca.gradient(m, { axis: [1, 0] }) as DeviceArray[]).map(read)).toEqual([
      ["float64", [2, 3], [1, 2.5, 4, 1, 1, 1]],
      ["float64", [2, 3], [2, 2, -1, 2, 2, -1]],
    ]);
    // np.gradient(m, 2, 3) → ([[1, 1, -0.5], ...], [[0.3333333333333333, 0.8333333333333334, 1.3333333333333333], [0.3333333333333333, ...]])
    const third = 0.3333333333333333;
    expect((ca.gradient(m, 2, 3) as DeviceArray[]).map(read)).toEqual([
      ["float64", [2, 3], [1, 1, -0.5, 1, 1, -0.5]],
      ["float64", [2, 3], [third, 0.8333333333333334, 1.3333333333333333, third, third, third]],
    ]);
    // np.gradient(m, np.array([0, 1]), np.array([0, 1, 3])) → ([[2, 2, -1], ...], [[1, 1.3333333333333335, 2], [1, 0.8333333333333333, 0.5]])
    using r = arr([0, 1]);
    using cc = arr([0, 1, 3]);
    expect((ca.gradient(m, r, cc) as DeviceArray[]).map(read)).toEqual([
      ["float64", [2, 3], [2, 2, -1, 2, 2, -1]],
      ["float64", [2, 3], [1, 1.3333333333333335, 2, 1, 0.8333333333333333, 0.5]],
    ]);
    // np.gradient(np.array([[1, 2, 6, 7], [3, 4, 5, 9.]]), np.array([0, 1, 3, 4]), axis=1, edge_order=2)
    //   → [[0.6666666666666667, 1.3333333333333335, 1.3333333333333326, 0.6666666666666661], [1.1666666666666667, 0.8333333333333333, 2.8333333333333335, 5.166666666666667]]
    using w = arr([[1, 2, 6, 7], [3, 4, 5, 9]], "float64");
    using x4 = arr([0, 1, 3, 4]);
    expect(read(ca.gradient(w, x4, { axis: 1, edgeOrder: 2 }) as DeviceArray)).toEqual([
      "float64",
      [2, 4],
      [0.6666666666666667, 1.3333333333333335, 1.3333333333333326, 0.6666666666666661, 1.1666666666666667, 0.8333333333333333, 2.8333333333333335, 5.166666666666667],
    ]);
  });

  it("unwrap: float phases, NaN, discont, axes", () => {
    // np.unwrap(np.array([0, 3, 6.5, 0.5, -3, 2.9, np.nan, 1.0])) → [0, 3, 0.21681469282041377, 0.5, 3.2831853071795862, 2.9, nan, nan]
    using p = arr([0, 3, 6.5, 0.5, -3, 2.9, NaN, 1.0]);
    const [dt, shape, values] = read(ca.unwrap(p));
    expect([dt, shape]).toEqual(["float64", [8]]);
    expectClose(values, [0, 3, 0.21681469282041377, 0.5, 3.2831853071795862, 2.9, NaN, NaN], 1e-14);
    // np.unwrap(p.astype(np.float32)) → float32 [0, 3, 0.21681499481201172, 0.5000004768371582, 3.2831854820251465, 2.8999996185302734, nan, nan]
    using p32 = arr([0, 3, 6.5, 0.5, -3, 2.9, NaN, 1.0], "float32");
    const [dt32, , v32] = read(ca.unwrap(p32));
    expect(dt32).toBe("float32");
    expectClose(v32, [0, 3, 0.21681499481201172, 0.5000004768371582, 3.2831854820251465, 2.8999996185302734, NaN, NaN], 1e-6);
    // np.unwrap(np.array([0, 3, 6.5, 0.5]), discont=4) → [0, 3, 6.5, 6.783185307179586]
    using q = arr([0, 3, 6.5, 0.5]);
    const [, , vq] = read(ca.unwrap(q, { discont: 4 }));
    expectClose(vq, [0, 3, 6.5, 6.783185307179586], 1e-14);
    // np.unwrap(np.array([[0, 3, 6.5], [0.5, -3, 2.9]]), axis=0) → [[0, 3, 6.5], [0.5, 3.2831853071795862, 9.183185307179587]]
    using m = arr([[0, 3, 6.5], [0.5, -3, 2.9]]);
    const [, s0, v0] = read(ca.unwrap(m, { axis: 0 }));
    expect(s0).toEqual([2, 3]);
    expectClose(v0, [0, 3, 6.5, 0.5, 3.2831853071795862, 9.183185307179587], 1e-14);
    // np.unwrap(m) → [[0, 3, 0.21681469282041377], [0.5, 3.2831853071795862, 2.9]]
    const [, , v1] = read(ca.unwrap(m));
    expectClose(v1, [0, 3, 0.21681469282041377, 0.5, 3.2831853071795862, 2.9], 1e-14);
    // np.unwrap(np.array([0., 180, 360, 540, 720, 90]), period=360) → [0, 180, 360, 540, 720, 810]
    using deg = arr([0, 180, 360, 540, 720, 90], "float64");
    expect(read(ca.unwrap(deg, { period: 360 }))).toEqual(["float64", [6], [0, 180, 360, 540, 720, 810]]);
  });

  it("unwrap: integers, bool, one and no element", () => {
    // np.unwrap(np.array([0, 1, 2, 3])) → float64 [0, 1, 2, 3]
    using i = arr([0, 1, 2, 3]);
    expect(read(ca.unwrap(i))).toEqual(["float64", [4], [0, 1, 2, 3]]);
    // np.unwrap(np.array([0, 1, 3, 2, 5, 6, 9], dtype=np.int8), period=4) → int8 [0, 1, 3, 2, 1, 2, 1]
    using i8 = arr([0, 1, 3, 2, 5, 6, 9], "int8");
    expect(read(ca.unwrap(i8, { period: 4 }))).toEqual(["int8", [7], [0, 1, 3, 2, 1, 2, 1]]);
    // np.unwrap(np.array([1, 2, 3, 4, 5, 6, 1, 2, 3]), period=6) → int64 [1, ..., 9]
    using i64 = arr([1, 2, 3, 4, 5, 6, 1, 2, 3]);
    expect(read(ca.unwrap(i64, { period: 6 }))).toEqual(["int64", [9], [1, 2, 3, 4, 5, 6, 7, 8, 9]]);
    // np.unwrap(np.array([0, 5, 10, 1, 6], dtype=np.int32), period=5) → int32 [0, 0, 0, 1, 1]
    using i32 = arr([0, 5, 10, 1, 6], "int32");
    expect(read(ca.unwrap(i32, { period: 5 }))).toEqual(["int32", [5], [0, 0, 0, 1, 1]]);
    // np.unwrap(np.array([True, False, True])) → float64 [1, 0, 1]
    using b = arr([true, false, true]);
    expect(read(ca.unwrap(b))).toEqual(["float64", [3], [1, 0, 1]]);
    // np.unwrap(np.array([5.])) → [5.]; np.unwrap(np.array([], dtype=np.int64)) → float64 []
    using one = arr([5], "float64");
    expect(read(ca.unwrap(one))).toEqual(["float64", [1], [5]]);
    using none = arr([], "int64");
    expect(read(ca.unwrap(none))).toEqual(["float64", [0], []]);
  });
});
