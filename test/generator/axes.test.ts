/**
 * A second version axis (NCCL versions apart from the CTK): a library with `axis` in the manifest takes its hashes
 * from `axes.<axis>.versions`, its version from its own header's macros, and goes to OUT/<axis>-X.Y/. Checked with a
 * small fixture library "ax" (version macros AX_MAJOR/AX_MINOR, a 128-byte id passed by value, an output handle).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeImportableOut, makeTempDir, readJson, removeDir, runGenerator, runGeneratorOk, sha256 } from "./helpers.ts";

const HEADER = (minor: number): string => `#ifndef AX_H_
#define AX_H_
#define AX_MAJOR 3
#define AX_MINOR ${minor}
typedef enum { axSuccess = 0, axInvalidArgument = 4 } axResult_t;
typedef struct { char internal[128]; } axUniqueId;
typedef struct axComm* axComm_t;
/** Gets the version. @param version the version, out. */
axResult_t axGetVersion(int* version);
/** Makes a communicator. */
axResult_t axCommInit(axComm_t* comm, int nranks, axUniqueId id, int rank);
${minor >= 2 ? "/** Only in 3.2. */\naxResult_t axCommShrink(axComm_t comm);\n" : ""}/** Also exported for profilers. */
axResult_t paxGetVersion(int* version);
#endif
`;

let dir = "";
let out = "";
let manifestPath = "";
const include = (minor: number): string => path.join(dir, `ax-3.${minor}`, "include");

function manifest(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    libraries: {
      ax: {
        description: "a library versioned apart",
        headers: ["ax.h"],
        library: "ax",
        axis: "ax",
        functionPrefixes: ["ax"],
        status: { type: "axResult_t" },
        outputs: { axCommInit: ["comm"] },
      },
    },
    ctk: {},
    axes: {
      ax: {
        description: "AX",
        versionHeader: "ax.h",
        versionMacros: ["AX_MAJOR", "AX_MINOR"],
        versions: {
          "3.1": { headers: { "ax.h": sha256(HEADER(1)) } },
          "3.2": { headers: { "ax.h": sha256(HEADER(2)) } },
        },
      },
    },
    ...extra,
  };
}

beforeAll(() => {
  const o = makeImportableOut("cuda-ts-axes-");
  dir = o.dir;
  out = o.out;
  for (const minor of [1, 2]) {
    fs.mkdirSync(include(minor), { recursive: true });
    fs.writeFileSync(path.join(include(minor), "ax.h"), HEADER(minor));
  }
  manifestPath = path.join(dir, "manifest.json");
  fs.writeFileSync(manifestPath, JSON.stringify(manifest(), null, 2));
});
afterAll(() => removeDir(dir));

const noToolkit = (): string[] => ["--manifest", manifestPath, "--cuda-home", path.join(dir, "no-toolkit")];

describe("a second version axis", () => {
  it("generates each version into OUT/<axis>-X.Y, the version read from the header's macros", () => {
    for (const minor of [1, 2]) runGeneratorOk([...noToolkit(), "--include", include(minor), "--library", "ax", "--out", out]);
    expect(fs.readdirSync(out).sort()).toEqual(["ax-3.1", "ax-3.2"]);
    const fns = fs.readFileSync(path.join(out, "ax-3.2", "ax", "functions.ts"), "utf8");
    expect(fns).toContain("from the AX 3.2 headers");
    expect(fns).toContain('ctkVersion: "3.2"');
    expect(fns).toContain("axCommShrink");
    expect(fs.readFileSync(path.join(out, "ax-3.1", "ax", "functions.ts"), "utf8")).not.toContain("axCommShrink");
    // The profiling duplicates (pax...) are not the library's API; the id goes by value; the handle is returned.
    expect(fns).not.toContain("paxGetVersion");
    expect(fns).toContain('"axCommInit": { "symbol": "axCommInit", "parameters": ["pointer", "i32", null, "i32"]');
    expect(fns).toContain('["axCommInit", 2, axUniqueId.$layout],');
    const checked = fs.readFileSync(path.join(out, "ax-3.2", "ax", "checked.ts"), "utf8");
    expect(checked).toMatch(/axCommInit\(nranks: number, id: Uint8Array \| axUniqueId, rank: number\): axComm_t;/);
  });

  it("without --library, headers with the axis' version header and no cuda.h are that axis'", () => {
    const other = path.join(dir, "gen-auto");
    runGeneratorOk([...noToolkit(), "--include", include(1), "--out", other]);
    expect(fs.readdirSync(other)).toEqual(["ax-3.1"]);
  });

  it("--check compares a version whose headers are here, and checks the others by their hashes", () => {
    const r = runGeneratorOk([...noToolkit(), "--include", include(2), "--check", "--toolkits", path.join(dir, "no-ctk"), "--out", out]);
    expect(r.stdout).toMatch(/checked ax 3\.1/);
    expect(r.stdout).toMatch(/checked ax 3\.2/);
    expect(r.stdout).toContain("1 libraries regenerated and compared");
    expect(r.stdout).toContain("1 checked against the manifest's sha256");
    // A hand edit of the version checked by hashes is found by its seal.
    const f = path.join(out, "ax-3.1", "ax", "enums.ts");
    const before = fs.readFileSync(f, "utf8");
    fs.writeFileSync(f, before + "// edited\n");
    try {
      const bad = runGenerator([...noToolkit(), "--check", "--toolkits", path.join(dir, "no-ctk"), "--out", out]);
      expect(bad.status).toBe(1);
      expect(bad.output).toMatch(/ax-3\.1\/ax\/enums\.ts: content does not match its seal/);
    } finally {
      fs.writeFileSync(f, before);
    }
  });

  it("--record-hashes records a new version of the axis under axes.<axis>.versions", () => {
    const m = path.join(dir, "manifest-record.json");
    const base = manifest();
    (base.axes as { ax: { versions: Record<string, unknown> } }).ax.versions = {};
    fs.writeFileSync(m, JSON.stringify(base));
    runGeneratorOk(["--manifest", m, "--cuda-home", path.join(dir, "no-toolkit"), "--include", include(2), "--library", "ax", "--record-hashes"]);
    const rec = readJson<{ ctk: object; axes: { ax: { versions: Record<string, { headers: Record<string, string> }> } } }>(m);
    expect(rec.axes.ax.versions).toEqual({ "3.2": { headers: { "ax.h": sha256(HEADER(2)) } } });
    expect(rec.ctk).toEqual({});
  });

  it("a library naming an axis the manifest lacks fails validation, naming it", () => {
    const m = path.join(makeTempDir(), "bad.json");
    const bad = manifest({ axes: {} });
    fs.writeFileSync(m, JSON.stringify(bad));
    const r = runGenerator(["--manifest", m, "--cuda-home", path.join(dir, "no-toolkit"), "--include", include(1), "--library", "ax", "--out", path.join(dir, "gen-bad")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/libraries\.ax\.axis: axis ax is not in the manifest's axes/);
    removeDir(path.dirname(m));
  });

  it("a header that differs from the axis version's hash is refused", () => {
    const inc = path.join(dir, "changed", "include");
    fs.mkdirSync(inc, { recursive: true });
    fs.writeFileSync(path.join(inc, "ax.h"), HEADER(1) + "\n");
    const r = runGenerator([...noToolkit(), "--include", inc, "--library", "ax", "--out", path.join(dir, "gen-changed")]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/differs from the manifest's ax 3\.1 entry/);
  });
});
