/**
 * How the builders turn generated source into kernels: NVRTC through a program cache (the builders' shared
 * in-memory cache unless one is given), once per architecture and signature; the loaded kernels are then kept by the
 * builder, so a call that finds its instantiation costs no compile and no cache lookup. Headers for float16,
 * bfloat16 and complex dtypes are found with the pathfinder when a signature needs them.
 *
 * @module
 */
import type { Device } from "../device.ts";
import { pathfinder } from "../../pathfinder/on-demand.ts";
import type { Kernel } from "../launch/kernel.ts";
import { LaunchConfig } from "../launch/launch.ts";
import { Program } from "../program/program.ts";
import type { ProgramCache } from "../program/cache.ts";
import { sha256Hex } from "../program/cache-entry.ts";
import { readFileBytes } from "../../host.ts";
import { arrayProgramCache } from "../array/device-code.ts";

/** Options every builder takes. */
export interface BuilderOptions {
  /** Code placed before the kernel (device functions, macros, includes). */
  readonly preamble?: string;
  /** The compile cache (default: the builders' in-memory cache; `true`: the default file cache). */
  readonly cache?: ProgramCache | true;
  /** Extra NVRTC options (`std`, `defineMacro`, `includePath`, ...). */
  readonly programOptions?: {
    readonly std?: "c++11" | "c++14" | "c++17" | "c++20";
    readonly includePath?: readonly string[];
    readonly defineMacro?: Readonly<Record<string, string | number>>;
    readonly fma?: boolean;
  };
  /**
   * A digest of the headers behind `programOptions.includePath` (see `CompileOptions.cacheDigest`): the compile
   * cache cannot see them, so with an includePath of your own the cached kernels are keyed by this. The toolkit
   * headers the builders include themselves (cuda_fp16.h, ...) are digested for you.
   */
  readonly cacheDigest?: string | Uint8Array;
}

/** The `#include` lines a signature needs. */
export function includeLines(headers: { fp16: boolean; bf16: boolean; complex: boolean }): string[] {
  const lines: string[] = [];
  if (headers.fp16) lines.push("#include <cuda_fp16.h>");
  if (headers.bf16) lines.push("#include <cuda_bf16.h>");
  if (headers.complex) lines.push("#include <cuda/std/complex>");
  return lines;
}

let includeDirs: { cudart?: string; cccl?: string } = {};

/**
 * The include directories a signature's headers need: the toolkit's for cuda_fp16.h and cuda_bf16.h (as the object
 * layer's GPU tests compile them), and CCCL's for `cuda/std/complex` (CUDA 13 keeps it in include/cccl).
 */
function includePathFor(headers: { fp16: boolean; bf16: boolean; complex: boolean }): string[] {
  if (!headers.fp16 && !headers.bf16 && !headers.complex) return [];
  const dirs = [(includeDirs.cudart ??= pathfinder().findNvidiaHeaderDirectory("cudart").path)];
  if (headers.complex) dirs.push((includeDirs.cccl ??= pathfinder().findNvidiaHeaderDirectory("cccl").path));
  return [...new Set(dirs)];
}

/** For tests: forget the include directories found. */
export function resetIncludeDirectories(): void {
  includeDirs = {};
  headerDigests.clear();
}

/** The headers each include line reads first (their own includes come from the same toolkit). */
const DIGESTED_HEADERS = ["cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp", "cuda/std/version", "cuda/std/complex"];
const headerDigests = new Map<string, string>();

/**
 * A digest of the toolkit headers a signature includes, for the compile cache's key (which cannot see files read
 * through includePath): the directories and the bytes of the headers the include lines name, read once per set of
 * directories. A toolkit updated in place gives other bytes, so other keys.
 */
function toolkitHeaderDigest(dirs: readonly string[]): string {
  const key = dirs.join("\0");
  let d = headerDigests.get(key);
  if (d === undefined) {
    const parts: (string | Uint8Array)[] = [];
    for (const dir of dirs) {
      parts.push(dir);
      for (const h of DIGESTED_HEADERS) {
        const bytes = readFileBytes(`${dir}/${h}`);
        if (bytes !== undefined) parts.push(h, bytes);
      }
    }
    headerDigests.set(key, (d = sha256Hex(...parts)));
  }
  return d;
}

/**
 * How many instantiations the builders compiled (or fetched from the program cache): a call whose instantiation
 * the builder already holds adds nothing here, and costs no NVRTC call.
 */
export const builderStats = { instantiations: 0 };

/**
 * Compiles `source` for `device` and returns the kernels `names` (extern "C"). Counted in `builderStats`.
 */
export function compileKernels(source: string, names: readonly string[], device: Device, headers: { fp16: boolean; bf16: boolean; complex: boolean }, options: BuilderOptions, label: string): Kernel[] {
  const po = options.programOptions ?? {};
  const toolkitDirs = includePathFor(headers);
  const includePath = [...toolkitDirs, ...(po.includePath ?? [])];
  // The cache key covers the toolkit headers the builder includes itself; directories of the user's own need the
  // user's digest (without one, the program cache refuses and says so).
  const userDirs = (po.includePath ?? []).length > 0;
  const digest =
    userDirs && options.cacheDigest === undefined
      ? undefined
      : toolkitDirs.length > 0 || options.cacheDigest !== undefined
        ? sha256Hex(toolkitDirs.length > 0 ? toolkitHeaderDigest(toolkitDirs) : "", options.cacheDigest ?? "")
        : undefined;
  const program = new Program(source, "c++", {
    arch: `sm_${device.arch}`,
    name: label,
    ...(po.std !== undefined ? { std: po.std } : headers.complex ? { std: "c++17" as const } : {}),
    ...(includePath.length > 0 ? { includePath } : {}),
    ...(po.defineMacro !== undefined ? { defineMacro: po.defineMacro } : {}),
    ...(po.fma !== undefined ? { fma: po.fma } : {}),
  });
  try {
    builderStats.instantiations++;
    const code = program.compile("cubin", {
      cache: options.cache ?? arrayProgramCache,
      ...(digest !== undefined ? { cacheDigest: digest } : {}),
    });
    return names.map((n) => code.getKernel(n));
  } finally {
    program.close();
  }
}

/** Shared configurations without dynamic shared memory by `grid * 1025 + block`, and the others by a string key. */
const configs = new Map<number, LaunchConfig>();
const sharedConfigs = new Map<string, LaunchConfig>();

/** A launch configuration (shared: configurations are plain values). */
export function configFor(grid: number, block: number, sharedMemory = 0): LaunchConfig {
  if (sharedMemory === 0 && block <= 1024) {
    const k = grid * 1025 + block;
    let c = configs.get(k);
    if (c === undefined) {
      if (configs.size > 4096) configs.clear();
      configs.set(k, (c = new LaunchConfig({ grid, block })));
    }
    return c;
  }
  const k = `${grid},${block},${sharedMemory}`;
  let c = sharedConfigs.get(k);
  if (c === undefined) {
    if (sharedConfigs.size > 4096) sharedConfigs.clear();
    sharedConfigs.set(k, (c = new LaunchConfig({ grid, block, sharedMemory })));
  }
  return c;
}
