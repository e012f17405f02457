/**
 * Statistics on a real GPU, each against the same computation on the host (or NumPy's values, test/fixtures/arrays):
 * var/std (ddof, axes, keepdims; float64, float32, float16, int8, complex64; strided views), argmin/argmax (flat and
 * along each axis, keepdims, ties, NaN, float32, float16, int8, int64, bool, complex64, a transposed view, a large
 * flat array split into chunks), any/all/countNonzero, norm (vector and matrix orders), allclose and arrayEqual.
 * Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import * as ca from "../../../src/array.ts";
import { decodeHalf, encodeHalf } from "../../../src/core/array/dtype.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import fixture from "../../fixtures/arrays/creation-statistics.json" with { type: "json" };

const num = (v: number | string): number => (v === "nan" ? NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : (v as number));

/** For each output of a reduction over `axes` (sorted) of row-major `data` of `shape`: its elements, row-major. */
function groups<T>(data: readonly T[], shape: readonly number[], axes: readonly number[]): T[][] {
  const kept = shape.map((_, d) => d).filter((d) => !axes.includes(d));
  const nOut = kept.reduce((p, d) => p * shape[d]!, 1);
  const out: T[][] = Array.from({ length: nOut }, () => []);
  data.forEach((v, i) => {
    let r = i;
    const idx: number[] = [];
    for (let k = shape.length - 1; k >= 0; k--) {
      idx[k] = r % shape[k]!;
      r = Math.floor(r / shape[k]!);
    }
    let o = 0;
    for (const d of kept) o = o * shape[d]! + idx[d]!;
    out[o]!.push(v);
  });
  return out;
}

function hostVar(xs: readonly number[], ddof: number): number {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return xs.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(xs.length - ddof, 0);
}

function hostArg(xs: readonly number[], isMax: boolean): number {
  let best = 0;
  for (let j = 1; j < xs.length; j++) {
    if (Number.isNaN(xs[best]!)) break;
    if (Number.isNaN(xs[j]!) || (isMax ? xs[j]! > xs[best]! : xs[j]! < xs[best]!)) best = j;
  }
  return best;
}

function expectClose(got: readonly number[], want: readonly number[], rtol: number, what: string): void {
  expect(got.length, what).toBe(want.length);
  got.forEach((g, k) => {
    const w = want[k]!;
    if (Number.isNaN(w)) expect(g, `${what} [${k}]`).toBeNaN();
    else expect(Math.abs(g - w), `${what} [${k}]: ${g} vs ${w}`).toBeLessThanOrEqual(rtol * Math.abs(w) + 1e-12);
  });
}

/** The elements of `a`, row-major, as numbers (read with toList: float16 decoded, 64-bit integers converted). */
async function values(a: DeviceArray): Promise<number[]> {
  return ([await a.toList()] as unknown[]).flat(Infinity as 1).map((v) => Number(v));
}

