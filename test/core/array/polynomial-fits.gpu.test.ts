/**
 * `polyfit` and `roots` on a real GPU against NumPy 2.4 (`np.polyfit`, `np.roots`; values in the tests): a fit of
 * float32 samples (float64 coefficients, NumPy's rcond), the full diagnostics, two columns of y, weights, integer
 * samples; roots of real and complex polynomials, leading and trailing zeros, constants. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { polyfit, roots } from "../../../src/array-linalg.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, readDecoded, type ElementValue } from "../../support/gpu-arrays.ts";

function expectClose(got: [string, number[], ElementValue[]], dtype: string, shape: number[], want: readonly number[], tol: number): void {
  expect(got[0]).toBe(dtype);
  expect(got[1]).toEqual(shape);
  expect(got[2].length).toBe(want.length);
  got[2].forEach((g, k) => expect(Math.abs((g as number) - want[k]!), `element ${k}: ${String(g)} against ${want[k]}`).toBeLessThan(tol));
}

/** Roots as [re, im] sorted by real part, then imaginary part (cuSOLVER's order need not be NumPy's). */
const sorted = (values: ElementValue[]): [number, number][] =>
  values.map((v) => (Array.isArray(v) ? [v[0], v[1]] as [number, number] : [v as number, 0] as [number, number])).sort((a, b) => a[0] - b[0] || a[1] - b[1]);

