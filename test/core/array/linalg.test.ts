/**
 * `cuda-ts/array/linalg` on the CPU: matmul's shapes (NumPy's 1-d promotion and batch broadcasting), how each operand
 * reaches cuBLAS (a single matrix, a strided batch, or a copy) or the integer kernel (three strides, or a copy), the
 * dtypes the routines compute in, lstsq's rank and the shapes of QR's and the SVD's results, the generated kernel
 * sources (the integer gemm's loops simulated in TypeScript, wrap-around included), and the entry point's exports.
 */
import { describe, expect, it } from "vitest";
import * as linalg from "../../../src/array-linalg.ts";
import { dtypes } from "../../../src/core/array/dtype.ts";
import { BroadcastError, DTypeError, ShapeMismatchError } from "../../../src/core/array/errors.ts";
import {
  batchStride,
  integerOperandStrides,
  lstsqRank,
  machineEpsilon,
  matmulDtype,
  matmulRoute,
  matmulShapes,
  operandLayout,
  operandView,
  qrShapes,
  solverDtype,
  svdShapes,
} from "../../../src/core/array/linalg/plan.ts";
import {
  INTEGER_GEMM_BLOCK,
  INTEGER_GEMM_LAYOUT_BYTES,
  INTEGER_GEMM_MAX_GRID,
  INTEGER_GEMM_TILE,
  integerGemmGrid,
  integerGemmKernelName,
  integerGemmLayout,
  integerGemmSource,
  integerGemmTypes,
  type IntegerGemmShape,
} from "../../../src/core/array/linalg/integer-gemm-source.ts";
import { resultType } from "../../../src/core/array/promotion.ts";
import { gemmGeometry } from "../../../src/core/math/blas/plan.ts";
import { castExpression, DET, EYE, QR_R, kernelSpecsForTests } from "../../../src/core/array/math-kernels.ts";
import { elementwiseSource } from "../../../src/core/kernels/elementwise.ts";
import { parseParams, type Binding } from "../../../src/core/kernels/params.ts";
import type { DType, DTypeName } from "../../../src/core/array/dtype.ts";

const contiguous = (shape: readonly number[]): number[] => {
  const s: number[] = [];
  let step = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    s[d] = step;
    step *= shape[d]!;
  }
  return s;
};

describe("matmul's shapes", () => {
  it("follows NumPy: matrices, 1-d promotion on either side, batches that broadcast", () => {
    const cases: [number[], number[], number[]][] = [
      [[2, 3], [3, 4], [2, 4]],
      [[3], [3, 4], [4]],
      [[2, 3], [3], [2]],
      [[3], [3], []],
      [[5, 2, 3], [3, 4], [5, 2, 4]],
      [[8, 1, 2, 3], [5, 3, 4], [8, 5, 2, 4]],
      [[3], [7, 3, 2], [7, 2]],
      [[7, 2, 3], [3], [7, 2]],
      [[0, 2, 3], [3, 4], [0, 2, 4]],
      [[2, 0], [0, 4], [2, 4]],
    ];
    for (const [a, b, out] of cases) expect(matmulShapes(a, b, "matmul").outShape, `${a} @ ${b}`).toEqual(out);
    const p = matmulShapes([8, 1, 2, 3], [5, 3, 4], "matmul");
    expect([p.batch, p.m, p.k, p.n]).toEqual([[8, 5], 2, 3, 4]);
  });

  it("refuses 0-d operands, inner extents that differ, and batches that do not broadcast", () => {
    expect(() => matmulShapes([], [3], "matmul")).toThrow(ShapeMismatchError);
    expect(() => matmulShapes([2, 3], [4, 2], "matmul")).toThrow(/last axis of a .* extent 3.* extent 4/);
    expect(() => matmulShapes([2, 2, 3], [4, 3, 1], "matmul")).toThrow(BroadcastError);
  });
});

describe("how an operand reaches cuBLAS", () => {
  it("a matrix without batch axes, or with broadcast ones, is one matrix for every entry", () => {
    expect(operandLayout([2, 3], [3, 1], [])).toEqual({ kind: "single", strides: [3, 1] });
    expect(operandLayout([2, 3], [3, 1], [5])).toEqual({ kind: "single", strides: [3, 1] });
    expect(operandLayout([1, 2, 3], [6, 3, 1], [4])).toEqual({ kind: "single", strides: [3, 1] });
  });

  it("contiguous batches and transposed views are strided batches (no copy)", () => {
    expect(operandLayout([4, 2, 3], contiguous([4, 2, 3]), [4])).toEqual({ kind: "strided", strides: [6, 3, 1] });
    // Two batch axes that collapse to one stride.
    expect(operandLayout([2, 5, 2, 3], contiguous([2, 5, 2, 3]), [2, 5])).toEqual({ kind: "strided", strides: [6, 3, 1] });
    // A batch of transposed matrices: column-contiguous, op T.
    expect(operandLayout([4, 3, 2], [6, 1, 3], [4])).toEqual({ kind: "strided", strides: [6, 1, 3] });
  });

  it("copies what cuBLAS cannot read: steps along both matrix axes, batches that broadcast on one axis of two, irregular batch strides", () => {
    expect(operandLayout([2, 3], [6, 2], [])).toEqual({ kind: "copy" });
    expect(operandLayout([2, 1, 2, 3], contiguous([2, 1, 2, 3]), [2, 5])).toEqual({ kind: "copy" });
    expect(operandLayout([2, 5, 2, 3], [60, 6, 3, 1], [2, 5])).toEqual({ kind: "copy" });
    expect(operandLayout([4, 2, 3], [-6, 3, 1], [4])).toEqual({ kind: "copy" });
  });
});

