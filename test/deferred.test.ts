/**
 * NVML's and cuFile's bindings load on first use on Bun (import.meta.require) and at import elsewhere: the loader's
 * decision, and a real process of the running runtime importing the package root and then using both.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DeferredLoadError, deferredLoader, EAGER_VARIABLE, importLater } from "../src/deferred.ts";
import { filePath, moduleExtension, ownModuleUrl, RUN_TIME_MODULES } from "../src/module-url.ts";
import { isBun, runtimeCommand, runtimeExecutable } from "./support/runtime.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");

describe("deferredLoader", () => {
  it("loads once, on the first call, by the module's file path, through the require it is given (Bun's own)", () => {
    const asked: string[] = [];
    const load = deferredLoader<{ x: number }>((id) => (asked.push(id), { x: 1 }), "file:///p/src/b.ts", "test-ts", false);
    expect(asked).toEqual([]);
    expect(load?.().x).toBe(1);
    expect(load?.().x).toBe(1);
    expect(asked).toEqual(["/p/src/b.ts"]);
  });

  it("turns a refused require into a DeferredLoadError that names the module and CUDA_TS_EAGER", () => {
    const load = deferredLoader<unknown>(() => {
      throw new TypeError('require() async module "x" is unsupported');
    }, "file:///p/b.ts", "nvml", false);
    let error: unknown;
    try {
      load?.();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DeferredLoadError);
    expect((error as DeferredLoadError).module).toBe("nvml");
    expect(String(error)).toMatch(/could not load nvml \(\/p\/b\.ts\) on first use: require\(\) async module "x" is unsupported\. Set CUDA_TS_EAGER=1/);
  });

  it("declines (the caller imports at import) without import.meta.require, when the caller says so, and with CUDA_TS_EAGER=1", () => {
    const url = "file:///b.ts";
    expect(deferredLoader(undefined, url, "x", false)).toBeUndefined();
    expect(deferredLoader(() => ({}), url, "x", true)).toBeUndefined();
    const before = process.env[EAGER_VARIABLE];
    process.env[EAGER_VARIABLE] = "1";
    try {
      expect(deferredLoader(() => ({}), url, "x", false)).toBeUndefined();
    } finally {
      if (before === undefined) delete process.env[EAGER_VARIABLE];
      else process.env[EAGER_VARIABLE] = before;
    }
  });
});

describe("ownModuleUrl", () => {
  it("names each module loaded at run time by its place in the layout, with the sources' extension here, and every one exists", () => {
    expect(moduleExtension).toBe(".ts");
    for (const path of RUN_TIME_MODULES) {
      const url = ownModuleUrl(path);
      expect(new URL(url).hash).toBe("");
      expect(filePath(url)).toBe(join(root, `${path}.ts`));
      expect(existsSync(filePath(url)), path).toBe(true);
    }
  });

  it("is what every module loaded at run time is named through, and RUN_TIME_MODULES lists every one named", () => {
    const named = new Set<string>();
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith(".ts")) for (const m of readFileSync(path, "utf8").matchAll(/ownModuleUrl\("([^"]+)"\)/g)) named.add(m[1]!);
      }
    };
    walk(join(root, "src"));
    expect([...named].sort()).toEqual([...RUN_TIME_MODULES].sort());
  });
});

describe("importLater", () => {
  const dir = mkdtempSync(join(tmpdir(), "cuda-ts-later-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, "target.ts"), "export const from = 'ts';\n");

  it("imports the module at the URL", async () => {
    const m = await importLater<{ from: string }>(`file://${dir}/target.ts`, "test");
    expect(m.from).toBe("ts");
  });

  it("passes on a missing module's own error", async () => {
    await expect(importLater(`file://${dir}/absent.ts`, "test")).rejects.toThrow(/absent/);
  });

  it.runIf(!isBun)("on Deno without --allow-read, for files outside an installed package, says which permission to add", () => {
    const script = join(dir, "no-read.ts");
    writeFileSync(
      script,
      `import { DeferredLoadError, importLater } from ${JSON.stringify(join(root, "src/deferred.ts"))};
try {
  await importLater(new URL("./target.ts", import.meta.url).href, "the test's module");
  console.log("loaded");
} catch (e) {
  console.log(e instanceof DeferredLoadError ? "DeferredLoadError: " + e.message : "other: " + String(e));
}
`,
    );
    const r = spawnSync(runtimeExecutable(), ["run", "--no-config", "--allow-env", script], { encoding: "utf8", timeout: 60_000 });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^DeferredLoadError: cuda-ts could not load the test's module \(file:\/\/.*target\.ts\) on first use: .*--allow-read/);
  });
});

describe("deferred modules in a process of this runtime", () => {
  const dir = mkdtempSync(join(tmpdir(), "cuda-ts-deferred-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const ALL = ["cufile", "driver checked (object layer)", "nccl", "nvjitlink", "nvml", "nvrtc", "nvvm", "pathfinder"];

  /** Each step's line: the modules loaded after it (sorted), and how the step ended. */
  function child(env: Record<string, string> = {}): Record<string, { loaded: string[]; outcome: string }> {
    const script = join(dir, "child.ts");
    writeFileSync(
      script,
      `import * as cuda from ${JSON.stringify(join(root, "src/index.ts"))};
import * as system from ${JSON.stringify(join(root, "src/system.ts"))};
import { gdsStatus } from ${JSON.stringify(join(root, "src/gds.ts"))};
import { UniqueId } from ${JSON.stringify(join(root, "src/distributed.ts"))};
import { loadedDeferredModules } from ${JSON.stringify(join(root, "src/deferred.ts"))};
function step(name: string, f: () => unknown): void {
  let outcome = "ran";
  try {
    f();
  } catch (e) {
    // The root's classes: a module loaded later must throw these, not copies of them.
    outcome = e instanceof cuda.LibraryNotFoundError ? "LibraryNotFoundError" : e instanceof cuda.LibraryError ? "LibraryError" : "other: " + String(e);
  }
  console.log(JSON.stringify({ name, loaded: [...loadedDeferredModules()].sort(), outcome }));
}
step("import", () => undefined);
step("system.driverVersion", () => system.driverVersion());
step("gdsStatus", () => gdsStatus());
step("compile", () => new cuda.Program("extern \\"C\\" __global__ void k() {}", "c++").compile("ptx"));
step("UniqueId.create", () => UniqueId.create());
`,
    );
    const cmd = runtimeCommand(script);
    const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd: root, encoding: "utf8", env: { ...process.env, ...env }, timeout: 120_000 });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    const steps: Record<string, { loaded: string[]; outcome: string }> = {};
    for (const line of r.stdout.trim().split("\n")) {
      const o = JSON.parse(line) as { name: string; loaded: string[]; outcome: string };
      steps[o.name] = o;
    }
    return steps;
  }

  it("on Bun importing the root and the system, GDS and distributed entry points loads none of them and each first use loads its own (on Deno all load at import); errors are the root's classes", () => {
    const s = child({ CUDA_TS_TABLES: "newest" });
    if (isBun) {
      expect(s.import!.loaded).toEqual([]);
      expect(s["system.driverVersion"]!.loaded).toEqual(["nvml", "pathfinder"]);
      expect(s.gdsStatus!.loaded).toEqual(["cufile", "nvml", "pathfinder"]);
      expect(s.compile!.loaded).toEqual(["cufile", "nvml", "nvrtc", "pathfinder"]);
      expect(s["UniqueId.create"]!.loaded).toEqual(["cufile", "nccl", "nvml", "nvrtc", "pathfinder"]);
    } else {
      for (const step of Object.values(s)) expect(step.loaded).toEqual(ALL);
    }
    expect(s["system.driverVersion"]!.outcome).toMatch(/^(ran|LibraryNotFoundError|LibraryError)$/);
    expect(s.gdsStatus!.outcome).toMatch(/^(ran|LibraryNotFoundError|LibraryError)$/);
    expect(s.compile!.outcome).toMatch(/^(ran|LibraryNotFoundError|LibraryError)$/);
    expect(s["UniqueId.create"]!.outcome).toMatch(/^(ran|LibraryNotFoundError|LibraryError)$/);
  });

  it("CUDA_TS_EAGER=1 loads them all at import on every runtime", () => {
    expect(child({ CUDA_TS_TABLES: "newest", [EAGER_VARIABLE]: "1" }).import!.loaded).toEqual(ALL);
  });
});
