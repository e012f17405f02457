/**
 * cuda-ts bindings: every function of the CUDA libraries the generator covers, with the same code on Bun and
 * Deno. Each library comes in two call styles:
 *
 * - checked (`driver.cuMemAlloc(1024)`): throws a typed error on failure, returns out-parameters;
 * - raw (`driver.raw.cuMemAlloc(ptr, 1024)`): C semantics, the status code, native pointers.
 *
 * Importing loads nothing: each library is found (src/pathfinder) and each function resolved on its first call.
 * Types, enums, constants and struct classes of a library come from its own entry point
 * (`cuda-ts/bindings/driver`, ...).
 *
 * @module
 */
export { driver, configureDriver, type DriverBinding, type DriverOptions } from "./driver-entry.ts";
export { runtime, type RuntimeBinding } from "./runtime.ts";
export { nvrtc, nvrtcProgramLog, type NvrtcBinding } from "./nvrtc.ts";
export { nvjitlink, nvJitLinkErrorLog, nvJitLinkInfoLog, type NvJitLinkBinding } from "./nvjitlink.ts";
export { nvvm, nvvmProgramLog, type NvvmBinding } from "./nvvm.ts";
export { nvml, type NvmlBinding } from "./nvml.ts";
export { cufile, type CuFileBinding } from "./cufile.ts";
export { nvfatbin, type NvFatbinBinding } from "./nvfatbin.ts";
export { cupti, CUPTIError, type CuptiBinding } from "./cupti.ts";
export * from "./errors.ts";
export { LibraryNotFoundError } from "../pathfinder/errors.ts";
export { enumName } from "../tables-runtime/enum.ts";
export type { BindingExtras, LoadedLibrary, TableChoice } from "./binding.ts";
export { useGeneratedTables, GeneratedTablesError, GENERATED_VARIABLE, type AddedTable, type GeneratedTable } from "./tables/registry.ts";
export { olderTables, TableNotLoadedError, TABLES_VARIABLE, type OlderTablesDecision } from "./tables/older-tables.ts";
