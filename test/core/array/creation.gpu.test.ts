/**
 * Creating arrays on a real GPU: zeros, ones, full (dtypes from the value), the *Like forms on the prototype's
 * stream, arange and linspace against NumPy's values (test/fixtures/arrays, bit for bit), eye/identity/tri with m and
 * k, tril/triu batched over a strided view, diag both ways, asarray/array from nested lists, typed arrays and
 * DeviceArrays, and reading back with item/toList, in float64, float32, float16, bfloat16, int8, int64, bool and
 * complex64. Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, DeviceArray, type Stream } from "../../../src/index.ts";
import * as ca from "../../../src/array.ts";
import { encodeHalf } from "../../../src/core/array/dtype.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import fixture from "../../fixtures/arrays/creation-statistics.json" with { type: "json" };

const num = (v: number | string): number => (v === "nan" ? NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : (v as number));

/** tril/triu on the host: row-major data of shape [..., rows, cols]. */
function hostTriangle(data: readonly number[], rows: number, cols: number, k: number, lower: boolean): number[] {
  return data.map((v, i) => {
    const c = i % cols;
    const r = Math.floor(i / cols) % rows;
    return (lower ? c - r <= k : c - r >= k) ? v : 0;
  });
}

describe.skipIf(!gpu.available)(`array creation on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
  });

  afterAll(() => {
    stream?.close();
  });

  it("zeros, ones, full and empty in several dtypes", async () => {
    for (const dtype of ["float64", "float32", "float16", "bfloat16", "int8", "int64", "bool", "complex64"] as const) {
      using z = ca.zeros([2, 3], { stream, dtype });
      using o = ca.ones([2, 3], { stream, dtype });
      using f = ca.full([3], dtype === "bool" ? true : dtype === "complex64" ? [1.5, -2] : 5, { stream, dtype });
      using e = ca.empty([4, 0], { stream, dtype });
      expect([z.dtype.name, z.shape, z.stream]).toEqual([dtype, [2, 3], stream]);
      expect(e.shape).toEqual([4, 0]);
      const zero = dtype === "bool" ? false : dtype === "int64" ? 0n : dtype === "complex64" ? [0, 0] : 0;
      const one = dtype === "bool" ? true : dtype === "int64" ? 1n : dtype === "complex64" ? [1, 0] : 1;
      expect(await z.toList()).toEqual([Array(3).fill(zero), Array(3).fill(zero)]);
      expect(await o.toList()).toEqual([Array(3).fill(one), Array(3).fill(one)]);
      const v = dtype === "bool" ? true : dtype === "int64" ? 5n : dtype === "complex64" ? [1.5, -2] : 5;
      expect(await f.toList(), dtype).toEqual([v, v, v]);
    }
    using d64 = ca.zeros(5, { stream });
    expect(d64.dtype.name).toBe("float64");
  });

  it("full takes its dtype from the value as NumPy does", async () => {
    using i = ca.full([2], 3, { stream });
    using f = ca.full([2], 3.5, { stream });
    using b = ca.full([2], true, { stream });
    using g = ca.full([2], 2n ** 40n, { stream });
    using c = ca.full([2], [1, 2], { stream });
    expect([i.dtype.name, f.dtype.name, b.dtype.name, g.dtype.name, c.dtype.name]).toEqual(["int64", "float64", "bool", "int64", "complex128"]);
    expect(await i.toList()).toEqual([3n, 3n]);
    expect(await g.toList()).toEqual([2n ** 40n, 2n ** 40n]);
    using t = ca.full([3], 2.9, { stream, dtype: "int16" });
    expect(await t.toList()).toEqual([2, 2, 2]);
  });

  it("the *Like forms take the prototype's shape, dtype and stream", async () => {
    using other = dev.createStream();
    using p = ca.zeros([2, 2], { stream: other, dtype: "int8" });
    using z = ca.zerosLike(p);
    using o = ca.onesLike(p, { dtype: "float16" });
    using f = ca.fullLike(p, 7, { shape: [3] });
    using e = ca.emptyLike(p);
    expect([z.shape, z.dtype.name, z.stream]).toEqual([[2, 2], "int8", other]);
    expect([o.dtype.name, f.shape, e.shape]).toEqual(["float16", [3], [2, 2]]);
    expect(await o.toList()).toEqual([
      [1, 1],
      [1, 1],
    ]);
    expect(await f.toList()).toEqual([7, 7, 7]);
    other.sync();
  });

  it("arange gives NumPy's dtypes and values, bit for bit", async () => {
    for (const c of fixture.arange) {
      const opts = { stream, ...(c.dtype !== null ? { dtype: c.dtype as "float32" } : {}) };
      using a = (ca.arange as (...x: unknown[]) => DeviceArray)(...c.args, opts);
      expect(a.dtype.name, JSON.stringify(c)).toBe(c.out);
      const got = ((await a.toList()) as (number | bigint)[]).map(Number);
      expect(got, JSON.stringify(c)).toEqual(c.values.map(num));
    }
    using big = ca.arange(2n ** 60n, 2n ** 60n + 6n, 2n, { stream });
    expect(await big.toList()).toEqual([2n ** 60n, 2n ** 60n + 2n, 2n ** 60n + 4n]);
    using long = ca.arange(0, 1 << 20, { stream, dtype: "float32" });
    const host = await long.toTypedArray();
    expect(host[(1 << 20) - 1]).toBe((1 << 20) - 1);
    expect(host[12345]).toBe(12345);
  });

  it("linspace gives NumPy's values, bit for bit", async () => {
    for (const c of fixture.linspace) {
      using a = ca.linspace(c.start, c.stop, c.num, { stream, endpoint: c.endpoint, ...(c.dtype !== null ? { dtype: c.dtype as "float32" } : {}) });
      expect(a.dtype.name).toBe(c.out);
      const got = ((await a.toList()) as (number | bigint)[]).map(Number);
      expect(got, JSON.stringify(c)).toEqual(c.values.map(num));
    }
  });

  it("logspace and geomspace give NumPy's values (the ends of geomspace exactly, others within a few ulps)", async () => {
    const values = async (a: DeviceArray): Promise<number[]> => ((await a.toList()) as (number | bigint)[]).map(Number);
    const close = (got: number[], want: number[]): void => {
      expect(got.length).toBe(want.length);
      got.forEach((g, i) => (Number.isNaN(want[i]!) ? expect(g).toBeNaN() : expect(Math.abs(g - want[i]!)).toBeLessThanOrEqual(4e-16 * Math.abs(want[i]!))));
    };
    const cases: [DeviceArray, string, number[]][] = [
      [ca.logspace(0, 3, 4, { stream }), "float64", [1, 10, 100, 1000]],
      [ca.logspace(0, 1, 5, { stream, base: 2 }), "float64", [1, 1.189207115002721, 1.4142135623730951, 1.681792830507429, 2]],
      [ca.logspace(0, 3, 3, { stream, endpoint: false }), "float64", [1, 10, 100]],
      [ca.logspace(0, -2, 3, { stream, base: -2 }), "float64", [1, -0.5, 0.25]],
      [ca.geomspace(1, 2, 5, { stream }), "float64", [1, 1.189207115002721, 1.4142135623730951, 1.681792830507429, 2]],
      [ca.geomspace(1, 2, 5, { stream, endpoint: false }), "float64", [1, 1.148698354997035, 1.3195079107728942, 1.5157165665103982, 1.7411011265922482]],
      [ca.geomspace(-1, -1000, 4, { stream }), "float64", [-1, -10, -100, -1000]],
      [ca.geomspace(-1, 100, 3, { stream }), "float64", [-1, NaN, 100]],
      [ca.geomspace(3, 7, 6, { stream }), "float64", [3, 3.553993357626732, 4.210289595351644, 4.987780418521561, 5.908846158908771, 7]],
      [ca.geomspace(3, 7, 1, { stream }), "float64", [3]],
    ];
    for (const [a, dtype, want] of cases) {
      try {
        expect(a.dtype.name).toBe(dtype);
        close(await values(a), want);
      } finally {
        a.close();
      }
    }
    // The ends of geomspace are start and stop exactly.
    using g = ca.geomspace(3, 7, 6, { stream });
    const gv = await values(g);
    expect([gv[0], gv[5]]).toEqual([3, 7]);
    using d = ca.logspace(0, 2, { stream });
    expect(d.shape).toEqual([50]);
    using e = ca.geomspace(1, 2, 0, { stream });
    expect(e.shape).toEqual([0]);
    // Other dtypes: converted as astype converts (float32 rounds, integers truncate, complex takes real parts).
    using f = ca.logspace(0, 3, 4, { stream, dtype: "float32" });
    expect([f.dtype.name, await values(f)]).toEqual(["float32", [1, 10, 100, 1000]]);
    using i = ca.logspace(0, 3, 4, { stream, dtype: "int32" });
    expect([i.dtype.name, await values(i)]).toEqual(["int32", [1, 10, 100, 1000]]);
    using h = ca.geomspace(0.5, 8, 5, { stream, dtype: "float32" });
    expect(await values(h)).toEqual([0.5, 1, 2, 4, 8]);
    using c = ca.logspace(0, 1, 3, { stream, dtype: "complex64" });
    expect(c.dtype.name).toBe("complex64");
    const cv = (await c.toList()) as [number, number][];
    expect(cv.map(([re, im]) => [re, im])).toEqual([
      [1, 0],
      [Math.fround(3.1622776601683795), 0],
      [10, 0],
    ]);
  });

  it("eye, identity and tri with m, k and dtypes", async () => {
    using e = ca.eye(3, { stream, m: 4, k: 1, dtype: "float16" });
    expect(await e.toList()).toEqual([
      [0, 1, 0, 0],
      [0, 0, 1, 0],
      [0, 0, 0, 1],
    ]);
    using i = ca.identity(2, { stream, dtype: "int8" });
    expect(await i.toList()).toEqual([
      [1, 0],
      [0, 1],
    ]);
    using t = ca.tri(3, { stream, k: -1 });
    expect(t.dtype.name).toBe("float64");
    expect(await t.toList()).toEqual([
      [0, 0, 0],
      [1, 0, 0],
      [1, 1, 0],
    ]);
    using c = ca.eye(2, { stream, dtype: "complex64" });
    expect(await c.toList()).toEqual([
      [
        [1, 0],
        [0, 0],
      ],
      [
        [0, 0],
        [1, 0],
      ],
    ]);
    using b = ca.eye(2, { stream, dtype: "bool", k: -1 });
    expect(await b.toList()).toEqual([
      [false, false],
      [true, false],
    ]);
  });

  it("tril and triu over a stack of matrices, from a strided view", async () => {
    const d = Float32Array.from({ length: 2 * 3 * 8 }, (_, i) => i + 1);
    using big = DeviceArray.from(d, { stream, shape: [2, 3, 8] });
    const x = big.slice(null, null, [0, null, 2]); // [2, 3, 4], stride 2 along the last axis
    const host = ([await x.toList()] as unknown[]).flat(Infinity as 1) as number[];
    for (const k of [-1, 0, 1, 5]) {
      using l = ca.tril(x, { k });
      using u = ca.triu(x, { k });
      expect(l.shape).toEqual([2, 3, 4]);
      expect(([await l.toList()] as unknown[]).flat(Infinity as 1), `tril k=${k}`).toEqual(hostTriangle(host, 3, 4, k, true));
      expect(([await u.toList()] as unknown[]).flat(Infinity as 1), `triu k=${k}`).toEqual(hostTriangle(host, 3, 4, k, false));
    }
    using xi = DeviceArray.from(Int8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]), { stream, shape: [3, 3] });
    using lt = ca.tril(xi.T);
    expect(await lt.toList()).toEqual([
      [1, 0, 0],
      [2, 5, 0],
      [3, 6, 9],
    ]);
  });

  it("diag: a vector onto a diagonal, a matrix's diagonal out (from a transposed view)", async () => {
    using v = DeviceArray.from(Float64Array.from([1, 2, 3]), { stream });
    using d1 = ca.diag(v, { k: 1 });
    expect(await d1.toList()).toEqual([
      [0, 1, 0, 0],
      [0, 0, 2, 0],
      [0, 0, 0, 3],
      [0, 0, 0, 0],
    ]);
    using d2 = ca.diag(v, { k: -2 });
    expect(d2.shape).toEqual([5, 5]);
    expect(((await d2.toList()) as number[][])[4]).toEqual([0, 0, 3, 0, 0]);
    using m = DeviceArray.from(Int32Array.from({ length: 12 }, (_, i) => i), { stream, shape: [3, 4] });
    for (const [k, want] of [
      [0, [0, 5, 10]],
      [1, [1, 6, 11]],
      [-1, [4, 9]],
      [3, [3]],
      [4, []],
      [-3, []],
    ] as const) {
      using g = ca.diag(m, { k });
      expect(await g.toList(), `k=${k}`).toEqual(want);
    }
    using gt = ca.diag(m.T, { k: 1 }); // m.T is [4, 3]: elements [0][1], [1][2] of the transpose
    expect(await gt.toList()).toEqual([4, 9]);
  });

  it("asarray and array from nested lists, typed arrays and DeviceArrays", async () => {
    using a = ca.asarray([[1, 2, 3], [4, 5, 6]], { stream });
    expect([a.dtype.name, a.shape]).toEqual(["int64", [2, 3]]);
    expect(await a.toList()).toEqual([
      [1n, 2n, 3n],
      [4n, 5n, 6n],
    ]);
    using f = ca.asarray([[1.5, 2], [3, 4]], { stream, dtype: "float16" });
    expect(await f.toList()).toEqual([
      [1.5, 2],
      [3, 4],
    ]);
    using b = ca.asarray([true, false], { stream });
    expect(await b.toList()).toEqual([true, false]);
    using s = ca.asarray(7.5, { stream });
    expect([s.shape, await s.item()]).toEqual([[], 7.5]);
    using t = ca.asarray(new Int8Array([1, -2, 3, -4]), { stream, shape: [2, 2] });
    expect([t.dtype.name, await t.toList()]).toEqual([
      "int8",
      [
        [1, -2],
        [3, -4],
      ],
    ]);
    using h = ca.asarray(new Uint16Array([encodeHalf(0.25)]), { stream, dtype: "float16" });
    expect(await h.toList()).toEqual([0.25]);
    expect(ca.asarray(t)).toBe(t);
    using c = ca.array(t);
    expect(c).not.toBe(t);
    expect(await c.toList()).toEqual(await t.toList());
    using r = ca.array(t.T, { shape: [4] });
    expect(await r.toList()).toEqual([1, 3, -2, -4]);
    using conv = ca.asarray(t, { dtype: "float32" }); // through astype
    expect([conv.dtype.name, await conv.toList()]).toEqual([
      "float32",
      [
        [1, -2],
        [3, -4],
      ],
    ]);
  });

  it("item and toList read every dtype back, from views too", async () => {
    using x = DeviceArray.from(Float32Array.from([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    expect(await x.T.toList()).toEqual([
      [1, 4],
      [2, 5],
      [3, 6],
    ]);
    expect(await x.slice(1, 2).item()).toBe(6);
    expect(await ca.item(x.slice([1, 2], [0, 1]))).toBe(4);
    using i64 = ca.full([1, 1], -5n, { stream });
    expect(await i64.item()).toBe(-5n);
    using c = ca.full([], [1, -1], { stream, dtype: "complex64" });
    expect(await c.item()).toEqual([1, -1]);
    expect(await c.toList()).toEqual([1, -1]);
    using bf = ca.full([2], 1.5, { stream, dtype: "bfloat16" });
    expect(await ca.toList(bf)).toEqual([1.5, 1.5]);
    await expect(x.item()).rejects.toThrow(/has 6 elements/);
  });

  /** dtype, shape and nested elements (int64 as numbers, complex as [re, im]) of `x`, then `x` closed. */
  async function listed(x: DeviceArray): Promise<[string, number[], unknown]> {
    const plain = (v: unknown): unknown => (Array.isArray(v) ? v.map(plain) : typeof v === "bigint" ? Number(v) : v);
    try {
      return [x.dtype.name, [...x.shape], plain(await x.toList())];
    } finally {
      x.close();
    }
  }

  it("vander: powers as columns, NumPy's dtypes", async () => {
    using x = ca.asarray([1, 2, 3, 5], { stream });
    // np.vander(np.array([1, 2, 3, 5]), increasing=True) → int64 [[1, 1, 1, 1], [1, 2, 4, 8], [1, 3, 9, 27], [1, 5, 25, 125]]
    expect(await listed(ca.vander(x, { increasing: true }))).toEqual(["int64", [4, 4], [[1, 1, 1, 1], [1, 2, 4, 8], [1, 3, 9, 27], [1, 5, 25, 125]]]);
    // np.vander(np.array([1, 2, 3, 5]), 3) → [[1, 1, 1], [4, 2, 1], [9, 3, 1], [25, 5, 1]]
    expect(await listed(ca.vander(x, { N: 3 }))).toEqual(["int64", [4, 3], [[1, 1, 1], [4, 2, 1], [9, 3, 1], [25, 5, 1]]]);
    // np.vander(np.array([1, -2, np.nan, 0.5]), 4) → [[1, 1, 1, 1], [-8, 4, -2, 1], [nan, nan, nan, 1], [0.125, 0.25, 0.5, 1]]
    using f = ca.asarray([1, -2, NaN, 0.5], { stream });
    expect(await listed(ca.vander(f, { N: 4 }))).toEqual(["float64", [4, 4], [[1, 1, 1, 1], [-8, 4, -2, 1], [NaN, NaN, NaN, 1], [0.125, 0.25, 0.5, 1]]]);
    // np.vander(np.array([100, 3], dtype=np.int8), 3) → int64 [[10000, 100, 1], [9, 3, 1]]
    using i8 = ca.asarray([100, 3], { stream, dtype: "int8" });
    expect(await listed(ca.vander(i8, { N: 3 }))).toEqual(["int64", [2, 3], [[10000, 100, 1], [9, 3, 1]]]);
    // np.vander(np.array([True, False]), 3) → int64 [[1, 1, 1], [0, 0, 1]]
    using b = ca.asarray([true, false], { stream });
    expect(await listed(ca.vander(b, { N: 3 }))).toEqual(["int64", [2, 3], [[1, 1, 1], [0, 0, 1]]]);
    // np.vander(np.array([1j, 2], dtype=np.complex64), 3) → complex128 [[-1, 1j, 1], [4, 2, 1]]
    using c = DeviceArray.from(Float32Array.from([0, 1, 2, 0]), { stream, dtype: "complex64" });
    expect(await listed(ca.vander(c, { N: 3 }))).toEqual(["complex128", [2, 3], [[[-1, 0], [0, 1], [1, 0]], [[4, 0], [2, 0], [1, 0]]]]);
    // np.vander(np.array([0.5, 2], dtype=np.float32)) → float64 [[0.5, 1], [2, 1]]
    using f32 = ca.asarray([0.5, 2], { stream, dtype: "float32" });
    expect(await listed(ca.vander(f32))).toEqual(["float64", [2, 2], [[0.5, 1], [2, 1]]]);
  });

  it("vander: no columns, one column, no rows, a reversed view", async () => {
    using x = ca.asarray([1, 2, 3], { stream });
    // np.vander(np.array([1, 2, 3]), 0) → int64 shape (3, 0); N=1 → [[1], [1], [1]]
    expect(await listed(ca.vander(x, { N: 0 }))).toEqual(["int64", [3, 0], [[], [], []]]);
    expect(await listed(ca.vander(x, { N: 1 }))).toEqual(["int64", [3, 1], [[1], [1], [1]]]);
    // np.vander(np.array([], dtype=np.float32)) → float64 shape (0, 0)
    using e = ca.asarray([], { stream, dtype: "float32" });
    expect(await listed(ca.vander(e))).toEqual(["float64", [0, 0], []]);
    // np.vander(np.array([1, 2, 3], dtype=np.uint64)[::-1], 2) → float64 [[3, 1], [2, 1], [1, 1]]
    using u = ca.asarray([1, 2, 3], { stream, dtype: "uint64" });
    expect(await listed(ca.vander(ca.flip(u), { N: 2 }))).toEqual(["float64", [3, 2], [[3, 1], [2, 1], [1, 1]]]);
  });
});
