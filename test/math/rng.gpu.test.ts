/**
 * Rng on a GPU: the moments of each distribution against their exact values (tolerances of about 6 standard errors
 * of the estimate, so a correct generator fails less than once in 10^8 runs), reproducibility for a seed with every
 * generator, offsets and reseeding, odd counts of normals, quasi-random dimensions, and the typed errors before a
 * call. Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ArrayLayoutError,
  ClosedError,
  DTypeError,
  Device,
  DeviceArray,
  DeviceMismatchError,
  type Stream,
} from "../../src/index.ts";
import { Rng, type RngGenerator } from "../../src/math.ts";
import { gpu, skipNote } from "../support/gpu.ts";

function moments(xs: ArrayLike<number>): { mean: number; variance: number } {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  const mean = s / xs.length;
  let v = 0;
  for (let i = 0; i < xs.length; i++) v += (xs[i]! - mean) ** 2;
  return { mean, variance: v / (xs.length - 1) };
}

describe.skipIf(!gpu.available)(`Rng on a GPU${skipNote}`, () => {
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

  it("uniform float32 and float64: in (0, 1], mean 1/2, variance 1/12", async () => {
    using rng = await Rng.create({ stream, generator: "philox", seed: 1234 });
    expect(rng).toBeInstanceOf(Rng);
    const n = 1 << 20;
    for (const dtype of ["float32", "float64"] as const) {
      using x = rng.uniform([n], dtype);
      expect(x.dtype.name).toBe(dtype);
      const h = await x.toTypedArray({ stream });
      let min = Infinity;
      let max = -Infinity;
      for (const v of h) {
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      expect(min).toBeGreaterThan(0);
      expect(max).toBeLessThanOrEqual(1);
      const m = moments(h);
      // standard error of the mean: sqrt(1/12/n) = 2.8e-4; of the variance: about 8e-5
      expect(Math.abs(m.mean - 0.5)).toBeLessThan(2e-3);
      expect(Math.abs(m.variance - 1 / 12)).toBeLessThan(6e-4);
    }
  });

  it("normal of an odd count (handled for cuRAND) with its mean and standard deviation", async () => {
    using rng = await Rng.create({ stream, generator: "xorwow", seed: 99 });
    const n = (1 << 20) + 1;
    using x = DeviceArray.empty([n], "float64", { stream });
    expect(rng.normal(x, { mean: 2, stddev: 3 })).toBe(x);
    const h = await x.toTypedArray({ stream });
    expect(Number.isFinite(h[n - 1]!)).toBe(true);
    const m = moments(h);
    // standard error of the mean 3/sqrt(n) = 2.9e-3; of the standard deviation 3/sqrt(2n) = 2.1e-3
    expect(Math.abs(m.mean - 2)).toBeLessThan(0.02);
    expect(Math.abs(Math.sqrt(m.variance) - 3)).toBeLessThan(0.015);
    using one = rng.normal([1], "float32");
    expect(Number.isFinite((await one.toTypedArray({ stream }))[0]!)).toBe(true);
    using three = rng.normal([3], "float32", { mean: 100, stddev: 0.001 });
    for (const v of await three.toTypedArray({ stream })) expect(Math.abs(v - 100)).toBeLessThan(0.1);
  });

  it("logNormal: the logarithms are normal (odd count, float32)", async () => {
    using rng = await Rng.create({ stream, generator: "mrg32k3a", seed: 5 });
    const n = 300_001;
    using x = rng.logNormal([n], "float32", { mean: -1, stddev: 0.5 });
    const h = await x.toTypedArray({ stream });
    for (const v of h) expect(v).toBeGreaterThan(0);
    const m = moments(Float64Array.from(h, Math.log));
    // standard errors: 0.5/sqrt(n) = 9e-4 and 6.5e-4
    expect(Math.abs(m.mean + 1)).toBeLessThan(6e-3);
    expect(Math.abs(Math.sqrt(m.variance) - 0.5)).toBeLessThan(5e-3);
  });

  it("poisson: uint32 counts of mean and variance lambda", async () => {
    using rng = await Rng.create({ stream, generator: "philox", seed: 7 });
    const n = 1 << 20;
    using x = rng.poisson([n], 4);
    expect(x.dtype.name).toBe("uint32");
    const m = moments(await x.toTypedArray({ stream }));
    // standard errors: 2/sqrt(n) = 2e-3 for the mean, about 6e-3 for the variance
    expect(Math.abs(m.mean - 4)).toBeLessThan(0.012);
    expect(Math.abs(m.variance - 4)).toBeLessThan(0.04);
  });

  it("bits: uint32 words from pseudo-random generators, uint64 from the 64-bit Sobol ones", async () => {
    using rng = await Rng.create({ stream, generator: "xorwow", seed: 3 });
    using w = rng.bits([1 << 16]);
    expect(w.dtype.name).toBe("uint32");
    const m = moments(Float64Array.from(await w.toTypedArray({ stream }) as Uint32Array, (v) => v / 2 ** 32));
    expect(Math.abs(m.mean - 0.5)).toBeLessThan(0.01);
    using sobol = await Rng.create({ stream, generator: "sobol64" });
    using wide = sobol.bits([1024]);
    expect(wide.dtype.name).toBe("uint64");
    using narrow = DeviceArray.empty([8], "uint32", { stream });
    expect(() => sobol.bits(narrow)).toThrow(DTypeError);
  });

  it("every generator gives the same numbers for the same seed, others for another seed, and again after reseed", async () => {
    const generators: RngGenerator[] = ["xorwow", "philox", "mrg32k3a", "mt19937", "mtgp32"];
    const n = 1 << 16;
    for (const generator of generators) {
      const draw = async (seed: number): Promise<Float32Array> => {
        using rng = await Rng.create({ stream, generator, seed });
        using x = rng.uniform([n]);
        return await x.toTypedArray({ stream });
      };
      const a = await draw(42);
      const b = await draw(42);
      const c = await draw(43);
      expect(Array.from(b), generator).toEqual(Array.from(a));
      expect(Array.from(c), generator).not.toEqual(Array.from(a));
      using rng = await Rng.create({ stream, generator, seed: 42 });
      using first = rng.uniform([n]);
      using second = rng.uniform([n]);
      expect(Array.from(await second.toTypedArray({ stream })), generator).not.toEqual(Array.from(a));
      rng.reseed(42);
      using again = rng.uniform([n]);
      expect(Array.from(await again.toTypedArray({ stream })), generator).toEqual(Array.from(a));
      expect(Array.from(await first.toTypedArray({ stream })), generator).toEqual(Array.from(a));
    }
  });

  it("an offset starts elsewhere in the sequence, reproducibly", async () => {
    const draw = async (offset: number): Promise<number[]> => {
      using rng = await Rng.create({ stream, generator: "philox", seed: 11, offset });
      using x = rng.uniform([4096], "float64");
      return Array.from(await x.toTypedArray({ stream }));
    };
    const zero = await draw(0);
    const far = await draw(1_000_000);
    expect(far).not.toEqual(zero);
    expect(await draw(1_000_000)).toEqual(far);
  });

  it("Sobol: a low-discrepancy mean, counts in multiples of the dimensions", async () => {
    using sobol = await Rng.create({ stream, generator: "sobol32" });
    using x = sobol.uniform([1 << 16], "float64");
    const m = moments(await x.toTypedArray({ stream }));
    expect(Math.abs(m.mean - 0.5)).toBeLessThan(1e-3);
    using s3 = await Rng.create({ stream, generator: "scrambled-sobol32", dimensions: 3 });
    using ok = s3.normal([3 * 1000]);
    expect(ok.size).toBe(3000);
    expect(() => s3.uniform([10])).toThrow(/multiples of 3, not 10/);
  });

  it("refuses bad arrays, closed generators and other devices' streams before any call", async () => {
    using rng = await Rng.create({ stream, generator: "philox", seed: 1 });
    using ints = DeviceArray.empty([16], "int32", { stream });
    expect(() => rng.uniform(ints as never)).toThrow(DTypeError);
    expect(() => rng.normal(ints as never)).toThrow(/out is int32 but must be float32 or float64/);
    expect(() => rng.poisson([4], 0)).toThrow(/lambda must be a finite number above 0/);
    expect(() => rng.normal([4], "float32", { stddev: -1 })).toThrow(RangeError);
    expect(() => rng.uniform([4], "float16" as never)).toThrow(DTypeError);
    using m = DeviceArray.empty([4, 6], "float32", { stream });
    expect(() => rng.uniform(m.T)).toThrow(ArrayLayoutError);
    using other = dev.createStream();
    rng.stream = other;
    expect(rng.stream).toBe(other);
    rng.stream = stream;
    if (Device.count > 1) {
      const dev1 = new Device(1);
      using s1 = dev1.createStream();
      expect(() => (rng.stream = s1)).toThrow(DeviceMismatchError);
    }
    const closed = await Rng.create({ stream });
    closed.close();
    closed.close();
    expect(() => closed.uniform([4])).toThrow(ClosedError);
    expect(String(closed)).toBe("Rng(xorwow, closed)");
  });
});