describe("how an operand reaches the integer kernel", () => {
  it("collapses batch axes to one stride of any sign, 0 when they all broadcast", () => {
    expect(batchStride([2, 3], [3, 1], [])).toBe(0);
    expect(batchStride([1, 2, 3], [6, 3, 1], [4])).toBe(0);
    expect(batchStride([2, 5, 2, 3], contiguous([2, 5, 2, 3]), [2, 5])).toBe(6);
    expect(batchStride([4, 2, 3], [-6, 3, 1], [4])).toBe(-6);
    expect(batchStride([2, 1, 2, 3], contiguous([2, 1, 2, 3]), [2, 5])).toBeUndefined();
    expect(batchStride([2, 5, 2, 3], [60, 6, 3, 1], [2, 5])).toBeUndefined();
  });

  it("reads any matrix strides as they lie (steps, transposes, negative), copies only batches that do not collapse", () => {
    expect(integerOperandStrides(2, [6, 2], [2, 3], [])).toEqual([0, 6, 2]);
    expect(integerOperandStrides(3, [6, 1, 3], [4, 3, 2], [4])).toEqual([6, 1, 3]);
    expect(integerOperandStrides(3, [-4, 2, 1], [3, 2, 2], [3])).toEqual([-4, 2, 1]);
    expect(integerOperandStrides(2, [-3, -1], [2, 3], [5])).toEqual([0, -3, -1]);
    // 1-d operands: a row [1, k] (a), a column [k, 1] (b); the step of the one axis carries over.
    expect(integerOperandStrides(1, [2], [1, 3], [])).toEqual([0, 6, 2]);
    expect(integerOperandStrides(1, [2], [3, 1], [])).toEqual([0, 2, 1]);
    expect(integerOperandStrides(4, contiguous([2, 1, 2, 3]), [2, 1, 2, 3], [2, 5])).toBeUndefined();
  });
});

/** An operand over a host buffer: element [idx] is at offset + Σ idx·strides; its value is a function of the offset. */
interface HostOperand {
  readonly shape: number[];
  readonly strides: number[];
  readonly offset: number;
}
const valueAt = (e: number): number => ((e * 7919) % 23) - 11;

/** NumPy's matmul of two strided operands, element by element (the reference). */
function referenceMatmul(a: HostOperand, b: HostOperand): { shape: readonly number[]; data: number[] } {
  const p = matmulShapes(a.shape, b.shape, "matmul");
  const at = (x: HostOperand, promoted: readonly number[], batchIdx: number[], i: number, j: number): number => {
    const idx = [...batchIdx.slice(batchIdx.length - (promoted.length - 2)), i, j].map((v, d) => (promoted[d] === 1 ? 0 : v));
    // Back to the operand's own axes (a 1-d operand keeps its one axis).
    const own = x.shape.length === 1 ? [promoted[0] === 1 ? idx[1]! : idx[0]!] : idx;
    return valueAt(x.offset + own.reduce((acc, v, d) => acc + v * x.strides[d]!, 0));
  };
  const B = p.batch.reduce((x, y) => x * y, 1);
  const data: number[] = [];
  for (let flat = 0; flat < B; flat++) {
    const bi: number[] = [];
    let r = flat;
    for (let d = p.batch.length - 1; d >= 0; d--) {
      bi[d] = r % p.batch[d]!;
      r = Math.floor(r / p.batch[d]!);
    }
    for (let i = 0; i < p.m; i++) {
      for (let j = 0; j < p.n; j++) {
        let sum = 0;
        for (let k = 0; k < p.k; k++) sum += at(a, p.aShape, bi, i, k) * at(b, p.bShape, bi, k, j);
        data.push(sum);
      }
    }
  }
  return { shape: p.outShape, data };
}

