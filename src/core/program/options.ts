/**
 * `ProgramOptions`: the options of a {@link Program}, as cuda.core's `ProgramOptions` with camelCase names,
 * validated when built (a wrong type throws a TypeError, a wrong value a RangeError, each naming the option, what
 * was expected and what came), and turned into the exact flag strings of each backend by
 * {@link ProgramOptions.asFlags}. The spellings are cuda.core's (`-arch=sm_90`, `--relocatable-device-code=true`,
 * `--device-debug`, `--generate-line-info`, `--use_fast_math`, `--std=c++17`, `--define-macro=N=V`,
 * `--include-path=dir`, `--dlink-time-opt`, `--maxrregcount=N`, `--ftz=true`, ...).
 *
 * @module
 */
import { checkArch, defaultArch } from "./arch.ts";
import { describeValue } from "../../errors/describe.ts";
import {
  optionalBoolean,
  optionalChoice,
  optionalInteger,
  optionalIntegerList,
  optionalString,
  optionalStringList,
  rangeFailure,
  rejectUnknownKeys,
  requireObject,
  typeFailure,
} from "./option-checks.ts";
import type { LinkerOptionsInit } from "./linker-options.ts";

/** A compilation target. */
export type CompileTarget = "ptx" | "cubin" | "ltoir";

/** The C++ dialects NVRTC takes. */
export type CxxStandard = "c++03" | "c++11" | "c++14" | "c++17" | "c++20";

/** One macro definition: `"NAME"` (defined as 1), `"NAME=VALUE"`, or `["NAME", "VALUE"]`. */
export type MacroDefinition = string | readonly [name: string, value: string];

/** An extra NVVM module: a name and its IR (text, or bitcode bytes). */
export type ExtraSource = readonly [name: string, source: string | Uint8Array];

/** The backends whose flags {@link ProgramOptions.asFlags} builds. */
export type OptionsBackend = "nvrtc" | "nvvm";

const CXX_STANDARDS: readonly CxxStandard[] = ["c++03", "c++11", "c++14", "c++17", "c++20"];
const OFAST_COMPILE = ["0", "min", "mid", "max"] as const;

