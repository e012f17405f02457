/**
 * How the driver binding opens libcuda (src/bindings/driver-library.ts), with a fake libcuda.so.1 (the benchmarks'
 * mock, bench/fixtures/mock-cuda.c, built with gcc) on `LD_LIBRARY_PATH` of a child process: by its soname through
 * the system loader where that is the pathfinder's answer (without loading the pathfinder), and through the
 * pathfinder where something could make its answer differ (an override, a relative `LD_LIBRARY_PATH` entry, the
 * script's own pathfinder options, Deno without read permission). Skips where gcc is missing.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const isBun = (globalThis as { Bun?: unknown }).Bun !== undefined;
const self = isBun ? process.execPath : (globalThis as unknown as { Deno: { execPath(): string } }).Deno.execPath();
const gcc = ["/usr/bin/gcc", "/usr/local/bin/gcc"].find((p) => existsSync(p));

interface Opened {
  path: string;
  foundVia: string;
  soname?: string;
  version: number;
  pathfinderLoaded: boolean;
}

describe.runIf(gcc !== undefined)("the driver binding opens libcuda", () => {
  const dir = mkdtempSync(join(tmpdir(), "cuda-ts-driver-library-"));
  const libDir = join(dir, "lib");
  mkdirSync(libDir);
  const build = gcc === undefined ? undefined : spawnSync(gcc, ["-shared", "-fPIC", "-O2", "-Wl,-soname,libcuda.so.1", "-o", join(libDir, "libcuda.so.1"), join(root, "bench/fixtures/mock-cuda.c"), "-ldl"], { encoding: "utf8" });
  const script = join(dir, "open.ts");
  writeFileSync(
    script,
    `import { driver } from ${JSON.stringify(join(root, "src/bindings/driver.ts"))};\n` +
      `import { loadedDeferredModules } from ${JSON.stringify(join(root, "src/deferred.ts"))};\n` +
      `import { setDefaultPathfinderOptions } from ${JSON.stringify(join(root, "src/pathfinder/default.ts"))};\n` +
      `import { ffi } from ${JSON.stringify(join(root, "src/ffi/index.ts"))};\n` +
      `const args: string[] = (globalThis as { Deno?: { args: string[] } }).Deno?.args ?? process.argv;\n` +
      `if (args.includes("--own-options")) setDefaultPathfinderOptions({});\n` +
      `const preload = args.find((a) => a.startsWith("--preload="));\n` +
      `if (preload !== undefined) ffi.openLibrary(preload.slice("--preload=".length));\n` +
      `const lib = driver.load();\n` +
      `console.log(JSON.stringify({ path: lib.path, foundVia: lib.foundVia, soname: lib.soname, version: driver.cuDriverGetVersion(), pathfinderLoaded: loadedDeferredModules().includes("pathfinder") }));\n`,
  );

  function open(env: Record<string, string>, args: string[] = [], permissions = ["--allow-all"]): Opened {
    expect(build?.status, `${build?.stdout}${build?.stderr}`).toBe(0);
    const cmd = isBun ? [script, ...args] : ["run", ...permissions, script, ...args];
    const r = spawnSync(self, cmd, { cwd: root, encoding: "utf8", env: { ...process.env, CUDA_TS_TABLES: "newest", CUDA_TS_CUDA_PATH: "", ...env } });
    const line = `${r.stdout}`.split("\n").find((l) => l.startsWith("{"));
    expect(line, `${r.stdout}${r.stderr}`).toBeDefined();
    return JSON.parse(line!) as Opened;
  }

  it("by its soname through the system loader, saying where it is mapped from", () => {
    const got = open({ LD_LIBRARY_PATH: libDir });
    expect(got).toMatchObject({ path: join(libDir, "libcuda.so.1"), foundVia: "system-search", soname: "libcuda.so.1", version: 13000 });
    // On Bun (the pathfinder loads on first use there) opening the driver no longer loads it.
    if (isBun) expect(got.pathfinderLoaded).toBe(false);
  });

  it("as already loaded when the process had it mapped (the mapped file's path)", () => {
    const file = join(libDir, "libcuda.so.1");
    const got = open({ LD_LIBRARY_PATH: "/nonexistent" }, [`--preload=${file}`]);
    expect(got).toMatchObject({ path: file, foundVia: "already-loaded", soname: "libcuda.so.1", version: 13000 });
    if (isBun) expect(got.pathfinderLoaded).toBe(false);
  });

  it("through the pathfinder when an override names it", () => {
    const got = open({ LD_LIBRARY_PATH: "/nonexistent", CUDA_TS_CUDA_PATH: join(libDir, "libcuda.so.1") });
    expect(got).toMatchObject({ path: join(libDir, "libcuda.so.1"), foundVia: "override", version: 13000 });
    if (isBun) expect(got.pathfinderLoaded).toBe(true);
  });

  it("through the pathfinder when LD_LIBRARY_PATH has a relative entry (never searched from the current directory)", () => {
    const got = open({ LD_LIBRARY_PATH: `lib:${libDir}` });
    expect(got).toMatchObject({ path: join(libDir, "libcuda.so.1"), foundVia: "system-search", version: 13000 });
    if (isBun) expect(got.pathfinderLoaded).toBe(true);
  });

  it("through the pathfinder when the script gave it options of its own", () => {
    const got = open({ LD_LIBRARY_PATH: libDir }, ["--own-options"]);
    expect(got).toMatchObject({ foundVia: "system-search", version: 13000 });
    if (isBun) expect(got.pathfinderLoaded).toBe(true);
  });

  it.runIf(!isBun)("through the pathfinder under Deno without read permission (the file's path comes from dlinfo)", () => {
    const got = open({ LD_LIBRARY_PATH: libDir }, [], ["--allow-ffi", "--allow-env"]);
    expect(got).toMatchObject({ path: join(libDir, "libcuda.so.1"), foundVia: "system-search", version: 13000 });
  });
});
