/**
 * Sparse on a GPU, against dense products computed on the CPU in float64: SpMV with CSR and COO matrices, int32 and
 * int64 indices, float32, float64 and complex64 values, A and Aᵀ, alpha and beta; SpMM with row-major dense matrices;
 * and the typed errors before a call. Tolerances: 1e-12 (float64) and 1e-4 (float32, complex64) of the sum of
 * absolute terms. Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClosedError, DTypeError, Device, DeviceArray, ShapeMismatchError, type Stream } from "../../src/index.ts";
import { Sparse, SparseMatrix } from "../../src/math.ts";
import { gpu, skipNote } from "../support/gpu.ts";
import { matmul, maxAbsDiff, seeded, transpose } from "./reference.ts";

/** A random m×n matrix with about `density` of its entries non-zero: dense (row-major) and CSR/COO arrays. */
function randomSparse(m: number, n: number, density: number, seed: number) {
  const r = seeded(seed);
  const dense = new Float64Array(m * n);
  const offsets = [0];
  const rows: number[] = [];
  const cols: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      if ((r() + 1) / 2 < density) {
        const v = r();
        dense[i * n + j] = v;
        rows.push(i);
        cols.push(j);
        values.push(v);
      }
    }
    offsets.push(values.length);
  }
  return { dense, offsets, rows, cols, values };
}

const TOL = { float32: 1e-4, float64: 1e-12 } as const;

