/**
 * Binding behaviour that needs no CUDA library: importing loads nothing, a function the library lacks fails when
 * called (FunctionNotFoundError naming it), and Node is refused at import.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createBinding } from "../../src/bindings/binding.ts";
import { FunctionNotFoundError } from "../../src/bindings/errors.ts";
import { ffi } from "../../src/ffi/index.ts";
import type { CheckedRuntime } from "../../src/tables-runtime/checked.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const runtimeBin = (globalThis as { Bun?: unknown }).Bun !== undefined ? "bun" : "deno";
/** The running runtime's executable (also where node_modules/.bin has no copy, as on the GPU machine). */
const self = runtimeBin === "bun" ? process.execPath : (globalThis as unknown as { Deno: { execPath(): string } }).Deno.execPath();

function run(args: string[]): { status: number | null; out: string } {
  const bin = args[0] === runtimeBin ? self : join(root, "node_modules/.bin", args[0]!);
  const r = spawnSync(bin, args.slice(1), { cwd: root, encoding: "utf8" });
  return { status: r.status, out: `${r.stdout}${r.stderr}${r.error ? String(r.error) : ""}` };
}

describe("bindings", () => {
  it("load nothing at import", () => {
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-lazy-"));
    const script = join(dir, "lazy.ts");
    writeFileSync(
      script,
      `import * as b from ${JSON.stringify(join(root, "src/bindings/index.ts"))};\n` +
        `import { readFileSync } from "node:fs";\n` +
        `const maps = readFileSync("/proc/self/maps", "utf8");\n` +
        `const loaded = [b.driver, b.runtime, b.nvrtc, b.nvjitlink, b.nvvm, b.nvml, b.cufile, b.nvfatbin, b.cupti].filter((x) => x.loaded !== undefined).length;\n` +
        `console.log(JSON.stringify({ loaded, cuda: /libcuda|libcudart|libnvrtc|libnvvm|libcupti/.test(maps) }));\n`,
    );
    const r = runtimeBin === "bun" ? run(["bun", script]) : run(["deno", "run", "--allow-all", script]);
    expect(r.out).toContain('{"loaded":0,"cuda":false}');
  });

  it("fail a missing function when it is called, naming it and the library", () => {
    const table = {
      abs: { symbol: "abs", parameters: ["i32"], result: "i32" },
      missing: { symbol: "cuda_ts_no_such_function", parameters: [], result: "i32" },
    } as const;
    type Raw = { abs(x: number): number; missing(): number };
    const b = createBinding<Raw, { abs(x: number): number }>({
      library: "libc",
      info: { name: "libc", library: "libc", ctkVersion: "0.0" },
      functions: table,
      createChecked: (raw: Raw, _rt: CheckedRuntime) => ({ abs: (x: number) => raw.abs(x) }),
      makeError: (code, fn) => new Error(`${fn} failed with ${code}`),
      open: () => ({ name: "libc", path: "libc.so.6", foundVia: "test", native: ffi.openLibrary("libc.so.6") }),
    });
    expect(b.loaded).toBeUndefined();
    expect(b.abs(-4)).toBe(4);
    expect(b.loaded?.path).toBe("libc.so.6");
    expect(() => b.raw.missing()).toThrow(FunctionNotFoundError);
    expect(() => b.raw.missing()).toThrow(/missing is not available: libc\.so\.6 does not export cuda_ts_no_such_function/);
  });

  // `bun --bun` puts a `node` that is Bun on PATH: use the real Node.js by its path.
  const nodeBin = ["/usr/bin/node", "/usr/local/bin/node"].find((p) => existsSync(p) && !realpathSync(p).includes("bun"));
  it.runIf(nodeBin !== undefined)("refuse Node at import, saying to use Bun or Deno (needs Node.js at /usr/bin/node)", () => {
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-node-"));
    const out = join(dir, "bundle.mjs");
    if (runtimeBin !== "bun" && !existsSync(join(root, "node_modules/.bin/bun"))) return; // no bun to bundle with here
    const build = run(["bun", "build", join(root, "src/ffi/current.ts"), "--target=node", "--format=esm", `--outfile=${out}`]);
    expect(build.status, build.out).toBe(0);
    const r = spawnSync(nodeBin!, [out], { encoding: "utf8" });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/cuda-ts needs Bun or Deno: Node\.js has no FFI/);
  });
});

describe.runIf(runtimeBin === "deno")("under deno run --allow-ffi alone", () => {
  it("loads libraries the system loader finds, and says which permission would let the pathfinder look further", () => {
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-ffi-only-"));
    const script = join(dir, "ffi-only.ts");
    writeFileSync(
      script,
      `import { runtime, driver } from ${JSON.stringify(join(root, "src/bindings/index.ts"))};\n` +
        `let cudart = "absent";\ntry { cudart = String(runtime.cudaRuntimeGetVersion()); } catch (e) { cudart = (e as Error).name; }\n` +
        `let drv = "loaded";\ntry { driver.cuInit(0); } catch (e) { drv = (e as Error).message.includes("--allow-") ? "permission hint" : (e as Error).name; }\n` +
        `console.log(JSON.stringify({ cudart, drv }));\n`,
    );
    const r = run(["deno", "run", "--allow-ffi", script]);
    const line = r.out.split("\n").find((l) => l.startsWith("{"));
    expect(line, r.out).toBeDefined();
    const got = JSON.parse(line!) as { cudart: string; drv: string };
    // No prompt, no permission error at import: either the library loads, or its error names the permission.
    expect(got.cudart === "absent" || /^\d+$/.test(got.cudart) || got.cudart === "LibraryNotFoundError").toBe(true);
    expect(["loaded", "permission hint"]).toContain(got.drv);
  });
});
