/**
 * What the pathfinder knows about NVIDIA's files, as data: every dynamic library (sonames newest first, Python-wheel
 * directories for CUDA 13 and CUDA 12, directories under a toolkit root, dependencies), every header directory,
 * binary utility, bitcode and static library. The search logic lives elsewhere (libraries.ts, headers.ts, ...);
 * nothing here touches the environment or the file system.
 *
 * Paths are relative and use `/`. In toolkit-root directories a `*` segment matches any directory entry (used for
 * `targets/<triple>`). Linux only.
 *
 * @module
 */

/** Who ships a library: the CUDA Toolkit, the NVIDIA driver, or a separate NVIDIA product. */
export type PackagedWith = "ctk" | "driver" | "other";

/** Sub-directories of a Python `site-packages` directory where NVIDIA wheels put a file, by CUDA major version. */
export interface WheelDirectories {
  /** CUDA 13 wheels (`cuda-toolkit[...]==13.*`): one shared tree, `nvidia/cu13/...`. Searched first. */
  readonly cuda13: readonly string[];
  /** CUDA 12 wheels: one directory per component, such as `nvidia/cuda_nvrtc/lib`. */
  readonly cuda12: readonly string[];
  /** Wheels whose layout does not depend on the CUDA version (NCCL, NVSHMEM, cuTENSOR, ...). Searched last. */
  readonly unversioned: readonly string[];
}

/** One dynamic library the pathfinder can find and load. */
export interface LibraryDescriptor {
  /** The name users pass, such as `"nvrtc"` or `"cuda"`. */
  readonly name: string;
  /** Who ships it; driver libraries are only looked for through the system loader. */
  readonly packagedWith: PackagedWith;
  /** The file names to look for, in preference order (newest first). */
  readonly sonames: readonly string[];
  /** Where NVIDIA's Python wheels put it. Empty for driver libraries. */
  readonly wheelDirectories: WheelDirectories;
  /** Directories relative to a toolkit root or conda prefix that may hold it, in order. */
  readonly rootDirectories: readonly string[];
  /** Libraries loaded before this one (they are named in its `DT_NEEDED` but may not be on the loader path). */
  readonly dependencies: readonly string[];
  /**
   * Whether, when nothing else found it, the toolkit root derived from where the system loader finds `cudart` is
   * searched as well (for libraries that live outside the loader's directories, such as `nvvm/lib64`).
   */
  readonly searchDerivedRoot: boolean;
}

/** The directories under a toolkit root or conda prefix that hold most libraries. */
export const DEFAULT_ROOT_LIBRARY_DIRECTORIES: readonly string[] = ["lib64", "lib", "targets/*/lib"];

const NO_WHEELS: WheelDirectories = { cuda13: [], cuda12: [], unversioned: [] };

interface LibraryFields {
  readonly cuda12?: readonly string[];
  readonly cuda13?: readonly string[];
  readonly unversioned?: readonly string[];
  readonly dependencies?: readonly string[];
  readonly rootDirectories?: readonly string[];
  readonly searchDerivedRoot?: boolean;
}

/** A CUDA Toolkit library: CUDA 13 wheels put it in `nvidia/cu13/lib`, CUDA 12 wheels in `cuda12Dir`. */
function ctk(name: string, sonames: readonly string[], cuda12Dir: string | undefined, fields: LibraryFields = {}): LibraryDescriptor {
  return {
    name,
    packagedWith: "ctk",
    sonames,
    wheelDirectories: {
      cuda13: fields.cuda13 ?? ["nvidia/cu13/lib"],
      cuda12: cuda12Dir === undefined ? [] : [cuda12Dir],
      unversioned: [],
    },
    rootDirectories: fields.rootDirectories ?? DEFAULT_ROOT_LIBRARY_DIRECTORIES,
    dependencies: fields.dependencies ?? [],
    searchDerivedRoot: fields.searchDerivedRoot ?? false,
  };
}

