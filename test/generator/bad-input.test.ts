/**
 * Bad input: each problem stops the generator with exit status 2 and a message that names the file, line or
 * setting at fault (and, mostly, what to do), before anything is written: the output root and the --emit-ir
 * folder stay exactly as they were.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  copyTree,
  FIXTURE_MANIFEST,
  FIXTURES,
  fixtureArgs,
  fixtureInclude,
  type GeneratorRun,
  type ManifestLike,
  makeTempDir,
  readJson,
  removeDir,
  runGenerator,
  sha256,
  snapshotTree,
} from "./helpers.ts";

let dir = "";
beforeAll(() => {
  dir = makeTempDir();
});
afterAll(() => removeDir(dir));

let caseNo = 0;

/**
 * Runs the generator on a bad input with an output root that already holds a file and an --emit-ir folder that
 * does not exist yet; asserts exit status 2 and that neither changed. Returns the run (stderr has the message).
 */
function failsCleanly(args: string[], env: Record<string, string | undefined> = {}): GeneratorRun {
  const root = path.join(dir, `case-${++caseNo}`);
  const out = path.join(root, "out");
  const ir = path.join(root, "ir");
  fs.mkdirSync(path.join(out, "cuda-1.0/fixture"), { recursive: true });
  fs.writeFileSync(path.join(out, "cuda-1.0/fixture/enums.ts"), "// written before the run\n");
  const before = snapshotTree(out);
  const r = runGenerator([...args, "--out", out, "--emit-ir", ir], env);
  expect(r.status, r.output).toBe(2);
  expect(r.stderr).toMatch(/^generator: /);
  expect(snapshotTree(out), "the output root changed").toEqual(before);
  expect(fs.readdirSync(out), "a temporary folder was left behind").toEqual(["cuda-1.0"]);
  expect(fs.existsSync(ir), "the IR folder was created").toBe(false);
  return r;
}

/** A copy of the fixtures' manifest, changed by `edit`, written into the test folder. */
function manifestWith(edit: (m: ManifestLike & Record<string, unknown>) => void): string {
  const m = readJson<ManifestLike & Record<string, unknown>>(FIXTURE_MANIFEST);
  edit(m);
  const p = path.join(dir, `manifest-${++caseNo}.json`);
  fs.writeFileSync(p, JSON.stringify(m, null, 2));
  return p;
}