describe.skipIf(!gpu.available)(`statistics on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("var and std of float64 give NumPy's values (axes, ddof)", async () => {
    const data = fixture.stats.data.flat();
    using x = DeviceArray.from(Float64Array.from(data), { stream, shape: [3, 4] });
    for (const name of ["var", "std"] as const) {
      for (const axis of [null, 0, 1]) {
        for (const ddof of [0, 1]) {
          using r = ca[name](x, { ddof, ...(axis !== null ? { axis } : {}) });
          expect(r.dtype.name).toBe("float64");
          const want = (fixture.stats as unknown as Record<string, number[]>)[`${name}|${axis === null ? "None" : axis}|${ddof}`]!;
          expectClose(await values(r), want, 1e-14, `${name} axis ${axis} ddof ${ddof}`);
        }
      }
    }
    using k = x.var({ axis: 1, keepdims: true });
    expect(k.shape).toEqual([3, 1]);
    using kall = x.std({ keepdims: true });
    expect(kall.shape).toEqual([1, 1]);
  });

  it("var and std of float32, float16, int8 and complex64, over views, against the host", async () => {
    const n = [6, 5, 40];
    const size = n[0]! * n[1]! * n[2]!;
    const vals = Array.from({ length: size }, (_, i) => ((i * 37) % 23) - 11 + 100); // an offset: two passes matter
    using f32 = DeviceArray.from(Float32Array.from(vals), { stream, shape: n });
    using f16 = DeviceArray.from(Uint16Array.from(vals, (v) => encodeHalf(v / 8)), { stream, dtype: "float16", shape: n });
    using i8 = DeviceArray.from(Int8Array.from(vals, (v) => v - 100), { stream, shape: n });
    for (const [x, host, rtol, outName] of [
      [f32, vals, 1e-5, "float32"],
      [f16, vals.map((v) => decodeHalf(encodeHalf(v / 8))), 2e-3, "float16"],
      [i8, vals.map((v) => v - 100), 1e-12, "float64"],
    ] as const) {
      for (const axis of [[0], [1], [2], [0, 2], [0, 1, 2]]) {
        for (const ddof of [0, 1]) {
          using v = x.var({ axis, ddof });
          using s = ca.std(x, { axis, ddof });
          expect(v.dtype.name).toBe(outName);
          const want = groups(host, n, axis).map((g) => hostVar(g, ddof));
          expectClose(await values(v), want, rtol, `${x.dtype.name} var ${axis}`);
          expectClose(await values(s), want.map(Math.sqrt), rtol, `${x.dtype.name} std ${axis}`);
        }
      }
      // A transposed, stepped view.
      const t = x.transpose(2, 0, 1).slice([0, null, 3]); // [14, 6, 5]
      const th = await values(t);
      using tv = t.var({ axis: [0, 2] });
      expectClose(
        await values(tv),
        groups(th, t.shape, [0, 2]).map((g) => hostVar(g, 0)),
        rtol,
        `${x.dtype.name} var of a view`,
      );
    }
    const c = Float32Array.from({ length: 24 }, (_, i) => ((i * 7) % 11) - 5);
    using cx = DeviceArray.from(c, { stream, dtype: "complex64", shape: [3, 4] });
    using cv = cx.var({ axis: 1 });
    expect(cv.dtype.name).toBe("float32");
    const pairs = Array.from({ length: 12 }, (_, k) => [c[2 * k]!, c[2 * k + 1]!] as const);
    const want = groups(pairs, [3, 4], [1]).map((g) => {
      const mr = g.reduce((a, p) => a + p[0], 0) / g.length;
      const mi = g.reduce((a, p) => a + p[1], 0) / g.length;
      return g.reduce((a, p) => a + (p[0] - mr) ** 2 + (p[1] - mi) ** 2, 0) / g.length;
    });
    expectClose(await values(cv), want, 1e-5, "complex64 var");
  });

  it("argmin and argmax: flat and along each axis, keepdims, ties and NaN, several dtypes", async () => {
    const shape = [5, 7, 9];
    const size = 5 * 7 * 9;
    const base = Array.from({ length: size }, (_, i) => ((i * 29) % 13) - 6); // many ties
    const withNan = base.map((v, i) => (i % 17 === 5 ? NaN : v));
    const cases = [
      ["float32", DeviceArray.from(Float32Array.from(withNan), { stream, shape }), withNan],
      ["float16", DeviceArray.from(Uint16Array.from(withNan, encodeHalf), { stream, dtype: "float16", shape }), withNan],
      ["int8", DeviceArray.from(Int8Array.from(base), { stream, shape }), base],
      ["int64", DeviceArray.from(BigInt64Array.from(base, (v) => BigInt(v) * 10n ** 12n), { stream, shape }), base],
      ["bool", DeviceArray.from(Uint8Array.from(base, (v) => (v > 4 ? 1 : 0)), { stream, dtype: "bool", shape }), base.map((v) => (v > 4 ? 1 : 0))],
    ] as const;
    try {
      for (const [name, x, host] of cases) {
        for (const isMax of [true, false]) {
          const f = isMax ? ca.argmax : ca.argmin;
          using flat = f(x);
          expect([flat.dtype.name, flat.shape]).toEqual(["int64", []]);
          expect(await flat.item(), `${name} flat`).toBe(BigInt(hostArg(host, isMax)));
          for (const axis of [0, 1, 2, -1]) {
            const ax = axis < 0 ? axis + 3 : axis;
            using r = f(x, { axis });
            using k = x[isMax ? "argmax" : "argmin"]({ axis, keepdims: true });
            expect(k.shape).toEqual(shape.map((n, d) => (d === ax ? 1 : n)));
            const want = groups(host as readonly number[], shape, [ax]).map((g) => hostArg(g, isMax));
            expect(await values(r), `${name} ${isMax ? "argmax" : "argmin"} axis ${axis}`).toEqual(want);
            expect(await values(k)).toEqual(want);
          }
          // A transposed view, flat and along an axis.
          const t = x.transpose(2, 0, 1);
          const th = groups(host as readonly number[], shape, []).flat();
          const tHost = Array.from({ length: size }, (_, i) => {
            const [a, b, c] = [Math.floor(i / 35), Math.floor(i / 7) % 5, i % 7];
            return th[b * 63 + c * 9 + a]!;
          });
          using tf = f(t);
          expect(await tf.item(), `${name} transposed flat`).toBe(BigInt(hostArg(tHost, isMax)));
          using ta = f(t, { axis: 1 });
          expect(await values(ta)).toEqual(groups(tHost, [9, 5, 7], [1]).map((g) => hostArg(g, isMax)));
        }
      }
    } finally {
      for (const [, x] of cases) x.close();
    }
    const c = Float32Array.from([1, 5, 3, 0, 3, 7, 3, 7, -1, 9]);
    using cx = DeviceArray.from(c, { stream, dtype: "complex64" });
    expect(await cx.argmax().item()).toBe(2n); // (3, 7): real 3 is the largest, then imaginary 7, first of two
    expect(await cx.argmin().item()).toBe(4n); // (-1, 9)
  });

  it("argmax of a large flat array (split into chunks) finds the first of ties and the first NaN", async () => {
    const n = 1 << 22;
    const h = new Float32Array(n);
    for (let i = 0; i < n; i++) h[i] = (i * 7919) % 1000;
    h[3_000_001] = 5000;
    h[3_500_000] = 5000;
    using x = DeviceArray.from(h, { stream });
    expect(await x.argmax().item()).toBe(3_000_001n);
    expect(await x.argmin().item()).toBe(0n);
    h[2_222_222] = NaN;
    h[3_999_999] = NaN;
    using y = DeviceArray.from(h, { stream });
    expect(await ca.argmin(y).item()).toBe(2_222_222n);
    using z = DeviceArray.from(h, { stream, shape: [1024, 4096] });
    using za = z.argmax({ axis: 0 });
    const host = Array.from({ length: 4096 }, (_, col) => (hostArg(Array.from({ length: 1024 }, (_, r) => h[r * 4096 + col]!), true)));
    expect(await values(za)).toEqual(host);
  });

  it("any, all and countNonzero over axes (NaN counts as non-zero)", async () => {
    const shape = [4, 6];
    const vals = [0, 1, 0, 0, NaN, 0, 0, 0, 0, 0, 0, 0, 2, 3, 4, 5, 6, 7, -1, 0, 0, 0, 0, 1];
    using f = DeviceArray.from(Float32Array.from(vals), { stream, shape });
    using b = DeviceArray.from(Uint8Array.from(vals, (v) => (v !== 0 ? 1 : 0)), { stream, dtype: "bool", shape });
    using i8 = DeviceArray.from(Int8Array.from(vals, (v) => (Number.isNaN(v) ? 9 : v)), { stream, shape });
    for (const x of [f, b, i8]) {
      for (const axis of [undefined, 0, 1, [0, 1]] as const) {
        const axes = axis === undefined ? [0, 1] : typeof axis === "number" ? [axis] : [...axis];
        const g = groups(vals, shape, axes);
        using an = x.any({ ...(axis !== undefined ? { axis } : {}) });
        using al = ca.all(x, { ...(axis !== undefined ? { axis } : {}) });
        using cn = ca.countNonzero(x, { ...(axis !== undefined ? { axis } : {}) });
        expect(an.dtype.name).toBe("bool");
        expect(cn.dtype.name).toBe("int64");
        const toFlat = async (a: DeviceArray): Promise<unknown[]> => [(await a.toList()) as unknown].flat(2);
        expect(await toFlat(an), `${x.dtype.name} any ${String(axis)}`).toEqual(g.map((xs) => xs.some((v) => v !== 0)));
        expect(await toFlat(al), `${x.dtype.name} all ${String(axis)}`).toEqual(g.map((xs) => xs.every((v) => v !== 0)));
        expect(await toFlat(cn), `${x.dtype.name} count ${String(axis)}`).toEqual(g.map((xs) => BigInt(xs.filter((v) => v !== 0).length)));
      }
    }
    using e = ca.zeros([0, 3], { stream });
    expect(await e.any({ axis: 0 }).toList()).toEqual([false, false, false]);
    expect(await e.all({ axis: 0 }).toList()).toEqual([true, true, true]);
    using kd = f.any({ axis: 1, keepdims: true });
    expect(kd.shape).toEqual([4, 1]);
  });

  it("norm: vector and matrix orders give NumPy's values", async () => {
    const data = fixture.stats.data.flat();
    const st = fixture.stats as unknown as Record<string, (number | string)[]>;
    using x = DeviceArray.from(Float64Array.from(data), { stream, shape: [3, 4] });
    for (const ord of [null, 1, 2, "inf", "-inf", 0, 3, 0.5, -1] as const) {
      const o = ord === "inf" ? Infinity : ord === "-inf" ? -Infinity : ord;
      for (const axis of [0, 1]) {
        using r = ca.norm(x, { axis, ...(o !== null ? { ord: o } : {}) });
        expectClose(await values(r), st[`vnorm|${ord === null ? "None" : ord}|${axis}`]!.map(num), 1e-13, `vector ord ${ord} axis ${axis}`);
      }
    }
    for (const ord of ["fro", 1, -1, "inf", "-inf"] as const) {
      const o = ord === "inf" ? Infinity : ord === "-inf" ? -Infinity : ord;
      using r = ca.norm(x, { ord: o });
      expectClose(await values(r), st[`mnorm|${ord}`]!.map(num), 1e-13, `matrix ord ${ord}`);
      using rk = ca.norm(x, { ord: o, axis: [0, 1], keepdims: true });
      expect(rk.shape).toEqual([1, 1]);
    }
    using flat = ca.norm(x);
    expectClose([Number(await flat.item())], st["norm|flat"]!.map(num), 1e-14, "flat");
    // float32 over a transposed view, complex64, int32.
    using f = DeviceArray.from(Float32Array.from(data), { stream, shape: [3, 4] });
    using ft = ca.norm(f.T, { axis: 1 });
    expectClose(await values(ft), st["vnorm|None|0"]!.map(num), 1e-6, "float32 view");
    using cplx = DeviceArray.from(Float32Array.from([3, 4, 0, 0, 1, 0]), { stream, dtype: "complex64" });
    using cn = ca.norm(cplx);
    expect(cn.dtype.name).toBe("float32");
    expectClose([Number(await cn.item())], [Math.sqrt(26)], 1e-6, "complex64");
    using ci = ca.norm(cplx, { ord: 1 });
    expectClose([Number(await ci.item())], [6], 1e-6, "complex64 ord 1");
    using i = DeviceArray.from(Int32Array.from([3, -4]), { stream });
    using ni = ca.norm(i, { ord: Infinity });
    expect(ni.dtype.name).toBe("float64");
    expect(await ni.item()).toBe(4);
    using h = DeviceArray.from(Uint16Array.from([3, 4], encodeHalf), { stream, dtype: "float16" });
    using nh = ca.norm(h);
    expect([nh.dtype.name, await nh.item()]).toEqual(["float16", 5]);
  });

  it("allclose and arrayEqual", async () => {
    using a = DeviceArray.from(Float64Array.from([1, 2, NaN, Infinity]), { stream });
    using b = DeviceArray.from(Float64Array.from([1 + 1e-9, 2, NaN, Infinity]), { stream });
    using c = DeviceArray.from(Float32Array.from([1, 2.001, NaN, Infinity]), { stream });
    expect(await ca.allclose(a, b)).toBe(false);
    expect(await ca.allclose(a, b, { equalNan: true })).toBe(true);
    expect(await ca.allclose(a, c, { equalNan: true })).toBe(false);
    expect(await ca.allclose(a, c, { equalNan: true, rtol: 1e-3 })).toBe(true);
    using row = DeviceArray.from(Float32Array.from([1, 2, 3]), { stream });
    using m = DeviceArray.from(Float32Array.from([1, 2, 3, 1, 2, 3.5]), { stream, shape: [2, 3] });
    expect(await ca.allclose(m.slice(0), row)).toBe(true);
    expect(await ca.allclose(m, row)).toBe(false); // broadcast: the second row differs
    using i = DeviceArray.from(Int32Array.from([1, 2, 3]), { stream });
    using u = DeviceArray.from(BigUint64Array.from([1n, 2n, 3n]), { stream });
    using neg = DeviceArray.from(BigInt64Array.from([1n, 2n, -3n]), { stream });
    expect(await ca.arrayEqual(i, u)).toBe(true);
    expect(await ca.arrayEqual(neg, u)).toBe(false);
    expect(await ca.arrayEqual(i, row)).toBe(true);
    expect(await ca.arrayEqual(a, a)).toBe(false); // NaN != NaN
    expect(await ca.arrayEqual(m, row)).toBe(false); // shapes differ
    using big1 = DeviceArray.from(BigInt64Array.from([2n ** 62n + 1n]), { stream });
    using big2 = DeviceArray.from(BigInt64Array.from([2n ** 62n]), { stream });
    expect(await ca.arrayEqual(big1, big2)).toBe(false); // exact, not through float64
    // equal_nan: NaN equals NaN; infinities only themselves; integers still exact.
    expect(await ca.arrayEqual(a, a, { equalNan: true })).toBe(true);
    expect(await ca.arrayEqual(a, b, { equalNan: true })).toBe(false);
    expect(await ca.arrayEqual(big1, big2, { equalNan: true })).toBe(false);
    // array_equiv: equal once broadcast.
    using twice = DeviceArray.from(Float32Array.from([1, 2, 3, 1, 2, 3]), { stream, shape: [2, 3] });
    expect(await ca.arrayEquiv(row, twice)).toBe(true);
    expect(await ca.arrayEquiv(m, row)).toBe(false);
    expect(await ca.arrayEquiv(i, twice)).toBe(true);
  });
});
