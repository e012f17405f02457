/**
 * The arithmetic of `Blas`/`BlasLt` without a GPU: how row-major arrays and their views map onto column-major cuBLAS.
 * Each plan is run through a CPU emulation of cuBLAS's gemm/gemv (column-major, op N/T, leading dimensions checked
 * as cuBLAS checks them) over the views' real memory, and compared with the row-major product. Also the dtype and
 * compute-type table, scalar encoding, and the refusals (typed errors) of views cuBLAS cannot read.
 */
import { describe, expect, it } from "vitest";
import { ArrayLayoutError, DTypeError, ShapeMismatchError, dtypes, type DType } from "../../src/index.ts";
import {
  encodeScalar,
  fitsInt32,
  gemmGeometry,
  gemmTypes,
  level1Types,
  matrixStorage,
  planGemv,
  vectorBase,
  vectorInc,
  BLAS_DATA_TYPES,
  COMPUTE_TYPES,
  type ArrayGeometry,
  type GemmGeometry,
} from "../../src/core/math/blas/plan.ts";
import { epilogueOf } from "../../src/core/math/blas/blaslt.ts";
import { cublasComputeType_t } from "../../generated/cuda-13.0/cublas/enums.ts";
import { cudaDataType } from "../../generated/cuda-13.0/runtime/enums.ts";

/** A view over a flat memory: the geometry `Blas` reads, and the element offset of [0, 0]. */
interface View extends ArrayGeometry {
  readonly offset: number;
}

const f32 = dtypes.float32;

function view(shape: number[], strides: number[], offset = 0, dtype: DType = f32): View {
  return { dtype, shape, strides, offset };
}
function contiguous(shape: number[], offset = 0): View {
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  return view(shape, strides, offset);
}
function transposed(v: View): View {
  return view([...v.shape].reverse(), [...v.strides].reverse(), v.offset);
}
function at(mem: Float64Array, v: View, idx: number[]): number {
  let o = v.offset;
  for (let i = 0; i < idx.length; i++) o += idx[i]! * v.strides[i]!;
  return mem[o]!;
}

/** cuBLAS's gemm on the CPU, column-major, with its argument checks (lda ≥ max(1, rows of op's stored matrix), ...). */
function cublasGemm(ta: 0 | 1, tb: 0 | 1, m: number, n: number, k: number, A: Float64Array, aOff: number, lda: number, B: Float64Array, bOff: number, ldb: number, C: Float64Array, cOff: number, ldc: number): void {
  expect(lda, "lda").toBeGreaterThanOrEqual(Math.max(1, ta === 0 ? m : k));
  expect(ldb, "ldb").toBeGreaterThanOrEqual(Math.max(1, tb === 0 ? k : n));
  expect(ldc, "ldc").toBeGreaterThanOrEqual(Math.max(1, m));
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let l = 0; l < k; l++) {
        const a = ta === 0 ? A[aOff + i + l * lda]! : A[aOff + l + i * lda]!;
        const b = tb === 0 ? B[bOff + l + j * ldb]! : B[bOff + j + l * ldb]!;
        s += a * b;
      }
      C[cOff + i + j * ldc] = s;
    }
  }
}

/** Runs a plan as Blas does (the operands swapped when it says so), batch by batch. */
function runPlan(g: GemmGeometry, memA: Float64Array, a: View, memB: Float64Array, b: View, memC: Float64Array, c: View): void {
  const p = g.plan;
  const [MA, oA, sA, MB, oB, sB] = p.swap ? [memB, b.offset, g.strideB, memA, a.offset, g.strideA] : [memA, a.offset, g.strideA, memB, b.offset, g.strideB];
  for (let i = 0; i < g.batch; i++) cublasGemm(p.transa, p.transb, p.m, p.n, p.k, MA, oA + i * sA, p.lda, MB, oB + i * sB, p.ldb, memC, c.offset + i * g.strideC, p.ldc);
}

