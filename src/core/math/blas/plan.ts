/**
 * The arithmetic behind `Blas` and `BlasLt`, on plain numbers (no GPU, no cuBLAS): how a row-major DeviceArray is
 * seen by column-major cuBLAS, which dtypes and compute types go together, and how scalars are encoded.
 *
 * ## Row-major arrays in a column-major library
 *
 * cuBLAS reads a matrix column by column: element (i, j) of an `rows x cols` matrix is at `i + j·ld`. A row-major
 * DeviceArray of shape `[r, c]` with strides `[s, 1]` is therefore, to cuBLAS, the `c x r` matrix Xᵀ with `ld = s`;
 * a transposed view (`x.T`, strides `[1, s]`) is the `r x c` matrix X itself with `ld = s`. No data moves: each
 * operand becomes "op N" or "op T" and a leading dimension.
 *
 * For C = A·B with a row-major C, cuBLAS computes Cᵀ = Bᵀ·Aᵀ: the operands swap places and m and n swap. With a
 * column-major (transposed-view) C it computes C = A·B directly. Either way every operand needs unit stride along
 * one of its two axes and a leading dimension at least the other extent (axes of extent 1 may have any stride);
 * a view without that (a step along both axes, `x.slice([0, null, 2], [0, null, 2])`, a negative or zero stride)
 * is refused with {@link ArrayLayoutError} before any call: pass `view.copy({ stream })`. Vectors (gemv and level 1)
 * take any positive or negative element stride as `inc`; a zero stride is refused.
 *
 * @module
 */
import { encodeBFloat16, encodeHalf, type DType, type DTypeName } from "../../array/dtype.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ArrayLayoutError, DTypeError, ShapeMismatchError } from "../../array/errors.ts";
import { cublasComputeType_t, cublasOperation_t } from "../../../../generated/cuda-13.0/cublas/enums.ts";
import { cublasComputeType_t as cublasComputeType_t_12_4 } from "../../../../generated/cuda-12.4/cublas/enums.ts";
import { cudaDataType } from "../../../../generated/cuda-13.0/runtime/enums.ts";

/** What the planning reads of an array: its dtype, shape and strides (a DeviceArray has them). */
export interface ArrayGeometry {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
}

/** The dtypes cuBLAS computes in, and their `cudaDataType`. */
export const BLAS_DATA_TYPES: Readonly<Partial<Record<DTypeName, cudaDataType>>> = Object.freeze({
  float16: cudaDataType.CUDA_R_16F,
  bfloat16: cudaDataType.CUDA_R_16BF,
  float32: cudaDataType.CUDA_R_32F,
  float64: cudaDataType.CUDA_R_64F,
  complex64: cudaDataType.CUDA_C_32F,
  complex128: cudaDataType.CUDA_C_64F,
  int8: cudaDataType.CUDA_R_8I,
  int32: cudaDataType.CUDA_R_32I,
});

/** The `cudaDataType` of a dtype cuBLAS takes; DTypeError naming the ones it does otherwise. */
export function cudaDataTypeOf(dtype: DType, what: string): cudaDataType {
  const t = BLAS_DATA_TYPES[dtype.name];
  if (t === undefined) throw new DTypeError(`${what} is ${dtype.name}; cuBLAS takes float16, bfloat16, float32, float64, complex64, complex128 (and int8 into int32 in gemmEx)`);
  return t;
}

/**
 * A gemm compute type (`cublasComputeType_t`): what the products are accumulated in.
 * - `"16f"`: half precision throughout (float16 only; alpha and beta are half).
 * - `"32f"`: single precision (the default for float16, bfloat16, float32, complex64); under the `"tf32"` math mode
 *   cuBLAS may use TF32 tensor cores for float32.
 * - `"32f-fast-16f"`, `"32f-fast-16bf"`, `"32f-fast-tf32"`: float32 data, products in the named lower precision on
 *   tensor cores, accumulated in float32.
 * - `"32f-emulated-16bfx9"`: float32 emulated with bfloat16 tensor cores (Blackwell and newer; elsewhere plain 32f).
 * - `"64f"`: double precision (the default for float64 and complex128).
 * - `"64f-emulated-fixedpoint"`: float64 emulated with integer tensor cores where cuBLAS offers it.
 * - `"32i"`: int8 inputs accumulated in int32 (gemmEx only).
 */
