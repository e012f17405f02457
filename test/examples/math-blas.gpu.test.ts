/**
 * The cuBLAS/cuBLASLt example (gemm.ts) runs with this runtime, checks its products against the CPU and exits 0 with
 * its OK line. Skips where there is no GPU.
 */
import { describe, expect, it } from "vitest";
import { gpu, skipNote } from "../support/gpu.ts";
import { runExample } from "../support/runtime.ts";

describe.skipIf(!gpu.available)(`examples: cuBLAS and cuBLASLt${skipNote}`, () => {
  it("gemm.ts checks its results and exits 0", () => {
    const r = runExample("gemm.ts");
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^float64 gemm: max relative error \S+ \(tolerance 1e-12\)$/m);
    expect(r.stdout).toMatch(/^BlasLt linear layer \(bias \+ ReLU\): max relative error \S+ \(tolerance 0\.00001\)$/m);
    expect(r.stdout).toMatch(/^gemm: float64, float32, TF32, bfloat16, a transposed view, a batch of 8 and a fused BlasLt layer \(123x77x200\) on .+ OK$/m);
  });
});