/** A library NVIDIA ships apart from the toolkit (its own wheels, conda packages or installers). */
function other(name: string, sonames: readonly string[], fields: LibraryFields): LibraryDescriptor {
  return {
    name,
    packagedWith: "other",
    sonames,
    wheelDirectories: { cuda13: fields.cuda13 ?? [], cuda12: fields.cuda12 ?? [], unversioned: fields.unversioned ?? [] },
    rootDirectories: fields.rootDirectories ?? DEFAULT_ROOT_LIBRARY_DIRECTORIES,
    dependencies: fields.dependencies ?? [],
    searchDerivedRoot: false,
  };
}

/** A library of the NVIDIA driver: found through the system loader only. */
function driver(name: string, sonames: readonly string[]): LibraryDescriptor {
  return {
    name,
    packagedWith: "driver",
    sonames,
    wheelDirectories: NO_WHEELS,
    rootDirectories: [],
    dependencies: [],
    searchDerivedRoot: false,
  };
}

const NPP_DEPENDENCIES = ["nppc"];
const npp = (name: string): LibraryDescriptor =>
  ctk(name, [`lib${name}.so.13`, `lib${name}.so.12`], "nvidia/npp/lib", {
    dependencies: name === "nppc" ? [] : NPP_DEPENDENCIES,
  });

