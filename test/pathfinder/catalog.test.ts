import { describe, expect, it } from "vitest";
import {
  BINARY_CATALOG,
  BITCODE_CATALOG,
  HEADER_CATALOG,
  LIBRARY_CATALOG,
  libraryDescriptor,
  overrideVariable,
  STATIC_LIBRARY_CATALOG,
  SUPPORTED_LIBRARY_NAMES,
  wheelDirectoriesInOrder,
} from "../../src/pathfinder/catalog.ts";

const sonameVersion = (soname: string): number => Number(soname.match(/\.so\.(\d+)$/)?.[1] ?? -1);

describe("library catalog", () => {
  it("has unique names", () => {
    for (const catalog of [LIBRARY_CATALOG, HEADER_CATALOG, BINARY_CATALOG, BITCODE_CATALOG, STATIC_LIBRARY_CATALOG]) {
      const names = catalog.map((d) => d.name);
      expect(new Set(names).size).toBe(names.length);
    }
  });

  it("covers the driver and the toolkit libraries the issue names", () => {
    for (const name of [
      "cuda",
      "nvml",
      "cudart",
      "nvrtc",
      "nvJitLink",
      "nvvm",
      "nvfatbin",
      "cufile",
      "cupti",
      "cublas",
      "cublasLt",
      "cufft",
      "curand",
      "cusolver",
      "cusparse",
      "nccl",
      "nvshmem_host",
    ]) {
      expect(SUPPORTED_LIBRARY_NAMES).toContain(name);
    }
    expect(libraryDescriptor("cuda")?.sonames).toEqual(["libcuda.so.1"]);
    expect(libraryDescriptor("nvml")?.sonames).toEqual(["libnvidia-ml.so.1"]);
  });

  it("lists sonames that look like sonames, newest first", () => {
    for (const d of LIBRARY_CATALOG) {
      expect(d.sonames.length).toBeGreaterThan(0);
      for (const soname of d.sonames) expect(soname).toMatch(/^lib[A-Za-z0-9_+-]+\.so(\.\d+)?$/);
      const versions = d.sonames.map(sonameVersion);
      expect([...versions].sort((a, b) => b - a)).toEqual(versions);
    }
    expect(libraryDescriptor("nvrtc")?.sonames).toEqual(["libnvrtc.so.13", "libnvrtc.so.12"]);
  });

  it("has dependencies that exist, are not driver libraries, and form no cycle", () => {
    const visit = (name: string, path: readonly string[]): void => {
      expect(path).not.toContain(name);
      const d = libraryDescriptor(name);
      expect(d, `dependency ${name}`).toBeDefined();
      for (const dep of d?.dependencies ?? []) {
        expect(libraryDescriptor(dep)?.packagedWith).not.toBe("driver");
        visit(dep, [...path, name]);
      }
    };
    for (const d of LIBRARY_CATALOG) visit(d.name, []);
    expect(libraryDescriptor("cusolver")?.dependencies).toEqual(["nvJitLink", "cusparse", "cublasLt", "cublas"]);
  });

  it("gives driver libraries no wheel or toolkit-root directories", () => {
    const drivers = LIBRARY_CATALOG.filter((d) => d.packagedWith === "driver");
    expect(drivers.map((d) => d.name).sort()).toEqual(["cuda", "nvcudla", "nvml"]);
    for (const d of drivers) {
      expect(wheelDirectoriesInOrder(d.wheelDirectories)).toEqual([]);
      expect(d.rootDirectories).toEqual([]);
      expect(d.dependencies).toEqual([]);
    }
  });

  it("puts CUDA 13 toolkit libraries in nvidia/cu13/lib, searched before the CUDA 12 component directory", () => {
    for (const d of LIBRARY_CATALOG.filter((x) => x.packagedWith === "ctk")) {
      expect(d.wheelDirectories.cuda13).toEqual(["nvidia/cu13/lib"]);
      expect(wheelDirectoriesInOrder(d.wheelDirectories)[0]).toBe("nvidia/cu13/lib");
    }
    expect(libraryDescriptor("nvrtc")?.wheelDirectories.cuda12).toEqual(["nvidia/cuda_nvrtc/lib"]);
    expect(libraryDescriptor("nvvm")?.wheelDirectories.cuda12).toEqual(["nvidia/cuda_nvcc/nvvm/lib64"]);
  });

  it("knows nvvm lives in nvvm/lib64 and cupti in extras/CUPTI/lib64 under a toolkit root", () => {
    expect(libraryDescriptor("nvvm")?.rootDirectories[0]).toBe("nvvm/lib64");
    expect(libraryDescriptor("cupti")?.rootDirectories).toEqual(expect.arrayContaining(["extras/CUPTI/lib64", "lib64"]));
    expect(libraryDescriptor("cudart")?.rootDirectories).toEqual(["lib64", "lib", "targets/*/lib"]);
  });

  it("names override variables CUDA_TS_<NAME>_PATH", () => {
    expect(overrideVariable("cudart")).toBe("CUDA_TS_CUDART_PATH");
    expect(overrideVariable("nvJitLink")).toBe("CUDA_TS_NVJITLINK_PATH");
    expect(overrideVariable("nvshmem_host")).toBe("CUDA_TS_NVSHMEM_HOST_PATH");
    expect(overrideVariable("cuda")).toBe("CUDA_TS_CUDA_PATH");
    const variables = SUPPORTED_LIBRARY_NAMES.map(overrideVariable);
    expect(new Set(variables).size).toBe(variables.length);
  });

  it("names header markers, binaries and bitcode files", () => {
    const header = (name: string) => HEADER_CATALOG.find((h) => h.name === name);
    expect(header("cudart")?.headerFile).toBe("cuda_runtime.h");
    expect(header("nvrtc")?.headerFile).toBe("nvrtc.h");
    expect(header("nvvm")?.rootDirectories).toEqual(["nvvm/include"]);
    expect(header("cccl")?.rootDirectories[0]).toBe("include/cccl");
    for (const name of ["nvcc", "nvdisasm", "cuobjdump", "ptxas", "nvlink", "fatbinary", "compute-sanitizer"]) {
      expect(BINARY_CATALOG.map((b) => b.name)).toContain(name);
    }
    expect(BITCODE_CATALOG.find((b) => b.name === "device")?.fileName).toBe("libdevice.10.bc");
  });
});
