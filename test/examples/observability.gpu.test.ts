/**
 * The observability examples on the GPU, with this runtime:
 * - nvtx_ranges.ts alone (no tool: NVTX calls are no-ops; the GPU results are checked);
 * - nvtx_ranges.ts under the gcc-built fake NVTX tool (test/fixtures/nvtx), loaded through NVTX_INJECTION64_PATH as
 *   Nsight Systems would be: the ranges, marks, domain, categories and named objects must reach it;
 * - nvtx_ranges.ts under Nsight Systems (`nsys profile`, then `nsys stats --report nvtx_sum`) where nsys is
 *   installed; the H200 machine has none, and the case skips saying so;
 * - kernel_timings.ts: CUPTI's kernel durations within max(50 µs, 5 %) of CUDA events around the same kernels.
 * Skips where there is no GPU.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { gpu, skipNote } from "../support/gpu.ts";
import { runExample, runtimeCommand } from "../support/runtime.ts";
import { buildFakeTools, gccReason } from "../nvtx/fixture.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const nsys = spawnSync("nsys", ["--version"], { encoding: "utf8" }).status === 0;

function run(cmd: string[], env: Record<string, string> = {}) {
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", env: { ...process.env, ...env }, timeout: 240_000, maxBuffer: 64 * 2 ** 20 });
  return { status: r.status, stdout: r.stdout ?? "", stderr: `${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

describe.skipIf(!gpu.available)(`examples: NVTX and kernel timings${skipNote}`, () => {
  it("nvtx_ranges.ts checks its results with no tool attached", () => {
    const r = runExample("nvtx_ranges.ts");
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^nvtx_ranges: 5 steps with ranges, marks, a domain and a capture range on .+; no NVTX tool attached .* OK$/m);
  });

  it.skipIf(gccReason !== undefined)(`nvtx_ranges.ts under the fake NVTX tool: every range, mark and name reaches it${gccReason ? ` [skipped: ${gccReason}]` : ""}`, () => {
    const tools = buildFakeTools();
    const log = join(tools.dir, "nvtx.log");
    const r = run(runtimeCommand(join(root, "examples/nvtx_ranges.ts")), { NVTX_INJECTION64_PATH: tools.tool, FAKE_NVTX_LOG_FILE: log });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/NVTX tool attached \(.*libfake-nvtx\.so\) OK$/m);
    const lines = readFileSync(log, "utf8").split("\n");
    const count = (re: RegExp) => lines.filter((l) => re.test(l)).length;
    expect(count(/^pushEx d=- v=3 s=48 cat=1 ct=1 col=ff76b900 pt=2 p=\d mt=1 msg=step$/)).toBe(5);
    expect(count(/^pushEx d=- .* cat=2 ct=1 col=ff0000ff pt=2 p=4194304 mt=1 msg=upload$/)).toBe(5);
    expect(count(/^markEx d=- .* pt=4 p=\d mt=1 msg=launched$/)).toBe(5);
    expect(count(/^startEx d=nvtx_ranges example .* mt=3 msg=reg:await results$/)).toBe(5);
    expect(count(/^end d=nvtx_ranges example id=\d+$/)).toBe(5);
    expect(count(/^pop$/)).toBe(5 * 3 + 1); // step, upload, download per step; compile once
    expect(lines).toContain("nameCategory d=- cat=1 name=compute");
    expect(lines).toContain("nameCuStream main stream nonnull=1");
    expect(lines.some((l) => /^nameCuDevice 0 /.test(l))).toBe(true);
    expect(lines).toContain("initialize reserved=(nil)");
  });

  it.skipIf(!nsys)(`nvtx_ranges.ts under nsys profile: the ranges are in nsys stats' NVTX summary${nsys ? "" : " [skipped: nsys is not installed on this machine]"}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-nsys-"));
    const report = join(dir, "report");
    const p = run(["nsys", "profile", "-t", "nvtx,cuda", "-o", report, "--force-overwrite", "true", ...runtimeCommand(join(root, "examples/nvtx_ranges.ts"))]);
    expect(p.status, `${p.stdout}\n${p.stderr}`).toBe(0);
    expect(p.stdout).toMatch(/NVTX tool attached/);
    expect(existsSync(`${report}.nsys-rep`)).toBe(true);
    const s = run(["nsys", "stats", "--report", "nvtx_sum", "--format", "csv", `${report}.nsys-rep`]);
    expect(s.status, s.stderr).toBe(0);
    for (const name of ["step", "upload", "download", "compile"]) expect(s.stdout).toContain(name);
  });

  const isBun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";
  it.skipIf(isBun)(`kernel_timings.ts: CUPTI's durations agree with CUDA events${isBun ? " [skipped on Bun: profile() is refused there (CUPTI calls back from its own thread; it hung Bun on the H200)]" : ""}`, () => {
    const r = runExample("kernel_timings.ts");
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^kernel_timings: 5 kernels, \d+ memcpys, \d+ memsets? timed by CUPTI on .+; spin kernels within [\d.]+ µs of event timings OK$/m);
  });
});
