/**
 * `cuda-ts generate --out DIR` anywhere: the output imports this package's own modules (src/tables-runtime,
 * src/ffi/types) by a relative path from DIR, so that it can be imported where it lies and shares the bindings'
 * runtime (one RecordBase class); `useGeneratedTables(DIR)` (or CUDA_TS_GENERATED=DIR) adds its tables to the
 * bindings, which then choose them for a library of their version. Shown with the fixture toolkit, and, where
 * Debian's CUDA 12.4 headers and libcudart.so.12 are here, with a real runtime table chosen over the package's.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { fixtureArgs, REPO_MANIFEST, ROOT, runGeneratorOk } from "./helpers.ts";
import { RecordBase } from "../../src/tables-runtime/record.ts";
import { clearAddedTables, tablesFor, useGeneratedTables, GeneratedTablesError } from "../../src/bindings/tables/registry.ts";
import { runtimeCommand } from "../support/runtime.ts";

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-out-")));
afterAll(() => {
  clearAddedTables();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("generated output outside the repository", () => {
  const out = path.join(tmp, "fixture-out");

  it("imports the package's src/ by a relative path and is importable where it lies", async () => {
    runGeneratorOk([...fixtureArgs("1.0"), "--out", out]);
    const records = fs.readFileSync(path.join(out, "cuda-1.0/fixture/records.ts"), "utf8");
    const spec = /from "([^"]+\/tables-runtime\/record\.ts)"/.exec(records)?.[1];
    expect(spec).toBeDefined();
    expect(spec).not.toBe("../../../src/tables-runtime/record.ts");
    expect(path.resolve(out, "cuda-1.0/fixture", spec!)).toBe(path.join(ROOT, "src/tables-runtime/record.ts"));
    const m = (await import(pathToFileURL(path.join(out, "cuda-1.0/fixture/index.ts")).href)) as Record<string, unknown>;
    const cls = Object.values(m).find((v) => typeof v === "function" && (v as { prototype?: unknown }).prototype instanceof RecordBase);
    expect(cls, "a record class of the fixture library extends the bindings' own RecordBase").toBeDefined();
  });

  it("useGeneratedTables adds its tables; tablesFor puts them among the built-in ones by version", async () => {
    const added = await useGeneratedTables(out);
    expect(added.map((t) => `${t.library} ${t.ctkVersion}`)).toEqual(["fixture 1.0", "fixture_ext 1.0"]);
    const tables = tablesFor("fixture", []);
    expect(tables.map((t) => t.library.ctkVersion)).toEqual(["1.0"]);
    expect(Object.keys(tables[0]!.functions).length).toBeGreaterThan(0);
  });

  it("refuses a folder without generated tables with a typed error", async () => {
    await expect(useGeneratedTables(tmp + "/nothing")).rejects.toBeInstanceOf(GeneratedTablesError);
    fs.mkdirSync(path.join(tmp, "empty"));
    await expect(useGeneratedTables(path.join(tmp, "empty"))).rejects.toThrow(/holds no generated tables/);
  });
});

const headers12 = path.join(ROOT, ".cache/ctk/12.4");
const libs12 = [process.env.CUDA_TS_CUDA12_LIBS, path.join(ROOT, ".cache/cuda-12.4/lib")].find((d) => d !== undefined && fs.existsSync(path.join(d, "libcudart.so.12")));
const have12 = fs.existsSync(path.join(headers12, "include/cuda_runtime_api.h")) && libs12 !== undefined;

describe.skipIf(!have12)(`a user's own generation chosen by the runtime binding${have12 ? "" : " [skipped: needs .cache/ctk/12.4 headers and libcudart.so.12 (scripts/fetch-cuda12.sh)]"}`, () => {
  it("CUDA_TS_GENERATED=DIR: libcudart.so.12 binds the 12.4 table from DIR", () => {
    const out = path.join(tmp, "user-out");
    runGeneratorOk(["--manifest", REPO_MANIFEST, "--cuda-home", headers12, "--out", out]);
    const cmd = runtimeCommand(path.join(ROOT, "test/fixtures/versions/probe.ts"), ["--allow-ffi", "--allow-env", "--allow-read"], ["runtime-generated"]);
    const r = spawnSync(cmd[0]!, cmd.slice(1), {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, CUDA_TS_GENERATED: out, CUDA_TS_CUDART_PATH: path.join(libs12!, "libcudart.so.12") },
      timeout: 120_000,
    });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    const result = JSON.parse(r.stdout.trim().split("\n").pop()!) as Record<string, unknown>;
    expect(result).toEqual({ version: 12040, table: "12.4", usesGenerated: true });
  });
});
