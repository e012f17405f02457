/**
 * The implementation of {@link Solver} (solver.ts), loaded by the first `Solver.create`: the class's code is not
 * evaluated when cuda-ts is imported.
 *
 * @module
 */
import type { cusolverDnHandle_t } from "../../../bindings/cusolver.ts";
import { DeviceArray } from "../../array/device-array.ts";
import { describeValue } from "../../../errors/describe.ts";
import { track, untrack } from "../../base/lifetime.ts";
import { ClosedError } from "../../base/errors.ts";
import { ShapeMismatchError } from "../../array/errors.ts";
import { ElementwiseKernel } from "../../kernels/elementwise.ts";
import type { Buffer } from "../../memory/buffer.ts";
import type { MemoryResource } from "../../memory/resource.ts";
import type { Stream } from "../../stream.ts";
import { ffi, type Pointer } from "../../../ffi/index.ts";
import { withCurrentContext } from "../../base/driver-state.ts";
import { contextScope } from "../../base/context-scope.ts";
import { checkArray, checkSameDtype, replacementStream, pointerOf } from "../rng/shared.ts";
import { infoError } from "./errors.ts";
import { importLater } from "../../../deferred.ts";
import { ownModuleUrl } from "../../../module-url.ts";

import { checkRhs, checkSquare, type CholeskyFactorization, type LuFactorization, type SolverDType, type SolverOptions, type SolverResults, type TriangleOptions } from "./solver.ts";
import { cublasFillMode_t, cublasOperation_t } from "../../../../generated/cuda-13.0/cublas/enums.ts";
import { cusolverEigMode_t } from "../../../../generated/cuda-13.0/cusolver/enums.ts";
import { STREAM_OPTION, takeStream } from "../../base/stream-arg.ts";

type CusolverModule = typeof import("../../../bindings/cusolver.ts");
let loading: Promise<CusolverModule> | undefined;
function loadCusolver(): Promise<CusolverModule> {
  return (loading ??= importLater<CusolverModule>(ownModuleUrl("src/bindings/cusolver"), "cusolver"));
}

const FLOATS: readonly SolverDType[] = ["float32", "float64"];

// cuBLAS's enums as cuSOLVER takes them (from the generated enums module alone: cuBLAS's tables stay unloaded).
const FILL_LOWER = cublasFillMode_t.CUBLAS_FILL_MODE_LOWER;
const FILL_UPPER = cublasFillMode_t.CUBLAS_FILL_MODE_UPPER;
const OP_T = cublasOperation_t.CUBLAS_OP_T;
const EIG_MODE_VECTOR = cusolverEigMode_t.CUSOLVER_EIG_MODE_VECTOR;

function closeable<T extends Record<string, unknown>>(parts: T): SolverResults<T> {
  const close = (): void => {
    for (const a of Object.values(parts)) if (a instanceof DeviceArray) a.close();
  };
  return Object.assign(parts, { close, [Symbol.dispose]: close });
}

let triangle: ElementwiseKernel | undefined;

/** cuSOLVER's dense routines on one stream. */
export class Solver {
  /** The device (the stream's). */
  readonly deviceId: number;
  /** Where workspaces and results come from. */
  readonly memoryResource: MemoryResource;
  readonly #lib: CusolverModule;
  #handle: cusolverDnHandle_t | null;
  #stream: Stream;

  private constructor(lib: CusolverModule, handle: cusolverDnHandle_t, stream: Stream, memoryResource: MemoryResource) {
    this.#lib = lib;
    this.#handle = handle;
    this.#stream = stream;
    this.deviceId = stream.device.id;
    this.memoryResource = memoryResource;
    const { cusolver } = lib;
    const ctx = stream.context.handle;
    track(this, "Solver", () => withCurrentContext(ctx, () => cusolver.cusolverDnDestroy(handle)));
  }

