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
    const entry = [path.join(outDir, "fixture/index.ts"), path.join(outDir, "fixture_ext/index.ts")];
    const r = spawnSync(DENO, ["check", "--quiet", "--config", path.join(ROOT, "deno.json"), ...entry], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  });
});
