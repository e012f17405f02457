/**
 * The implementation of {@link Sparse} and {@link SparseMatrix} (sparse.ts), loaded by the first `Sparse.create`: the
 * classes' code is not evaluated when cuda-ts is imported.
 *
 * @module
 */
import type { cusparseDnMatDescr_t, cusparseDnVecDescr_t, cusparseHandle_t, cusparseSpMatDescr_t } from "../../../bindings/cusparse.ts";
import { DeviceArray } from "../../array/device-array.ts";
import { describeValue } from "../../../errors/describe.ts";
import { track, untrack } from "../../base/lifetime.ts";
import { ClosedError } from "../../base/errors.ts";
import { ShapeMismatchError } from "../../array/errors.ts";
import type { Buffer } from "../../memory/buffer.ts";
import type { MemoryResource } from "../../memory/resource.ts";
import type { Stream } from "../../stream.ts";
import { ffi } from "../../../ffi/index.ts";
import { withCurrentContext } from "../../base/driver-state.ts";
import { contextScope } from "../../base/context-scope.ts";
import { checkArray, checkSameDtype, replacementStream, pointerOf } from "../rng/shared.ts";
import { importLater } from "../../../deferred.ts";
import { ownModuleUrl } from "../../../module-url.ts";

import { check1D, checkCoo, checkCsr, type CooInit, type CsrInit, CUSPARSE_INDEX_TYPES, INDEX_BASE_ZERO, OPERATIONS, opShape, ORDER_ROW, type SparseLayout, type SparseOperation, type SparseOptions, type SparseProductOptions, type SparseValueDType, SPMM_ALG_DEFAULT, SPMM_COO_ALG4, SPMV_ALG_DEFAULT, VALUES, writeScalar } from "./sparse.ts";
import { cudaDataType } from "../../../../generated/cuda-13.0/runtime/enums.ts";
import { STREAM_OPTION, takeStream } from "../../base/stream-arg.ts";

/** cudaDataType of each value dtype (library_types.h; here, loaded with the class, not at import). */
export const CUDA_DATA_TYPES = Object.freeze({
  float32: cudaDataType.CUDA_R_32F,
  float64: cudaDataType.CUDA_R_64F,
  complex64: cudaDataType.CUDA_C_32F,
  complex128: cudaDataType.CUDA_C_64F,
} as const satisfies Record<SparseValueDType, cudaDataType>);

type CusparseModule = typeof import("../../../bindings/cusparse.ts");
let loading: Promise<CusparseModule> | undefined;
function loadCusparse(): Promise<CusparseModule> {
  return (loading ??= importLater<CusparseModule>(ownModuleUrl("src/bindings/cusparse"), "cusparse"));
}

/** A CSR or COO matrix over DeviceArrays (made by {@link Sparse.csr} or {@link Sparse.coo}). Close it (or `using`). */
export class SparseMatrix {
  /** The format, sizes, nnz and dtypes. */
  readonly layout: SparseLayout;
  /** The arrays it describes (kept alive, not owned: closing the matrix does not close them). */
  readonly arrays: readonly DeviceArray[];
  readonly #lib: CusparseModule;
  #descr: cusparseSpMatDescr_t | null;

  /** @internal Made by {@link Sparse}. */
  constructor(lib: CusparseModule, layout: SparseLayout, descr: cusparseSpMatDescr_t, arrays: readonly DeviceArray[]) {
    this.#lib = lib;
    this.layout = layout;
    this.#descr = descr;
    this.arrays = arrays;
    const { cusparse } = lib;
    track(this, "SparseMatrix", () => cusparse.cusparseDestroySpMat(descr));
  }

  /** [rows, cols]. */
  get shape(): [number, number] {
    return [this.layout.rows, this.layout.cols];
  }

  /** The number of stored values. */
  get nnz(): number {
    return this.layout.nnz;
  }

  /** The values' dtype. */
  get dtype(): SparseValueDType {
    return this.layout.valueDtype;
  }

  /** Whether close() was called (or one of its arrays was closed). */
  get isClosed(): boolean {
    return this.#descr === null || this.arrays.some((a) => a.isClosed);
  }

