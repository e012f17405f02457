/**
 * The math libraries' classes (`Rng`, `Fft`/`FftPlan`, `Solver`, `Sparse`/`SparseMatrix`), loaded together by the first
 * `create` of any of them (their public faces are rng.ts, fft.ts, solver.ts and sparse.ts): one module loaded at run
 * time rather than four, so that the package's bundle splits the object layer the root imports into fewer chunks.
 *
 * @module
 */
export { Rng } from "./rng/rng-impl.ts";
export { Fft, FftPlan } from "./fft/fft-impl.ts";
export { Solver } from "./solver/solver-impl.ts";
export { Sparse, SparseMatrix } from "./sparse/sparse-impl.ts";
