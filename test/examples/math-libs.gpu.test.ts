/**
 * The examples of the math libraries' objects (fft_convolution with cuFFT, monte_carlo_pi with cuRAND, linear_solve
 * with cuSOLVER, sparse_matvec with cuSPARSE) run with this runtime, check their own results and exit 0 with their OK
 * line. Skips where there is no GPU.
 */
import { describe, expect, it } from "vitest";
import { gpu, skipNote } from "../support/gpu.ts";
import { runExample } from "../support/runtime.ts";

describe.skipIf(!gpu.available)(`examples: cuFFT, cuRAND, cuSOLVER, cuSPARSE${skipNote}`, () => {
  const cases: [string, RegExp][] = [
    ["fft_convolution.ts", /^fft_convolution: 4 circular convolutions of 4096 float64 points \(r2c, spectrum product, c2r\) on .+, max error [\d.e+-]+ OK$/m],
    ["monte_carlo_pi.ts", /^monte_carlo_pi: pi ≈ 3\.1\d+ from 16777216 points \(philox, seed 2026\), [\d.]+ standard deviations from π, reproducible on .+ OK$/m],
    ["linear_solve.ts", /^linear_solve: LU and Cholesky solves of 500x500 float64 systems \(relative residuals [\d.e+-]+ and [\d.e+-]+\), a singular matrix refused at pivot [123] on .+ OK$/m],
    ["sparse_matvec.ts", /^sparse_matvec: 5-point Laplacian of a 128x128 grid \(16384 rows, 81408 non-zeros\) in CSR and COO, SpMV matches the stencil on .+ OK$/m],
  ];
  for (const [file, line] of cases) {
    it(`${file} checks its results and exits 0`, () => {
      const r = runExample(file);
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(line);
    });
  }
});
