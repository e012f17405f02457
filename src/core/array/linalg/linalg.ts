/**
 * NumPy's `numpy.linalg` (and `matmul`, `dot`, `vdot`, `outer`) over DeviceArrays, through cuBLAS and cuSOLVER (and,
 * for bool and integer products, which cuBLAS does not multiply, a tiled kernel of its own: integer-gemm-source.ts).
 *
 * Row-major and column-major: cuBLAS and cuSOLVER are column-major (LAPACK's), DeviceArrays row-major. The bytes of a
 * row-major m×n matrix are those of its transpose, n×m, column-major. Each routine works on a contiguous copy of its
 * input (the routines overwrite their matrices; views of any layout are welcome), made in the order that needs no
 * further copy where one exists:
 * - `solve`, `inv`, `det`: the row-major copy of A is Aᵀ column-major; LU factors it as it lies (getrf) and the
 *   solve uses cuSOLVER's transposed operation (getrs with op T), which is the system A·x = b itself. Right-hand
 *   sides are copied transposed (column-major) and the solution transposed back.
 * - `cholesky` and `eigh`: a Hermitian A's row-major copy is Aᵀ = conj(A) column-major, whose upper triangle is A's
 *   lower one: NumPy's lower triangle is cuSOLVER's upper. Cholesky's column-major factor U (conj(A) = Uᴴ·U) read
 *   row-major is Uᵀ = L (A = L·Lᴴ), no copy; eigh's eigenvectors are those of conj(A): transposed and conjugated.
 * - `qr` and `svd`: A is copied transposed (column-major), the factors transposed back; a wide matrix's SVD
 *   factors Aᵀ (cuSOLVER's gesvd needs rows ≥ columns) whose factors, read row-major, are A's without a copy.
 *
 * Batches: every routine takes a stack of matrices [..., m, n] (leading axes broadcast where two operands meet, as
 * NumPy's). matmul is one cuBLAS strided-batched gemm (operands whose batch axes do not collapse to one stride are
 * copied first), or for bool and integers one launch of its own kernel over the whole batch (reading every operand
 * through its strides, copying likewise only batch axes that do not collapse); the cuSOLVER routines loop over the
 * batch on the stream, one call per matrix, with one `info` per matrix.
 *
 * Errors: shapes (ShapeMismatchError, BroadcastError), dtypes (DTypeError: integers are computed in float64 as NumPy
 * does, float16 and bfloat16 are refused by the decompositions) before anything is queued. A numerical failure is
 * reported by cuSOLVER on the device (`info`): `solve`, `inv`, `cholesky`, `qr`, `svd`, `eigh`, `eigvalsh` and
 * `lstsq` read it back before returning (which waits for the stream, as NumPy's LinAlgError is raised at the call)
 * and throw {@link SingularMatrixError}, {@link NotPositiveDefiniteError} or {@link ConvergenceError}. `matmul`,
 * `dot`, `vdot`, `outer` and `det` do not wait (a singular matrix's determinant is 0).
 *
 * @module
 */
