import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

/**
 * `npm test` runs the quick suite (CUDA_TS_TESTS=quick): every file but these, which drive many processes, real
 * launchers, the packed package or thousands of generated cases. `npm run test:full` (CI: .ci/run) runs them all.
 */
export const SLOW_FILES: readonly string[] = [
  "test/bindings/argument-sweep.test.ts", // every function of every table, in child processes
  "test/bindings/math-outputs.test.ts", // every math function with an output, against generated mocks
  "test/cli/run.test.ts", // cuda-ts run's jobs, two users, several nodes
  "test/core/nvtx/injection-file.test.ts", // 200 processes racing a swapped library
  "test/distributed/launchers-real.test.ts", // a Slurm cluster, srun and mpirun
  "test/distributed/rendezvous-secure.test.ts", // 2,000 idle connections and the store's deadlines
  "test/fuzz/**", // property-based decoders
  "test/generator/out-elsewhere.test.ts", // full generations into other folders
  "test/package/**", // npm pack, installs under Bun, Deno, Node and tsc, publish dry-runs
];

/** Whether this run is the quick suite. */
const quick = process.env.CUDA_TS_TESTS === "quick";

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
      // One worker more than the cores: many files spend their time waiting on the processes they start.
      {
        extends: true,
        test: {
          name: "cpu",
          include: ["test/**/*.test.ts"],
          exclude: ["test/**/*.gpu.test.ts", ...(quick ? SLOW_FILES : [])],
          maxWorkers: availableParallelism() + 1,
          sequence: { groupOrder: 0 },
        },
      },
      // The GPU tests (*.gpu.test.ts) after the CPU tests, one file at a time: they share one GPU, and device-wide
      // measurements (NVML's memory figures, timings) would race another file's work. `--project gpu` runs only these
      // (docs/contributing.md, "GPU tests").
      {
        extends: true,
        test: { name: "gpu", include: ["test/**/*.gpu.test.ts"], fileParallelism: false, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