/** The same product as matmul hands it to cuBLAS: each operand's view (or a contiguous copy), one gemm per batch entry. */
function viewMatmul(a: HostOperand, b: HostOperand): number[] {
  const p = matmulShapes(a.shape, b.shape, "matmul");
  const B = p.batch.reduce((x, y) => x * y, 1);
  const views = [
    [a, p.aShape],
    [b, p.bShape],
  ].map(([x, promoted]) => {
    const op = x as HostOperand;
    const v = operandView(op.shape.length, op.strides, promoted as number[], p.batch);
    return v === undefined ? undefined : { ...v, offset: op.offset };
  });
  // A copy stands for itself: the reference's own values, contiguous.
  const read = (which: 0 | 1, bi: number, i: number, j: number): number => {
    const v = views[which];
    const x = which === 0 ? a : b;
    if (v === undefined) {
      const promoted = which === 0 ? p.aShape : p.bShape;
      const idx: number[] = [];
      let r = bi;
      for (let d = p.batch.length - 1; d >= 0; d--) {
        idx[d] = r % p.batch[d]!;
        r = Math.floor(r / p.batch[d]!);
      }
      const full = [...idx.slice(idx.length - (promoted.length - 2)), i, j].map((t, d) => (promoted[d] === 1 ? 0 : t));
      const own = x.shape.length === 1 ? [promoted[0] === 1 ? full[1]! : full[0]!] : full;
      return valueAt(x.offset + own.reduce((acc, t, d) => acc + t * x.strides[d]!, 0));
    }
    const base = v.shape.length === 3 ? bi * v.strides[0]! : 0;
    const [sr, sc] = v.strides.slice(-2) as [number, number];
    return valueAt(v.offset + base + i * sr + j * sc);
  };
  // What Blas checks of the views (gemmGeometry refuses layouts it cannot plan).
  const geo = (shape: number[], strides: number[]) => ({ dtype: dtypes.float32, shape, strides });
  const batched = !(p.batch.length === 0 || (views.every((v) => v !== undefined && v.shape.length === 2) && B === 1));
  const A = views[0] ?? { shape: B === 1 ? [p.m, p.k] : [B, p.m, p.k], strides: B === 1 ? [p.k, 1] : [p.m * p.k, p.k, 1] };
  const Bv = views[1] ?? { shape: B === 1 ? [p.k, p.n] : [B, p.k, p.n], strides: B === 1 ? [p.n, 1] : [p.k * p.n, p.n, 1] };
  if (B > 0 && p.m > 0 && p.n > 0 && p.k > 0) {
    gemmGeometry(geo(A.shape, A.strides), geo(Bv.shape, Bv.strides), batched ? geo([B, p.m, p.n], [p.m * p.n, p.n, 1]) : geo([p.m, p.n], [p.n, 1]), batched, "matmul");
  }
  const data: number[] = [];
  for (let bi = 0; bi < B; bi++) {
    for (let i = 0; i < p.m; i++) {
      for (let j = 0; j < p.n; j++) {
        let sum = 0;
        for (let k = 0; k < p.k; k++) sum += read(0, bi, i, k) * read(1, bi, k, j);
        data.push(sum);
      }
    }
  }
  return data;
}

/**
 * The integer kernel's loops (integer-gemm-source.ts), run in TypeScript: a 1-d grid of `grid` blocks looping over
 * the tiles of every batch entry, each tile's 32×32 outputs summed over k steps of 32 (zeros past the edges), the sum
 * kept as the kernel's unsigned type (BigInt, wrapped to its bits) and cast back to the result's dtype. Returns
 * the output offsets written (each must be written once) with their values.
 */
function simulateIntegerGemm(c: DType, s: IntegerGemmShape, readA: (offset: number) => bigint, readB: (offset: number) => bigint, grid: number): Map<number, bigint> {
  const T = INTEGER_GEMM_TILE;
  const rows = INTEGER_GEMM_BLOCK / T;
  const accBits = c.itemsize === 8 ? 64 : 32;
  const bits = c.itemsize * 8;
  const wrapAcc = (x: bigint): bigint => BigInt.asUintN(accBits, x);
  // (TU)(TC)(x): the operands are already of c's values here (as the promotion casts them without loss).
  const toU = (x: bigint): bigint => (c.kind === "b" ? (x !== 0n ? 1n : 0n) : wrapAcc(x));
  const out = new Map<number, bigint>();
  const tilesM = Math.ceil(s.m / T);
  const tilesN = Math.ceil(s.n / T);
  const perBatch = tilesM * tilesN;
  for (let block = 0; block < grid; block++) {
    for (let t = block; t < perBatch * s.batch; t += grid) {
      const z = Math.floor(t / perBatch);
      const r = t - z * perBatch;
      const i0 = Math.floor(r / tilesN) * T;
      const j0 = (r % tilesN) * T;
      for (let thread = 0; thread < INTEGER_GEMM_BLOCK; thread++) {
        const tx = thread % T;
        const ty = Math.floor(thread / T);
        for (let p = 0; p < T / rows; p++) {
          const i = i0 + ty + p * rows;
          const j = j0 + tx;
          let acc = 0n;
          for (let k0 = 0; k0 < s.k; k0 += T) {
            for (let kk = 0; kk < T; kk++) {
              const k = k0 + kk;
              const x = i < s.m && k < s.k ? toU(readA(z * s.a[0] + i * s.a[1] + k * s.a[2])) : 0n;
              const y = k < s.k && j < s.n ? toU(readB(z * s.b[0] + k * s.b[1] + j * s.b[2])) : 0n;
              acc = c.kind === "b" ? acc | (x & y) : wrapAcc(acc + x * y);
            }
          }
          if (i < s.m && j < s.n) {
            const at = z * s.c[0] + i * s.c[1] + j * s.c[2];
            if (out.has(at)) throw new Error(`output ${at} written twice`);
            const wrapped = BigInt.asUintN(bits, acc);
            out.set(at, c.kind === "b" ? (acc !== 0n ? 1n : 0n) : c.kind === "i" ? BigInt.asIntN(bits, wrapped) : wrapped);
          }
        }
      }
    }
  }
  return out;
}

