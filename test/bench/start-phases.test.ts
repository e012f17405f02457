/**
 * bench/start-phases.ts runs through against the benchmarks' mock libcuda (bench/fixtures/mock-cuda.c: every call
 * succeeds at once), with C's `bench-c --startup-phases` built against it: one JSON line per case and phase, in
 * bench/README.md's format. The numbers mean nothing here. Skips where gcc or cuda.h (CUDA_HOME, /usr/local/cuda) is
 * missing.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const isBun = (globalThis as { Bun?: unknown }).Bun !== undefined;
const runtime = isBun ? "bun" : "deno";
const self = isBun ? process.execPath : (globalThis as unknown as { Deno: { execPath(): string } }).Deno.execPath();
const gcc = ["/usr/bin/gcc", "/usr/local/bin/gcc"].find((p) => existsSync(p));
const cudaInclude = [process.env.CUDA_HOME, "/usr/local/cuda"].map((d) => (d === undefined ? "" : join(d, "include"))).find((d) => d !== "" && existsSync(join(d, "cuda.h")));

describe.runIf(gcc !== undefined && cudaInclude !== undefined)("bench/start-phases.ts (needs gcc and the toolkit's cuda.h)", () => {
  it("times C, the empty start, the raw FFI and cuda-ts in interleaved processes, each with its phases", () => {
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-start-phases-"));
    mkdirSync(join(dir, "lib"));
    const lib = join(dir, "lib", "libcuda.so.1");
    const cc = (args: string[]): void => {
      const r = spawnSync(gcc!, args, { encoding: "utf8" });
      expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    };
    cc(["-shared", "-fPIC", "-O2", "-Wl,-soname,libcuda.so.1", "-o", lib, join(root, "bench/fixtures/mock-cuda.c"), "-ldl"]);
    cc(["-O2", "-std=gnu11", "-I", cudaInclude!, "-o", join(dir, "bench-c"), join(root, "bench/c/bench.c"), lib, "-ldl", "-lm"]);
    const args = [join(root, "bench/start-phases.ts"), "--bench-c", join(dir, "bench-c"), "--runs", "1", "--runtimes", runtime, "--src"];
    const r = spawnSync(self, isBun ? args : ["run", "-A", ...args], { cwd: root, encoding: "utf8", env: { ...process.env, LD_LIBRARY_PATH: join(dir, "lib"), CUDA_TS_TABLES: "newest" } });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { contender: string; measure: string; unit: string; value: number; reps: number });
    const measures = (contender: string): string[] => lines.filter((l) => l.contender === contender).map((l) => l.measure);
    expect(measures("c")).toEqual(["startup.phases.cuInit", "startup.phases.setCurrent", "startup.phases.wall"]);
    expect(measures(runtime)).toEqual(["startup.phases.sinceOrigin", "startup.phases.wall"]);
    expect(measures(`${runtime}-raw`)).toEqual(["sinceOrigin", "dlopen", "cuInit", "setCurrent", "wall"].map((p) => `startup.phases.${p}`));
    expect(measures(`${runtime}-src`)).toEqual(["sinceOrigin", "import", "driverLoad", "firstChecked", "cuInit", "setCurrent", "wall"].map((p) => `startup.phases.${p}`));
    for (const l of lines) expect(l).toMatchObject({ unit: "ms", reps: 1 });
    expect(r.stderr).toMatch(/\| c \| cuInit [\d.]+ \([\d.]+–[\d.]+\)/);
  });
});
