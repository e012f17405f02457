/**
 * Solver without a GPU: what each routine's info means (the typed errors and their messages), and the shape checks of
 * square matrices and right-hand sides.
 */
import { describe, expect, it } from "vitest";
import {
  ConvergenceError,
  NotPositiveDefiniteError,
  ShapeMismatchError,
  SingularMatrixError,
  SolverInfoError,
} from "../../src/index.ts";
import { infoError } from "../../src/core/math/solver/errors.ts";
import { checkRhs, checkSquare } from "../../src/core/math/solver/solver.ts";
import { fake } from "./fake-arrays.ts";

describe("info", () => {
  it("0 is success", () => {
    expect(infoError("cusolverDnSgetrf", 0, 4)).toBeNull();
  });
  it("getrf: a singular matrix, naming the pivot", () => {
    const e = infoError("cusolverDnDgetrf", 3, 5);
    expect(e).toBeInstanceOf(SingularMatrixError);
    expect(e).toBeInstanceOf(SolverInfoError);
    expect((e as SingularMatrixError).pivot).toBe(3);
    expect(e!.message).toBe("cusolverDnDgetrf: the matrix is singular: U(3,3) is exactly zero (pivot 3 of 5, 1-based); a singular system has no unique solution, use a least-squares method (SVD) instead");
  });
  it("potrf: not positive definite, naming the minor", () => {
    const e = infoError("cusolverDnSpotrf", 2, 4);
    expect(e).toBeInstanceOf(NotPositiveDefiniteError);
    expect((e as NotPositiveDefiniteError).order).toBe(2);
    expect(e!.message).toMatch(/leading minor of order 2 \(of 4\) is not/);
  });
  it("gesvd and syevd: no convergence; a negative info: a bad parameter", () => {
    expect(infoError("cusolverDnDgesvd", 1, 4)).toBeInstanceOf(ConvergenceError);
    expect(infoError("cusolverDnSsyevd", 2, 4)).toBeInstanceOf(ConvergenceError);
    const bad = infoError("cusolverDnSgetrs", -4, 4)!;
    expect(bad.constructor).toBe(SolverInfoError);
    expect([bad.routine, bad.info]).toEqual(["cusolverDnSgetrs", -4]);
    expect(bad.message).toMatch(/parameter 4 was wrong/);
  });
});

describe("shapes", () => {
  it("square matrices", () => {
    expect(checkSquare(fake([5, 5], "float32"), "a", "Solver.getrf")).toBe(5);
    expect(() => checkSquare(fake([5, 4], "float32"), "a", "Solver.getrf")).toThrow(ShapeMismatchError);
    expect(() => checkSquare(fake([5, 4], "float32"), "a", "Solver.getrf")).toThrow("Solver.getrf: a must be a square matrix [n, n], not shape [5, 4]");
    expect(() => checkSquare(fake([25], "float32"), "a", "x")).toThrow(ShapeMismatchError);
  });
  it("right-hand sides [n] or [n, k]", () => {
    expect(checkRhs(fake([5], "float64"), 5, "s")).toBe(1);
    expect(checkRhs(fake([5, 3], "float64"), 5, "s")).toBe(3);
    expect(() => checkRhs(fake([4], "float64"), 5, "Solver.solve")).toThrow("Solver.solve: b must have shape [5] or [5, k] for a matrix of order 5, not [4]");
    expect(() => checkRhs(fake([5, 1, 1], "float64"), 5, "s")).toThrow(ShapeMismatchError);
  });
});
