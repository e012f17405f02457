/**
 * Fft without a GPU: the plan layouts (sizes, embeddings, distances, dtypes, cuFFT types, cache keys), how arrays
 * split into transformed axes and a batch, and the CPU reference DFT the GPU tests compare against.
 */
import { describe, expect, it } from "vitest";
import { CUFFT_TYPES, fftLayout, splitAxes } from "../../src/core/math/fft/layout.ts";
import { complexOf, dft, halfSpectrum, maxAbsDiff, seeded } from "./reference.ts";

describe("FFT plan layouts", () => {
  it("c2c: one size in and out, distances of one transform", () => {
    const L = fftLayout({ kind: "c2c", precision: "single", shape: [8, 6], batch: 3 });
    expect(L).toMatchObject({ rank: 2, n: [8, 6], inembed: [8, 6], onembed: [8, 6], idist: 48, odist: 48, batch: 3, inputSize: 144, outputSize: 144 });
    expect([L.inputDtype, L.outputDtype, L.type, L.key]).toEqual(["complex64", "complex64", 0x29, "c2c:single:8x6:3"]);
  });

  it("r2c: the last size n becomes n/2+1 complex numbers", () => {
    const L = fftLayout({ kind: "r2c", precision: "double", shape: [4, 4, 9] });
    expect(L).toMatchObject({ inembed: [4, 4, 9], onembed: [4, 4, 5], idist: 144, odist: 80, batch: 1 });
    expect([L.inputDtype, L.outputDtype, L.type]).toEqual(["float64", "complex128", 0x6a]);
  });

  it("c2r: the reverse", () => {
    const L = fftLayout({ kind: "c2r", precision: "single", shape: [10], batch: 7 });
    expect(L).toMatchObject({ inembed: [6], onembed: [10], idist: 6, odist: 10, inputSize: 42, outputSize: 70 });
    expect([L.inputDtype, L.outputDtype, L.type]).toEqual(["complex64", "float32", 0x2c]);
  });

  it("cuFFT's type codes", () => {
    expect(CUFFT_TYPES).toEqual({ "c2c:single": 0x29, "r2c:single": 0x2a, "c2r:single": 0x2c, "c2c:double": 0x69, "r2c:double": 0x6a, "c2r:double": 0x6c });
  });

  it("refuse bad specs by name", () => {
    expect(() => fftLayout({ kind: "r2r" as never, precision: "single", shape: [4] })).toThrow(/kind must be "c2c", "r2c" or "c2r", not "r2r"/);
    expect(() => fftLayout({ kind: "c2c", precision: "half" as never, shape: [4] })).toThrow(/precision must be "single" or "double"/);
    expect(() => fftLayout({ kind: "c2c", precision: "single", shape: [2, 2, 2, 2] })).toThrow(/1 to 3 sizes/);
    expect(() => fftLayout({ kind: "c2c", precision: "single", shape: [] })).toThrow(RangeError);
    expect(() => fftLayout({ kind: "c2c", precision: "single", shape: [4, 0] })).toThrow(/at least 1, not 0 in \[4, 0\]/);
    expect(() => fftLayout({ kind: "c2c", precision: "single", shape: [4], batch: 0 })).toThrow(/batch must be an integer of at least 1/);
  });
});

describe("axes of an array", () => {
  it("the last dims axes are transformed, the others are a batch", () => {
    expect(splitAxes([5, 8, 6], 2, "t")).toEqual({ n: [8, 6], lead: [5], batch: 5 });
    expect(splitAxes([2, 3, 16], 1, "t")).toEqual({ n: [16], lead: [2, 3], batch: 6 });
    expect(splitAxes([16, 16], undefined, "t")).toEqual({ n: [16, 16], lead: [], batch: 1 });
  });
  it("at most 3, at most the array's", () => {
    expect(() => splitAxes([2, 2, 2, 2], undefined, "Fft.forward")).toThrow(/Fft.forward: dims must be 1, 2 or 3 .*pass dims to batch the leading ones/);
    expect(() => splitAxes([4], 2, "t")).toThrow(/dims is 2 but the array has 1 axis/);
  });
});

describe("the reference DFT", () => {
  it("matches known transforms: an impulse, a constant, a pure tone", () => {
    const impulse = complexOf([1, 0, 0, 0]);
    expect(Array.from(dft(impulse, [4], 1, -1))).toEqual([1, 0, 1, 0, 1, 0, 1, 0]);
    expect(maxAbsDiff(dft(complexOf([1, 1, 1, 1]), [4], 1, -1), [4, 0, 0, 0, 0, 0, 0, 0])).toBeLessThan(1e-12);
    const n = 8;
    const tone = new Float64Array(2 * n);
    for (let j = 0; j < n; j++) {
      tone[2 * j] = Math.cos((2 * Math.PI * 3 * j) / n);
      tone[2 * j + 1] = Math.sin((2 * Math.PI * 3 * j) / n);
    }
    const t = dft(tone, [n], 1, -1);
    expect(t[6]).toBeCloseTo(8, 10);
    expect(maxAbsDiff(t.filter((_, i) => i !== 6), new Float64Array(2 * n - 1))).toBeLessThan(1e-12);
  });

  it("round-trips (inverse of forward is n times the input), 2D and batched", () => {
    const r = seeded(7);
    const x = Float64Array.from({ length: 2 * 3 * 4 * 5 }, r);
    const back = dft(dft(x, [4, 5], 3, -1), [4, 5], 3, 1).map((v) => v / 20);
    expect(maxAbsDiff(back, x)).toBeLessThan(1e-12);
    expect(halfSpectrum(dft(complexOf([1, 2, 3, 4]), [4], 1, -1), [4], 1)).toHaveLength(6);
  });
});
