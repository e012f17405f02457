import * as fs from "node:fs";
import * as nodePath from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { buildLdCache } from "../../src/pathfinder/ld-cache.ts";
import { InvalidOverrideError, LibraryNotFoundError, UnknownLibraryError } from "../../src/pathfinder/errors.ts";
import { unavailableLoader } from "../../src/pathfinder/loader.ts";
import { FakeLoader, isolatedPathfinder, makeTempDir, makeTree, removeDir, sitePackages, thrown } from "./fixtures.ts";

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

describe("Python wheel layouts", () => {
  it("loads from the CUDA 13 wheel layout (nvidia/cu13/lib) under $VIRTUAL_ENV", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), { "nvidia/cu13/lib/libnvrtc.so.13": "file" });
    const { pathfinder, loader } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    const lib = pathfinder.loadNvidiaLibrary("nvrtc");
    const expected = nodePath.join(sitePackages(venv), "nvidia/cu13/lib/libnvrtc.so.13");
    expect(lib).toMatchObject({ name: "nvrtc", path: expected, soname: "libnvrtc.so.13", foundVia: "site-packages" });
    expect(lib.handle).not.toBeNull();
    expect(loader.loads).toEqual([expected]);
  });

  it("loads from the CUDA 12 per-component layout (nvidia/cuda_nvrtc/lib, nvidia/cuda_runtime/lib)", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv, "python3.10"), {
      "nvidia/cuda_nvrtc/lib/libnvrtc.so.12": "file",
      "nvidia/cuda_runtime/lib/libcudart.so.12": "file",
      "nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so.4": "file",
    });
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    const sp = sitePackages(venv, "python3.10");
    expect(pathfinder.loadNvidiaLibrary("nvrtc").path).toBe(nodePath.join(sp, "nvidia/cuda_nvrtc/lib/libnvrtc.so.12"));
    expect(pathfinder.loadNvidiaLibrary("cudart").path).toBe(nodePath.join(sp, "nvidia/cuda_runtime/lib/libcudart.so.12"));
    expect(pathfinder.loadNvidiaLibrary("nvvm").path).toBe(nodePath.join(sp, "nvidia/cuda_nvcc/nvvm/lib64/libnvvm.so.4"));
  });

  it("prefers the CUDA 13 wheel's newer soname over a CUDA 12 component wheel", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), {
      "nvidia/cuda_nvrtc/lib/libnvrtc.so.12": "file",
      "nvidia/cu13/lib/libnvrtc.so.13": "file",
    });
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    expect(pathfinder.loadNvidiaLibrary("nvrtc").soname).toBe("libnvrtc.so.13");
  });

  it("searches the newest Python's site-packages first", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv, "python3.9"), { "nvidia/cu13/lib/libcudart.so.13": "file" });
    makeTree(sitePackages(venv, "python3.13"), { "nvidia/cu13/lib/libcudart.so.13": "file" });
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    expect(pathfinder.findNvidiaLibrary("cudart").path).toContain("python3.13");
  });

  it("finds wheels in the conda environment's site-packages as site-packages", () => {
    const conda = at("conda");
    makeTree(sitePackages(conda), { "nvidia/cu13/lib/libnvJitLink.so.13": "file" });
    makeTree(conda, { "lib/libnvJitLink.so.13": "file" });
    const { pathfinder } = isolatedPathfinder({ CONDA_PREFIX: conda });
    expect(pathfinder.loadNvidiaLibrary("nvJitLink").foundVia).toBe("site-packages");
  });

  it("ignores a relative $VIRTUAL_ENV and says so", () => {
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: "venv" });
    const error = thrown(() => pathfinder.loadNvidiaLibrary("cudart")) as LibraryNotFoundError;
    expect(error.attempts).toContainEqual(expect.objectContaining({ step: "site-packages", location: "VIRTUAL_ENV=venv" }));
  });
});

