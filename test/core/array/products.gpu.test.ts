/**
 * `cross`, `kron`, `inner`, `matrixPower`, `pinv` and `matrixRank` on a real GPU against NumPy 2.4's values (each
 * written beside the NumPy call that gives it, `.ravel().tolist()`, complex interleaved as [re, im, ...]): dtypes
 * (promotion, float32 kept, integers wrapping, bool, complex), shapes (broadcasting, axes, batches, 0-d and empty
 * operands), 2-component cross products, negative and zero powers, cut-offs and Hermitian input. Floats compared with
 * toBeCloseTo (10 digits, 5 for float32), integers exactly. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, dtypes, type DTypeName, type HostArray, type Stream } from "../../../src/index.ts";
import { cross, inner, kron, matmul, matrixPower, matrixRank, pinv } from "../../../src/array-linalg.ts";
import { decodeHalf } from "../../../src/core/array/dtype.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import { nums } from "./math-host.ts";

describe.skipIf(!gpu.available)(`cross, kron, inner, matrixPower, pinv and matrixRank on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  /** A device array of `dtype` from numbers (complex: interleaved [re, im, ...]; bool: 0 and 1). */
  const arr = (dtype: DTypeName, data: readonly number[], shape: readonly number[]): DeviceArray => {
    const d = dtypes[dtype];
    const host = new d.hostArray(data.length) as unknown as (number | bigint)[];
    data.forEach((x, k) => (host[k] = d.itemsize === 8 && d.kind !== "f" && d.kind !== "c" ? BigInt(x) : x));
    return DeviceArray.from(host as unknown as HostArray, { stream, shape: [...shape], dtype });
  };
  const f64 = (data: readonly number[], shape: readonly number[]): DeviceArray => arr("float64", data, shape);
  /** Reads `a` (closing it), checks its dtype and shape, and compares its values with `want`. */
  const expectArray = (a: DeviceArray, dtype: string, shape: readonly number[], want: readonly number[], digits = 10): void => {
    try {
      expect([a.dtype.name, a.shape]).toEqual([dtype, shape]);
      const raw = a.toTypedArraySync({ stream });
      const got = dtype === "float16" ? Array.from(raw as Uint16Array, decodeHalf) : nums(raw);
      expect(got.length).toBe(want.length);
      if (a.dtype.kind === "f" || a.dtype.kind === "c") got.forEach((g, k) => expect(g, `element ${k}`).toBeCloseTo(want[k]!, digits));
      else expect(got).toEqual(want);
    } finally {
      a.close();
    }
  };

  describe("cross", () => {
    // a = np.array([[1., 2, 3], [4, 5, 6]]); b = np.array([[7., 8, 9], [1, 0, -1]])
    const A = [1, 2, 3, 4, 5, 6];
    const B = [7, 8, 9, 1, 0, -1];
    const AXB = [-6, 12, -6, -5, 10, -5]; // np.cross(a, b)

    it("vectors of 3, broadcast, along other axes", () => {
      using a = f64(A, [2, 3]);
      using b = f64(B, [2, 3]);
      expectArray(cross(a, b), "float64", [2, 3], AXB);
      using z = f64([0, 0, 1], [3]);
      expectArray(cross(a, z, { stream }), "float64", [2, 3], [2, -1, 0, 5, -4, 0]); // np.cross(a, [0., 0, 1])
      // np.cross(a.T, b.T, axisa=0, axisb=0): transposed views, vectors in columns
      expectArray(cross(a.T, b.T, { axisa: 0, axisb: 0 }), "float64", [2, 3], AXB);
      // np.cross(a.T, b.T, axisa=0, axisb=0, axisc=0) and np.cross(a.T, b.T, axis=0)
      expectArray(cross(a.T, b.T, { axisa: 0, axisb: 0, axisc: 0 }), "float64", [3, 2], [-6, -5, 12, 10, -6, -5]);
      expectArray(cross(a.T, b.T, { axis: 0 }), "float64", [3, 2], [-6, -5, 12, 10, -6, -5]);
    });

    it("vectors of 2 (deprecated in NumPy 2, computed as NumPy 2.4 does)", () => {
      using p = f64([1, 2], [2]);
      using q = f64([3, 4], [2]);
      expectArray(cross(p, q), "float64", [], [-2]); // np.cross([1., 2], [3., 4]) is a 0-d -2
      using ps = f64([1, 2, 0, 1], [2, 2]);
      expectArray(cross(ps, q), "float64", [2], [-2, -3]); // np.cross([[1., 2], [0, 1]], [3., 4])
      using u2 = arr("uint8", [1, 2], [2]);
      using u3 = arr("uint8", [3, 4, 5], [3]);
      expectArray(cross(u2, u3), "uint8", [3], [10, 251, 254]); // np.cross(np.array([1, 2], np.uint8), np.array([3, 4, 5], np.uint8)): wraps
      using i3 = arr("int32", [1, 2, 3], [3]);
      using i2 = arr("int32", [4, 5], [2]);
      expectArray(cross(i3, i2), "int32", [3], [-15, 12, -3]); // np.cross(np.array([1, 2, 3], np.int32), np.array([4, 5], np.int32))
    });

    it("promotes as NumPy (int8 with uint8 is int16), keeps float32, complex without conjugates", () => {
      using s = arr("int8", [100, -100, 50], [3]);
      using u = arr("uint8", [200, 3, 250], [3]);
      expectArray(cross(s, u), "int16", [3], [-25150, -15000, 20300]); // np.cross(np.array([100, -100, 50], np.int8), np.array([200, 3, 250], np.uint8))
      using f = arr("float32", [1, 2, 3], [3]);
      using g = arr("float32", [0.5, 0.25, 4], [3]);
      expectArray(cross(f, g), "float32", [3], [7.25, -2.5, -0.75], 5);
      // np.cross(np.array([1+1j, 2, 3-1j]), np.array([0, 1j, 2+2j]))
      using ca = arr("complex128", [1, 1, 2, 0, 3, -1], [3]);
      using cb = arr("complex128", [0, 0, 0, 1, 2, 2], [3]);
      expectArray(cross(ca, cb), "complex128", [3], [3, 1, 0, -4, -1, 1]);
    });

    it("an empty batch gives an empty result", () => {
      using e = f64([], [0, 3]);
      using b = f64(B.slice(0, 3), [3]);
      expectArray(cross(e, b), "float64", [0, 3], []);
    });
  });

  describe("kron", () => {
    it("matrices, vectors against matrices, 0-d operands, views", () => {
      using a = f64([1, 2, 3, 4], [2, 2]);
      using p = f64([0, 1, 1, 0], [2, 2]);
      // np.kron([[1., 2], [3, 4]], [[0., 1], [1, 0]])
      expectArray(kron(a, p), "float64", [4, 4], [0, 1, 0, 2, 1, 0, 2, 0, 0, 3, 0, 4, 3, 0, 4, 0]);
      using v = f64([1, 2], [2]);
      expectArray(kron(v, a), "float64", [2, 4], [1, 2, 2, 4, 3, 4, 6, 8]); // np.kron([1., 2], [[1., 2], [3, 4]])
      using s = f64([2.5], []);
      using w = f64([1, 2, 3], [3]);
      expectArray(kron(s, w), "float64", [3], [2.5, 5, 7.5]); // np.kron(np.array(2.5), [1., 2, 3])
      using t = f64([1, 10], [2]);
      expectArray(kron(a.T, t), "float64", [2, 4], [1, 10, 3, 30, 2, 20, 4, 40]); // np.kron(a.T, [1., 10])
    });

    it("dtypes: int32, bool (AND), complex64 with float32", () => {
      using i = arr("int32", [0, 1, 2, 3, 4, 5], [2, 3]);
      using j = arr("int32", [1, -1, 2, 0], [4]);
      // np.kron(np.arange(6, dtype=np.int32).reshape(2, 3), np.array([1, -1, 2, 0], np.int32))
      expectArray(kron(i, j), "int32", [2, 12], [0, 0, 0, 0, 1, -1, 2, 0, 2, -2, 4, 0, 3, -3, 6, 0, 4, -4, 8, 0, 5, -5, 10, 0]);
      using b1 = arr("bool", [1, 0], [2]);
      using b2 = arr("bool", [1, 0], [2, 1]);
      expectArray(kron(b1, b2), "bool", [2, 2], [1, 0, 0, 0]); // np.kron([True, False], [[True], [False]])
      using c = arr("complex64", [1, 1, 2, 0], [2]);
      using r = arr("float32", [1, -1], [2]);
      expectArray(kron(c, r), "complex64", [4], [1, 1, -1, -1, 2, 0, -2, 0], 5); // np.kron(np.array([1+1j, 2], np.complex64), np.array([1, -1], np.float32))
    });
  });

  describe("inner", () => {
    it("vectors (a 0-d result), matrices, N-d with 1-d, 0-d operands", () => {
      using x = f64([1, 2, 3], [3]);
      using y = f64([4, 5, 6], [3]);
      expectArray(inner(x, y), "float64", [], [32]); // np.inner([1., 2, 3], [4., 5, 6])
      // x = np.arange(6, dtype=np.float32).reshape(2, 3); y = np.arange(12, dtype=np.float32).reshape(4, 3) - 5; np.inner(x, y)
      using a = arr("float32", [0, 1, 2, 3, 4, 5], [2, 3]);
      using b = arr("float32", Array.from({ length: 12 }, (_, k) => k - 5), [4, 3]);
      expectArray(inner(a, b), "float32", [2, 4], [-10, -1, 8, 17, -46, -10, 26, 62], 5);
      using t = f64(Array.from({ length: 12 }, (_, k) => k), [2, 2, 3]);
      using d = f64([1, 0, -1], [3]);
      expectArray(inner(t, d), "float64", [2, 2], [-2, -2, -2, -2]); // np.inner(np.arange(12.).reshape(2, 2, 3), [1., 0, -1])
      using m = f64([0, 1, 2, 3, 4, 5], [2, 3]);
      using m3 = f64([0, 1, 2, 3, 4, 5], [1, 2, 3]);
      expectArray(inner(m, m3), "float64", [2, 1, 2], [5, 14, 14, 50]); // np.inner(np.arange(6.).reshape(2, 3), np.arange(6.).reshape(1, 2, 3))
      using s = f64([3], []);
      using v = f64([1, 2], [2]);
      expectArray(inner(s, v), "float64", [2], [3, 6]); // np.inner(np.array(3.), [1., 2])
    });

    it("complex (no conjugate), int32, bool", () => {
      using c = arr("complex128", [1, 1, 0, 2], [2]);
      using d = arr("complex128", [3, 0, 1, -1], [2]);
      expectArray(inner(c, d), "complex128", [], [5, 5]); // np.inner([1+1j, 2j], [3, 1-1j])
      using i = arr("int32", [1, 2, 3, 4], [2, 2]);
      using j = arr("int32", [5, 6, 7, 8, 9, 10], [3, 2]);
      expectArray(inner(i, j), "int32", [2, 3], [17, 23, 29, 39, 53, 67]); // np.inner(int32 [[1, 2], [3, 4]], int32 [[5, 6], [7, 8], [9, 10]])
      using p = arr("bool", [1, 0], [2]);
      using q = arr("bool", [0, 1, 1, 1], [2, 2]);
      expectArray(inner(p, q), "bool", [2], [0, 1]); // np.inner([True, False], [[False, True], [True, True]])
    });
  });

  describe("matrixPower", () => {
    it("positive powers: integers wrap around, bool is OR over AND, batches, complex", () => {
      using f = arr("int64", [1, 1, 1, 0], [2, 2]);
      expectArray(matrixPower(f, 10), "int64", [2, 2], [89, 55, 55, 34]); // np.linalg.matrix_power(np.array([[1, 1], [1, 0]]), 10)
      using s = arr("int8", [2, 1, 1, 1], [2, 2]);
      expectArray(matrixPower(s, 7), "int8", [2, 2], [98, 121, 121, -23]); // np.linalg.matrix_power(np.array([[2, 1], [1, 1]], np.int8), 7)
      using n = arr("bool", [0, 1, 0, 0, 0, 1, 0, 0, 0], [3, 3]);
      expectArray(matrixPower(n, 2), "bool", [3, 3], [0, 0, 1, 0, 0, 0, 0, 0, 0]);
      // ab = np.array([[[1., 2], [0, 1]], [[0.5, 0], [1, 2]]]); np.linalg.matrix_power(ab, 5), (ab, 6)
      using ab = f64([1, 2, 0, 1, 0.5, 0, 1, 2], [2, 2, 2]);
      expectArray(matrixPower(ab, 5), "float64", [2, 2, 2], [1, 10, 0, 1, 0.03125, 0, 21.3125, 32]);
      expectArray(matrixPower(ab, 6), "float64", [2, 2, 2], [1, 12, 0, 1, 0.015625, 0, 42.65625, 64]);
      // np.linalg.matrix_power(np.array([[1+1j, 0], [1, 1j]]), 3)
      using c = arr("complex128", [1, 1, 0, 0, 1, 0, 0, 1], [2, 2]);
      expectArray(matrixPower(c, 3), "complex128", [2, 2], [-2, 2, 0, 0, -2, 3, 0, -1]);
    });

    it("n = 0: the identity in a's dtype and shape; n = 1: a copy", () => {
      using o = f64([1, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2]);
      expectArray(matrixPower(o, 0), "float64", [2, 2, 2], [1, 0, 0, 1, 1, 0, 0, 1]); // np.linalg.matrix_power(np.ones((2, 2, 2)), 0)
      using b = arr("bool", [1, 1, 1, 1, 1, 1, 1, 1, 1], [3, 3]);
      expectArray(matrixPower(b, 0), "bool", [3, 3], [1, 0, 0, 0, 1, 0, 0, 0, 1]);
      using h = arr("float16", [0x3c00, 0x3c00, 0x3c00, 0x3c00], [2, 2]);
      expectArray(matrixPower(h, 0), "float16", [2, 2], [1, 0, 0, 1]);
      using a = f64([1, 2, 3, 4], [2, 2]);
      const one = matrixPower(a, 1);
      expect(one).not.toBe(a);
      expect(one.buffer).not.toBe(a.buffer);
      expectArray(one, "float64", [2, 2], [1, 2, 3, 4]);
      using e = f64([], [0, 3, 3]);
      expectArray(matrixPower(e, 4), "float64", [0, 3, 3], []);
    });

    it("negative powers through inv: integers become float64, float32 stays, complex", () => {
      using i = arr("int32", [1, 2, 3, 4], [2, 2]);
      // np.linalg.matrix_power(np.array([[1, 2], [3, 4]], np.int32), -1): NumPy inverts integers in float64
      expectArray(matrixPower(i, -1), "float64", [2, 2], [-2, 1, 1.5, -0.5]);
      using f = arr("float32", [2, 1, 1, 3], [2, 2]);
      expectArray(matrixPower(f, -3), "float32", [2, 2], [0.28, -0.16, -0.16, 0.12], 5); // np.linalg.matrix_power(np.array([[2, 1], [1, 3]], np.float32), -3)
      using c = arr("complex128", [1, 1, 0, 0, 1, 0, 0, 1], [2, 2]);
      expectArray(matrixPower(c, -2), "complex128", [2, 2], [0, -0.5, 0, 0, 1, -0.5, -1, 0]); // np.linalg.matrix_power([[1+1j, 0], [1, 1j]], -2)
    });
  });

  describe("pinv", () => {
    // p = np.array([[1., 2], [3, 4], [5, 6]]); np.linalg.pinv(p)
    const PINV = [-1.3333333333333337, -0.33333333333333287, 0.6666666666666665, 1.0833333333333335, 0.3333333333333329, -0.4166666666666665];

    it("tall, rank-deficient, float32, integer and batched matrices", () => {
      using p = f64([1, 2, 3, 4, 5, 6], [3, 2]);
      expectArray(pinv(p), "float64", [2, 3], PINV);
      expectArray(pinv(p.T), "float64", [3, 2], [PINV[0]!, PINV[3]!, PINV[1]!, PINV[4]!, PINV[2]!, PINV[5]!]); // pinv(p.T) = pinv(p).T
      using d = f64([1, 2, 2, 4], [2, 2]);
      expectArray(pinv(d), "float64", [2, 2], [0.04, 0.08, 0.08, 0.16]); // np.linalg.pinv([[1., 2], [2, 4]])
      using p32 = arr("float32", [1, 2, 3, 4, 5, 6], [3, 2]);
      expectArray(pinv(p32), "float32", [2, 3], PINV, 5);
      using i = arr("int32", [1, 2, 3, 4], [2, 2]);
      expectArray(pinv(i), "float64", [2, 2], [-2, 1, 1.5, -0.5]); // np.linalg.pinv(np.array([[1, 2], [3, 4]], np.int32))
      // np.linalg.pinv(np.array([[[1., 0, 2], [0, 1, 1]], [[1, 1, 1], [2, 2, 2]]]))
      using b = f64([1, 0, 2, 0, 1, 1, 1, 1, 1, 2, 2, 2], [2, 2, 3]);
      const want = [0.3333333333333331, -0.3333333333333332, -0.3333333333333332, 0.8333333333333331, 0.333333333333333, 0.16666666666666669];
      expectArray(pinv(b), "float64", [2, 3, 2], [...want, 0.06666666666666667, 0.13333333333333328, 0.06666666666666668, 0.13333333333333328, 0.06666666666666668, 0.13333333333333328]);
    });

    it("complex matrices, square and wide", () => {
      // np.linalg.pinv(np.array([[1+1j, 2], [3j, 4-1j]]))
      using c = arr("complex128", [1, 1, 2, 0, 0, 3, 4, -1], [2, 2]);
      expectArray(pinv(c), "complex128", [2, 2], [0.6764705882352938, 0.20588235294117604, -0.2941176470588234, -0.17647058823529393, 0.26470588235294107, -0.4411764705882351, 0.058823529411764816, 0.2352941176470588]);
      // np.linalg.pinv(np.array([[1+1j, 2, 0], [0, 1j, 1]]))
      using w = arr("complex128", [1, 1, 2, 0, 0, 0, 0, 0, 0, 1, 1, 0], [2, 3]);
      expectArray(pinv(w), "complex128", [3, 2], [0.25, -0.25, 0.25, 0.25, 0.25, 0, 0, -0.25, 0, -0.25, 0.75, 0]);
    });

    it("rcond, rtol and rtol null", () => {
      using d = f64([1, 0, 0, 0, 1e-3, 0, 0, 0, 1e-9], [3, 3]); // np.diag([1., 1e-3, 1e-9])
      expectArray(pinv(d, { rcond: 1e-2 }), "float64", [3, 3], [1, 0, 0, 0, 0, 0, 0, 0, 0]);
      expectArray(pinv(d, { rtol: 1e-4 }), "float64", [3, 3], [1, 0, 0, 0, 1000, 0, 0, 0, 0]);
      // np.linalg.pinv(d, rtol=None): max(3, 3)·eps keeps 1e-9; the default 1e-15 too
      const all = pinv(d, { rtol: null });
      try {
        const got = nums(all.toTypedArraySync({ stream }));
        expect(got[8]! / 1e9).toBeCloseTo(1, 10);
        expect(got[4]).toBeCloseTo(1000, 8);
      } finally {
        all.close();
      }
    });

    it("hermitian: eigh instead of the SVD, negative eigenvalues kept", () => {
      using h = f64([2, 1, 0, 1, 2, 0, 0, 0, 0], [3, 3]);
      // np.linalg.pinv([[2., 1, 0], [1, 2, 0], [0, 0, 0]], hermitian=True)
      expectArray(pinv(h, { hermitian: true }), "float64", [3, 3], [2 / 3, -1 / 3, 0, -1 / 3, 2 / 3, 0, 0, 0, 0]);
      using n = f64([1, 0, 0, -4], [2, 2]);
      expectArray(pinv(n, { hermitian: true }), "float64", [2, 2], [1, 0, 0, -0.25]);
      // np.linalg.pinv(np.array([[2, 1j], [-1j, 2]]), hermitian=True)
      using c = arr("complex128", [2, 0, 0, 1, 0, -1, 2, 0], [2, 2]);
      expectArray(pinv(c, { hermitian: true }), "complex128", [2, 2], [2 / 3, 0, 0, -1 / 3, 0, 1 / 3, 2 / 3, 0]);
    });

    it("empty matrices give empty [..., n, m]", () => {
      using e = f64([], [0, 3]);
      expectArray(pinv(e), "float64", [3, 0], []);
      using z = f64([], [0, 2, 3]);
      expectArray(pinv(z), "float64", [0, 3, 2], []);
    });

    it("satisfies a·a⁺·a = a on a random-ish matrix", () => {
      using a = f64(Array.from({ length: 20 }, (_, k) => Math.sin(k + 1)), [4, 5]);
      using p = pinv(a);
      using ap = matmul(a, p);
      using apa = matmul(ap, a);
      const want = nums(a.toTypedArraySync({ stream }));
      nums(apa.toTypedArraySync({ stream })).forEach((g, k) => expect(g).toBeCloseTo(want[k]!, 10));
    });
  });

  describe("matrixRank", () => {
    it("one matrix (a 0-d int64), a batch, vectors", () => {
      using i = f64([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0], [4, 4]);
      expectArray(matrixRank(i), "int64", [], [3]); // I = np.eye(4); I[-1, -1] = 0; np.linalg.matrix_rank(I)
      // np.linalg.matrix_rank([np.eye(3), np.ones((3, 3)), np.zeros((3, 3))])
      using b = f64([1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [3, 3, 3]);
      expectArray(matrixRank(b), "int64", [3], [3, 1, 0]);
      using ones = f64([1, 1, 1, 1], [4]);
      using zeros = f64([0, 0, 0, 0], [4]);
      expectArray(matrixRank(ones), "int64", [], [1]); // np.linalg.matrix_rank(np.ones(4))
      expectArray(matrixRank(zeros), "int64", [], [0]);
      using w = arr("int32", [1, 2, 3, 2, 4, 6], [2, 3]);
      expectArray(matrixRank(w), "int64", [], [1]); // np.linalg.matrix_rank(np.array([[1, 2, 3], [2, 4, 6]], np.int32))
      using c = arr("complex128", [1, 0, 0, 1, 0, 1, -1, 0], [2, 2]);
      expectArray(matrixRank(c), "int64", [], [1]); // np.linalg.matrix_rank([[1, 1j], [1j, -1]])
    });

    it("tol, rtol and the default, in float64 and float32", () => {
      using d = f64([1, 0, 0, 0, 1e-3, 0, 0, 0, 1e-9], [3, 3]);
      expectArray(matrixRank(d), "int64", [], [3]);
      expectArray(matrixRank(d, { tol: 1e-4 }), "int64", [], [2]);
      expectArray(matrixRank(d, { rtol: 1e-2 }), "int64", [], [1]);
      // e = np.diag(np.array([1., 1e-7, 1e-9], np.float32)): 3·eps(float32) cuts both small values; float64 keeps them
      using e32 = arr("float32", [1, 0, 0, 0, 1e-7, 0, 0, 0, 1e-9], [3, 3]);
      using e64 = f64([1, 0, 0, 0, Math.fround(1e-7), 0, 0, 0, Math.fround(1e-9)], [3, 3]);
      expectArray(matrixRank(e32), "int64", [], [1]);
      expectArray(matrixRank(e64), "int64", [], [3]);
    });

    it("hermitian and empty matrices", () => {
      using s = f64([1, 2, 2, 4], [2, 2]);
      expectArray(matrixRank(s, { hermitian: true }), "int64", [], [1]);
      using n = f64([1, 0, 0, -4], [2, 2]);
      expectArray(matrixRank(n, { hermitian: true }), "int64", [], [2]); // the magnitudes of the eigenvalues
      using e = f64([], [2, 0, 3]);
      expectArray(matrixRank(e), "int64", [2], [0, 0]); // np.linalg.matrix_rank(np.zeros((2, 0, 3)))
    });
  });
});
