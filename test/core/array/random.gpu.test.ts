/**
 * `cuda-ts/array/random` on a real GPU: the same seed gives the same values (and a sequence continues between
 * draws), every draw's values lie in their range, moments within generous tolerances (hundreds of thousands of
 * samples: the bounds are many standard errors wide), odd counts of normals, integer dtypes, and the module-level
 * functions reseeded by `seed`. Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClosedError, Device, type DeviceArray, type Stream } from "../../../src/index.ts";
import { defaultRng, integers, random, seed, normal } from "../../../src/array-random.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { nums } from "./math-host.ts";

function moments(x: readonly number[]): { mean: number; variance: number; min: number; max: number } {
  let s = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const v of x) {
    s += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const mean = s / x.length;
  let q = 0;
  for (const v of x) q += (v - mean) ** 2;
  return { mean, variance: q / x.length, min, max };
}

describe.skipIf(!gpu.available)(`array random on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  const N = 200_001;

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
  });

  afterAll(() => {
    stream?.close();
  });

  const host = (a: DeviceArray): number[] => {
    try {
      return nums(a.toTypedArraySync({ stream }));
    } finally {
      a.close();
    }
  };

  it("gives the same values for the same seed, others for another, and continues the sequence between draws", () => {
    using g1 = defaultRng(42, { stream });
    using g2 = defaultRng(42, { stream });
    using g3 = defaultRng(43, { stream });
    const a = host(g1.random([1000]));
    const b = host(g2.random([1000]));
    const c = host(g3.random([1000]));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    const next = host(g1.random([1000]));
    expect(next).not.toEqual(a);
    expect(host(g2.random([1000]))).toEqual(next);
    expect(g1.seed).toBe(42n);
  });

  it("random: [0, 1), float64 by default and float32 on request, mean 1/2 and variance 1/12", () => {
    using g = defaultRng(1, { stream });
    for (const dtype of ["float64", "float32"] as const) {
      const x = g.random([N], { dtype });
      expect(x.dtype.name).toBe(dtype);
      expect(x.shape).toEqual([N]);
      const m = moments(host(x));
      expect(m.min, dtype).toBeGreaterThanOrEqual(0);
      expect(m.max, dtype).toBeLessThan(1);
      expect(Math.abs(m.mean - 0.5), dtype).toBeLessThan(0.01);
      expect(Math.abs(m.variance - 1 / 12), dtype).toBeLessThan(0.005);
    }
    const z = g.random();
    expect(z.shape).toEqual([]);
    z.close();
    const e = g.random([0, 3]);
    expect(e.size).toBe(0);
    e.close();
  });

  it("uniform, exponential: their ranges and means", () => {
    using g = defaultRng(2, { stream });
    const u = moments(host(g.uniform(-2, 3, [N])));
    expect(u.min).toBeGreaterThanOrEqual(-2);
    expect(u.max).toBeLessThan(3);
    expect(Math.abs(u.mean - 0.5)).toBeLessThan(0.05);
    const x = moments(host(g.exponential(2, [N], { dtype: "float32" })));
    expect(x.min).toBeGreaterThanOrEqual(0);
    expect(Math.abs(x.mean - 2)).toBeLessThan(0.05);
    expect(Math.abs(x.variance - 4)).toBeLessThan(0.3);
  });

  it("normal (an odd count), standardNormal, logNormal: means and spreads", () => {
    using g = defaultRng(3, { stream });
    const n = host(g.normal(1, 2, [N]));
    expect(n.length).toBe(N);
    expect(Number.isFinite(n[N - 1]!)).toBe(true);
    const m = moments(n);
    expect(Math.abs(m.mean - 1)).toBeLessThan(0.05);
    expect(Math.abs(Math.sqrt(m.variance) - 2)).toBeLessThan(0.05);
    const s = moments(host(g.standardNormal([1001], { dtype: "float32" })));
    expect(Math.abs(s.mean)).toBeLessThan(0.2);
    const l = host(g.logNormal(0, 0.5, [N]));
    expect(Math.min(...l.slice(0, 1000))).toBeGreaterThan(0);
    const ll = moments(l.map(Math.log));
    expect(Math.abs(ll.mean)).toBeLessThan(0.02);
    expect(Math.abs(Math.sqrt(ll.variance) - 0.5)).toBeLessThan(0.02);
  });

  it("integers: [low, high) (or [0, high), or with the endpoint), int64 by default, any integer dtype, every value about equally often", () => {
    using g = defaultRng(4, { stream });
    const x = g.integers(0, 10, [N]);
    expect(x.dtype.name).toBe("int64");
    const v = host(x);
    const counts = new Array<number>(10).fill(0);
    for (const k of v) {
      expect(k >= 0 && k < 10).toBe(true);
      counts[k]!++;
    }
    for (const c of counts) expect(Math.abs(c - N / 10)).toBeLessThan(N / 100);
    const y = host(g.integers(-5, 5, [N], { dtype: "int8" }));
    expect(Math.min(...y.slice(0, 50000))).toBe(-5);
    expect(Math.max(...y.slice(0, 50000))).toBe(4);
    const z = host(g.integers(6, undefined, [1000], { dtype: "uint16" }));
    expect(Math.max(...z)).toBe(5);
    const w = host(g.integers(1, 3, [1000], { dtype: "int32", endpoint: true }));
    expect(new Set(w)).toEqual(new Set([1, 2, 3]));
    const big = host(g.integers(2n ** 40n, 2n ** 40n + 3n, [100]));
    for (const b of big) expect(b >= 2 ** 40 && b < 2 ** 40 + 3).toBe(true);
  });

  it("poisson: int64 counts of mean and variance lam", () => {
    using g = defaultRng(5, { stream });
    const p = g.poisson(3, [N]);
    expect(p.dtype.name).toBe("int64");
    const m = moments(host(p));
    expect(m.min).toBeGreaterThanOrEqual(0);
    expect(Math.abs(m.mean - 3)).toBeLessThan(0.05);
    expect(Math.abs(m.variance - 3)).toBeLessThan(0.15);
  });

  it("draws on another stream of the device when a call names one, and refuses a closed generator", () => {
    using other = dev.createStream();
    const g = defaultRng(6, { stream });
    const a = g.random([8], { stream: other });
    expect(a.stream).toBe(other);
    expect(nums(a.toTypedArraySync({ stream: other })).every((x) => x >= 0 && x < 1)).toBe(true);
    a.close();
    g.close();
    expect(() => g.random([2])).toThrow(ClosedError);
  });

  it("the module-level functions draw from a default generator per device, reseeded by seed()", () => {
    seed(123);
    const a = host(random([16], { stream }));
    const b = host(normal(0, 1, [16], { stream }));
    seed(123);
    expect(host(random([16], { stream }))).toEqual(a);
    expect(host(normal(0, 1, [16], { stream }))).toEqual(b);
    const k = host(integers(0, 3, [100], { stream }));
    expect(k.every((x) => x >= 0 && x < 3)).toBe(true);
    seed();
  });
});
