/**
 * The shared {@link Pathfinder} built on the real host (environment and file system through src/host.ts, the
 * system loader through src/ffi/dl.ts), and module-level functions that use it.
 *
 * @module
 */
import type { LocatedBinaryUtility } from "./binaries.ts";
import type { LocatedLibraryFile } from "./bitcode.ts";
import type { PathfinderOptions } from "./context.ts";
import type { LocatedCudaRoot } from "./cuda-root.ts";
import type { LocatedHeaderDirectory } from "./headers.ts";
import type { LoadedNvidiaLibrary, LocatedNvidiaLibrary } from "./libraries.ts";
import { Pathfinder, type LibrarySurveyEntry, type SurveyOptions } from "./pathfinder.ts";
import type { CudaPathOrHome } from "./roots.ts";
import { systemLoader } from "./system-loader.ts";
import { markDefaultPathfinderCustomised } from "./customised.ts";

let shared: Pathfinder | undefined;

/** The shared pathfinder (created on first use). */
export function defaultPathfinder(): Pathfinder {
  shared ??= new Pathfinder({}, systemLoader);
  return shared;
}

/** Replaces the shared pathfinder with one built from `options` (the system loader unless `options.loader`). */
export function setDefaultPathfinderOptions(options: PathfinderOptions): void {
  shared = new Pathfinder(options, systemLoader);
  markDefaultPathfinderCustomised();
}

/** Clears the shared pathfinder's caches (loaded libraries stay loaded). */
export function clearPathfinderCache(): void {
  shared?.clearCache();
}

/**
 * Finds and loads an NVIDIA library by catalog name (`"cuda"`, `"nvml"`, `"cudart"`, `"nvrtc"`, `"nvJitLink"`,
 * ...), its dependencies first; cached per name. Throws `UnknownLibraryError`, `InvalidOverrideError` or
 * `LibraryNotFoundError` (which lists every place searched). See libraries.ts for the search order.
 */
export function loadNvidiaLibrary(name: string): LoadedNvidiaLibrary {
  return defaultPathfinder().loadNvidiaLibrary(name);
}

/** Finds an NVIDIA library without loading it; throws like {@link loadNvidiaLibrary}. */
export function findNvidiaLibrary(name: string): LocatedNvidiaLibrary {
  return defaultPathfinder().findNvidiaLibrary(name);
}

/** Finds an NVIDIA library without loading it, or `undefined`. */
export function tryFindNvidiaLibrary(name: string): LocatedNvidiaLibrary | undefined {
  return defaultPathfinder().tryFindNvidiaLibrary(name);
}

/** Finds the include directory of an NVIDIA component (`"cudart"` → the directory with `cuda_runtime.h`, ...). */
export function findNvidiaHeaderDirectory(name: string): LocatedHeaderDirectory {
  return defaultPathfinder().findNvidiaHeaderDirectory(name);
}

/** Finds the include directory of an NVIDIA component, or `undefined`. */
export function tryFindNvidiaHeaderDirectory(name: string): LocatedHeaderDirectory | undefined {
  return defaultPathfinder().tryFindNvidiaHeaderDirectory(name);
}

/** Finds an NVIDIA command-line tool (`"nvcc"`, `"ptxas"`, ...); never from `PATH` or the current directory. */
export function findNvidiaBinaryUtility(name: string): LocatedBinaryUtility {
  return defaultPathfinder().findNvidiaBinaryUtility(name);
}

/** Finds an NVIDIA command-line tool, or `undefined`. */
export function tryFindNvidiaBinaryUtility(name: string): LocatedBinaryUtility | undefined {
  return defaultPathfinder().tryFindNvidiaBinaryUtility(name);
}

/** Finds a bitcode library (`"device"` → `libdevice.10.bc`). */
export function findBitcodeLibrary(name: string): LocatedLibraryFile {
  return defaultPathfinder().findBitcodeLibrary(name);
}

/** Finds a bitcode library, or `undefined`. */
export function tryFindBitcodeLibrary(name: string): LocatedLibraryFile | undefined {
  return defaultPathfinder().tryFindBitcodeLibrary(name);
}

/** Finds a static library (`"cudadevrt"` → `libcudadevrt.a`). */
export function findStaticLibrary(name: string): LocatedLibraryFile {
  return defaultPathfinder().findStaticLibrary(name);
}

/** Finds a static library, or `undefined`. */
export function tryFindStaticLibrary(name: string): LocatedLibraryFile | undefined {
  return defaultPathfinder().tryFindStaticLibrary(name);
}

/** Finds the CUDA Toolkit root (CUDA_PATH / CUDA_HOME, else derived from cudart or nvcc, else /usr/local/cuda). */
export function findCudaRoot(): LocatedCudaRoot {
  return defaultPathfinder().findCudaRoot();
}

/** Finds the CUDA Toolkit root, or `undefined`. */
export function tryFindCudaRoot(): LocatedCudaRoot | undefined {
  return defaultPathfinder().tryFindCudaRoot();
}

/** `CUDA_PATH`, else `CUDA_HOME`; warns once when both are set to different directories. */
export function getCudaPathOrHome(): CudaPathOrHome | undefined {
  return defaultPathfinder().cudaPathOrHome();
}

/** For every known library: found (or loaded, with `{ load: true }`) or not, and how. Never throws. */
export function surveyNvidiaLibraries(options?: SurveyOptions): LibrarySurveyEntry[] {
  return defaultPathfinder().surveyNvidiaLibraries(options);
}