export type BlasComputeType = "16f" | "32f" | "32f-fast-16f" | "32f-fast-16bf" | "32f-fast-tf32" | "32f-emulated-16bfx9" | "64f" | "64f-emulated-fixedpoint" | "32i";

/** The `cublasComputeType_t` of each compute type. */
export const COMPUTE_TYPES: Readonly<Record<BlasComputeType, cublasComputeType_t>> = Object.freeze({
  "16f": cublasComputeType_t.CUBLAS_COMPUTE_16F,
  "32f": cublasComputeType_t.CUBLAS_COMPUTE_32F,
  "32f-fast-16f": cublasComputeType_t.CUBLAS_COMPUTE_32F_FAST_16F,
  "32f-fast-16bf": cublasComputeType_t.CUBLAS_COMPUTE_32F_FAST_16BF,
  "32f-fast-tf32": cublasComputeType_t.CUBLAS_COMPUTE_32F_FAST_TF32,
  "32f-emulated-16bfx9": cublasComputeType_t.CUBLAS_COMPUTE_32F_EMULATED_16BFX9,
  "64f": cublasComputeType_t.CUBLAS_COMPUTE_64F,
  "64f-emulated-fixedpoint": cublasComputeType_t.CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT,
  "32i": cublasComputeType_t.CUBLAS_COMPUTE_32I,
});

/** `cublasComputeType_t` as each carried CTK version declares it, newest first (12.4 lacks the emulated ones). */
export const COMPUTE_TYPES_BY_VERSION = Object.freeze({ "13.0": cublasComputeType_t, "12.4": cublasComputeType_t_12_4 });

/** The precision of alpha and beta (and of the host results of dot/nrm2): what `Blas` encodes them as. */
export type ScalarType = "f16" | "bf16" | "f32" | "f64" | "c32" | "c64" | "i32";

/** The dtype of a device-side scalar of each scalar type (pointer mode "device"). */
export const SCALAR_DTYPES: Readonly<Record<ScalarType, DTypeName>> = Object.freeze({ f16: "float16", bf16: "bfloat16", f32: "float32", f64: "float64", c32: "complex64", c64: "complex128", i32: "int32" });

/** The `cudaDataType` of each scalar type (of alpha and beta, of a matmul's scale type). */
export const SCALAR_DATA_TYPES: Readonly<Record<ScalarType, cudaDataType>> = Object.freeze({
  f16: cudaDataType.CUDA_R_16F,
  bf16: cudaDataType.CUDA_R_16BF,
  f32: cudaDataType.CUDA_R_32F,
  f64: cudaDataType.CUDA_R_64F,
  c32: cudaDataType.CUDA_C_32F,
  c64: cudaDataType.CUDA_C_64F,
  i32: cudaDataType.CUDA_R_32I,
});

/** The dtypes of one gemm and its compute type, checked: the cuBLAS types and the scalar type. */
export interface GemmTypes {
  readonly aType: cudaDataType;
  readonly cType: cudaDataType;
  readonly compute: cublasComputeType_t;
  readonly computeName: BlasComputeType;
  readonly scalar: ScalarType;
}

/** The default compute type of an input dtype. */
export function defaultComputeType(dtype: DTypeName): BlasComputeType | undefined {
  switch (dtype) {
    case "float16":
    case "bfloat16":
    case "float32":
    case "complex64":
      return "32f";
    case "float64":
    case "complex128":
      return "64f";
    case "int8":
      return "32i";
    default:
      return undefined;
  }
}

