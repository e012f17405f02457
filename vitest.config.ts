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
  },
});