describe("bad input stops the generator before it writes anything (exit 2)", () => {
  it("a header that --library asks for is missing", () => {
    const include = path.join(dir, "no-ext");
    copyTree(fixtureInclude("1.0"), include, ["fixture_ext.h"]);
    const r = failsCleanly([...fixtureArgs("1.0", { include }), "--library", "fixture_ext"]);
    expect(r.stderr).toContain(`library fixture_ext: header fixture_ext.h not found in ${include}`);
  });

  // The message names the header and the folders searched but not what to do; generator/run.ts could add
  // "pass --include DIR with the folder that holds it, or leave out --library fixture_ext". Remove `.fails` then.
  it("a missing header's message says what to do", () => {
    const include = path.join(dir, "no-ext-hint");
    copyTree(fixtureInclude("1.0"), include, ["fixture_ext.h"]);
    const r = failsCleanly([...fixtureArgs("1.0", { include }), "--library", "fixture_ext"]);
    expect(r.stderr).toMatch(/--include|--cuda-home/);
  });

  it("a header that does not parse: the message gives the file, line and clang's error", () => {
    const include = path.join(dir, "broken");
    copyTree(path.join(FIXTURES, "broken/include"), include);
    const manifest = manifestWith((m) => {
      m.libraries = { fixture: { ...m.libraries.fixture!, auxiliary: [] } } as ManifestLike["libraries"];
      (m.libraries.fixture as Record<string, unknown>).procAddress = false;
      m.ctk = { "1.0": { headers: { "fixture.h": sha256(fs.readFileSync(path.join(include, "fixture.h"))) } } };
    });
    const r = failsCleanly(fixtureArgs("1.0", { include, manifest }));
    expect(r.stderr).toContain("the headers of fixture do not parse");
    expect(r.stderr).toMatch(new RegExp(`${include.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/fixture\\.h:9:\\d+: error: expected ';'`));
    expect(r.stderr).toContain("Check that the include directories hold a complete toolkit (--include, --cuda-home).");
  });

  it("a manifest with a malformed sha256: the message names the setting", () => {
    const manifest = manifestWith((m) => {
      m.ctk["1.0"]!.headers["fixture.h"] = "not-a-sha256";
    });
    const r = failsCleanly(fixtureArgs("1.0", { manifest }));
    expect(r.stderr).toContain(`${manifest} fails validation:`);
    expect(r.stderr).toContain("ctk.1.0.headers.fixture.h: a sha256 in lower-case hex");
    expect(r.stderr).toContain("Fix the manifest and run again.");
  });

  it("a manifest with an unknown key: the message names it", () => {
    const manifest = manifestWith((m) => {
      (m.libraries.fixture as Record<string, unknown>).outputParams = {};
    });
    const r = failsCleanly(fixtureArgs("1.0", { manifest }));
    expect(r.stderr).toContain(`${manifest} fails validation:`);
    expect(r.stderr).toMatch(/libraries\.fixture: .*"outputParams"/);
  });

  it("a subset that names no function of the headers: the message names the library and the subset", () => {
    const manifest = manifestWith((m) => {
      (m.libraries.fixture as Record<string, unknown>).subsets = { none: { description: "nothing", functions: ["fxNotDeclared"] } };
    });
    const r = failsCleanly(fixtureArgs("1.0", { manifest }));
    expect(r.stderr).toContain("fixture: subset none names no function these headers declare");
  });

  it("a manifest that is not JSON", () => {
    const manifest = path.join(dir, "not-json.json");
    fs.writeFileSync(manifest, "{ libraries: ");
    const r = failsCleanly(fixtureArgs("1.0", { manifest }));
    expect(r.stderr).toContain(`${manifest} is not valid JSON`);
  });

  it("a CTK version the manifest has no entry for: the message says how to add it", () => {
    const args = fixtureArgs("1.0");
    args[args.indexOf("--ctk-version") + 1] = "9.9";
    const r = failsCleanly(args);
    expect(r.stderr).toContain("has no entry for CTK 9.9");
    expect(r.stderr).toContain("--record-hashes");
  });

  it("an unknown library: the message lists the known ones", () => {
    const r = failsCleanly([...fixtureArgs("1.0"), "--library", "nope"]);
    expect(r.stderr).toContain('unknown library "nope"; the manifest has fixture, fixture_ext.');
  });

  it("--include of a missing folder", () => {
    const missing = path.join(dir, "no-such-folder");
    const r = failsCleanly(fixtureArgs("1.0", { include: missing }));
    expect(r.stderr).toContain(`--include ${missing}: no such directory. Pass a directory that holds the CUDA headers.`);
  });

  it("libclang not found (LIBCLANG_PATH names a folder without it): the message lists what was searched", () => {
    const empty = path.join(dir, "no-libclang");
    fs.mkdirSync(empty);
    const r = failsCleanly(fixtureArgs("1.0"), { LIBCLANG_PATH: empty });
    expect(r.stderr).toContain("libclang was not found.");
    expect(r.stderr).toContain(`LIBCLANG_PATH=${empty}`);
    expect(r.stderr).toMatch(/Install it .* or set LIBCLANG_PATH/);
  });

  it("a header whose sha256 differs from the manifest's: the message names the file and what to do", () => {
    const include = path.join(dir, "changed");
    copyTree(fixtureInclude("1.0"), include);
    fs.appendFileSync(path.join(include, "fixture.h"), "/* changed */\n");
    const sum = sha256(fs.readFileSync(path.join(include, "fixture.h")));
    const r = failsCleanly(fixtureArgs("1.0", { include }));
    expect(r.stderr).toContain(`${path.join(include, "fixture.h")} (sha256 ${sum}) differs from the manifest's CTK 1.0 entry`);
    expect(r.stderr).toContain("--record-hashes");
  });

  it("an unknown option", () => {
    const r = failsCleanly([...fixtureArgs("1.0"), "--outdir", "x"]);
    expect(r.stderr).toContain("unknown option --outdir; see --help.");
  });

  it("LIBCLANG_PATH naming a file that is not a library: one line", () => {
    const notLibrary = path.join(dir, "libclang.so.1");
    fs.writeFileSync(notLibrary, "not a library\n");
    const r = failsCleanly(fixtureArgs("1.0"), { LIBCLANG_PATH: notLibrary });
    expect(r.stderr).toBe(
      `generator: LIBCLANG_PATH=${notLibrary} is not a shared library (no ELF header). Set it to libclang's .so file ` +
        "(such as /usr/lib/llvm-19/lib/libclang-19.so.1) or to a folder holding libclang.so*, or unset it.\n",
    );
  });
});

describe("--out and --emit-ir naming a file: one line, exit 2, nothing written", () => {
  it.each(["--out", "--emit-ir"])("%s", (flag) => {
    const file = path.join(dir, `a-file-for${flag}`);
    fs.writeFileSync(file, "keep me\n");
    const out = path.join(dir, `out-for${flag}`);
    const args = flag === "--out" ? ["--out", file] : ["--out", out, "--emit-ir", file];
    const r = runGenerator([...fixtureArgs("1.0"), ...args]);
    expect(r.status, r.output).toBe(2);
    expect(r.stderr).toBe(`generator: ${flag} ${file}: ${file} is a file, not a folder. Pass a folder (it is created when missing).\n`);
    expect(fs.readFileSync(file, "utf8")).toBe("keep me\n");
    expect(fs.existsSync(out)).toBe(false);
  });

  it("a file on the way to --out", () => {
    const file = path.join(dir, "a-file-on-the-way");
    fs.writeFileSync(file, "keep me\n");
    const r = runGenerator([...fixtureArgs("1.0"), "--out", path.join(file, "gen")]);
    expect(r.status, r.output).toBe(2);
    expect(r.stderr).toBe(`generator: --out ${path.join(file, "gen")}: ${file} (on the way to ${path.join(file, "gen")}) is a file, not a folder. Pass a folder (it is created when missing).\n`);
  });
});
