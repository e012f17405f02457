/**
 * bench/import-split.ts: its reading of a built module graph (static imports, top-level awaits, leaf-first order),
 * and a run over a three-module graph on the runtime running the tests, where the module that does work at its top
 * level shows that work as evaluation and the one with a top-level await is marked so. The times mean nothing here.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { hasTopLevelAwait, leafFirst, staticImports } from "../../bench/import-split.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const isBun = (globalThis as { Bun?: unknown }).Bun !== undefined;
const self = isBun ? process.execPath : (globalThis as unknown as { Deno: { execPath(): string } }).Deno.execPath();

describe("bench/import-split.ts", () => {
  it("reads static imports and re-exports of minified modules, not dynamic ones", () => {
    const text = `// @bun\nimport{a as b}from"./chunk-a.js";import"./chunk-b.js";export{c}from"../chunks/chunk-c.js";var x=()=>import("./lazy.js");export*from"./d.js";`;
    expect(staticImports(text)).toEqual(["./chunk-a.js", "./chunk-b.js", "../chunks/chunk-c.js", "./d.js"]);
    expect(staticImports(`import { x } from "node:fs"; import y from "./y.js";`)).toEqual(["./y.js"]);
  });

  it("tells a top-level await from one inside a function or a string", () => {
    expect(hasTopLevelAwait(`var m=await load();export{m};`)).toBe(true);
    expect(hasTopLevelAwait(`async function f(){return await g()}var s="await x",t=\`await\`;`)).toBe(false);
    expect(hasTopLevelAwait(`var awaiting=1,x=o.await;`)).toBe(false);
  });

  it("measures each module of a graph apart, leaf-first, on this runtime", () => {
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-import-split-"));
    writeFileSync(join(dir, "leaf.js"), `export const leaf = 1;\n`);
    // Work at the top level: a deferred import leaves it to the first use.
    writeFileSync(join(dir, "busy.js"), `import { leaf } from "./leaf.js";\nlet s = leaf; for (let i = 0; i < 3e6; i++) s = (s * 31 + i) % 1000003;\nexport const busy = s;\n`);
    writeFileSync(join(dir, "entry.js"), `import { busy } from "./busy.js";\nconst v = await Promise.resolve(busy);\nexport { v };\n`);
    expect(leafFirst(join(dir, "entry.js")).map((f) => f.slice(dir.length + 1))).toEqual(["leaf.js", "busy.js", "entry.js"]);

    const runtime = isBun ? "bun" : "deno";
    const args = [join(root, "bench/import-split.ts"), "--entry", join(dir, "entry.js"), "--runs", "1", "--runtimes", runtime];
    const r = spawnSync(self, isBun ? args : ["run", "-A", ...args], { cwd: root, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    const rows = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as { runtime: string; module: string; tla: boolean; plain: number; load: number; evaluate: number; fixed: number });
    expect(rows.map((x) => [x.runtime, x.module, x.tla])).toEqual([
      [runtime, "leaf.js", false],
      [runtime, "busy.js", false],
      [runtime, "entry.js", true],
    ]);
    const busy = rows[1]!;
    // The loop is evaluation: deferred, it runs at the first use, not at the import.
    expect(busy.evaluate).toBeGreaterThan(busy.load);
    for (const x of rows) for (const v of [x.plain, x.load, x.evaluate, x.fixed]) expect(v).toBeGreaterThanOrEqual(0);
    expect(r.stderr).toMatch(new RegExp(`${runtime}: .*entry\\.js, 3 modules`));
  });
});
