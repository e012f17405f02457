/**
 * `Solver`: dense linear algebra of cuSOLVER (cusolverDn) over row-major DeviceArrays of float32 or float64. LU
 * (`getrf`/`getrs`, `solve`), Cholesky (`potrf`/`potrs`, `choleskySolve`), QR (`geqrf`), SVD (`gesvd`) and the
 * symmetric eigenproblem (`syevd`). Workspace sizes are queried and allocated for the user (from the `Solver`'s memory
 * resource, on its stream); each routine's `info` is read back when its work is done, so the methods are async and a
 * failure is a typed error: {@link SingularMatrixError} naming the pivot, {@link NotPositiveDefiniteError} naming
 * the minor, {@link ConvergenceError}.
 *
 * ```ts
 * using solver = await Solver.create({ stream });
 * using x = await solver.solve(a, b);               // a [n, n], b [n] or [n, k]: a x = b
 * const { u, s, vt } = await solver.gesvd(m);       // m = u · diag(s) · vt
 * ```
 *
 * Row-major and column-major: cuSOLVER is column-major (LAPACK's), DeviceArrays row-major. The bytes of a row-major
 * m×n array are those of its transpose, n×m, in column-major order. So:
 * - `getrf` factors the transpose as it lies (Aᵀ = P·L·U, no copy) and `getrs` solves with cuSOLVER's transposed
 *   operation, which is the system A·x = b itself. The factors a `LuFactorization` holds are those of Aᵀ.
 * - Cholesky needs no copy either (a symmetric matrix is its transpose): the row-major lower triangle is cuSOLVER's
 *   upper one. `potrf` leaves L (A = L·Lᵀ) in the lower triangle of its row-major result (with `lower: false`, U with
 *   A = Uᵀ·U in the upper one); the other triangle is not referenced.
 * - Right-hand sides of several columns ([n, k]), QR, and SVD of a tall matrix are transposed (copied) into
 *   column-major order and their results back; `syevd`'s eigenvectors come back as the columns of a row-major array.
 * Inputs are never overwritten: each method works on a copy.
 *
 * The library is loaded on `Solver.create`, never by importing cuda-ts.
 *
 * @module
 */
import type { DeviceArray } from "../../array/device-array.ts";
import { ShapeMismatchError } from "../../array/errors.ts";
import type { MemoryResource } from "../../memory/resource.ts";
import type { Stream } from "../../stream.ts";
import { mathClasses, mathFacade, type MathFace } from "../facade.ts";
import type { Solver as SolverClass } from "./solver-impl.ts";

/** The dtypes the Solver takes. */
export type SolverDType = "float32" | "float64";
/** Options of {@link Solver.create}. */
export interface SolverOptions {
  /** The stream the routines run on (changed later with `solver.stream = other`). */
  readonly stream: Stream;
  /** Where workspaces, `info` and results come from (default: the stream's device's memory resource). */
  readonly memoryResource?: MemoryResource;
}

/** Which triangle of a symmetric matrix is read (row-major terms). */
export interface TriangleOptions {
  /** The lower triangle (default true); false: the upper one. */
  readonly lower?: boolean;
}

/** An LU factorization from {@link Solver.getrf}: the factors (of Aᵀ, see the module) and the pivots. Close it. */
export interface LuFactorization extends Disposable {
  /** The factors, in cuSOLVER's column-major layout of Aᵀ (n×n). */
  readonly lu: DeviceArray<SolverDType>;
  /** LAPACK's 1-based row interchanges (int32 [n]). */
  readonly pivots: DeviceArray<"int32">;
  readonly n: number;
  close(): void;
}

/** A Cholesky factorization from {@link Solver.potrf}. Close it. */
export interface CholeskyFactorization extends Disposable {
  /** Row-major; its lower triangle holds L (A = L·Lᵀ), or with `lower: false` its upper one U (A = Uᵀ·U). */
  readonly factor: DeviceArray<SolverDType>;
  readonly lower: boolean;
  readonly n: number;
  close(): void;
}

/** A routine's result arrays, closed together by `close()` or `using`. */
export type SolverResults<T> = T & Disposable & { close(): void };

/** Checks a square matrix argument (exported for tests). */
export function checkSquare(a: DeviceArray, name: string, action: string): number {
  if (a.ndim !== 2 || a.shape[0] !== a.shape[1]) throw new ShapeMismatchError(`${action}: ${name} must be a square matrix [n, n], not shape [${a.shape.join(", ")}]`);
  return a.shape[0]!;
}

/** Checks a right-hand side b of [n] or [n, k] for a matrix of order n (exported for tests). Returns k. */
export function checkRhs(b: DeviceArray, n: number, action: string): number {
  if ((b.ndim !== 1 && b.ndim !== 2) || b.shape[0] !== n) {
    throw new ShapeMismatchError(`${action}: b must have shape [${n}] or [${n}, k] for a matrix of order ${n}, not [${b.shape.join(", ")}]`);
  }
  return b.ndim === 1 ? 1 : b.shape[1]!;
}

/** cuSOLVER's dense routines on one stream, made by {@link Solver.create} (see solver-impl.ts for its members). */
export type Solver = SolverClass;

/** `Solver` the value: the factory, and `instanceof`. */
export interface SolverConstructor extends MathFace {
  /** Makes a cuSOLVER handle on the stream's device, bound to the stream. Loads the class and cuSOLVER's binding on first use. */
  create(options: SolverOptions): Promise<Solver>;
  /** Whether `value` is a `Solver` made by {@link SolverConstructor.create}. */
  [Symbol.hasInstance](value: unknown): value is Solver;
}

/** Makes cuSOLVER handles: `await Solver.create({ stream })`. */
export const Solver: SolverConstructor = mathFacade<SolverConstructor>("Solver", "make one with await Solver.create({ stream, memoryResource? })", (c) => c.Solver, {
  async create(options: SolverOptions): Promise<Solver> {
    return (await mathClasses("Solver")).Solver.create(options);
  },
});