/** The (input, output) dtype pairs each compute type takes (cuBLAS's cublasGemmEx table), and its scalar type. */
const GEMM_TABLE: Readonly<Record<BlasComputeType, readonly (readonly [DTypeName, DTypeName, ScalarType])[]>> = Object.freeze({
  "16f": [["float16", "float16", "f16"]],
  "32f": [
    ["float16", "float16", "f32"],
    ["float16", "float32", "f32"],
    ["bfloat16", "bfloat16", "f32"],
    ["bfloat16", "float32", "f32"],
    ["float32", "float32", "f32"],
    ["int8", "float32", "f32"],
    ["complex64", "complex64", "c32"],
  ],
  "32f-fast-16f": [["float32", "float32", "f32"], ["complex64", "complex64", "c32"]],
  "32f-fast-16bf": [["float32", "float32", "f32"], ["complex64", "complex64", "c32"]],
  "32f-fast-tf32": [["float32", "float32", "f32"], ["complex64", "complex64", "c32"]],
  "32f-emulated-16bfx9": [["float32", "float32", "f32"], ["complex64", "complex64", "c32"]],
  "64f": [["float64", "float64", "f64"], ["complex128", "complex128", "c64"]],
  "64f-emulated-fixedpoint": [["float64", "float64", "f64"], ["complex128", "complex128", "c64"]],
  "32i": [["int8", "int32", "i32"]],
});

/**
 * Checks the dtypes of a gemm (A and B alike; C the same as A unless `mixed`) against the compute type (default: the
 * input's) and returns what cuBLAS is passed. DTypeError names the combinations the compute type takes.
 */
export function gemmTypes(a: DType, b: DType, c: DType, compute: BlasComputeType | undefined, mixed: boolean, action: string): GemmTypes {
  if (a !== b) throw new DTypeError(`${action}: A is ${a.name} but B is ${b.name}; both inputs have one dtype`);
  cudaDataTypeOf(a, `${action}: A`);
  cudaDataTypeOf(c, `${action}: C`);
  if (!mixed && c !== a) throw new DTypeError(`${action}: A and B are ${a.name} but C is ${c.name}; use gemmEx for mixed precision (float16/bfloat16 into float32, int8 into int32)`);
  const name = compute ?? defaultComputeType(a.name);
  if (name === undefined) throw new DTypeError(`${action}: cuBLAS has no gemm of ${a.name} inputs into ${c.name}; gemm takes float16, bfloat16, float32, float64, complex64, complex128 (and gemmEx int8 into int32)`);
  if (!Object.hasOwn(COMPUTE_TYPES, name)) {
    throw new DTypeError(`${action}: compute type ${describeValue(compute)} is not one of ${Object.keys(COMPUTE_TYPES).join(", ")}`);
  }
  const row = GEMM_TABLE[name].find(([i, o]) => i === a.name && o === c.name);
  if (row === undefined) {
    const takes = GEMM_TABLE[name].map(([i, o]) => `${i} → ${o}`).join(", ");
    throw new DTypeError(`${action}: compute type "${name}" does not take ${a.name} inputs into ${c.name}; it takes ${takes}`);
  }
  return { aType: BLAS_DATA_TYPES[a.name]!, cType: BLAS_DATA_TYPES[c.name]!, compute: COMPUTE_TYPES[name], computeName: name, scalar: row[2] };
}

/** How a matrix lies in memory for cuBLAS: row-major (cuBLAS sees its transpose) or column-major, and its ld. */
export interface MatrixStorage {
  readonly order: "row" | "col";
  /** The leading dimension, in elements. */
  readonly ld: number;
}

/**
 * The storage of an `rows x cols` matrix with element strides `[s0, s1]`: row-major when `s1` is 1 and `s0 ≥ cols`,
 * else column-major when `s0` is 1 and `s1 ≥ rows` (an axis of extent 1 may have any stride). ArrayLayoutError
 * otherwise, saying to copy.
 */
export function matrixStorage(rows: number, cols: number, s0: number, s1: number, what: string): MatrixStorage {
  if ((cols <= 1 || s1 === 1) && (rows <= 1 || s0 >= Math.max(1, cols))) return { order: "row", ld: rows <= 1 ? Math.max(1, cols) : s0 };
  if ((rows <= 1 || s0 === 1) && (cols <= 1 || s1 >= Math.max(1, rows))) return { order: "col", ld: cols <= 1 ? Math.max(1, rows) : s1 };
  throw new ArrayLayoutError(
    `${what}: a ${rows}x${cols} view with strides [${s0}, ${s1}] is neither row- nor column-contiguous; cuBLAS needs unit stride along one axis ` +
      `and a leading dimension at least the other extent. Pass a contiguous copy (view.copy({ stream })).`,
  );
}

