/**
 * The examples of typed device arrays and the kernel builders (strided_views, elementwise, reduction,
 * constant_memory, thread_block_cluster, softmax_regression, cupy_user_guide, jit_lto_fractal) run with this runtime, check their own results and exit 0
 * with their OK line. Skips where there is no GPU.
 */
import { describe, expect, it } from "vitest";
import { gpu, skipNote } from "../support/gpu.ts";
import { runExample } from "../support/runtime.ts";

describe.skipIf(!gpu.available)(`examples: arrays and kernel builders${skipNote}`, () => {
  const cases: [string, RegExp][] = [
    ["strided_views.ts", /^strided_views: 5 views, a strided copy and a 2D block copy of a 64x48 float32 array on .+ OK$/m],
    ["elementwise.ts", /^elementwise: saxpy in float32 and float64 \(\d+ elements\) and a fused two-output expression on .+ OK$/m],
    ["reduction.ts", /^reduction: sum -?\d+, max [\d.]+, l2 norm [\d.]+ of \d+ elements on .+ OK$/m],
    ["constant_memory.ts", /^constant_memory: 8 __constant__ coefficients, a \d+-point polynomial and a __device__ counter on .+ OK$/m],
    ["thread_block_cluster.ts", /^thread_block_cluster: (\d+ clusters of \d+ blocks summed through distributed shared memory .* OK|.*clusters need 9\.0 or newer \(skipped\))$/m],
    ["softmax_regression.ts", /^softmax_regression: 3000 points in 3 classes, 300 steps, loss [\d.]+, accuracy [\d.]+% on .+ OK$/m],
    ["cupy_user_guide.ts", /^cupy_user_guide: norm, transfers, softplus, squared_diff, l2norm and my_add checked on .+ OK$/m],
    ["jit_lto_fractal.ts", /^jit_lto_fractal: two user functions linked with nvJitLink LTO into one kernel \(mandelbrot [\d.]+% exact, \d+ inside; julia [\d.]+% exact, \d+ inside\) on .+ OK$/m],
  ];
  for (const [file, line] of cases) {
    it(`${file} checks its results and exits 0`, () => {
      const r = runExample(file);
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stdout).toMatch(line);
    });
  }
});