/** The options of a {@link Program} (all optional). The NVRTC flag each one becomes is in brackets. */
export interface ProgramOptionsInit {
  /** The program's name, given to NVRTC and to the resulting ObjectCode. Default `"default_program"`. */
  readonly name?: string;
  /**
   * The target architecture [`-arch=`]: `sm_<cc>` (real, needed for cubin) or `compute_<cc>` (virtual, PTX only).
   * Default: the current device's `sm_<cc>`, which needs a CUDA driver and a GPU; without them it is required.
   */
  readonly arch?: string;
  /** Relocatable device code [`--relocatable-device-code=true|false`]; needed to link programs together. */
  readonly relocatableDeviceCode?: boolean;
  /** Extensible whole-program compilation [`--extensible-whole-program`]. */
  readonly extensibleWholeProgram?: boolean;
  /** Debug information, optimisations off unless deviceCodeOptimize [`--device-debug`; NVVM `-g`]. */
  readonly debug?: boolean;
  /** Line-number information [`--generate-line-info`]. */
  readonly lineinfo?: boolean;
  /** Device-code optimisation with debug information [`--dopt=on`; NVVM `-opt=3` / `-opt=0`]. */
  readonly deviceCodeOptimize?: boolean;
  /** Options for ptxas, one string or several [`--ptxas-options=<o>` each]. */
  readonly ptxasOptions?: string | readonly string[];
  /** The most registers a kernel may use [`--maxrregcount=N`]. */
  readonly maxRegisterCount?: number;
  /** Flush single-precision denormals to zero [`--ftz=true|false`; NVVM `-ftz=1|0`]. */
  readonly ftz?: boolean;
  /** IEEE single-precision square root [`--prec-sqrt=true|false`]. */
  readonly precSqrt?: boolean;
  /** IEEE single-precision division [`--prec-div=true|false`]. */
  readonly precDiv?: boolean;
  /** Contract multiplies and adds into FMAs [`--fmad=true|false`; NVVM `-fma=1|0`]. */
  readonly fma?: boolean;
  /** Fast math [`--use_fast_math`]. */
  readonly useFastMath?: boolean;
  /** More aggressive vectorisation [`--extra-device-vectorization`]. */
  readonly extraDeviceVectorization?: boolean;
  /** Generate LTO-IR for link-time optimisation [`--dlink-time-opt`]; compiling to "ltoir" turns it on. */
  readonly linkTimeOptimization?: boolean;
  /** Optimise before generating LTO-IR [`--gen-opt-lto`]. */
  readonly genOptLto?: boolean;
  /**
   * Macros to define [`--define-macro=NAME` or `--define-macro=NAME=VALUE` each]: a string, an array of strings
   * and `[name, value]` pairs, or a record `{ NAME: value }`.
   */
  readonly defineMacro?: string | readonly MacroDefinition[] | Readonly<Record<string, string | number>>;
  /** Macros to undefine [`--undefine-macro=NAME` each]. */
  readonly undefineMacro?: string | readonly string[];
  /** Header search directories [`--include-path=dir` each]. */
  readonly includePath?: string | readonly string[];
  /** Headers to include first [`--pre-include=header` each]. */
  readonly preInclude?: string | readonly string[];
  /** Do not search the source's directory for headers [`--no-source-include`]. */
  readonly noSourceInclude?: boolean;
  /** The C++ dialect [`--std=c++17`]. */
  readonly std?: CxxStandard;
  /** Built-in std::move and std::forward [`--builtin-move-forward=true|false`]. */
  readonly builtinMoveForward?: boolean;
  /** Built-in std::initializer_list [`--builtin-initializer-list=true|false`]. */
  readonly builtinInitializerList?: boolean;
  /** No warnings [`--disable-warnings`]. */
  readonly disableWarnings?: boolean;
  /** Kernel pointer parameters are restrict [`--restrict`]. */
  readonly restrict?: boolean;
  /** Unannotated functions are `__device__` [`--device-as-default-execution-space`]. */
  readonly deviceAsDefaultExecutionSpace?: boolean;
  /** Allow `__int128` in device code [`--device-int128`]. */
  readonly deviceInt128?: boolean;
  /** Allow `__float128` in device code [`--device-float128`]. */
  readonly deviceFloat128?: boolean;
  /** Optimisation reports of a kind, such as "inline" [`--optimization-info=kind`]. */
  readonly optimizationInfo?: string;
  /** No diagnostic numbers in messages [`--no-display-error-number`]. */
  readonly noDisplayErrorNumber?: boolean;
  /** Diagnostics to make errors [`--diag-error=N` each]. */
  readonly diagError?: number | readonly number[];
  /** Diagnostics to suppress [`--diag-suppress=N` each]. */
  readonly diagSuppress?: number | readonly number[];
  /** Diagnostics to make warnings [`--diag-warn=N` each]. */
  readonly diagWarn?: number | readonly number[];
  /** Brief diagnostics [`--brief-diagnostics=true|false`]. */
  readonly briefDiagnostics?: boolean;
  /** Write a CSV of compilation phase times to this file [`--time=file`]. */
  readonly time?: string;
  /** Parallel optimisation threads, 0 for all [`--split-compile=N`]. */
  readonly splitCompile?: number;
  /** Stop after syntax checking [`--fdevice-syntax-only`]. */
  readonly fdeviceSyntaxOnly?: boolean;
  /** Omit some language features to compile small programs faster [`--minimal`]. */
  readonly minimal?: boolean;
  /** No compiler caching [`--no-cache`]. */
  readonly noCache?: boolean;
  /** Write a time-trace JSON to this file [`--fdevice-time-trace=file`]. */
  readonly fdeviceTimeTrace?: string;
  /** The seed of randomised optimisations [`--frandom-seed=seed`]. */
  readonly frandomSeed?: string;
  /** Fast compilation level [`--Ofast-compile=0|min|mid|max`]. */
  readonly ofastCompile?: "0" | "min" | "mid" | "max";
  /** Use the automatic precompiled header [`--pch`] (NVRTC 12.8+). */
  readonly pch?: boolean;
  /** Create a precompiled header file [`--create-pch=file`]. */
  readonly createPch?: string;
  /** Use a precompiled header file [`--use-pch=file`]. */
  readonly usePch?: string;
  /** The directory of precompiled headers [`--pch-dir=dir`]. */
  readonly pchDir?: string;
  /** Verbose PCH output [`--pch-verbose=true|false`]. */
  readonly pchVerbose?: boolean;
  /** PCH messages [`--pch-messages=true|false`]. */
  readonly pchMessages?: boolean;
  /** Instantiate templates in the PCH [`--instantiate-templates-in-pch=true|false`]. */
  readonly instantiateTemplatesInPch?: boolean;
  /** NVVM only: more modules compiled with the program, as `[name, source]` pairs. */
  readonly extraSources?: readonly ExtraSource[];
  /** NVVM only: link NVIDIA's libdevice math library (libdevice.10.bc, found by the pathfinder). */
  readonly useLibdevice?: boolean;
  /** Numba's debug option [`--numba-debug`] (NVRTC 13.2+). */
  readonly numbaDebug?: boolean;
}