describe("conda prefix", () => {
  it("loads from $CONDA_PREFIX/lib and nvvm from $CONDA_PREFIX/nvvm/lib64", () => {
    const conda = at("conda");
    makeTree(conda, { "lib/libcudart.so.12": "file", "nvvm/lib64/libnvvm.so.4": "file", "lib/libnvvm.so.4": "file" });
    const { pathfinder } = isolatedPathfinder({ CONDA_PREFIX: conda });
    expect(pathfinder.loadNvidiaLibrary("cudart")).toMatchObject({ path: nodePath.join(conda, "lib/libcudart.so.12"), foundVia: "conda" });
    expect(pathfinder.loadNvidiaLibrary("nvvm")).toMatchObject({ path: nodePath.join(conda, "nvvm/lib64/libnvvm.so.4"), foundVia: "conda" });
  });

  it("loads from the conda targets layout ($CONDA_PREFIX/targets/x86_64-linux/lib)", () => {
    const conda = at("conda");
    makeTree(conda, { "targets/x86_64-linux/lib/libcublasLt.so.13": "file", "targets/x86_64-linux/lib/libcublas.so.13": "file" });
    const { pathfinder } = isolatedPathfinder({ CONDA_PREFIX: conda });
    expect(pathfinder.loadNvidiaLibrary("cublas").foundVia).toBe("conda");
  });

  it("prefers a wheel in a virtualenv over the conda prefix", () => {
    const venv = at("venv");
    const conda = at("conda");
    makeTree(sitePackages(venv), { "nvidia/cu13/lib/libcudart.so.13": "file" });
    makeTree(conda, { "lib/libcudart.so.13": "file" });
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: venv, CONDA_PREFIX: conda });
    expect(pathfinder.loadNvidiaLibrary("cudart").foundVia).toBe("site-packages");
  });
});

describe("CUDA_PATH and CUDA_HOME", () => {
  it("loads from CUDA_HOME/lib64 when only CUDA_HOME is set", () => {
    const home = makeTree(at("cuda-home"), { "lib64/libcudart.so.13": "file" });
    const { pathfinder, warnings } = isolatedPathfinder({ CUDA_HOME: home });
    expect(pathfinder.loadNvidiaLibrary("cudart")).toMatchObject({ path: nodePath.join(home, "lib64/libcudart.so.13"), foundVia: "CUDA_HOME" });
    expect(warnings).toEqual([]);
  });

  it("uses CUDA_PATH over CUDA_HOME when both are set to different directories, and warns once", () => {
    const cudaPath = makeTree(at("cuda-path"), { "lib64/libnvrtc.so.13": "file", "lib64/libcudart.so.13": "file" });
    const cudaHome = makeTree(at("cuda-home"), { "lib64/libnvrtc.so.13": "file", "lib64/libcudart.so.13": "file" });
    const { pathfinder, warnings, loader } = isolatedPathfinder({ CUDA_PATH: cudaPath, CUDA_HOME: cudaHome });
    expect(pathfinder.loadNvidiaLibrary("nvrtc")).toMatchObject({ path: nodePath.join(cudaPath, "lib64/libnvrtc.so.13"), foundVia: "CUDA_PATH" });
    expect(pathfinder.loadNvidiaLibrary("cudart").foundVia).toBe("CUDA_PATH");
    expect(loader.loads.some((f) => f.startsWith(cudaHome))).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("CUDA_PATH");
    expect(warnings[0]).toContain(cudaHome);
  });

  it("does not warn when CUDA_PATH and CUDA_HOME name the same directory (through a link)", () => {
    const root = makeTree(at("cuda-13.0"), { "lib64/libcudart.so.13": "file" });
    makeTree(tmp, { cuda: { link: root } });
    const { pathfinder, warnings } = isolatedPathfinder({ CUDA_PATH: at("cuda"), CUDA_HOME: `${root}/` });
    expect(pathfinder.loadNvidiaLibrary("cudart").foundVia).toBe("CUDA_PATH");
    expect(warnings).toEqual([]);
  });

  it("treats an empty CUDA_PATH as unset", () => {
    const home = makeTree(at("cuda-home"), { "lib/libcudart.so.12": "file" });
    const { pathfinder, warnings } = isolatedPathfinder({ CUDA_PATH: "", CUDA_HOME: home });
    expect(pathfinder.loadNvidiaLibrary("cudart").foundVia).toBe("CUDA_HOME");
    expect(warnings).toEqual([]);
  });

  it("searches targets/<this architecture's triple>/lib, not another architecture's", () => {
    const root = makeTree(at("cuda"), {
      "targets/sbsa-linux/lib/libcurand.so.10": "file",
      "targets/x86_64-linux/lib/libcufft.so.12": "file",
    });
    const x64 = isolatedPathfinder({ CUDA_PATH: root }).pathfinder;
    expect(x64.findNvidiaLibrary("cufft").path).toBe(nodePath.join(root, "targets/x86_64-linux/lib/libcufft.so.12"));
    expect(x64.tryFindNvidiaLibrary("curand")).toBeUndefined();
    const arm = isolatedPathfinder({ CUDA_PATH: root }, { architecture: "arm64" }).pathfinder;
    expect(arm.findNvidiaLibrary("curand").path).toBe(nodePath.join(root, "targets/sbsa-linux/lib/libcurand.so.10"));
  });

  it("finds cupti in extras/CUPTI/lib64 and nvvm in nvvm/lib64", () => {
    const root = makeTree(at("cuda"), { "extras/CUPTI/lib64/libcupti.so.13": "file", "nvvm/lib64/libnvvm.so.4": "file" });
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: root });
    expect(pathfinder.loadNvidiaLibrary("cupti").path).toBe(nodePath.join(root, "extras/CUPTI/lib64/libcupti.so.13"));
    expect(pathfinder.loadNvidiaLibrary("nvvm").path).toBe(nodePath.join(root, "nvvm/lib64/libnvvm.so.4"));
  });

  it("uses CUDA_HOME when CUDA_PATH is relative (and reports the ignored value)", () => {
    const home = makeTree(at("cuda-home"), { "lib64/libcudart.so.13": "file" });
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: "cuda", CUDA_HOME: home });
    expect(pathfinder.loadNvidiaLibrary("cudart").foundVia).toBe("CUDA_HOME");
  });
});

