/**
 * Empty and relative LD_LIBRARY_PATH entries: the system loader searches them from the current directory (for a
 * library and its dependencies), so the pathfinder names them in one warning, once per process, the first time it
 * loads a library; clean values (unset, absolute entries) give none.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { unsafeLibraryPathEntries, unsafeLibraryPathMessage } from "../../src/pathfinder/index.ts";
import { hasRelativeEntry } from "../../src/pathfinder/paths.ts";
import { Pathfinder } from "../../src/pathfinder/pathfinder.ts";
import { FakeLoader } from "./fixtures.ts";
import { runtimeCommand } from "../support/runtime.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const scratch = mkdtempSync(join(tmpdir(), "cuda-ts-ld-library-path-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("unsafeLibraryPathEntries", () => {
  it.each([
    ["::", ["", "", ""]],
    [":/usr/lib", [""]],
    ["/usr/lib:", [""]],
    ["/a::/b", [""]],
    [".", ["."]],
    ["lib", ["lib"]],
    ["./x", ["./x"]],
    ["../x:/opt/cuda/lib64", ["../x"]],
    ["/opt/cuda/lib64:lib:.:", ["lib", ".", ""]],
    // glibc's loader splits LD_LIBRARY_PATH on ";" too.
    ["/usr/lib;lib", ["lib"]],
    ["/usr/lib;", [""]],
  ] as const)("flags the entries the loader resolves against the working directory in %j", (value, expected) => {
    expect(unsafeLibraryPathEntries(value)).toEqual(expected);
    expect(hasRelativeEntry(value)).toBe(true);
  });

  it.each([[undefined], [""], ["/usr/lib"], ["/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu"], ["/a;/b"], ["/"]])(
    "flags nothing in %j (unset, empty, absolute entries)",
    (value) => {
      expect(unsafeLibraryPathEntries(value)).toEqual([]);
      expect(hasRelativeEntry(value)).toBe(false);
    },
  );

  it("names the entries and what to do in one line", () => {
    const message = unsafeLibraryPathMessage(["", "lib"]);
    expect(message).not.toContain("\n");
    expect(message).toContain('("", "lib")');
    expect(message).toContain("remove the empty/relative entries from LD_LIBRARY_PATH, or use absolute paths");
  });
});

describe("the pathfinder's warning", () => {
  const isolated = (env: Record<string, string>, warn: (m: string) => void): Pathfinder =>
    new Pathfinder({ env, loader: new FakeLoader(), defaultRoot: null, ldSoCachePath: null, systemLibraryDirectories: [], architecture: "x64", warn });

  it("warns once per sink, before searching, even when the library is not found", () => {
    const warnings: string[] = [];
    const warn = (m: string): void => void warnings.push(m);
    const env = { LD_LIBRARY_PATH: ":/nonexistent::lib", CUDA_TS_NVRTC_PATH: "/nonexistent/libnvrtc.so.13" };
    const first = isolated(env, warn);
    expect(() => first.loadNvidiaLibrary("nvrtc")).toThrow(/could not find library "nvrtc"/);
    expect(() => first.loadNvidiaLibrary("nvrtc")).toThrow();
    expect(() => isolated(env, warn).loadNvidiaLibrary("nvrtc")).toThrow();
    expect(warnings).toEqual([`cuda-ts: ${unsafeLibraryPathMessage(["", "", "lib"])}`]);
  });

  it("does not warn for a clean LD_LIBRARY_PATH, nor when only finding", () => {
    const warnings: string[] = [];
    const warn = (m: string): void => void warnings.push(m);
    expect(() => isolated({ LD_LIBRARY_PATH: "/nonexistent:/usr/lib" }, warn).loadNvidiaLibrary("cudart")).toThrow();
    expect(() => isolated({}, warn).loadNvidiaLibrary("cudart")).toThrow();
    expect(() => isolated({ LD_LIBRARY_PATH: "lib" }, warn).findNvidiaLibrary("cudart")).toThrow();
    expect(warnings).toEqual([]);
  });
});

describe("the warning of a real process", () => {
  // Loads through the shared pathfinder (the real environment, the system loader, console.warn): nvrtc twice and
  // cudart, each pointed at a file that does not exist, so that every load searches and fails.
  const script = join(scratch, "load.ts");
  writeFileSync(
    script,
    `import { loadNvidiaLibrary } from ${JSON.stringify(pathToFileURL(join(root, "src/pathfinder/index.ts")).href)};\n` +
      `for (const name of ["nvrtc", "nvrtc", "cudart"]) {\n` +
      `  try { loadNvidiaLibrary(name); console.log(name + " loaded"); } catch (e) { console.log(name + " not found"); }\n` +
      `}\n`,
  );
  const load = (ldLibraryPath: string | undefined): { status: number | null; stdout: string; stderr: string } => {
    const env: Record<string, string | undefined> = {
      ...process.env,
      CUDA_TS_NVRTC_PATH: "/nonexistent/libnvrtc.so.13",
      CUDA_TS_CUDART_PATH: "/nonexistent/libcudart.so.13",
      LD_LIBRARY_PATH: ldLibraryPath,
    };
    if (ldLibraryPath === undefined) delete env.LD_LIBRARY_PATH;
    const cmd = runtimeCommand(script);
    const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: scratch, encoding: "utf8", timeout: 60_000, env });
    return { status: r.status, stdout: r.stdout ?? "", stderr: `${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
  };

  it("prints one line on stderr, once, naming the entries and what to do", () => {
    const r = load("/nonexistent::lib:");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe("nvrtc not found\nnvrtc not found\ncudart not found\n");
    const lines = r.stderr.split("\n").filter((l) => l.includes("LD_LIBRARY_PATH has"));
    expect(lines, r.stderr).toEqual([
      'cuda-ts: LD_LIBRARY_PATH has empty or relative entries ("", "lib", ""), which the system loader searches from the ' +
        "current directory for NVIDIA libraries and their dependencies, so a library planted there would run in this " +
        "process: remove the empty/relative entries from LD_LIBRARY_PATH, or use absolute paths.",
    ]);
  });

  it.each([["/nonexistent:/usr/lib"], [undefined]])("prints nothing with LD_LIBRARY_PATH=%s", (value) => {
    const r = load(value);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe("nvrtc not found\nnvrtc not found\ncudart not found\n");
    expect(r.stderr).not.toContain("LD_LIBRARY_PATH");
  });
});