describe.skipIf(!gpu.available)(`Sparse on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let sparse: Sparse;

  beforeAll(async () => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    sparse = await Sparse.create({ stream });
  });

  afterAll(() => {
    sparse?.close();
    stream?.close();
  });

  for (const [format, index, dtype] of [
    ["csr", "int32", "float64"],
    ["csr", "int64", "float32"],
    ["coo", "int32", "float32"],
    ["coo", "int64", "float64"],
  ] as const) {
    const Host = { from: (xs: ArrayLike<number>): Float32Array | Float64Array => (dtype === "float32" ? Float32Array.from(xs) : Float64Array.from(xs)) };
    const Index = index === "int32" ? (xs: number[]) => Int32Array.from(xs) : (xs: number[]) => BigInt64Array.from(xs, BigInt);

    it(`SpMV and SpMM with ${format}, ${index} indices, ${dtype} values, against dense products`, async () => {
      const m = 50;
      const n = 40;
      const S = randomSparse(m, n, 0.1, m + n + format.length);
      const nnz = S.values.length;
      using values = DeviceArray.from(Host.from(S.values), { stream });
      using first = DeviceArray.from(Index(format === "csr" ? S.offsets : S.rows), { stream });
      using colIndices = DeviceArray.from(Index(S.cols), { stream });
      using A = format === "csr"
        ? sparse.csr({ shape: [m, n], rowOffsets: first, colIndices, values })
        : sparse.coo({ shape: [m, n], rowIndices: first, colIndices, values });
      expect([A.shape, A.nnz, A.dtype]).toEqual([[m, n], nnz, dtype]);
      expect(A).toBeInstanceOf(SparseMatrix);
      expect(sparse).toBeInstanceOf(Sparse);
      const absDense = S.dense.map(Math.abs);
      const tol = (xs: ArrayLike<number>, k: number): number => TOL[dtype] * Math.max(1, ...matmul(absDense, Float64Array.from(xs, Math.abs), m, n, k));

      // y = A·x
      const x = Float64Array.from({ length: n }, seeded(1));
      using X = DeviceArray.from(Host.from(x), { stream });
      using Y = sparse.spmv(A, X);
      expect(Y.shape).toEqual([m]);
      expect(maxAbsDiff(await Y.toTypedArray({ stream }), matmul(S.dense, Host.from(x), m, n, 1))).toBeLessThan(tol(x, 1));

      // y = 2·Aᵀ·z + 0.5·y
      const z = Float64Array.from({ length: m }, seeded(2));
      const y0 = Float64Array.from({ length: n }, seeded(3));
      using Z = DeviceArray.from(Host.from(z), { stream });
      using Y2 = DeviceArray.from(Host.from(y0), { stream });
      expect(sparse.spmv(A, Z, { op: "transpose", alpha: 2, beta: 0.5, out: Y2 })).toBe(Y2);
      const at = matmul(transpose(S.dense, m, n), Host.from(z), n, m, 1);
      const want = Float64Array.from(at, (v, i) => 2 * v + 0.5 * Host.from(y0)[i]!);
      expect(maxAbsDiff(await Y2.toTypedArray({ stream }), want)).toBeLessThan(4 * TOL[dtype] * Math.max(1, ...want.map(Math.abs)) * m);

      // C = A·B, B [n, 7] row-major
      const k = 7;
      const b = Float64Array.from({ length: n * k }, seeded(4));
      using B = DeviceArray.from(Host.from(b), { stream, shape: [n, k] });
      using C = sparse.spmm(A, B);
      expect(C.shape).toEqual([m, k]);
      const wantC = matmul(S.dense, Host.from(b), m, n, k);
      expect(maxAbsDiff(await C.toTypedArray({ stream }), wantC)).toBeLessThan(tol(b, k) * 4);
      // C = A·B + C
      sparse.spmm(A, B, { out: C, beta: 1 });
      expect(maxAbsDiff(await C.toTypedArray({ stream }), wantC.map((v) => 2 * v))).toBeLessThan(tol(b, k) * 8);
    });
  }

  it("complex64 SpMV with a complex alpha", async () => {
    const m = 6;
    const n = 5;
    const S = randomSparse(m, n, 0.5, 77);
    const im = S.values.map((_, i) => (i % 3) - 1);
    const interleaved = new Float32Array(2 * S.values.length);
    S.values.forEach((v, i) => {
      interleaved[2 * i] = v;
      interleaved[2 * i + 1] = im[i]!;
    });
    using values = DeviceArray.from(interleaved, { stream, dtype: "complex64" });
    using offsets = DeviceArray.from(Int32Array.from(S.offsets), { stream });
    using cols = DeviceArray.from(Int32Array.from(S.cols), { stream });
    using A = sparse.csr({ shape: [m, n], rowOffsets: offsets, colIndices: cols, values });
    const x = Float32Array.from({ length: 2 * n }, seeded(8));
    using X = DeviceArray.from(x, { stream, dtype: "complex64" });
    using Y = sparse.spmv(A, X, { alpha: [0, 2] }); // 2i·A·x
    const want = new Float64Array(2 * m);
    for (let i = 0; i < m; i++) {
      let re = 0;
      let imag = 0;
      for (let p = S.offsets[i]!; p < S.offsets[i + 1]!; p++) {
        const ar = Math.fround(S.values[p]!);
        const ai = im[p]!;
        const j = S.cols[p]!;
        re += ar * x[2 * j]! - ai * x[2 * j + 1]!;
        imag += ar * x[2 * j + 1]! + ai * x[2 * j]!;
      }
      want[2 * i] = -2 * imag;
      want[2 * i + 1] = 2 * re;
    }
    expect(maxAbsDiff(await Y.toTypedArray({ stream }), want)).toBeLessThan(1e-4 * n * 4);
  });

  it("refuses bad shapes, dtypes and closed matrices before any call", async () => {
    using values = DeviceArray.from(new Float64Array([1, 2]), { stream });
    using offsets = DeviceArray.from(new Int32Array([0, 1, 2]), { stream });
    using cols = DeviceArray.from(new Int32Array([0, 1]), { stream });
    const A = sparse.csr({ shape: [2, 2], rowOffsets: offsets, colIndices: cols, values });
    using x3 = DeviceArray.zeros([3], "float64", { stream });
    expect(() => sparse.spmv(A, x3)).toThrow(ShapeMismatchError);
    using x32 = DeviceArray.zeros([2], "float32", { stream });
    expect(() => sparse.spmv(A, x32)).toThrow(DTypeError);
    using x = DeviceArray.zeros([2], "float64", { stream });
    expect(() => sparse.spmv(A, x, { beta: 1 })).toThrow(/no out was given to add to/);
    using b = DeviceArray.zeros([3, 4], "float64", { stream });
    expect(() => sparse.spmm(A, b)).toThrow(/b must have shape \[2, n\]/);
    using bad64 = DeviceArray.from(new BigInt64Array([0n, 1n]), { stream });
    expect(() => sparse.csr({ shape: [2, 2], rowOffsets: offsets, colIndices: bad64, values })).toThrow(DTypeError);
    A.close();
    A.close();
    expect(() => sparse.spmv(A, x)).toThrow(ClosedError);
    const closed = await Sparse.create({ stream });
    closed.close();
    expect(() => closed.csr({ shape: [2, 2], rowOffsets: offsets, colIndices: cols, values })).toThrow(ClosedError);
  });
});