  /** The descriptor (`cusparseSpMatDescr_t`), for calls of the binding itself. */
  get descriptor(): cusparseSpMatDescr_t {
    if (this.#descr === null) throw new ClosedError(`this SparseMatrix (${this.layout.format} ${this.layout.rows}x${this.layout.cols})`, "use its descriptor");
    const closed = this.arrays.find((a) => a.isClosed);
    if (closed !== undefined) throw new ClosedError(`an array of this SparseMatrix (${closed.dtype.name} [${closed.shape.join(", ")}])`, "use the matrix");
    return this.#descr;
  }

  /** Destroys the descriptor (not the arrays). Closing twice is harmless. */
  close(): void {
    const d = this.#descr;
    if (d === null) return;
    this.#descr = null;
    untrack(this);
    this.#lib.cusparse.cusparseDestroySpMat(d);
  }

  [Symbol.dispose](): void {
    this.close();
  }

  toString(): string {
    const L = this.layout;
    return `SparseMatrix(${L.format}, ${L.rows}x${L.cols}, nnz ${L.nnz}, ${L.valueDtype}, ${L.indexDtype}${this.#descr === null ? ", closed" : ""})`;
  }
}

/** cuSPARSE on one stream. */
export class Sparse {
  /** The device (the stream's). */
  readonly deviceId: number;
  /** Where the workspace and allocated results come from. */
  readonly memoryResource: MemoryResource;
  readonly #lib: CusparseModule;
  #handle: cusparseHandle_t | null;
  #stream: Stream;
  #work: Buffer | undefined;
  /** alpha at 0, beta at 16. */
  readonly #scalars = new DataView(new ArrayBuffer(32));
  readonly #alpha = ffi.pointerOf(this.#scalars.buffer);
  readonly #beta = ffi.offsetPointer(this.#alpha, 16);

  private constructor(lib: CusparseModule, handle: cusparseHandle_t, stream: Stream, memoryResource: MemoryResource) {
    this.#lib = lib;
    this.#handle = handle;
    this.#stream = stream;
    this.deviceId = stream.device.id;
    this.memoryResource = memoryResource;
    const { cusparse } = lib;
    const ctx = stream.context.handle;
    track(this, "Sparse", () => withCurrentContext(ctx, () => cusparse.cusparseDestroy(handle)));
  }

  /** Makes a cuSPARSE handle on the stream's device, bound to the stream. Loads cuSPARSE's binding on first use. */
  static async create(options: SparseOptions): Promise<Sparse> {
    if (typeof options !== "object" || options === null) throw new TypeError(`Sparse.create takes { stream, memoryResource? }, not ${describeValue(options)}`);
    const stream = takeStream(options.stream, "Sparse.create", STREAM_OPTION);
    const lib = await loadCusparse();
    const { cusparse } = lib;
    const handle = withCurrentContext(stream.context.handle, () => {
      const h = cusparse.cusparseCreate();
      try {
        cusparse.cusparseSetStream(h, stream.handle);
      } catch (e) {
        cusparse.cusparseDestroy(h);
        throw e;
      }
      return h;
    });
    return new Sparse(lib, handle, stream, options.memoryResource ?? stream.device.memoryResource);
  }

  /** Whether close() was called. */
  get isClosed(): boolean {
    return this.#handle === null;
  }

  /** The handle (`cusparseHandle_t`), for calls of the binding itself. */
  get handle(): cusparseHandle_t {
    return this.#open("use its handle");
  }

  /** The stream the products run on. */
  get stream(): Stream {
    return this.#stream;
  }

