/**
 * `--toolkits DIR`: every CTK version of the manifest in one run, each from DIR/X.Y/include; with `--check`, a
 * version whose headers are absent is checked by the manifest's sha256 and the seals (what CI does for CUDA 12.4,
 * whose headers it lacks). Shown with the fixture toolkits 1.0 and 2.0.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FIXTURE_MANIFEST, fixtureInclude, makeImportableOut, removeDir, runGenerator, runGeneratorOk } from "./helpers.ts";

const { dir, out } = makeImportableOut();
afterAll(() => removeDir(dir));
const toolkits = path.join(dir, "toolkits");
for (const v of ["1.0", "2.0"] as const) {
  fs.mkdirSync(path.join(toolkits, v), { recursive: true });
  fs.symlinkSync(fixtureInclude(v), path.join(toolkits, v, "include"), "dir");
}
const base = ["--manifest", FIXTURE_MANIFEST, "--cuda-home", path.join(os.tmpdir(), "cuda-ts-no-such-toolkit"), "--out", out];

describe("--toolkits", () => {
  it("generates every version of the manifest from its own folder", () => {
    const r = runGeneratorOk([...base, "--toolkits", toolkits]);
    expect(fs.readdirSync(out).sort()).toEqual(["cuda-1.0", "cuda-2.0"]);
    expect(r.stdout).toContain("generated CTK 1.0");
    expect(r.stdout).toContain("generated CTK 2.0");
  });

  it("--check compares every version, and one whose headers are absent by hashes and seals", () => {
    const ok = runGenerator([...base, "--toolkits", toolkits, "--check"]);
    expect(ok.status, ok.output).toBe(0);
    fs.rmSync(path.join(toolkits, "2.0"), { recursive: true });
    const partial = runGenerator([...base, "--toolkits", toolkits, "--check"]);
    expect(partial.status, partial.output).toBe(0);
    expect(partial.stdout).toMatch(/0 libraries regenerated and compared, \d+ checked against the manifest's sha256 \(headers absent\)\.\nchecked CTK 2\.0/);
    // An edit of the version without headers is caught by its seal.
    const file = path.join(out, "cuda-2.0/fixture/enums.ts");
    fs.appendFileSync(file, "// an edit\n");
    const edited = runGenerator([...base, "--toolkits", toolkits, "--check"]);
    expect(edited.status).toBe(1);
    expect(edited.stdout).toContain(`${file}: content does not match its seal`);
  });

  it("without --check, a version without headers is left as it is", () => {
    const r = runGeneratorOk([...base, "--toolkits", toolkits]);
    expect(r.stdout).toContain(`CTK 2.0: no headers in ${path.join(toolkits, "2.0")}; left as it is.`);
  });
});
