/**
 * The shapes of the generated tables (generated/cuda-X.Y/<library>/functions.ts). Runtime-neutral data: the
 * bindings layer turns them into callable functions on Bun or Deno.
 *
 * @module
 */
import type { FunctionType } from "../ffi/types.ts";

/** How the driver resolves a function through `cuGetProcAddress` (from cudaTypedefs.h's PFN typedefs). */
export interface ProcAddressSpec {
  /** The base name to ask for (cuMemAlloc, not cuMemAlloc_v2). */
  readonly name: string;
  /** The CUDA version whose ABI the generated signature has (3020 for cuMemAlloc → cuMemAlloc_v2). */
  readonly version: number;
  /** The version to ask for in per-thread-default-stream mode, when the function has such a variant. */
  readonly ptdsVersion?: number;
}

/** One function of a generated table. */
export interface FunctionSpec extends FunctionType {
  /** The symbol the library exports (after the header's version macros). */
  readonly symbol: string;
  /** The exported per-thread-default-stream variant, when the header has one (cuMemcpyAsync_ptsz). */
  readonly ptdsSymbol?: string;
  /** Driver functions: how cuGetProcAddress finds it. */
  readonly procAddress?: ProcAddressSpec;
  /** The parameters' names, as the header writes them (for error messages). */
  readonly names?: readonly string[];
  /** Set when the header deprecates the function. */
  readonly deprecated?: true;
}

/** A generated table: C name → spec. */
export type FunctionTable = { readonly [name: string]: FunctionSpec };

/** Facts about a generated library module. */
export interface LibraryInfo {
  /** The manifest's name of the library (driver, runtime, nvrtc, ...). */
  readonly name: string;
  /** The pathfinder name of its shared library (cuda, cudart, nvrtc, ...). */
  readonly library: string;
  /** The CTK version the table was generated from ("13.0"). */
  readonly ctkVersion: string;
  /** The name of the library's status enum (CUresult, nvrtcResult, ...), if it has one. */
  readonly status?: string;
}
