/**
 * Where the pathfinder finds libnccl.so.2 (fake trees, no NCCL needed): NVIDIA's wheel (nvidia/nccl/lib in a
 * virtualenv's site-packages, as PyTorch installs it), a conda prefix, LD_LIBRARY_PATH, the system loader, and
 * CUDA_TS_NCCL_PATH.
 */
import * as nodePath from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { FakeLoader, isolatedPathfinder, makeTempDir, makeTree, removeDir, sitePackages } from "../pathfinder/fixtures.ts";

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

describe("the pathfinder finds libnccl.so.2", () => {
  it("in NVIDIA's wheel (nvidia/nccl/lib) under $VIRTUAL_ENV", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), { "nvidia/nccl/lib/libnccl.so.2": "file" });
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    expect(pathfinder.loadNvidiaLibrary("nccl")).toMatchObject({ name: "nccl", path: nodePath.join(sitePackages(venv), "nvidia/nccl/lib/libnccl.so.2"), foundVia: "site-packages" });
  });

  it("in a conda prefix", () => {
    const conda = at("conda");
    makeTree(conda, { "lib/libnccl.so.2": "file" });
    const { pathfinder } = isolatedPathfinder({ CONDA_PREFIX: conda });
    expect(pathfinder.loadNvidiaLibrary("nccl")).toMatchObject({ path: nodePath.join(conda, "lib/libnccl.so.2"), foundVia: "conda" });
  });

  it("through LD_LIBRARY_PATH, and through the system loader by its soname", () => {
    const dir = makeTree(at("lib"), { "libnccl.so.2": "file" });
    expect(isolatedPathfinder({ LD_LIBRARY_PATH: dir }).pathfinder.loadNvidiaLibrary("nccl")).toMatchObject({ path: nodePath.join(dir, "libnccl.so.2"), foundVia: "system-search" });
    const loader = new FakeLoader();
    loader.bareSonames.set("libnccl.so.2", "/usr/lib/x86_64-linux-gnu/libnccl.so.2");
    const { pathfinder } = isolatedPathfinder({}, { loader });
    expect(pathfinder.loadNvidiaLibrary("nccl")).toMatchObject({ path: "/usr/lib/x86_64-linux-gnu/libnccl.so.2", foundVia: "system-search" });
  });

  it("where CUDA_TS_NCCL_PATH says", () => {
    const dir = makeTree(at("mine"), { "libnccl.so.2": "file" });
    const { pathfinder } = isolatedPathfinder({ CUDA_TS_NCCL_PATH: nodePath.join(dir, "libnccl.so.2") });
    expect(pathfinder.loadNvidiaLibrary("nccl")).toMatchObject({ path: nodePath.join(dir, "libnccl.so.2"), foundVia: "override" });
  });
});
