/**
 * Golden output: the files the generator writes for fixture toolkit 1.0 (test/fixtures/generator/toolkit-1.0),
 * compared byte for byte with test/fixtures/generator/expected-1.0/.
 *
 * The expected files are named `<library>/<file>.ts.golden` (and `report.json`): with a .ts name, `tsc -p .` and
 * `deno check test` would read them, and their imports (`../../../src/...`) only resolve from generated/cuda-X.Y.
 * This test type-checks the generated fixture modules in place instead (see the last test).
 *
 * After an intended change of the generator's output (or of the fixture headers), rewrite the expectations and
 * review the diff before committing it:
 *
 *   UPDATE_GOLDEN=1 bun --bun node_modules/.bin/vitest run test/generator/golden.test.ts
 *
 * (the fixture headers' sha256 live in test/fixtures/generator/manifest.json; after editing a header run
 * `deno run -A generator/main.ts --manifest test/fixtures/generator/manifest.json --include
 * test/fixtures/generator/toolkit-1.0/include --ctk-version 1.0 --record-hashes`, and the same for 2.0.)
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DENO, fixtureArgs, GOLDEN_DIR, listTree, makeImportableOut, removeDir, ROOT, runGeneratorOk } from "./helpers.ts";

const UPDATE = process.env.UPDATE_GOLDEN === "1";

/** Output file (relative to cuda-1.0/) → its golden file (relative to expected-1.0/). */
const goldenName = (f: string): string => (f.endsWith(".ts") ? `${f}.golden` : f);

let tmp: { dir: string; out: string } | undefined;
let outDir = "";

beforeAll(() => {
  tmp = makeImportableOut();
  runGeneratorOk([...fixtureArgs("1.0"), "--out", tmp.out]);
  outDir = path.join(tmp.out, "cuda-1.0");
  if (UPDATE) {
    fs.rmSync(GOLDEN_DIR, { recursive: true, force: true });
    for (const f of listTree(outDir)) {
      const dst = path.join(GOLDEN_DIR, goldenName(f));
      fs.mkdirSync(path.dirname(dst), { recursive: true });
      fs.copyFileSync(path.join(outDir, f), dst);
    }
  }
});

afterAll(() => removeDir(tmp?.dir));

describe("golden output of fixture toolkit 1.0", () => {
  it("writes exactly the expected set of files", () => {
    const produced = listTree(outDir).map(goldenName);
    expect(produced).toEqual(listTree(GOLDEN_DIR));
    expect(produced).toContain("fixture/records.ts.golden");
    expect(produced).toContain("fixture_ext/functions.ts.golden");
    expect(produced).toContain("report.json");
  });

  it("every file is byte-for-byte the expected one (UPDATE_GOLDEN=1 rewrites them)", () => {
    const differing: string[] = [];
    for (const f of listTree(outDir)) {
      const want = path.join(GOLDEN_DIR, goldenName(f));
      if (!fs.existsSync(want)) {
        differing.push(`${f}: no expectation`);
        continue;
      }
      const a = fs.readFileSync(path.join(outDir, f));
      const b = fs.readFileSync(want);
      if (!a.equals(b)) {
        const al = a.toString("utf8").split("\n");
        const bl = b.toString("utf8").split("\n");
        const i = al.findIndex((l, k) => l !== bl[k]);
        differing.push(`${f}: first difference at line ${i + 1}:\n    generated: ${al[i]}\n    expected:  ${bl[i]}`);
      }
    }
    expect(differing, `outputs differ from ${GOLDEN_DIR}; if intended, rerun with UPDATE_GOLDEN=1 and review the diff`).toEqual([]);
  });

  it("the generated fixture modules type-check (deno check)", () => {
    const entry = [path.join(outDir, "fixture/index.ts"), path.join(outDir, "fixture/basics.ts"), path.join(outDir, "fixture_ext/index.ts")];
    const r = spawnSync(DENO, ["check", "--quiet", "--config", path.join(ROOT, "deno.json"), ...entry], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  });

  it("a subset holds its functions, the records they reach and its constants, and loads no other module of the library", async () => {
    const basics = (await import(path.join(outDir, "fixture/basics.ts"))) as Record<string, unknown> & { functions: Record<string, unknown> };
    // The manifest's order is not the table's: the header's order is kept. fxNotDeclaredHere is left out.
    expect(Object.keys(basics.functions)).toEqual(["fxInit", "fxMemGetInfo", "fxMakeLocation", "fxScale", "fxStreamGetLocation", "fxLaunchConfigure"]);
    // fxLaunchConfig_st holds fxValue_u and fxLocation_st by value; fxFloat2_st and fxLocation_st travel by value.
    for (const r of ["fxLocation_st", "fxFloat2_st", "fxValue_u", "fxLaunchConfig_st"]) expect(typeof basics[r], r).toBe("function");
    expect([basics.fxExtent_st, basics.fxNested_st, basics.fxSigned]).toEqual([undefined, undefined, undefined]);
    expect([basics.FX_VERSION, basics.FX_MAX_DEVICES, basics.FX_ANON_FIRST]).toEqual([1000, 64, undefined]);
    expect(typeof basics.fxResult).toBe("object");
    expect(typeof basics.createChecked).toBe("function");
    const whole = /^import (?!type )[^\n]*from "\.\/(enums|constants|types|records|functions|raw|checked|checked-impl|index)\.ts";$/m;
    for (const f of listTree(path.join(outDir, "fixture")).filter((n) => n.startsWith("basics."))) {
      expect(whole.test(fs.readFileSync(path.join(outDir, "fixture", f), "utf8")), f).toBe(false);
    }
  });
});