import { cusolver } from "../../../bindings/cusolver.ts";
import { cublasFillMode_t, cublasOperation_t } from "../../../../generated/cuda-13.0/cublas/enums.ts";
import { cusolverEigMode_t } from "../../../../generated/cuda-13.0/cusolver/enums.ts";
import { cudaDataType } from "../../../../generated/cuda-13.0/runtime/enums.ts";
import { ffi, type Pointer } from "../../../ffi/index.ts";
import { DeviceArray, checkWritable, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import type { DType, DTypeName } from "../dtype.ts";
import { DTypeError, ShapeMismatchError } from "../errors.ts";
import { elementCount } from "../layout.ts";
import { broadcastShapes, showShape } from "../broadcast.ts";
import { realOf, operationType } from "../promotion.ts";
import { contextScope } from "../../base/context-scope.ts";
import { keepAliveOn, type Stream } from "../../stream.ts";
import type { Buffer } from "../../memory/buffer.ts";
import { describeValue } from "../../../errors/describe.ts";
import { infoError } from "../../math/solver/errors.ts";
import { broadcastView, conjugateInPlace, contiguousAs, kernelOf, stridedView, swapLastTwo } from "../math-shared.ts";
import { DET, EYE, outerSpec, QR_R, residualsSpec, ROW_SCALE, slogdetSpec, triangleZeroSpec } from "../math-kernels.ts";
import { blasFor, solverFor, type SolverHandle } from "./handles.ts";
import { integerOperandStrides, lstsqRank, machineEpsilon, matmulDtype, matmulRoute, matmulShapes, operandView, promotedStrides, qrShapes, solverDtype } from "./plan.ts";
import { integerGemm } from "./integer-gemm.ts";
import { mayShareMemory } from "../ops/overlap.ts";
import { checkOperand, matrices } from "./arguments.ts";

/** Options of `matmul` and `dot`: the stream, and where to write the result. */
export interface MatmulOptions extends ArrayOperationOptions {
  /** The array the result is written into (the result's shape and dtype); default: a new array. */
  readonly out?: DeviceArray;
}

/** Options of `cholesky`. */
export interface CholeskyOptions extends ArrayOperationOptions {
  /** Return the upper factor U (A = Uᴴ·U) instead of the lower L (A = L·Lᴴ, the default). */
  readonly upper?: boolean;
}

/** Options of `qr`. */
export interface QrOptions extends ArrayOperationOptions {
  /** "reduced" (default): q [m, k], r [k, n]; "complete": q [m, m], r [m, n]; "r": r [k, n] alone (k = min(m, n)). */
  readonly mode?: "reduced" | "complete" | "r";
}

/** Options of `svd`. */
export interface SvdOptions extends ArrayOperationOptions {
  /** u [m, m] and vh [n, n] (default true), or u [m, k] and vh [k, n]. */
  readonly fullMatrices?: boolean;
  /** Compute u and vh (default true); false returns the singular values alone. */
  readonly computeUv?: boolean;
}

/** Options of `eigh` and `eigvalsh`. */
export interface EighOptions extends ArrayOperationOptions {
  /** Which triangle of each matrix is read: "L" (lower, default) or "U". */
  readonly uplo?: "L" | "U";
}

/** Options of `lstsq`. */
export interface LstsqOptions extends ArrayOperationOptions {
  /** Singular values at most `rcond` times the largest count as zero (default: machine epsilon × max(m, n)). */
  readonly rcond?: number;
}

/** QR's factors. */
export interface QrResult {
  /** Orthonormal columns (unitary for complex). */
  readonly q: DeviceArray;
  /** Upper triangular. */
  readonly r: DeviceArray;
}

/** The SVD's factors: a = u · diag(s) · vh. */
export interface SvdResult {
  readonly u: DeviceArray;
  /** The singular values, descending (real). */
  readonly s: DeviceArray;
  readonly vh: DeviceArray;
}

/** eigh's result: a · eigenvectors = eigenvectors · diag(eigenvalues). */
export interface EighResult {
  /** Ascending, real. */
  readonly eigenvalues: DeviceArray;
  /** Column j is the eigenvector of eigenvalue j. */
  readonly eigenvectors: DeviceArray;
}

/** lstsq's result (NumPy's four values, named). */
export interface LstsqResult {
  /** The least-squares solution, [n] or [n, k] as b. */
  readonly x: DeviceArray;
  /** Squared 2-norms of the residuals per column of b ([k], [1] for a 1-d b); empty when rank < n or m ≤ n. */
  readonly residuals: DeviceArray;
  /** The rank of a (read on the host: the call waits for the stream). */
  readonly rank: number;
  /** a's singular values, descending. */
  readonly singularValues: DeviceArray;
}

const FILL_LOWER = cublasFillMode_t.CUBLAS_FILL_MODE_LOWER;
const FILL_UPPER = cublasFillMode_t.CUBLAS_FILL_MODE_UPPER;
const OP_T = cublasOperation_t.CUBLAS_OP_T;
const EIG_VECTOR = cusolverEigMode_t.CUSOLVER_EIG_MODE_VECTOR;
const EIG_NOVECTOR = cusolverEigMode_t.CUSOLVER_EIG_MODE_NOVECTOR;

/** @internal cuSOLVER's data type of each dtype it computes in (for eig.ts). */
export const DATA_TYPES: Readonly<Partial<Record<DTypeName, (typeof cudaDataType)[keyof typeof cudaDataType]>>> = Object.freeze({
  float32: cudaDataType.CUDA_R_32F,
  float64: cudaDataType.CUDA_R_64F,
  complex64: cudaDataType.CUDA_C_32F,
  complex128: cudaDataType.CUDA_C_64F,
});

// ---- products ----

/**
 * The matrix product of `a` and `b` with NumPy's `matmul` rules: 2-D operands multiply as matrices; a 1-d `a` is a
 * row vector and a 1-d `b` a column vector (the added axis removed from the result); leading axes are batches that
 * broadcast (`[8, 1, m, k]` with `[5, k, n]` gives `[8, 5, m, n]`). Operands of two dtypes are promoted first
 * (NumPy 2's rules: int32 with int64 is int64, an integer with a float a float). float16, bfloat16, float32, float64,
 * complex64 and complex128 are one cuBLAS call (gemm, or gemmStridedBatched for a batch); transposed views cost
 * nothing, operands whose batch axes do not collapse to one stride are copied first. bool and the integers (which
 * cuBLAS does not multiply) are one launch of a tiled kernel of its own, as NumPy computes them: integer sums wrap
 * around in the result's dtype (int8's 100·100 + 100·100 is 32), a bool product is OR over AND; correct, not cuBLAS's
 * speed (cast to a float dtype for large products whose values fit it). An `out` that may share memory with `a` or `b`
 * is computed into a temporary and then copied, as NumPy does. Does not wait for the stream.
 *
 * ```ts
 * const c = matmul(a, b);              // [m, k] · [k, n] → [m, n]
 * const y = matmul(w, x.T);            // a transposed view: no copy
 * matmul(q, k.transpose(0, 2, 1), { out: scores }); // a batch
 * ```
 */
export function matmul(a: DeviceArray, b: DeviceArray, options?: MatmulOptions): DeviceArray {
  const action = "matmul";
  checkOperand(a, "a", action);
  checkOperand(b, "b", action);
  const stream = operationStream(action, options, [a, b]);
  const plan = matmulShapes(a.shape, b.shape, action);
  const { dtype, engine } = matmulRoute(operationType([a, b], action), action);
  const out = options?.out;
  if (out !== undefined) {
    checkOperand(out, "out", action);
    checkWritable(out, `${action}: out`);
    if (out.dtype !== dtype) throw new DTypeError(`${action}: out is ${out.dtype.name} but the product is ${dtype.name}; pass an out of ${dtype.name}`);
    if (out.shape.length !== plan.outShape.length || out.shape.some((n, k) => n !== plan.outShape[k])) {
      throw new ShapeMismatchError(`${action}: out has shape ${showShape(out.shape)} but the product of ${showShape(a.shape)} and ${showShape(b.shape)} has ${showShape(plan.outShape)}`);
    }
  }
  const { batch, m, k, n } = plan;
  const B = elementCount(batch);
  const temps: DeviceArray[] = [];
  try {
    // An out that overlaps an operand (matmul(a, b, { out: a })) is written through a temporary: the product reads
    // every operand element many times, so none may be overwritten before the last read.
    const direct = out !== undefined && out.isContiguous && !mayShareMemory(out, a) && !mayShareMemory(out, b);
    const result = direct ? out : DeviceArray.empty(plan.outShape, dtype, { stream });
    if (B === 0 || m === 0 || n === 0) return finish(result, out, stream);
    if (k === 0) {
      result.fill(0, { stream });
      return finish(result, out, stream);
    }
    if (engine === "integer") {
      const [A, sa] = integerOperand(a, plan.aShape, batch, stream, temps);
      const [Bop, sb] = integerOperand(b, plan.bShape, batch, stream, temps);
      integerGemm(stream, A, Bop, result, { batch: B, m, n, k, a: sa, b: sb, c: [m * n, n, 1] });
      return finish(result, out, stream);
    }
    const A = gemmOperand(a, plan.aShape, batch, dtype, stream, temps);
    const Bop = gemmOperand(b, plan.bShape, batch, dtype, stream, temps);
    const blas = blasFor(stream);
    if (batch.length === 0 || (A.ndim === 2 && Bop.ndim === 2 && B === 1)) {
      blas.gemm(A, Bop, stridedView(result, [m, n], [n, 1]));
    } else {
      blas.gemmStridedBatched(A, Bop, stridedView(result, [B, m, n], [m * n, n, 1]));
    }
    return finish(result, out, stream);
  } finally {
    for (const t of temps) t.close(stream);
  }
}

/** The result written into `out` when it was given but not contiguous (computed into a temporary). */
function finish(result: DeviceArray, out: DeviceArray | undefined, stream: Stream): DeviceArray {
  if (out === undefined || result === out) return result;
  result.copyTo(out, { stream });
  result.close(stream);
  return out;
}

/** A gemm operand: a 2-D or 3-D view of `a` (promoted to `shape`), or a contiguous copy broadcast to the batch. */
function gemmOperand(a: DeviceArray, shape: readonly number[], batch: readonly number[], dtype: DType, stream: Stream, temps: DeviceArray[]): DeviceArray {
  const view = a.dtype === dtype ? operandView(a.ndim, a.strides, shape, batch) : undefined;
  if (view !== undefined) return stridedView(a, view.shape, view.strides);
  const rows = shape[shape.length - 2]!;
  const cols = shape[shape.length - 1]!;
  const all = elementCount(batch);
  const copy = contiguousAs(stridedView(a, shape, promotedStrides(a.ndim, a.strides, shape)), dtype, stream, [...batch, rows, cols]);
  temps.push(copy);
  return all === 1 ? stridedView(copy, [rows, cols], [cols, 1]) : stridedView(copy, [all, rows, cols], [rows * cols, cols, 1]);
}

/**
 * An operand of the integer kernel (its own dtype: the kernel casts as it reads) and its [batch, row, column]
 * strides: `a` itself, or a contiguous copy broadcast to the batch when its batch axes do not collapse to one stride.
 */
function integerOperand(a: DeviceArray, shape: readonly number[], batch: readonly number[], stream: Stream, temps: DeviceArray[]): [DeviceArray, [number, number, number]] {
  const strides = integerOperandStrides(a.ndim, a.strides, shape, batch);
  if (strides !== undefined) return [a, strides];
  const rows = shape[shape.length - 2]!;
  const cols = shape[shape.length - 1]!;
  const copy = contiguousAs(stridedView(a, shape, promotedStrides(a.ndim, a.strides, shape)), a.dtype, stream, [...batch, rows, cols]);
  temps.push(copy);
  return [copy, [rows * cols, cols, 1]];
}

/**
 * NumPy's `dot`: for 1-d and 2-d operands (and an N-d `a` with a 1-d `b`) the same as {@link matmul}; for N-d
 * operands the sum over `a`'s last axis and `b`'s second-to-last (`dot(a, b)[i, j, k, m] = Σ a[i, j, :]·b[k, :, m]`),
 * no broadcasting. Dtypes as {@link matmul} (bool and integers included, wrapping around as NumPy's). Does not wait
 * for the stream.
 */
export function dot(a: DeviceArray, b: DeviceArray, options?: MatmulOptions): DeviceArray {
  const action = "dot";
  checkOperand(a, "a", action);
  checkOperand(b, "b", action);
  if (a.ndim === 0 || b.ndim === 0) throw new ShapeMismatchError(`${action}: 0-d operands are a multiplication by a scalar, not a dot product (shapes ${showShape(a.shape)} and ${showShape(b.shape)}); multiply instead`);
  if (a.ndim <= 2 && b.ndim <= 2) return matmul(a, b, options);
  if (b.ndim === 1) return matmul(a, b, options);
  const stream = operationStream(action, options, [a, b]);
  const k = a.shape[a.ndim - 1]!;
  if (b.shape[b.ndim - 2] !== k) throw new ShapeMismatchError(`${action}: the last axis of a (shape ${showShape(a.shape)}) must equal the second-to-last of b (shape ${showShape(b.shape)})`);
  // a as [P, k]; b with its second-to-last axis first, as [k, Q].
  const outShape = [...a.shape.slice(0, -1), ...b.shape.slice(0, -2), b.shape[b.ndim - 1]!];
  const P = elementCount(a.shape.slice(0, -1));
  const Q = b.size / Math.max(1, k);
  const perm = [b.ndim - 2, ...[...Array(b.ndim).keys()].filter((x) => x !== b.ndim - 2)];
  if (options?.out !== undefined) checkWritable(options.out, `${action}: out`);
  const a2 = a.copy({ stream });
  const b2 = b.transpose(perm).copy({ stream });
  try {
    const given = options?.out;
    if (given !== undefined && (given.shape.length !== outShape.length || given.shape.some((x, d) => x !== outShape[d]))) {
      throw new ShapeMismatchError(`${action}: out has shape ${showShape(given.shape)} but the product of ${showShape(a.shape)} and ${showShape(b.shape)} has ${showShape(outShape)}`);
    }
    const out = given !== undefined && given.isContiguous ? given : DeviceArray.empty(outShape, matmulDtype(operationType([a, b], action), action), { stream });
    matmul(stridedView(a2, [P, k], [k, 1]), stridedView(b2, [k, Q], [Q, 1]), { stream, out: stridedView(out, [P, Q], [Q, 1]) });
    return finish(out, given, stream);
  } finally {
    a2.close(stream);
    b2.close(stream);
  }
}

/**
 * NumPy's `vdot`: the dot product of the flattened arrays, the first conjugated (complex), as a 0-d array; dtypes as
 * {@link matmul} (bool and integers included). Does not wait for the stream.
 */
export function vdot(a: DeviceArray, b: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  const action = "vdot";
  checkOperand(a, "a", action);
  checkOperand(b, "b", action);
  if (a.size !== b.size) throw new ShapeMismatchError(`${action}: a has ${a.size} elements and b ${b.size}; vdot takes arrays of one size`);
  const stream = operationStream(action, options, [a, b]);
  const dtype = matmulDtype(operationType([a, b], action), action);
  const x = contiguousAs(a, dtype, stream);
  const y = contiguousAs(b, dtype, stream);
  try {
    conjugateInPlace(x, stream);
    return matmul(stridedView(x, [x.size], [1]), stridedView(y, [y.size], [1]), { stream });
  } finally {
    x.close(stream);
    y.close(stream);
  }
}

/**
 * NumPy's `outer`: `outer(a, b)[i, j] = a.flat[i] · b.flat[j]`, [a.size, b.size], any dtypes (promoted). An
 * elementwise kernel; does not wait for the stream.
 */
export function outer(a: DeviceArray, b: DeviceArray, options?: MatmulOptions): DeviceArray {
  const action = "outer";
  checkOperand(a, "a", action);
  checkOperand(b, "b", action);
  if (options?.out !== undefined) {
    checkOperand(options.out, "out", action);
    checkWritable(options.out, `${action}: out`);
  }
  const stream = operationStream(action, options, [a, b]);
  const dtype = operationType([a, b], action);
  const x = contiguousAs(a, dtype, stream);
  const y = contiguousAs(b, dtype, stream);
  try {
    const k = kernelOf(outerSpec(dtype));
    const out = options?.out ?? DeviceArray.empty([x.size, y.size], dtype, { stream });
    if (out.shape.length !== 2 || out.shape[0] !== x.size || out.shape[1] !== y.size) throw new ShapeMismatchError(`${action}: out has shape ${showShape(out.shape)}, not [${x.size}, ${y.size}]`);
    k.launch(stream, stridedView(x, [x.size, 1], [1, 0]), stridedView(y, [1, y.size], [0, 1]), out);
    return out;
  } finally {
    x.close(stream);
    y.close(stream);
  }
}

// ---- cuSOLVER helpers ----

/** @internal What every decomposition sets up: the stream, the handle, the dtype and its cuSOLVER data type. */
export interface Call {
  readonly stream: Stream;
  readonly solver: SolverHandle;
  readonly dtype: DType;
  readonly dataType: (typeof cudaDataType)[keyof typeof cudaDataType];
  readonly real: DType;
  readonly realType: (typeof cudaDataType)[keyof typeof cudaDataType];
}

/** @internal The stream, the cuSOLVER handle and the dtype of a decomposition of `operands` (DTypeError for half precision). */
export function setUp(action: string, options: ArrayOperationOptions | undefined, operands: readonly DeviceArray[]): Call {
  const stream = operationStream(action, options, operands);
  const dtype = solverDtype(operationType(operands, action), action);
  const real = realOf(dtype);
  return { stream, solver: solverFor(stream), dtype, dataType: DATA_TYPES[dtype.name]!, real, realType: DATA_TYPES[real.name]! };
}

/** @internal The address of matrix `i` of a contiguous batch of matrices of `elements` each. */
export function at(a: DeviceArray, i: number, elements: number): Pointer {
  return ffi.pointerFromAddress(a.address + BigInt(i * elements * a.itemsize));
}

/** @internal Device and host workspaces for the routines (freed in stream order when disposed). */
export class Workspace {
  readonly #stream: Stream;
  #device: Buffer | undefined;
  #deviceBytes = 0;
  #host: Uint8Array | undefined;

  constructor(stream: Stream) {
    this.#stream = stream;
  }

  /** A device workspace of at least `bytes`. */
  device(bytes: number | bigint): Pointer {
    const n = Number(bytes);
    if (n <= 0) return null;
    if (this.#device === undefined || this.#deviceBytes < n) {
      this.#device?.close(this.#stream);
      this.#device = this.#stream.device.memoryResource.allocate(n, { stream: this.#stream });
      this.#deviceBytes = n;
    }
    return ffi.pointerFromAddress(BigInt(this.#device.handle));
  }

  /** A host workspace of at least `bytes` (kept alive until the stream passes the call). */
  host(bytes: number | bigint): Pointer {
    const n = Number(bytes);
    if (n <= 0) return null;
    if (this.#host === undefined || this.#host.byteLength < n) {
      this.#host = new Uint8Array(n);
      keepAliveOn(this.#stream, this.#host);
    }
    return ffi.pointerOf(this.#host);
  }

  [Symbol.dispose](): void {
    this.#device?.close(this.#stream);
    this.#device = undefined;
  }
}

/** Reads the `info` of every matrix back (waits for the stream) and throws the first failure's error. */
function checkInfo(info: DeviceArray, routine: string, n: number, stream: Stream): void {
  let values: Int32Array;
  try {
    values = info.toTypedArraySync({ stream }) as Int32Array;
  } finally {
    info.close(stream);
  }
  for (let i = 0; i < values.length; i++) {
    const e = infoError(routine, values[i]!, n);
    if (e !== null) {
      if (values.length > 1) e.message = `matrix ${i} of the batch: ${e.message}`;
      throw e;
    }
  }
}

/** @internal Closes arrays (in stream order), ignoring undefined ones. */
export function closeAll(stream: Stream, ...arrays: (DeviceArray | undefined)[]): void {
  for (const a of arrays) a?.close(stream);
}

/** A batch of `count` matrices of `shape` [rows, cols] seen as one 3-D array view. */
function batched(a: DeviceArray, count: number, rows: number, cols: number): DeviceArray {
  return stridedView(a, [count, rows, cols], [rows * cols, cols, 1]);
}

/**
 * @internal The row-major matrices of a column-major batch: `count` matrices [cols, rows] of `cm` (contiguous, `per`
 * elements apart; default cols·rows) copied transposed into a new [...batch, rows, cols] array.
 */
export function transposedBack(cm: DeviceArray, count: number, cols: number, rows: number, batch: readonly number[], stream: Stream, per = cols * rows): DeviceArray {
  const out = DeviceArray.empty([...batch, rows, cols], cm.dtype, { stream });
  if (out.size > 0) stridedView(cm, [count, cols, rows], [per, rows, 1]).transpose(0, 2, 1).copyTo(batched(out, count, rows, cols), { stream });
  return out;
}

// ---- LU: solve, inv, det ----

/**
 * Solves a · x = b (LU with partial pivoting: cuSOLVER's getrf and getrs). `a` is [..., n, n]; `b` is [n] (one
 * right-hand side, NumPy 2's rule: only a 1-d b is a vector) or [..., n, k]; the leading axes broadcast. Returns x,
 * a new array. Waits for the stream to read cuSOLVER's `info`: SingularMatrixError when a matrix is singular.
 *
 * ```ts
 * const x = solve(a, b);    // a [3, 3], b [3] → x [3]
 * ```
 */
export function solve(a: DeviceArray, b: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  const action = "solve";
  checkOperand(a, "a", action);
  checkOperand(b, "b", action);
  const { n, batch: aBatch } = matrices(a, "a", action, true);
  const vector = b.ndim === 1;
  if (vector ? b.shape[0] !== n : b.ndim < 2 || b.shape[b.ndim - 2] !== n) {
    throw new ShapeMismatchError(`${action}: b must be [${n}] or [..., ${n}, k] for a of shape ${showShape(a.shape)}, not ${showShape(b.shape)}`);
  }
  const k = vector ? 1 : b.shape[b.ndim - 1]!;
  const batch = broadcastShapes([{ name: "a", shape: aBatch }, { name: "b", shape: vector ? [] : b.shape.slice(0, -2) }], action);
  const call = setUp(action, options, [a, b]);
  const { stream } = call;
  const count = elementCount(batch);
  const A = contiguousAs(a, call.dtype, stream, [...batch, n, n]); // row-major A: Aᵀ column-major
  let X: DeviceArray | undefined;
  try {
    // The right-hand sides column-major: [..., k, n] row-major (a vector is already).
    X = vector ? contiguousAs(b, call.dtype, stream, [...batch, n]) : contiguousAs(broadcastView(b, [...batch, n, k]).transpose(swapLastTwo(batch.length + 2)), call.dtype, stream);
    luSolve(call, A, X, count, n, k, "cusolverDnXgetrf");
    if (vector) return X;
    const x = transposedBack(X, count, k, n, batch, stream);
    X.close(stream);
    X = undefined;
    return x;
  } catch (e) {
    X?.close(stream);
    throw e;
  } finally {
    A.close(stream);
  }
}

/** LU-factors each of `count` matrices of `A` (row-major, so Aᵀ column-major) and solves with op T into `X` (column-major n×k each). Checks info. */
function luSolve(call: Call, A: DeviceArray, X: DeviceArray, count: number, n: number, k: number, routine: string): void {
  const { stream, solver, dataType } = call;
  const { handle: h, params } = solver;
  const ipiv = DeviceArray.empty([Math.max(1, count * n)], "int64", { stream });
  const info = DeviceArray.zeros([Math.max(1, count)], "int32", { stream });
  const solveInfo = DeviceArray.zeros([Math.max(1, count)], "int32", { stream });
  try {
    if (count > 0 && n > 0) {
      using ws = new Workspace(stream);
      using _ = contextScope(stream.context.handle);
      const [dev, host] = cusolver.cusolverDnXgetrf_bufferSize(h, params, n, n, dataType, at(A, 0, n * n), n, dataType);
      const dw = ws.device(dev);
      const hw = ws.host(host);
      for (let i = 0; i < count; i++) {
        const ai = at(A, i, n * n);
        const pi = at(ipiv, i, n);
        cusolver.cusolverDnXgetrf(h, params, n, n, dataType, ai, n, pi, dataType, dw, dev, hw, host, at(info, i, 1));
        if (k > 0) cusolver.cusolverDnXgetrs(h, params, OP_T, n, k, dataType, ai, n, pi, dataType, at(X, i, n * k), n, at(solveInfo, i, 1));
      }
    }
  } finally {
    ipiv.close(stream);
  }
  try {
    checkInfo(info, routine, n, stream);
  } finally {
    solveInfo.close(stream);
  }
}

/**
 * The inverse of each matrix of `a` [..., n, n] (LU: getrf, then getrs against the identity). Waits for the stream
 * to read cuSOLVER's `info`: SingularMatrixError for a singular matrix.
 */
export function inv(a: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  const action = "inv";
  checkOperand(a, "a", action);
  const { n, batch } = matrices(a, "a", action, true);
  const call = setUp(action, options, [a]);
  const { stream } = call;
  const count = elementCount(batch);
  const A = contiguousAs(a, call.dtype, stream);
  const X = DeviceArray.empty([...batch, n, n], call.dtype, { stream });
  try {
    if (X.size > 0) kernelOf(EYE).launch(stream, n, X);
    luSolve(call, A, X, count, n, n, "cusolverDnXgetrf");
    // X holds A⁻¹ column-major: transposed back.
    const x = transposedBack(X, count, n, n, batch, stream);
    return x;
  } finally {
    A.close(stream);
    X.close(stream);
  }
}

/** LU factors of each matrix of `a` [..., n, n] as det and slogdet read them: then `read(A, ipiv, out...)`. */
function withLuFactors<R>(action: string, a: DeviceArray, options: ArrayOperationOptions | undefined, read: (call: Call, A: DeviceArray, ipiv: DeviceArray, n: number, batch: number[], count: number) => R): R {
  checkOperand(a, "a", action);
  const { n, batch } = matrices(a, "a", action, true);
  const call = setUp(action, options, [a]);
  const { stream, solver, dataType } = call;
  const { handle: h, params } = solver;
  const count = elementCount(batch);
  const A = contiguousAs(a, call.dtype, stream); // Aᵀ column-major: det(Aᵀ) = det(A)
  const ipiv = DeviceArray.empty([Math.max(1, count * n)], "int64", { stream });
  const info = DeviceArray.zeros([Math.max(1, count)], "int32", { stream });
  try {
    if (count > 0 && n > 0) {
      using ws = new Workspace(stream);
      using _ = contextScope(stream.context.handle);
      const [dev, host] = cusolver.cusolverDnXgetrf_bufferSize(h, params, n, n, dataType, at(A, 0, n * n), n, dataType);
      const dw = ws.device(dev);
      const hw = ws.host(host);
      for (let i = 0; i < count; i++) cusolver.cusolverDnXgetrf(h, params, n, n, dataType, at(A, i, n * n), n, at(ipiv, i, n), dataType, dw, dev, hw, host, at(info, i, 1));
    }
    return read(call, A, ipiv, n, batch, count);
  } finally {
    closeAll(call.stream, A, ipiv, info);
  }
}

/**
 * The determinant of each matrix of `a` [..., n, n] (LU: the product of U's diagonal, the sign of the row
 * interchanges), shape [...]. A singular matrix gives 0. Does not wait for the stream. For large matrices, whose
 * determinants overflow or underflow, use {@link slogdet}.
 */
export function det(a: DeviceArray, options?: ArrayOperationOptions): DeviceArray {
  return withLuFactors("det", a, options, (call, A, ipiv, n, batch, count) => {
    const out = DeviceArray.empty(batch, call.dtype, { stream: call.stream });
    // One thread per matrix: the diagonal's product, negated for each row interchange (LAPACK's 1-based pivots).
    if (count > 0) kernelOf(DET).launch(call.stream, A, ipiv, n, out);
    return out;
  });
}

/** The result of {@link slogdet}: det = sign · exp(logabsdet). */
export interface SlogdetResult {
  /** The determinant's sign, of a's (promoted) dtype: 1, -1 or 0 for real matrices, a unit complex number (or 0) for complex ones. */
  readonly sign: DeviceArray;
  /** The natural logarithm of |det|, real (-Infinity for a singular matrix). */
  readonly logabsdet: DeviceArray;
}

/**
 * The sign and the logarithm of the absolute value of each determinant of `a` [..., n, n] (NumPy's `slogdet`), each of
 * shape [...]: what `det` would give without overflowing or underflowing for large matrices. A singular matrix gives
 * sign 0 and logabsdet -Infinity. Does not wait for the stream.
 *
 * ```ts
 * const { sign, logabsdet } = slogdet(a); // det(a) = sign * exp(logabsdet)
 * ```
 */
export function slogdet(a: DeviceArray, options?: ArrayOperationOptions): SlogdetResult {
  return withLuFactors("slogdet", a, options, (call, A, ipiv, n, batch, count) => {
    const stream = call.stream;
    const sign = DeviceArray.empty(batch, call.dtype, { stream });
    const logabsdet = DeviceArray.empty(batch, realOf(call.dtype), { stream });
    if (count > 0) kernelOf(slogdetSpec(call.dtype.kind === "c")).launch(stream, A, ipiv, n, sign, logabsdet);
    return { sign, logabsdet };
  });
}

// ---- Cholesky ----

/**
 * The Cholesky factor of each Hermitian positive-definite matrix of `a` [..., n, n]: lower L with a = L·Lᴴ (NumPy's
 * default; `{ upper: true }` gives U with a = Uᴴ·U). Only the lower (upper) triangle of `a` is read. Waits for the
 * stream to read cuSOLVER's `info`: NotPositiveDefiniteError when a matrix is not positive definite.
 */
export function cholesky(a: DeviceArray, options?: CholeskyOptions): DeviceArray {
  const action = "cholesky";
  checkOperand(a, "a", action);
  const { n, batch } = matrices(a, "a", action, true);
  const upper = options?.upper ?? false;
  const call = setUp(action, options, [a]);
  const { stream, solver, dataType } = call;
  const { handle: h, params } = solver;
  const count = elementCount(batch);
  // Row-major lower triangle = column-major upper one (see the module).
  const uplo = upper ? FILL_LOWER : FILL_UPPER;
  const F = contiguousAs(a, call.dtype, stream);
  const info = DeviceArray.zeros([Math.max(1, count)], "int32", { stream });
  try {
    if (count > 0 && n > 0) {
      using ws = new Workspace(stream);
      using _ = contextScope(stream.context.handle);
      const [dev, host] = cusolver.cusolverDnXpotrf_bufferSize(h, params, uplo, n, dataType, at(F, 0, n * n), n, dataType);
      const dw = ws.device(dev);
      const hw = ws.host(host);
      for (let i = 0; i < count; i++) cusolver.cusolverDnXpotrf(h, params, uplo, n, dataType, at(F, i, n * n), n, dataType, dw, dev, hw, host, at(info, i, 1));
    }
    // The other triangle still holds a's elements: zeroed.
    if (F.size > 0) kernelOf(triangleZeroSpec(upper)).launch(stream, n, F);
  } catch (e) {
    closeAll(stream, F, info);
    throw e;
  }
  try {
    checkInfo(info, "cusolverDnXpotrf", n, stream);
  } catch (e) {
    F.close(stream);
    throw e;
  }
  return F;
}

// ---- QR ----

/**
 * The QR factorization of each matrix of `a` [..., m, n] (cuSOLVER's geqrf, then orgqr/ungqr for q). `mode`:
 * "reduced" (default) gives q [..., m, k] and r [..., k, n] (k = min(m, n)); "complete" q [..., m, m] and r
 * [..., m, n]; "r" returns r [..., k, n] alone. Waits for the stream to read cuSOLVER's `info`.
 */
export function qr(a: DeviceArray, options: QrOptions & { readonly mode: "r" }): DeviceArray;
export function qr(a: DeviceArray, options?: QrOptions): QrResult;
export function qr(a: DeviceArray, options?: QrOptions): QrResult | DeviceArray {
  const action = "qr";
  checkOperand(a, "a", action);
  const mode = options?.mode ?? "reduced";
  if (mode !== "reduced" && mode !== "complete" && mode !== "r") throw new TypeError(`${action}: mode is "reduced", "complete" or "r", not ${describeValue(mode)}`);
  const { m, n, batch } = matrices(a, "a", action, false);
  const call = setUp(action, options, [a]);
  const { stream, solver, dataType, dtype } = call;
  const { handle: h, params } = solver;
  const count = elementCount(batch);
  const k = Math.min(m, n);
  const shapes = qrShapes(m, n, mode);
  const rRows = shapes.r[0];
  // Column-major copy: [..., n, m] row-major is a m×n column-major (lda m).
  const cm = contiguousAs(a.transpose(swapLastTwo(a.ndim)), dtype, stream);
  const tau = DeviceArray.empty([Math.max(1, count * k)], dtype, { stream });
  const info = DeviceArray.zeros([Math.max(1, count)], "int32", { stream });
  const r = DeviceArray.empty([...batch, rRows, n], dtype, { stream });
  let Qbuf: DeviceArray | undefined;
  let q: DeviceArray | undefined;
  try {
    if (count > 0 && m > 0 && n > 0) {
      using ws = new Workspace(stream);
      using _ = contextScope(stream.context.handle);
      const [dev, host] = cusolver.cusolverDnXgeqrf_bufferSize(h, params, m, n, dataType, at(cm, 0, m * n), m, dataType, at(tau, 0, k), dataType);
      const dw = ws.device(dev);
      const hw = ws.host(host);
      for (let i = 0; i < count; i++) cusolver.cusolverDnXgeqrf(h, params, m, n, dataType, at(cm, i, m * n), m, dataType, at(tau, i, k), dataType, dw, dev, hw, host, at(info, i, 1));
    }
    if (r.size > 0) {
      // r[b][row][col] = R(row, col) above the diagonal: column-major element (row, col) of matrix b is cm[b][col][row].
      kernelOf(QR_R).launch(stream, cm, m, n, rRows, r);
    }
    if (mode !== "r") {
      const qCols = shapes.q![1];
      if (qCols > n) {
        // complete with m > n: the reflectors in the first n columns of an m×m column-major buffer.
        Qbuf = DeviceArray.zeros([Math.max(1, count), m, m], dtype, { stream });
        if (count > 0) cm.reshape([count, n, m]).copyTo(stridedView(Qbuf, [count, n, m], [m * m, m, 1]), { stream });
      } else {
        Qbuf = cm;
      }
      const ld = m;
      const per = qCols > n ? m * m : m * n;
      if (count > 0 && m > 0 && qCols > 0 && k > 0) {
        using ws = new Workspace(stream);
        using _ = contextScope(stream.context.handle);
        const f = orgqr(dtype);
        const lwork = f.size(h, m, qCols, k, at(Qbuf, 0, per), ld, at(tau, 0, k));
        const w = ws.device(lwork * dtype.itemsize);
        for (let i = 0; i < count; i++) f.run(h, m, qCols, k, at(Qbuf, i, per), ld, at(tau, i, k), w, lwork, at(info, i, 1));
      } else if (k === 0 && Qbuf !== cm) {
        // No reflectors: q is the identity.
        kernelOf(EYE).launch(stream, m, Qbuf);
      }
      // q's row-major matrices: the first qCols columns (column-major), transposed back.
      q = transposedBack(Qbuf, count, qCols, m, batch, stream, per);
    }
  } catch (e) {
    closeAll(stream, cm, tau, info, r, Qbuf === cm ? undefined : Qbuf, q);
    throw e;
  }
  closeAll(stream, cm, tau, Qbuf === cm ? undefined : Qbuf);
  try {
    checkInfo(info, "cusolverDnXgeqrf", k, stream);
  } catch (e) {
    closeAll(stream, r, q);
    throw e;
  }
  return mode === "r" ? r : { q: q!, r };
}

/** orgqr (real) or ungqr (complex) of a dtype: cuSOLVER has no 64-bit API for it. */
function orgqr(d: DType): {
  size: (h: SolverHandle["handle"], m: number, n: number, k: number, a: Pointer, lda: number, tau: Pointer) => number;
  run: (h: SolverHandle["handle"], m: number, n: number, k: number, a: Pointer, lda: number, tau: Pointer, work: Pointer, lwork: number, info: Pointer) => void;
} {
  switch (d.name) {
    case "float32":
      return { size: (...x) => cusolver.cusolverDnSorgqr_bufferSize(...x), run: (...x) => cusolver.cusolverDnSorgqr(...x) };
    case "float64":
      return { size: (...x) => cusolver.cusolverDnDorgqr_bufferSize(...x), run: (...x) => cusolver.cusolverDnDorgqr(...x) };
    case "complex64":
      return { size: (...x) => cusolver.cusolverDnCungqr_bufferSize(...x), run: (...x) => cusolver.cusolverDnCungqr(...x) };
    default:
      return { size: (...x) => cusolver.cusolverDnZungqr_bufferSize(...x), run: (...x) => cusolver.cusolverDnZungqr(...x) };
  }
}

// ---- SVD ----

const JOB_ALL = "A".charCodeAt(0);
const JOB_SOME = "S".charCodeAt(0);
const JOB_NONE = "N".charCodeAt(0);

/**
 * The singular value decomposition of each matrix of `a` [..., m, n]: a = u · diag(s) · vh, s descending and real
 * (cuSOLVER's gesvd). `fullMatrices` (default true): u [..., m, m], vh [..., n, n]; false: u [..., m, k], vh
 * [..., k, n] (k = min(m, n)). `computeUv: false` returns s alone. Waits for the stream to read cuSOLVER's `info`:
 * ConvergenceError when the iteration did not converge.
 */
export function svd(a: DeviceArray, options: SvdOptions & { readonly computeUv: false }): DeviceArray;
export function svd(a: DeviceArray, options?: SvdOptions): SvdResult;
export function svd(a: DeviceArray, options?: SvdOptions): SvdResult | DeviceArray {
  const action = "svd";
  checkOperand(a, "a", action);
  const full = options?.fullMatrices ?? true;
  const uv = options?.computeUv ?? true;
  const { m, n, batch } = matrices(a, "a", action, false);
  const call = setUp(action, options, [a]);
  const { stream, solver, dataType, dtype, real, realType } = call;
  const { handle: h, params } = solver;
  const count = elementCount(batch);
  const k = Math.min(m, n);
  // cuSOLVER's gesvd factors an M×N column-major matrix with M ≥ N: a tall a's transposed copy, a wide a's plain copy (aᵀ).
  const wide = m < n;
  const M = wide ? n : m;
  const N = wide ? m : n;
  const work = wide ? contiguousAs(a, dtype, stream) : contiguousAs(a.transpose(swapLastTwo(a.ndim)), dtype, stream);
  const uCols = full ? M : N;
  const s = DeviceArray.empty([...batch, k], real, { stream });
  const U = uv ? DeviceArray.empty([...batch, uCols, M], dtype, { stream }) : undefined; // column-major M×uCols each
  const VT = uv ? DeviceArray.empty([...batch, N, N], dtype, { stream }) : undefined; // column-major N×N each
  const info = DeviceArray.zeros([Math.max(1, count)], "int32", { stream });
  let u: DeviceArray | undefined;
  let vh: DeviceArray | undefined;
  try {
    if (count > 0 && k > 0) {
      const job = uv ? (full ? JOB_ALL : JOB_SOME) : JOB_NONE;
      const jobvt = uv ? JOB_ALL : JOB_NONE;
      using ws = new Workspace(stream);
      using _ = contextScope(stream.context.handle);
      const uPtr = (i: number): Pointer => (U === undefined ? null : at(U, i, uCols * M));
      const vPtr = (i: number): Pointer => (VT === undefined ? null : at(VT, i, N * N));
      const [dev, host] = cusolver.cusolverDnXgesvd_bufferSize(h, params, job, jobvt, M, N, dataType, at(work, 0, M * N), M, realType, at(s, 0, k), dataType, uPtr(0), M, dataType, vPtr(0), N, dataType);
      const dw = ws.device(dev);
      const hw = ws.host(host);
      for (let i = 0; i < count; i++) {
        cusolver.cusolverDnXgesvd(h, params, job, jobvt, M, N, dataType, at(work, i, M * N), M, realType, at(s, i, k), dataType, uPtr(i), M, dataType, vPtr(i), N, dataType, dw, dev, hw, host, at(info, i, 1));
      }
    } else if (uv && count > 0) {
      // An empty matrix: identity factors (NumPy's, for m or n of 0).
      const eye = kernelOf(EYE);
      if (U!.size > 0) eye.launch(stream, M, U!);
      if (VT!.size > 0) eye.launch(stream, N, VT!);
    }
    if (uv) {
      if (wide) {
        // aᵀ = U'·S·V'ᴴ, so a = conj(V')·S·U'ᵀ: u is VT's bytes read row-major, vh U's bytes read row-major.
        u = VT!;
        vh = U!;
      } else {
        // a = U·S·Vᴴ: U and VT read row-major are their transposes: copied transposed.
        u = transposedBack(U!, count, uCols, M, batch, stream);
        vh = transposedBack(VT!, count, N, N, batch, stream);
        U!.close(stream);
        VT!.close(stream);
      }
    }
  } catch (e) {
    closeAll(stream, work, s, U, VT, info);
    throw e;
  }
  work.close(stream);
  try {
    checkInfo(info, "cusolverDnXgesvd", k, stream);
  } catch (e) {
    closeAll(stream, s, u, vh);
    throw e;
  }
  return uv ? { u: u!, s, vh: vh! } : s;
}

// ---- Hermitian eigenproblem ----

/**
 * The eigenvalues (ascending, real) and eigenvectors (the columns) of each Hermitian (real symmetric) matrix of `a`
 * [..., n, n], read from its lower triangle ("L", default) or upper one ("U") (cuSOLVER's syevd/heevd). Waits for
 * the stream to read cuSOLVER's `info`: ConvergenceError when the iteration did not converge.
 */
export function eigh(a: DeviceArray, options?: EighOptions): EighResult {
  const r = eighImpl(a, options, true, "eigh");
  return { eigenvalues: r.w, eigenvectors: r.v! };
}

/** The eigenvalues (ascending, real) of each Hermitian matrix of `a` [..., n, n]; as {@link eigh} without the vectors. */
export function eigvalsh(a: DeviceArray, options?: EighOptions): DeviceArray {
  return eighImpl(a, options, false, "eigvalsh").w;
}

function eighImpl(a: DeviceArray, options: EighOptions | undefined, vectors: boolean, action: string): { w: DeviceArray; v: DeviceArray | undefined } {
  checkOperand(a, "a", action);
  const uploName = options?.uplo ?? "L";
  if (uploName !== "L" && uploName !== "U") throw new TypeError(`${action}: uplo is "L" or "U", not ${describeValue(uploName)}`);
  const { n, batch } = matrices(a, "a", action, true);
  const call = setUp(action, options, [a]);
  const { stream, solver, dataType, dtype, real, realType } = call;
  const { handle: h, params } = solver;
  const count = elementCount(batch);
  const uplo = uploName === "L" ? FILL_UPPER : FILL_LOWER;
  const jobz = vectors ? EIG_VECTOR : EIG_NOVECTOR;
  const Z = contiguousAs(a, dtype, stream); // conj(a) column-major (Hermitian)
  const w = DeviceArray.empty([...batch, n], real, { stream });
  const info = DeviceArray.zeros([Math.max(1, count)], "int32", { stream });
  let v: DeviceArray | undefined;
  try {
    if (count > 0 && n > 0) {
      using ws = new Workspace(stream);
      using _ = contextScope(stream.context.handle);
      const [dev, host] = cusolver.cusolverDnXsyevd_bufferSize(h, params, jobz, uplo, n, dataType, at(Z, 0, n * n), n, realType, at(w, 0, n), dataType);
      const dw = ws.device(dev);
      const hw = ws.host(host);
      for (let i = 0; i < count; i++) cusolver.cusolverDnXsyevd(h, params, jobz, uplo, n, dataType, at(Z, i, n * n), n, realType, at(w, i, n), dataType, dw, dev, hw, host, at(info, i, 1));
    }
    if (vectors) {
      // The eigenvectors of conj(a) are conj of a's: the column-major vectors transposed into columns, conjugated.
      v = count === 0 ? DeviceArray.empty([...batch, n, n], dtype, { stream }) : transposedBack(Z, count, n, n, batch, stream);
      conjugateInPlace(v, stream);
    }
  } catch (e) {
    closeAll(stream, Z, w, info, v);
    throw e;
  }
  Z.close(stream);
  try {
    checkInfo(info, "cusolverDnXsyevd", n, stream);
  } catch (e) {
    closeAll(stream, w, v);
    throw e;
  }
  return { w, v };
}

// ---- least squares ----

/**
 * The least-squares solution of a · x = b for `a` [m, n] and `b` [m] or [m, k] (through the SVD, as NumPy's gelsd:
 * singular values at most `rcond` times the largest are treated as zero). Returns `{ x, residuals, rank,
 * singularValues }` (NumPy's four values, named). Waits for the stream (the rank is read on the host).
 */
export function lstsq(a: DeviceArray, b: DeviceArray, options?: LstsqOptions): LstsqResult {
  const action = "lstsq";
  checkOperand(a, "a", action);
  checkOperand(b, "b", action);
  if (a.ndim !== 2) throw new ShapeMismatchError(`${action}: a must be a matrix [m, n], not shape ${showShape(a.shape)}`);
  const [m, n] = a.shape as [number, number];
  if ((b.ndim !== 1 && b.ndim !== 2) || b.shape[0] !== m) throw new ShapeMismatchError(`${action}: b must be [${m}] or [${m}, k] for a of shape ${showShape(a.shape)}, not ${showShape(b.shape)}`);
  const rcond = options?.rcond;
  if (rcond !== undefined && (typeof rcond !== "number" || !(rcond >= 0))) throw new TypeError(`${action}: rcond is a non-negative number, not ${describeValue(rcond)}`);
  const call = setUp(action, options, [a, b]);
  const { stream, dtype, real } = call;
  const K = b.ndim === 1 ? 1 : b.shape[1]!;
  const A = contiguousAs(a, dtype, stream);
  const B = contiguousAs(b.ndim === 1 ? stridedView(b, [m, 1], [b.strides[0]!, 0]) : b, dtype, stream);
  const temps: DeviceArray[] = [A, B];
  // What is returned, closed too if a later step throws.
  const results: DeviceArray[] = [];
  try {
    const { u, s, vh } = svd(A, { stream, fullMatrices: false });
    temps.push(u, vh);
    results.push(s);
    const k = Math.min(m, n);
    const host = s.toTypedArraySync({ stream }) as Float32Array | Float64Array;
    const { rank, cutoff } = lstsqRank(host, m, n, machineEpsilon(dtype), rcond);
    const inverse = new (real.name === "float32" ? Float32Array : Float64Array)(k);
    for (let i = 0; i < k; i++) inverse[i] = host[i]! > cutoff ? 1 / host[i]! : 0;
    const sinv = DeviceArray.from(inverse, { stream });
    temps.push(sinv);
    // x = V · diag(1/s) · Uᴴ · b
    const uh = conjugated(u, stream, temps).T;
    const y = matmul(uh, B, { stream });
    temps.push(y);
    if (y.size > 0) kernelOf(ROW_SCALE).launch(stream, sinv, K, y);
    const v = conjugated(vh, stream, temps).T;
    const x = DeviceArray.empty(b.ndim === 1 ? [n] : [n, K], dtype, { stream });
    results.push(x);
    const x2 = stridedView(x, [n, K], [K, 1]);
    matmul(v, y, { stream, out: x2 });
    let residuals: DeviceArray;
    if (rank === n && m > n) {
      const ax = matmul(A, x2, { stream });
      temps.push(ax);
      residuals = DeviceArray.empty([K], real, { stream });
      results.push(residuals);
      kernelOf(residualsSpec(dtype.kind === "c")).launch(stream, B, ax, m, K, residuals);
    } else {
      residuals = DeviceArray.empty([0], real, { stream });
    }
    return { x, residuals, rank, singularValues: s };
  } catch (e) {
    for (const r of results) r.close(stream);
    throw e;
  } finally {
    for (const t of temps) t.close(stream);
  }
}

/** `a` conjugated (a copy, kept in `temps`) for complex dtypes; `a` itself for real ones. */
function conjugated(a: DeviceArray, stream: Stream, temps: DeviceArray[]): DeviceArray {
  if (a.dtype.kind !== "c") return a;
  const c = a.copy({ stream });
  temps.push(c);
  conjugateInPlace(c, stream);
  return c;
}

/** For tests: the dtype a decomposition computes in for these operands (no GPU needed). */
export function linalgDtype(operands: readonly (DeviceArray | DType)[], action = "linalg"): DType {
  return solverDtype(operationType(operands, action), action);
}