/** Every library the pathfinder knows, CUDA Toolkit first, then other NVIDIA products, then the driver. */
export const LIBRARY_CATALOG: readonly LibraryDescriptor[] = [
  // CUDA Toolkit.
  ctk("cudart", ["libcudart.so.13", "libcudart.so.12"], "nvidia/cuda_runtime/lib"),
  ctk("nvrtc", ["libnvrtc.so.13", "libnvrtc.so.12"], "nvidia/cuda_nvrtc/lib"),
  ctk("nvJitLink", ["libnvJitLink.so.13", "libnvJitLink.so.12"], "nvidia/nvjitlink/lib"),
  ctk("nvfatbin", ["libnvfatbin.so.13", "libnvfatbin.so.12"], "nvidia/nvfatbin/lib"),
  ctk("nvvm", ["libnvvm.so.4"], "nvidia/cuda_nvcc/nvvm/lib64", {
    rootDirectories: ["nvvm/lib64", "nvvm/lib"],
    searchDerivedRoot: true,
  }),
  ctk("cupti", ["libcupti.so.13", "libcupti.so.12"], "nvidia/cuda_cupti/lib", {
    rootDirectories: ["extras/CUPTI/lib64", ...DEFAULT_ROOT_LIBRARY_DIRECTORIES],
    searchDerivedRoot: true,
  }),
  ctk("cufile", ["libcufile.so.0"], "nvidia/cufile/lib"),
  ctk("cublasLt", ["libcublasLt.so.13", "libcublasLt.so.12"], "nvidia/cublas/lib"),
  ctk("cublas", ["libcublas.so.13", "libcublas.so.12"], "nvidia/cublas/lib", { dependencies: ["cublasLt"] }),
  ctk("nvblas", ["libnvblas.so.13", "libnvblas.so.12"], "nvidia/cublas/lib", { dependencies: ["cublas", "cublasLt"] }),
  ctk("cufft", ["libcufft.so.12", "libcufft.so.11"], "nvidia/cufft/lib"),
  ctk("cufftw", ["libcufftw.so.12", "libcufftw.so.11"], "nvidia/cufft/lib", { dependencies: ["cufft"] }),
  ctk("curand", ["libcurand.so.10"], "nvidia/curand/lib"),
  ctk("cusparse", ["libcusparse.so.12"], "nvidia/cusparse/lib", { dependencies: ["nvJitLink"] }),
  ctk("cusolver", ["libcusolver.so.12", "libcusolver.so.11"], "nvidia/cusolver/lib", {
    dependencies: ["nvJitLink", "cusparse", "cublasLt", "cublas"],
  }),
  ctk("cusolverMg", ["libcusolverMg.so.12", "libcusolverMg.so.11"], "nvidia/cusolver/lib", {
    dependencies: ["nvJitLink", "cublasLt", "cublas"],
  }),
  npp("nppc"),
  npp("nppial"),
  npp("nppicc"),
  npp("nppidei"),
  npp("nppif"),
  npp("nppig"),
  npp("nppim"),
  npp("nppist"),
  npp("nppisu"),
  npp("nppitc"),
  npp("npps"),
  ctk("nvjpeg", ["libnvjpeg.so.13", "libnvjpeg.so.12"], "nvidia/nvjpeg/lib"),
  ctk("cudla", ["libcudla.so.1"], undefined),
  // Other NVIDIA products.
  other("nccl", ["libnccl.so.2"], { unversioned: ["nvidia/nccl/lib"] }),
  other("nvshmem_host", ["libnvshmem_host.so.3"], { unversioned: ["nvidia/nvshmem/lib"] }),
  // Not NVIDIA's: the process management interface of Slurm and Open MPI (Debian's libpmix2), for jobs they start.
  other("pmix", ["libpmix.so.2"], { rootDirectories: [] }),
  other("cublasmp", ["libcublasmp.so.0"], {
    cuda13: ["nvidia/cublasmp/cu13/lib"],
    cuda12: ["nvidia/cublasmp/cu12/lib"],
    dependencies: ["cublas", "cublasLt", "nvshmem_host"],
  }),
  other("cufftMp", ["libcufftMp.so.12", "libcufftMp.so.11"], {
    cuda13: ["nvidia/cufftmp/cu13/lib"],
    cuda12: ["nvidia/cufftmp/cu12/lib"],
    dependencies: ["nvshmem_host"],
  }),
  other("cusolverMp", ["libcusolverMp.so.0"], {
    cuda13: ["nvidia/cu13/lib"],
    cuda12: ["nvidia/cu12/lib"],
    dependencies: ["cublas", "cudart", "cusolver", "nccl"],
  }),
  other("cusparseLt", ["libcusparseLt.so.0"], { cuda13: ["nvidia/cu13/lib"], unversioned: ["nvidia/cusparselt/lib"] }),
  other("cudss", ["libcudss.so.0"], {
    cuda13: ["nvidia/cu13/lib"],
    cuda12: ["nvidia/cu12/lib"],
    dependencies: ["cublas", "cublasLt"],
  }),
  other("mathdx", ["libmathdx.so.0"], { cuda13: ["nvidia/cu13/lib"], cuda12: ["nvidia/cu12/lib"], dependencies: ["nvrtc"] }),
  other("cutensor", ["libcutensor.so.2"], { unversioned: ["cutensor/lib"], dependencies: ["cublasLt"] }),
  other("cutensorMg", ["libcutensorMg.so.2"], { unversioned: ["cutensor/lib"], dependencies: ["cutensor", "cublasLt"] }),
  other("cudnn", ["libcudnn.so.9"], { unversioned: ["nvidia/cudnn/lib"] }),
  // The NVIDIA driver.
  driver("cuda", ["libcuda.so.1"]),
  driver("nvml", ["libnvidia-ml.so.1"]),
  driver("nvcudla", ["libnvcudla.so"]),
];

/** One header directory the pathfinder can find: the directory that contains `headerFile`. */
export interface HeaderDescriptor {
  /** The name users pass, such as `"cudart"` or `"cccl"`. */
  readonly name: string;
  /** Who ships it. */
  readonly packagedWith: Exclude<PackagedWith, "driver">;
  /** A file (relative to the include directory) whose presence marks the right directory, such as `nvrtc.h`. */
  readonly headerFile: string;
  /** Where NVIDIA's Python wheels put the include directory. */
  readonly wheelDirectories: WheelDirectories;
  /** Include directories relative to a toolkit root or conda prefix, in order. */
  readonly rootDirectories: readonly string[];
}

const ROOT_INCLUDE_DIRECTORIES: readonly string[] = ["include", "targets/*/include"];

function ctkHeader(name: string, headerFile: string, cuda12Dir: string | undefined, fields: Partial<HeaderDescriptor> = {}): HeaderDescriptor {
  return {
    name,
    packagedWith: "ctk",
    headerFile,
    wheelDirectories: fields.wheelDirectories ?? {
      cuda13: ["nvidia/cu13/include"],
      cuda12: cuda12Dir === undefined ? [] : [cuda12Dir],
      unversioned: [],
    },
    rootDirectories: fields.rootDirectories ?? ROOT_INCLUDE_DIRECTORIES,
  };
}

