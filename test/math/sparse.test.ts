/**
 * Sparse without a GPU: the checks of CSR and COO arrays (dtypes, lengths, one index dtype, contiguity), op(A)'s
 * shape, and how alpha and beta are written for each value dtype.
 */
import { describe, expect, it } from "vitest";
import { ArrayLayoutError, DTypeError, ShapeMismatchError } from "../../src/index.ts";
import { CUSPARSE_INDEX_TYPES, checkCoo, checkCsr, opShape, writeScalar } from "../../src/core/math/sparse/sparse.ts";
import { CUDA_DATA_TYPES } from "../../src/core/math/sparse/sparse-impl.ts";
import { fake } from "./fake-arrays.ts";

describe("CSR", () => {
  const csr = (rows: number, nnz: number, index: "int32" | "int64" = "int32", colIndex: "int32" | "int64" = index, value: "float32" | "float64" | "complex64" | "int32" = "float32") => ({
    shape: [rows, 7] as [number, number],
    rowOffsets: fake([rows + 1], index),
    colIndices: fake([nnz], colIndex),
    values: fake([nnz], value),
  });
  it("describes rows, cols, nnz and dtypes", () => {
    expect(checkCsr(csr(4, 9), 0)).toEqual({ format: "csr", rows: 4, cols: 7, nnz: 9, valueDtype: "float32", indexDtype: "int32" });
    expect(checkCsr(csr(4, 9, "int64", "int64", "complex64"), 0)).toMatchObject({ indexDtype: "int64", valueDtype: "complex64" });
  });
  it("refuses bad arrays by name", () => {
    expect(() => checkCsr({ ...csr(4, 9), rowOffsets: fake([4], "int32") }, 0)).toThrow("Sparse.csr: rowOffsets must be 1D of 5 elements (rows + 1), not shape [4]");
    expect(() => checkCsr({ ...csr(4, 9), colIndices: fake([8], "int32") }, 0)).toThrow(/colIndices must be 1D of 9 elements/);
    expect(() => checkCsr(csr(4, 9, "int32", "int64"), 0)).toThrow(/rowOffsets is int32 but colIndices is int64; use one index dtype/);
    expect(() => checkCsr(csr(4, 9, "int32", "int32", "int32"), 0)).toThrow(DTypeError);
    expect(() => checkCsr({ ...csr(4, 9), rowOffsets: fake([5], "uint32") }, 0)).toThrow(/rowOffsets is uint32 but must be int32 or int64/);
    expect(() => checkCsr({ ...csr(4, 9), values: fake([3, 3], "float32") }, 0)).toThrow(ShapeMismatchError);
    expect(() => checkCsr({ ...csr(4, 9), values: fake([3, 3], "float32").T }, 0)).toThrow(ArrayLayoutError);
    expect(() => checkCsr({ ...csr(4, 9), shape: [4] as never }, 0)).toThrow(/shape must be \[rows, cols\]/);
  });
});

describe("COO", () => {
  it("takes row and column indices of one dtype and nnz values", () => {
    const init = { shape: [3, 3] as [number, number], rowIndices: fake([5], "int64"), colIndices: fake([5], "int64"), values: fake([5], "float64") };
    expect(checkCoo(init, 0)).toEqual({ format: "coo", rows: 3, cols: 3, nnz: 5, valueDtype: "float64", indexDtype: "int64" });
    expect(() => checkCoo({ ...init, rowIndices: fake([4], "int64") }, 0)).toThrow(/rowIndices must be 1D of 5 elements/);
    expect(() => checkCoo({ ...init, colIndices: fake([5], "int32") }, 0)).toThrow(DTypeError);
  });
});

describe("products", () => {
  it("op(A)'s shape", () => {
    const L = { format: "csr" as const, rows: 3, cols: 5, nnz: 1, valueDtype: "float32" as const, indexDtype: "int32" as const };
    expect(opShape(L, "none")).toEqual([3, 5]);
    expect(opShape(L, "transpose")).toEqual([5, 3]);
  });
  it("scalars in the value dtype (complex as [re, im])", () => {
    const dv = new DataView(new ArrayBuffer(16));
    writeScalar(dv, 0, "float64", 2.5, "alpha", "t");
    expect(dv.getFloat64(0, true)).toBe(2.5);
    writeScalar(dv, 0, "complex64", [1.5, -2], "alpha", "t");
    expect([dv.getFloat32(0, true), dv.getFloat32(4, true)]).toEqual([1.5, -2]);
    writeScalar(dv, 0, "complex128", 3, "beta", "t");
    expect([dv.getFloat64(0, true), dv.getFloat64(8, true)]).toEqual([3, 0]);
    expect(() => writeScalar(dv, 0, "float32", [1, 2], "alpha", "Sparse.spmv")).toThrow(/alpha is complex .* but the matrix is float32; pass a number/);
    expect(() => writeScalar(dv, 0, "float32", "1" as never, "beta", "Sparse.spmv")).toThrow(TypeError);
  });
  it("cuSPARSE's codes", () => {
    expect(CUDA_DATA_TYPES).toEqual({ float32: 0, float64: 1, complex64: 4, complex128: 5 });
    expect(CUSPARSE_INDEX_TYPES).toEqual({ int32: 2, int64: 3 });
  });
});
