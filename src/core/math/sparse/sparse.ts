/**
 * `Sparse`: cuSPARSE's generic API over DeviceArrays. Sparse matrices in CSR or COO (`SparseMatrix`: a descriptor
 * over the user's index and value arrays, which it keeps alive but does not own), and the products `spmv`
 * (y = α·op(A)·x + β·y) and `spmm` (C = α·op(A)·B + β·C) with the workspace sized by cuSPARSE's buffer-size query and
 * kept by the `Sparse` between calls (grown when a call needs more, from its memory resource, on its stream).
 *
 * ```ts
 * using sparse = await Sparse.create({ stream });
 * using a = sparse.csr({ shape: [m, n], rowOffsets, colIndices, values });   // int32/int64 indices; f32/f64/c64/c128
 * using y = sparse.spmv(a, x);                                              // y = A·x, allocated
 * sparse.spmm(a, b, { out: c, alpha: 2, beta: 1 });                         // c = 2·A·b + c, b and c row-major
 * ```
 *
 * Indices are 0-based; a matrix's row and column index arrays have one dtype (int32 or int64). Dense matrices are
 * row-major DeviceArrays (cuSPARSE's row order), vectors 1D; all contiguous. The indices' contents are not checked
 * (cuSPARSE reads what it is given): offsets must rise from 0 to nnz, column indices be below the column count.
 *
 * The library is loaded on `Sparse.create`, never by importing cuda-ts.
 *
 * @module
 */
import { DeviceArray } from "../../array/device-array.ts";
import { describeValue } from "../../../errors/describe.ts";
import { DTypeError, ShapeMismatchError } from "../../array/errors.ts";
import type { MemoryResource } from "../../memory/resource.ts";
import type { Stream } from "../../stream.ts";
import { checkArray } from "../rng/shared.ts";
import { mathClasses, mathFacade, type MathFace } from "../facade.ts";
import type { Sparse as SparseClass, SparseMatrix as SparseMatrixClass } from "./sparse-impl.ts";
import { cusparseIndexBase_t, cusparseIndexType_t, cusparseOperation_t, cusparseOrder_t, cusparseSpMMAlg_t, cusparseSpMVAlg_t } from "../../../../generated/cuda-13.0/cusparse/enums.ts";

/** The value dtypes of sparse matrices. */
export type SparseValueDType = "float32" | "float64" | "complex64" | "complex128";
/** The index dtypes. */
export type SparseIndexDType = "int32" | "int64";
/** @internal */
export const VALUES: readonly SparseValueDType[] = ["float32", "float64", "complex64", "complex128"];
const INDICES: readonly SparseIndexDType[] = ["int32", "int64"];

/** cusparseIndexType_t of each index dtype. */
export const CUSPARSE_INDEX_TYPES = Object.freeze({ int32: cusparseIndexType_t.CUSPARSE_INDEX_32I, int64: cusparseIndexType_t.CUSPARSE_INDEX_64I } as const satisfies Record<SparseIndexDType, cusparseIndexType_t>);
/** @internal */
export const INDEX_BASE_ZERO = cusparseIndexBase_t.CUSPARSE_INDEX_BASE_ZERO;
/** @internal */
export const ORDER_ROW = cusparseOrder_t.CUSPARSE_ORDER_ROW;
/** @internal */
export const OPERATIONS = Object.freeze({
  none: cusparseOperation_t.CUSPARSE_OPERATION_NON_TRANSPOSE,
  transpose: cusparseOperation_t.CUSPARSE_OPERATION_TRANSPOSE,
  conjugateTranspose: cusparseOperation_t.CUSPARSE_OPERATION_CONJUGATE_TRANSPOSE,
} as const);
/** @internal */
export const SPMV_ALG_DEFAULT = cusparseSpMVAlg_t.CUSPARSE_SPMV_ALG_DEFAULT;
/** @internal */
export const SPMM_ALG_DEFAULT = cusparseSpMMAlg_t.CUSPARSE_SPMM_ALG_DEFAULT;
/** @internal */
export const SPMM_COO_ALG4 = cusparseSpMMAlg_t.CUSPARSE_SPMM_COO_ALG4;

/** op(A): A, its transpose or its conjugate transpose. */
export type SparseOperation = keyof typeof OPERATIONS;