/** Every header directory the pathfinder knows. */
export const HEADER_CATALOG: readonly HeaderDescriptor[] = [
  ctkHeader("cudart", "cuda_runtime.h", "nvidia/cuda_runtime/include"),
  ctkHeader("cuda", "cuda.h", "nvidia/cuda_runtime/include"),
  ctkHeader("nvrtc", "nvrtc.h", "nvidia/cuda_nvrtc/include"),
  ctkHeader("nvjitlink", "nvJitLink.h", "nvidia/nvjitlink/include"),
  ctkHeader("nvfatbin", "nvFatbin.h", "nvidia/nvfatbin/include"),
  ctkHeader("nvvm", "nvvm.h", undefined, {
    wheelDirectories: { cuda13: ["nvidia/cu13/include"], cuda12: ["nvidia/cuda_nvcc/nvvm/include"], unversioned: [] },
    rootDirectories: ["nvvm/include"],
  }),
  ctkHeader("nvcc", "fatbinary_section.h", "nvidia/cuda_nvcc/include"),
  ctkHeader("cccl", "cuda/std/version", undefined, {
    wheelDirectories: { cuda13: ["nvidia/cu13/include/cccl"], cuda12: ["nvidia/cuda_cccl/include"], unversioned: [] },
    rootDirectories: ["include/cccl", "include", "targets/*/include/cccl", "targets/*/include"],
  }),
  ctkHeader("cufile", "cufile.h", "nvidia/cufile/include"),
  ctkHeader("nvml", "nvml.h", "nvidia/nvml_dev/include"),
  ctkHeader("cupti", "cupti.h", "nvidia/cuda_cupti/include", {
    rootDirectories: ["extras/CUPTI/include", ...ROOT_INCLUDE_DIRECTORIES],
  }),
  ctkHeader("profiler", "cuda_profiler_api.h", "nvidia/cuda_runtime/include"),
  ctkHeader("cublas", "cublas.h", "nvidia/cublas/include"),
  ctkHeader("cufft", "cufft.h", "nvidia/cufft/include"),
  ctkHeader("curand", "curand.h", "nvidia/curand/include"),
  ctkHeader("cusolver", "cusolverDn.h", "nvidia/cusolver/include"),
  ctkHeader("cusparse", "cusparse.h", "nvidia/cusparse/include"),
  ctkHeader("npp", "npp.h", "nvidia/npp/include"),
  ctkHeader("nvjpeg", "nvjpeg.h", "nvidia/nvjpeg/include"),
  ctkHeader("cudla", "cudla.h", undefined),
  {
    name: "nccl",
    packagedWith: "other",
    headerFile: "nccl.h",
    wheelDirectories: { cuda13: [], cuda12: [], unversioned: ["nvidia/nccl/include"] },
    rootDirectories: ["include"],
  },
  {
    name: "nvshmem",
    packagedWith: "other",
    headerFile: "nvshmem.h",
    wheelDirectories: { cuda13: [], cuda12: [], unversioned: ["nvidia/nvshmem/include"] },
    rootDirectories: ["include"],
  },
];

/** One executable the pathfinder can find. */
export interface BinaryDescriptor {
  /** The executable's file name, such as `"nvcc"`. */
  readonly name: string;
  /** Where NVIDIA's Python wheels put it. */
  readonly wheelDirectories: WheelDirectories;
  /** Directories relative to a toolkit root or conda prefix, in order. */
  readonly rootDirectories: readonly string[];
}

function binary(name: string, cuda13: boolean, cuda12: readonly string[] = ["nvidia/cuda_nvcc/bin"]): BinaryDescriptor {
  return {
    name,
    wheelDirectories: { cuda13: cuda13 ? ["nvidia/cu13/bin"] : [], cuda12, unversioned: [] },
    rootDirectories: ["bin"],
  };
}

