/**
 * The shape of src/: value imports point one way (no file reaches itself through value imports), and below the
 * hub (src/core/device.ts) files import `Device` as a type only. A type-only import costs nothing at run time and
 * cannot form a loading cycle, so it is allowed anywhere.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { valueImportCycles, valueImportGraph, valueImports } from "./support/import-graph.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "..");
const graph = valueImportGraph(root, "src");

describe("imports in src/", () => {
  it("has no value-import cycle", () => {
    const cycles = valueImportCycles(graph).map((c) => c.join(" → "));
    expect(cycles, "files that import each other by value (make one side `import type`, or move the shared part down)").toEqual([]);
  });

  it("imports Device by value only in the hub's entry points", () => {
    const importers = [...graph].filter(([, to]) => to.includes("src/core/device.ts")).map(([from]) => from);
    expect(importers.sort()).toEqual(["src/core/index.ts"]);
  });

  it("reaches the host (file system, environment, platform, Deno's permissions) only through src/host.ts", () => {
    const hostAccess = /from "node:fs"|process\.env|process\.platform|\.permissions\.query/;
    const others = [...graph.keys()].filter((f) => f !== "src/host.ts" && hostAccess.test(readFileSync(resolve(root, f), "utf8")));
    expect(others).toEqual([]);
  });

  it("sees a lot of files (the walk found src/)", () => {
    expect(graph.size).toBeGreaterThan(100);
  });
});

describe("the import checker", () => {
  it("counts value imports and re-exports, not type-only ones", () => {
    const text = [
      'import { a } from "./a.ts";',
      'import type { B } from "./b.ts";',
      'import { type C, type D } from "./c.ts";',
      'import { type E, e } from "./e.ts";',
      'export { f } from "../f.ts";',
      'export type { G } from "./g.ts";',
      'import * as h from "./h.ts";',
      'import {\n  i,\n  type I,\n} from "./i.ts";',
      'import "./side-effect.ts";',
      'import { x } from "node:fs";',
      'const later = await import("./dynamic.ts");',
    ].join("\n");
    expect(valueImports("src/m/x.ts", text).sort()).toEqual(
      ["src/f.ts", "src/m/a.ts", "src/m/e.ts", "src/m/h.ts", "src/m/i.ts", "src/m/side-effect.ts"].sort(),
    );
  });

  it("finds a cycle through several files and none in a chain", () => {
    const cyclic = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]]);
    expect(valueImportCycles(cyclic)).toEqual([["a", "b", "c"]]);
    expect(valueImportCycles(new Map([["a", ["b"]], ["b", ["c"]], ["c", []]]))).toEqual([]);
  });
});
