/**
 * The package's JavaScript is bundled at build (scripts/bundle-dist.ts): entry points at their paths, shared chunks,
 * names as in the sources, the layout root's path written where src/module-url.ts's code lands.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { declaredNames, directReexports, entryPoints, LAYOUT_MARK, placeLayoutRoot, renamedDeclarations, restoreNames } from "../../scripts/bundle-dist.ts";
import { RUN_TIME_MODULES } from "../../src/module-url.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");

describe("bundle-dist", () => {
  const dir = mkdtempSync(join(tmpdir(), "cuda-ts-bundle-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("makes every exports target, every module loaded at run time, node.js and the CLI an entry point", () => {
    const entries = entryPoints(root, join(root, "dist"));
    expect(entries).toContain(join(root, "dist/src/index.js"));
    expect(entries).toContain(join(root, "dist/src/bindings/driver-entry.js"));
    expect(entries).toContain(join(root, "dist/src/bindings/driver-types.js"));
    expect(entries).toContain(join(root, "dist/src/node.js"));
    expect(entries).toContain(join(root, "dist/src/cli/cuda-ts.js"));
    for (const path of RUN_TIME_MODULES) expect(entries).toContain(join(root, "dist", `${path}.js`));
  });

  it("finds the declarations a bundler renamed (Foo2 for Foo, X3D2 for X3D), not names the inputs declare", () => {
    const inputs = declaredNames("class Foo{} function helper(){} class X3D{} class Stream2{} function* gen(){}");
    expect([...inputs].sort()).toEqual(["Foo", "Stream2", "X3D", "gen", "helper"]);
    const renamed = renamedDeclarations(inputs, "class Foo2{} class Stream2{} function helper3(){} class X3D2{} class Other9{}");
    expect([...renamed]).toEqual([
      ["Foo2", "Foo"],
      ["X3D2", "X3D"],
      ["helper3", "helper"],
    ]);
  });

  it("gives renamed classes and functions their names back, in place where the name is free, keeping export names", async () => {
    const source = [
      "// @bun",
      "class Foo2{static make(){return new Foo2}}",
      "function helper2(){return {helper2}}",
      "class Taken2 extends Error{}",
      "function busy2(){return 1}",
      "const Taken = 1, busy = 2;",
      "class Twin2{} class Twin3{}",
      "export{Foo2,helper2 as helper,Taken2,busy2,Taken,busy,Twin2,Twin3};",
    ].join("\n");
    const r = restoreNames(
      source,
      new Map([
        ["Foo2", "Foo"],
        ["helper2", "helper"],
        ["Taken2", "Taken"],
        ["busy2", "busy"],
        ["Twin2", "Twin"],
        ["Twin3", "Twin"],
      ]),
    );
    expect(r.inPlace).toBe(3);
    expect(r.set).toBe(3);
    expect(r.text).toContain("class Foo{static make(){return new Foo}}");
    expect(r.text).toContain("export{Foo as Foo2,helper as helper,");
    expect(r.text).toContain("{helper2:helper}");
    const file = join(dir, "restored.js");
    writeFileSync(file, r.text);
    const m = (await import(pathToFileURL(file).href)) as Record<string, { name: string } & (() => unknown)>;
    expect(m.Foo2!.name).toBe("Foo");
    expect((m.Foo2 as unknown as { make(): object }).make().constructor.name).toBe("Foo");
    expect(m.helper!.name).toBe("helper");
    expect(Object.keys(m.helper!() as object)).toEqual(["helper2"]);
    expect(m.Taken2!.name).toBe("Taken");
    expect(m.busy2!.name).toBe("busy");
    expect(m.Taken).toBe(1);
    expect([m.Twin2!.name, m.Twin3!.name]).toEqual(["Twin", "Twin"]);
  });

  it("rewrites an entry that only imports and re-exports as export-from statements, in the imports' order", async () => {
    const entry = '// @bun\nimport{a2,b}from"./c1.js";import"./side.js";import{d as e}from"./c2.js";export{a2 as a,b,b as bb,e as d};';
    expect(directReexports(entry)).toBe('// @bun\nexport{a2 as a,b,b as bb}from"./c1.js";import"./side.js";export{d}from"./c2.js";');
    expect(directReexports('import{a}from"./c.js";const x=a+1;export{x};')).toBe('import{a}from"./c.js";const x=a+1;export{x};');
    expect(directReexports('import{a}from"./c.js";export{a,z};')).toBe('import{a}from"./c.js";export{a,z};');
    writeFileSync(join(dir, "c1.js"), "export const a2 = 1, b = 2;\n");
    writeFileSync(join(dir, "c2.js"), "export const d = 4;\n");
    writeFileSync(join(dir, "side.js"), "globalThis.__sideEffectRan = true;\n");
    writeFileSync(join(dir, "entry.js"), directReexports(entry));
    const m = (await import(pathToFileURL(join(dir, "entry.js")).href)) as Record<string, number>;
    expect({ ...m }).toEqual({ a: 1, b: 2, bb: 2, d: 4 });
    expect((globalThis as { __sideEffectRan?: boolean }).__sideEffectRan).toBe(true);
  });

  it("writes the layout root's path where src/module-url.ts's mark is, and refuses none or two", () => {
    expect(placeLayoutRoot(`const R=new URL("../${LAYOUT_MARK}",import.meta.url);`, "../../")).toBe(`const R=new URL("../../${LAYOUT_MARK}",import.meta.url);`);
    expect(() => placeLayoutRoot("const R=1;", "../")).toThrow(/expected one/);
    expect(() => placeLayoutRoot(`"../${LAYOUT_MARK}";"../${LAYOUT_MARK}"`, "../")).toThrow(/found 2/);
  });
});