function filled(n: number, seed: number): Float64Array {
  const m = new Float64Array(n);
  for (let i = 0; i < n; i++) m[i] = ((i * 7 + seed * 13) % 17) - 8;
  return m;
}

/** Checks C = A·B row-major through the plan, for views over their own memories. */
function checkProduct(a: View, memA: Float64Array, b: View, memB: Float64Array, c: View, memC: Float64Array): void {
  const g = gemmGeometry(a, b, c, c.shape.length === 3, "test");
  runPlan(g, memA, a, memB, b, memC, c);
  const batched = c.shape.length === 3;
  const batch = batched ? c.shape[0]! : 1;
  const [m, n] = c.shape.slice(-2) as [number, number];
  const k = a.shape[a.shape.length - 1]!;
  for (let t = 0; t < batch; t++) {
    const ia = (i: number, l: number): number[] => (a.shape.length === 3 ? [a.shape[0] === 1 ? 0 : t, i, l] : [i, l]);
    const ib = (l: number, j: number): number[] => (b.shape.length === 3 ? [b.shape[0] === 1 ? 0 : t, l, j] : [l, j]);
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let l = 0; l < k; l++) s += at(memA, a, ia(i, l)) * at(memB, b, ib(l, j));
        expect(at(memC, c, batched ? [t, i, j] : [i, j]), `C[${batched ? `${t}, ` : ""}${i}, ${j}]`).toBe(s);
      }
    }
  }
}

