/**
 * What NVTX checks of `NVTX_INJECTION64_PATH` is what it loads (src/core/nvtx/injection.ts, `openCheckedLibrary`):
 * the file is opened once, the open descriptor is checked, and that descriptor is loaded through /proc/self/fd/N.
 * A relative path is refused; so is a link another user owns, and a library in a directory another user can write
 * without the sticky bit. The race: another user swaps the library (or its link) in a loop while this process (root)
 * starts processes that initialize NVTX; none of them may run the swapped library, which says so in a marker file.
 *
 * The libraries are C built by gcc (test/fixtures/nvtx/); the two-user parts run as root only (skipped elsewhere,
 * failing on CI, which runs as root: test/support/two-users.ts).
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, existsSync, lchownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ffi } from "../../../src/ffi/index.ts";
import * as nvtx from "../../../src/core/nvtx/nvtx.ts";
import { buildFakeTools, gccReason, root, type FakeTools } from "../../nvtx/fixture.ts";
import { onDeno, runScript } from "../memory/spawn.ts";
import { otherUser, requireTwoUsers } from "../../support/two-users.ts";

const fixtures = join(root, "test/fixtures/nvtx");

/** A scratch directory of mode 0755 (another user may enter it), owned by this process's user. */
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "cuda-ts-nvtx-file-"));
  chmodSync(dir, 0o755);
  return dir;
}

/**
 * The child each started process runs: initialize NVTX from the variable (with the argument "mark": make a first NVTX
 * call, which warns instead of throwing), print what happened (one JSON line).
 */
function writeChild(dir: string): string {
  const script = join(dir, "child.ts");
  writeFileSync(
    script,
    [
      `import * as nvtx from ${JSON.stringify(join(root, "src/core/nvtx/nvtx.ts"))};`,
      `let thrown = "";`,
      `if (process.argv.includes("mark")) nvtx.mark("first call");`,
      `else try { nvtx.initialize(); } catch (e) { thrown = e instanceof Error ? e.message : String(e); }`,
      `console.log(JSON.stringify({ state: nvtx.status().state, thrown }));`,
    ].join("\n"),
  );
  return script;
}