describe("override variable", () => {
  it("loads the absolute file CUDA_TS_<NAME>_PATH names, before every other step", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), { "nvidia/cu13/lib/libnvrtc.so.13": "file" });
    const custom = makeTree(at("custom"), { "my-nvrtc.so": "file" }) + "/my-nvrtc.so";
    const { pathfinder, loader } = isolatedPathfinder({ VIRTUAL_ENV: venv, CUDA_TS_NVRTC_PATH: custom });
    expect(pathfinder.loadNvidiaLibrary("nvrtc")).toMatchObject({ path: custom, foundVia: "override", soname: "my-nvrtc.so" });
    expect(loader.calls).toEqual([{ op: "load", file: custom }]);
  });

  it("searches a directory the override names for the sonames, newest first", () => {
    const dir = makeTree(at("custom"), { "libnvJitLink.so.12": "file", "libnvJitLink.so.13": "file" });
    const { pathfinder } = isolatedPathfinder({ CUDA_TS_NVJITLINK_PATH: dir });
    expect(pathfinder.loadNvidiaLibrary("nvJitLink")).toMatchObject({ soname: "libnvJitLink.so.13", foundVia: "override" });
  });

  it("rejects a relative override with a clear error and loads nothing", () => {
    const { pathfinder, loader } = isolatedPathfinder({ CUDA_TS_CUDART_PATH: "lib/libcudart.so.13" });
    const error = thrown(() => pathfinder.loadNvidiaLibrary("cudart"));
    expect(error).toBeInstanceOf(InvalidOverrideError);
    expect((error as InvalidOverrideError).variable).toBe("CUDA_TS_CUDART_PATH");
    expect((error as Error).message).toMatch(/not an absolute path/);
    expect(loader.loads).toEqual([]);
  });

  it("does not fall back to other steps when the override names nothing", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), { "nvidia/cu13/lib/libcudart.so.13": "file" });
    const { pathfinder, loader } = isolatedPathfinder({ VIRTUAL_ENV: venv, CUDA_TS_CUDART_PATH: at("missing.so") });
    const error = thrown(() => pathfinder.loadNvidiaLibrary("cudart")) as LibraryNotFoundError;
    expect(error).toBeInstanceOf(LibraryNotFoundError);
    expect(error.message).toContain("CUDA_TS_CUDART_PATH is set");
    expect(error.attempts).toEqual([{ step: "override", location: `CUDA_TS_CUDART_PATH=${at("missing.so")}`, outcome: "no such file or directory" }]);
    expect(loader.loads).toEqual([]);
  });

  it("uses the driver's override too (CUDA_TS_CUDA_PATH for libcuda.so.1)", () => {
    const libcuda = makeTree(at("driver"), { "libcuda.so.1": "file" }) + "/libcuda.so.1";
    const { pathfinder } = isolatedPathfinder({ CUDA_TS_CUDA_PATH: libcuda });
    expect(pathfinder.loadNvidiaLibrary("cuda")).toMatchObject({ path: libcuda, foundVia: "override" });
  });
});