/** matmul as it hands two host operands to the integer kernel (int32, a copy where it copies), simulated. */
function integerKernelMatmul(a: HostOperand, b: HostOperand): number[] {
  const p = matmulShapes(a.shape, b.shape, "matmul");
  const B = p.batch.reduce((x, y) => x * y, 1);
  const plans = [
    [a, p.aShape],
    [b, p.bShape],
  ].map(([x, promoted]) => {
    const op = x as HostOperand;
    const prom = promoted as number[];
    const strides = integerOperandStrides(op.shape.length, op.strides, prom, p.batch);
    if (strides !== undefined) return { strides, read: (e: number) => BigInt(valueAt(op.offset + e)) };
    // The copy: contiguous [batch, rows, cols], the reference's own values.
    const rows = prom[prom.length - 2]!;
    const cols = prom[prom.length - 1]!;
    const copy: number[] = [];
    const ref = (bi: number, i: number, j: number): number => {
      const idx: number[] = [];
      let r = bi;
      for (let d = p.batch.length - 1; d >= 0; d--) {
        idx[d] = r % p.batch[d]!;
        r = Math.floor(r / p.batch[d]!);
      }
      const full = [...idx.slice(idx.length - (prom.length - 2)), i, j].map((t, d) => (prom[d] === 1 ? 0 : t));
      const own = op.shape.length === 1 ? [prom[0] === 1 ? full[1]! : full[0]!] : full;
      return valueAt(op.offset + own.reduce((acc, t, d) => acc + t * op.strides[d]!, 0));
    };
    for (let bi = 0; bi < B; bi++) for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) copy.push(ref(bi, i, j));
    return { strides: [rows * cols, cols, 1] as [number, number, number], read: (e: number) => BigInt(copy[e]!) };
  });
  const shape: IntegerGemmShape = { batch: B, m: p.m, n: p.n, k: p.k, a: plans[0]!.strides, b: plans[1]!.strides, c: [p.m * p.n, p.n, 1] };
  const out = simulateIntegerGemm(dtypes.int32, shape, plans[0]!.read, plans[1]!.read, 2);
  expect(out.size).toBe(B * p.m * p.n);
  return Array.from({ length: B * p.m * p.n }, (_, e) => Number(out.get(e)));
}

describe("matmul's operands as cuBLAS reads them, simulated", () => {
  const c = (shape: number[], offset = 0): HostOperand => ({ shape, strides: contiguous(shape), offset });
  /** The last two axes of a contiguous array of `shape` with them swapped, as a view of shape `shape`. */
  const t = (shape: number[]): HostOperand => {
    const n = shape.length;
    const swapped = [...shape.slice(0, -2), shape[n - 1]!, shape[n - 2]!];
    const s = contiguous(swapped);
    return { shape, strides: [...s.slice(0, -2), s[n - 1]!, s[n - 2]!], offset: 0 };
  };
  const cases: [string, HostOperand, HostOperand][] = [
    ["matrices", c([2, 3]), c([3, 4])],
    ["a transposed", t([2, 3]), c([3, 4])],
    ["both transposed", t([2, 3]), t([3, 4])],
    ["a row block of a wider matrix (leading dimension)", { shape: [2, 3], strides: [5, 1], offset: 1 }, c([3, 2])],
    ["steps along both axes (copied)", { shape: [2, 3], strides: [10, 2], offset: 0 }, c([3, 2])],
    ["1-d · 2-d", c([3]), c([3, 4])],
    ["2-d · 1-d with a step", c([2, 3]), { shape: [3], strides: [2], offset: 1 }],
    ["1-d · 1-d", { shape: [4], strides: [3], offset: 0 }, c([4])],
    ["batch · matrix", c([5, 2, 3]), c([3, 4])],
    ["matrix · batch of transposed", c([2, 3]), t([5, 3, 4])],
    ["broadcast batches", c([2, 1, 2, 3]), c([4, 3, 2])],
    ["two batch axes that collapse", c([2, 3, 2, 2]), c([2, 3, 2, 2])],
    ["a batch with a step (one stride)", { shape: [3, 2, 2], strides: [8, 2, 1], offset: 0 }, c([3, 2, 2])],
    ["a batch sliced on an outer axis (copied)", { shape: [2, 2, 2, 3], strides: [24, 6, 3, 1], offset: 0 }, c([2, 2, 3, 2])],
    ["a negative batch stride (copied)", { shape: [3, 2, 2], strides: [-4, 2, 1], offset: 8 }, c([3, 2, 2])],
    ["a user's stride-0 batch", { shape: [4, 2, 3], strides: [0, 3, 1], offset: 0 }, c([3, 2])],
    ["1-d · batch", c([3]), c([2, 3, 4])],
    ["batch · 1-d", c([2, 4, 3]), c([3])],
  ];
  for (const [name, a, b] of cases) {
    it(name, () => {
      const ref = referenceMatmul(a, b);
      expect(viewMatmul(a, b)).toEqual(ref.data);
      expect(integerKernelMatmul(a, b), "the integer kernel").toEqual(ref.data);
    });
  }
});