/** A scalar of a product: a number, or [re, im] for complex matrices. */
export type SparseScalar = number | readonly [number, number];

/** Options of {@link Sparse.create}. */
export interface SparseOptions {
  /** The stream the products run on (changed later with `sparse.stream = other`). */
  readonly stream: Stream;
  /** Where the workspace and allocated results come from (default: the stream's device's memory resource). */
  readonly memoryResource?: MemoryResource;
}

/** A CSR matrix's arrays. */
export interface CsrInit {
  /** [rows, cols]. */
  readonly shape: readonly [number, number];
  /** rows + 1 offsets into `colIndices`/`values` (int32 or int64). */
  readonly rowOffsets: DeviceArray;
  /** nnz column indices (the dtype of `rowOffsets`). */
  readonly colIndices: DeviceArray;
  /** nnz values. */
  readonly values: DeviceArray;
}

/** A COO matrix's arrays. */
export interface CooInit {
  /** [rows, cols]. */
  readonly shape: readonly [number, number];
  /** nnz row indices (int32 or int64), sorted by row. */
  readonly rowIndices: DeviceArray;
  /** nnz column indices (the dtype of `rowIndices`). */
  readonly colIndices: DeviceArray;
  /** nnz values. */
  readonly values: DeviceArray;
}

/** Options of {@link Sparse.spmv} and {@link Sparse.spmm}. */
export interface SparseProductOptions {
  /** Where the result goes (and, with `beta`, what it adds); allocated when absent (then `beta` must be 0). */
  readonly out?: DeviceArray;
  /** Default 1. */
  readonly alpha?: SparseScalar;
  /** Default 0. */
  readonly beta?: SparseScalar;
  /** op(A) (default "none"). */
  readonly op?: SparseOperation;
}

/** What a checked CSR/COO init describes (exported for tests). */
export interface SparseLayout {
  readonly format: "csr" | "coo";
  readonly rows: number;
  readonly cols: number;
  readonly nnz: number;
  readonly valueDtype: SparseValueDType;
  readonly indexDtype: SparseIndexDType;
}

function checkMatrixShape(shape: unknown, action: string): [number, number] {
  if (!Array.isArray(shape) || shape.length !== 2 || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw new ShapeMismatchError(`${action}: shape must be [rows, cols] of non-negative integers, not ${describeValue(shape)}`);
  }
  return [shape[0] as number, shape[1] as number];
}

/** @internal */
export function check1D(a: DeviceArray, name: string, length: number, action: string, what: string): void {
  if (a.ndim !== 1 || a.size !== length) throw new ShapeMismatchError(`${action}: ${name} must be 1D of ${length} elements (${what}), not shape [${a.shape.join(", ")}]`);
}

/** Checks a CSR matrix's arrays (exported for tests: no GPU needed). */
export function checkCsr(init: CsrInit, deviceId: number): SparseLayout {
  const action = "Sparse.csr";
  if (typeof init !== "object" || init === null) throw new TypeError(`${action} takes { shape, rowOffsets, colIndices, values }, not ${describeValue(init)}`);
  const [rows, cols] = checkMatrixShape(init.shape, action);
  const offsets = checkArray(init.rowOffsets, "rowOffsets", action, INDICES, deviceId);
  const colIndices = checkArray(init.colIndices, "colIndices", action, INDICES, deviceId);
  const values = checkArray(init.values, "values", action, VALUES, deviceId);
  if (colIndices.dtype !== offsets.dtype) throw new DTypeError(`${action}: rowOffsets is ${offsets.dtype.name} but colIndices is ${colIndices.dtype.name}; use one index dtype`);
  check1D(offsets, "rowOffsets", rows + 1, action, "rows + 1");
  const nnz = values.size;
  check1D(values, "values", nnz, action, "nnz");
  check1D(colIndices, "colIndices", nnz, action, "nnz, the number of values");
  return { format: "csr", rows, cols, nnz, valueDtype: values.dtype.name, indexDtype: offsets.dtype.name };
}

