import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // FFI state (loaded libraries, the CUDA context) is per process: one fork per file keeps files independent.
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
