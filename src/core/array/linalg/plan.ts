/**
 * What `cuda-ts/array/linalg` works out on the host before anything is queued (exported for tests, no GPU needed):
 * the dtypes the routines compute in, matmul's shapes (NumPy's rules: 1-d operands promoted, leading axes
 * broadcast) and how each operand reaches cuBLAS (a 2-D matrix used for every batch entry, a strided batch, or a
 * contiguous copy when its batch axes do not collapse to one stride) or the integer kernel (three strides, or a
 * contiguous copy likewise).
 *
 * @module
 */
import { broadcastShapes } from "../broadcast.ts";
import { dtypes, type DType } from "../dtype.ts";
import { DTypeError, ShapeMismatchError } from "../errors.ts";
import { matrixStorage } from "../../math/blas/plan.ts";

/** The dtypes cuBLAS multiplies (matmul). */
export const MATMUL_DTYPES: ReadonlySet<string> = new Set(["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]);

/** The dtypes matmul's own kernel multiplies (cuBLAS has no gemm for them): bool and the integers. */
export const INTEGER_MATMUL_DTYPES: ReadonlySet<string> = new Set(["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]);

/** Who multiplies matmul's operands of a (promoted) dtype: cuBLAS, or the integer kernel (integer-gemm-source.ts). */
export type MatmulEngine = "cublas" | "integer";

/**
 * The dtype matmul computes in for the promoted dtype of its operands, and who computes it: the float and complex
 * dtypes go to cuBLAS, bool and the integers to matmul's own kernel (NumPy's results: integer sums wrap around in
 * the dtype, bool is OR over AND). Every dtype of cuda-ts multiplies, as in NumPy; a DTypeError is left for a dtype
 * neither knows.
 */
export function matmulRoute(promoted: DType, action: string): { dtype: DType; engine: MatmulEngine } {
  if (MATMUL_DTYPES.has(promoted.name)) return { dtype: promoted, engine: "cublas" };
  if (INTEGER_MATMUL_DTYPES.has(promoted.name)) return { dtype: promoted, engine: "integer" };
  throw new DTypeError(
    `${action}: expected operands that promote to a bool, integer, float or complex dtype, got ${promoted.name}; cast them to one first, e.g. a.astype("float64")`,
  );
}

/** The dtype matmul computes in for the promoted dtype of its operands (see {@link matmulRoute}): that dtype. */
export function matmulDtype(promoted: DType, action: string): DType {
  return matmulRoute(promoted, action).dtype;
}

/**
 * The dtype the cuSOLVER routines compute in for a promoted dtype (NumPy's rules): float32, float64, complex64 and
 * complex128 as they are, bool and integers as float64; float16 and bfloat16 are refused (LAPACK has no half
 * precision, nor has NumPy's linalg).
 */
export function solverDtype(promoted: DType, action: string): DType {
  switch (promoted.name) {
    case "float32":
    case "float64":
    case "complex64":
    case "complex128":
      return promoted;
    case "float16":
    case "bfloat16":
      throw new DTypeError(`${action}: ${promoted.name} is not supported by the linear algebra routines (cuSOLVER, like LAPACK, has no half precision); cast to float32 first`);
    default:
      return dtypes.float64;
  }
}

/** Matmul's shapes. */
export interface MatmulShapes {
  /** The broadcast batch shape. */
  readonly batch: readonly number[];
  readonly m: number;
  readonly k: number;
  readonly n: number;
  /** The operands' shapes after 1-d promotion ([k] → [1, k] for a, [k, 1] for b). */
  readonly aShape: readonly number[];
  readonly bShape: readonly number[];
  /** The result's shape (the promoted axes removed again). */
  readonly outShape: readonly number[];
}

/** NumPy's matmul shapes; ShapeMismatchError for a 0-d operand or inner extents that differ, BroadcastError for batch axes. */
export function matmulShapes(a: readonly number[], b: readonly number[], action: string): MatmulShapes {
  if (a.length === 0 || b.length === 0) throw new ShapeMismatchError(`${action}: matmul takes arrays of at least one axis, not a 0-d array (shapes [${a.join(", ")}] and [${b.join(", ")}]); multiply by a scalar instead`);
  const aShape = a.length === 1 ? [1, a[0]!] : [...a];
  const bShape = b.length === 1 ? [b[0]!, 1] : [...b];
  const m = aShape[aShape.length - 2]!;
  const k = aShape[aShape.length - 1]!;
  const kb = bShape[bShape.length - 2]!;
  const n = bShape[bShape.length - 1]!;
  if (k !== kb) {
    throw new ShapeMismatchError(`${action}: the last axis of a (shape [${a.join(", ")}], extent ${k}) must equal the second-to-last of b (shape [${b.join(", ")}], extent ${kb})`);
  }
  const batch = broadcastShapes([{ name: "a", shape: aShape.slice(0, -2) }, { name: "b", shape: bShape.slice(0, -2) }], action);
  const outShape = [...batch];
  if (a.length > 1) outShape.push(m);
  if (b.length > 1) outShape.push(n);
  return { batch, m, k, n, aShape, bShape, outShape };
}

/** How an operand of a batched matmul reaches cuBLAS. */
export type OperandLayout =
  /** One matrix for every batch entry (no batch axes, or all broadcast): a 2-D view with these strides. */
  | { readonly kind: "single"; readonly strides: readonly [number, number] }
  /** A strided batch: a 3-D view [batch, rows, cols] with these strides. */
  | { readonly kind: "strided"; readonly strides: readonly [number, number, number] }
  /** Neither: a contiguous copy of the operand broadcast to the batch. */
  | { readonly kind: "copy" };

/**
 * The one stride (elements) that walks an operand of `shape` and `strides` (after 1-d promotion) through the flat
 * `batch` (row-major): 0 when its batch axes all broadcast (stride 0 or extent 1), the stride of the innermost batch
 * axis of extent > 1 when the others follow from it (any sign), undefined when they do not collapse to one stride
 * (a broadcast axis beside one that is not, or irregular steps).
 */
export function batchStride(shape: readonly number[], strides: readonly number[], batch: readonly number[]): number | undefined {
  const nd = shape.length;
  const lead = batch.length - (nd - 2);
  // The operand's stride along each batch axis of extent > 1 (0 where the operand broadcasts).
  const used: { extent: number; stride: number }[] = [];
  batch.forEach((extent, j) => {
    if (extent === 1) return;
    const own = j - lead;
    const stride = own < 0 || shape[own] === 1 ? 0 : strides[own]!;
    used.push({ extent, stride });
  });
  if (used.every((u) => u.stride === 0)) return 0;
  const inner = used[used.length - 1]!.stride;
  if (inner === 0) return undefined;
  let step = inner;
  for (let j = used.length - 1; j >= 0; j--) {
    if (used[j]!.stride !== step) return undefined;
    step *= used[j]!.extent;
  }
  return inner;
}

/**
 * How an operand of `shape` and `strides` (elements; after 1-d promotion) reaches a gemm over `batch`: its matrix
 * must be row- or column-contiguous (cuBLAS's op N or T with a leading dimension), its batch axes either all
 * broadcast (stride 0 or extent 1) or collapsible to one positive stride.
 */
export function operandLayout(shape: readonly number[], strides: readonly number[], batch: readonly number[]): OperandLayout {
  const nd = shape.length;
  const rows = shape[nd - 2]!;
  const cols = shape[nd - 1]!;
  const s0 = strides[nd - 2]!;
  const s1 = strides[nd - 1]!;
  try {
    matrixStorage(rows, cols, s0, s1, "matmul");
  } catch {
    return { kind: "copy" };
  }
  const step = batchStride(shape, strides, batch);
  if (step === 0) return { kind: "single", strides: [s0, s1] };
  if (step === undefined || step < 0) return { kind: "copy" };
  return { kind: "strided", strides: [step, s0, s1] };
}

/**
 * The view of an operand that cuBLAS reads for a gemm over `batch`, from the operand's own rank and strides (elements)
 * and its shape after 1-d promotion: [rows, cols] (one matrix for every entry) or [batch, rows, cols] (a strided
 * batch), with their strides; undefined when the operand must be copied (contiguous, broadcast to the batch) first.
 */
export function operandView(ndim: number, strides: readonly number[], promoted: readonly number[], batch: readonly number[]): { shape: number[]; strides: number[] } | undefined {
  const rows = promoted[promoted.length - 2]!;
  const cols = promoted[promoted.length - 1]!;
  // A 1-d operand promoted to a matrix: its one stride along the axis of extent > 1.
  const own = ndim === 1 ? (promoted[0] === 1 ? [strides[0]! * cols, strides[0]!] : [strides[0]!, 1]) : [...strides];
  const layout = operandLayout(promoted, own, batch);
  if (layout.kind === "single") return { shape: [rows, cols], strides: [...layout.strides] };
  if (layout.kind === "strided") return { shape: [batch.reduce((x, y) => x * y, 1), rows, cols], strides: [...layout.strides] };
  return undefined;
}

/** The promoted strides of an operand (1-d promotion), for the copy of one that cuBLAS cannot read. */
export function promotedStrides(ndim: number, strides: readonly number[], promoted: readonly number[]): number[] {
  const cols = promoted[promoted.length - 1]!;
  return ndim === 1 ? (promoted[0] === 1 ? [strides[0]! * cols, strides[0]!] : [strides[0]!, 1]) : [...strides];
}

/**
 * The strides (elements) through which the integer kernel reads an operand over `batch`, from its own rank and
 * strides and its shape after 1-d promotion: [batch, row, column], the batch stride 0 when one matrix serves every
 * entry. Any matrix strides (transposed, stepped, negative, broadcast) are read as they lie; undefined when the
 * operand's batch axes do not collapse to one stride (it is copied, contiguous and broadcast to the batch, first).
 */
export function integerOperandStrides(ndim: number, strides: readonly number[], promoted: readonly number[], batch: readonly number[]): [number, number, number] | undefined {
  const own = promotedStrides(ndim, strides, promoted);
  const step = batchStride(promoted, own, batch);
  if (step === undefined) return undefined;
  return [step, own[own.length - 2]!, own[own.length - 1]!];
}

/** The machine epsilon of a float or complex dtype's real part (NumPy's `finfo(d).eps`; bfloat16's as ml_dtypes has it). */
export function machineEpsilon(d: DType): number {
  if (d.name === "float16") return 2 ** -10;
  if (d.name === "bfloat16") return 2 ** -7;
  return d.name === "float32" || d.name === "complex64" ? 2 ** -23 : 2 ** -52;
}

/** lstsq's rank: the singular values (descending) above `rcond` times the largest (default: eps·max(m, n)). */
export function lstsqRank(s: ArrayLike<number>, m: number, n: number, eps: number, rcond?: number): { rank: number; cutoff: number } {
  const r = rcond ?? eps * Math.max(m, n);
  const largest = s.length > 0 ? s[0]! : 0;
  const cutoff = r * largest;
  let rank = 0;
  for (let i = 0; i < s.length; i++) if (s[i]! > cutoff) rank++;
  return { rank, cutoff };
}

/** The shapes of QR's results for a matrix m×n (k = min(m, n)). */
export function qrShapes(m: number, n: number, mode: "reduced" | "complete" | "r"): { q: [number, number] | undefined; r: [number, number] } {
  const k = Math.min(m, n);
  if (mode === "reduced") return { q: [m, k], r: [k, n] };
  if (mode === "complete") return { q: [m, m], r: [m, n] };
  return { q: undefined, r: [k, n] };
}

/** The shapes of the SVD's results for a matrix m×n (k = min(m, n)). */
export function svdShapes(m: number, n: number, fullMatrices: boolean): { u: [number, number]; s: [number]; vh: [number, number] } {
  const k = Math.min(m, n);
  return fullMatrices ? { u: [m, m], s: [k], vh: [n, n] } : { u: [m, k], s: [k], vh: [k, n] };
}
