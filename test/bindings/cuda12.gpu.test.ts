/**
 * CUDA 12.4 libraries on a CUDA 13 machine, on a GPU: with CUDA_TS_CUDA12_LIBS naming a folder that
 * holds Debian's libcudart.so.12, libnvrtc.so.12 and libnvrtc-builtins.so.12.4 (`scripts/fetch-cuda12.sh libs`
 * leaves them in .cache/cuda-12.4/lib), a child process pinned to CUDA 12 (CUDA_TS_CUDA_MAJOR=12, the folder on
 * LD_LIBRARY_PATH, the driver's table pinned to 12.4) finds them through the pathfinder, compiles a kernel with
 * NVRTC 12.4, launches it (runtime 12.4 memory, driver 12.4 table), and reads cudaGetDeviceProperties through the
 * 12.4 layout, every field compared with the driver's attribute queries.
 *
 * Run on the GPU machine: CUDA_TS_CUDA12_LIBS=$PWD/.cache/cuda-12.4/lib npm run test:gpu:bun (and :deno).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { gpu, skipNote } from "../support/gpu.ts";
import { runtimeCommand } from "../support/runtime.ts";

const root = path.resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const libs = process.env.CUDA_TS_CUDA12_LIBS === undefined ? undefined : path.resolve(process.env.CUDA_TS_CUDA12_LIBS);
const missing = libs === undefined
  ? "CUDA_TS_CUDA12_LIBS is not set (a folder with Debian's libcudart.so.12 and libnvrtc.so.12: scripts/fetch-cuda12.sh libs)"
  : ["libcudart.so.12", "libnvrtc.so.12"].filter((f) => !fs.existsSync(path.join(libs, f))).map((f) => `${libs} has no ${f}`).join("; ") || undefined;
const skip = !gpu.available ? skipNote : missing !== undefined ? ` [skipped: ${missing}]` : "";

/** Runs test/fixtures/versions/probe.ts `mode` pinned to CUDA 12 with the folder on LD_LIBRARY_PATH; its JSON line. */
function probe(mode: string, extraEnv: Record<string, string>): unknown {
  const cmd = runtimeCommand(path.join(root, "test/fixtures/versions/probe.ts"), ["--allow-ffi", "--allow-env", "--allow-read"], [mode]);
  const env = {
    ...process.env,
    CUDA_TS_CUDA_MAJOR: "12",
    CUDA_TS_DISABLE_VERSION_WARNING: "1",
    LD_LIBRARY_PATH: [libs!, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":"),
    ...extraEnv,
  };
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", env, timeout: 240_000 });
  console.log(`cuda12 probe ${mode} (${path.basename(cmd[0]!)}): ${r.stdout}${r.stderr}`);
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout.trim().split("\n").pop()!);
}

describe.skipIf(!gpu.available || missing !== undefined)(`CUDA 12.4 libraries through the 12.4 tables${skip}`, () => {
  it("the object layer, unchanged, compiles with NVRTC 12.4 and launches", () => {
    const out = probe("core12", {}) as { nvrtc: { table: string; path: string }; launch: { n: number; wrong: number } };
    expect(out.nvrtc).toEqual({ table: "12.4", path: path.join(libs!, "libnvrtc.so.12") });
    expect(out.launch).toEqual({ n: 65536, wrong: 0 });
  });

  it("finds them, compiles and launches a kernel, and reads cudaDeviceProp through the 12.4 layout", () => {
    const out = probe("gpu12", { CUDA_TS_DRIVER_TABLE: "12.4" }) as {
      tables: Record<string, { version: string; reason: string }>;
      paths: Record<string, string>;
      launch: { n: number; wrong: number };
      fields: { field: string; runtime: string; driver: string }[];
      runtimeVersion: number;
      compiled: { option: string; bytes: number };
    };
    expect(out.runtimeVersion).toBe(12040);
    expect(out.tables.runtime!.version).toBe("12.4");
    expect(out.tables.nvrtc!.version).toBe("12.4");
    expect(out.tables.driver!.version).toBe("12.4");
    expect(out.paths.runtime).toBe(path.join(libs!, "libcudart.so.12"));
    expect(out.paths.nvrtc).toBe(path.join(libs!, "libnvrtc.so.12"));
    expect(out.compiled.bytes).toBeGreaterThan(0);
    expect(out.launch).toEqual({ n: 4096, wrong: 0 });
    expect(out.fields.length).toBe(21);
    for (const f of out.fields) expect(f.runtime, f.field).toBe(f.driver);
  });
});
