/**
 * `cuda-ts/array/linalg` on the CPU: matmul's shapes (NumPy's 1-d promotion and batch broadcasting), how each operand
 * reaches cuBLAS (a single matrix, a strided batch, or a copy), the dtypes the routines compute in, lstsq's rank and
 * the shapes of QR's and the SVD's results, the generated kernel sources, and the entry point's exports.
 */
import { describe, expect, it } from "vitest";
import * as linalg from "../../../src/array-linalg.ts";
import { dtypes } from "../../../src/core/array/dtype.ts";
import { BroadcastError, DTypeError, ShapeMismatchError } from "../../../src/core/array/errors.ts";
import { lstsqRank, machineEpsilon, matmulDtype, matmulShapes, operandLayout, operandView, qrShapes, solverDtype, svdShapes } from "../../../src/core/array/linalg/plan.ts";
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
    });
  }
});

describe("dtypes", () => {
  it("matmul multiplies the float and complex dtypes and refuses integers and bool", () => {
    for (const n of ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"] as const) expect(matmulDtype(dtypes[n], "matmul")).toBe(dtypes[n]);
    for (const n of ["int32", "int64", "uint8", "bool"] as const) expect(() => matmulDtype(dtypes[n], "matmul")).toThrow(DTypeError);
    expect(() => matmulDtype(dtypes.int32, "matmul")).toThrow(/astype\("float64"\)/);
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
    for (const f of ["matmul", "dot", "vdot", "outer", "solve", "inv", "det", "cholesky", "qr", "svd", "eigh", "eigvalsh", "lstsq"]) {
      expect(typeof (linalg as Record<string, unknown>)[f], f).toBe("function");
    }
    expect(new linalg.SingularMatrixError("cusolverDnXgetrf", 2, 3)).toBeInstanceOf(linalg.SolverInfoError);
  });

  it("refuses what is not an array before touching the GPU", () => {
    expect(() => linalg.matmul(1 as never, 2 as never)).toThrow(TypeError);
    expect(() => linalg.solve({} as never, [] as never)).toThrow(/must be a DeviceArray/);
  });
});
