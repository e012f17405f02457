/**
 * Sticky faults, out-of-memory recovery, memory statistics and scope() against the mock libcuda
 * (bench/fixtures/mock-cuda.c, its MOCK_CUDA_* failure variables), each scenario in its own process
 * (test/fixtures/faults/mock-faults.ts): a fault ends CUDA for the process that saw it. Skips without gcc.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { isBun, runtimeCommand } from "../../support/runtime.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../../..");
const gcc = ["/usr/bin/gcc", "/usr/local/bin/gcc"].find((p) => existsSync(p));
const script = join(root, "test/fixtures/faults/mock-faults.ts");

let mockLibrary: string | undefined;
function mock(): string {
  if (mockLibrary !== undefined) return mockLibrary;
  const dir = mkdtempSync(join(tmpdir(), "cuda-ts-mock-faults-"));
  const lib = join(dir, "libcuda.so.1");
  const r = spawnSync(gcc!, ["-shared", "-fPIC", "-O2", "-Wl,-soname,libcuda.so.1", "-o", lib, join(root, "bench/fixtures/mock-cuda.c"), "-ldl"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`gcc failed: ${r.stderr}`);
  return (mockLibrary = lib);
}

interface Seen {
  readonly name?: string;
  readonly message?: string;
  readonly code?: number;
  readonly functionName?: string;
  readonly isOriginal?: boolean;
  readonly originalFunction?: string;
  readonly ok?: boolean;
  readonly suppressed?: boolean;
  readonly report?: Record<string, unknown>;
}
type Result = Record<string, Seen & Record<string, unknown>> & Record<string, unknown>;

function spawnScenario(scenario: string, env: Record<string, string>, v8Flags: string[] = []): { result: Result; stderr: string } {
  const cmd = runtimeCommand(script, ["--allow-all", ...v8Flags], [scenario]);
  const r = spawnSync(cmd[0]!, cmd.slice(1), {
    cwd: root,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, CUDA_TS_CUDA_PATH: mock(), CUDA_TS_DEBUG: "", ...env },
  });
  const line = (r.stdout ?? "").trim().split("\n").pop() ?? "";
  if (r.status !== 0 || !line.startsWith("{")) throw new Error(`${scenario} exited ${r.status}: ${r.stdout}\n${r.stderr}`);
  return { result: JSON.parse(line) as Result, stderr: r.stderr ?? "" };
}

function run(scenario: string, env: Record<string, string>, v8Flags: string[] = []): Result {
  return spawnScenario(scenario, env, v8Flags).result;
}

function expectLaterFault(seen: Seen, fn: string, first: string): void {
  expect(seen.name).toBe("DeviceFaultError");
  expect(seen.functionName).toBe(fn);
  expect(seen.isOriginal).toBe(false);
  expect(seen.originalFunction).toBe(first);
  expect(seen.message).toContain(`${fn} was not called`);
}

describe.runIf(gcc !== undefined)("sticky faults (mock libcuda)", () => {
  it("an illegal address seen at sync() is one DeviceFaultError naming the launches, and every later call throws it without the driver", () => {
    const r = run("sync", { MOCK_CUDA_FAULT: "700" });
    expect(r.launch!.ok).toBe(true);
    const first = r.first!;
    expect(first.name).toBe("DeviceFaultError");
    expect(first.code).toBe(700);
    expect(first.isOriginal).toBe(true);
    expect(first.functionName).toBe("cuStreamSynchronize");
    expect(first.message).toContain("CUDA_ERROR_ILLEGAL_ADDRESS");
    expect(first.message).toContain("launches are asynchronous");
    expect(first.message).toContain("#1 k1 grid [2, 1, 1] block [128, 1, 1]");
    expect(first.message).toContain("CUDA can no longer be used in this process");
    expect(first.message).toContain("CUDA_TS_DEBUG=sync");
    expect(first.message).toContain("compute-sanitizer");
    // The mock lets these succeed: an error proves the driver was not called.
    expectLaterFault(r.allocate!, "cuMemAllocFromPoolAsync", "cuStreamSynchronize");
    expectLaterFault(r.createStream!, "cuStreamCreateWithPriority", "cuStreamSynchronize");
    expectLaterFault(r.memoryInfo!, "cuMemGetInfo", "cuStreamSynchronize");
    expectLaterFault(r.relaunch!, "cuLaunchKernel (k1)", "cuStreamSynchronize");
    expect(r.laterAwait!.name).toBe("DeviceFaultError");
    expect(r.closeBuffer!.ok).toBe(true);
    expect(r.closeStream!.ok).toBe(true);
    const fault = r.fault as unknown as { code: number; codeName: string; deviceId: number; launches: { kernel: string }[] };
    expect(fault.code).toBe(700);
    expect(fault.codeName).toBe("CUDA_ERROR_ILLEGAL_ADDRESS");
    expect(fault.deviceId).toBe(0);
    expect(fault.launches.map((l) => l.kernel)).toEqual(["k1"]);
    expect((r.stats as unknown as { liveObjects: number }).liveObjects).toBe(0);
  });

  it("a misaligned address seen at await is the same fault", () => {
    const r = run("await", { MOCK_CUDA_FAULT: "716" });
    expect(r.first!.name).toBe("DeviceFaultError");
    expect(r.first!.code).toBe(716);
    expect(r.first!.message).toContain("CUDA_ERROR_MISALIGNED_ADDRESS");
    expectLaterFault(r.allocate!, "cuMemAllocFromPoolAsync", "Stream.done");
    expect(r.closeBuffer!.ok).toBe(true);
  });

  it("under CUDA_TS_DEBUG=sync the launch itself throws, naming its own line of the script", () => {
    const r = run("debug-sync", { MOCK_CUDA_FAULT: "719", CUDA_TS_DEBUG: "sync" });
    expect(r.launch!.name).toBe("DeviceFaultError");
    expect(r.launch!.message).toContain("CUDA_ERROR_LAUNCH_FAILED");
    expect(r.launch!.message).toContain("the newest launch below faulted");
    expect(r.launch!.message).toContain("mock-faults.ts:");
    expect((r.fault as unknown as { syncEachLaunch: boolean }).syncEachLaunch).toBe(true);
  });

  it("a device-side assert inside `using` reaches the catch as itself, not as a SuppressedError", () => {
    const r = run("using", { MOCK_CUDA_FAULT: "710" });
    expect(r.caught!.name).toBe("DeviceFaultError");
    expect(r.caught!.code).toBe(710);
    expect(r.caught!.suppressed).toBeUndefined();
  });
});

describe.runIf(gcc !== undefined)("out of memory and memory statistics (mock libcuda)", () => {
  it("an impossible allocation is an OutOfMemoryError with the figures and advice, and the device stays usable", () => {
    const r = run("oom", { MOCK_CUDA_ALLOC_LIMIT: String(2 ** 30) });
    const big = r.big!;
    expect(big.name).toBe("OutOfMemoryError");
    expect(big.message).toContain("allocating 2.00 GiB on device 0");
    expect(big.message).toContain("1.00 GiB free of 141.00 GiB");
    expect(big.message).toContain("close()");
    expect(big.message).toContain("scope(");
    expect(big.message).toContain("trimTo(0)");
    expect(big.message).toContain("smaller batches");
    expect(big.report!.requestedBytes).toBe(2 ** 31);
    expect(r.smallOk).toBe(true);
    expect(r.fault).toBeNull();
    expect((r.stats as unknown as { outOfMemoryErrors: number }).outOfMemoryErrors).toBe(1);
  });

  const gcFlags = isBun ? [] : ["--v8-flags=--expose-gc"];
  it("dropped arrays are collected on out-of-memory, counted as leaks and as saves", () => {
    const r = run("drop", { MOCK_CUDA_ALLOC_BUDGET: String(8 * 2 ** 20) }, gcFlags);
    expect(r.error).toBeUndefined();
    expect(r.made).toBe(64);
    const stats = r.stats as unknown as { savedByCollection: number; freedByFinalizer: number; peakBytesInUse: number; allocations: number };
    expect(stats.savedByCollection).toBeGreaterThan(0);
    expect(stats.freedByFinalizer).toBeGreaterThan(0);
    expect(stats.peakBytesInUse).toBeLessThanOrEqual(8 * 2 ** 20);
    expect(stats.allocations).toBe(64);
  });

  it.runIf(!isBun)("on Deno without --expose-gc the error says how to enable the collection", () => {
    const r = run("drop", { MOCK_CUDA_ALLOC_BUDGET: String(8 * 2 ** 20) });
    expect(r.error!.name).toBe("OutOfMemoryError");
    expect(r.error!.message).toContain("--v8-flags=--expose-gc");
  });
});

describe.runIf(gcc !== undefined)("CUDA_TS_DEBUG=leaks (mock libcuda)", () => {
  it("prints the largest sources of live allocations at exit, with the script's line", () => {
    const { result, stderr } = spawnScenario("leaks", { CUDA_TS_DEBUG: "leaks" });
    expect((result.stats as unknown as { liveObjects: number }).liveObjects).toBe(4);
    expect(stderr).toContain("CUDA_TS_DEBUG=leaks: live device memory at exit");
    expect(stderr).toMatch(/12288 bytes in 3 allocations on device 0, made at .*mock-faults\.ts:\d+/);
    expect(stderr).toMatch(/1024 bytes in 1 allocation on device 0, made at .*mock-faults\.ts:\d+/);
    expect(stderr.indexOf("12288 bytes")).toBeLessThan(stderr.indexOf("1024 bytes"));
  });

  it("prints nothing without it", () => {
    expect(spawnScenario("leaks", {}).stderr).not.toContain("CUDA_TS_DEBUG=leaks");
  });
});

describe.runIf(gcc !== undefined)("scope() (mock libcuda)", () => {
  it("closes what it made except what it returns or keeps, sync and async, and on a throw", () => {
    const r = run("scope", {});
    expect(r.innerClosed).toBe(true);
    expect(r.keptOpen).toBe(true);
    expect(r.returnedOpen).toBe(true);
    expect(r.objectResultOpen).toBe(true);
    expect(r.outsideOpen).toBe(true);
    expect(r.useClosed!.name).toBe("ScopeClosedError");
    expect(r.useClosed!.message).toContain("keep(x)");
    expect(r.rethrown).toBe("RangeError");
    expect(r.thrownClosed).toBe(true);
    expect(r.asyncInnerClosed).toBe(true);
    expect(r.asyncKeptOpen).toBe(true);
    expect(r.nestedInnerOpenInOuter).toBe(true);
  });
});