/** The validated, normalised option values (lists are frozen arrays). */
type Normalized = Omit<
  ProgramOptionsInit,
  "name" | "ptxasOptions" | "defineMacro" | "undefineMacro" | "includePath" | "preInclude" | "diagError" | "diagSuppress" | "diagWarn"
> & {
  readonly ptxasOptions?: readonly string[];
  readonly defineMacro?: readonly MacroDefinition[];
  readonly undefineMacro?: readonly string[];
  readonly includePath?: readonly string[];
  readonly preInclude?: readonly string[];
  readonly diagError?: readonly number[];
  readonly diagSuppress?: readonly number[];
  readonly diagWarn?: readonly number[];
};

const BOOLEANS = [
  "relocatableDeviceCode",
  "extensibleWholeProgram",
  "debug",
  "lineinfo",
  "deviceCodeOptimize",
  "ftz",
  "precSqrt",
  "precDiv",
  "fma",
  "useFastMath",
  "extraDeviceVectorization",
  "linkTimeOptimization",
  "genOptLto",
  "noSourceInclude",
  "builtinMoveForward",
  "builtinInitializerList",
  "disableWarnings",
  "restrict",
  "deviceAsDefaultExecutionSpace",
  "deviceInt128",
  "deviceFloat128",
  "noDisplayErrorNumber",
  "briefDiagnostics",
  "fdeviceSyntaxOnly",
  "minimal",
  "noCache",
  "pch",
  "pchVerbose",
  "pchMessages",
  "instantiateTemplatesInPch",
  "useLibdevice",
  "numbaDebug",
] as const satisfies readonly (keyof ProgramOptionsInit)[];

const STRINGS = ["optimizationInfo", "time", "fdeviceTimeTrace", "frandomSeed", "createPch", "usePch", "pchDir"] as const satisfies readonly (keyof ProgramOptionsInit)[];
const STRING_LISTS = ["ptxasOptions", "undefineMacro", "includePath", "preInclude"] as const satisfies readonly (keyof ProgramOptionsInit)[];
const INTEGER_LISTS = ["diagError", "diagSuppress", "diagWarn"] as const satisfies readonly (keyof ProgramOptionsInit)[];

const KNOWN: ReadonlySet<string> = new Set<string>([
  ...BOOLEANS,
  ...STRINGS,
  ...STRING_LISTS,
  ...INTEGER_LISTS,
  "name",
  "arch",
  "maxRegisterCount",
  "defineMacro",
  "std",
  "splitCompile",
  "ofastCompile",
  "extraSources",
]);