/** Every binary utility the pathfinder knows. The current directory and `PATH` are never searched. */
export const BINARY_CATALOG: readonly BinaryDescriptor[] = [
  binary("nvcc", true),
  binary("ptxas", true),
  binary("nvlink", true),
  binary("fatbinary", true),
  binary("nvdisasm", true),
  binary("cuobjdump", true, ["nvidia/cuda_nvcc/bin", "nvidia/cuda_cuobjdump/bin"]),
  binary("bin2c", true),
  binary("nvprune", false),
  binary("cu++filt", true, ["nvidia/cuda_cuxxfilt/bin"]),
  binary("compute-sanitizer", true, ["nvidia/cuda_nvcc/bin", "nvidia/cuda_sanitizer_api/compute-sanitizer"]),
  binary("cuda-gdb", false),
  binary("cuda-gdbserver", false),
  {
    name: "nsys",
    wheelDirectories: { cuda13: [], cuda12: [], unversioned: ["nvidia/nsight_systems/bin"] },
    rootDirectories: ["bin"],
  },
  {
    name: "ncu",
    wheelDirectories: { cuda13: [], cuda12: [], unversioned: ["nvidia/nsight_compute/bin"] },
    rootDirectories: ["bin"],
  },
];

/** One bitcode (`.bc`) or static (`.a`) library: a single file in one of a few directories. */
export interface FileDescriptor {
  /** The name users pass, such as `"device"`. */
  readonly name: string;
  /** The file name, such as `libdevice.10.bc`. */
  readonly fileName: string;
  /** Where NVIDIA's Python wheels put it. */
  readonly wheelDirectories: WheelDirectories;
  /** Directories relative to a toolkit root or conda prefix, in order. */
  readonly rootDirectories: readonly string[];
}

/** Every bitcode library the pathfinder knows (`device` is libdevice, the CUDA math library for NVVM). */
export const BITCODE_CATALOG: readonly FileDescriptor[] = [
  {
    name: "device",
    fileName: "libdevice.10.bc",
    wheelDirectories: {
      cuda13: ["nvidia/cu13/nvvm/libdevice"],
      cuda12: ["nvidia/cuda_nvcc/nvvm/libdevice"],
      unversioned: [],
    },
    rootDirectories: ["nvvm/libdevice"],
  },
  {
    name: "nccl_device",
    fileName: "libnccl_device.bc",
    wheelDirectories: { cuda13: [], cuda12: [], unversioned: ["nvidia/nccl/lib"] },
    rootDirectories: ["lib64", "lib"],
  },
  {
    name: "nvshmem_device",
    fileName: "libnvshmem_device.bc",
    wheelDirectories: { cuda13: [], cuda12: [], unversioned: ["nvidia/nvshmem/lib"] },
    rootDirectories: ["lib64", "lib"],
  },
];

/** Every static library the pathfinder knows (`cudadevrt` is needed to link relocatable device code). */
export const STATIC_LIBRARY_CATALOG: readonly FileDescriptor[] = [
  {
    name: "cudadevrt",
    fileName: "libcudadevrt.a",
    wheelDirectories: { cuda13: ["nvidia/cu13/lib"], cuda12: ["nvidia/cuda_runtime/lib"], unversioned: [] },
    rootDirectories: DEFAULT_ROOT_LIBRARY_DIRECTORIES,
  },
];

/** The names of every known dynamic library, in catalog order. */
export const SUPPORTED_LIBRARY_NAMES: readonly string[] = LIBRARY_CATALOG.map((d) => d.name);
/** The names of every known header directory. */
export const SUPPORTED_HEADER_NAMES: readonly string[] = HEADER_CATALOG.map((d) => d.name);
/** The names of every known binary utility. */
export const SUPPORTED_BINARY_NAMES: readonly string[] = BINARY_CATALOG.map((d) => d.name);
/** The names of every known bitcode library. */
export const SUPPORTED_BITCODE_NAMES: readonly string[] = BITCODE_CATALOG.map((d) => d.name);
/** The names of every known static library. */
export const SUPPORTED_STATIC_LIBRARY_NAMES: readonly string[] = STATIC_LIBRARY_CATALOG.map((d) => d.name);

