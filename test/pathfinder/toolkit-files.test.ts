import * as fs from "node:fs";
import * as nodePath from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import {
  BinaryUtilityNotFoundError,
  BitcodeLibraryNotFoundError,
  HeaderDirectoryNotFoundError,
  UnknownNameError,
} from "../../src/pathfinder/errors.ts";
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

describe("header directories", () => {
  it("finds cuda_runtime.h and nvrtc.h in the CUDA 13 wheel's include directory", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), { "nvidia/cu13/include/cuda_runtime.h": "file", "nvidia/cu13/include/nvrtc.h": "file" });
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    const include = nodePath.join(sitePackages(venv), "nvidia/cu13/include");
    expect(pathfinder.findNvidiaHeaderDirectory("cudart")).toEqual({
      name: "cudart",
      path: include,
      headerFile: "cuda_runtime.h",
      foundVia: "site-packages",
    });
    expect(pathfinder.findNvidiaHeaderDirectory("nvrtc").path).toBe(include);
  });

  it("finds CUDA 12 component headers (nvidia/cuda_nvrtc/include, nvidia/cuda_nvcc/nvvm/include)", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), { "nvidia/cuda_nvrtc/include/nvrtc.h": "file", "nvidia/cuda_nvcc/nvvm/include/nvvm.h": "file" });
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    expect(pathfinder.findNvidiaHeaderDirectory("nvrtc").path).toBe(nodePath.join(sitePackages(venv), "nvidia/cuda_nvrtc/include"));
    expect(pathfinder.findNvidiaHeaderDirectory("nvvm").path).toBe(nodePath.join(sitePackages(venv), "nvidia/cuda_nvcc/nvvm/include"));
  });

  it("finds nvvm/include, include/cccl and the other headers under CUDA_PATH", () => {
    const root = makeTree(at("cuda"), {
      "include/cuda_runtime.h": "file",
      "include/nvJitLink.h": "file",
      "include/nvFatbin.h": "file",
      "include/cufile.h": "file",
      "include/nvml.h": "file",
      "include/cuda/std/version": "file",
      "include/cccl/cuda/std/version": "file",
      "nvvm/include/nvvm.h": "file",
    });
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: root });
    expect(pathfinder.findNvidiaHeaderDirectory("nvvm")).toMatchObject({ path: nodePath.join(root, "nvvm/include"), foundVia: "CUDA_PATH" });
    expect(pathfinder.findNvidiaHeaderDirectory("cccl").path).toBe(nodePath.join(root, "include/cccl"));
    for (const name of ["nvjitlink", "nvfatbin", "cufile", "nvml", "cudart"]) {
      expect(pathfinder.findNvidiaHeaderDirectory(name).path).toBe(nodePath.join(root, "include"));
    }
  });

  it("finds headers in the conda targets layout and in the default root", () => {
    const conda = makeTree(at("conda"), { "targets/x86_64-linux/include/nvrtc.h": "file" });
    const defaultRoot = makeTree(at("default"), { "include/cuda_runtime.h": "file" });
    const { pathfinder } = isolatedPathfinder({ CONDA_PREFIX: conda }, { defaultRoot });
    expect(pathfinder.findNvidiaHeaderDirectory("nvrtc")).toMatchObject({
      path: nodePath.join(conda, "targets/x86_64-linux/include"),
      foundVia: "conda",
    });
    expect(pathfinder.findNvidiaHeaderDirectory("cudart")).toMatchObject({ path: nodePath.join(defaultRoot, "include"), foundVia: "default-root" });
  });

  it("throws HeaderDirectoryNotFoundError listing the searched places, and UnknownNameError for unknown names", () => {
    const root = makeTree(at("cuda"), { "include/other.h": "file" });
    const { pathfinder } = isolatedPathfinder({ CUDA_HOME: root });
    const error = thrown(() => pathfinder.findNvidiaHeaderDirectory("nvrtc")) as HeaderDirectoryNotFoundError;
    expect(error).toBeInstanceOf(HeaderDirectoryNotFoundError);
    expect(error.attempts).toContainEqual({ step: "CUDA_HOME", location: nodePath.join(root, "include"), outcome: "no nvrtc.h" });
    expect(pathfinder.tryFindNvidiaHeaderDirectory("nvrtc")).toBeUndefined();
    expect(thrown(() => pathfinder.findNvidiaHeaderDirectory("nope"))).toBeInstanceOf(UnknownNameError);
    expect(() => pathfinder.tryFindNvidiaHeaderDirectory("nope")).toThrow(UnknownNameError);
  });
});