describe("dtypes", () => {
  it("matmul multiplies every dtype: floats and complex through cuBLAS, bool and integers through its own kernel", () => {
    for (const n of ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"] as const) {
      expect(matmulDtype(dtypes[n], "matmul")).toBe(dtypes[n]);
      expect(matmulRoute(dtypes[n], "matmul").engine, n).toBe("cublas");
    }
    for (const n of ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"] as const) {
      expect(matmulDtype(dtypes[n], "matmul")).toBe(dtypes[n]);
      expect(matmulRoute(dtypes[n], "matmul").engine, n).toBe("integer");
    }
  });

  it("promotes two operands by NumPy 2's rules first: integers stay integers, an integer with a float goes to cuBLAS", () => {
    const route = (a: DTypeName, b: DTypeName): [string, string] => {
      const r = matmulRoute(resultType([dtypes[a], dtypes[b]], "matmul"), "matmul");
      return [r.dtype.name, r.engine];
    };
    expect(route("int8", "int8")).toEqual(["int8", "integer"]);
    expect(route("int32", "int64")).toEqual(["int64", "integer"]);
    expect(route("bool", "bool")).toEqual(["bool", "integer"]);
    expect(route("bool", "int8")).toEqual(["int8", "integer"]);
    expect(route("int8", "uint8")).toEqual(["int16", "integer"]);
    expect(route("uint32", "int32")).toEqual(["int64", "integer"]);
    expect(route("int32", "float32")).toEqual(["float64", "cublas"]);
    expect(route("int8", "float16")).toEqual(["float16", "cublas"]);
    expect(route("int64", "uint64")).toEqual(["float64", "cublas"]);
    expect(route("uint8", "complex64")).toEqual(["complex64", "cublas"]);
  });

  it("refuses a dtype neither cuBLAS nor the integer kernel knows, saying what it expected, what came and what to do", () => {
    const odd = { ...dtypes.float32, name: "float8_e4m3" } as unknown as DType;
    expect(() => matmulRoute(odd, "matmul")).toThrow(DTypeError);
    expect(() => matmulDtype(odd, "matmul")).toThrow(/expected operands that promote to a bool, integer, float or complex dtype, got float8_e4m3; cast them.*astype\("float64"\)/);
  });

  it("the decompositions compute in float32, float64, complex64, complex128; integers in float64; half precision refused", () => {
    for (const n of ["float32", "float64", "complex64", "complex128"] as const) expect(solverDtype(dtypes[n], "solve")).toBe(dtypes[n]);
    for (const n of ["int8", "int64", "uint32", "bool"] as const) expect(solverDtype(dtypes[n], "solve")).toBe(dtypes.float64);
    for (const n of ["float16", "bfloat16"] as const) expect(() => solverDtype(dtypes[n], "solve")).toThrow(/cast to float32/);
  });
});

