import * as nodePath from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SUPPORTED_LIBRARY_NAMES } from "../../src/pathfinder/catalog.ts";
import { isolatedPathfinder, makeTempDir, makeTree, removeDir, sitePackages } from "./fixtures.ts";

const tmp = makeTempDir();
afterAll(() => removeDir(tmp));

describe("surveyNvidiaLibraries", () => {
  const venv = nodePath.join(tmp, "venv");
  makeTree(sitePackages(venv), {
    "nvidia/cu13/lib/libcudart.so.13": "file",
    "nvidia/cu13/lib/libcusparse.so.12": "file",
  });

  it("reports every known library, found or not, without throwing or loading", () => {
    const { pathfinder, loader } = isolatedPathfinder({ VIRTUAL_ENV: venv, CUDA_TS_NVRTC_PATH: "relative.so" });
    const survey = pathfinder.surveyNvidiaLibraries();
    expect(survey.map((e) => e.name)).toEqual(SUPPORTED_LIBRARY_NAMES);
    const byName = new Map(survey.map((e) => [e.name, e]));
    expect(byName.get("cudart")).toEqual({
      name: "cudart",
      packagedWith: "ctk",
      found: true,
      path: nodePath.join(sitePackages(venv), "nvidia/cu13/lib/libcudart.so.13"),
      foundVia: "site-packages",
    });
    expect(byName.get("cuda")).toMatchObject({ found: false, packagedWith: "driver" });
    expect(byName.get("cuda")?.error).toContain("libcuda.so.1");
    expect(byName.get("nvrtc")?.error).toContain("CUDA_TS_NVRTC_PATH");
    expect(loader.loads).toEqual([]);
  });

  it("loads with { load: true } and reports a missing dependency as not found", () => {
    const { pathfinder, loader } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    const survey = pathfinder.surveyNvidiaLibraries({ load: true });
    const byName = new Map(survey.map((e) => [e.name, e]));
    expect(byName.get("cudart")?.found).toBe(true);
    expect(byName.get("cusparse")?.found).toBe(false);
    expect(byName.get("cusparse")?.error).toMatch(/cusparse needs nvJitLink/);
    expect(loader.loads).toContain(nodePath.join(sitePackages(venv), "nvidia/cu13/lib/libcudart.so.13"));
  });
});
