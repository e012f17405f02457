/**
 * Solver on a GPU, against CPU products in float64: linear solves by LU and Cholesky (one and several right-hand
 * sides; residual |A·x - b| below 1e-10 (float64) or 2e-3 (float32) of |A|·|x|), a singular matrix and a matrix that
 * is not positive definite as typed errors naming the pivot and the minor, QR and SVD reconstructions of tall, wide
 * and square matrices with orthonormal factors, and the symmetric eigenproblem (A·v = v·diag(w)). Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ClosedError,
  DTypeError,
  Device,
  DeviceArray,
  NotPositiveDefiniteError,
  ShapeMismatchError,
  SingularMatrixError,
  type Stream,
} from "../../src/index.ts";
import { Solver } from "../../src/math.ts";
import { gpu, skipNote } from "../support/gpu.ts";
import { matmul, maxAbs, maxAbsDiff, seeded, transpose } from "./reference.ts";

const TOL = { float32: 2e-3, float64: 1e-10 } as const;

/** A random n×n matrix with a heavy diagonal (well conditioned). */
function general(n: number, seed: number): Float64Array {
  const r = seeded(seed);
  const a = Float64Array.from({ length: n * n }, r);
  for (let i = 0; i < n; i++) a[i * n + i] = a[i * n + i]! + n;
  return a;
}

/** A random symmetric positive definite n×n matrix: M·Mᵀ + n·I. */
function spd(n: number, seed: number): Float64Array {
  const m = Float64Array.from({ length: n * n }, seeded(seed));
  const a = matmul(m, transpose(m, n, n), n, n, n);
  for (let i = 0; i < n; i++) a[i * n + i] = a[i * n + i]! + n;
  return a;
}

function identity(n: number): Float64Array {
  const e = new Float64Array(n * n);
  for (let i = 0; i < n; i++) e[i * n + i] = 1;
  return e;
}