const OWNER = "ProgramOptions";

function macroDefinitions(value: unknown): readonly MacroDefinition[] | undefined {
  if (value === undefined) return undefined;
  const option = "defineMacro";
  const expected = 'a string, an array of strings and [name, value] pairs, or a record { NAME: "value" }';
  const out: MacroDefinition[] = [];
  const pair = (name: unknown, val: unknown, where: string): void => {
    if (typeof name !== "string") typeFailure(OWNER, `${where} name`, "a string", name);
    if (name === "" || /[\s=\0]/.test(name)) rangeFailure(OWNER, `${where} name`, "a macro name (non-empty, no spaces or '=')", name);
    if (typeof val !== "string") typeFailure(OWNER, `${where} value`, "a string", val);
    if (val.includes("\0")) rangeFailure(OWNER, `${where} value`, "a string without NUL characters", val);
    out.push(Object.freeze([name, val]) as readonly [string, string]);
  };
  const single = (item: unknown, where: string): void => {
    if (typeof item === "string") {
      if (item === "" || item.startsWith("=") || item.includes("\0")) rangeFailure(OWNER, where, '"NAME" or "NAME=VALUE"', item);
      out.push(item);
    } else if (Array.isArray(item)) {
      if (item.length !== 2) rangeFailure(OWNER, where, "a [name, value] pair", item);
      pair(item[0], item[1], where);
    } else {
      typeFailure(OWNER, where, 'a string or a [name, value] pair', item);
    }
  };
  if (typeof value === "string") single(value, option);
  else if (Array.isArray(value)) value.forEach((item, i) => single(item, `${option}[${i}]`));
  else if (typeof value === "object" && value !== null && !(value instanceof Uint8Array)) {
    for (const [name, val] of Object.entries(value)) {
      if (typeof val === "number" && Number.isFinite(val)) pair(name, String(val), `${option}.${name}`);
      else if (typeof val === "string") pair(name, val, `${option}.${name}`);
      else typeFailure(OWNER, `${option}.${name}`, "a string or a finite number", val);
    }
  } else typeFailure(OWNER, option, expected, value);
  return Object.freeze(out);
}

function extraSources(value: unknown): readonly ExtraSource[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) typeFailure(OWNER, "extraSources", "an array of [name, source] pairs", value);
  return Object.freeze(
    value.map((item: unknown, i): ExtraSource => {
      const where = `extraSources[${i}]`;
      if (!Array.isArray(item) || item.length !== 2) typeFailure(OWNER, where, "a [name, source] pair", item);
      const [name, source] = item as unknown[];
      if (typeof name !== "string") typeFailure(OWNER, `${where} name`, "a string", name);
      if (name === "" || name.includes("\0")) rangeFailure(OWNER, `${where} name`, "a non-empty string", name);
      if (typeof source === "string") {
        if (source === "") rangeFailure(OWNER, `${where} source`, "non-empty NVVM IR", source);
        return Object.freeze([name, source]) as ExtraSource;
      }
      if (source instanceof Uint8Array || source instanceof ArrayBuffer) {
        const bytes = new Uint8Array(source.byteLength);
        bytes.set(source instanceof ArrayBuffer ? new Uint8Array(source) : source);
        if (bytes.length === 0) rangeFailure(OWNER, `${where} source`, "non-empty NVVM IR", source);
        return Object.freeze([name, bytes]) as ExtraSource;
      }
      return typeFailure(OWNER, `${where} source`, "NVVM IR text (a string) or bitcode (a Uint8Array)", source);
    }),
  );
}

function tf(v: boolean): string {
  return v ? "true" : "false";
}

/** Validated options of a {@link Program}. Every field is the {@link ProgramOptionsInit} one, normalised. */
export interface ProgramOptions extends Normalized {}

