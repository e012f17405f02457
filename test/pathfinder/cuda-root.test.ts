import * as fs from "node:fs";
import * as nodePath from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { buildLdCache } from "../../src/pathfinder/ld-cache.ts";
import { CudaRootNotFoundError } from "../../src/pathfinder/errors.ts";
import { isolatedPathfinder, makeTempDir, makeTree, removeDir, sitePackages, thrown } from "./fixtures.ts";

let tmp: string;
const temps: string[] = [];
beforeEach(() => {
  tmp = makeTempDir();
  temps.push(tmp);
});
afterAll(() => {
  for (const dir of temps) removeDir(dir);
});
const at = (...parts: string[]): string => nodePath.join(tmp, ...parts);

describe("findCudaRoot", () => {
  it("returns CUDA_PATH, else CUDA_HOME, when it is a directory", () => {
    const cudaPath = makeTree(at("cuda-path"), { bin: "dir" });
    const cudaHome = makeTree(at("cuda-home"), { bin: "dir" });
    expect(isolatedPathfinder({ CUDA_PATH: cudaPath, CUDA_HOME: cudaHome }).pathfinder.findCudaRoot()).toEqual({
      path: cudaPath,
      foundVia: "CUDA_PATH",
    });
    expect(isolatedPathfinder({ CUDA_HOME: cudaHome }).pathfinder.findCudaRoot()).toEqual({ path: cudaHome, foundVia: "CUDA_HOME" });
  });

  it("derives the root from where cudart is found (the system loader's cache here)", () => {
    const root = makeTree(at("opt-cuda"), { "targets/x86_64-linux/lib/libcudart.so.13": "file" });
    const cache = at("ld.so.cache");
    fs.writeFileSync(cache, buildLdCache([{ soname: "libcudart.so.13", path: nodePath.join(root, "targets/x86_64-linux/lib/libcudart.so.13") }]));
    const { pathfinder, loader } = isolatedPathfinder({ CUDA_PATH: at("missing") }, { ldSoCachePath: cache });
    expect(pathfinder.findCudaRoot()).toEqual({
      path: root,
      foundVia: "cudart",
      derivedFrom: nodePath.join(root, "targets/x86_64-linux/lib/libcudart.so.13"),
    });
    expect(loader.loads).toEqual([]);
  });

  it("derives the root from nvcc when cudart is not found", () => {
    const conda = makeTree(at("conda"), { "bin/nvcc": "exec" });
    const { pathfinder } = isolatedPathfinder({ CONDA_PREFIX: conda });
    expect(pathfinder.findCudaRoot()).toEqual({ path: conda, foundVia: "nvcc", derivedFrom: nodePath.join(conda, "bin/nvcc") });
  });

  it("derives the CUDA 13 wheel tree from its cudart", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), { "nvidia/cu13/lib/libcudart.so.13": "file", "nvidia/cu13/include/cuda_runtime.h": "file" });
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    expect(pathfinder.findCudaRoot()).toMatchObject({ path: nodePath.join(sitePackages(venv), "nvidia/cu13"), foundVia: "cudart" });
  });

  it("falls back to the default root when it exists", () => {
    const defaultRoot = makeTree(at("usr-local-cuda"), { "lib64/libcudart.so.13": "file", "bin/nvcc": "exec" });
    const { pathfinder } = isolatedPathfinder({}, { defaultRoot });
    expect(pathfinder.findCudaRoot()).toEqual({ path: defaultRoot, foundVia: "default-root" });
    const empty = makeTree(at("empty-root"), { README: "file" });
    expect(isolatedPathfinder({}, { defaultRoot: empty }).pathfinder.findCudaRoot()).toEqual({ path: empty, foundVia: "default-root" });
  });

  it("throws CudaRootNotFoundError listing the searches, or returns undefined from tryFindCudaRoot", () => {
    const { pathfinder } = isolatedPathfinder({ CUDA_HOME: at("missing") }, { defaultRoot: at("also-missing") });
    const error = thrown(() => pathfinder.findCudaRoot()) as CudaRootNotFoundError;
    expect(error).toBeInstanceOf(CudaRootNotFoundError);
    expect(error.attempts[0]).toEqual({ step: "CUDA_HOME", location: at("missing"), outcome: "no such directory" });
    expect(error.attempts.some((a) => a.step.startsWith("cudart/"))).toBe(true);
    expect(error.attempts.some((a) => a.step.startsWith("nvcc/"))).toBe(true);
    expect(error.attempts.at(-1)).toEqual({ step: "default-root", location: at("also-missing"), outcome: "no such directory" });
    expect(pathfinder.tryFindCudaRoot()).toBeUndefined();
  });

  it("reports CUDA_PATH or CUDA_HOME with cudaPathOrHome", () => {
    expect(isolatedPathfinder({ CUDA_HOME: "/opt/cuda" }).pathfinder.cudaPathOrHome()).toEqual({ variable: "CUDA_HOME", path: "/opt/cuda" });
    expect(isolatedPathfinder({ CUDA_PATH: "", CUDA_HOME: "" }).pathfinder.cudaPathOrHome()).toBeUndefined();
    const { pathfinder, warnings } = isolatedPathfinder({ CUDA_PATH: "/opt/a", CUDA_HOME: "/opt/b" });
    expect(pathfinder.cudaPathOrHome()).toEqual({ variable: "CUDA_PATH", path: "/opt/a" });
    pathfinder.cudaPathOrHome();
    expect(warnings).toHaveLength(1);
  });
});