describe.skipIf(!gpu.available)(`polyfit and roots on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("polyfit: NumPy's coefficients, diagnostics, columns, weights", () => {
    using x = DeviceArray.from(Float32Array.from([0, 1, 2, 3, 4]), { stream });
    using y = DeviceArray.from(Float32Array.from([1, 3, 7, 13, 21.5]), { stream });
    expectClose(readDecoded(polyfit(x, y, 2), stream), "float64", [3], [1.0714285714285723, 0.8142857142857098, 1.042857142857149], 1e-9);
    const r = polyfit(x, y, 2, { full: true });
    expectClose(readDecoded(r.coefficients, stream), "float64", [3], [1.0714285714285723, 0.8142857142857098, 1.042857142857149], 1e-9);
    expectClose(readDecoded(r.residuals, stream), "float64", [1], [0.028571428571427807], 1e-9);
    expect(r.rank).toBe(3);
    expectClose(readDecoded(r.singularValues, stream), "float64", [3], [1.6343788550878136, 0.5595003451308296, 0.12555923638001384], 1e-12);
    expect(r.rcond).toBeCloseTo(5.9604645e-7, 12);
    // Two columns: y and 2x + 1.
    using two = DeviceArray.from(Float32Array.from([1, 1, 3, 3, 7, 5, 13, 7, 21.5, 9]), { stream, shape: [5, 2] });
    expectClose(readDecoded(polyfit(x, two, 1), stream), "float64", [2, 2], [5.1, 2, -1.1, 1], 1e-9);
    using w = DeviceArray.from(Float64Array.from([1, 2, 1, 2, 1]), { stream });
    expectClose(readDecoded(polyfit(x, y, 1, { w }), stream), "float64", [2], [5.062499999999999, -1.625000000000002], 1e-9);
    using xi = DeviceArray.from(BigInt64Array.from([1n, 2n, 3n, 4n]), { stream });
    using yi = DeviceArray.from(BigInt64Array.from([2n, 4n, 6n, 8n]), { stream });
    expectClose(readDecoded(polyfit(xi, yi, 1), stream), "float64", [2], [2, 0], 1e-9);
    // Integer samples read as float64 first (NumPy's x + 0.0): x³ of 0..999 would overflow int64 squares.
    using big = DeviceArray.from(BigInt64Array.from({ length: 1000 }, (_, i) => BigInt(i)), { stream });
    using cubic = DeviceArray.from(Float64Array.from({ length: 1000 }, (_, i) => 0.5 * i ** 3 + 2), { stream });
    expectClose(readDecoded(polyfit(big, cubic, 3), stream), "float64", [4], [0.5, 0, 0, 2], 1e-6);
    // float16 samples: NumPy's rcond is 50 × float16's epsilon (2⁻¹⁰), which cuts the rank to 3.
    const h = Float32Array.from([0.0, 0.0204010009765625, 0.040802001953125, 0.06121826171875, 0.08160400390625, 0.10205078125, 0.1224365234375, 0.142822265625, 0.1632080078125, 0.1837158203125, 0.2041015625, 0.2244873046875, 0.244873046875, 0.265380859375, 0.28564453125, 0.30615234375, 0.326416015625, 0.346923828125, 0.367431640625, 0.3876953125, 0.408203125, 0.428466796875, 0.448974609375, 0.469482421875, 0.48974609375, 0.51025390625, 0.53076171875, 0.55078125, 0.5712890625, 0.591796875, 0.6123046875, 0.6328125, 0.65283203125, 0.67333984375, 0.69384765625, 0.71435546875, 0.73486328125, 0.7548828125, 0.775390625, 0.7958984375, 0.81640625, 0.8369140625, 0.85693359375, 0.87744140625, 0.89794921875, 0.91845703125, 0.93896484375, 0.958984375, 0.9794921875, 1.0]);
    using x16 = DeviceArray.from(h, { stream }).astype("float16", { stream });
    using cos3 = DeviceArray.from(Float64Array.from(h, (v) => Math.cos(3 * v)), { stream });
    const f16 = polyfit(x16, cos3, 8, { full: true });
    expect(f16.rank).toBe(3);
    expect(f16.rcond).toBe(50 * 2 ** -10);
    const c16 = readDecoded(f16.coefficients, stream);
    expect(Math.abs((c16[2][0] as number) - 1.2524969146450937)).toBeLessThan(1e-6);
    expect(Math.abs((c16[2][1] as number) - 0.7462690832392069)).toBeLessThan(1e-6);
    f16.residuals.close();
    f16.singularValues.close();
  });

  it("roots: real, complex, leading and trailing zeros, constants", () => {
    expectClose(["float64", [2], sorted(readDecoded(roots([1, -3, 2], { stream }), stream)[2]).map((r) => r[0])], "float64", [2], [1, 2], 1e-12);
    const c = readDecoded(roots([1, 0, 1], { stream }), stream);
    expect(c[0]).toBe("complex128");
    sorted(c[2]).forEach((r, k) => {
      expect(Math.abs(r[0])).toBeLessThan(1e-12);
      expect(Math.abs(r[1] - [-1, 1][k]!)).toBeLessThan(1e-12);
    });
    const z = readDecoded(roots([0, 0, 1, -3, 2, 0, 0], { stream }), stream);
    expect(z[0]).toBe("float64");
    expect(z[2].slice(2)).toEqual([0, 0]);
    expect(sorted(z[2].slice(0, 2)).map((r) => Math.round(r[0] * 1e9) / 1e9)).toEqual([1, 2]);
    expect(readDecoded(roots([5], { stream }), stream)).toEqual(["float64", [0], []]);
    expect(readDecoded(roots([0, 0], { stream }), stream)).toEqual(["float64", [0], []]);
    expect(readDecoded(roots([2, 0], { stream }), stream)).toEqual(["float64", [1], [0]]);
    // The companion row divides as NumPy's division (no overflow of a² + b², correctly rounded).
    expect(readDecoded(roots([0.1, 0.7], { stream }), stream)).toEqual(["float64", [1], [-6.999999999999999]]);
    expect(readDecoded(roots([1e155, 1], { stream }), stream)).toEqual(["float64", [1], [-1e-155]]);
    expect(readDecoded(roots([1e-200, 1e-200], { stream }), stream)).toEqual(["float64", [1], [-1]]);
    using five = DeviceArray.from(Float64Array.from([5]), { stream, shape: [] });
    expect(readDecoded(roots(five), stream)).toEqual(["float64", [0], []]);
    using h = DeviceArray.from(Float32Array.from([1, 0]), { stream }).astype("float16", { stream });
    expect(readDecoded(roots(h), stream)).toEqual(["float64", [1], [0]]);
    using p32 = DeviceArray.from(Float32Array.from([1, -6, 11, -6]), { stream });
    const r32 = readDecoded(roots(p32), stream);
    expect(r32[0]).toBe("float32");
    sorted(r32[2]).forEach((r, k) => expect(Math.abs(r[0] - (k + 1))).toBeLessThan(1e-4));
    using pc = DeviceArray.from(Float32Array.from([0, 1, 1, 0]), { stream, dtype: "complex64" });
    const rc = readDecoded(roots(pc), stream);
    expect(rc[0]).toBe("complex64");
    expect(rc[1]).toEqual([1]);
    const [re, im] = rc[2][0] as [number, number];
    expect(Math.abs(re)).toBeLessThan(1e-6);
    expect(Math.abs(im - 1)).toBeLessThan(1e-6);
  });
});