describe("binary utilities", () => {
  it("finds nvcc, ptxas and nvdisasm in the CUDA 13 wheel's bin and CUDA 12's cuda_nvcc/bin", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), {
      "nvidia/cu13/bin/nvcc": "exec",
      "nvidia/cu13/bin/ptxas": "exec",
      "nvidia/cuda_nvcc/bin/nvdisasm": "exec",
    });
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    expect(pathfinder.findNvidiaBinaryUtility("nvcc")).toEqual({
      name: "nvcc",
      path: nodePath.join(sitePackages(venv), "nvidia/cu13/bin/nvcc"),
      foundVia: "site-packages",
    });
    expect(pathfinder.findNvidiaBinaryUtility("ptxas").foundVia).toBe("site-packages");
    expect(pathfinder.findNvidiaBinaryUtility("nvdisasm").path).toBe(nodePath.join(sitePackages(venv), "nvidia/cuda_nvcc/bin/nvdisasm"));
  });

  it("finds tools in $CONDA_PREFIX/bin, CUDA_PATH/bin and the default root's bin, in that order", () => {
    const conda = makeTree(at("conda"), { "bin/nvlink": "exec" });
    const cudaPath = makeTree(at("cuda"), { "bin/nvlink": "exec", "bin/cuobjdump": "exec" });
    const defaultRoot = makeTree(at("default"), { "bin/nvlink": "exec", "bin/cuobjdump": "exec", "bin/fatbinary": "exec", "bin/compute-sanitizer": "exec" });
    const { pathfinder } = isolatedPathfinder({ CONDA_PREFIX: conda, CUDA_PATH: cudaPath }, { defaultRoot });
    expect(pathfinder.findNvidiaBinaryUtility("nvlink").foundVia).toBe("conda");
    expect(pathfinder.findNvidiaBinaryUtility("cuobjdump").foundVia).toBe("CUDA_PATH");
    expect(pathfinder.findNvidiaBinaryUtility("fatbinary").foundVia).toBe("default-root");
    expect(pathfinder.findNvidiaBinaryUtility("compute-sanitizer").path).toBe(nodePath.join(defaultRoot, "bin/compute-sanitizer"));
  });

  it("requires the executable bit", () => {
    const cudaPath = makeTree(at("cuda"), { "bin/nvcc": "file" });
    const defaultRoot = makeTree(at("default"), { "bin/nvcc": "exec" });
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: cudaPath }, { defaultRoot });
    expect(pathfinder.findNvidiaBinaryUtility("nvcc").foundVia).toBe("default-root");
    const alone = isolatedPathfinder({ CUDA_PATH: cudaPath }).pathfinder;
    const error = thrown(() => alone.findNvidiaBinaryUtility("nvcc")) as BinaryUtilityNotFoundError;
    expect(error).toBeInstanceOf(BinaryUtilityNotFoundError);
    expect(error.attempts).toContainEqual({
      step: "CUDA_PATH",
      location: nodePath.join(cudaPath, "bin"),
      outcome: "no nvcc; skipped nvcc: not executable (no X bit), a broken link or not a regular file",
    });
  });

  it("never searches PATH or the current directory", () => {
    const cwd = makeTree(at("cwd"), { nvcc: "exec", "bin/nvcc": "exec" });
    const previous = process.cwd();
    process.chdir(cwd);
    try {
      const { pathfinder } = isolatedPathfinder({ PATH: `${cwd}/bin:${cwd}:.:bin` });
      expect(pathfinder.tryFindNvidiaBinaryUtility("nvcc")).toBeUndefined();
    } finally {
      process.chdir(previous);
    }
  });

  it("throws UnknownNameError for unknown tools", () => {
    const { pathfinder } = isolatedPathfinder({});
    expect(thrown(() => pathfinder.findNvidiaBinaryUtility("gcc"))).toBeInstanceOf(UnknownNameError);
  });
});

