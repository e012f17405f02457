/**
 * Determinism and `--check`: two generations are byte-identical; `--check` passes right after a generation and
 * fails (exit 1, naming the file) after an edit; for a library whose headers are absent it verifies each file's
 * seal and the header hashes the file records against the manifest.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  copyTree,
  fixtureArgs,
  fixtureInclude,
  listTree,
  makeTempDir,
  removeDir,
  runGenerator,
  runGeneratorOk,
  snapshotTree,
} from "./helpers.ts";

let dir = "";
beforeAll(() => {
  dir = makeTempDir();
});
afterAll(() => removeDir(dir));

/** Generates fixture 1.0 into a new output root under the test's folder. */
function generate(name: string, extra: string[] = []): string {
  const out = path.join(dir, name);
  runGeneratorOk([...fixtureArgs("1.0"), "--out", out, ...extra]);
  return out;
}

describe("determinism", () => {
  it("two generations (and their IR) into two folders are byte-identical", () => {
    const a = generate("a", ["--emit-ir", path.join(dir, "ir-a")]);
    const b = generate("b", ["--emit-ir", path.join(dir, "ir-b")]);
    const ta = snapshotTree(a);
    expect(ta.size).toBe(28); // 9 files per library, 8 of the fixture library's subset, 1 of fixture_ext's maker part, and report.json
    expect(snapshotTree(b)).toEqual(ta);
    expect(snapshotTree(path.join(dir, "ir-b"))).toEqual(snapshotTree(path.join(dir, "ir-a")));
  });

  it("regenerating over an existing output replaces it atomically with the same bytes and leaves no temporary folders", () => {
    const a = generate("again");
    const before = snapshotTree(a);
    generate("again");
    expect(snapshotTree(a)).toEqual(before);
    expect(fs.readdirSync(a)).toEqual(["cuda-1.0"]);
  });
});