/** cuBLAS's `cublasOperation_t` of an operand: N (as stored) or T (transposed). */
export type Op = typeof OP_N | typeof OP_T;
const OP_N = cublasOperation_t.CUBLAS_OP_N;
const OP_T = cublasOperation_t.CUBLAS_OP_T;

/** The arguments of one cuBLAS gemm for a row-major C = A·B (see the module's notes). */
export interface GemmPlan {
  readonly transa: Op;
  readonly transb: Op;
  readonly m: number;
  readonly n: number;
  readonly k: number;
  /** Whether cuBLAS's A is the user's B (and its B the user's A): C is row-major, cuBLAS computes Cᵀ = Bᵀ·Aᵀ. */
  readonly swap: boolean;
  readonly lda: number;
  readonly ldb: number;
  readonly ldc: number;
}

/**
 * The cuBLAS arguments of C[m,n] = A[m,k]·B[k,n] from the three storages: with a row-major C, cuBLAS computes
 * Cᵀ = Bᵀ·Aᵀ (m and n swap, so do A and B), each operand op N when it is stored the way C is, else op T.
 */
export function planGemm(m: number, n: number, k: number, a: MatrixStorage, b: MatrixStorage, c: MatrixStorage): GemmPlan {
  if (c.order === "row") {
    return { swap: true, m: n, n: m, k, transa: b.order === "row" ? OP_N : OP_T, lda: b.ld, transb: a.order === "row" ? OP_N : OP_T, ldb: a.ld, ldc: c.ld };
  }
  return { swap: false, m, n, k, transa: a.order === "col" ? OP_N : OP_T, lda: a.ld, transb: b.order === "col" ? OP_N : OP_T, ldb: b.ld, ldc: c.ld };
}

/** The shapes and storages of a (batched) gemm's operands, checked. */
export interface GemmGeometry {
  readonly m: number;
  readonly n: number;
  readonly k: number;
  readonly batch: number;
  readonly plan: GemmPlan;
  /** Batch strides in elements (0: one matrix for every batch entry). */
  readonly strideA: number;
  readonly strideB: number;
  readonly strideC: number;
}

function matrixOf(x: ArrayGeometry, batched: boolean, name: string, action: string): { rows: number; cols: number; batch: number; batchStride: number; storage: MatrixStorage } {
  const nd = x.shape.length;
  if (nd !== 2 && !(batched && nd === 3)) {
    throw new ShapeMismatchError(`${action}: ${name} has shape [${x.shape.join(", ")}]; expected a matrix [rows, cols]${batched ? " or a batch [batch, rows, cols]" : " (use gemmStridedBatched for batches)"}`);
  }
  const o = nd - 2;
  const rows = x.shape[o]!;
  const cols = x.shape[o + 1]!;
  const storage = matrixStorage(rows, cols, x.strides[o]!, x.strides[o + 1]!, `${action}: ${name}`);
  const batch = nd === 3 ? x.shape[0]! : 1;
  const batchStride = nd === 3 && batch > 1 ? x.strides[0]! : 0;
  if (batchStride < 0) throw new ArrayLayoutError(`${action}: ${name} has a negative batch stride (${batchStride}); pass a copy (view.copy({ stream }))`);
  return { rows, cols, batch, batchStride, storage };
}

/**
 * Checks the shapes of C = A·B (2-D each, or with `batched` a leading batch axis; an input of 2-D or batch 1 is used
 * for every batch entry) and plans the call. ShapeMismatchError names the disagreeing extents.
 */
