import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // FFI state (loaded libraries, the CUDA context) is per process: one fork per file keeps files independent.
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Every suite runs the checked call style with guard bytes after its scratch memory and records (checked after
    // each call): a binding that writes past its memory fails loudly, naming the function.
    env: { CUDA_TS_DEBUG: "guards" },
    // Short by default: a dot per test, failures in full, the totals, then the skipped suites and why
    // (test/support/skip-summary.ts). `--reporter=verbose` lists every test.
    reporters: ["dot", "./test/support/skip-summary.ts"],
    // Tests print what they measured (the consumer test's lines); only on failure, unless --silent=false.
    silent: "passed-only",
    projects: [
      // The CPU tests: files in parallel.
      { extends: true, test: { name: "cpu", include: ["test/**/*.test.ts"], exclude: ["test/**/*.gpu.test.ts"], sequence: { groupOrder: 0 } } },
      // The GPU tests (*.gpu.test.ts) after the CPU tests, one file at a time: they share one GPU, and device-wide
      // measurements (NVML's memory figures, timings) would race another file's work. `--project gpu` runs only these
      // (README, "Running the GPU tests").
      {
        extends: true,
        test: { name: "gpu", include: ["test/**/*.gpu.test.ts"], fileParallelism: false, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