describe("lstsq's rank and the results' shapes", () => {
  it("counts singular values above rcond times the largest (default eps·max(m, n), NumPy's)", () => {
    expect(machineEpsilon(dtypes.float64)).toBe(Number.EPSILON);
    expect(machineEpsilon(dtypes.complex64)).toBe(2 ** -23);
    expect(lstsqRank([10, 1, 1e-20], 5, 3, Number.EPSILON).rank).toBe(2);
    expect(lstsqRank([10, 1, 1e-3], 5, 3, Number.EPSILON, 1e-2).rank).toBe(2);
    expect(lstsqRank([10, 1, 1e-3], 5, 3, Number.EPSILON).rank).toBe(3);
    expect(lstsqRank([], 0, 3, Number.EPSILON).rank).toBe(0);
  });

  it("gives QR's and the SVD's shapes as NumPy's", () => {
    expect(qrShapes(5, 3, "reduced")).toEqual({ q: [5, 3], r: [3, 3] });
    expect(qrShapes(5, 3, "complete")).toEqual({ q: [5, 5], r: [5, 3] });
    expect(qrShapes(3, 5, "complete")).toEqual({ q: [3, 3], r: [3, 5] });
    expect(qrShapes(5, 3, "r")).toEqual({ q: undefined, r: [3, 3] });
    expect(svdShapes(5, 3, true)).toEqual({ u: [5, 5], s: [3], vh: [3, 3] });
    expect(svdShapes(3, 5, false)).toEqual({ u: [3, 3], s: [3], vh: [3, 5] });
  });
});

/** The source of a spec for dtypes (as the builder makes it). */
function sourceOf(spec: { name: string; inParams: string; outParams: string; body: string }, types: Record<string, DTypeName>, scalars: readonly string[]): string {
  const params = [...parseParams(spec.inParams, false, "in"), ...parseParams(spec.outParams, true, "out")];
  const map = new Map<string, DType>(Object.entries(types).map(([k, v]) => [k, dtypes[v]]));
  const dts = params.map((p) => (p.placeholder ? map.get(p.type)! : dtypes[p.type as DTypeName]));
  const binding = { types: map, dtypes: dts, scalar: params.map((p) => scalars.includes(p.name)), shape: [4], key: "" } as unknown as Binding;
  return elementwiseSource(spec.name, params, binding, spec.body);
}

describe("the kernels' sources", () => {
  it("generates every kernel for every dtype it is launched with: balanced, one entry point, the body inside", () => {
    const specs = kernelSpecsForTests(dtypes);
    expect(specs.length).toBeGreaterThan(200);
    for (const { spec, types, scalars } of specs) {
      const src = sourceOf(spec, types, scalars);
      expect(src, spec.name).toContain(`extern "C" __global__ void ${spec.name}(`);
      expect(src.split("{").length, spec.name).toBe(src.split("}").length);
      expect(src.split("(").length, spec.name).toBe(src.split(")").length);
      expect(src, spec.name).toContain(spec.body.trim());
    }
  });

  it("casts through float for the 16-bit floats and into complex by the real part", () => {
    expect(castExpression(dtypes.float16, dtypes.complex64, "x")).toBe("cuda::std::complex<float>((float)((float)(x)))");
    expect(castExpression(dtypes.int64, dtypes.bfloat16, "x")).toBe("__nv_bfloat16((float)(x))");
    expect(castExpression(dtypes.complex64, dtypes.complex128, "x")).toBe("cuda::std::complex<double>(x)");
    expect(castExpression(dtypes.bool, dtypes.float64, "x")).toBe("(double)(x)");
  });

  it("indexes the batches of matrices as the routines lay them out", () => {
    expect(sourceOf(DET, { T: "complex128" }, ["n"])).toContain("typedef cuda::std::complex<double> T;");
    expect(QR_R.body).toContain("f[b * m * n + col * m + row]");
    expect(EYE.body).toBe("y = ((i / n) % n == i % n) ? T(1) : T(0)");
  });
});

