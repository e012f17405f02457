/**
 * The one test file that touches this machine's real libraries: it loads libc, and libcudart.so.13 from
 * /usr/local/cuda when present, through the real dynamic loader (src/ffi/dl.ts). Skipped when dl.ts is not there.
 */
import * as fs from "node:fs";
import { describe, expect, it } from "vitest";
import { Pathfinder } from "../../src/pathfinder/pathfinder.ts";
import { systemLoader, systemLoaderProblem } from "../../src/pathfinder/system-loader.ts";

const dlPresent = fs.existsSync(new URL("../../src/ffi/dl.ts", import.meta.url));
const cudartPath = ["/usr/local/cuda/lib64/libcudart.so.13", "/usr/local/cuda/lib/libcudart.so.13"].find((p) => fs.existsSync(p));

describe.skipIf(!dlPresent)("real dynamic loader (skipped: src/ffi/dl.ts is not there)", () => {
  it("has the system loader available", () => {
    expect(systemLoaderProblem()).toBeUndefined();
  });

  it("loads libc by soname and sees it as already loaded", () => {
    const outcome = systemLoader.load("libc.so.6");
    expect(outcome.ok).toBe(true);
    if (outcome.ok) expect(outcome.path).toMatch(/^\/.*libc\.so\.6$/);
    expect(systemLoader.isLoaded("libc.so.6")?.path).toMatch(/libc\.so\.6$/);
  });

  it("reports a load failure with the loader's message", () => {
    const outcome = systemLoader.load("/nonexistent/libnothing.so.1");
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error).toMatch(/libnothing/);
  });

  it.skipIf(cudartPath === undefined)("loads /usr/local/cuda's libcudart.so.13 through the pathfinder (skipped: not installed)", () => {
    const pathfinder = new Pathfinder(
      { env: {}, defaultRoot: "/usr/local/cuda", ldSoCachePath: null, systemLibraryDirectories: [] },
      systemLoader,
    );
    const cudart = pathfinder.loadNvidiaLibrary("cudart");
    // The ld.so cache scan is disabled here, so the loader's own search (bare soname) or the default root finds it.
    expect(["system-search", "default-root", "already-loaded"]).toContain(cudart.foundVia);
    expect(fs.realpathSync(cudart.path)).toBe(fs.realpathSync(cudartPath as string));
    expect(cudart.handle).not.toBeNull();
    expect(systemLoader.isLoaded("libcudart.so.13")).not.toBeNull();
  });
});
