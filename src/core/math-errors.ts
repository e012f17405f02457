/**
 * The errors of the math objects: what cuSOLVER found in a matrix ({@link SolverInfoError} and its subclasses;
 * math/solver/errors.ts says which `info` means which). Outside math/ because the root import re-exports them and
 * loads no math module. Each is re-exported by src/core/errors.ts, the root's one import path for errors.
 *
 * @module
 */
import { ArgumentError, quietFields } from "../errors/base.ts";

/** A cuSOLVER routine reported a non-zero `info` (the base class; the subclasses say what it means). */
export class SolverInfoError extends ArgumentError {
  /** The routine (cusolverDnSgetrf...). */
  readonly routine: string;
  /** The `info` it returned. */
  readonly info: number;
  constructor(routine: string, info: number, message: string) {
    super(message);
    this.name = "SolverInfoError";
    this.routine = routine;
    this.info = info;
    quietFields(this);
  }
}

/**
 * LU (getrf) found an exactly zero pivot: the matrix is singular. `pivot` is LAPACK's 1-based index i of U(i,i) = 0
 * (of the factorization of the matrix as cuSOLVER reads it; the matrix is singular either way).
 */
export class SingularMatrixError extends SolverInfoError {
  /** The 1-based index of the zero diagonal element of U. */
  readonly pivot: number;
  constructor(routine: string, pivot: number, n: number) {
    super(routine, pivot, `${routine}: the matrix is singular: U(${pivot},${pivot}) is exactly zero (pivot ${pivot} of ${n}, 1-based); a singular system has no unique solution, use a least-squares method (SVD) instead`);
    this.name = "SingularMatrixError";
    this.pivot = pivot;
    quietFields(this);
  }
}

/** Cholesky (potrf) found that the leading minor of order `order` is not positive definite. */
export class NotPositiveDefiniteError extends SolverInfoError {
  /** The order (1-based) of the first leading minor that is not positive definite. */
  readonly order: number;
  constructor(routine: string, order: number, n: number) {
    super(routine, order, `${routine}: the matrix is not positive definite: its leading minor of order ${order} (of ${n}) is not; Cholesky needs a symmetric positive definite matrix, use LU (getrf/solve) otherwise`);
    this.name = "NotPositiveDefiniteError";
    this.order = order;
    quietFields(this);
  }
}

/** An iterative routine (gesvd, syevd) did not converge: `info` says how many off-diagonal elements were left. */
export class ConvergenceError extends SolverInfoError {
  constructor(routine: string, info: number) {
    super(routine, info, `${routine}: did not converge (info ${info}: ${info} intermediate off-diagonal elements did not converge to zero)`);
    this.name = "ConvergenceError";
  }
}
