/** `cuda-ts doctor` runs on any machine, exits 0, and says what it found (with --json as JSON). */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { findCc } from "../generator/helpers.ts";
import { basename, join, resolve } from "node:path";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const isBun = (globalThis as { Bun?: unknown }).Bun !== undefined;

function doctor(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return doctorWith({}, ...args);
}

function doctorWith(env: Record<string, string>, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const cmd = isBun
    ? [process.execPath, join(root, "src/cli/cuda-ts.ts"), "doctor", ...args]
    : [(globalThis as unknown as { Deno: { execPath(): string } }).Deno.execPath(), "run", "--allow-ffi", "--allow-env", "--allow-read", "--allow-sys", join(root, "src/cli/cuda-ts.ts"), "doctor", ...args];
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Debian's CUDA 12.4 libraries, where scripts/fetch-cuda12.sh libs unpacked them (or CUDA_TS_CUDA12_LIBS). */
const cuda12 = [process.env.CUDA_TS_CUDA12_LIBS, join(root, ".cache/cuda-12.4/lib")].find((d) => d !== undefined && existsSync(join(d, "libcudart.so.12")));

describe("cuda-ts doctor", () => {
  it("shows, per bound library, the version found and the generated table chosen", () => {
    const r = doctor("--json");
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { libraries: { name: string; found: boolean; version?: string; table?: { version: string; reason: string; carried: string[] } }[] };
    const cudart = report.libraries.find((l) => l.name === "cudart")!;
    if (cudart.found) {
      expect(cudart.table?.version).toBe(cudart.version);
      expect(cudart.table?.reason).toMatch(/^cudaRuntimeGetVersion \d+$/);
      expect(cudart.table?.carried).toEqual(["13.0", "12.4"]);
    }
  });

  it.skipIf(cuda12 === undefined)(`pinned to CUDA 12 with Debian's 12.4 libraries: the 12.4 tables${cuda12 === undefined ? " [skipped: no libcudart.so.12: run scripts/fetch-cuda12.sh libs]" : ""}`, () => {
    const r = doctorWith({ CUDA_TS_CUDA_MAJOR: "12", LD_LIBRARY_PATH: cuda12! });
    expect(r.status, r.stderr).toBe(0);
    for (const [lib, query] of [["cudart", "cudaRuntimeGetVersion"], ["nvrtc", "nvrtcVersion"], ["nvJitLink", "nvJitLinkVersion"]] as const) {
      expect(r.stdout).toMatch(new RegExp(`^ {2}${lib}\\s+found\\s+v12\\.4\\s+.*\\.so\\.12 .*\\n\\s+table CUDA 12\\.4 \\(${query} 12040; carried: 13\\.0, 12\\.4\\)$`, "m"));
    }
  });

  it("prints the runtime, the driver's state and every library, and exits 0", () => {
    const r = doctor();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^cuda-ts doctor — (Bun|Deno) \d/);
    expect(r.stdout).toMatch(/NVIDIA driver: (supports CUDA \d+\.\d|not found)/);
    expect(r.stdout).toMatch(/^ {2}cudart\s+(found|-)/m);
    expect(r.stdout).toMatch(/^ {2}nvml\s+(found|-)/m);
  });

  it("prints the same as JSON with --json", () => {
    const r = doctor("--json");
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { runtime: { name: string }; driver: { found: boolean }; libraries: { name: string; found: boolean }[] };
    expect(["Bun", "Deno"]).toContain(report.runtime.name);
    expect(typeof report.driver.found).toBe("boolean");
    expect(report.libraries.map((l) => l.name)).toEqual(expect.arrayContaining(["cuda", "cudart", "nvrtc", "nvJitLink", "nvvm", "nvml"]));
  });

  it("prints a library's whole reason and the variable that fixes it, not just \"not found\"", () => {
    const r = doctorWith({ CUDA_TS_NVRTC_PATH: "/nonexistent/libnvrtc.so.13" }, "--verbose");
    expect(r.status, r.stderr).toBe(0);
    const block = r.stdout.slice(r.stdout.indexOf("  nvrtc "));
    expect(block).toMatch(/^ {2}nvrtc\s+-\s+not found:\n {6}could not find library "nvrtc" .*Searched, in order:\n/);
    expect(block).toContain("CUDA_TS_NVRTC_PATH=/nonexistent/libnvrtc.so.13: no such file or directory");
    expect(block).toContain("CUDA_TS_NVRTC_PATH is set, so no other place was searched: point it at an existing library or unset it.");
  });

  it("prints the driver's whole reason when there is no driver (--verbose)", () => {
    const r = doctor("--verbose");
    if (!r.stdout.includes("NVIDIA driver: not found")) return; // a GPU machine: nothing to explain
    expect(r.stdout).toMatch(/NVIDIA driver: not found.*\n {4}could not find library "cuda" .*Searched, in order:\n {6}override +CUDA_TS_CUDA_PATH/);
    expect(r.stdout).toContain("Install the NVIDIA driver");
  });

  it.skipIf(findCc() === undefined)(`names NCCL's version and its table on NCCL's own version axis${findCc() === undefined ? " [skipped: no C compiler for the NCCL stub]" : ""}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-doctor-nccl-"));
    try {
      const lib = join(dir, "libnccl.so.2");
      const cc = spawnSync(findCc()!, ["-shared", "-fPIC", "-O1", "-w", "-DSTUB_VERSION=22809", join(root, "test/distributed/nccl-stub.c"), "-o", lib], { encoding: "utf8" });
      expect(cc.status, cc.stderr).toBe(0);
      const r = doctorWith({ CUDA_TS_NCCL_PATH: lib }, "--json");
      expect(r.status, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as { libraries: { name: string; found: boolean; version?: string; table?: { version: string; of: string; reason: string; carried: string[] } }[] };
      const nccl = report.libraries.find((l) => l.name === "nccl")!;
      expect(nccl).toMatchObject({ found: true, version: "2.28.9", table: { version: "2.28", of: "NCCL", carried: ["2.28", "2.22"] } });
      expect(nccl.table!.reason).toMatch(/^ncclGetVersion 22809 \(NCCL 2\.28\.9\)$/);
      const text = doctorWith({ CUDA_TS_NCCL_PATH: lib });
      expect(text.stdout).toMatch(/^ {2}nccl\s+found\s+v2\.28\.9\s+.*libnccl\.so\.2 .*\n\s+table NCCL 2\.28 \(ncclGetVersion 22809/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits 2 with the usage for an unknown command or option", () => {
    const r = doctor("--jsn");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('cuda-ts doctor: unknown option "--jsn".');
    expect(r.stderr).toContain("usage: cuda-ts doctor [--json] [--verbose]");
  });
});

/** PATH without Bun's `node` shim (`bun --bun` puts one first) and without node_modules/.bin: a user's shell. */
function userPath(): string {
  return (process.env.PATH ?? "")
    .split(":")
    .filter((dir) => {
      if (dir.endsWith("node_modules/.bin")) return false;
      try {
        return !/^bun(\.exe)?$/.test(basename(realpathSync(join(dir, "node"))));
      } catch {
        return true;
      }
    })
    .join(":");
}

const localDeno = join(root, "node_modules/.bin/deno");
const hasNpm = spawnSync("npm", ["--version"], { env: { ...process.env, PATH: userPath() } }).status === 0;
const noRepoTools = !existsSync(localDeno) || !hasNpm ? " (skipped: no node_modules/.bin/deno or npm: run npm ci)" : "";

describe.skipIf(noRepoTools !== "")(`in the repository after npm ci${noRepoTools}`, () => {
  it("deno task doctor --json works with Deno from npm (the task runner must not take node_modules/.bin/deno for a script)", () => {
    const r = spawnSync(localDeno, ["task", "doctor", "--json"], { cwd: root, encoding: "utf8", env: { ...process.env, PATH: userPath(), NO_COLOR: "1" } });
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { runtime: { name: string } }).runtime.name).toBe("Deno");
  });

  it("npx cuda-ts doctor runs the repository's command", () => {
    const r = spawnSync("npm", ["exec", "--offline", "--", "cuda-ts", "doctor"], { cwd: root, encoding: "utf8", env: { ...process.env, PATH: userPath() } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^cuda-ts doctor — (Bun|Deno) \d/);
  });

  it("the cuda-ts command on Deno without the permissions it needs says which, in one line (exit 2)", () => {
    const r = spawnSync(localDeno, ["run", "--allow-ffi", "--allow-read", join(root, "bin/cuda-ts.js"), "doctor"], { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      "cuda-ts doctor on Deno needs --allow-ffi --allow-env --allow-read --allow-sys (not granted here: --allow-env --allow-sys). " +
        "Run it again with them, or with -A: deno run -A npm:cuda-ts doctor.\n",
    );
  });
});