describe("bitcode and static libraries", () => {
  it("finds libdevice.10.bc in the CUDA 13 wheel (nvidia/cu13/nvvm/libdevice)", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), { "nvidia/cu13/nvvm/libdevice/libdevice.10.bc": "file" });
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    expect(pathfinder.findBitcodeLibrary("device")).toEqual({
      name: "device",
      path: nodePath.join(sitePackages(venv), "nvidia/cu13/nvvm/libdevice/libdevice.10.bc"),
      fileName: "libdevice.10.bc",
      foundVia: "site-packages",
    });
  });

  it("finds libdevice under nvvm/libdevice of CUDA_HOME, conda and the default root", () => {
    const home = makeTree(at("cuda"), { "nvvm/libdevice/libdevice.10.bc": "file" });
    expect(isolatedPathfinder({ CUDA_HOME: home }).pathfinder.findBitcodeLibrary("device")).toMatchObject({
      path: nodePath.join(home, "nvvm/libdevice/libdevice.10.bc"),
      foundVia: "CUDA_HOME",
    });
    const conda = makeTree(at("conda"), { "nvvm/libdevice/libdevice.10.bc": "file" });
    expect(isolatedPathfinder({ CONDA_PREFIX: conda }).pathfinder.findBitcodeLibrary("device").foundVia).toBe("conda");
    expect(isolatedPathfinder({}, { defaultRoot: home }).pathfinder.findBitcodeLibrary("device").foundVia).toBe("default-root");
  });

  it("throws BitcodeLibraryNotFoundError, or returns undefined from tryFindBitcodeLibrary", () => {
    const { pathfinder } = isolatedPathfinder({});
    const error = thrown(() => pathfinder.findBitcodeLibrary("device")) as BitcodeLibraryNotFoundError;
    expect(error).toBeInstanceOf(BitcodeLibraryNotFoundError);
    expect(error.message).toContain("libdevice.10.bc");
    expect(error.message).toContain("CUDA_PATH, CUDA_HOME: not set");
    expect(pathfinder.tryFindBitcodeLibrary("device")).toBeUndefined();
    expect(thrown(() => pathfinder.findBitcodeLibrary("libdevice"))).toBeInstanceOf(UnknownNameError);
  });

  it("finds libcudadevrt.a", () => {
    const root = makeTree(at("cuda"), { "targets/x86_64-linux/lib/libcudadevrt.a": "file" });
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: root });
    expect(pathfinder.findStaticLibrary("cudadevrt").path).toBe(nodePath.join(root, "targets/x86_64-linux/lib/libcudadevrt.a"));
    expect(isolatedPathfinder({}).pathfinder.tryFindStaticLibrary("cudadevrt")).toBeUndefined();
  });

  it("caches results", () => {
    const root = makeTree(at("cuda"), { "nvvm/libdevice/libdevice.10.bc": "file" });
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: root });
    const first = pathfinder.findBitcodeLibrary("device");
    fs.rmSync(first.path);
    expect(pathfinder.findBitcodeLibrary("device")).toBe(first);
    pathfinder.clearCache();
    expect(pathfinder.tryFindBitcodeLibrary("device")).toBeUndefined();
  });
});