/** Validated options of a {@link Program}; see {@link ProgramOptionsInit} for each option. */
export class ProgramOptions {
  /** The program's name (default `"default_program"`). */
  readonly name: string;

  /** Validates `init` (TypeError for a wrong type or an unknown option, RangeError for a wrong value). */
  constructor(init: ProgramOptionsInit = {}) {
    const o = requireObject(OWNER, init) as Record<string, unknown>;
    rejectUnknownKeys(OWNER, o, KNOWN);
    const out: Record<string, unknown> = {};
    for (const k of BOOLEANS) out[k] = optionalBoolean(OWNER, k, o[k]);
    for (const k of STRINGS) out[k] = optionalString(OWNER, k, o[k]);
    for (const k of STRING_LISTS) out[k] = optionalStringList(OWNER, k, o[k]);
    for (const k of INTEGER_LISTS) out[k] = optionalIntegerList(OWNER, k, o[k]);
    out.arch = checkArch(OWNER, o.arch);
    out.maxRegisterCount = optionalInteger(OWNER, "maxRegisterCount", o.maxRegisterCount, 1);
    out.splitCompile = optionalInteger(OWNER, "splitCompile", o.splitCompile, 0);
    out.std = optionalChoice(OWNER, "std", o.std, CXX_STANDARDS);
    out.ofastCompile = optionalChoice(OWNER, "ofastCompile", o.ofastCompile, OFAST_COMPILE);
    out.defineMacro = macroDefinitions(o.defineMacro);
    out.extraSources = extraSources(o.extraSources);
    for (const [k, v] of Object.entries(out)) if (v !== undefined) Object.defineProperty(this, k, { value: v, enumerable: true });
    this.name = optionalString(OWNER, "name", o.name) ?? "default_program";
    Object.freeze(this);
  }

  /** `options` itself when it is a ProgramOptions, else a validated ProgramOptions built from it. */
  static from(options: ProgramOptions | ProgramOptionsInit | undefined): ProgramOptions {
    return options instanceof ProgramOptions ? options : new ProgramOptions(options ?? {});
  }

  /** The given arch, or the current device's `sm_<cc>` (throws MissingArchError without a driver or a GPU). */
  resolveArch(): string {
    return this.arch ?? defaultArch(OWNER);
  }

  /**
   * The flag strings for a backend, in cuda.core's spellings. For NVRTC, compiling to `"ltoir"` adds
   * `--dlink-time-opt` when linkTimeOptimization is not set; for NVVM, `-arch=` takes the `compute_` spelling and
   * `"ltoir"` adds `-gen-lto`. Options a backend does not take throw a RangeError naming them.
   */
  asFlags(backend: OptionsBackend = "nvrtc", target?: CompileTarget): string[] {
    const b = typeof backend === "string" ? backend.toLowerCase() : backend;
    if (b === "nvrtc") return this.#nvrtcFlags(target);
    if (b === "nvvm") return this.#nvvmFlags(target);
    throw new RangeError(`ProgramOptions.asFlags: expected backend "nvrtc" or "nvvm", got ${describeValue(backend)}`);
  }