describe("driver libraries", () => {
  it("never looks for libcuda in wheels, conda, CUDA_PATH, CUDA_HOME or the default root", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), { "nvidia/cu13/lib/libcuda.so.1": "file" });
    const conda = makeTree(at("conda"), { "lib/libcuda.so.1": "file" });
    const home = makeTree(at("cuda"), { "lib64/libcuda.so.1": "file", "lib64/stubs/libcuda.so.1": "file" });
    const { pathfinder, loader } = isolatedPathfinder(
      { VIRTUAL_ENV: venv, CONDA_PREFIX: conda, CUDA_PATH: home, CUDA_HOME: home },
      { defaultRoot: home },
    );
    const error = thrown(() => pathfinder.loadNvidiaLibrary("cuda")) as LibraryNotFoundError;
    expect(error).toBeInstanceOf(LibraryNotFoundError);
    expect(error.message).toContain("NVIDIA driver library");
    expect(new Set(error.attempts.map((a) => a.step))).toEqual(new Set(["override", "already-loaded", "system-search"]));
    expect(loader.loads).toEqual(["libcuda.so.1"]);
  });

  it("finds libcuda.so.1 through LD_LIBRARY_PATH", () => {
    const dir = makeTree(at("driver"), { "libcuda.so.1": "file" });
    const { pathfinder } = isolatedPathfinder({ LD_LIBRARY_PATH: `/nonexistent:${dir}` });
    expect(pathfinder.loadNvidiaLibrary("cuda")).toMatchObject({ path: nodePath.join(dir, "libcuda.so.1"), foundVia: "system-search" });
  });

  it("finds libnvidia-ml.so.1 through the ld.so cache, skipping entries of another architecture", () => {
    const dir = makeTree(at("driver"), { "libnvidia-ml.so.1": "file", "i386/libnvidia-ml.so.1": "file" });
    const cache = at("ld.so.cache");
    fs.writeFileSync(
      cache,
      buildLdCache([
        { soname: "libnvidia-ml.so.1", path: nodePath.join(dir, "i386/libnvidia-ml.so.1"), flags: 0x0803 },
        { soname: "libnvidia-ml.so.1", path: nodePath.join(dir, "libnvidia-ml.so.1") },
      ]),
    );
    const { pathfinder } = isolatedPathfinder({}, { ldSoCachePath: cache });
    expect(pathfinder.loadNvidiaLibrary("nvml")).toMatchObject({ path: nodePath.join(dir, "libnvidia-ml.so.1"), foundVia: "system-search" });
  });

  it("asks the system loader for the bare soname when nothing was found on disk", () => {
    const loader = new FakeLoader();
    loader.bareSonames.set("libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1");
    const { pathfinder } = isolatedPathfinder({}, { loader });
    expect(pathfinder.loadNvidiaLibrary("cuda")).toMatchObject({ path: "/usr/lib/wsl/lib/libcuda.so.1", foundVia: "system-search" });
  });

  it("loads a driver library by its bare soname first (the system loader's own search, as cuda.pathfinder does)", () => {
    const dir = makeTree(at("driver"), { "libcuda.so.1": "file" });
    const loader = new FakeLoader();
    loader.bareSonames.set("libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
    const { pathfinder } = isolatedPathfinder({ LD_LIBRARY_PATH: dir }, { loader });
    expect(pathfinder.loadNvidiaLibrary("cuda")).toMatchObject({ path: "/usr/lib/x86_64-linux-gnu/libcuda.so.1", foundVia: "system-search" });
    expect(loader.loads).toEqual(["libcuda.so.1"]);
  });

  it("never asks for a bare soname while LD_LIBRARY_PATH has a relative entry (the loader would search the current directory)", () => {
    const dir = makeTree(at("driver"), { "libcuda.so.1": "file" });
    const loader = new FakeLoader();
    loader.bareSonames.set("libcuda.so.1", "/somewhere/libcuda.so.1");
    const { pathfinder } = isolatedPathfinder({ LD_LIBRARY_PATH: `lib:${dir}` }, { loader });
    expect(pathfinder.loadNvidiaLibrary("cuda")).toMatchObject({ path: nodePath.join(dir, "libcuda.so.1"), foundVia: "system-search" });
    expect(loader.loads).toEqual([nodePath.join(dir, "libcuda.so.1")]);
  });

  it("returns a driver library already loaded in the process", () => {
    const loader = new FakeLoader();
    loader.preloaded.set("libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
    const { pathfinder } = isolatedPathfinder({}, { loader });
    expect(pathfinder.loadNvidiaLibrary("cuda")).toMatchObject({ foundVia: "already-loaded", path: "/usr/lib/x86_64-linux-gnu/libcuda.so.1" });
    expect(loader.loads).toEqual([]);
  });
});

