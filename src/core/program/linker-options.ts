/**
 * `LinkerOptions`: the options of a {@link Linker}, as cuda.core's `LinkerOptions` with camelCase names, validated
 * when built, and turned into nvJitLink's flag strings ({@link LinkerOptions.asFlags}: `-arch=sm_90`, `-lto`,
 * `-O3`, `-g`, `-lineinfo`, `-Xptxas=...`, ...) or into the driver's `CU_JIT_*` options for the `cuLink*` fallback
 * ({@link LinkerOptions.driverJitOptions}).
 *
 * @module
 */
import { CUjit_cacheMode, CUjit_option, CUjit_target } from "../../bindings/driver.ts";
import { archNumber, checkArch, defaultArch } from "./arch.ts";
import {
  optionalBoolean,
  optionalInteger,
  optionalString,
  optionalStringList,
  rejectUnknownKeys,
  requireObject,
} from "./option-checks.ts";

/** The options of a {@link Linker} (all optional). The nvJitLink flag each one becomes is in brackets. */
export interface LinkerOptionsInit {
  /** A name for the linked ObjectCode. Default `"<default linker>"`. */
  readonly name?: string;
  /** The target architecture [`-arch=sm_90`]. Default: the current device's (needs a driver and a GPU). */
  readonly arch?: string;
  /** The most registers a kernel may use [`-maxrregcount=N`]. */
  readonly maxRegisterCount?: number;
  /** Timing information in the info log [`-time`] (nvJitLink only). */
  readonly time?: boolean;
  /** Verbose messages in the info log [`-verbose`]. */
  readonly verbose?: boolean;
  /** Link-time optimisation of LTO-IR inputs [`-lto`] (nvJitLink only). */
  readonly linkTimeOptimization?: boolean;
  /** Emit PTX instead of a cubin [`-ptx`]; needs linkTimeOptimization (nvJitLink only). */
  readonly ptx?: boolean;
  /** The optimisation level [`-O<n>`]; nvJitLink takes 0 and 3, the driver 0 to 4. */
  readonly optimizationLevel?: number;
  /** Debug information [`-g`]. */
  readonly debug?: boolean;
  /** Line information [`-lineinfo`]. */
  readonly lineinfo?: boolean;
  /** Flush single-precision denormals to zero [`-ftz=1|0`]. */
  readonly ftz?: boolean;
  /** IEEE single-precision division [`-prec-div=1|0`]. */
  readonly precDiv?: boolean;
  /** IEEE single-precision square root [`-prec-sqrt=1|0`]. */
  readonly precSqrt?: boolean;
  /** Contract multiplies and adds into FMAs [`-fma=1|0`]. */
  readonly fma?: boolean;
  /** The kernels used; others may be removed [`-kernels-used=name` each]. */
  readonly kernelsUsed?: string | readonly string[];
  /** The variables used; others may be removed [`-variables-used=name` each]. */
  readonly variablesUsed?: string | readonly string[];
  /** Unreferenced device variables may be removed [`-optimize-unused-variables`]. */
  readonly optimizeUnusedVariables?: boolean;
  /** Options for ptxas [`-Xptxas=<o>` each] (nvJitLink only). */
  readonly ptxasOptions?: string | readonly string[];
  /** Split-compilation threads, 0 for all [`-split-compile=N`] (nvJitLink only). */
  readonly splitCompile?: number;
  /** Extended split compilation in LTO mode [`-split-compile-extended=N`] (nvJitLink only). */
  readonly splitCompileExtended?: number;
  /** Do not cache intermediate steps [`-no-cache`]. */
  readonly noCache?: boolean;
}

type Normalized = Omit<LinkerOptionsInit, "name" | "kernelsUsed" | "variablesUsed" | "ptxasOptions"> & {
  readonly kernelsUsed?: readonly string[];
  readonly variablesUsed?: readonly string[];
  readonly ptxasOptions?: readonly string[];
};

const OWNER = "LinkerOptions";
const BOOLEANS = [
  "time",
  "verbose",
  "linkTimeOptimization",
  "ptx",
  "debug",
  "lineinfo",
  "ftz",
  "precDiv",
  "precSqrt",
  "fma",
  "optimizeUnusedVariables",
  "noCache",
] as const satisfies readonly (keyof LinkerOptionsInit)[];
const LISTS = ["kernelsUsed", "variablesUsed", "ptxasOptions"] as const satisfies readonly (keyof LinkerOptionsInit)[];
const KNOWN: ReadonlySet<string> = new Set<string>([
  ...BOOLEANS,
  ...LISTS,
  "name",
  "arch",
  "maxRegisterCount",
  "optimizationLevel",
  "splitCompile",
  "splitCompileExtended",
]);

