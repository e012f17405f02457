/**
 * Kernel faults, out-of-memory, dropped arrays and Ctrl-C on a real GPU, each scenario in its own process
 * (test/fixtures/faults/gpu-faults.ts): an illegal address, a `__trap()` and a failed device `assert`, each seen at
 * `sync()` and at `await`, are one DeviceFaultError naming the launches; every later call throws it again without a
 * false error; closing releases nothing and throws nothing; a fault inside `using` reaches the catch as itself;
 * `CUDA_TS_DEBUG=sync` names the launch's own line and flushes `printf` first; errors that do not ruin the context
 * leave it usable; out-of-memory is a typed error with its figures, and recovery works; dropped arrays worth 1.25x
 * the card pass (Deno with --expose-gc); SIGINT during a synchronous or awaited wait ends the process at once.
 * Skips cleanly where there is no GPU.
 */
import { spawn, spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { gpu, skipNote } from "../../support/gpu.ts";
import { isBun, runtimeCommand } from "../../support/runtime.ts";

// Each test starts a process that compiles kernels; the out-of-memory ones fill the card: more than the default minute.
vi.setConfig({ testTimeout: 300_000 });

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../../..");
const script = resolve(root, "test/fixtures/faults/gpu-faults.ts");

interface Seen {
  readonly ok?: boolean;
  readonly name?: string;
  readonly message?: string;
  readonly code?: number;
  readonly codeName?: string;
  readonly functionName?: string;
  readonly isOriginal?: boolean;
  readonly originalFunction?: string;
  readonly suppressed?: boolean;
  readonly report?: { requestedBytes: number; freeBytes?: number; totalBytes?: number };
}
type Result = Record<string, unknown> & { [key: string]: Seen | unknown };

function run(scenario: string, env: Record<string, string> = {}, v8Flags: string[] = []): { result: Result; stdout: string; stderr: string; status: number | null } {
  const cmd = runtimeCommand(script, ["--allow-all", ...v8Flags], [scenario]);
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", timeout: 300_000, maxBuffer: 64 * 2 ** 20, env: { ...process.env, CUDA_TS_DEBUG: "", ...env } });
  const stdout = r.stdout ?? "";
  const line = stdout.trim().split("\n").pop() ?? "";
  if (!line.startsWith("{")) throw new Error(`${scenario} exited ${r.status} without a result:\n${stdout}\n${r.stderr}`);
  return { result: JSON.parse(line) as Result, stdout, stderr: r.stderr ?? "", status: r.status };
}

const seen = (r: Result, key: string): Seen => r[key] as Seen;

const FAULTS = [
  { kind: "illegal", codeName: "CUDA_ERROR_ILLEGAL_ADDRESS" },
  { kind: "trap", codeName: "CUDA_ERROR_LAUNCH_FAILED" },
  { kind: "assert", codeName: "CUDA_ERROR_ASSERT" },
] as const;

describe.skipIf(!gpu.available)(`kernel faults on a GPU${skipNote}`, () => {
  for (const { kind, codeName } of FAULTS) {
    for (const at of ["sync", "await"] as const) {
      it(`${kind} seen at ${at}: one DeviceFaultError, later calls throw it, disposal is quiet`, () => {
        const { result: r, status } = run(`${kind}-${at}`);
        expect(status).toBe(0);
        const first = seen(r, "first");
        expect(first.name, first.message).toBe("DeviceFaultError");
        expect(first.codeName).toBe(codeName);
        expect(first.isOriginal).toBe(true);
        expect(first.message).toContain("launches are asynchronous");
        expect(first.message).toMatch(/#\d+ (illegal|trap|fails_assert) grid \[1, 1, 1\] block \[1, 1, 1\]/);
        expect(first.message).toContain("#1 fill grid [1, 1, 1] block [256, 1, 1]");
        expect(first.message).toContain("CUDA can no longer be used in this process");
        expect(first.message).toContain("compute-sanitizer");
        const fault = r.fault as { codeName: string; deviceId: number; launches: { kernel: string }[] };
        expect(fault.codeName).toBe(codeName);
        expect(fault.deviceId).toBe(0);
        expect(fault.launches.length).toBe(2);
        for (const key of ["allocate", "memoryInfo", "createStream", "relaunch", "laterSync", "laterAwait"]) {
          const later = seen(r, key);
          expect(later.name, `${key}: ${later.message}`).toBe("DeviceFaultError");
          expect(later.isOriginal).toBe(false);
          expect(later.originalFunction).toBe(first.functionName);
        }
        expect(seen(r, "closeBuffer").ok).toBe(true);
        expect(seen(r, "closeStream").ok).toBe(true);
      });
    }
  }

  it("a fault inside `using` reaches the catch as itself", () => {
    const { result: r } = run("using");
    const caught = seen(r, "caught");
    expect(caught.name, caught.message).toBe("DeviceFaultError");
    expect(caught.codeName).toBe("CUDA_ERROR_ILLEGAL_ADDRESS");
    expect(caught.suppressed).toBeUndefined();
  });

  it("CUDA_TS_DEBUG=sync: the faulting launch throws, naming its line; printf comes out", () => {
    const { result: r, stdout } = run("debug-sync", { CUDA_TS_DEBUG: "sync" });
    const launch = seen(r, "launch");
    expect(launch.name).toBe("DeviceFaultError");
    expect(launch.message).toContain("the newest launch below faulted");
    expect(launch.message).toContain("gpu-faults.ts:");
    // The launch's wait flushed the kernel's printf (the driver's C stdio may hold it until exit through a pipe).
    expect(stdout).toContain("device says 42");
  });

  it("a script without a fault exits cleanly", () => {
    const { result: r, status, stdout } = run("clean");
    expect(status).toBe(0);
    expect(r.fault).toBeNull();
    expect(stdout).toContain("device says 7");
  });

  it("an invalid value, a failed compile and an out-of-memory leave the device usable", () => {
    const { result: r } = run("usable");
    expect(seen(r, "refused").name).toBe("RangeError");
    expect(seen(r, "invalidValue").codeName).toBe("CUDA_ERROR_INVALID_VALUE");
    expect(seen(r, "compile").ok).toBeUndefined();
    expect(seen(r, "oom").name).toBe("OutOfMemoryError");
    expect(r.afterwards).toEqual({ ok: true, fault: null });
  });
});

describe.skipIf(!gpu.available)(`out of memory on a GPU${skipNote}`, () => {
  it("one impossible allocation: OutOfMemoryError with the size, free and total memory and advice; then allocations work", () => {
    const { result: r } = run("oom-impossible");
    const e = seen(r, "error");
    expect(e.name, e.message).toBe("OutOfMemoryError");
    expect(e.codeName).toBe("CUDA_ERROR_OUT_OF_MEMORY");
    expect(e.message).toContain("allocating 1024.00 GiB on device 0");
    expect(e.message).toMatch(/free of \d+\.\d\d GiB/);
    expect(e.message).toContain("close()");
    expect(e.report!.requestedBytes).toBe(1024 * 2 ** 30);
    expect(e.report!.totalBytes).toBeGreaterThan(0);
    expect(seen(r, "after").ok).toBe(true);
  });

  it("a pool's limit: OutOfMemoryError, then the pool allocates again", () => {
    const { result: r } = run("oom-pool");
    expect(seen(r, "error").name, seen(r, "error").message).toBe("OutOfMemoryError");
    expect(seen(r, "after").ok).toBe(true);
  });

  it("exhaustion in 4 GiB steps, then recovery after closing", () => {
    const { result: r } = run("oom-steps");
    const e = seen(r, "error");
    expect(e.name, e.message).toBe("OutOfMemoryError");
    expect(e.message).toMatch(/hold \d+\.\d\d GiB in \d+ objects/);
    expect(r.steps as number).toBeGreaterThan(0);
    expect(r.freeAfterGiB as number).toBeGreaterThan((r.totalGiB as number) * 0.9);
    expect(seen(r, "recovered").ok).toBe(true);
  });

  it(`dropped arrays worth 1.25x the card pass${isBun ? "" : " (Deno with --expose-gc)"}`, () => {
    const { result: r } = run("drop", {}, isBun ? [] : ["--v8-flags=--expose-gc"]);
    expect(r.error, JSON.stringify(r.error)).toBeUndefined();
    expect(r.made).toBe(r.count);
    const stats = r.stats as { freedByFinalizer: number; allocations: number };
    expect(stats.freedByFinalizer).toBeGreaterThan(0);
    expect(stats.allocations).toBe(r.count);
  });
});

/** Starts `scenario`, sends SIGINT once it printed READY, and resolves with how it ended and how long that took. */
function interrupt(scenario: string): Promise<{ code: number | null; signal: string | null; afterSignalMs: number }> {
  const cmd = runtimeCommand(script, ["--allow-all"], [scenario]);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd[0]!, cmd.slice(1), { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let sentAt = 0;
    let out = "";
    const killer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.stdout!.on("data", (d: unknown) => {
      out += String(d);
      if (sentAt === 0 && out.includes("READY")) {
        // Give the wait a moment to start blocking (sync) or polling (await).
        setTimeout(() => {
          sentAt = performance.now();
          child.kill("SIGINT");
        }, 500);
      }
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(killer);
      resolvePromise({ code, signal, afterSignalMs: sentAt === 0 ? -1 : performance.now() - sentAt });
    });
  });
}

describe.skipIf(!gpu.available)(`Ctrl-C during a wait on a GPU${skipNote}`, () => {
  for (const wait of ["sync", "await"] as const) {
    it(`SIGINT during ${wait === "sync" ? "stream.sync()" : "await stream.done()"} ends the process at once (130)`, async () => {
      const r = await interrupt(`sigint-${wait}`);
      expect(r.afterSignalMs).toBeGreaterThanOrEqual(0);
      expect(r.code === 130 || r.signal === "SIGINT", `exit ${r.code}, signal ${r.signal}`).toBe(true);
      // The kernel spins for about a minute: ending well before it means the wait did not hold the process.
      expect(r.afterSignalMs).toBeLessThan(10_000);
    });
  }
});