describe("--check", () => {
  it("passes right after a generation", () => {
    const out = generate("check-ok");
    const r = runGenerator([...fixtureArgs("1.0"), "--out", out, "--check"]);
    expect(r.status, r.output).toBe(0);
    expect(r.stdout).toContain("generated/ matches: 2 libraries regenerated and compared, 0 checked against the manifest's sha256");
  });

  it("fails with exit 1 naming the file after an edit, and writes nothing", () => {
    const out = generate("check-edit");
    const file = path.join(out, "cuda-1.0/fixture/enums.ts");
    fs.appendFileSync(file, "// an edit\n");
    const before = snapshotTree(out);
    const r = runGenerator([...fixtureArgs("1.0"), "--out", out, "--check"]);
    expect(r.status, r.output).toBe(1);
    expect(r.stdout).toContain(`${file}: differs from a fresh generation`);
    expect(r.stdout).toContain("Run `npm run generate` and commit the result.");
    expect(snapshotTree(out)).toEqual(before);
  });

  it("fails for a missing file and for a file the generator does not produce", () => {
    const out = generate("check-files");
    fs.rmSync(path.join(out, "cuda-1.0/fixture_ext/types.ts"));
    fs.writeFileSync(path.join(out, "cuda-1.0/fixture/extra.ts"), "export {};\n");
    const r = runGenerator([...fixtureArgs("1.0"), "--out", out, "--check"]);
    expect(r.status, r.output).toBe(1);
    expect(r.stdout).toContain(`${path.join(out, "cuda-1.0/fixture_ext/types.ts")}: missing`);
    expect(r.stdout).toContain(`${path.join(out, "cuda-1.0/fixture/extra.ts")}: not produced by the generator`);
  });

  it("fails when nothing was generated yet", () => {
    const r = runGenerator([...fixtureArgs("1.0"), "--out", path.join(dir, "never-generated"), "--check"]);
    expect(r.status, r.output).toBe(1);
    expect(r.stdout).toMatch(/fixture\/enums\.ts: missing/);
  });

  describe("with a library's headers absent", () => {
    let out = "";
    let partial = "";
    beforeAll(() => {
      // Generate with every header present, then check with an include folder that lacks fixture_ext.h.
      out = generate("absent");
      partial = path.join(dir, "partial-include");
      copyTree(fixtureInclude("1.0"), partial, ["fixture_ext.h"]);
    });
    const check = () => runGenerator([...fixtureArgs("1.0", { include: partial }), "--out", out, "--check"]);

    it("passes: the present library is regenerated and compared, the absent one checked by seal and hashes", () => {
      const r = check();
      expect(r.status, r.output).toBe(0);
      expect(r.stdout).toMatch(/fixture_ext .* headers absent: checked against the manifest's sha256/);
      expect(r.stdout).toContain("1 libraries regenerated and compared, 1 checked against the manifest's sha256 (headers absent)");
    });

    it("generating without the headers keeps the absent library's files as they are", () => {
      const copy = path.join(dir, "absent-copy");
      copyTree(out, copy);
      const before = snapshotTree(copy);
      runGeneratorOk([...fixtureArgs("1.0", { include: partial }), "--out", copy]);
      expect(snapshotTree(copy)).toEqual(before);
    });

    it("fails when a file of the absent library was edited (its seal no longer matches)", () => {
      const file = path.join(out, "cuda-1.0/fixture_ext/enums.ts");
      const original = fs.readFileSync(file, "utf8");
      try {
        fs.writeFileSync(file, original.replace("FXE_KIND_WRITE: 1,", "FXE_KIND_WRITE: 2,"));
        const r = check();
        expect(r.status, r.output).toBe(1);
        expect(r.stdout).toContain(`${file}: content does not match its seal (edited by hand?)`);
      } finally {
        fs.writeFileSync(file, original);
      }
      expect(check().status).toBe(0);
    });

    it("fails when a file of the absent library was generated from other headers than the manifest's", () => {
      const file = path.join(out, "cuda-1.0/fixture_ext/records.ts");
      const original = fs.readFileSync(file, "utf8");
      try {
        // The header lines are outside the seal: only the recorded hash tells.
        fs.writeFileSync(file, original.replace(/^(\/\/ Header fixture_ext\.h sha256 )[0-9a-f]{64}$/m, `$1${"0".repeat(64)}`));
        const r = check();
        expect(r.status, r.output).toBe(1);
        expect(r.stdout).toContain(`${file}: was generated from fixture_ext.h ${"0".repeat(64)}, the manifest says `);
      } finally {
        fs.writeFileSync(file, original);
      }
    });

    it("fails when the absent library's folder is missing", () => {
      const copy = path.join(dir, "absent-missing");
      copyTree(out, copy);
      fs.rmSync(path.join(copy, "cuda-1.0/fixture_ext"), { recursive: true });
      const r = runGenerator([...fixtureArgs("1.0", { include: partial }), "--out", copy, "--check"]);
      expect(r.status, r.output).toBe(1);
      expect(r.stdout).toContain(`${path.join(copy, "cuda-1.0/fixture_ext")}: missing (and its headers are not here to generate it)`);
      expect(listTree(path.join(copy, "cuda-1.0"))).not.toContain("fixture_ext/enums.ts");
    });
  });
});

describe("folders a killed generation left behind", () => {
  /** An output root with a generation and the leftovers of a generation killed as process `pid` (not running). */
  function withLeftovers(name: string): { out: string; leftovers: string[] } {
    const out = generate(name);
    const leftovers = [path.join(out, "cuda-1.0.tmp-999999999"), path.join(out, "cuda-1.0.old-999999998")];
    for (const l of leftovers) {
      fs.mkdirSync(path.join(l, "fixture"), { recursive: true });
      fs.writeFileSync(path.join(l, "fixture/enums.ts"), "// half written\n");
    }
    return { out, leftovers };
  }

  it("--check reports them (exit 1) and leaves them", () => {
    const { out, leftovers } = withLeftovers("leftover-check");
    const r = runGenerator([...fixtureArgs("1.0"), "--out", out, "--check"]);
    expect(r.status, r.output).toBe(1);
    for (const l of leftovers) {
      expect(r.stdout).toContain(`${l}: left behind by a generation that did not finish`);
      expect(fs.existsSync(l)).toBe(true);
    }
  });

  it("a generation removes them, saying so", () => {
    const { out, leftovers } = withLeftovers("leftover-generate");
    const r = runGeneratorOk([...fixtureArgs("1.0"), "--out", out]);
    for (const l of leftovers) expect(r.stdout).toContain(`removed ${l} (left behind by a generation that did not finish)`);
    expect(fs.readdirSync(out)).toEqual(["cuda-1.0"]);
  });
});

describe("a fresh --out", () => {
  it("gets a folder only for the libraries generated (none for one whose headers are absent)", () => {
    const include = path.join(dir, "fresh-no-ext");
    copyTree(fixtureInclude("1.0"), include, ["fixture_ext.h"]);
    const out = path.join(dir, "fresh-out");
    runGeneratorOk([...fixtureArgs("1.0", { include }), "--out", out]);
    expect(fs.readdirSync(path.join(out, "cuda-1.0")).sort()).toEqual(["fixture", "report.json"]);
  });
});