/** Checks a COO matrix's arrays (exported for tests: no GPU needed). */
export function checkCoo(init: CooInit, deviceId: number): SparseLayout {
  const action = "Sparse.coo";
  if (typeof init !== "object" || init === null) throw new TypeError(`${action} takes { shape, rowIndices, colIndices, values }, not ${describeValue(init)}`);
  const [rows, cols] = checkMatrixShape(init.shape, action);
  const rowIndices = checkArray(init.rowIndices, "rowIndices", action, INDICES, deviceId);
  const colIndices = checkArray(init.colIndices, "colIndices", action, INDICES, deviceId);
  const values = checkArray(init.values, "values", action, VALUES, deviceId);
  if (colIndices.dtype !== rowIndices.dtype) throw new DTypeError(`${action}: rowIndices is ${rowIndices.dtype.name} but colIndices is ${colIndices.dtype.name}; use one index dtype`);
  const nnz = values.size;
  check1D(values, "values", nnz, action, "nnz");
  check1D(rowIndices, "rowIndices", nnz, action, "nnz, the number of values");
  check1D(colIndices, "colIndices", nnz, action, "nnz, the number of values");
  return { format: "coo", rows, cols, nnz, valueDtype: values.dtype.name, indexDtype: rowIndices.dtype.name };
}

/** op(A)'s shape. */
export function opShape(layout: SparseLayout, op: SparseOperation): [number, number] {
  return op === "none" ? [layout.rows, layout.cols] : [layout.cols, layout.rows];
}

/** Writes a scalar of `dtype` at `offset` of `dv` (exported for tests). */
export function writeScalar(dv: DataView, offset: number, dtype: SparseValueDType, value: SparseScalar, name: string, action: string): void {
  const complex = dtype === "complex64" || dtype === "complex128";
  let re: number;
  let im = 0;
  if (typeof value === "number") re = value;
  else if (Array.isArray(value) && value.length === 2 && typeof value[0] === "number" && typeof value[1] === "number") {
    if (!complex) throw new DTypeError(`${action}: ${name} is complex (${describeValue(value)}) but the matrix is ${dtype}; pass a number`);
    [re, im] = value as [number, number];
  } else throw new TypeError(`${action}: ${name} must be a number${complex ? " or [re, im]" : ""}, not ${describeValue(value)}`);
  if (dtype === "float32" || dtype === "complex64") {
    dv.setFloat32(offset, re, true);
    dv.setFloat32(offset + 4, im, true);
  } else {
    dv.setFloat64(offset, re, true);
    dv.setFloat64(offset + 8, im, true);
  }
}

/** cuSPARSE on one stream, made by {@link Sparse.create} (see sparse-impl.ts for its members). */
export type Sparse = SparseClass;

/** A CSR or COO matrix over DeviceArrays, made by `sparse.csr(...)` or `sparse.coo(...)` (see sparse-impl.ts). */
export type SparseMatrix = SparseMatrixClass;

/** `Sparse` the value: the factory, and `instanceof`. */
export interface SparseConstructor extends MathFace {
  /** Makes a cuSPARSE handle on the stream's device, bound to the stream. Loads the class and cuSPARSE's binding on first use. */
  create(options: SparseOptions): Promise<Sparse>;
  /** Whether `value` is a `Sparse` made by {@link SparseConstructor.create}. */
  [Symbol.hasInstance](value: unknown): value is Sparse;
}

/** `SparseMatrix` the value: `instanceof` (matrices are made by a `Sparse`). */
export interface SparseMatrixConstructor extends MathFace {
  /** Whether `value` is a matrix made by a `Sparse`. */
  [Symbol.hasInstance](value: unknown): value is SparseMatrix;
}

/** Makes cuSPARSE handles: `await Sparse.create({ stream })`. */
export const Sparse: SparseConstructor = mathFacade<SparseConstructor>("Sparse", "make one with await Sparse.create({ stream, memoryResource? })", (c) => c.Sparse, {
  async create(options: SparseOptions): Promise<Sparse> {
    return (await mathClasses("Sparse")).Sparse.create(options);
  },
});

/** cuSPARSE matrices, made by `sparse.csr(...)` / `sparse.coo(...)`; the value is for `instanceof`. */
export const SparseMatrix: SparseMatrixConstructor = mathFacade<SparseMatrixConstructor>("SparseMatrix", "matrices are made by sparse.csr(...) or sparse.coo(...) of a Sparse (await Sparse.create({ stream }))", (c) => c.SparseMatrix);
