/**
 * Publishing to JSR: `deno publish --dry-run` over deno.json (its exports, its `publish.include`) passes JSR's checks,
 * slow types included, and says nothing beyond what is known and meant. The type check itself is `npm run
 * typecheck`'s (`deno check`), so this runs with `--no-check`. The npm side (`npm publish --dry-run` of the built
 * package) is in consumer.test.ts, after it has built dist/.
 *
 * Deno does the work itself, so the test runs once: under Bun's vitest (under Deno's it is skipped, saying so).
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isBun } from "../support/runtime.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const DENO = path.join(ROOT, "node_modules/.bin/deno");
const skip = !isBun ? "it drives Deno itself, so it runs once, under Bun's vitest" : !fs.existsSync(DENO) ? "no node_modules/.bin/deno (run npm ci)" : "";

/**
 * The dynamic imports JSR cannot follow at publish time, each meant: the module is chosen at run time and named
 * relative to the importing module (or is a user's file), so it resolves from jsr.io as from a checkout.
 */
const KNOWN_DYNAMIC_IMPORTS = [
  "src/bindings/tables/registry.ts", // a user's generated tables (useGeneratedTables)
  "src/cli/cuda-ts.ts", // the generator's module, for `cuda-ts generate`
  "src/deferred.ts", // modules loaded on first use (the bindings of optional libraries)
  "src/ffi/bun.ts", // bun:ffi, named so that Deno's checker does not resolve it
  "src/ffi/current.ts", // the FFI backend of the runtime that runs
];

describe.skipIf(skip !== "")(`deno publish --dry-run${skip ? ` (skipped: ${skip})` : ""}`, () => {
  it("passes JSR's checks (slow types included) with only the known dynamic imports to report", () => {
    const r = spawnSync(DENO, ["publish", "--dry-run", "--no-check", "--allow-dirty"], { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" }, timeout: 180_000 });
    const output = `${r.stdout}${r.stderr}`;
    expect(r.status, output).toBe(0);
    expect(output).toContain("Checking for slow types in the public API");
    expect(output).toMatch(/Success\s+Dry run complete/);
    const warnings = [...output.matchAll(/^warning\[([\w-]+)\][^\n]*\n\s*--> (\S+?):\d+:\d+/gm)].map((m) => `${m[1]} ${path.relative(ROOT, m[2]!)}`);
    expect(warnings.filter((w) => !KNOWN_DYNAMIC_IMPORTS.some((f) => w === `unanalyzable-dynamic-import ${f}`)), output).toEqual([]);
    expect(output).not.toMatch(/^error/m);
    // What JSR gets: the sources, generated tables, README and docs/ (it links there), LICENSE, NOTICE and the manifest;
    // no tests, no Node shim.
    const files = [...output.matchAll(/^\s+file:\/\/(\S+)/gm)].map((m) => path.relative(ROOT, m[1]!));
    const top = [...new Set(files.map((f) => f.split("/")[0]!))].sort();
    expect(top).toEqual(["LICENSE", "NOTICE", "README.md", "deno.json", "docs", "generated", "headers-manifest.json", "src"]);
    expect(files).not.toContain("src/node.ts");
  });

  it("names the same version as package.json, and the same entry points", () => {
    const deno = JSON.parse(fs.readFileSync(path.join(ROOT, "deno.json"), "utf8")) as { version: string; exports: Record<string, string> };
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string; exports: Record<string, unknown>; private?: boolean };
    expect(deno.version).toBe(pkg.version);
    expect(Object.keys(deno.exports).sort()).toEqual(Object.keys(pkg.exports).filter((k) => k !== "./package.json").sort());
    expect(pkg.private).toBeUndefined();
  });
});
