/**
 * The shape of src/: value imports point one way (no file reaches itself through value imports), and below the
 * hub (src/core/device.ts) files import `Device` as a type only. A type-only import costs nothing at run time and
 * cannot form a loading cycle, so it is allowed anywhere.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
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
    expect(importers.sort()).toEqual(["src/index.ts"]);
  });

  it("reaches the host (file system, environment, platform, Deno's permissions) only through src/host.ts", () => {
    const hostAccess = /from "node:fs"|process\.env|process\.platform|\.permissions\.query/;
    const others = [...graph.keys()].filter((f) => f !== "src/host.ts" && hostAccess.test(readFileSync(resolve(root, f), "utf8")));
    expect(others).toEqual([]);
  });

  it("names no module in a literal import() below the root unless it loads at import (Deno fetches and parses those at start)", () => {
    // Deno fetches and parses every `import("./literal")` of the graph it loads, called or not; modules loaded later
    // are named at run time (importLater in src/deferred.ts). These load at import on Deno anyway.
    const atImport = new Set([
      "src/ffi/current.ts -> ./deno.ts",
      "src/pathfinder/system-loader.ts -> ../ffi/dl.ts",
      "src/pathfinder/on-demand.ts -> ./index.ts",
      "src/bindings/tables/driver.ts -> ../../../generated/cuda-13.0/driver/checked-impl.core.ts",
      // The older tables, at import where the driver needs them. Named literally so that `deno run --allow-ffi` runs
      // from the sources too (a module named at run time needs --allow-read there); Deno's fetching them costs
      // nothing measurable (CPU machine, medians of 21), unlike the math libraries' and CUPTI's tables (10 ms).
      "src/bindings/tables/driver.ts -> ../../../generated/cuda-12.4/driver/index.ts",
      "src/core/system/nvml-binding.ts -> ../../../generated/cuda-12.4/nvml/system.ts",
      "src/core/program/libraries.ts -> ../../bindings/nvrtc.ts",
      "src/core/program/libraries.ts -> ../../bindings/nvjitlink.ts",
      "src/core/program/libraries.ts -> ../../bindings/nvvm.ts",
      "src/core/gds/cufile-module.ts -> ./cufile-binding.ts",
      "src/core/system/nvml-module.ts -> ./nvml-binding.ts",
      "src/core/distributed/nccl-module.ts -> ../../bindings/nccl.ts",
    ]);
    const literal = /(?<![.\w])import\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g;
    const found: string[] = [];
    const reached = new Set<string>();
    // The static graph, and on Deno also the modules the allowed literal imports load at import.
    const visit = (f: string): void => {
      if (reached.has(f)) return;
      reached.add(f);
      for (const g of graph.get(f) ?? []) visit(g);
      const code = readFileSync(resolve(root, f), "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/^\s*\/\/.*$/gm, "")
        .replace(/typeof import\(/g, "");
      for (const m of code.matchAll(literal)) {
        const edge = `${f} -> ${m[1]}`;
        found.push(edge);
        if (atImport.has(edge)) visit(join(dirname(f), m[1]!));
      }
    };
    // The object layer's entry points: the root's graph and each subject's (deno.json's exports name their sources;
    // the bindings' entry points are the generated tables', with the older tables named literally, as above).
    const exportsOf = JSON.parse(readFileSync(resolve(root, "deno.json"), "utf8")) as { exports: Record<string, string> };
    for (const source of Object.values(exportsOf.exports)) if (/^\.\/src\/[\w-]+\.ts$/.test(source)) visit(source.slice(2));
    expect(found.filter((e) => !atImport.has(e)), "use importLater(import.meta, specifier, name) for modules loaded later").toEqual([]);
    expect(found.length, "the allowed literal imports are still there (update the list when they move)").toBeGreaterThanOrEqual(atImport.size);
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
