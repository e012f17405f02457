/**
 * `cuda-ts/array/fft` on the CPU: NumPy's rules for `n`/`s` and `axis`/`axes`, the dtypes transforms compute in,
 * the normalisation factors, the groups of at most three axes cuFFT plans take, the frequencies of `fftfreq` and
 * `rfftfreq` (against NumPy's, in a committed fixture), and the entry point.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import * as fftEntry from "../../../src/array-fft.ts";
import { dtypes } from "../../../src/core/array/dtype.ts";
import { AxisError, DTypeError, ShapeMismatchError } from "../../../src/core/array/errors.ts";
import { axesLast, fftFrequencies, inputExtents, normFactor, oneAxis, outputExtents, rankGroups, rfftFrequencies, transformAxes, transformDtype, twoAxes } from "../../../src/core/array/fft/plan.ts";

const fixture = JSON.parse(readFileSync(new URL("../../fixtures/array-math/numpy.json", import.meta.url), "utf8")) as Record<string, { shape: number[]; data: number[] }>;

describe("axes and sizes (NumPy's _cook_nd_args)", () => {
  it("1-d: the last axis by default, n cuts or pads; irfft's default n is 2·(m − 1)", () => {
    expect(oneAxis([3, 8], "c2c", undefined, undefined, "fft")).toEqual({ axes: [1], sizes: [8] });
    expect(oneAxis([3, 8], "c2c", 12, 0, "fft")).toEqual({ axes: [0], sizes: [12] });
    expect(oneAxis([3, 5], "c2r", undefined, undefined, "irfft")).toEqual({ axes: [1], sizes: [8] });
    expect(oneAxis([3, 5], "c2r", 9, undefined, "irfft")).toEqual({ axes: [1], sizes: [9] });
  });

  it("n-d: every axis, or the last s.length, or the axes given (in their order)", () => {
    expect(transformAxes([2, 3, 4], "c2c", undefined, undefined, "fftn")).toEqual({ axes: [0, 1, 2], sizes: [2, 3, 4] });
    expect(transformAxes([2, 3, 4], "c2c", [5, 6], undefined, "fftn")).toEqual({ axes: [1, 2], sizes: [5, 6] });
    expect(transformAxes([2, 3, 4], "c2c", undefined, [2, 0], "fftn")).toEqual({ axes: [2, 0], sizes: [4, 2] });
    expect(transformAxes([2, 3, 4], "c2r", undefined, [0, 1], "irfftn")).toEqual({ axes: [0, 1], sizes: [2, 4] });
    expect(twoAxes([5, 3, 4], "c2c", undefined, undefined, "fft2")).toEqual({ axes: [1, 2], sizes: [3, 4] });
  });

  it("refuses what NumPy refuses", () => {
    expect(() => transformAxes([], "c2c", undefined, undefined, "fftn")).toThrow(ShapeMismatchError);
    expect(() => oneAxis([4], "c2c", 0, undefined, "fft")).toThrow(/at least 1/);
    expect(() => oneAxis([4], "c2c", undefined, 1, "fft")).toThrow(AxisError);
    expect(() => transformAxes([2, 3], "c2c", [2, 3, 4], undefined, "fftn")).toThrow(ShapeMismatchError);
    expect(() => transformAxes([2, 3], "c2c", [2], [0, 1], "fftn")).toThrow(/one size per axis/);
    expect(() => transformAxes([2, 3], "c2c", undefined, [1, -1], "fftn")).toThrow(/twice/);
    expect(() => oneAxis([3, 1], "c2r", undefined, undefined, "irfft")).toThrow(/at least 1/);
  });

  it("reads n/2 + 1 points along the last axis of a c2r transform and writes as many for r2c", () => {
    expect(inputExtents("c2r", [4, 9])).toEqual([4, 5]);
    expect(inputExtents("r2c", [4, 9])).toEqual([4, 9]);
    expect(outputExtents("r2c", [4, 8])).toEqual([4, 5]);
    expect(outputExtents("c2c", [4, 8])).toEqual([4, 8]);
  });

  it("moves the transformed axes last and back", () => {
    expect(axesLast(4, [2, 0])).toEqual({ perm: [1, 3, 2, 0], inverse: [3, 0, 2, 1] });
    expect(axesLast(2, [0, 1])).toEqual({ perm: [0, 1], inverse: [0, 1] });
  });

  it("plans at most three axes at a time, innermost first", () => {
    expect(rankGroups(2)).toEqual([{ start: 0, rank: 2 }]);
    expect(rankGroups(3)).toEqual([{ start: 0, rank: 3 }]);
    expect(rankGroups(5)).toEqual([
      { start: 2, rank: 3 },
      { start: 0, rank: 2 },
    ]);
  });
});

describe("dtypes and normalisation", () => {
  it("computes float32 (and the 16-bit floats) in complex64, float64 and integers in complex128", () => {
    expect(transformDtype(dtypes.float32, "c2c", "fft")).toBe(dtypes.complex64);
    expect(transformDtype(dtypes.float16, "c2c", "fft")).toBe(dtypes.complex64);
    expect(transformDtype(dtypes.int32, "c2c", "fft")).toBe(dtypes.complex128);
    expect(transformDtype(dtypes.complex128, "c2r", "irfft")).toBe(dtypes.complex128);
    expect(transformDtype(dtypes.float32, "c2r", "irfft")).toBe(dtypes.complex64);
    expect(transformDtype(dtypes.float32, "r2c", "rfft")).toBe(dtypes.float32);
    expect(transformDtype(dtypes.uint8, "r2c", "rfft")).toBe(dtypes.float64);
    expect(() => transformDtype(dtypes.complex64, "r2c", "rfft")).toThrow(DTypeError);
  });

  it("scales by 1/n on the inverse (backward), 1/√n both ways (ortho), 1/n on the forward (forward)", () => {
    expect(normFactor(undefined, false, 8, "fft")).toBe(1);
    expect(normFactor("backward", true, 8, "ifft")).toBe(1 / 8);
    expect(normFactor("ortho", false, 16, "fft")).toBe(1 / 4);
    expect(normFactor("ortho", true, 16, "ifft")).toBe(1 / 4);
    expect(normFactor("forward", false, 8, "fft")).toBe(1 / 8);
    expect(normFactor("forward", true, 8, "ifft")).toBe(1);
    expect(() => normFactor("none" as never, false, 8, "fft")).toThrow(TypeError);
  });
});

describe("frequencies", () => {
  it("match NumPy's fftfreq and rfftfreq", () => {
    const close = (a: ArrayLike<number>, b: readonly number[]): void => {
      expect(a.length).toBe(b.length);
      for (let i = 0; i < b.length; i++) expect(a[i]).toBeCloseTo(b[i]!, 12);
    };
    close(fftFrequencies(8, 0.1), fixture["fftfreq_8_0.1"]!.data);
    close(fftFrequencies(7, 1), fixture["fftfreq_7"]!.data);
    close(rfftFrequencies(9, 2), fixture["rfftfreq_9_2"]!.data);
  });
});

describe("the entry point", () => {
  it("exports NumPy's fft functions", () => {
    for (const f of ["fft", "ifft", "rfft", "irfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]) {
      expect(typeof (fftEntry as Record<string, unknown>)[f], f).toBe("function");
    }
    expect(fftEntry.FFT_PLAN_CACHE_SIZE).toBeGreaterThan(0);
  });

  it("refuses bad arguments before touching the GPU", () => {
    expect(() => fftEntry.fftfreq(0, 1, { stream: undefined as never })).toThrow(RangeError);
    expect(() => fftEntry.fftfreq(8, 0, { stream: undefined as never })).toThrow(/non-zero/);
    expect(() => fftEntry.fftfreq(8, 1, {} as never)).toThrow(/stream/);
    expect(() => fftEntry.fft([1, 2] as never)).toThrow();
  });
});