describe("row-major arrays on column-major cuBLAS: gemm", () => {
  const sizes: [number, number, number][] = [
    [3, 5, 7],
    [13, 1, 9],
    [1, 11, 5],
    [6, 6, 1],
    [17, 9, 33],
  ];
  it.each(sizes)("contiguous A[%i x %i]... every combination of plain and transposed operands and outputs (m=%i, n=%i, k=%i)", (m, n, k) => {
    for (const ta of [false, true]) {
      for (const tb of [false, true]) {
        for (const tc of [false, true]) {
          // A transposed view of a contiguous [k, m] is an [m, k] array with strides [1, m].
          const a = ta ? transposed(contiguous([k, m])) : contiguous([m, k]);
          const b = tb ? transposed(contiguous([n, k])) : contiguous([k, n]);
          const c = tc ? transposed(contiguous([n, m])) : contiguous([m, n]);
          const memC = new Float64Array(m * n).fill(NaN);
          checkProduct(a, filled(m * k, 1), b, filled(k * n, 2), c, memC);
        }
      }
    }
  });

  it("reads sliced views in place: a column range (ld > cols), a row step, an offset, a slice of a transpose", () => {
    // A = big[2:9, 3:8] of a 12x10 array: strides [10, 1], offset 23.
    const memA = filled(120, 3);
    const a = view([7, 5], [10, 1], 23);
    // B = big[::2, :] of a 10x4 array: strides [8, 1] (a row step of 2), 5 rows.
    const memB = filled(40, 4);
    const b = view([5, 4], [8, 1], 0);
    // C = out[1:8, 2:6] of a 9x7 array: strides [7, 1], offset 9.
    const memC = new Float64Array(63).fill(NaN);
    const c = view([7, 4], [7, 1], 9);
    checkProduct(a, memA, b, memB, c, memC);
    // The untouched part of C's memory stays untouched.
    expect(memC[0]).toBeNaN();
    expect(memC[62]).toBeNaN();
    // A slice of a transpose: (big[0:6, 0:7]).T with big 8x9: shape [7, 6], strides [1, 9].
    const memT = filled(72, 5);
    const at2 = view([7, 6], [1, 9], 0);
    const b2 = contiguous([6, 3]);
    checkProduct(at2, memT, b2, filled(18, 6), contiguous([7, 3]), new Float64Array(21));
  });

  it("runs batches with strides, and an input given once for every entry (stride 0)", () => {
    const [batch, m, n, k] = [4, 5, 3, 6];
    checkProduct(contiguous([batch, m, k]), filled(batch * m * k, 7), contiguous([batch, k, n]), filled(batch * k * n, 8), contiguous([batch, m, n]), new Float64Array(batch * m * n));
    // B shared by every entry (2-D), A transposed per entry: [batch, m, k] with strides [m*k, 1, m].
    const a = view([batch, m, k], [m * k, 1, m], 0);
    const g = gemmGeometry(a, contiguous([k, n]), contiguous([batch, m, n]), true, "test");
    expect(g.strideB === 0 || g.strideA === 0).toBe(true);
    checkProduct(a, filled(batch * m * k, 9), contiguous([k, n]), filled(k * n, 10), contiguous([batch, m, n]), new Float64Array(batch * m * n));
    // A batch of 1 is broadcast as well.
    checkProduct(contiguous([1, m, k]), filled(m * k, 11), contiguous([batch, k, n]), filled(batch * k * n, 12), contiguous([batch, m, n]), new Float64Array(batch * m * n));
  });

  it("swaps the operands for a row-major C (Cᵀ = Bᵀ·Aᵀ) and not for a column-major one", () => {
    const g = gemmGeometry(contiguous([4, 3]), contiguous([3, 2]), contiguous([4, 2]), false, "t");
    expect(g.plan).toEqual({ swap: true, m: 2, n: 4, k: 3, transa: 0, lda: 2, transb: 0, ldb: 3, ldc: 2 });
    const h = gemmGeometry(contiguous([4, 3]), contiguous([3, 2]), transposed(contiguous([2, 4])), false, "t");
    expect(h.plan).toEqual({ swap: false, m: 4, n: 2, k: 3, transa: 1, lda: 3, transb: 1, ldb: 2, ldc: 4 });
  });

  it("refuses what cuBLAS cannot read, before any call, saying to copy", () => {
    // Steps along both axes.
    expect(() => gemmGeometry(view([3, 3], [12, 2]), contiguous([3, 3]), contiguous([3, 3]), false, "Blas.gemm")).toThrow(ArrayLayoutError);
    expect(() => gemmGeometry(view([3, 3], [12, 2]), contiguous([3, 3]), contiguous([3, 3]), false, "Blas.gemm")).toThrow(/Blas\.gemm: A: a 3x3 view with strides \[12, 2\].*copy/);
    // Negative and zero strides.
    expect(() => matrixStorage(3, 4, -4, 1, "x")).toThrow(ArrayLayoutError);
    expect(() => matrixStorage(3, 4, 0, 1, "x")).toThrow(ArrayLayoutError);
    // A leading dimension smaller than the extent (overlapping rows).
    expect(() => matrixStorage(3, 4, 2, 1, "x")).toThrow(ArrayLayoutError);
    // Shapes.
    expect(() => gemmGeometry(contiguous([3, 4]), contiguous([5, 2]), contiguous([3, 2]), false, "Blas.gemm")).toThrow(ShapeMismatchError);
    expect(() => gemmGeometry(contiguous([3, 4]), contiguous([4, 2]), contiguous([3, 3]), false, "Blas.gemm")).toThrow(/C is 3x3 but A·B is 3x2/);
    expect(() => gemmGeometry(contiguous([2, 3, 4]), contiguous([4, 2]), contiguous([3, 2]), false, "Blas.gemm")).toThrow(/use gemmStridedBatched/);
    expect(() => gemmGeometry(contiguous([2, 3, 4]), contiguous([3, 4, 2]), contiguous([2, 3, 2]), true, "b")).toThrow(/B has a batch of 3 but C has 2/);
    expect(() => gemmGeometry(contiguous([2, 3, 4]), contiguous([4, 2]), view([2, 3, 2], [0, 2, 1]), true, "b")).toThrow(/C's batch stride is 0/);
    expect(() => gemmGeometry(contiguous([3, 4]), contiguous([4, 2]), contiguous([3, 2]), true, "b")).toThrow(/a batched gemm writes a batch/);
  });

  it("takes any stride on an axis of extent 1", () => {
    expect(matrixStorage(1, 5, 999, 1, "x")).toEqual({ order: "row", ld: 5 });
    expect(matrixStorage(5, 1, 1, 77, "x")).toEqual({ order: "row", ld: 1 });
    expect(matrixStorage(5, 1, 3, 77, "x")).toEqual({ order: "row", ld: 3 });
    expect(matrixStorage(1, 1, 0, 0, "x")).toEqual({ order: "row", ld: 1 });
    checkProduct(view([1, 4], [100, 1], 2), filled(10, 1), view([4, 1], [3, 50], 0), filled(12, 2), view([1, 1], [9, 9], 0), new Float64Array(1));
  });
});

describe("row-major arrays on column-major cuBLAS: gemv", () => {
  function cublasGemv(trans: 0 | 1, m: number, n: number, A: Float64Array, aOff: number, lda: number, x: Float64Array, xOff: number, incx: number, y: Float64Array, yOff: number, incy: number): void {
    expect(lda).toBeGreaterThanOrEqual(Math.max(1, m));
    const [rows, cols] = trans === 0 ? [m, n] : [n, m];
    // cuBLAS starts a negative-stride vector at its last element in memory: x[(1 - len)·inc] for index 0.
    const xi = (i: number): number => xOff + (incx > 0 ? i * incx : (i - (cols - 1)) * incx);
    const yi = (i: number): number => yOff + (incy > 0 ? i * incy : (i - (rows - 1)) * incy);
    for (let i = 0; i < rows; i++) {
      let s = 0;
      for (let j = 0; j < cols; j++) s += (trans === 0 ? A[aOff + i + j * lda]! : A[aOff + j + i * lda]!) * x[xi(j)]!;
      y[yi(i)] = s;
    }
  }

  it("maps a row-major A to op T and a transposed view to op N, with any vector strides", () => {
    const [m, n] = [5, 7];
    for (const t of [false, true]) {
      const a = t ? transposed(contiguous([n, m])) : contiguous([m, n]);
      const memA = filled(m * n, 1);
      const memX = filled(3 * n, 2);
      const x = view([n], [3], 0);
      const memY = new Float64Array(2 * m);
      const y = view([m], [2], 0);
      const p = planGemv(a, x, y, "Blas.gemv");
      expect(p.trans).toBe(t ? 0 : 1);
      cublasGemv(p.trans, p.m, p.n, memA, 0, p.lda, memX, 0, p.incx, memY, 0, p.incy);
      for (let i = 0; i < m; i++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += at(memA, a, [i, j]) * at(memX, x, [j]);
        expect(memY[2 * i]).toBe(s);
      }
    }
  });

  it("passes a vector of negative stride by its lowest address, as BLAS expects", () => {
    const [m, n] = [4, 6];
    const a = contiguous([m, n]);
    const memA = filled(m * n, 3);
    // x = mem[::-2] over 12 elements: element 0 at offset 11, stride -2; y = mem[::-1] over 4.
    const memX = filled(2 * n, 4);
    const x = view([n], [-2], 2 * n - 1);
    const memY = new Float64Array(m);
    const y = view([m], [-1], m - 1);
    const p = planGemv(a, x, y, "Blas.gemv");
    expect([p.incx, p.incy]).toEqual([-2, -1]);
    cublasGemv(p.trans, p.m, p.n, memA, 0, p.lda, memX, x.offset + vectorBase(n, p.incx), p.incx, memY, y.offset + vectorBase(m, p.incy), p.incy);
    for (let i = 0; i < m; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += at(memA, a, [i, j]) * at(memX, x, [j]);
      expect(at(memY, y, [i])).toBe(s);
    }
    expect(vectorBase(5, 3)).toBe(0);
    expect(vectorBase(5, -3)).toBe(-12);
    expect(vectorBase(0, -3)).toBe(0);
  });

  it("checks vector shapes and strides", () => {
    expect(() => planGemv(contiguous([3, 4]), contiguous([3]), contiguous([3]), "Blas.gemv")).toThrow(/x has 3 elements; expected 4/);
    expect(() => planGemv(contiguous([3, 4]), contiguous([4]), contiguous([4]), "Blas.gemv")).toThrow(ShapeMismatchError);
    expect(() => vectorInc(view([4], [0]), "x", "Blas.axpy")).toThrow(/stride 0/);
    expect(() => vectorInc(contiguous([2, 2]), "x", "Blas.axpy")).toThrow(/expected a vector/);
    expect(vectorInc(view([4], [-2]), "x", "a")).toBe(-2);
  });
});

describe("dtypes and compute types", () => {
  it("maps dtypes and compute types to the generated enums' members", () => {
    expect(BLAS_DATA_TYPES).toEqual({
      float16: cudaDataType.CUDA_R_16F,
      bfloat16: cudaDataType.CUDA_R_16BF,
      float32: cudaDataType.CUDA_R_32F,
      float64: cudaDataType.CUDA_R_64F,
      complex64: cudaDataType.CUDA_C_32F,
      complex128: cudaDataType.CUDA_C_64F,
      int8: cudaDataType.CUDA_R_8I,
      int32: cudaDataType.CUDA_R_32I,
    });
    const names: Record<string, string> = {
      "16f": "CUBLAS_COMPUTE_16F",
      "32f": "CUBLAS_COMPUTE_32F",
      "32f-fast-16f": "CUBLAS_COMPUTE_32F_FAST_16F",
      "32f-fast-16bf": "CUBLAS_COMPUTE_32F_FAST_16BF",
      "32f-fast-tf32": "CUBLAS_COMPUTE_32F_FAST_TF32",
      "32f-emulated-16bfx9": "CUBLAS_COMPUTE_32F_EMULATED_16BFX9",
      "64f": "CUBLAS_COMPUTE_64F",
      "64f-emulated-fixedpoint": "CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT",
      "32i": "CUBLAS_COMPUTE_32I",
    };
    for (const [k, v] of Object.entries(COMPUTE_TYPES)) expect((cublasComputeType_t as Record<string, number>)[names[k]!], k).toBe(v);
  });

  it("picks the default compute type and scalar type of each dtype", () => {
    const d = dtypes;
    expect(gemmTypes(d.float16, d.float16, d.float16, undefined, false, "g")).toMatchObject({ computeName: "32f", scalar: "f32", aType: 2, cType: 2 });
    expect(gemmTypes(d.bfloat16, d.bfloat16, d.bfloat16, undefined, false, "g")).toMatchObject({ computeName: "32f", scalar: "f32", aType: 14 });
    expect(gemmTypes(d.float32, d.float32, d.float32, undefined, false, "g")).toMatchObject({ computeName: "32f", scalar: "f32", aType: 0 });
    expect(gemmTypes(d.float64, d.float64, d.float64, undefined, false, "g")).toMatchObject({ computeName: "64f", scalar: "f64", aType: 1 });
    expect(gemmTypes(d.complex64, d.complex64, d.complex64, undefined, false, "g")).toMatchObject({ computeName: "32f", scalar: "c32", aType: 4 });
    expect(gemmTypes(d.complex128, d.complex128, d.complex128, undefined, false, "g")).toMatchObject({ computeName: "64f", scalar: "c64", aType: 5 });
    expect(gemmTypes(d.float16, d.float16, d.float16, "16f", false, "g")).toMatchObject({ scalar: "f16", compute: 64 });
    expect(gemmTypes(d.float32, d.float32, d.float32, "32f-fast-tf32", false, "g")).toMatchObject({ compute: 77 });
  });

  it("takes mixed precision only in gemmEx, and only the combinations cuBLAS has", () => {
    const d = dtypes;
    expect(() => gemmTypes(d.float16, d.float16, d.float32, undefined, false, "Blas.gemm")).toThrow(/use gemmEx/);
    expect(gemmTypes(d.float16, d.float16, d.float32, undefined, true, "Blas.gemmEx")).toMatchObject({ aType: 2, cType: 0, scalar: "f32" });
    expect(gemmTypes(d.int8, d.int8, d.int32, undefined, true, "Blas.gemmEx")).toMatchObject({ compute: 72, scalar: "i32" });
    expect(() => gemmTypes(d.float16, d.float16, d.float16, "64f", false, "Blas.gemm")).toThrow(DTypeError);
    expect(() => gemmTypes(d.float16, d.float16, d.float16, "64f", false, "Blas.gemm")).toThrow(/"64f" does not take float16 inputs into float16; it takes float64 → float64, complex128 → complex128/);
    expect(() => gemmTypes(d.float32, d.float64, d.float32, undefined, true, "Blas.gemm")).toThrow(/A is float32 but B is float64/);
    expect(() => gemmTypes(d.int32, d.int32, d.int32, undefined, true, "Blas.gemm")).toThrow(DTypeError);
    expect(() => gemmTypes(d.uint8, d.uint8, d.uint8, undefined, true, "Blas.gemm")).toThrow(/cuBLAS takes float16/);
    expect(() => gemmTypes(d.float32, d.float32, d.float32, "fast" as never, false, "Blas.gemm")).toThrow(/compute type "fast" is not one of/);
  });

  it("encodes scalars as the computation reads them", () => {
    const dv = new DataView(new ArrayBuffer(16));
    encodeScalar(dv, 0, "f16", 1.5, "alpha");
    expect(dv.getUint16(0, true)).toBe(0x3e00);
    encodeScalar(dv, 0, "bf16", -2, "alpha");
    expect(dv.getUint16(0, true)).toBe(0xc000);
    encodeScalar(dv, 0, "c64", [1.25, -3], "alpha");
    expect([dv.getFloat64(0, true), dv.getFloat64(8, true)]).toEqual([1.25, -3]);
    encodeScalar(dv, 0, "c32", 2, "alpha");
    expect([dv.getFloat32(0, true), dv.getFloat32(4, true)]).toEqual([2, 0]);
    encodeScalar(dv, 0, "i32", -7, "alpha");
    expect(dv.getInt32(0, true)).toBe(-7);
    expect(() => encodeScalar(dv, 0, "f32", [1, 2], "Blas.gemm: alpha")).toThrow(/complex value, but this call computes in real f32/);
    expect(() => encodeScalar(dv, 0, "f32", "1" as never, "Blas.gemm: alpha")).toThrow(DTypeError);
    expect(() => encodeScalar(dv, 0, "i32", 0.5, "Blas.gemmEx: alpha")).toThrow(/integer scalar/);
  });

  it("gives level-1 operations their types, and refuses integer vectors", () => {
    expect(level1Types(dtypes.float16, "a")).toMatchObject({ data: 2, execution: 0, scalar: "f32", dotScalar: "f16" });
    expect(level1Types(dtypes.complex64, "a")).toMatchObject({ data: 4, execution: 4, normType: 0, normScalar: "f32", dotScalar: "c32" });
    expect(() => level1Types(dtypes.int32, "Blas.axpy")).toThrow(DTypeError);
  });

  it("knows cuBLAS's 32-bit limits", () => {
    expect(fitsInt32(1, 2 ** 31 - 1)).toBe(true);
    expect(fitsInt32(2 ** 31)).toBe(false);
  });
});

describe("BlasLt epilogues", () => {
  it("combines a bias and an activation into cuBLASLt's epilogue", () => {
    expect(epilogueOf(false, undefined)).toBe("none");
    expect(epilogueOf(true, undefined)).toBe("bias");
    expect(epilogueOf(false, "relu")).toBe("relu");
    expect(epilogueOf(true, "relu")).toBe("bias-relu");
    expect(epilogueOf(false, "gelu")).toBe("gelu");
    expect(epilogueOf(true, "gelu")).toBe("bias-gelu");
  });
});