describe("search order and candidates", () => {
  it("tries the newest soname first (libnvrtc.so.13 before .so.12) in the same directory", () => {
    const root = makeTree(at("cuda"), { "lib64/libnvrtc.so.12": "file", "lib64/libnvrtc.so.13": "file" });
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: root });
    expect(pathfinder.loadNvidiaLibrary("nvrtc").soname).toBe("libnvrtc.so.13");
  });

  it("skips a broken link and takes the next soname", () => {
    const root = makeTree(at("cuda"), {
      "lib64/libnvrtc.so.13": { link: "libnvrtc.so.13.0.88-gone" },
      "lib64/libnvrtc.so.12": "file",
    });
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: root });
    expect(pathfinder.loadNvidiaLibrary("nvrtc").soname).toBe("libnvrtc.so.12");
  });

  it("reports a broken link when it was the only candidate", () => {
    const root = makeTree(at("cuda"), { "lib64/libnvrtc.so.13": { link: "gone" } });
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: root });
    const error = thrown(() => pathfinder.loadNvidiaLibrary("nvrtc")) as LibraryNotFoundError;
    expect(error.attempts).toContainEqual({
      step: "CUDA_PATH",
      location: nodePath.join(root, "lib64"),
      outcome: "no libnvrtc.so.13, libnvrtc.so.12; skipped libnvrtc.so.13: a broken link or not a regular file",
    });
  });

  it("follows a link to a real file", () => {
    const root = makeTree(at("cuda"), { "lib64/libcurand.so.10.4.1": "file", "lib64/libcurand.so.10": { link: "libcurand.so.10.4.1" } });
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: root });
    expect(pathfinder.loadNvidiaLibrary("curand").path).toBe(nodePath.join(root, "lib64/libcurand.so.10"));
  });

  it("returns a library already loaded in the process before looking at wheels", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), { "nvidia/cu13/lib/libcudart.so.13": "file" });
    const loader = new FakeLoader();
    loader.preloaded.set("libcudart.so.13", "/opt/elsewhere/libcudart.so.13");
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: venv }, { loader });
    expect(pathfinder.loadNvidiaLibrary("cudart")).toMatchObject({ foundVia: "already-loaded", path: "/opt/elsewhere/libcudart.so.13" });
    expect(loader.loads).toEqual([]);
  });

  it("falls through to the next candidate when loading one fails, and reports the failure", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), { "nvidia/cu13/lib/libnvrtc.so.13": "file" });
    const root = makeTree(at("cuda"), { "lib64/libnvrtc.so.13": "file" });
    const loader = new FakeLoader();
    const bad = nodePath.join(sitePackages(venv), "nvidia/cu13/lib/libnvrtc.so.13");
    loader.failing.add(bad);
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: venv, CUDA_PATH: root }, { loader });
    expect(pathfinder.loadNvidiaLibrary("nvrtc").foundVia).toBe("CUDA_PATH");
    expect(loader.loads).toEqual([bad, nodePath.join(root, "lib64/libnvrtc.so.13")]);
  });

  it("follows the documented order: CUDA_PATH, then the system search, then the default root", () => {
    const cudaPath = makeTree(at("cuda-path"), { "lib64/libcurand.so.10": "file" });
    const ld = makeTree(at("ld"), { "libcurand.so.10": "file", "libcufft.so.12": "file" });
    const defaultRoot = makeTree(at("default"), {
      "lib64/libcurand.so.10": "file",
      "lib64/libcufft.so.12": "file",
      "lib64/libnvjpeg.so.13": "file",
    });
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: cudaPath, LD_LIBRARY_PATH: ld }, { defaultRoot });
    expect(pathfinder.findNvidiaLibrary("curand").foundVia).toBe("CUDA_PATH");
    expect(pathfinder.findNvidiaLibrary("cufft").foundVia).toBe("system-search");
    expect(pathfinder.findNvidiaLibrary("nvjpeg").foundVia).toBe("default-root");
  });

  it("lists every searched place, in order, in the not-found error", () => {
    const venv = makeTree(at("venv"), { "lib/python3.12/site-packages/nvidia/cu13/lib/libother.so": "file" });
    const conda = makeTree(at("conda"), { "lib/README": "file" });
    const cudaPath = makeTree(at("cuda-path"), { "lib64/libcudart.so.13": "file" });
    const defaultRoot = at("no-default-root");
    const { pathfinder } = isolatedPathfinder(
      { VIRTUAL_ENV: venv, CONDA_PREFIX: conda, CUDA_PATH: cudaPath, LD_LIBRARY_PATH: at("ld-missing") },
      { defaultRoot },
    );
    const error = thrown(() => pathfinder.loadNvidiaLibrary("nvrtc")) as LibraryNotFoundError;
    expect(error).toBeInstanceOf(LibraryNotFoundError);
    expect(error.requested).toBe("nvrtc");
    expect(error.sonames).toEqual(["libnvrtc.so.13", "libnvrtc.so.12"]);
    const sp = sitePackages(venv);
    expect(error.attempts).toEqual([
      { step: "override", location: "CUDA_TS_NVRTC_PATH", outcome: "not set" },
      { step: "already-loaded", location: "libnvrtc.so.13, libnvrtc.so.12", outcome: "not loaded in this process" },
      { step: "site-packages", location: nodePath.join(conda, "lib/python3.*/site-packages"), outcome: "no such directory" },
      { step: "site-packages", location: nodePath.join(sp, "nvidia/cuda_nvrtc/lib"), outcome: "no such directory" },
      { step: "site-packages", location: nodePath.join(sp, "nvidia/cu13/lib"), outcome: "no libnvrtc.so.13, libnvrtc.so.12" },
      { step: "conda", location: nodePath.join(conda, "lib64"), outcome: "no such directory" },
      { step: "conda", location: nodePath.join(conda, "targets/*/lib"), outcome: "no such directory" },
      { step: "conda", location: nodePath.join(conda, "lib"), outcome: "no libnvrtc.so.13, libnvrtc.so.12" },
      { step: "CUDA_PATH", location: nodePath.join(cudaPath, "lib"), outcome: "no such directory" },
      { step: "CUDA_PATH", location: nodePath.join(cudaPath, "targets/*/lib"), outcome: "no such directory" },
      { step: "CUDA_PATH", location: nodePath.join(cudaPath, "lib64"), outcome: "no libnvrtc.so.13, libnvrtc.so.12" },
      { step: "system-search", location: `LD_LIBRARY_PATH ${at("ld-missing")}`, outcome: "no such directory" },
      { step: "system-search", location: "ld.so cache", outcome: "not consulted (disabled)" },
      { step: "system-search", location: 'dlopen("libnvrtc.so.13")', outcome: "libnvrtc.so.13: cannot open shared object file" },
      { step: "system-search", location: 'dlopen("libnvrtc.so.12")', outcome: "libnvrtc.so.12: cannot open shared object file" },
      { step: "default-root", location: defaultRoot, outcome: "no such directory" },
    ]);
    for (const attempt of error.attempts) expect(error.message).toContain(attempt.location);
    expect(error.message).toContain("CUDA_TS_NVRTC_PATH");
    expect(error.hint).toMatch(/CUDA_PATH/);
  });

  it("never searches the current directory, and ignores relative LD_LIBRARY_PATH entries", () => {
    const cwd = makeTree(at("cwd"), {
      "libnvrtc.so.13": "file",
      "lib64/libnvrtc.so.13": "file",
      "lib/libnvrtc.so.13": "file",
      "libcuda.so.1": "file",
    });
    const previous = process.cwd();
    process.chdir(cwd);
    try {
      const { pathfinder, loader } = isolatedPathfinder({ LD_LIBRARY_PATH: ".::lib" }, { defaultRoot: null });
      expect(pathfinder.tryFindNvidiaLibrary("nvrtc")).toBeUndefined();
      const error = thrown(() => pathfinder.loadNvidiaLibrary("cuda")) as LibraryNotFoundError;
      expect(error.attempts).toContainEqual({
        step: "system-search",
        location: 'LD_LIBRARY_PATH entries ".", "", "lib"',
        outcome: "ignored: relative (the current directory is never searched)",
      });
      expect(error.attempts).toContainEqual({
        step: "system-search",
        location: "dlopen by soname",
        outcome: "not tried: LD_LIBRARY_PATH has relative entries",
      });
      expect(loader.loads).toEqual([]);
    } finally {
      process.chdir(previous);
    }
  });

  it("does not load anything when only finding", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), { "nvidia/cu13/lib/libcudart.so.13": "file" });
    const { pathfinder, loader } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    expect(pathfinder.findNvidiaLibrary("cudart").foundVia).toBe("site-packages");
    expect(loader.loads).toEqual([]);
    expect(pathfinder.tryFindNvidiaLibrary("nvrtc")).toBeUndefined();
  });

  it("derives the toolkit root of the system's cudart for nvvm (nvvm/lib64 is not on the loader path)", () => {
    const root = makeTree(at("opt-cuda-13"), { "lib64/libcudart.so.13": "file", "nvvm/lib64/libnvvm.so.4": "file" });
    const cache = at("ld.so.cache");
    fs.writeFileSync(cache, buildLdCache([{ soname: "libcudart.so.13", path: nodePath.join(root, "lib64/libcudart.so.13") }]));
    const { pathfinder } = isolatedPathfinder({}, { ldSoCachePath: cache });
    expect(pathfinder.loadNvidiaLibrary("nvvm")).toMatchObject({ path: nodePath.join(root, "nvvm/lib64/libnvvm.so.4"), foundVia: "cuda-root" });
  });

  it("throws UnknownLibraryError for names not in the catalog (names are case-sensitive)", () => {
    const { pathfinder } = isolatedPathfinder({});
    const error = thrown(() => pathfinder.loadNvidiaLibrary("nvjitlink"));
    expect(error).toBeInstanceOf(UnknownLibraryError);
    expect((error as UnknownLibraryError).known).toContain("nvJitLink");
    expect(thrown(() => pathfinder.findNvidiaLibrary("libfoo"))).toBeInstanceOf(UnknownLibraryError);
  });
});

