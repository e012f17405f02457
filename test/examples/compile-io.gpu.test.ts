/**
 * The compile and I/O examples run with this runtime, check their own results and exit 0 with their OK line:
 * compile_in_worker.ts (compileAsync in compile workers, four GPU Workers sharing the primary context) and
 * gds_read_write.ts with 1 GiB (written through cuFile, read back into device memory, every byte
 * compared on the GPU; the read bandwidth against read() into pinned memory plus a copy is printed). Skips where
 * there is no GPU (and the GDS example where there is no libcufile).
 */
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { tryFindNvidiaLibrary } from "../../src/pathfinder/index.ts";
import { gpu, skipNote } from "../support/gpu.ts";
import { runExample, runtimeCommand } from "../support/runtime.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const cufileFound = tryFindNvidiaLibrary("cufile") !== undefined;

describe.skipIf(!gpu.available)(`examples: compiling in workers, GPUDirect Storage${skipNote}`, () => {
  it("compile_in_worker.ts compiles in workers, runs GPU workers in the primary context, and exits 0", () => {
    const r = runExample("compile_in_worker.ts");
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^compile_in_worker: 3 kernels compiled in workers \(timers ran meanwhile\) and 8 jobs on 4 GPU workers sharing the primary context on .+ OK$/m);
  });

  it.skipIf(!cufileFound)(`gds_read_write.ts writes and reads back 1 GiB through cuFile and exits 0${cufileFound ? "" : " [skipped: libcufile not found]"}`, (ctx) => {
    const cmd = runtimeCommand(join(root, "examples", "gds_read_write.ts"), ["--allow-ffi", "--allow-env", "--allow-read", "--allow-write"], ["1024"]);
    const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", timeout: 500_000, maxBuffer: 64 * 2 ** 20 });
    const out = `${r.stdout ?? ""}\n${r.stderr ?? ""}${r.error ? String(r.error) : ""}`;
    expect(r.status, out).toBe(0);
    expect(r.stdout).toMatch(/^GPUDirect Storage: (gds|compat) mode/m);
    // Where cuFile registers no file (no udev attributes of the volume: containers, the H200 VM), the example says so.
    if (/^gds_read_write: cuFile registers no file on this machine .*\(skipped\)$/m.test(r.stdout)) {
      expect(r.stdout).toMatch(/^gds_read_write: (CU_FILE_HANDLE_NOT_REGISTERED: )?handle not registered: cuFile refused .* udev/m);
      ctx.skip("cuFile registers no file on this machine (no udev attributes of the volume); the example said so and exited 0");
    }
    expect(r.stdout).toMatch(/^read bandwidth: cuFile [\d.]+ GB\/s, read\(\) into pinned memory \+ copy [\d.]+ GB\/s/m);
    expect(r.stdout).toMatch(/^gds_read_write: 1024 MiB written and read back through cuFile \((gds|compat) mode(, O_DIRECT)?\), every byte checked on .+ OK$/m);
    for (const line of r.stdout.trim().split("\n")) console.log(`gds_read_write: ${line}`);
  }, 600_000);
});
