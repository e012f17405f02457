/**
 * The memory kind of imported pointers as the driver reports it (cuPointerGetAttribute), against the mock libcuda
 * (bench/fixtures/mock-cuda.c: pinned, managed, device 0, device 1 and unknown memory by address range), in a process
 * of its own (test/fixtures/interop/mock-interop.ts). Skips without gcc.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { runtimeCommand } from "../../support/runtime.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../../..");
const gcc = ["/usr/bin/gcc", "/usr/local/bin/gcc"].find((p) => existsSync(p));

function run(): Record<string, Record<string, unknown> | null> {
  const dir = mkdtempSync(join(tmpdir(), "cuda-ts-mock-interop-"));
  const lib = join(dir, "libcuda.so.1");
  const c = spawnSync(gcc!, ["-shared", "-fPIC", "-O2", "-Wl,-soname,libcuda.so.1", "-o", lib, join(root, "bench/fixtures/mock-cuda.c"), "-ldl"], { encoding: "utf8" });
  if (c.status !== 0) throw new Error(`gcc failed: ${c.stderr}`);
  const cmd = runtimeCommand(join(root, "test/fixtures/interop/mock-interop.ts"), ["--allow-all"]);
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", timeout: 120_000, env: { ...process.env, CUDA_TS_CUDA_PATH: lib, CUDA_TS_DEBUG: "" } });
  const line = (r.stdout ?? "").trim().split("\n").pop() ?? "";
  if (r.status !== 0 || !line.startsWith("{")) throw new Error(`mock-interop exited ${r.status}: ${r.stdout}\n${r.stderr}`);
  return JSON.parse(line) as Record<string, Record<string, unknown> | null>;
}

describe.skipIf(gcc === undefined)("memory kinds from the driver (mock libcuda)", () => {
  it("finds device, pinned and managed memory, and refuses CPU memory the driver does not know", () => {
    const seen = run();
    expect(seen["attributes:device0"]).toEqual({ memoryType: "device", deviceId: 0 });
    expect(seen["attributes:device1"]).toEqual({ memoryType: "device", deviceId: 1 });
    expect(seen["attributes:pinned"]).toEqual({ memoryType: "pinned" });
    expect(seen["attributes:managed"]).toEqual({ memoryType: "managed" });
    expect(seen["attributes:unknown"]).toBeNull();
    // The CUDA Array Interface: the kind the driver reports; unknown memory counts as device memory.
    expect(seen["cai:device0"]).toEqual({ host: false, managed: false, deviceId: 0, dlpack: 2 });
    expect(seen["cai:device1"]).toEqual({ host: false, managed: false, deviceId: 1, dlpack: 2 });
    expect(seen["cai:pinned"]).toEqual({ host: true, managed: false, deviceId: null, dlpack: 3 });
    expect(seen["cai:managed"]).toEqual({ host: true, managed: true, deviceId: null, dlpack: 13 });
    // Memory the driver does not know: device memory whose device nobody can tell.
    expect(seen["cai:unknown"]).toEqual({ host: false, managed: false, deviceId: "CudaError", dlpack: "CudaError" });
    // kDLCPU: taken where the driver knows the memory as pinned or managed, refused otherwise.
    expect(seen["cpu:pinned"]).toEqual({ host: true, managed: false, deviceId: null, dlpack: 3 });
    expect(seen["cpu:managed"]).toEqual({ host: true, managed: true, deviceId: null, dlpack: 13 });
    expect(seen["cpu:device0"]).toMatchObject({ error: "ArrayLayoutError" });
    expect(seen["cpu:unknown"]).toMatchObject({ error: "ArrayLayoutError", message: expect.stringMatching(/kDLCPU/) });
  });
});