export function gemmGeometry(a: ArrayGeometry, b: ArrayGeometry, c: ArrayGeometry, batched: boolean, action: string): GemmGeometry {
  const A = matrixOf(a, batched, "A", action);
  const B = matrixOf(b, batched, "B", action);
  const C = matrixOf(c, batched, "C", action);
  if (A.cols !== B.rows) throw new ShapeMismatchError(`${action}: A is ${A.rows}x${A.cols} and B is ${B.rows}x${B.cols}; A's columns must equal B's rows`);
  if (C.rows !== A.rows || C.cols !== B.cols) throw new ShapeMismatchError(`${action}: C is ${C.rows}x${C.cols} but A·B is ${A.rows}x${B.cols}`);
  if (batched && c.shape.length !== 3) throw new ShapeMismatchError(`${action}: C has shape [${c.shape.join(", ")}]; a batched gemm writes a batch [batch, rows, cols]`);
  const batch = C.batch;
  for (const [name, X] of [["A", A], ["B", B]] as const) {
    if (X.batch !== 1 && X.batch !== batch) throw new ShapeMismatchError(`${action}: ${name} has a batch of ${X.batch} but C has ${batch}; give ${batch} matrices or one for all`);
  }
  if (batch > 1 && C.batchStride === 0) throw new ArrayLayoutError(`${action}: C's batch stride is 0; every batch entry needs its own output`);
  return { m: A.rows, n: B.cols, k: A.cols, batch, plan: planGemm(A.rows, B.cols, A.cols, A.storage, B.storage, C.storage), strideA: A.batchStride, strideB: B.batchStride, strideC: C.batchStride };
}

/** The arguments of a cuBLAS gemv for y[m] = A[m,n]·x[n] with a row-major A. */
export interface GemvPlan {
  readonly trans: Op;
  /** cuBLAS's rows and columns of the stored matrix. */
  readonly m: number;
  readonly n: number;
  readonly lda: number;
  readonly incx: number;
  readonly incy: number;
}

/** The element stride of a vector (1-D), checked: non-zero. */
export function vectorInc(x: ArrayGeometry, name: string, action: string): number {
  if (x.shape.length !== 1) throw new ShapeMismatchError(`${action}: ${name} has shape [${x.shape.join(", ")}]; expected a vector (one axis)`);
  const inc = x.strides[0]!;
  if (inc === 0 && x.shape[0]! > 1) throw new ArrayLayoutError(`${action}: ${name} has stride 0 (a broadcast); cuBLAS needs a non-zero element stride: pass a copy`);
  return inc === 0 ? 1 : inc;
}

/**
 * The element offset, from a vector view's element 0, of the pointer cuBLAS takes: with a negative stride cuBLAS
 * starts at the lowest address and reads element i at `x[(i - (n - 1))·inc]`, so it gets element n-1's address.
 */
export function vectorBase(n: number, inc: number): number {
  return inc < 0 && n > 0 ? (n - 1) * inc : 0;
}

/** Checks y = A·x (A [m, n], x [n], y [m]) and plans the gemv: a row-major A is, to cuBLAS, Aᵀ stored column-major (op T). */
export function planGemv(a: ArrayGeometry, x: ArrayGeometry, y: ArrayGeometry, action: string): GemvPlan {
  if (a.shape.length !== 2) throw new ShapeMismatchError(`${action}: A has shape [${a.shape.join(", ")}]; expected a matrix [rows, cols]`);
  const [rows, cols] = a.shape as [number, number];
  const incx = vectorInc(x, "x", action);
  const incy = vectorInc(y, "y", action);
  if (x.shape[0] !== cols) throw new ShapeMismatchError(`${action}: A is ${rows}x${cols} but x has ${x.shape[0]} elements; expected ${cols}`);
  if (y.shape[0] !== rows) throw new ShapeMismatchError(`${action}: A is ${rows}x${cols} but y has ${y.shape[0]} elements; expected ${rows}`);
  const s = matrixStorage(rows, cols, a.strides[0]!, a.strides[1]!, `${action}: A`);
  return s.order === "row" ? { trans: OP_T, m: cols, n: rows, lda: s.ld, incx, incy } : { trans: OP_N, m: rows, n: cols, lda: s.ld, incx, incy };
}

/** Whether every value fits cuBLAS's 32-bit `int` arguments (else the `_64` entry points are used). */
export function fitsInt32(...values: number[]): boolean {
  for (const v of values) if (v > 2147483647 || v < -2147483648) return false;
  return true;
}

/** A scalar: a number, or `[re, im]` for complex types. */
export type BlasScalar = number | readonly [number, number];

