/**
 * `cov` and `corrcoef` on a real GPU against NumPy's values (each written beside the NumPy call that gives it): a 3×5
 * float64 matrix with rowvar, bias, ddof and y; a 1-d input (a 0-d result); int32 input (float64, or the dtype asked
 * for); complex128 (the conjugate in X·Xᴴ); and the correlation matrix. Small values, compared with toBeCloseTo
 * (12 digits, 6 for float32). Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { corrcoef, cov } from "../../../src/array-linalg.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import { nums } from "./math-host.ts";

describe.skipIf(!gpu.available)(`cov and corrcoef on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  // m = np.array([[0, 1, 2, 3, 4], [2, 1, 0, 1, 2], [1, 3, 2, 5, 4]], dtype=float)
  const M = [0, 1, 2, 3, 4, 2, 1, 0, 1, 2, 1, 3, 2, 5, 4];
  // np.cov(m).tolist()
  const COV = [2.5, 0, 2, 0, 0.7000000000000001, 0, 2, 0, 2.5];

  const f64 = (data: readonly number[], shape: readonly number[]): DeviceArray => DeviceArray.from(Float64Array.from(data), { stream, shape });
  /** Reads `a` (closing it), checks its dtype and shape, and compares its values with `want`. */
  const expectArray = (a: DeviceArray, dtype: string, shape: readonly number[], want: readonly number[], digits = 12): void => {
    try {
      expect([a.dtype.name, a.shape]).toEqual([dtype, shape]);
      const got = nums(a.toTypedArraySync({ stream }));
      expect(got.length).toBe(want.length);
      got.forEach((g, k) => expect(g, `element ${k}`).toBeCloseTo(want[k]!, digits));
    } finally {
      a.close();
    }
  };
  /** The transpose of a row-major [rows, cols] list. */
  const transposed = (data: readonly number[], rows: number, cols: number): number[] => Array.from({ length: rows * cols }, (_, k) => data[(k % rows) * cols + Math.floor(k / rows)]!);

  it("cov of a 3×5 float64 matrix: rowvar, bias, ddof", () => {
    using m = f64(M, [3, 5]);
    expectArray(cov(m, { stream }), "float64", [3, 3], COV);
    expectArray(cov(m, { bias: true }), "float64", [3, 3], [2, 0, 1.6, 0, 0.56, 0, 1.6, 0, 2]); // np.cov(m, bias=True)
    // np.cov(m, ddof=2)
    expectArray(cov(m, { ddof: 2 }), "float64", [3, 3], [3.333333333333333, 0, 2.6666666666666665, 0, 0.9333333333333333, 0, 2.6666666666666665, 0, 3.333333333333333]);
    // ddof overrides bias: np.cov(m, bias=True, ddof=1) is np.cov(m)
    expectArray(cov(m, { bias: true, ddof: 1 }), "float64", [3, 3], COV);
    // np.cov(m.T, rowvar=False): the observations along the rows, as a contiguous [5, 3] array and as the view m.T.
    using mt = f64(transposed(M, 3, 5), [5, 3]);
    expectArray(cov(mt, { rowvar: false }), "float64", [3, 3], COV);
    expectArray(cov(m.T, { rowvar: false }), "float64", [3, 3], COV);
    // m itself is untouched (the centring works on a copy).
    expect(nums(m.toTypedArraySync({ stream }))).toEqual(M);
  });

  it("cov with y, of a 1-d input (0-d), of int32 (float64) and of complex128 (X·Xᴴ)", () => {
    using m = f64(M, [3, 5]);
    using top = f64(M.slice(0, 10), [2, 5]);
    using last = f64(M.slice(10), [5]);
    expectArray(cov(top, { y: last }), "float64", [3, 3], COV); // np.cov(m[:2], y=m[2])
    using row = f64(M.slice(0, 5), [5]);
    expectArray(cov(row), "float64", [], [2.5]); // np.cov(m[0]) is array(2.5)
    expectArray(cov(m.slice([0, 1])), "float64", [], [2.5]); // np.cov(m[:1]): a single variable, squeezed
    using i = DeviceArray.from(Int32Array.from(M), { stream, shape: [3, 5] });
    expectArray(cov(i), "float64", [3, 3], COV); // np.cov(m.astype(np.int32)).dtype is float64
    expectArray(cov(i, { dtype: "float32" }), "float32", [3, 3], COV, 6);
    // c = np.array([[1+1j, 2, 3-1j], [0, 1j, 2]]); np.cov(c) is [[2, 1-1j], [1+1j, 5/3]] (interleaved re, im)
    using c = DeviceArray.from(Float64Array.from([1, 1, 2, 0, 3, -1, 0, 0, 0, 1, 2, 0]), { stream, shape: [2, 3], dtype: "complex128" });
    expectArray(cov(c), "complex128", [2, 2], [2, 0, 1, -1, 1, 1, 1.666666666666667, 0]);
  });

  it("corrcoef of a 3×5 matrix, of one variable, and with rowvar false", () => {
    using m = f64(M, [3, 5]);
    // np.corrcoef(m)
    const R = [0.9999999999999999, 0, 0.7999999999999999, 0, 1, 0, 0.7999999999999999, 0, 0.9999999999999999];
    expectArray(corrcoef(m), "float64", [3, 3], R);
    expectArray(corrcoef(m.T, { rowvar: false }), "float64", [3, 3], R);
    using row = f64(M.slice(10), [5]);
    expectArray(corrcoef(row), "float64", [], [1]); // np.corrcoef(m[2]) is 1.0
    // c = np.array([[1+1j, 2, 3-1j], [0, 1j, 2]]); np.corrcoef(c)[0, 1] is (1-1j)/sqrt(2 * 5/3)
    using c = DeviceArray.from(Float64Array.from([1, 1, 2, 0, 3, -1, 0, 0, 0, 1, 2, 0]), { stream, shape: [2, 3], dtype: "complex128" });
    const s = 1 / Math.sqrt(2 * (5 / 3));
    expectArray(corrcoef(c), "complex128", [2, 2], [1, 0, s, -s, s, s, 1, 0]);
  });
});
