/**
 * The package's `cuda-ts` command (bin/cuda-ts.js) started by Node.js (as `npx cuda-ts` does) on a machine with Deno
 * and no Bun: it re-executes each command on Deno with that command's permissions (docs/permissions.md), so
 * `run` gets --allow-run and --allow-net (its rendezvous store listens, its ranks are started) and a job runs.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, delimiter, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const bin = join(root, "bin/cuda-ts.js");

/** A real Node.js (not Bun's `node` shim, which `bun --bun` puts first on PATH), or undefined. */
function realNode(): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/local/bin", "/usr/bin"].filter((d) => d !== "" && !d.endsWith("node_modules/.bin"));
  for (const dir of dirs) {
    const candidate = join(dir, "node");
    try {
      const real = realpathSync(candidate);
      if (basename(real) !== "node") continue;
      const r = spawnSync(real, ["-e", "process.stdout.write(typeof Bun + ' ' + typeof Deno)"], { encoding: "utf8" });
      if (r.status === 0 && r.stdout === "undefined undefined") return real;
    } catch {
      // not there
    }
  }
  return undefined;
}

const node = realNode();
const denoInstalled = join(root, "node_modules/.bin/deno");
const deno = existsSync(denoInstalled) ? realpathSync(denoInstalled) : undefined;
const skip = node === undefined || deno === undefined;

const scratch = mkdtempSync(join(tmpdir(), "cuda-ts-bin-deno-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A PATH of one directory that holds `names` (links to Deno and Node.js): no Bun anywhere on it. */
function pathWith(...names: ("deno" | "node")[]): string {
  const dir = join(scratch, `path-${names.join("-") || "empty"}`);
  mkdirSync(dir, { recursive: true });
  for (const name of names) {
    if (!existsSync(join(dir, name))) symlinkSync(name === "deno" ? deno! : node!, join(dir, name));
  }
  return dir;
}

/** `node bin/cuda-ts.js ARGS` in the scratch directory, with PATH holding only `path`. */
function launch(path: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(node!, [bin, ...args], { cwd: scratch, encoding: "utf8", timeout: 120_000, env: { ...process.env, PATH: path } });
  return { status: r.status, stdout: r.stdout ?? "", stderr: `${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
}

describe.skipIf(skip)(`bin/cuda-ts.js under Node.js with Deno and no Bun${skip ? " [skipped: no real node, or no node_modules/.bin/deno]" : ""}`, () => {
  it("runs a one-rank job: `run` gets its own permissions (the store listens, the rank is started)", () => {
    const script = join(scratch, "tiny.ts");
    writeFileSync(script, "console.log(`rank ${process.env.CUDA_TS_RANK} of ${process.env.CUDA_TS_WORLD_SIZE}`);\n");
    const r = launch(pathWith("deno", "node"), "run", "-n", "1", "--timeout", "60", script);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe("rank 0 of 1\n");
    expect(r.stderr).not.toMatch(/NotCapable|--allow-/);
  });

  it("runs doctor on Deno with doctor's permissions", () => {
    const r = launch(pathWith("deno", "node"), "doctor", "--json");
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { runtime: { name: string } }).runtime.name).toBe("Deno");
  });

  it("prints the usage with only the permission to read the package", () => {
    const r = launch(pathWith("deno", "node"), "--help");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("cuda-ts run -n N");
  });

  it("says what to install when neither Bun nor Deno is on PATH", () => {
    const r = launch(pathWith("node"), "run", "-n", "1", "tiny.ts");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("cuda-ts needs Bun or Deno, and neither was found on PATH.");
  });
});
