/**
 * The "GPU required" switch (CUDA_TS_REQUIRE_GPU=1): with it, a GPU probe that finds no usable driver fails with the
 * cause instead of skipping. Runs the probe in a child process whose driver override points at a path that holds no
 * libcuda, so it finds no driver on any machine, the GPU machine included.
 */
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { GpuRequiredError, gpuRequired, requireGpu } from "./gpu.ts";
import { runtimeCommand } from "./runtime.ts";

const script = path.join(path.dirname(fileURLToPath(import.meta.url)), "print-gpu-probe.ts");
const NO_DRIVER = "/nonexistent/cuda-ts-no-driver-here";

function runProbe(require: string | undefined): { status: number | null; stdout: string; stderr: string } {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== "CUDA_TS_REQUIRE_GPU") env[k] = v;
  env.CUDA_TS_CUDA_PATH = NO_DRIVER;
  if (require !== undefined) env.CUDA_TS_REQUIRE_GPU = require;
  const cmd = runtimeCommand(script);
  const r = spawnSync(cmd[0]!, cmd.slice(1), { env, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("the GPU probe without a driver", () => {
  it("skips, naming the cause, when CUDA_TS_REQUIRE_GPU is unset", () => {
    const r = runProbe(undefined);
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as { available: boolean; reason: string };
    expect(result.available).toBe(false);
    expect(result.reason).toMatch(/^no usable CUDA driver \(LibraryNotFoundError: /);
    expect(result.reason).toContain("libcuda.so.1");
  });

  it("skips when CUDA_TS_REQUIRE_GPU=0", () => {
    const r = runProbe("0");
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split("\n").at(-1)!)).toMatchObject({ available: false });
  });

  it("fails with GpuRequiredError naming the cause when CUDA_TS_REQUIRE_GPU=1", () => {
    const r = runProbe("1");
    expect(r.status).not.toBe(0);
    expect(r.stdout).not.toContain('"available"');
    expect(r.stderr).toContain("GpuRequiredError");
    expect(r.stderr).toContain("CUDA_TS_REQUIRE_GPU=1 but the GPU tests cannot run: no usable CUDA driver (LibraryNotFoundError: ");
    expect(r.stderr).toContain("libcuda.so.1");
  });
});

describe("requireGpu", () => {
  it("passes an available probe through whether or not a GPU is required", () => {
    const ok = { available: true, reason: "" };
    expect(requireGpu(ok, true)).toBe(ok);
    expect(requireGpu(ok, false)).toBe(ok);
  });

  it("throws GpuRequiredError with the probe's reason only when a GPU is required", () => {
    const none = { available: false, reason: "no CUDA device" };
    expect(requireGpu(none, false)).toBe(none);
    expect(() => requireGpu(none, true)).toThrow(GpuRequiredError);
    expect(() => requireGpu(none, true)).toThrow("CUDA_TS_REQUIRE_GPU=1 but the GPU tests cannot run: no CUDA device");
  });

  it("reads the switch: unset, empty, 0 and false mean off; anything else on", () => {
    for (const v of [undefined, "", "0", "false", "FALSE"]) expect(gpuRequired(v)).toBe(false);
    for (const v of ["1", "yes", "true"]) expect(gpuRequired(v)).toBe(true);
  });
});