  /** Makes a cuSOLVER handle on the stream's device, bound to the stream. Loads cuSOLVER's binding on first use. */
  static async create(options: SolverOptions): Promise<Solver> {
    if (typeof options !== "object" || options === null) throw new TypeError(`Solver.create takes { stream, memoryResource? }, not ${describeValue(options)}`);
    const stream = takeStream(options.stream, "Solver.create", STREAM_OPTION);
    const lib = await loadCusolver();
    const { cusolver } = lib;
    const handle = withCurrentContext(stream.context.handle, () => {
      const h = cusolver.cusolverDnCreate();
      try {
        cusolver.cusolverDnSetStream(h, stream.handle);
      } catch (e) {
        cusolver.cusolverDnDestroy(h);
        throw e;
      }
      return h;
    });
    return new Solver(lib, handle, stream, options.memoryResource ?? stream.device.memoryResource);
  }

  /** Whether close() was called. */
  get isClosed(): boolean {
    return this.#handle === null;
  }

  /** The handle (`cusolverDnHandle_t`), for calls of the binding itself. */
  get handle(): cusolverDnHandle_t {
    return this.#open("use its handle");
  }

  /** The stream the routines run on. */
  get stream(): Stream {
    return this.#stream;
  }

  /** Binds the handle to another stream of its device (DeviceMismatchError otherwise). */
  set stream(stream: Stream) {
    const h = this.#open("change its stream");
    const s = replacementStream(stream, this.deviceId, "Solver");
    withCurrentContext(s.context.handle, () => this.#lib.cusolver.cusolverDnSetStream(h, s.handle));
    this.#stream = s;
  }

  /** Destroys the handle (after the work queued on its stream). Closing twice is harmless. */
  close(): void {
    const h = this.#handle;
    if (h === null) return;
    this.#handle = null;
    untrack(this);
    withCurrentContext(this.#stream.context.handle, () => this.#lib.cusolver.cusolverDnDestroy(h));
  }

  [Symbol.dispose](): void {
    this.close();
  }

  // ---- LU ----

  /** LU factorization with partial pivoting of the square `a` (not changed). SingularMatrixError names a zero pivot. */
  async getrf(a: DeviceArray): Promise<LuFactorization> {
    const action = "Solver.getrf";
    const h = this.#open("factor");
    const A = checkArray(a, "a", action, FLOATS, this.deviceId);
    const n = checkSquare(A, "a", action);
    const f32 = A.dtype.name === "float32";
    const routine = f32 ? "cusolverDnSgetrf" : "cusolverDnDgetrf";
    const lu = A.copy(this.#alloc());
    const pivots = DeviceArray.empty([n], "int32", this.#alloc());
    const info = this.#info();
    try {
      this.#run(() => {
        const { cusolver } = this.#lib;
        const lwork = f32 ? cusolver.cusolverDnSgetrf_bufferSize(h, n, n, pointerOf(lu), n) : cusolver.cusolverDnDgetrf_bufferSize(h, n, n, pointerOf(lu), n);
        using work = this.#workspace(lwork * A.itemsize);
        if (f32) cusolver.cusolverDnSgetrf(h, n, n, pointerOf(lu), n, work.pointer, pointerOf(pivots), pointerOf(info));
        else cusolver.cusolverDnDgetrf(h, n, n, pointerOf(lu), n, work.pointer, pointerOf(pivots), pointerOf(info));
      });
      await this.#check(info, routine, n);
    } catch (e) {
      lu.close();
      pivots.close();
      throw e;
    }
    return closeable({ lu, pivots, n }) as unknown as LuFactorization;
  }

  /** Solves A·x = b with A's LU factorization; b is [n] or [n, k] (not changed). Returns x, b's shape. */
  async getrs(factors: LuFactorization, b: DeviceArray): Promise<DeviceArray<SolverDType>> {
    const action = "Solver.getrs";
    const h = this.#open("solve");
    const lu = checkArray(factors?.lu, "factors.lu", action, FLOATS, this.deviceId);
    const pivots = checkArray(factors.pivots, "factors.pivots", action, ["int32"], this.deviceId);
    const n = checkSquare(lu, "factors.lu", action);
    const B = checkArray(b, "b", action, FLOATS, this.deviceId);
    checkSameDtype(B, "b", lu, "the factors", action);
    const k = checkRhs(B, n, action);
    const f32 = lu.dtype.name === "float32";
    const x = this.#columnMajor(B);
    const info = this.#info();
    try {
      this.#run(() => {
        const { cusolver } = this.#lib;
        if (f32) cusolver.cusolverDnSgetrs(h, OP_T, n, k, pointerOf(lu), n, pointerOf(pivots), pointerOf(x), n, pointerOf(info));
        else cusolver.cusolverDnDgetrs(h, OP_T, n, k, pointerOf(lu), n, pointerOf(pivots), pointerOf(x), n, pointerOf(info));
      });
      await this.#check(info, f32 ? "cusolverDnSgetrs" : "cusolverDnDgetrs", n);
    } catch (e) {
      x.close();
      throw e;
    }
    return this.#rowMajor(x, B.shape);
  }