describe.skipIf(gccReason !== undefined)(`NVTX: the injection library checked is the one loaded${gccReason ? ` [skipped: ${gccReason}]` : ""}`, () => {
  let tools: FakeTools;
  let dir: string;
  const other = otherUser();

  beforeAll(() => {
    tools = buildFakeTools();
    dir = scratch();
  });
  afterAll(() => {
    nvtx.attachForTesting(undefined);
    rmSync(dir, { recursive: true, force: true });
    rmSync(tools.dir, { recursive: true, force: true });
  });

  it("(a) refuses a relative path or a bare name, and the first call's warning says so", async () => {
    const e = nvtx.attachForTesting("lib/libfake-nvtx.so");
    expect(e).toBeInstanceOf(nvtx.NvtxInjectionError);
    expect(e!.message).toMatch(/NVTX_INJECTION64_PATH=lib\/libfake-nvtx\.so was not used: it is a relative path .*Give the library's absolute path\./);
    expect(nvtx.attachForTesting("libfake-nvtx.so")!.message).toMatch(/it is a relative path/);
    expect(nvtx.attachForTesting("./libfake-nvtx.so")!.message).toMatch(/it is a relative path/);
    expect(nvtx.status().state).toBe("failed");
    // The same through the variable, read by the first call in a fresh process: one warning, NVTX off, nothing loaded.
    const marker = join(dir, "a-marker");
    const child = writeChild(dir);
    const r = await runScript(child, ["mark"], 60_000, { env: { NVTX_INJECTION64_PATH: "lib/libfake-nvtx.so", FAKE_NVTX_LOG_FILE: marker } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout.trim().split("\n").pop()!)).toMatchObject({ state: "failed" });
    expect(r.stderr.match(/NVTX: the injection library NVTX_INJECTION64_PATH=lib\/libfake-nvtx\.so was not used: it is a relative path .*Give the library's absolute path\./g)).toHaveLength(1);
    expect(existsSync(marker)).toBe(false);
  });

  it("(b) refuses a symbolic link owned by another user, and takes the same link owned by root", (ctx) => {
    requireTwoUsers(ctx, other);
    const links = join(dir, "links");
    mkdirSync(links, { mode: 0o755 });
    const theirs = join(links, "theirs.so");
    symlinkSync(tools.tool, theirs);
    lchownSync(theirs, other.uid, other.gid);
    const e = nvtx.attachForTesting(theirs);
    expect(e?.message).toMatch(new RegExp(`it is a symbolic link owned by uid ${other.uid}, neither you \\(uid 0\\) nor root`));
    expect(nvtx.status().state).toBe("failed");
    const mine = join(links, "mine.so");
    symlinkSync(tools.tool, mine);
    expect(nvtx.attachForTesting(mine)).toBeUndefined();
    expect(nvtx.status()).toMatchObject({ state: "attached", path: mine });
  });

  it("refuses a library in a directory others can write without the sticky bit, takes one with it", () => {
    const open = join(dir, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    copyFileSync(tools.tool, join(open, "lib.so"));
    chmodSync(join(open, "lib.so"), 0o755);
    expect(nvtx.attachForTesting(join(open, "lib.so"))!.message).toMatch(/its directory .*\/open has mode 0777, writable by group or others without the sticky bit/);
    chmodSync(open, 0o1777);
    expect(nvtx.attachForTesting(join(open, "lib.so"))).toBeUndefined();
    // A directory further up counts too.
    const deep = join(open, "a", "b");
    mkdirSync(deep, { recursive: true, mode: 0o755 });
    copyFileSync(tools.tool, join(deep, "lib.so"));
    chmodSync(open, 0o777);
    expect(nvtx.attachForTesting(join(deep, "lib.so"))!.message).toMatch(/its directory .*\/open has mode 0777/);
    chmodSync(open, 0o755);
  });

  it("(d) the good case still loads and works, and each load is the file named (a descriptor number reused is not the library before)", () => {
    expect(nvtx.attachForTesting(tools.tool)).toBeUndefined();
    expect(nvtx.status()).toMatchObject({ state: "attached", path: tools.tool });
    const lib = ffi.openLibrary(tools.tool); // the loader knows the file by device and inode: the protocol's handle
    const log = lib.bind("fake_nvtx_log", { parameters: [], result: "pointer" })!;
    const clear = lib.bind("fake_nvtx_clear", { parameters: [], result: "void" })!;
    clear();
    nvtx.mark("checked and loaded");
    expect(ffi.readCString(log())).toContain("msg=checked and loaded");
    // The tool stays loaded under /proc/self/fd/N; the next loads open new descriptors, likely the same N again.
    for (let i = 0; i < 3; i++) {
      expect(nvtx.attachForTesting(tools.refusing)!.message).toMatch(/returned 0/);
      expect(nvtx.attachForTesting(tools.noEntry)!.message).toMatch(/does not export InitializeInjectionNvtx2/);
      expect(nvtx.attachForTesting(tools.tool)).toBeUndefined();
    }
    expect(nvtx.status().state).toBe("attached");
  });

  it("loads a tool whose dependencies are found through $ORIGIN (as Nsight Systems' is): by its checked path when the descriptor cannot", () => {
    const lib = join(dir, "origin");
    mkdirSync(lib, { mode: 0o700 });
    writeFileSync(join(lib, "dep.c"), "int origin_dep_value(void) { return 7; }\n");
    execFileSync("gcc", ["-shared", "-fPIC", "-O1", "-o", join(lib, "liborigindep.so"), join(lib, "dep.c")]);
    const tool = join(lib, "origin-tool.so");
    execFileSync("gcc", ["-shared", "-fPIC", "-O1", `-DWHO="origin"`, "-o", tool, join(fixtures, "marker-injection.c"), `-L${lib}`, "-Wl,--no-as-needed", "-lorigindep", "-Wl,-rpath,$ORIGIN"]);
    chmodSync(join(lib, "liborigindep.so"), 0o755);
    chmodSync(tool, 0o755);
    expect(nvtx.attachForTesting(tool)).toBeUndefined();
    expect(nvtx.status()).toMatchObject({ state: "attached", path: tool });
  });

  describe("(c) a race: another user swaps the library while root starts processes that load it", () => {
    const N = Number(process.env.CUDA_TS_NVTX_RACE_PROCESSES ?? 200);
    const CONCURRENCY = 16;
    let base: string;
    let child: string;
    let good: string;
    let swapped: string;
    let swapper: string;

    beforeAll(() => {
      if (gccReason !== undefined) return;
      base = scratch();
      child = writeChild(base);
      good = join(base, "good.so");
      swapped = join(base, "swapped-build.so");
      execFileSync("gcc", ["-shared", "-fPIC", "-O1", `-DWHO="good"`, "-o", good, join(fixtures, "marker-injection.c")]);
      execFileSync("gcc", ["-shared", "-fPIC", "-O1", `-DWHO="swapped"`, "-o", swapped, join(fixtures, "marker-injection.c")]);
      swapper = join(base, "swapper");
      execFileSync("gcc", ["-O2", "-o", swapper, join(fixtures, "swapper.c")]);
      for (const f of [good, swapped, swapper]) chmodSync(f, 0o755);
    });
    afterAll(() => {
      if (base !== undefined) rmSync(base, { recursive: true, force: true });
    });

    /** Starts the other user's swapper, then N processes (CONCURRENCY at a time); counts what they did. */
    async function race(mode: "rename" | "symlink", swapDir: string, extra: string[]) {
      const stop = join(base, `stop-${mode}`);
      const marker = join(base, `marker-${mode}`);
      writeFileSync(marker, "");
      const attacker = spawn("setpriv", [`--reuid=${other.uid}`, `--regid=${other.gid}`, "--clear-groups", "--", swapper, mode, swapDir, stop, ...extra], { stdio: ["ignore", "pipe", "pipe"] });
      let swaps = "";
      attacker.stdout!.on("data", (d: unknown) => (swaps += String(d)));
      const attackerDone = new Promise<number | null>((resolve) => attacker.on("close", resolve));
      const states: Record<string, number> = {};
      const reasons: Record<string, number> = {};
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < N) {
          next++;
          const r = await runScript(child, [], 60_000, { env: { NVTX_INJECTION64_PATH: join(swapDir, "lib.so"), NVTX_MARKER_FILE: marker } });
          const line = r.stdout.trim().split("\n").pop() ?? "";
          let out: { state?: string; thrown?: string } = {};
          try {
            out = JSON.parse(line) as typeof out;
          } catch {
            out = { state: `exit ${r.code}` };
          }
          states[out.state ?? "?"] = (states[out.state ?? "?"] ?? 0) + 1;
          const why = /was not used: ([^(.]*)/.exec(out.thrown ?? "")?.[1]?.trim();
          if (why !== undefined) reasons[why] = (reasons[why] ?? 0) + 1;
        }
      };
      try {
        await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      } finally {
        writeFileSync(stop, "");
      }
      expect(await attackerDone).toBe(0);
      const lines = readFileSync(marker, "utf8").split("\n").filter((l) => l !== "");
      const count = (who: string, what: string) => lines.filter((l) => l.startsWith(`${who} ${what} `)).length;
      const result = { processes: N, swaps: Number(swaps.trim()), states, reasons, goodLoads: count("good", "load"), swappedLoads: count("swapped", "load"), swappedInits: count("swapped", "init") };
      // The counts, for a report: CUDA_TS_NVTX_RACE_REPORT names a file they are appended to.
      const report = process.env.CUDA_TS_NVTX_RACE_REPORT;
      if (report) writeFileSync(report, `${JSON.stringify({ runtime: onDeno ? "deno" : "bun", mode, ...result })}\n`, { flag: "a" });
      return result;
    }

    it(`a file renamed in a world-writable directory: 0 of ${N} processes run the swapped library`, async (ctx) => {
      requireTwoUsers(ctx, other);
      const d = join(base, "world-writable");
      mkdirSync(d);
      chmodSync(d, 0o777);
      copyFileSync(good, join(d, "lib.so"));
      chmodSync(join(d, "lib.so"), 0o755);
      copyFileSync(swapped, join(d, "swapped.so"));
      chownSync(join(d, "swapped.so"), other.uid, other.gid);
      const r = await race("rename", d, []);
      expect(r.swaps).toBeGreaterThan(0);
      expect(Object.values(r.states).reduce((a, b) => a + b, 0)).toBe(N);
      expect(r.swappedLoads).toBe(0);
      expect(r.swappedInits).toBe(0);
    }, 600_000);

    it(`another user's link swapped in a sticky directory: 0 of ${N} processes run the swapped library`, async (ctx) => {
      requireTwoUsers(ctx, other);
      const d = join(base, "sticky");
      mkdirSync(d);
      chmodSync(d, 0o1777);
      const theirs = join(base, "theirs");
      mkdirSync(theirs, { mode: 0o755 });
      copyFileSync(swapped, join(theirs, "swapped.so"));
      chownSync(theirs, other.uid, other.gid);
      chownSync(join(theirs, "swapped.so"), other.uid, other.gid);
      const r = await race("symlink", d, [good, join(theirs, "swapped.so")]);
      expect(r.swaps).toBeGreaterThan(0);
      expect(Object.values(r.states).reduce((a, b) => a + b, 0)).toBe(N);
      expect(r.swappedLoads).toBe(0);
      expect(r.swappedInits).toBe(0);
    }, 600_000);
  });
});
