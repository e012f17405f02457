/**
 * NVML is shut down when the process exits, on this runtime (Bun: process.on("exit"); Deno: the unload event),
 * for a normal end and for an explicit exit. Runs a child process with a fake NVML that reports its calls.
 */
import { runtimeExecutable } from "../../support/runtime.ts";
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../../..");
const isBun = (globalThis as { Bun?: unknown }).Bun !== undefined;

function runChild(mode: "normal" | "process.exit" | "Deno.exit" | "unused"): { status: number | null; out: string } {
  const dir = mkdtempSync(join(tmpdir(), "cuda-ts-nvml-exit-"));
  const script = join(dir, "child.ts");
  writeFileSync(
    script,
    `import { useNvmlForTesting } from ${JSON.stringify(join(root, "src/core/system/nvml.ts"))};
import * as system from ${JSON.stringify(join(root, "src/core/system/system.ts"))};
import { FakeNvml, fakeGpu } from ${JSON.stringify(join(root, "test/core/system/fake.ts"))};
class Loud extends FakeNvml {
  override nvmlInit(): void { super.nvmlInit(); console.log("init " + this.inits); }
  override nvmlShutdown(): void { super.nvmlShutdown(); console.log("shutdown " + this.shutdowns); }
}
useNvmlForTesting(new Loud([fakeGpu(0)]));
const mode = ${JSON.stringify(mode)};
if (mode !== "unused") console.log("count " + system.deviceCount() + " " + system.deviceCount());
console.log("main done");
if (mode === "process.exit") process.exit(3);
if (mode === "Deno.exit") (globalThis as unknown as { Deno: { exit(c: number): never } }).Deno.exit(4);
`,
  );
  const cmd = isBun
    ? [process.execPath, script]
    : [runtimeExecutable(), "run", "--allow-read", "--allow-env", "--allow-ffi", script];
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8" });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

describe("NVML at process exit", () => {
  it("is initialised once and shut down once after a normal end", () => {
    const r = runChild("normal");
    expect(r.status, r.out).toBe(0);
    expect(r.out.trim().split("\n")).toEqual(["init 1", "count 1 1", "main done", "shutdown 1"]);
  });

  it("is shut down on process.exit()", () => {
    const r = runChild("process.exit");
    expect(r.status, r.out).toBe(3);
    expect(r.out.trim().split("\n")).toEqual(["init 1", "count 1 1", "main done", "shutdown 1"]);
  });

  it.runIf(!isBun)("is shut down on Deno.exit()", () => {
    const r = runChild("Deno.exit");
    expect(r.status, r.out).toBe(4);
    expect(r.out.trim().split("\n")).toEqual(["init 1", "count 1 1", "main done", "shutdown 1"]);
  });

  it("is never started (nor shut down) when unused", () => {
    const r = runChild("unused");
    expect(r.status, r.out).toBe(0);
    expect(r.out.trim().split("\n")).toEqual(["main done"]);
  });
});
