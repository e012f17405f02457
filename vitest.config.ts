import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
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
  },
});