describe("matmul's integer kernel", () => {
  it("is generated per signature: its name, the operands cast to the result, the sum wrapping through unsigned types", () => {
    const src = integerGemmSource(dtypes.int8, dtypes.int8, dtypes.int8);
    expect(integerGemmKernelName(dtypes.int8, dtypes.uint8, dtypes.int16)).toBe("cuda_ts_integer_gemm_int8_uint8_int16");
    expect(src).toContain('extern "C" __global__ void __launch_bounds__(CT_TILE * CT_ROWS) cuda_ts_integer_gemm_int8_int8_int8(const TA* __restrict__ a, const TB* __restrict__ b, TC* __restrict__ c, const ct_gemm g)');
    expect(src).toContain("typedef signed char TA;");
    expect(src).toContain("typedef signed char TC;");
    // Summed in unsigned int (no signed overflow; unsigned char would be promoted to int), cast back through unsigned char.
    expect(src).toContain("typedef unsigned int TU;");
    expect(src).toContain("typedef unsigned char TW;");
    expect(src).toContain("return (TU)(TC)(x);");
    expect(src).toContain("return acc + x * y;");
    expect(src).toContain("return (TC)(TW)(acc);");
    expect(src).toContain("__shared__ TU s_a[CT_TILE][CT_TILE + 1];");
    expect(src).toContain(`#define CT_TILE ${INTEGER_GEMM_TILE}`);
    expect(src.split("{").length).toBe(src.split("}").length);
    expect(src.split("(").length).toBe(src.split(")").length);

    const wide = integerGemmSource(dtypes.int32, dtypes.int64, dtypes.int64);
    expect(wide).toContain("cuda_ts_integer_gemm_int32_int64_int64(");
    expect(wide).toContain("typedef int TA;");
    expect(wide).toContain("typedef long long TB;");
    expect(wide).toContain("typedef unsigned long long TU;");
    expect(wide).toContain("typedef unsigned long long TW;");
    expect(integerGemmTypes(dtypes.uint16)).toEqual({ wrap: "unsigned short", accumulate: "unsigned int" });
    expect(integerGemmTypes(dtypes.uint32)).toEqual({ wrap: "unsigned int", accumulate: "unsigned int" });
  });

  it("makes a bool result the OR over k of (a AND b)", () => {
    const src = integerGemmSource(dtypes.bool, dtypes.bool, dtypes.bool);
    expect(src).toContain("cuda_ts_integer_gemm_bool_bool_bool(");
    expect(src).toContain("typedef bool TC;");
    expect(src).toContain("return acc | (x & y);");
    expect(src).toContain("return (TC)(acc != (TU)0);");
    expect(src).not.toContain("acc + x * y");
  });

  it("refuses float and complex dtypes (cuBLAS multiplies them)", () => {
    expect(() => integerGemmSource(dtypes.float32, dtypes.int32, dtypes.float64)).toThrow(/float32 is not a bool or integer dtype/);
    expect(() => integerGemmTypes(dtypes.complex64)).toThrow(TypeError);
  });

  it("passes extents and strides as 13 little-endian 64-bit integers; one block per tile up to a cap", () => {
    const bytes = integerGemmLayout({ batch: 2, m: 3, n: 4, k: 5, a: [15, 5, 1], b: [0, -1, 5], c: [12, 4, 1] });
    expect(bytes.length).toBe(INTEGER_GEMM_LAYOUT_BYTES);
    const dv = new DataView(bytes.buffer);
    expect(Array.from({ length: 13 }, (_, q) => Number(dv.getBigInt64(8 * q, true)))).toEqual([2, 3, 4, 5, 15, 5, 1, 0, -1, 5, 12, 4, 1]);
    expect(integerGemmGrid({ batch: 3, m: 70, n: 40 })).toBe(3 * 3 * 2);
    expect(integerGemmGrid({ batch: 1 << 20, m: 64, n: 64 })).toBe(INTEGER_GEMM_MAX_GRID);
  });

  /** Σ_k a[i, k]·b[k, j] with BigInt, wrapped to `c` (NumPy's integer matmul), for row-major operands. */
  const reference = (c: DType, a: bigint[], b: bigint[], m: number, k: number, n: number): bigint[] =>
    Array.from({ length: m * n }, (_, e) => {
      const i = Math.floor(e / n);
      const j = e % n;
      let sum = 0n;
      for (let q = 0; q < k; q++) sum = c.kind === "b" ? sum | (a[i * k + q]! & b[q * n + j]!) : sum + a[i * k + q]! * b[q * n + j]!;
      const bits = c.itemsize * 8;
      return c.kind === "i" ? BigInt.asIntN(bits, sum) : c.kind === "u" ? BigInt.asUintN(bits, sum) : sum;
    });
  const run = (c: DType, a: bigint[], b: bigint[], m: number, k: number, n: number): bigint[] => {
    const out = simulateIntegerGemm(c, { batch: 1, m, n, k, a: [0, k, 1], b: [0, n, 1], c: [0, n, 1] }, (e) => a[e]!, (e) => b[e]!, 1);
    return Array.from({ length: m * n }, (_, e) => out.get(e)!);
  };

  it("wraps sums around in the result's dtype (simulated): int8, uint8, uint16, int64 past 2^63", () => {
    expect(run(dtypes.int8, [100n, 100n], [100n, 100n], 1, 2, 1)).toEqual([32n]);
    expect(run(dtypes.int8, [-100n, 100n], [100n, 100n], 1, 2, 1)).toEqual([0n]);
    expect(run(dtypes.int8, [-100n, -100n], [100n, 100n], 1, 2, 1)).toEqual([-32n]);
    expect(run(dtypes.uint8, [200n, 255n], [200n, 255n], 1, 2, 1)).toEqual([BigInt((40000 + 65025) % 256)]);
    expect(run(dtypes.uint16, [65535n, 65535n], [65535n, 65535n], 1, 2, 1)).toEqual([2n]);
    const big = (1n << 62n) + 12345n;
    expect(run(dtypes.int64, [big, 3n], [2n, -7n], 1, 2, 1)).toEqual([BigInt.asIntN(64, 2n * big - 21n)]);
    for (const c of [dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.int32, dtypes.uint32, dtypes.int64, dtypes.uint64]) {
      const bits = BigInt(c.itemsize * 8);
      const lo = c.kind === "i" ? -(1n << (bits - 1n)) : 0n;
      const span = 1n << bits;
      const a = Array.from({ length: 12 }, (_, e) => lo + ((BigInt(e) * 0x9e3779b97f4a7c15n) % span));
      const b = Array.from({ length: 20 }, (_, e) => lo + ((BigInt(e + 7) * 0xc2b2ae3d27d4eb4fn) % span));
      expect(run(c, a, b, 3, 4, 5), c.name).toEqual(reference(c, a, b, 3, 4, 5));
    }
  });

  it("gives bool products as OR over AND (simulated)", () => {
    const a = [1n, 0n, 0n, 0n, 1n, 1n];
    const b = [0n, 1n, 0n, 0n, 1n, 0n];
    expect(run(dtypes.bool, a, b, 2, 3, 2)).toEqual(reference(dtypes.bool, a, b, 2, 3, 2));
    expect(run(dtypes.bool, a, b, 2, 3, 2)).toEqual([0n, 1n, 1n, 0n]);
  });

  it("covers every output once across tiles, k steps, batches and a grid smaller than the tiles (simulated)", () => {
    const [batch, m, k, n] = [3, 70, 75, 40];
    // A: a batch of transposed matrices ([batch, k, m] in memory); B: one matrix for every entry, with a column step.
    const aMem = Array.from({ length: batch * k * m }, (_, e) => BigInt((e * 37) % 101) - 50n);
    const bMem = Array.from({ length: k * n * 2 }, (_, e) => BigInt((e * 53) % 97) - 48n);
    const shape: IntegerGemmShape = { batch, m, n, k, a: [k * m, 1, m], b: [0, 2 * n, 2], c: [m * n, n, 1] };
    const grid = 5;
    expect(grid).toBeLessThan(batch * Math.ceil(m / 32) * Math.ceil(n / 32));
    const out = simulateIntegerGemm(dtypes.int64, shape, (e) => aMem[e]!, (e) => bMem[e]!, grid);
    expect(out.size).toBe(batch * m * n);
    for (let z = 0; z < batch; z++) {
      const a = Array.from({ length: m * k }, (_, e) => aMem[z * k * m + (e % k) * m + Math.floor(e / k)]!);
      const b = Array.from({ length: k * n }, (_, e) => bMem[Math.floor(e / n) * 2 * n + (e % n) * 2]!);
      const expected = reference(dtypes.int64, a, b, m, k, n);
      expect(Array.from({ length: m * n }, (_, e) => out.get(z * m * n + e)), `batch ${z}`).toEqual(expected);
    }
  });
});