/** The driver's JIT options for `cuLinkCreate`: keys and values (an integer, or a log buffer). */
export interface DriverJitOptions {
  /** `CU_JIT_*` keys. */
  readonly keys: number[];
  /** The value of each key: an integer stored in the pointer-sized slot, or a buffer whose address is stored. */
  readonly values: (number | Uint8Array)[];
  /** Options that the driver ignores (cuda.core warns that they are deprecated there). */
  readonly ignored: string[];
}

/** Validated options of a {@link Linker}. Every field is the {@link LinkerOptionsInit} one, normalised. */
export interface LinkerOptions extends Normalized {}

/** Validated options of a {@link Linker}; see {@link LinkerOptionsInit} for each option. */
export class LinkerOptions {
  /** A name for the linked ObjectCode (default `"<default linker>"`). */
  readonly name: string;

  /** Validates `init` (TypeError for a wrong type or an unknown option, RangeError for a wrong value). */
  constructor(init: LinkerOptionsInit = {}) {
    const o = requireObject(OWNER, init) as Record<string, unknown>;
    rejectUnknownKeys(OWNER, o, KNOWN);
    const out: Record<string, unknown> = {};
    for (const k of BOOLEANS) out[k] = optionalBoolean(OWNER, k, o[k]);
    for (const k of LISTS) out[k] = optionalStringList(OWNER, k, o[k]);
    out.arch = checkArch(OWNER, o.arch);
    out.maxRegisterCount = optionalInteger(OWNER, "maxRegisterCount", o.maxRegisterCount, 1);
    out.optimizationLevel = optionalInteger(OWNER, "optimizationLevel", o.optimizationLevel, 0, 4);
    out.splitCompile = optionalInteger(OWNER, "splitCompile", o.splitCompile, 0);
    out.splitCompileExtended = optionalInteger(OWNER, "splitCompileExtended", o.splitCompileExtended, 0);
    if (out.ptx === true && out.linkTimeOptimization !== true) {
      throw new RangeError(`${OWNER}.ptx: emitting PTX needs linkTimeOptimization: true (nvJitLink emits PTX only from LTO-IR), got ptx: true without it`);
    }
    for (const [k, v] of Object.entries(out)) if (v !== undefined) Object.defineProperty(this, k, { value: v, enumerable: true });
    this.name = optionalString(OWNER, "name", o.name) ?? "<default linker>";
    Object.freeze(this);
  }

  /** `options` itself when it is a LinkerOptions, else a validated LinkerOptions built from it. */
  static from(options: LinkerOptions | LinkerOptionsInit | undefined): LinkerOptions {
    return options instanceof LinkerOptions ? options : new LinkerOptions(options ?? {});
  }

  /** The given arch, or the current device's `sm_<cc>` (throws MissingArchError without a driver or a GPU). */
  resolveArch(): string {
    return this.arch ?? defaultArch(OWNER);
  }

  /** Whether the link needs nvJitLink (LTO or PTX output: the driver's linker can do neither). */
  get needsNvJitLink(): boolean {
    return this.linkTimeOptimization === true || this.ptx === true;
  }