describe("caching", () => {
  it("returns the cached result without searching again, until clearCache", () => {
    const venv = at("venv");
    makeTree(sitePackages(venv), { "nvidia/cu13/lib/libcudart.so.13": "file" });
    const { pathfinder, loader } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    const first = pathfinder.loadNvidiaLibrary("cudart");
    const calls = loader.calls.length;
    expect(pathfinder.loadNvidiaLibrary("cudart")).toBe(first);
    expect(pathfinder.findNvidiaLibrary("cudart")).toBe(first);
    expect(loader.calls.length).toBe(calls);
    pathfinder.clearCache();
    const again = pathfinder.loadNvidiaLibrary("cudart");
    expect(again).not.toBe(first);
    expect(again.path).toBe(first.path);
    expect(loader.calls.length).toBeGreaterThan(calls);
  });

  it("does not cache failures", () => {
    const venv = at("venv");
    const { pathfinder } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    expect(pathfinder.tryFindNvidiaLibrary("cudart")).toBeUndefined();
    makeTree(sitePackages(venv), { "nvidia/cu13/lib/libcudart.so.13": "file" });
    expect(pathfinder.tryFindNvidiaLibrary("cudart")?.foundVia).toBe("site-packages");
  });
});

describe("dependencies", () => {
  it("loads cusolver's dependencies first: nvJitLink, cusparse, cublasLt, cublas", () => {
    const venv = at("venv");
    const lib = "nvidia/cu13/lib";
    makeTree(sitePackages(venv), {
      [`${lib}/libcusolver.so.12`]: "file",
      [`${lib}/libnvJitLink.so.13`]: "file",
      [`${lib}/libcusparse.so.12`]: "file",
      [`${lib}/libcublasLt.so.13`]: "file",
      [`${lib}/libcublas.so.13`]: "file",
    });
    const { pathfinder, loader } = isolatedPathfinder({ VIRTUAL_ENV: venv });
    pathfinder.loadNvidiaLibrary("cusolver");
    expect(loader.loads.map((f) => nodePath.basename(f))).toEqual([
      "libnvJitLink.so.13",
      "libcusparse.so.12",
      "libcublasLt.so.13",
      "libcublas.so.13",
      "libcusolver.so.12",
    ]);
  });

  it("loads dependencies before returning an already-loaded library", () => {
    const root = makeTree(at("cuda"), { "lib64/libcublasLt.so.13": "file" });
    const loader = new FakeLoader();
    loader.preloaded.set("libcublas.so.13", "/elsewhere/libcublas.so.13");
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: root }, { loader });
    expect(pathfinder.loadNvidiaLibrary("cublas").foundVia).toBe("already-loaded");
    expect(loader.loads).toEqual([nodePath.join(root, "lib64/libcublasLt.so.13")]);
  });

  it("reports a missing dependency as a LibraryNotFoundError naming the library that needed it", () => {
    const root = makeTree(at("cuda"), { "lib64/libcusparse.so.12": "file" });
    const { pathfinder, loader } = isolatedPathfinder({ CUDA_PATH: root });
    const error = thrown(() => pathfinder.loadNvidiaLibrary("cusparse")) as LibraryNotFoundError;
    expect(error).toBeInstanceOf(LibraryNotFoundError);
    expect(error.requested).toBe("nvJitLink");
    expect(error.requiredBy).toBe("cusparse");
    expect(error.message).toMatch(/^cusparse needs nvJitLink, but could not find library "nvJitLink"/);
    expect(loader.loads.some((f) => f.endsWith("libcusparse.so.12"))).toBe(false);
  });

  it("keeps the chain through several levels of dependencies", () => {
    // nvblas needs cublas, which needs cublasLt (missing).
    const root = makeTree(at("cuda"), { "lib64/libnvblas.so.13": "file", "lib64/libcublas.so.13": "file" });
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: root });
    const error = thrown(() => pathfinder.loadNvidiaLibrary("nvblas")) as LibraryNotFoundError;
    expect(error.requested).toBe("cublasLt");
    expect(error.requiredBy).toBe("nvblas → cublas");
    expect(error.message).toMatch(/^nvblas → cublas needs cublasLt, but could not find library "cublasLt"/);
    expect(error.cause).toBeInstanceOf(LibraryNotFoundError);
  });
});