/** The kernels' index arithmetic, run in TypeScript on small cases (what the GPU computes per element). */
describe("the kernels' logic, simulated", () => {
  it("R of QR reads the column-major factors' upper triangle", () => {
    const m = 3;
    const n = 2;
    const rows = 2;
    // Two column-major 3×2 matrices: f[b][col][row] = 100·b + 10·row + col.
    const f = Array.from({ length: 2 * m * n }, (_, k) => {
      const b = Math.floor(k / (m * n));
      const col = Math.floor((k % (m * n)) / m);
      const row = k % m;
      return 100 * b + 10 * row + col;
    });
    const r = Array.from({ length: 2 * rows * n }, (_, i) => {
      const per = rows * n;
      const b = Math.floor(i / per);
      const rem = i % per;
      const row = Math.floor(rem / n);
      const col = rem % n;
      return row <= col ? f[b * m * n + col * m + row]! : 0;
    });
    expect(r).toEqual([0, 1, 0, 11, 100, 101, 0, 111]);
  });

  it("the determinant's sign follows LAPACK's 1-based pivots", () => {
    const det = (diag: number[], piv: number[]): number => {
      let p = 1;
      let neg = false;
      diag.forEach((d, j) => {
        p *= d;
        if (piv[j] !== j + 1) neg = !neg;
      });
      return neg ? -p : p;
    };
    expect(det([2, 3, 4], [1, 2, 3])).toBe(24);
    expect(det([2, 3, 4], [2, 2, 3])).toBe(-24);
    expect(det([2, 3, 4], [3, 3, 3])).toBe(24);
  });
});

describe("the entry point", () => {
  it("exports NumPy's linalg functions and the solver errors", () => {
    for (const f of ["matmul", "dot", "vdot", "outer", "solve", "inv", "det", "cholesky", "qr", "svd", "eigh", "eigvalsh", "lstsq", "cov", "corrcoef"]) {
      expect(typeof (linalg as Record<string, unknown>)[f], f).toBe("function");
    }
    expect(new linalg.SingularMatrixError("cusolverDnXgetrf", 2, 3)).toBeInstanceOf(linalg.SolverInfoError);
  });

  it("refuses what is not an array before touching the GPU", () => {
    expect(() => linalg.matmul(1 as never, 2 as never)).toThrow(TypeError);
    expect(() => linalg.solve({} as never, [] as never)).toThrow(/is a DeviceArray, not/);
  });
});
