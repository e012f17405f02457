/**
 * What a cuSOLVER routine's `info` means: {@link infoError} picks the error to throw (the classes are in
 * src/core/math-errors.ts, outside math/ so that the root's errors load no math module).
 *
 * @module
 */
import { ConvergenceError, NotPositiveDefiniteError, SingularMatrixError, SolverInfoError } from "../../math-errors.ts";

/**
 * What `info` means for a routine: null when 0, otherwise the error to throw. Exported for tests (no GPU needed).
 */
export function infoError(routine: string, info: number, n: number): SolverInfoError | null {
  if (info === 0) return null;
  if (info < 0) return new SolverInfoError(routine, info, `${routine}: parameter ${-info} was wrong (info ${info}); this is a bug in cuda-ts's call, please report it`);
  if (/getrf$/.test(routine)) return new SingularMatrixError(routine, info, n);
  if (/potrf$/.test(routine)) return new NotPositiveDefiniteError(routine, info, n);
  if (/(gesvd|syevd)$/.test(routine)) return new ConvergenceError(routine, info);
  return new SolverInfoError(routine, info, `${routine}: returned info ${info}`);
}