  /** Solves A·x = b by LU (getrf then getrs); a and b are not changed. Returns x, b's shape. */
  async solve(a: DeviceArray, b: DeviceArray): Promise<DeviceArray<SolverDType>> {
    const action = "Solver.solve";
    const A = checkArray(a, "a", action, FLOATS, this.deviceId);
    const B = checkArray(b, "b", action, FLOATS, this.deviceId);
    checkSameDtype(B, "b", A, "a", action);
    checkRhs(B, checkSquare(A, "a", action), action);
    using f = await this.getrf(A);
    return await this.getrs(f, B);
  }

  // ---- Cholesky ----

  /** Cholesky factorization of the symmetric positive definite `a` (not changed), from its lower (default) or upper triangle. */
  async potrf(a: DeviceArray, options: TriangleOptions = {}): Promise<CholeskyFactorization> {
    const action = "Solver.potrf";
    const h = this.#open("factor");
    const A = checkArray(a, "a", action, FLOATS, this.deviceId);
    const n = checkSquare(A, "a", action);
    const lower = options.lower ?? true;
    const uplo = lower ? FILL_UPPER : FILL_LOWER; // row-major lower = column-major upper
    const f32 = A.dtype.name === "float32";
    const factor = A.copy(this.#alloc());
    const info = this.#info();
    try {
      this.#run(() => {
        const { cusolver } = this.#lib;
        const lwork = f32 ? cusolver.cusolverDnSpotrf_bufferSize(h, uplo, n, pointerOf(factor), n) : cusolver.cusolverDnDpotrf_bufferSize(h, uplo, n, pointerOf(factor), n);
        using work = this.#workspace(lwork * A.itemsize);
        if (f32) cusolver.cusolverDnSpotrf(h, uplo, n, pointerOf(factor), n, work.pointer, lwork, pointerOf(info));
        else cusolver.cusolverDnDpotrf(h, uplo, n, pointerOf(factor), n, work.pointer, lwork, pointerOf(info));
      });
      await this.#check(info, f32 ? "cusolverDnSpotrf" : "cusolverDnDpotrf", n);
    } catch (e) {
      factor.close();
      throw e;
    }
    return closeable({ factor, lower, n }) as unknown as CholeskyFactorization;
  }

  /** Solves A·x = b with A's Cholesky factorization; b is [n] or [n, k]. Returns x, b's shape. */
  async potrs(chol: CholeskyFactorization, b: DeviceArray): Promise<DeviceArray<SolverDType>> {
    const action = "Solver.potrs";
    const h = this.#open("solve");
    const F = checkArray(chol?.factor, "chol.factor", action, FLOATS, this.deviceId);
    const n = checkSquare(F, "chol.factor", action);
    const B = checkArray(b, "b", action, FLOATS, this.deviceId);
    checkSameDtype(B, "b", F, "the factor", action);
    const k = checkRhs(B, n, action);
    const uplo = chol.lower ? FILL_UPPER : FILL_LOWER;
    const f32 = F.dtype.name === "float32";
    const x = this.#columnMajor(B);
    const info = this.#info();
    try {
      this.#run(() => {
        const { cusolver } = this.#lib;
        if (f32) cusolver.cusolverDnSpotrs(h, uplo, n, k, pointerOf(F), n, pointerOf(x), n, pointerOf(info));
        else cusolver.cusolverDnDpotrs(h, uplo, n, k, pointerOf(F), n, pointerOf(x), n, pointerOf(info));
      });
      await this.#check(info, f32 ? "cusolverDnSpotrs" : "cusolverDnDpotrs", n);
    } catch (e) {
      x.close();
      throw e;
    }
    return this.#rowMajor(x, B.shape);
  }

  /** Solves A·x = b for a symmetric positive definite A by Cholesky (potrf then potrs). */
  async choleskySolve(a: DeviceArray, b: DeviceArray, options: TriangleOptions = {}): Promise<DeviceArray<SolverDType>> {
    const action = "Solver.choleskySolve";
    const A = checkArray(a, "a", action, FLOATS, this.deviceId);
    const B = checkArray(b, "b", action, FLOATS, this.deviceId);
    checkSameDtype(B, "b", A, "a", action);
    checkRhs(B, checkSquare(A, "a", action), action);
    using f = await this.potrf(A, options);
    return await this.potrs(f, B);
  }

  // ---- QR ----

  /**
   * The reduced QR factorization of `a` [m, n] (geqrf, then orgqr for Q): q [m, k] with orthonormal columns and r
   * [k, n] upper triangular, k = min(m, n), a = q·r. Close the result (or `using`).
   */
  async geqrf(a: DeviceArray): Promise<SolverResults<{ q: DeviceArray<SolverDType>; r: DeviceArray<SolverDType> }>> {
    const action = "Solver.geqrf";
    const h = this.#open("factor");
    const A = checkArray(a, "a", action, FLOATS, this.deviceId);
    if (A.ndim !== 2 || A.size === 0) throw new ShapeMismatchError(`${action}: a must be a non-empty matrix [m, n], not shape [${A.shape.join(", ")}]`);
    const [m, n] = A.shape as [number, number];
    const k = Math.min(m, n);
    const f32 = A.dtype.name === "float32";
    const dtype = A.dtype.name as SolverDType;
    const cm = A.T.copy(this.#alloc()) as DeviceArray<SolverDType>; // [n, m] row-major = a, m×n column-major
    const tau = DeviceArray.empty([k], dtype, this.#alloc());
    const r = DeviceArray.empty([k, n], dtype, this.#alloc());
    const info = this.#info();
    let q: DeviceArray<SolverDType> | undefined;
    try {
      this.#run(() => {
        const { cusolver } = this.#lib;
        const qrWork = f32 ? cusolver.cusolverDnSgeqrf_bufferSize(h, m, n, pointerOf(cm), m) : cusolver.cusolverDnDgeqrf_bufferSize(h, m, n, pointerOf(cm), m);
        const qWork = f32 ? cusolver.cusolverDnSorgqr_bufferSize(h, m, k, k, pointerOf(cm), m, pointerOf(tau)) : cusolver.cusolverDnDorgqr_bufferSize(h, m, k, k, pointerOf(cm), m, pointerOf(tau));
        const size = Math.max(qrWork, qWork);
        using work = this.#workspace(size * A.itemsize);
        if (f32) cusolver.cusolverDnSgeqrf(h, m, n, pointerOf(cm), m, pointerOf(tau), work.pointer, size, pointerOf(info));
        else cusolver.cusolverDnDgeqrf(h, m, n, pointerOf(cm), m, pointerOf(tau), work.pointer, size, pointerOf(info));
        // r[i][j] = R(i, j) for i <= j: column-major element (i, j) is cm[j][i].
        triangle ??= new ElementwiseKernel("raw T f, int32 m, int32 n", "T r", "const long long row = i / n, col = i % n; r = row <= col ? f[col * m + row] : T(0);", "cuda_ts_qr_r");
        triangle.launch(this.#stream, cm, m, n, r);
        // Q: the first k columns of column-major cm (the first k rows of the row-major [n, m] array).
        if (f32) cusolver.cusolverDnSorgqr(h, m, k, k, pointerOf(cm), m, pointerOf(tau), work.pointer, size, pointerOf(info));
        else cusolver.cusolverDnDorgqr(h, m, k, k, pointerOf(cm), m, pointerOf(tau), work.pointer, size, pointerOf(info));
      });
      q = cm.subarray(0, k).T.copy(this.#alloc()) as DeviceArray<SolverDType>;
      await this.#check(info, f32 ? "cusolverDnSgeqrf" : "cusolverDnDgeqrf", n);
    } catch (e) {
      q?.close();
      r.close();
      throw e;
    } finally {
      cm.close();
      tau.close();
    }
    return closeable({ q: q, r });
  }

  // ---- SVD ----

  /**
   * The reduced SVD of `a` [m, n]: u [m, k], s [k] (descending), vt [k, n], k = min(m, n), a = u·diag(s)·vt.
   * cuSOLVER's gesvd needs rows ≥ columns: a wide `a` is given to it as it lies (its transpose, tall), a tall one is
   * transposed first. Close the result (or `using`).
   */
  async gesvd(a: DeviceArray): Promise<SolverResults<{ u: DeviceArray<SolverDType>; s: DeviceArray<SolverDType>; vt: DeviceArray<SolverDType> }>> {
    const action = "Solver.gesvd";
    const h = this.#open("decompose");
    const A = checkArray(a, "a", action, FLOATS, this.deviceId);
    if (A.ndim !== 2 || A.size === 0) throw new ShapeMismatchError(`${action}: a must be a non-empty matrix [m, n], not shape [${A.shape.join(", ")}]`);
    const [m, n] = A.shape as [number, number];
    const k = Math.min(m, n);
    const dtype = A.dtype.name as SolverDType;
    const f32 = dtype === "float32";
    // cuSOLVER factors a column-major M×N matrix with M >= N.
    const wide = m < n;
    const M = wide ? n : m;
    const N = wide ? m : n;
    const work = wide ? A.copy(this.#alloc()) : (A.T.copy(this.#alloc()) as DeviceArray<SolverDType>);
    const s = DeviceArray.empty([k], dtype, this.#alloc());
    const U = DeviceArray.empty([N, M], dtype, this.#alloc()); // column-major M×N (ld M)
    const VT = DeviceArray.empty([N, N], dtype, this.#alloc()); // column-major N×N
    const info = this.#info();
    const S = "S".charCodeAt(0);
    let u: DeviceArray<SolverDType> | undefined;
    let vt: DeviceArray<SolverDType> | undefined;
    try {
      this.#run(() => {
        const { cusolver } = this.#lib;
        const lwork = f32 ? cusolver.cusolverDnSgesvd_bufferSize(h, M, N) : cusolver.cusolverDnDgesvd_bufferSize(h, M, N);
        using ws = this.#workspace(lwork * A.itemsize);
        if (f32) cusolver.cusolverDnSgesvd(h, S, S, M, N, pointerOf(work), M, pointerOf(s), pointerOf(U), M, pointerOf(VT), N, ws.pointer, lwork, null, pointerOf(info));
        else cusolver.cusolverDnDgesvd(h, S, S, M, N, pointerOf(work), M, pointerOf(s), pointerOf(U), M, pointerOf(VT), N, ws.pointer, lwork, null, pointerOf(info));
      });
      if (wide) {
        // aᵀ = U'·S·V'ᵀ, so a = V'·S·U'ᵀ: u = V' (VT's bytes read row-major), vt = U'ᵀ (U's bytes read row-major).
        u = VT;
        vt = U;
      } else {
        // a = U·S·Vᵀ: U's bytes read row-major are Uᵀ [n, m], VT's are V [n, n].
        u = U.T.copy(this.#alloc()) as DeviceArray<SolverDType>;
        vt = VT.T.copy(this.#alloc()) as DeviceArray<SolverDType>;
        U.close();
        VT.close();
      }
      await this.#check(info, f32 ? "cusolverDnSgesvd" : "cusolverDnDgesvd", k);
    } catch (e) {
      for (const x of [s, U, VT, u, vt]) x?.close();
      throw e;
    } finally {
      work.close();
    }
    return closeable({ u, s, vt });
  }

  // ---- symmetric eigenproblem ----

  /**
   * Eigenvalues and eigenvectors of the symmetric `a` [n, n] (read from its lower triangle by default): w [n]
   * ascending and v [n, n] whose column j is the eigenvector of w[j] (a·v = v·diag(w)). Close the result.
   */
  async syevd(a: DeviceArray, options: TriangleOptions = {}): Promise<SolverResults<{ w: DeviceArray<SolverDType>; v: DeviceArray<SolverDType> }>> {
    const action = "Solver.syevd";
    const h = this.#open("decompose");
    const A = checkArray(a, "a", action, FLOATS, this.deviceId);
    const n = checkSquare(A, "a", action);
    const dtype = A.dtype.name as SolverDType;
    const f32 = dtype === "float32";
    const uplo = (options.lower ?? true) ? FILL_UPPER : FILL_LOWER;
    const cm = A.copy(this.#alloc());
    const w = DeviceArray.empty([n], dtype, this.#alloc());
    const info = this.#info();
    let v: DeviceArray<SolverDType> | undefined;
    try {
      this.#run(() => {
        const { cusolver } = this.#lib;
        const lwork = f32
          ? cusolver.cusolverDnSsyevd_bufferSize(h, EIG_MODE_VECTOR, uplo, n, pointerOf(cm), n, pointerOf(w))
          : cusolver.cusolverDnDsyevd_bufferSize(h, EIG_MODE_VECTOR, uplo, n, pointerOf(cm), n, pointerOf(w));
        using ws = this.#workspace(lwork * A.itemsize);
        if (f32) cusolver.cusolverDnSsyevd(h, EIG_MODE_VECTOR, uplo, n, pointerOf(cm), n, pointerOf(w), ws.pointer, lwork, pointerOf(info));
        else cusolver.cusolverDnDsyevd(h, EIG_MODE_VECTOR, uplo, n, pointerOf(cm), n, pointerOf(w), ws.pointer, lwork, pointerOf(info));
      });
      v = cm.T.copy(this.#alloc()) as DeviceArray<SolverDType>; // column-major eigenvectors → columns of row-major v
      await this.#check(info, f32 ? "cusolverDnSsyevd" : "cusolverDnDsyevd", n);
    } catch (e) {
      w.close();
      v?.close();
      throw e;
    } finally {
      cm.close();
    }
    return closeable({ w, v });
  }

  // ---- helpers ----

  #open(action: string): cusolverDnHandle_t {
    const h = this.#handle;
    if (h === null) throw new ClosedError("this Solver", action);
    return h;
  }

  #alloc(): { stream: Stream; memoryResource: MemoryResource } {
    return { stream: this.#stream, memoryResource: this.memoryResource };
  }

  #run(fn: () => void): void {
    using _ = contextScope(this.#stream.context.handle);
    fn();
  }

  #info(): DeviceArray<"int32"> {
    return DeviceArray.zeros([1], "int32", this.#alloc());
  }

  /** Reads `info` back when the stream reaches it, frees it, and throws the error it means. */
  async #check(info: DeviceArray<"int32">, routine: string, n: number): Promise<void> {
    let value: number;
    try {
      value = (await info.toTypedArray({ stream: this.#stream }))[0]!;
    } finally {
      info.close();
    }
    const e = infoError(routine, value, n);
    if (e !== null) throw e;
  }

  /** A workspace of `bytes` from the memory resource, freed (in stream order) when disposed. */
  #workspace(bytes: number): { pointer: Pointer; [Symbol.dispose](): void } {
    const stream = this.#stream;
    const buf: Buffer | undefined = bytes > 0 ? this.memoryResource.allocate(bytes, { stream }) : undefined;
    return {
      pointer: buf === undefined ? null : ffi.pointerFromAddress(BigInt(buf.handle)),
      [Symbol.dispose]: () => buf?.close(stream),
    };
  }

  /** A right-hand side in column-major order (a copy: [n] as it is, [n, k] transposed). */
  #columnMajor(b: DeviceArray<SolverDType>): DeviceArray<SolverDType> {
    return b.ndim === 1 ? b.copy(this.#alloc()) : (b.T.copy(this.#alloc()) as DeviceArray<SolverDType>);
  }

  /** A column-major result back in row-major order, b's shape. */
  #rowMajor(x: DeviceArray<SolverDType>, shape: readonly number[]): DeviceArray<SolverDType> {
    if (shape.length === 1) return x;
    try {
      return x.T.copy(this.#alloc()) as DeviceArray<SolverDType>;
    } finally {
      x.close();
    }
  }

  toString(): string {
    return `Solver(device ${this.deviceId}${this.isClosed ? ", closed" : ""})`;
  }
}