describe("Deno permissions", () => {

  it("says which --allow-read and --allow-env flags would let the search look further", () => {
    const venv = makeTree(at("venv"), { "lib/python3.12/site-packages/nvidia/cu13/lib/libnvrtc.so.13": "file" });
    const env: Record<string, string> = { VIRTUAL_ENV: venv };
    const { pathfinder, loader } = isolatedPathfinder(
      {},
      {
        env: undefined,
        host: {
          getEnv: (name) => env[name],
          canReadEnv: (name) => name in env || name.startsWith("CUDA_TS_"),
          canReadPath: (path) => !path.startsWith(nodePath.join(venv, "lib")),
        },
      },
    );
    const error = thrown(() => pathfinder.loadNvidiaLibrary("nvrtc")) as LibraryNotFoundError;
    expect(error.missingPermissions).toEqual(
      expect.arrayContaining([
        `--allow-read=${nodePath.join(venv, "lib")}`,
        "--allow-env=CONDA_PREFIX",
        "--allow-env=CUDA_PATH",
        "--allow-env=CUDA_HOME",
        "--allow-env=LD_LIBRARY_PATH",
      ]),
    );
    expect(error.message).toContain("Missing Deno permissions");
    expect(error.attempts).toContainEqual({ step: "conda", location: "CONDA_PREFIX", outcome: "not readable (Deno: --allow-env=CONDA_PREFIX)" });
    expect(loader.loads).toEqual(["libnvrtc.so.13", "libnvrtc.so.12"]);
  });

  it("groups unreadable built-in loader directories into one entry", () => {
    const sys = [at("sys-a"), at("sys-b")];
    const { pathfinder } = isolatedPathfinder({}, { systemLibraryDirectories: sys, host: { canReadPath: (p) => !p.startsWith(at("sys-")) } });
    const error = thrown(() => pathfinder.findNvidiaLibrary("cuda")) as LibraryNotFoundError;
    expect(error.attempts).toContainEqual({
      step: "system-search",
      location: sys.join(", "),
      outcome: `not readable (Deno: --allow-read=${sys[0]} --allow-read=${sys[1]})`,
    });
    expect(error.missingPermissions).toEqual([`--allow-read=${sys[0]}`, `--allow-read=${sys[1]}`]);
  });

  it("says why the already-loaded check and the loads could not happen when no loader is available", () => {
    const root = makeTree(at("cuda"), { "lib64/libcudart.so.13": "file" });
    const { pathfinder } = isolatedPathfinder({ CUDA_PATH: root }, { loader: unavailableLoader("no FFI in this runtime") });
    expect(pathfinder.findNvidiaLibrary("cudart").foundVia).toBe("CUDA_PATH");
    const error = thrown(() => pathfinder.loadNvidiaLibrary("cudart")) as LibraryNotFoundError;
    expect(error.attempts).toContainEqual({
      step: "already-loaded",
      location: "libcudart.so.13, libcudart.so.12",
      outcome: "not checked: no FFI in this runtime",
    });
    expect(error.attempts).toContainEqual({
      step: "CUDA_PATH",
      location: nodePath.join(root, "lib64/libcudart.so.13"),
      outcome: "found, but loading failed: no FFI in this runtime",
    });
  });
});