function byName<T extends { readonly name: string }>(entries: readonly T[]): ReadonlyMap<string, T> {
  return new Map(entries.map((e) => [e.name, e]));
}

const LIBRARIES = byName(LIBRARY_CATALOG);
const HEADERS = byName(HEADER_CATALOG);
const BINARIES = byName(BINARY_CATALOG);
const BITCODE = byName(BITCODE_CATALOG);
const STATIC_LIBRARIES = byName(STATIC_LIBRARY_CATALOG);

/** The catalog entry of a dynamic library, or `undefined` for an unknown name (names are case-sensitive). */
export function libraryDescriptor(name: string): LibraryDescriptor | undefined {
  return LIBRARIES.get(name);
}
/** The catalog entry of a header directory, or `undefined`. */
export function headerDescriptor(name: string): HeaderDescriptor | undefined {
  return HEADERS.get(name);
}
/** The catalog entry of a binary utility, or `undefined`. */
export function binaryDescriptor(name: string): BinaryDescriptor | undefined {
  return BINARIES.get(name);
}
/** The catalog entry of a bitcode library, or `undefined`. */
export function bitcodeDescriptor(name: string): FileDescriptor | undefined {
  return BITCODE.get(name);
}
/** The catalog entry of a static library, or `undefined`. */
export function staticLibraryDescriptor(name: string): FileDescriptor | undefined {
  return STATIC_LIBRARIES.get(name);
}

/** The wheel directories of an entry in search order: CUDA 13, then CUDA 12, then version-independent ones. */
export function wheelDirectoriesInOrder(dirs: WheelDirectories): readonly string[] {
  return [...new Set([...dirs.cuda13, ...dirs.cuda12, ...dirs.unversioned])];
}

/**
 * The environment variable that overrides where a library is loaded from: `CUDA_TS_<NAME>_PATH`, where `<NAME>` is
 * the catalog name in upper case with every character other than a letter or digit replaced by `_`
 * (`nvJitLink` → `CUDA_TS_NVJITLINK_PATH`, `nvshmem_host` → `CUDA_TS_NVSHMEM_HOST_PATH`, `cuda` → `CUDA_TS_CUDA_PATH`).
 * Its value is an absolute path to the library file or to a directory holding one of its sonames.
 */
export function overrideVariable(name: string): string {
  return `CUDA_TS_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}_PATH`;
}

/** The CUDA major versions whose toolkit libraries the catalog knows, newest first (a library's sonames in order). */
export const SUPPORTED_CUDA_MAJORS: readonly number[] = [13, 12];

/** The variable that pins the CUDA major version of the toolkit libraries looked for (`12` or `13`). */
export const CUDA_MAJOR_VARIABLE = "CUDA_TS_CUDA_MAJOR";

/**
 * A toolkit library's entry restricted to one CUDA major version: the soname of that toolkit (a toolkit library's
 * sonames are listed one per CUDA major, newest first: `libcudart.so.13` for 13, `libcudart.so.12` for 12;
 * `libcufft.so.12` for 13, `libcufft.so.11` for 12) and that version's wheel directories. A library with one soname
 * for every version, and libraries outside the toolkit, are returned as they are.
 */
export function pinnedDescriptor(descriptor: LibraryDescriptor, cudaMajor: number): LibraryDescriptor {
  if (descriptor.packagedWith !== "ctk" || descriptor.sonames.length < 2) return descriptor;
  const index = SUPPORTED_CUDA_MAJORS.indexOf(cudaMajor);
  const soname = descriptor.sonames[index];
  if (soname === undefined) return { ...descriptor, sonames: [] };
  const w = descriptor.wheelDirectories;
  return {
    ...descriptor,
    sonames: [soname],
    wheelDirectories: { cuda13: cudaMajor === 13 ? w.cuda13 : [], cuda12: cudaMajor === 12 ? w.cuda12 : [], unversioned: w.unversioned },
  };
}
