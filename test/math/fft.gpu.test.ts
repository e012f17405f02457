/**
 * Fft on a GPU, against a direct DFT computed on the CPU in float64 (small sizes, including odd and non-power-of-two
 * ones): 1D, 2D and 3D, batched, c2c both ways, r2c and c2r, single and double precision, in and out of place, round
 * trips with and without normalisation, the plan cache and work areas from a given memory resource, and the typed
 * errors before a call. Tolerances: 1e-4 (single) and 1e-11 (double) of the largest output magnitude. Skips without
 * a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ArrayLayoutError,
  ClosedError,
  DTypeError,
  Device,
  DeviceArray,
  ShapeMismatchError,
  type AllocateOptions,
  type Buffer,
  type MemoryResource,
  type Stream,
} from "../../src/index.ts";
import { Fft, FftPlan } from "../../src/math.ts";
import type { CUdeviceptr } from "../../src/bindings/driver.ts";
import { gpu, skipNote } from "../support/gpu.ts";
import { complexOf, dft, halfSpectrum, maxAbs, maxAbsDiff, seeded } from "./reference.ts";

const TOL = { single: 1e-4, double: 1e-11 } as const;

describe.skipIf(!gpu.available)(`Fft on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let fft: Fft;

  beforeAll(async () => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    fft = await Fft.create({ stream });
  });

  afterAll(() => {
    fft?.close();
    stream?.close();
  });

  const cases: { n: number[]; batch: number; precision: "single" | "double" }[] = [
    { n: [16], batch: 3, precision: "single" },
    { n: [15], batch: 1, precision: "double" },
    { n: [6, 10], batch: 2, precision: "double" },
    { n: [8, 5], batch: 1, precision: "single" },
    { n: [4, 6, 5], batch: 2, precision: "single" },
    { n: [3, 4, 7], batch: 1, precision: "double" },
  ];

  for (const { n, batch, precision } of cases) {
    const label = `${batch} × [${n.join(", ")}] ${precision}`;
    const shape = batch > 1 ? [batch, ...n] : n;
    const dims = n.length;
    const points = n.reduce((a, b) => a * b, 1);
    const complexDtype = precision === "single" ? "complex64" : "complex128";
    const realDtype = precision === "single" ? "float32" : "float64";
    const host = (xs: ArrayLike<number>): Float32Array | Float64Array => (precision === "single" ? Float32Array.from(xs) : Float64Array.from(xs));

    it(`c2c ${label}: forward and inverse against the direct DFT`, async () => {
      const r = seeded(points + batch);
      const data = host(Array.from({ length: 2 * points * batch }, r));
      using x = DeviceArray.from(data, { stream, dtype: complexDtype, shape });
      using y = fft.forward(x, { dims });
      expect(y.dtype.name).toBe(complexDtype);
      expect(y.shape).toEqual(shape);
      const want = dft(data, n, batch, -1);
      const got = await y.toTypedArray({ stream });
      expect(maxAbsDiff(got, want)).toBeLessThan(TOL[precision] * maxAbs(want));
      using z = fft.inverse(y, { dims });
      const wantBack = dft(got, n, batch, 1);
      const back = await z.toTypedArray({ stream });
      expect(maxAbsDiff(back, wantBack)).toBeLessThan(TOL[precision] * maxAbs(wantBack));
      // unnormalised: the round trip is points × x; normalised: x
      expect(maxAbsDiff(Float64Array.from(back, (v) => v / points), data)).toBeLessThan(TOL[precision] * maxAbs(data) * 4);
      using w = fft.inverse(y, { dims, normalize: true });
      expect(maxAbsDiff(await w.toTypedArray({ stream }), data)).toBeLessThan(TOL[precision] * maxAbs(data) * 4);
    });

    it(`r2c and c2r ${label}: the half spectrum, and back`, async () => {
      const r = seeded(3 * points + batch);
      const data = host(Array.from({ length: points * batch }, r));
      using x = DeviceArray.from(data, { stream, dtype: realDtype, shape });
      using y = fft.forward(x, { dims });
      const last = n[n.length - 1]!;
      expect(y.shape).toEqual([...shape.slice(0, -1), Math.floor(last / 2) + 1]);
      expect(y.dtype.name).toBe(complexDtype);
      const want = halfSpectrum(dft(complexOf(data), n, batch, -1), n, batch);
      expect(maxAbsDiff(await y.toTypedArray({ stream }), want)).toBeLessThan(TOL[precision] * maxAbs(want));
      using z = fft.inverse(y, { dims, lastSize: last, normalize: true }); // c2r may overwrite y
      expect(z.shape).toEqual(shape);
      expect(z.dtype.name).toBe(realDtype);
      expect(maxAbsDiff(await z.toTypedArray({ stream }), data)).toBeLessThan(TOL[precision] * maxAbs(data) * 4);
    });
  }

  it("c2c in place, through the plan itself, both directions", async () => {
    const n = 64;
    const data = Float64Array.from({ length: 2 * n }, seeded(1));
    using x = DeviceArray.from(data, { stream, dtype: "complex128" });
    const plan = fft.plan({ kind: "c2c", precision: "double", shape: [n] });
    expect(plan).toBeInstanceOf(FftPlan);
    expect(fft).toBeInstanceOf(Fft);
    plan.exec(x, x, "forward");
    const want = dft(data, [n], 1, -1);
    expect(maxAbsDiff(await x.toTypedArray({ stream }), want)).toBeLessThan(1e-11 * maxAbs(want));
    expect(fft.forward(x, { out: x })).toBe(x);
    plan.exec(x, x, "inverse");
    plan.exec(x, x, "inverse");
    expect(maxAbsDiff(Float64Array.from(await x.toTypedArray({ stream }), (v) => v / (n * n)), data)).toBeLessThan(1e-12 * n);
  });

  it("a large 1D round trip: 2^20 points in single precision", async () => {
    const n = 1 << 20;
    const data = Float32Array.from({ length: 2 * n }, seeded(9));
    using x = DeviceArray.from(data, { stream, dtype: "complex64" });
    using y = fft.forward(x);
    using z = fft.inverse(y, { normalize: true });
    expect(maxAbsDiff(await z.toTypedArray({ stream }), data)).toBeLessThan(1e-5);
  });

  it("caches plans by kind, precision, sizes and batch; work areas come from the memory resource given", async () => {
    let allocations = 0;
    const base = dev.memoryResource;
    const counting: MemoryResource = {
      allocate(size: number | bigint, options?: AllocateOptions): Buffer {
        allocations++;
        return base.allocate(size, options);
      },
      deallocate(ptr: CUdeviceptr, size: number, options?: AllocateOptions): void {
        base.deallocate(ptr, size, options);
      },
      isDeviceAccessible: true,
      isHostAccessible: false,
      deviceId: dev.id,
    };
    using own = await Fft.create({ stream, memoryResource: counting });
    expect(own.memoryResource).toBe(counting);
    const spec = { kind: "c2c", precision: "single", shape: [32, 32], batch: 4 } as const;
    const p = own.plan(spec);
    expect(own.plan({ ...spec })).toBe(p);
    expect(own.planCount).toBe(1);
    expect(p.workSize).toBeGreaterThanOrEqual(0);
    expect(allocations).toBe(p.workSize > 0 ? 1 : 0);
    own.plan({ ...spec, batch: 5 });
    own.plan({ ...spec, kind: "r2c" });
    expect(own.planCount).toBe(3);
    using x = DeviceArray.zeros([4, 32, 32], "complex64", { stream });
    using y = own.forward(x, { dims: 2 });
    expect(own.planCount).toBe(3);
    expect(Array.from(await y.toTypedArray({ stream })).every((v) => v === 0)).toBe(true);
    p.close();
    expect(own.planCount).toBe(2);
    expect(own.plan(spec)).not.toBe(p);
    own.clearCache();
    expect(own.planCount).toBe(0);
  });

  it("refuses bad arrays and closed objects before any call", async () => {
    using x = DeviceArray.zeros([8], "complex64", { stream });
    using r = DeviceArray.zeros([8], "float32", { stream });
    using wrong = DeviceArray.zeros([8], "complex128", { stream });
    expect(() => fft.forward(x, { out: wrong })).toThrow(DTypeError);
    using short = DeviceArray.zeros([4], "complex64", { stream });
    expect(() => fft.forward(x, { out: short })).toThrow(ShapeMismatchError);
    expect(() => fft.inverse(r)).toThrow(/the input is float32 but must be complex64 or complex128/);
    expect(() => fft.inverse(x.subarray(0, 5), { lastSize: 4 })).toThrow(/n\/2\+1 = 5/);
    const rp = fft.plan({ kind: "r2c", precision: "single", shape: [8] });
    using big = DeviceArray.zeros([16], "float32", { stream });
    const overlapping = DeviceArray.fromBuffer(big.buffer, { dtype: "complex64", shape: [5] }); // 40 of big's 64 bytes
    expect(() => rp.exec(big.subarray(0, 8), overlapping)).toThrow(ArrayLayoutError);
    expect(() => rp.exec(big.subarray(0, 8), overlapping)).toThrow(/r2c cannot run in place here/);
    using m = DeviceArray.zeros([4, 6], "complex64", { stream });
    expect(() => fft.forward(m.T)).toThrow(ArrayLayoutError);
    using four = DeviceArray.zeros([2, 2, 2, 2], "complex64", { stream });
    expect(() => fft.forward(four)).toThrow(/dims must be 1, 2 or 3/);
    const closed = await Fft.create({ stream });
    closed.close();
    expect(() => closed.forward(x)).toThrow(ClosedError);
    expect(() => closed.plan({ kind: "c2c", precision: "single", shape: [8] })).toThrow(ClosedError);
  });
});
