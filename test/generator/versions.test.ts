/**
 * Regeneration per CTK version: fixture toolkits 1.0 and 2.0 differ by four things (2.0 adds fxStreamGetPriority,
 * drops fxOld, maps fxAlloc to fxAlloc_v3 instead of fxAlloc_v2, and adds FX_ERROR_TIMEOUT to fxResult). Both are
 * generated into one output root (cuda-1.0/ and cuda-2.0/ side by side); the differences must show in the IR and
 * in the emitted functions.ts and enums.ts, and nothing else may differ but what follows from them.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IrLibrary } from "../../generator/ir.ts";
import { FIXTURE_MANIFEST, fixtureArgs, listTree, makeImportableOut, readJson, removeDir, runGeneratorOk } from "./helpers.ts";

let tmp: { dir: string; out: string } | undefined;
const ir: Record<string, IrLibrary> = {};
const text = (version: string, file: string): string => fs.readFileSync(path.join(tmp!.out, `cuda-${version}`, file), "utf8");
const hashes = (version: string): Record<string, string> =>
  readJson<{ ctk: Record<string, { headers: Record<string, string> }> }>(FIXTURE_MANIFEST).ctk[version]!.headers;

beforeAll(() => {
  tmp = makeImportableOut();
  for (const v of ["1.0", "2.0"] as const) {
    runGeneratorOk([...fixtureArgs(v), "--out", tmp.out, "--emit-ir", path.join(tmp.dir, `ir-${v}`)]);
    ir[v] = readJson<IrLibrary>(path.join(tmp.dir, `ir-${v}`, "fixture.json"));
    ir[`ext-${v}`] = readJson<IrLibrary>(path.join(tmp.dir, `ir-${v}`, "fixture_ext.json"));
  }
});
afterAll(() => removeDir(tmp?.dir));

const names = (l: IrLibrary): string[] => l.functions.map((f) => f.name);
const fn = (v: string, name: string) => ir[v]!.functions.find((f) => f.name === name);

describe("two CTK versions of the fixture toolkit", () => {
  it("both versions live side by side in one output root", () => {
    expect(fs.readdirSync(tmp!.out).sort()).toEqual(["cuda-1.0", "cuda-2.0"]);
    expect(listTree(path.join(tmp!.out, "cuda-1.0"))).toEqual(listTree(path.join(tmp!.out, "cuda-2.0")));
  });

  it("IR: a function added, a function removed, and nothing else", () => {
    const a = names(ir["1.0"]!);
    const b = names(ir["2.0"]!);
    expect(b.filter((n) => !a.includes(n))).toEqual(["fxStreamGetPriority"]);
    expect(a.filter((n) => !b.includes(n))).toEqual(["fxOld"]);
    expect(fn("2.0", "fxStreamGetPriority")).toMatchObject({ symbol: "fxStreamGetPriority", outputs: ["priority"] });
  });

  it("IR: the version macro is remapped from _v2 to _v3, with its cuGetProcAddress version", () => {
    expect([fn("1.0", "fxAlloc")?.symbol, fn("1.0", "fxAlloc")?.procAddress]).toEqual(["fxAlloc_v2", { name: "fxAlloc", version: 1020 }]);
    expect([fn("2.0", "fxAlloc")?.symbol, fn("2.0", "fxAlloc")?.procAddress]).toEqual(["fxAlloc_v3", { name: "fxAlloc", version: 2000 }]);
    const aliasReason = (v: string): string | undefined => ir[v]!.skipped.find((s) => s.name === "fxAlloc")?.reason;
    expect(aliasReason("1.0")).toMatch(/fxAlloc_v2/);
    expect(aliasReason("2.0")).toMatch(/fxAlloc_v3/);
  });

  it("IR: the enum gains a value", () => {
    const values = (v: string) => ir[v]!.enums.find((e) => e.name === "fxResult")!.constants.map((c) => [c.name, c.value]);
    expect(values("1.0")).toEqual([["FX_SUCCESS", "0"], ["FX_ERROR_INVALID_VALUE", "1"], ["FX_ERROR_NOT_READY", "600"], ["FX_ERROR_UNKNOWN", "999"]]);
    expect(values("2.0")).toEqual([["FX_SUCCESS", "0"], ["FX_ERROR_INVALID_VALUE", "1"], ["FX_ERROR_NOT_READY", "600"], ["FX_ERROR_TIMEOUT", "700"], ["FX_ERROR_UNKNOWN", "999"]]);
  });

  it("IR: everything else is the same (records, typedefs, other enums, unchanged functions)", () => {
    const strip = (l: IrLibrary) => ({
      records: l.records.map(({ location: _l, ...r }) => r),
      typedefs: l.typedefs.map(({ location: _l, ...t }) => t),
      enums: l.enums.filter((e) => e.name !== "fxResult").map(({ location: _l, ...e }) => e),
      functions: l.functions
        .filter((f) => !["fxAlloc", "fxOld", "fxStreamGetPriority"].includes(f.name))
        .map(({ location: _l, ...f }) => f),
    });
    // Type spellings of anonymous records carry their line ("struct (unnamed struct at fixture.h:176:5)").
    const same = (l: IrLibrary): unknown => JSON.parse(JSON.stringify(strip(l)).replace(/fixture\.h:\d+:\d+/g, "fixture.h"));
    expect(same(ir["2.0"]!)).toEqual(same(ir["1.0"]!));
    expect(ir["1.0"]!.constants.find((c) => c.name === "FX_VERSION")).toMatchObject({ kind: "int", value: "1000" });
    expect(ir["2.0"]!.constants.find((c) => c.name === "FX_VERSION")).toMatchObject({ kind: "int", value: "2000" });
  });

  it("functions.ts and raw.ts: the table and the raw interface follow", () => {
    const a = text("1.0", "fixture/functions.ts");
    const b = text("2.0", "fixture/functions.ts");
    expect(a).toContain('  "fxAlloc": { "symbol": "fxAlloc_v2", "parameters": ["pointer", "u64"], "names": ["dptr", "bytesize"], "result": "u32", "procAddress": { "name": "fxAlloc", "version": 1020 } },');
    expect(b).toContain('  "fxAlloc": { "symbol": "fxAlloc_v3", "parameters": ["pointer", "u64"], "names": ["dptr", "bytesize"], "result": "u32", "procAddress": { "name": "fxAlloc", "version": 2000 } },');
    expect(a).toContain('  "fxOld": {');
    expect(b).not.toMatch(/\bfxOld\b/);
    expect(a).not.toContain("fxStreamGetPriority");
    expect(b).toContain('  "fxStreamGetPriority": { "symbol": "fxStreamGetPriority", "parameters": ["pointer", "pointer"], "names": ["hStream", "priority"], "result": "u32" }');
    expect(text("2.0", "fixture/raw.ts")).toContain("  fxStreamGetPriority(hStream: fxStream, priority: Pointer): fxResult;");
    expect(text("1.0", "fixture/raw.ts")).not.toContain("fxStreamGetPriority");
    expect(text("2.0", "fixture/checked.ts")).toContain("  fxStreamGetPriority(hStream: fxStream): number;");
  });

  it("enums.ts: the new enumerator", () => {
    expect(text("1.0", "fixture/enums.ts")).not.toContain("FX_ERROR_TIMEOUT");
    expect(text("2.0", "fixture/enums.ts")).toContain("  /** The operation timed out. */\n  FX_ERROR_TIMEOUT: 700,\n");
  });

  it("every file's header names its CTK version and the sha256 of each header it came from", () => {
    for (const v of ["1.0", "2.0"]) {
      const h = hashes(v);
      for (const f of listTree(path.join(tmp!.out, `cuda-${v}`)).filter((x) => x.endsWith(".ts"))) {
        const lines = text(v, f).split("\n");
        const lib = f.split("/")[0]!;
        expect(lines[0], `${v}/${f}`).toBe(`// ${f}: generated by cuda-ts (generator/main.ts) from the CUDA Toolkit ${v} headers.`);
        const headers = lines.filter((l) => l.startsWith("// Header "));
        const want = lib === "fixture" ? ["fixture.h", "fixtureTypedefs.h"] : ["fixture_ext.h"];
        expect(headers, `${v}/${f}`).toEqual(want.map((x) => `// Header ${x} sha256 ${h[x]}`));
        expect(lines.some((l) => /^\/\/ Seal: sha256 [0-9a-f]{64}$/.test(l)), `${v}/${f}`).toBe(true);
      }
      expect(text(v, "fixture/functions.ts")).toContain(`ctkVersion: "${v}"`);
    }
    // fixture.h changed between the versions; fixture_ext.h did not.
    expect(hashes("1.0")["fixture.h"]).not.toBe(hashes("2.0")["fixture.h"]);
    expect(hashes("1.0")["fixture_ext.h"]).toBe(hashes("2.0")["fixture_ext.h"]);
  });

  it("the second library's output only differs in its version line and seals' context", () => {
    // fixture_ext.h is the same file in both toolkits: its generated files differ only in the CTK version.
    for (const f of ["enums.ts", "records.ts", "functions.ts", "raw.ts", "checked.ts", "types.ts", "constants.ts", "index.ts"]) {
      const a = text("1.0", `fixture_ext/${f}`).replace(/CUDA Toolkit 1\.0 headers|ctkVersion: "1\.0"/g, "X");
      const b = text("2.0", `fixture_ext/${f}`).replace(/CUDA Toolkit 2\.0 headers|ctkVersion: "2\.0"/g, "X");
      const body = (s: string): string => s.slice(s.indexOf("\n\n"));
      expect(body(b), f).toBe(body(a));
    }
    expect(ir["ext-2.0"]!.functions).toEqual(ir["ext-1.0"]!.functions);
  });
});