describe.skipIf(!gpu.available)(`Solver on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let solver: Solver;

  beforeAll(async () => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    solver = await Solver.create({ stream });
    expect(solver).toBeInstanceOf(Solver);
  });

  afterAll(() => {
    solver?.close();
    stream?.close();
  });

  for (const dtype of ["float64", "float32"] as const) {
    const Host = { from: (xs: ArrayLike<number>): Float32Array | Float64Array => (dtype === "float32" ? Float32Array.from(xs) : Float64Array.from(xs)) };

    it(`solves A·x = b by LU in ${dtype} (n = 37; b of one and of 3 columns), a and b unchanged`, async () => {
      const n = 37;
      const a = general(n, 1);
      using A = DeviceArray.from(Host.from(a), { stream, shape: [n, n] });
      for (const k of [1, 3]) {
        const b = Float64Array.from({ length: n * k }, seeded(10 + k));
        using B = DeviceArray.from(Host.from(b), { stream, shape: k === 1 ? [n] : [n, k] });
        using X = await solver.solve(A, B);
        expect(X.shape).toEqual(B.shape);
        expect(X.dtype.name).toBe(dtype);
        const x = await X.toTypedArray({ stream });
        const ax = matmul(a, x, n, n, k);
        expect(maxAbsDiff(ax, b)).toBeLessThan(TOL[dtype] * maxAbs(a) * Math.max(1, maxAbs(x)) * n);
        expect(Array.from(await B.toTypedArray({ stream }))).toEqual(Array.from(Host.from(b)));
      }
      expect(Array.from(await A.toTypedArray({ stream }))).toEqual(Array.from(Host.from(a)));
      // getrf once, getrs twice
      using f = await solver.getrf(A);
      expect(f.pivots.dtype.name).toBe("int32");
      const b = Float64Array.from({ length: n }, seeded(5));
      using B = DeviceArray.from(Host.from(b), { stream });
      using X1 = await solver.getrs(f, B);
      using X2 = await solver.getrs(f, B);
      expect(Array.from(await X2.toTypedArray({ stream }))).toEqual(Array.from(await X1.toTypedArray({ stream })));
    });

    it(`solves by Cholesky in ${dtype} (n = 20), from the lower and from the upper triangle`, async () => {
      const n = 20;
      const a = spd(n, 2);
      using A = DeviceArray.from(Host.from(a), { stream, shape: [n, n] });
      const b = Float64Array.from({ length: n * 2 }, seeded(3));
      using B = DeviceArray.from(Host.from(b), { stream, shape: [n, 2] });
      for (const lower of [true, false]) {
        using X = await solver.choleskySolve(A, B, { lower });
        const x = await X.toTypedArray({ stream });
        expect(maxAbsDiff(matmul(a, x, n, n, 2), b)).toBeLessThan(TOL[dtype] * maxAbs(a) * Math.max(1, maxAbs(x)) * n);
        // the factor: L·Lᵀ (lower) or Uᵀ·U (upper) is A
        using f = await solver.potrf(A, { lower });
        const raw = Float64Array.from(await f.factor.toTypedArray({ stream }));
        const t = new Float64Array(n * n);
        for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (lower ? j <= i : j >= i) t[i * n + j] = raw[i * n + j]!;
        const prod = lower ? matmul(t, transpose(t, n, n), n, n, n) : matmul(transpose(t, n, n), t, n, n, n);
        expect(maxAbsDiff(prod, a)).toBeLessThan(TOL[dtype] * maxAbs(a) * 4);
      }
    });

    it(`QR of tall, wide and square matrices in ${dtype}: q·r = a, qᵀ·q = I, r upper triangular`, async () => {
      for (const [m, n] of [[7, 4], [3, 5], [6, 6]] as const) {
        const a = Float64Array.from({ length: m * n }, seeded(m * 10 + n));
        using A = DeviceArray.from(Host.from(a), { stream, shape: [m, n] });
        using qr = await solver.geqrf(A);
        const k = Math.min(m, n);
        expect(qr.q.shape).toEqual([m, k]);
        expect(qr.r.shape).toEqual([k, n]);
        const q = await qr.q.toTypedArray({ stream });
        const r = await qr.r.toTypedArray({ stream });
        for (let i = 0; i < k; i++) for (let j = 0; j < Math.min(i, n); j++) expect(r[i * n + j]).toBe(0);
        expect(maxAbsDiff(matmul(q, r, m, k, n), a), `${m}x${n}`).toBeLessThan(TOL[dtype] * 10);
        expect(maxAbsDiff(matmul(transpose(q, m, k), q, k, m, k), identity(k)), `${m}x${n}`).toBeLessThan(TOL[dtype] * 10);
      }
    });

    it(`SVD of tall, wide and square matrices in ${dtype}: u·diag(s)·vt = a, s descending, orthonormal u and vt`, async () => {
      for (const [m, n] of [[8, 5], [4, 6], [5, 5]] as const) {
        const a = Float64Array.from({ length: m * n }, seeded(m * 100 + n));
        using A = DeviceArray.from(Host.from(a), { stream, shape: [m, n] });
        using svd = await solver.gesvd(A);
        const k = Math.min(m, n);
        expect([svd.u.shape, svd.s.shape, svd.vt.shape]).toEqual([[m, k], [k], [k, n]]);
        const u = await svd.u.toTypedArray({ stream });
        const s = await svd.s.toTypedArray({ stream });
        const vt = await svd.vt.toTypedArray({ stream });
        for (let i = 0; i < k; i++) {
          expect(s[i]).toBeGreaterThanOrEqual(0);
          if (i > 0) expect(s[i]).toBeLessThanOrEqual(s[i - 1]!);
        }
        const us = Float64Array.from(u, (v, idx) => v * s[idx % k]!);
        expect(maxAbsDiff(matmul(us, vt, m, k, n), a), `${m}x${n}`).toBeLessThan(TOL[dtype] * 10);
        expect(maxAbsDiff(matmul(transpose(u, m, k), u, k, m, k), identity(k)), `${m}x${n}`).toBeLessThan(TOL[dtype] * 10);
        expect(maxAbsDiff(matmul(vt, transpose(vt, k, n), k, n, k), identity(k)), `${m}x${n}`).toBeLessThan(TOL[dtype] * 10);
      }
    });

    it(`symmetric eigenproblem in ${dtype}: a·v = v·diag(w), w ascending, vᵀ·v = I`, async () => {
      const n = 9;
      const a = spd(n, 4).map((v, i) => (i % (n + 1) === 0 ? v - 3 * n : v)); // symmetric, some negative eigenvalues
      using A = DeviceArray.from(Host.from(a), { stream, shape: [n, n] });
      using eig = await solver.syevd(A);
      const w = await eig.w.toTypedArray({ stream });
      const v = await eig.v.toTypedArray({ stream });
      for (let i = 1; i < n; i++) expect(w[i]).toBeGreaterThanOrEqual(w[i - 1]!);
      const av = matmul(a, v, n, n, n);
      const vw = Float64Array.from(v, (x, idx) => x * w[idx % n]!);
      expect(maxAbsDiff(av, vw)).toBeLessThan(TOL[dtype] * maxAbs(a) * 10);
      expect(maxAbsDiff(matmul(transpose(v, n, n), v, n, n, n), identity(n))).toBeLessThan(TOL[dtype] * 10);
    });
  }

  it("a singular matrix is a SingularMatrixError naming the pivot", async () => {
    using A = DeviceArray.from(new Float64Array([1, 2, 2, 4]), { stream, shape: [2, 2] });
    using b = DeviceArray.from(new Float64Array([1, 1]), { stream });
    const e = await solver.solve(A, b).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SingularMatrixError);
    expect((e as SingularMatrixError).pivot).toBe(2);
    expect((e as Error).message).toMatch(/cusolverDnDgetrf: the matrix is singular: U\(2,2\) is exactly zero \(pivot 2 of 2/);
    using Z = DeviceArray.zeros([3, 3], "float32", { stream });
    const z = await solver.getrf(Z).catch((x: unknown) => x);
    expect(z).toBeInstanceOf(SingularMatrixError);
    expect((z as SingularMatrixError).pivot).toBe(1);
  });

  it("a matrix that is not positive definite is a NotPositiveDefiniteError naming the minor", async () => {
    using A = DeviceArray.from(new Float64Array([1, 2, 0, 2, 1, 0, 0, 0, 1]), { stream, shape: [3, 3] });
    const e = await solver.potrf(A).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NotPositiveDefiniteError);
    expect((e as NotPositiveDefiniteError).order).toBe(2);
  });

  it("refuses bad shapes, dtypes and closed solvers before any call", async () => {
    using rect = DeviceArray.zeros([3, 4], "float64", { stream });
    await expect(solver.getrf(rect)).rejects.toThrow(ShapeMismatchError);
    using sq = DeviceArray.zeros([3, 3], "float64", { stream });
    using b32 = DeviceArray.zeros([3], "float32", { stream });
    await expect(solver.solve(sq, b32)).rejects.toThrow(DTypeError);
    using b4 = DeviceArray.zeros([4], "float64", { stream });
    await expect(solver.solve(sq, b4)).rejects.toThrow(/b must have shape \[3\] or \[3, k\]/);
    using ints = DeviceArray.zeros([3, 3], "int32", { stream });
    await expect(solver.syevd(ints)).rejects.toThrow(/a is int32 but must be float32 or float64/);
    const closed = await Solver.create({ stream });
    closed.close();
    await expect(closed.getrf(sq)).rejects.toThrow(ClosedError);
  });
});
