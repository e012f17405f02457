/**
 * Builds the fake NVTX injection library (test/fixtures/nvtx/fake-injection.c) with gcc into a temporary directory,
 * in three variants: the tool, one without the entry point, one that refuses to attach. Where gcc is absent the
 * suites skip and say so (CI installs gcc: .ci/run).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const here = import.meta.dirname ?? new URL(".", import.meta.url).pathname;
export const root = resolve(here, "../..");
const source = join(root, "test/fixtures/nvtx/fake-injection.c");

/** Whether gcc runs here, or why not. */
export const gccReason: string | undefined = (() => {
  const r = spawnSync("gcc", ["--version"], { encoding: "utf8" });
  return r.status === 0 ? undefined : "gcc is not installed (the NVTX fixtures are C compiled by the tests)";
})();

export interface FakeTools {
  readonly dir: string;
  /** Attaches and records. */
  readonly tool: string;
  /** Exports no InitializeInjectionNvtx2. */
  readonly noEntry: string;
  /** InitializeInjectionNvtx2 returns 0. */
  readonly refusing: string;
}

/** Compiles the three variants (mode 0755, as a tool's installation). */
export function buildFakeTools(): FakeTools {
  const dir = mkdtempSync(join(tmpdir(), "cuda-ts-nvtx-"));
  const build = (name: string, defines: string[]): string => {
    const out = join(dir, name);
    execFileSync("gcc", ["-shared", "-fPIC", "-O1", ...defines, "-o", out, source]);
    chmodSync(out, 0o755);
    return out;
  };
  return {
    dir,
    tool: build("libfake-nvtx.so", []),
    noEntry: build("libfake-nvtx-noentry.so", ["-DFAKE_NO_ENTRY_POINT"]),
    refusing: build("libfake-nvtx-refuse.so", ["-DFAKE_REFUSE"]),
  };
}
