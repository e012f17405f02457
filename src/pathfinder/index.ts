/**
 * cuda-ts pathfinder: finds and loads NVIDIA libraries, headers, tools and bitcode on Linux, like NVIDIA's
 * `cuda.pathfinder`, through the host helpers of src/host.ts (so under Deno it only looks where permissions
 * allow, and says which permission would let it look further).
 *
 * Environment variables read:
 * - `CUDA_TS_<NAME>_PATH`: per-library override (absolute path of the library file or of its directory); see
 *   {@link overrideVariable}.
 * - `VIRTUAL_ENV`, `CONDA_PREFIX`: active Python environments whose NVIDIA wheels (and conda packages) are searched.
 * - `CUDA_PATH`, else `CUDA_HOME`: a CUDA Toolkit root (empty counts as unset; CUDA_PATH wins, with a warning when
 *   both name different directories).
 * - `LD_LIBRARY_PATH`: the system search (absolute entries only; empty or relative entries, which the system loader
 *   searches from the current directory, get a warning on the first load: {@link unsafeLibraryPathEntries}).
 *
 * @module
 */
export * from "./catalog.ts";
export * from "./errors.ts";
export type { DynamicLoader, LoadedHandle, LoadOutcome } from "./loader.ts";
export { unavailableLoader } from "./loader.ts";
export type { HostAccess, PathfinderOptions, PathfinderConfig } from "./context.ts";
export { realHost, defaultSystemLibraryDirectories } from "./context.ts";
export type { FoundVia, ToolkitFoundVia } from "./search-steps.ts";
export type { LocatedNvidiaLibrary, LoadedNvidiaLibrary } from "./libraries.ts";
export type { LocatedHeaderDirectory } from "./headers.ts";
export type { LocatedBinaryUtility } from "./binaries.ts";
export type { LocatedLibraryFile } from "./bitcode.ts";
export type { LocatedCudaRoot, CudaRootFoundVia } from "./cuda-root.ts";
export type { CudaPathOrHome } from "./roots.ts";
export { parseLdCache, buildLdCache, type LdCacheEntry } from "./ld-cache.ts";
export { unsafeLibraryPathEntries, unsafeLibraryPathMessage } from "./unsafe-library-path.ts";
export { Pathfinder, type LibrarySurveyEntry, type SurveyOptions } from "./pathfinder.ts";
export { systemLoader, systemLoaderProblem } from "./system-loader.ts";
export * from "./default.ts";
