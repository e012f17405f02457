/**
 * The CUDA 12.4 math libraries on a CUDA 13 machine, on a GPU: with CUDA_TS_CUDA12_LIBS naming a folder that holds
 * Debian's libcurand.so.10 (and any of libcufft.so.11, libcublas.so.12 with libcublasLt.so.12, libcusolver.so.11,
 * libcusparse.so.12 with libnvJitLink.so.12: `scripts/fetch-cuda12.sh math`, carried with `pack-math`), a child
 * process pinned to CUDA 12 (CUDA_TS_CUDA_MAJOR=12, the folder on LD_LIBRARY_PATH) runs the object layer, unchanged,
 * on each library the folder has: the bindings choose the 12.4 tables, and the results are right. cuBLAS 12.4 refuses
 * an emulated math mode with a FunctionVersionError.
 *
 * Run on the GPU machine: CUDA_TS_CUDA12_LIBS=$PWD/.cache/cuda-12.4/lib npm run test:gpu:bun (and :deno).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";
import { gpu, skipNote } from "../support/gpu.ts";
import { runtimeCommand } from "../support/runtime.ts";
import { overrideVariable } from "../../src/pathfinder/index.ts";

const root = path.resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const libs = process.env.CUDA_TS_CUDA12_LIBS === undefined ? undefined : path.resolve(process.env.CUDA_TS_CUDA12_LIBS);
const has = (f: string): boolean => libs !== undefined && fs.existsSync(path.join(libs, f));
const missing = libs === undefined
  ? "CUDA_TS_CUDA12_LIBS is not set (a folder with Debian's CUDA 12.4 math libraries: scripts/fetch-cuda12.sh math)"
  : has("libcurand.so.10") ? undefined : `${libs} has no libcurand.so.10`;
const skip = !gpu.available ? skipNote : missing !== undefined ? ` [skipped: ${missing}]` : "";

/** The libraries the folder has, each with the files it needs. */
const present = [
  ["curand", ["libcurand.so.10"]],
  ["cufft", ["libcufft.so.11"]],
  ["cublas", ["libcublas.so.12", "libcublasLt.so.12"]],
  ["cusparse", ["libcusparse.so.12", "libnvJitLink.so.12"]],
  ["cusolver", ["libcusolver.so.11", "libcublas.so.12", "libcublasLt.so.12", "libcusparse.so.12", "libnvJitLink.so.12"]],
].filter(([, files]) => (files as string[]).every(has)).map(([name]) => name as string);

describe.skipIf(!gpu.available || missing !== undefined)(`CUDA 12.4 math libraries through the 12.4 tables${skip}`, () => {
  it(`the object layer, unchanged, on ${present.join(", ")}`, () => {
    const cmd = runtimeCommand(path.join(root, "test/fixtures/versions/math12-gpu-probe.ts"), ["--allow-ffi", "--allow-env", "--allow-read"], present);
    const env = {
      ...process.env,
      CUDA_TS_CUDA_MAJOR: "12",
      CUDA_TS_DISABLE_VERSION_WARNING: "1",
      LD_LIBRARY_PATH: [libs!, process.env.LD_LIBRARY_PATH].filter(Boolean).join(":"),
      // cuRAND (libcurand.so.10) and cuSPARSE (libcusparse.so.12) keep one soname across CUDA 12 and 13: the major pin
      // cannot tell them apart, and a toolkit root (CUDA_PATH, /usr/local/cuda) is searched before LD_LIBRARY_PATH.
      // Each library present is named by its own override.
      ...Object.fromEntries(["curand", "cufft", "cublas", "cublasLt", "cusparse", "cusolver", "nvJitLink"].filter((n) => fs.readdirSync(libs!).some((f) => f.toLowerCase().startsWith(`lib${n.toLowerCase()}.so.`))).map((n) => [overrideVariable(n), libs!])),
    };
    const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", env, timeout: 300_000 });
    console.log(`cuda12 math probe (${path.basename(cmd[0]!)}): ${r.stdout}${r.stderr}`);
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const out = JSON.parse(r.stdout.trim().split("\n").pop()!) as Record<string, Record<string, unknown>>;
    for (const name of present) {
      expect(out[name]!.table, name).toBe("12.4");
      expect(String(out[name]!.path), name).toContain(libs!);
    }
    expect(out.curand!.outside).toBe(0);
    expect(Math.abs((out.curand!.mean as number) - 0.5)).toBeLessThan(0.01);
    if (out.cufft) expect(out.cufft.wrong).toBe(0);
    if (out.cublas) {
      expect(out.cublas.wrong).toBe(0);
      expect((out.cublas.lt as Record<string, unknown>).table).toBe("12.4");
      expect(out.cublas.emulated).toBe("FunctionVersionError");
    }
    if (out.cusolver) expect(out.cusolver.error as number).toBeLessThan(1e-9);
    if (out.cusparse) expect(out.cusparse.y).toEqual([3, 3]);
  });
});