  /** Binds the handle to another stream of its device (waits for the old one first: the workspace was allocated in its order). */
  set stream(stream: Stream) {
    const h = this.#open("change its stream");
    const s = replacementStream(stream, this.deviceId, "Sparse");
    if (s === this.#stream) return;
    this.#stream.sync();
    withCurrentContext(s.context.handle, () => this.#lib.cusparse.cusparseSetStream(h, s.handle));
    this.#stream = s;
  }

  /** A CSR matrix over the arrays given (checked: dtypes, lengths, contiguity, device). */
  csr(init: CsrInit): SparseMatrix {
    this.#open("describe a matrix");
    const L = checkCsr(init, this.deviceId);
    const d = this.#lib.cusparse.cusparseCreateCsr(L.rows, L.cols, L.nnz, pointerOf(init.rowOffsets), pointerOf(init.colIndices), pointerOf(init.values), CUSPARSE_INDEX_TYPES[L.indexDtype], CUSPARSE_INDEX_TYPES[L.indexDtype], INDEX_BASE_ZERO, CUDA_DATA_TYPES[L.valueDtype]);
    return new SparseMatrix(this.#lib, L, d, [init.rowOffsets, init.colIndices, init.values]);
  }

  /** A COO matrix over the arrays given (checked as `csr`). */
  coo(init: CooInit): SparseMatrix {
    this.#open("describe a matrix");
    const L = checkCoo(init, this.deviceId);
    const d = this.#lib.cusparse.cusparseCreateCoo(L.rows, L.cols, L.nnz, pointerOf(init.rowIndices), pointerOf(init.colIndices), pointerOf(init.values), CUSPARSE_INDEX_TYPES[L.indexDtype], INDEX_BASE_ZERO, CUDA_DATA_TYPES[L.valueDtype]);
    return new SparseMatrix(this.#lib, L, d, [init.rowIndices, init.colIndices, init.values]);
  }

  /** y = α·op(A)·x + β·y: x and y 1D of A's dtype. Returns y (`out`, or a new array). */
  spmv(a: SparseMatrix, x: DeviceArray, options: SparseProductOptions = {}): DeviceArray<SparseValueDType> {
    const action = "Sparse.spmv";
    const h = this.#open("multiply");
    const { A, op, m, k, dtype } = this.#operand(a, options, action);
    const X = checkArray(x, "x", action, VALUES, this.deviceId);
    checkSameDtype(X, "x", A.values, "the matrix's values", action);
    check1D(X, "x", k, action, `op(A) is ${m}x${k}`);
    const y = this.#result(options, [m], dtype, action);
    this.#writeScalars(dtype, options, action);
    const { cusparse } = this.#lib;
    const type = CUDA_DATA_TYPES[dtype];
    const opCode = OPERATIONS[op];
    this.#run(() => {
      const vx: cusparseDnVecDescr_t = cusparse.cusparseCreateDnVec(k, pointerOf(X), type);
      let vy: cusparseDnVecDescr_t | null = null;
      try {
        vy = cusparse.cusparseCreateDnVec(m, pointerOf(y), type);
        const work = this.#workspace(cusparse.cusparseSpMV_bufferSize(h, opCode, this.#alpha, A.descr, vx, this.#beta, vy, type, SPMV_ALG_DEFAULT));
        cusparse.cusparseSpMV(h, opCode, this.#alpha, A.descr, vx, this.#beta, vy, type, SPMV_ALG_DEFAULT, work);
      } finally {
        cusparse.cusparseDestroyDnVec(vx);
        if (vy !== null) cusparse.cusparseDestroyDnVec(vy);
      }
    });
    return y;
  }

  /** C = α·op(A)·B + β·C: B [k, n] and C [m, n] row-major of A's dtype. Returns C (`out`, or a new array). */
  spmm(a: SparseMatrix, b: DeviceArray, options: SparseProductOptions = {}): DeviceArray<SparseValueDType> {
    const action = "Sparse.spmm";
    const h = this.#open("multiply");
    const { A, op, m, k, dtype } = this.#operand(a, options, action);
    const B = checkArray(b, "b", action, VALUES, this.deviceId);
    checkSameDtype(B, "b", A.values, "the matrix's values", action);
    if (B.ndim !== 2 || B.shape[0] !== k) throw new ShapeMismatchError(`${action}: b must have shape [${k}, n] (op(A) is ${m}x${k}), not [${B.shape.join(", ")}]`);
    const n = B.shape[1]!;
    const c = this.#result(options, [m, n], dtype, action);
    this.#writeScalars(dtype, options, action);
    const { cusparse } = this.#lib;
    const type = CUDA_DATA_TYPES[dtype];
    const opCode = OPERATIONS[op];
    const alg = a.layout.format === "coo" ? SPMM_COO_ALG4 : SPMM_ALG_DEFAULT;
    this.#run(() => {
      const mb: cusparseDnMatDescr_t = cusparse.cusparseCreateDnMat(k, n, n, pointerOf(B), type, ORDER_ROW);
      let mc: cusparseDnMatDescr_t | null = null;
      try {
        mc = cusparse.cusparseCreateDnMat(m, n, n, pointerOf(c), type, ORDER_ROW);
        const work = this.#workspace(cusparse.cusparseSpMM_bufferSize(h, opCode, OPERATIONS.none, this.#alpha, A.descr, mb, this.#beta, mc, type, alg));
        cusparse.cusparseSpMM(h, opCode, OPERATIONS.none, this.#alpha, A.descr, mb, this.#beta, mc, type, alg, work);
      } finally {
        cusparse.cusparseDestroyDnMat(mb);
        if (mc !== null) cusparse.cusparseDestroyDnMat(mc);
      }
    });
    return c;
  }

  /** Destroys the handle and frees the workspace (after the work queued on its stream). Closing twice is harmless. */
  close(): void {
    const h = this.#handle;
    if (h === null) return;
    this.#handle = null;
    untrack(this);
    this.#work?.close(this.#stream);
    this.#work = undefined;
    withCurrentContext(this.#stream.context.handle, () => this.#lib.cusparse.cusparseDestroy(h));
  }

  [Symbol.dispose](): void {
    this.close();
  }

  #open(action: string): cusparseHandle_t {
    const h = this.#handle;
    if (h === null) throw new ClosedError("this Sparse", action);
    return h;
  }

  #run(fn: () => void): void {
    using _ = contextScope(this.#stream.context.handle);
    fn();
  }

  #operand(a: SparseMatrix, options: SparseProductOptions, action: string): { A: { descr: cusparseSpMatDescr_t; values: DeviceArray }; op: SparseOperation; m: number; k: number; dtype: SparseValueDType } {
    if (!(a instanceof SparseMatrix)) throw new TypeError(`${action}: the matrix must be a SparseMatrix (sparse.csr(...) or sparse.coo(...)), not ${describeValue(a)}`);
    const descr = a.descriptor;
    const op = options.op ?? "none";
    if (!Object.hasOwn(OPERATIONS, op)) throw new RangeError(`${action}: op must be "none", "transpose" or "conjugateTranspose", not ${describeValue(op)}`);
    const values = a.arrays[2]!;
    const dev = values.buffer.isHostAccessible ? -1 : values.buffer.device.id;
    if (dev >= 0 && dev !== this.deviceId) checkArray(values, "the matrix's values", action, VALUES, this.deviceId);
    const [m, k] = opShape(a.layout, op);
    return { A: { descr, values }, op, m, k, dtype: a.layout.valueDtype };
  }

  #result(options: SparseProductOptions, shape: readonly number[], dtype: SparseValueDType, action: string): DeviceArray<SparseValueDType> {
    const out = options.out;
    if (out === undefined) {
      const beta = options.beta ?? 0;
      if (beta !== 0 && !(Array.isArray(beta) && beta[0] === 0 && beta[1] === 0)) {
        throw new RangeError(`${action}: beta is ${describeValue(beta)} but no out was given to add to; pass out, or beta 0`);
      }
      return DeviceArray.empty(shape, dtype, { stream: this.#stream, memoryResource: this.memoryResource });
    }
    const o = checkArray(out, "out", action, [dtype], this.deviceId);
    if (o.ndim !== shape.length || o.shape.some((d, i) => d !== shape[i])) {
      throw new ShapeMismatchError(`${action}: out has shape [${o.shape.join(", ")}] but the result has shape [${shape.join(", ")}]`);
    }
    return o;
  }

  #writeScalars(dtype: SparseValueDType, options: SparseProductOptions, action: string): void {
    writeScalar(this.#scalars, 0, dtype, options.alpha ?? 1, "alpha", action);
    writeScalar(this.#scalars, 16, dtype, options.beta ?? 0, "beta", action);
  }

  /** The workspace for `size` bytes, the size a `*_bufferSize` call returned (grown when needed). */
  #workspace(size: bigint): ReturnType<typeof ffi.pointerFromAddress> {
    const need = Number(size);
    if (need === 0) return null;
    if (this.#work === undefined || this.#work.size < need) {
      this.#work?.close(this.#stream);
      this.#work = this.memoryResource.allocate(need, { stream: this.#stream });
    }
    return ffi.pointerFromAddress(BigInt(this.#work.handle));
  }

  toString(): string {
    return `Sparse(device ${this.deviceId}${this.isClosed ? ", closed" : ""})`;
  }
}
