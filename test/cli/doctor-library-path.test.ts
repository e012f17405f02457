/**
 * `cuda-ts doctor` names empty or relative LD_LIBRARY_PATH entries (which the system loader searches from the
 * current directory) as a warning: a "Warning:" line of its text and an entry of its JSON report's `warnings`.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { environmentWarnings, formatDoctor, type DoctorReport } from "../../src/cli/doctor.ts";
import { unsafeLibraryPathMessage } from "../../src/pathfinder/index.ts";
import { runtimeCommand } from "../support/runtime.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const scratch = mkdtempSync(join(tmpdir(), "cuda-ts-doctor-ld-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function doctor(ldLibraryPath: string | undefined, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const env: Record<string, string | undefined> = { ...process.env, LD_LIBRARY_PATH: ldLibraryPath };
  if (ldLibraryPath === undefined) delete env.LD_LIBRARY_PATH;
  const cmd = runtimeCommand(join(root, "src/cli/cuda-ts.ts"), ["--allow-ffi", "--allow-env", "--allow-read", "--allow-sys"], ["doctor", ...args]);
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: scratch, encoding: "utf8", timeout: 120_000, env });
  return { status: r.status, stdout: r.stdout ?? "", stderr: `${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

const expected = unsafeLibraryPathMessage(["", "lib", "."]);

describe("cuda-ts doctor and LD_LIBRARY_PATH", () => {
  it("lists the warning from the environment's LD_LIBRARY_PATH", () => {
    expect(environmentWarnings("/usr/lib::lib:.")).toEqual([expected]);
    expect(environmentWarnings("/usr/lib:/opt/cuda/lib64")).toEqual([]);
    expect(environmentWarnings(undefined)).toEqual([]);
  });

  it("prints each warning on its own line under the title", () => {
    const report: DoctorReport = { runtime: { name: "Bun", version: "1" }, warnings: [expected], driver: { found: false }, devices: [], libraries: [{ name: "cudart", packagedWith: "ctk", found: false }] };
    const lines = formatDoctor(report).split("\n");
    expect(lines.slice(0, 4)).toEqual(["cuda-ts doctor — Bun 1", "", `Warning: ${expected}`, ""]);
    expect(formatDoctor({ ...report, warnings: [] })).not.toContain("Warning:");
  });

  it("reports empty and relative entries in its JSON report and its text, and exits 0", () => {
    const json = doctor("/usr/lib::lib:.", "--json");
    expect(json.status, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { warnings: string[] }).warnings).toEqual([expected]);
    const text = doctor("/usr/lib::lib:.");
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout.split("\n").filter((l) => l.startsWith("Warning:"))).toEqual([`Warning: ${expected}`]);
  });

  it.each([["/nonexistent:/usr/lib"], [undefined]])("has no warning with LD_LIBRARY_PATH=%s", (value) => {
    const json = doctor(value, "--json");
    expect(json.status, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as { warnings: string[] }).warnings).toEqual([]);
    expect(json.stderr).not.toContain("LD_LIBRARY_PATH");
  });
});
