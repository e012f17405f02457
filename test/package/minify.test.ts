/**
 * The package's JavaScript is minified at build (scripts/minify-dist.ts): every name kept, every import kept.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { relativeSpecifiers } from "../../scripts/minify-dist.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const bun = join(root, "node_modules", ".bin", "bun");

describe("minify-dist", () => {
  it("lists a module's relative imports: static, re-exports, side effects, dynamic; not packages", () => {
    const text = [
      'import { a } from "./a.js";',
      'export * from "../b.js";',
      'import "./side.js";',
      'const later = () => import("./later.js");',
      'import{c}from"./c.js";',
      'import { readFileSync } from "node:fs";',
    ].join("\n");
    expect(relativeSpecifiers(text)).toEqual(["../b.js", "./a.js", "./c.js", "./later.js", "./side.js"]);
  });

  const dir = mkdtempSync(join(tmpdir(), "cuda-ts-minify-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps the names of classes, functions and errors, and every import, in place", () => {
    mkdirSync(join(dir, "m"));
    const file = join(dir, "m", "x.js");
    writeFileSync(
      file,
      [
        'import { helper } from "./helper.js";',
        'export { other } from "../other.js";',
        'export {} from "./side-effect.js";',
        "export class DeviceThing {",
        "    constructor(value) {",
        "        this.value = helper(value);",
        "    }",
        "}",
        "export class ThingError extends Error {",
        '    constructor(message) { super(message); this.name = "ThingError"; }',
        "}",
        "export async function loadLater() {",
        '    return await import("./later.js");',
        "}",
        "",
      ].join("\n"),
    );
    const before = readFileSync(file, "utf8").length;
    const r = spawnSync(bun, ["scripts/minify-dist.ts", dir], { cwd: root, encoding: "utf8" });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    const out = readFileSync(file, "utf8");
    expect(out.startsWith("// @bun\n")).toBe(true);
    expect(out).toMatch(/class DeviceThing\b/);
    expect(out).toMatch(/class ThingError extends Error/);
    expect(out).toMatch(/function loadLater\(/);
    expect(relativeSpecifiers(out)).toEqual(["../other.js", "./helper.js", "./later.js", "./side-effect.js"]);
    expect(out.length).toBeLessThan(before);
  });
});
