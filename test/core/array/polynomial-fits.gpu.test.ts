/**
 * `polyfit` and `roots` on a real GPU against NumPy 2.4 (`np.polyfit`, `np.roots`; values in the tests): a fit of
 * float32 samples (float64 coefficients, NumPy's rcond), the full diagnostics, two columns of y, weights, integer
 * samples; roots of real and complex polynomials, leading and trailing zeros, constants. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { poly, polyfit, roots } from "../../../src/array-linalg.ts";
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

  it("polyfit with cov: NumPy's covariance, scaled and unscaled, per column, weighted, complex", () => {
    using x = DeviceArray.from(Float32Array.from([0, 1, 2, 3, 4]), { stream });
    using y = DeviceArray.from(Float32Array.from([1, 3, 7, 13, 21.5]), { stream });
    const r = polyfit(x, y, 2, { cov: true });
    expectClose(readDecoded(r.coefficients, stream), "float64", [3], [1.0714285714285723, 0.8142857142857098, 1.042857142857149], 1e-9);
    expectClose(readDecoded(r.covariance, stream), "float64", [3, 3], [0.001020408163265282, -0.004081632653061132, 0.0020408163265305712, -0.004081632653061131, 0.01775510204081593, -0.011020408163265076, 0.0020408163265305686, -0.011020408163265064, 0.012653061224489502], 1e-12);
    const u = polyfit(x, y, 2, { cov: "unscaled" });
    u.coefficients.close();
    expectClose(readDecoded(u.covariance, stream), "float64", [3, 3], [0.07142857142857165, -0.28571428571428686, 0.14285714285714382, -0.2857142857142868, 1.2428571428571482, -0.7714285714285759, 0.14285714285714363, -0.7714285714285751, 0.8857142857142888], 1e-10);
    using two = DeviceArray.from(Float32Array.from([1, 1, 3, 3, 7, 5, 13, 7, 21.5, 9]), { stream, shape: [5, 2] });
    const t = polyfit(x, two, 1, { cov: true });
    t.coefficients.close();
    expectClose(readDecoded(t.covariance, stream), "float64", [2, 2, 2], [0.5366666666666683, 0, -1.0733333333333364, 0, -1.0733333333333366, 0, 3.220000000000008, 0], 1e-9);
    using w = DeviceArray.from(Float64Array.from([1, 2, 1, 2, 1]), { stream });
    const wv = polyfit(x, y, 1, { w, cov: true });
    wv.coefficients.close();
    expectClose(readDecoded(wv.covariance, stream), "float64", [2, 2], [0.4049479166666662, -0.8098958333333324, -0.8098958333333324, 2.2088068181818157], 1e-10);
    using xc = DeviceArray.from(Float64Array.from([0, 0, 0, 1, 2, 0, 3, 1]), { stream, dtype: "complex128", shape: [4] });
    using yc = DeviceArray.from(Float64Array.from([1, 0, 2, 1, 3, 0, 4, 0]), { stream, dtype: "complex128", shape: [4] });
    const c = polyfit(xc, yc, 1, { cov: true });
    c.coefficients.close();
    const cv = readDecoded(c.covariance, stream);
    expect(cv.slice(0, 2)).toEqual(["complex128", [2, 2]]);
    const want: [number, number][] = [[0.03811778632731579, -0.006629180230837531], [-0.050961823024563514, -0.010772417875110981], [-0.050961823024563514, -0.010772417875110981], [0.11476768274637475, 0.038946433856170484]];
    cv[2].forEach((v, k) => {
      const [re, im] = v as [number, number];
      expect(Math.abs(re - want[k]![0]) + Math.abs(im - want[k]![1])).toBeLessThan(1e-10);
    });
    // Under full, cov is ignored (NumPy's order of precedence).
    const f = polyfit(x, y, 2, { full: true, cov: true } as { full: true });
    expect(f.rank).toBe(3);
    for (const a of [f.coefficients, f.residuals, f.singularValues]) a.close();
    // Three equal samples: rank 1 < 2, so no residuals to scale by (NumPy: a singular matrix, or a broadcast error).
    using same = DeviceArray.from(Float64Array.from([1, 1, 1]), { stream });
    expect(() => polyfit(same, same, 1, { cov: true })).toThrow(/rank is below deg \+ 1 \(2\)/);
    using three = DeviceArray.from(Float64Array.from([1, 1, 1, 2]), { stream });
    expect(() => polyfit(three, three, 2, { cov: true })).toThrow(/rank is below deg \+ 1 \(3\)/);
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
  it("poly: coefficients from roots, a matrix's characteristic polynomial, no roots", () => {
    expect(readDecoded(poly([1, 2], { stream }), stream)).toEqual(["float64", [3], [1, -3, 2]]);
    using f = DeviceArray.from(Float32Array.from([1, 2]), { stream });
    expect(readDecoded(poly(f), stream)).toEqual(["float32", [3], [1, -3, 2]]);
    using m = DeviceArray.from(Float64Array.from([1, 2, 3, 4]), { stream, shape: [2, 2] });
    expectClose(readDecoded(poly(m), stream), "float64", [3], [1, -5, -2], 1e-12);
    using z = DeviceArray.from(Float64Array.from([0, 1, 0, -1]), { stream, dtype: "complex128", shape: [2] });
    expect(readDecoded(poly(z), stream)).toEqual(["float64", [3], [1, 0, 1]]);
    expect(readDecoded(poly([], { stream }), stream)).toEqual(["float64", [], [1]]);
  });
});
