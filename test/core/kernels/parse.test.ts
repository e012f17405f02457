/**
 * The CUDA C++ the package generates is valid for clang's front end: a representative set of kernel sources
 * (elementwise contiguous, strided and packed; reductions whole and along axes; scans; radix sorts; matmul's integer
 * gemm; bincount and histogram; pad and interp), parsed by libclang as device code for sm_90 through
 * test/fixtures/kernels/parse-kernels.ts (under Deno, as the generator uses libclang). No GPU needed: this catches
 * syntax and type errors before NVRTC sees the code on a GPU machine. Skips where libclang or the toolkit's headers are
 * missing.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../../..");
const DENO = join(ROOT, "node_modules/.bin/deno");
const INCLUDE = join(process.env.CUDA_HOME ?? "/usr/local/cuda", "include");
const why = !existsSync(join(INCLUDE, "cuda_runtime.h")) ? `no CUDA headers at ${INCLUDE} (set CUDA_HOME)` : !existsSync(DENO) ? "no Deno in node_modules (npm ci)" : undefined;

describe.skipIf(why !== undefined)(`generated kernels parse as CUDA C++${why === undefined ? "" : ` (skipped: ${why})`}`, () => {
  it("every representative source parses for sm_90 without errors", (ctx) => {
    const r = spawnSync(DENO, ["run", "-A", join(ROOT, "test/fixtures/kernels/parse-kernels.ts"), INCLUDE], { cwd: ROOT, encoding: "utf8", timeout: 240_000, maxBuffer: 16 * 1024 * 1024 });
    if (r.status === 3) {
      ctx.skip(`libclang is missing: ${r.stderr.trim().split("\n")[0]}`);
      return;
    }
    expect(r.status, r.stderr).toBe(0);
    const results = r.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { name: string; errors: string[] });
    expect(results.length).toBeGreaterThan(50);
    expect(results.filter((x) => x.errors.length > 0)).toEqual([]);
  }, 300_000);
});