  #nvrtcFlags(target: CompileTarget | undefined): string[] {
    const f: string[] = [`-arch=${this.resolveArch()}`];
    const each = (flag: string, values: readonly (string | number)[] | undefined): void => {
      for (const v of values ?? []) f.push(`${flag}=${v}`);
    };
    if (this.relocatableDeviceCode !== undefined) f.push(`--relocatable-device-code=${tf(this.relocatableDeviceCode)}`);
    if (this.extensibleWholeProgram) f.push("--extensible-whole-program");
    if (this.debug) f.push("--device-debug");
    if (this.lineinfo) f.push("--generate-line-info");
    if (this.deviceCodeOptimize) f.push("--dopt=on");
    each("--ptxas-options", this.ptxasOptions);
    if (this.maxRegisterCount !== undefined) f.push(`--maxrregcount=${this.maxRegisterCount}`);
    if (this.ftz !== undefined) f.push(`--ftz=${tf(this.ftz)}`);
    if (this.precSqrt !== undefined) f.push(`--prec-sqrt=${tf(this.precSqrt)}`);
    if (this.precDiv !== undefined) f.push(`--prec-div=${tf(this.precDiv)}`);
    if (this.fma !== undefined) f.push(`--fmad=${tf(this.fma)}`);
    if (this.useFastMath) f.push("--use_fast_math");
    if (this.extraDeviceVectorization) f.push("--extra-device-vectorization");
    if (this.linkTimeOptimization || target === "ltoir") f.push("--dlink-time-opt");
    if (this.genOptLto) f.push("--gen-opt-lto");
    for (const m of this.defineMacro ?? []) f.push(typeof m === "string" ? `--define-macro=${m}` : `--define-macro=${m[0]}=${m[1]}`);
    each("--undefine-macro", this.undefineMacro);
    each("--include-path", this.includePath);
    each("--pre-include", this.preInclude);
    if (this.noSourceInclude) f.push("--no-source-include");
    if (this.std !== undefined) f.push(`--std=${this.std}`);
    if (this.builtinMoveForward !== undefined) f.push(`--builtin-move-forward=${tf(this.builtinMoveForward)}`);
    if (this.builtinInitializerList !== undefined) f.push(`--builtin-initializer-list=${tf(this.builtinInitializerList)}`);
    if (this.disableWarnings) f.push("--disable-warnings");
    if (this.restrict) f.push("--restrict");
    if (this.deviceAsDefaultExecutionSpace) f.push("--device-as-default-execution-space");
    if (this.deviceInt128) f.push("--device-int128");
    if (this.deviceFloat128) f.push("--device-float128");
    if (this.optimizationInfo !== undefined) f.push(`--optimization-info=${this.optimizationInfo}`);
    if (this.noDisplayErrorNumber) f.push("--no-display-error-number");
    each("--diag-error", this.diagError);
    each("--diag-suppress", this.diagSuppress);
    each("--diag-warn", this.diagWarn);
    if (this.briefDiagnostics !== undefined) f.push(`--brief-diagnostics=${tf(this.briefDiagnostics)}`);
    if (this.time !== undefined) f.push(`--time=${this.time}`);
    if (this.splitCompile !== undefined) f.push(`--split-compile=${this.splitCompile}`);
    if (this.fdeviceSyntaxOnly) f.push("--fdevice-syntax-only");
    if (this.minimal) f.push("--minimal");
    if (this.noCache) f.push("--no-cache");
    if (this.fdeviceTimeTrace !== undefined) f.push(`--fdevice-time-trace=${this.fdeviceTimeTrace}`);
    if (this.frandomSeed !== undefined) f.push(`--frandom-seed=${this.frandomSeed}`);
    if (this.ofastCompile !== undefined) f.push(`--Ofast-compile=${this.ofastCompile}`);
    if (this.pch) f.push("--pch");
    if (this.createPch !== undefined) f.push(`--create-pch=${this.createPch}`);
    if (this.usePch !== undefined) f.push(`--use-pch=${this.usePch}`);
    if (this.pchDir !== undefined) f.push(`--pch-dir=${this.pchDir}`);
    if (this.pchVerbose !== undefined) f.push(`--pch-verbose=${tf(this.pchVerbose)}`);
    if (this.pchMessages !== undefined) f.push(`--pch-messages=${tf(this.pchMessages)}`);
    if (this.instantiateTemplatesInPch !== undefined) f.push(`--instantiate-templates-in-pch=${tf(this.instantiateTemplatesInPch)}`);
    if (this.numbaDebug) f.push("--numba-debug");
    return f;
  }

  /** The options set here that the NVVM backend does not take. */
  unsupportedByNvvm(): string[] {
    const set = (k: keyof Normalized): boolean => this[k] !== undefined && this[k] !== false;
    const always = (k: keyof Normalized): boolean => this[k] !== undefined;
    const checks: [keyof Normalized, (k: keyof Normalized) => boolean][] = [
      ["relocatableDeviceCode", always],
      ["extensibleWholeProgram", set],
      ["lineinfo", set],
      ["ptxasOptions", always],
      ["maxRegisterCount", always],
      ["useFastMath", set],
      ["extraDeviceVectorization", set],
      ["genOptLto", set],
      ["defineMacro", always],
      ["undefineMacro", always],
      ["includePath", always],
      ["preInclude", always],
      ["noSourceInclude", set],
      ["std", always],
      ["builtinMoveForward", always],
      ["builtinInitializerList", always],
      ["disableWarnings", set],
      ["restrict", set],
      ["deviceAsDefaultExecutionSpace", set],
      ["deviceInt128", set],
      ["deviceFloat128", set],
      ["optimizationInfo", always],
      ["noDisplayErrorNumber", set],
      ["diagError", always],
      ["diagSuppress", always],
      ["diagWarn", always],
      ["briefDiagnostics", always],
      ["time", always],
      ["splitCompile", always],
      ["fdeviceSyntaxOnly", set],
      ["minimal", set],
      ["noCache", set],
      ["fdeviceTimeTrace", always],
      ["frandomSeed", always],
      ["ofastCompile", always],
      ["pch", set],
      ["createPch", always],
      ["usePch", always],
      ["pchDir", always],
      ["pchVerbose", always],
      ["pchMessages", always],
      ["instantiateTemplatesInPch", always],
      ["numbaDebug", set],
    ];
    return checks.filter(([k, test]) => test(k)).map(([k]) => k);
  }

  #nvvmFlags(target: CompileTarget | undefined): string[] {
    const unsupported = this.unsupportedByNvvm();
    if (unsupported.length > 0) {
      throw new RangeError(`ProgramOptions: not supported by the NVVM backend: ${unsupported.join(", ")}`);
    }
    const arch = this.resolveArch();
    const f: string[] = [`-arch=${arch.startsWith("sm_") ? `compute_${arch.slice(3)}` : arch}`];
    const bit = (v: boolean): string => (v ? "1" : "0");
    if (this.debug) f.push("-g");
    if (this.deviceCodeOptimize === false) f.push("-opt=0");
    else if (this.deviceCodeOptimize === true) f.push("-opt=3");
    if (this.ftz !== undefined) f.push(`-ftz=${bit(this.ftz)}`);
    if (this.precSqrt !== undefined) f.push(`-prec-sqrt=${bit(this.precSqrt)}`);
    if (this.precDiv !== undefined) f.push(`-prec-div=${bit(this.precDiv)}`);
    if (this.fma !== undefined) f.push(`-fma=${bit(this.fma)}`);
    if (target === "ltoir") f.push("-gen-lto");
    return f;
  }

  /** The LinkerOptions a PTX program is linked with (the options the linker shares with NVRTC, as cuda.core). */
  toLinkerOptions(): LinkerOptionsInit {
    const init: Record<string, unknown> = {
      name: this.name,
      arch: this.arch,
      maxRegisterCount: this.maxRegisterCount,
      time: this.time !== undefined ? true : undefined,
      linkTimeOptimization: this.linkTimeOptimization,
      debug: this.debug,
      lineinfo: this.lineinfo,
      ftz: this.ftz,
      precDiv: this.precDiv,
      precSqrt: this.precSqrt,
      fma: this.fma,
      splitCompile: this.splitCompile,
      ptxasOptions: this.ptxasOptions,
      noCache: this.noCache,
    };
    for (const k of Object.keys(init)) if (init[k] === undefined) delete init[k];
    return init as LinkerOptionsInit;
  }

  /** `ProgramOptions(name=..., arch=...)`. */
  toString(): string {
    return `ProgramOptions(name=${JSON.stringify(this.name)}, arch=${this.arch === undefined ? "default" : JSON.stringify(this.arch)})`;
  }
}