/**
 * Writes `value` as a scalar of `type` at `byteOffset` of `dv` (little-endian; half and int32 rounded as C would).
 * DTypeError when the value does not fit: a complex value for a real type, a non-number.
 */
export function encodeScalar(dv: DataView, byteOffset: number, type: ScalarType, value: BlasScalar, name: string): void {
  const complex = type === "c32" || type === "c64";
  let re: number;
  let im = 0;
  if (typeof value === "number") re = value;
  else if (Array.isArray(value) && value.length === 2 && typeof value[0] === "number" && typeof value[1] === "number") {
    if (!complex) throw new DTypeError(`${name} is ${describeValue(value)}, a complex value, but this call computes in real ${type}; pass a number`);
    re = value[0];
    im = value[1];
  } else throw new DTypeError(`${name} is ${describeValue(value)}; expected a number${complex ? " or [re, im]" : ""}`);
  switch (type) {
    case "f16":
      dv.setUint16(byteOffset, encodeHalf(re), true);
      return;
    case "bf16":
      dv.setUint16(byteOffset, encodeBFloat16(re), true);
      return;
    case "f32":
      dv.setFloat32(byteOffset, re, true);
      return;
    case "f64":
      dv.setFloat64(byteOffset, re, true);
      return;
    case "c32":
      dv.setFloat32(byteOffset, re, true);
      dv.setFloat32(byteOffset + 4, im, true);
      return;
    case "c64":
      dv.setFloat64(byteOffset, re, true);
      dv.setFloat64(byteOffset + 8, im, true);
      return;
    case "i32":
      if (!Number.isInteger(re) || re < -2147483648 || re > 2147483647) throw new DTypeError(`${name} is ${re}; an int32 computation takes an integer scalar`);
      dv.setInt32(byteOffset, re, true);
      return;
  }
}

/**
 * The level-1 types of a dtype (cublasAxpyEx/DotEx/Nrm2Ex/ScalEx): its cudaDataType, the execution type, the scalar
 * type of alpha, and the real type of a norm.
 */
export interface Level1Types {
  readonly data: cudaDataType;
  readonly execution: cudaDataType;
  readonly scalar: ScalarType;
  /** The cudaDataType of nrm2's result (real). */
  readonly normType: cudaDataType;
  /** The scalar type of nrm2's result. */
  readonly normScalar: ScalarType;
  /** The scalar type of dot's result (the data's own). */
  readonly dotScalar: ScalarType;
}

/** The level-1 types of each dtype cuBLAS takes there. */
export function level1Types(dtype: DType, action: string): Level1Types {
  const { CUDA_R_16F, CUDA_R_16BF, CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F } = cudaDataType;
  switch (dtype.name) {
    case "float16":
      return { data: CUDA_R_16F, execution: CUDA_R_32F, scalar: "f32", normType: CUDA_R_16F, normScalar: "f16", dotScalar: "f16" };
    case "bfloat16":
      return { data: CUDA_R_16BF, execution: CUDA_R_32F, scalar: "f32", normType: CUDA_R_16BF, normScalar: "bf16", dotScalar: "bf16" };
    case "float32":
      return { data: CUDA_R_32F, execution: CUDA_R_32F, scalar: "f32", normType: CUDA_R_32F, normScalar: "f32", dotScalar: "f32" };
    case "float64":
      return { data: CUDA_R_64F, execution: CUDA_R_64F, scalar: "f64", normType: CUDA_R_64F, normScalar: "f64", dotScalar: "f64" };
    case "complex64":
      return { data: CUDA_C_32F, execution: CUDA_C_32F, scalar: "c32", normType: CUDA_R_32F, normScalar: "f32", dotScalar: "c32" };
    case "complex128":
      return { data: CUDA_C_64F, execution: CUDA_C_64F, scalar: "c64", normType: CUDA_R_64F, normScalar: "f64", dotScalar: "c64" };
    default:
      throw new DTypeError(`${action}: ${dtype.name} vectors are not computed by cuBLAS; it takes float16, bfloat16, float32, float64, complex64, complex128`);
  }
}