  /** nvJitLink's flag strings, in cuda.core's spellings. */
  asFlags(): string[] {
    const f: string[] = [`-arch=${this.resolveArch()}`];
    // nvJitLink takes 0/1 for these (it hands them to NVVM when it links LTO-IR, and NVVM refuses true/false:
    // "libnvvm : error: -fma=false is an unsupported option", seen on the H200 with CUDA 13.0).
    const tf = (v: boolean): string => (v ? "1" : "0");
    if (this.maxRegisterCount !== undefined) f.push(`-maxrregcount=${this.maxRegisterCount}`);
    if (this.time) f.push("-time");
    if (this.verbose) f.push("-verbose");
    if (this.linkTimeOptimization) f.push("-lto");
    if (this.ptx) f.push("-ptx");
    if (this.optimizationLevel !== undefined) f.push(`-O${this.optimizationLevel}`);
    if (this.debug) f.push("-g");
    if (this.lineinfo) f.push("-lineinfo");
    if (this.ftz !== undefined) f.push(`-ftz=${tf(this.ftz)}`);
    if (this.precDiv !== undefined) f.push(`-prec-div=${tf(this.precDiv)}`);
    if (this.precSqrt !== undefined) f.push(`-prec-sqrt=${tf(this.precSqrt)}`);
    if (this.fma !== undefined) f.push(`-fma=${tf(this.fma)}`);
    for (const k of this.kernelsUsed ?? []) f.push(`-kernels-used=${k}`);
    for (const v of this.variablesUsed ?? []) f.push(`-variables-used=${v}`);
    if (this.optimizeUnusedVariables) f.push("-optimize-unused-variables");
    for (const o of this.ptxasOptions ?? []) f.push(`-Xptxas=${o}`);
    if (this.splitCompile !== undefined) f.push(`-split-compile=${this.splitCompile}`);
    if (this.splitCompileExtended !== undefined) f.push(`-split-compile-extended=${this.splitCompileExtended}`);
    if (this.noCache) f.push("-no-cache");
    return f;
  }

  /** The options set here that the driver's linker cannot honour (each would change the result). */
  unsupportedByDriver(): string[] {
    const out: string[] = [];
    if (this.time) out.push("time");
    if (this.linkTimeOptimization) out.push("linkTimeOptimization");
    if (this.ptx) out.push("ptx");
    if (this.ptxasOptions !== undefined) out.push("ptxasOptions");
    if (this.splitCompile !== undefined) out.push("splitCompile");
    if (this.splitCompileExtended !== undefined) out.push("splitCompileExtended");
    return out;
  }

  /**
   * The driver's JIT options for `cuLinkCreate`, starting with the info and error log buffers (`logSize` bytes
   * each). Throws a RangeError naming the options the driver cannot honour; lists those it ignores.
   */
  driverJitOptions(logSize: number): DriverJitOptions {
    const unsupported = this.unsupportedByDriver();
    if (unsupported.length > 0) {
      throw new RangeError(`${OWNER}: not supported by the driver's linker (cuLink*; install nvJitLink for them): ${unsupported.join(", ")}`);
    }
    const J = CUjit_option;
    const keys: number[] = [J.CU_JIT_INFO_LOG_BUFFER, J.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, J.CU_JIT_ERROR_LOG_BUFFER, J.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
    const values: (number | Uint8Array)[] = [new Uint8Array(new ArrayBuffer(logSize)), logSize, new Uint8Array(new ArrayBuffer(logSize)), logSize];
    const add = (key: number, value: number): void => {
      keys.push(key);
      values.push(value);
    };
    const arch = this.resolveArch();
    const target = (CUjit_target as Readonly<Record<string, number>>)[`CU_TARGET_COMPUTE_${archNumber(arch).toUpperCase()}`];
    if (target === undefined) throw new RangeError(`${OWNER}.arch: the driver's linker has no target for ${JSON.stringify(arch)}`);
    add(J.CU_JIT_TARGET, target);
    if (this.maxRegisterCount !== undefined) add(J.CU_JIT_MAX_REGISTERS, this.maxRegisterCount);
    if (this.verbose) add(J.CU_JIT_LOG_VERBOSE, 1);
    if (this.optimizationLevel !== undefined) add(J.CU_JIT_OPTIMIZATION_LEVEL, this.optimizationLevel);
    if (this.debug) add(J.CU_JIT_GENERATE_DEBUG_INFO, 1);
    if (this.lineinfo) add(J.CU_JIT_GENERATE_LINE_INFO, 1);
    if (this.noCache) add(J.CU_JIT_CACHE_MODE, CUjit_cacheMode.CU_JIT_CACHE_OPTION_NONE);
    const ignored = (["ftz", "precDiv", "precSqrt", "fma", "kernelsUsed", "variablesUsed", "optimizeUnusedVariables"] as const).filter(
      (k) => this[k] !== undefined,
    );
    return { keys, values, ignored };
  }

  /** `LinkerOptions(name=..., arch=...)`. */
  toString(): string {
    return `LinkerOptions(name=${JSON.stringify(this.name)}, arch=${this.arch === undefined ? "default" : JSON.stringify(this.arch)})`;
  }
}
