/**
 * ProgramOptions without a GPU: validation (TypeError/RangeError naming the option, what was expected, what came)
 * and the exact flag strings for NVRTC and NVVM, checked against cuda.core's spellings
 * (cuda_core/cuda/core/_program.pyx, `_prepare_nvrtc_options_impl` and `_prepare_nvvm_options_impl`).
 */
import { describe, expect, it } from "vitest";
import { ProgramOptions, type ProgramOptionsInit } from "../../../src/core/program/options.ts";
import { driver } from "../../../src/bindings/driver-entry.ts";
import { MissingArchError } from "../../../src/core/errors.ts";

/** A title suffix naming why a suite or test is skipped here (empty when it runs). */
const skipNote = (skip: boolean, why: string): string => (skip ? ` [skipped: ${why}]` : "");

const arch = "sm_90";
const flags = (init: ProgramOptionsInit, target?: "ptx" | "cubin" | "ltoir"): string[] => new ProgramOptions({ arch, ...init }).asFlags("nvrtc", target);

const driverPresent = (() => {
  try {
    driver.load();
    return true;
  } catch {
    return false;
  }
})();

describe("ProgramOptions → NVRTC flags (cuda.core's spellings)", () => {
  it("starts with -arch and adds nothing for defaults", () => {
    expect(flags({})).toEqual(["-arch=sm_90"]);
    expect(new ProgramOptions({ arch: "compute_90" }).asFlags()).toEqual(["-arch=compute_90"]);
  });

  it.each<[ProgramOptionsInit, string[]]>([
    [{ relocatableDeviceCode: true }, ["--relocatable-device-code=true"]],
    [{ relocatableDeviceCode: false }, ["--relocatable-device-code=false"]],
    [{ extensibleWholeProgram: true }, ["--extensible-whole-program"]],
    [{ debug: true }, ["--device-debug"]],
    [{ debug: false }, []],
    [{ lineinfo: true }, ["--generate-line-info"]],
    [{ deviceCodeOptimize: true }, ["--dopt=on"]],
    [{ ptxasOptions: "-v" }, ["--ptxas-options=-v"]],
    [{ ptxasOptions: ["-v", "-O2"] }, ["--ptxas-options=-v", "--ptxas-options=-O2"]],
    [{ maxRegisterCount: 32 }, ["--maxrregcount=32"]],
    [{ ftz: true }, ["--ftz=true"]],
    [{ ftz: false, precSqrt: false, precDiv: true }, ["--ftz=false", "--prec-sqrt=false", "--prec-div=true"]],
    [{ fma: false }, ["--fmad=false"]],
    [{ useFastMath: true }, ["--use_fast_math"]],
    [{ extraDeviceVectorization: true }, ["--extra-device-vectorization"]],
    [{ linkTimeOptimization: true }, ["--dlink-time-opt"]],
    [{ genOptLto: true }, ["--gen-opt-lto"]],
    [{ defineMacro: "MY_MACRO" }, ["--define-macro=MY_MACRO"]],
    [{ defineMacro: "N=4" }, ["--define-macro=N=4"]],
    [{ defineMacro: [["MY_MACRO", "99"]] }, ["--define-macro=MY_MACRO=99"]],
    [{ defineMacro: ["A", ["B", "2"]] }, ["--define-macro=A", "--define-macro=B=2"]],
    [{ defineMacro: { N: 4, NAME: "x", EMPTY: "" } }, ["--define-macro=N=4", "--define-macro=NAME=x", "--define-macro=EMPTY="]],
    [{ undefineMacro: ["A", "B"] }, ["--undefine-macro=A", "--undefine-macro=B"]],
    [{ includePath: "/usr/local/include" }, ["--include-path=/usr/local/include"]],
    [{ includePath: ["/a", "/b c"] }, ["--include-path=/a", "--include-path=/b c"]],
    [{ preInclude: "cuda_runtime.h" }, ["--pre-include=cuda_runtime.h"]],
    [{ noSourceInclude: true }, ["--no-source-include"]],
    [{ std: "c++17" }, ["--std=c++17"]],
    [{ builtinMoveForward: false }, ["--builtin-move-forward=false"]],
    [{ builtinInitializerList: false }, ["--builtin-initializer-list=false"]],
    [{ disableWarnings: true }, ["--disable-warnings"]],
    [{ restrict: true }, ["--restrict"]],
    [{ deviceAsDefaultExecutionSpace: true }, ["--device-as-default-execution-space"]],
    [{ deviceInt128: true }, ["--device-int128"]],
    [{ deviceFloat128: true }, ["--device-float128"]],
    [{ optimizationInfo: "inline" }, ["--optimization-info=inline"]],
    [{ noDisplayErrorNumber: true }, ["--no-display-error-number"]],
    [{ diagError: 1234, diagSuppress: [1234, 1223], diagWarn: 1000 }, ["--diag-error=1234", "--diag-suppress=1234", "--diag-suppress=1223", "--diag-warn=1000"]],
    [{ briefDiagnostics: true }, ["--brief-diagnostics=true"]],
    [{ time: "times.csv" }, ["--time=times.csv"]],
    [{ splitCompile: 0 }, ["--split-compile=0"]],
    [{ fdeviceSyntaxOnly: true }, ["--fdevice-syntax-only"]],
    [{ minimal: true }, ["--minimal"]],
    [{ noCache: true }, ["--no-cache"]],
    [{ fdeviceTimeTrace: "trace" }, ["--fdevice-time-trace=trace"]],
    [{ frandomSeed: "12345" }, ["--frandom-seed=12345"]],
    [{ ofastCompile: "min" }, ["--Ofast-compile=min"]],
    [{ pch: true }, ["--pch"]],
    [{ createPch: "a.pch" }, ["--create-pch=a.pch"]],
    [{ usePch: "a.pch" }, ["--use-pch=a.pch"]],
    [{ pchDir: "/tmp/pch" }, ["--pch-dir=/tmp/pch"]],
    [{ pchVerbose: true, pchMessages: false }, ["--pch-verbose=true", "--pch-messages=false"]],
    [{ instantiateTemplatesInPch: true }, ["--instantiate-templates-in-pch=true"]],
    [{ numbaDebug: true }, ["--numba-debug"]],
  ])("%j", (init, expected) => {
    expect(flags(init)).toEqual(["-arch=sm_90", ...expected]);
  });

  it("keeps cuda.core's order for several options", () => {
    expect(flags({ std: "c++17", debug: true, relocatableDeviceCode: true, maxRegisterCount: 64, defineMacro: { N: 1 }, includePath: "/inc" })).toEqual([
      "-arch=sm_90",
      "--relocatable-device-code=true",
      "--device-debug",
      "--maxrregcount=64",
      "--define-macro=N=1",
      "--include-path=/inc",
      "--std=c++17",
    ]);
  });

  it("adds --dlink-time-opt for the ltoir target only when linkTimeOptimization is not set", () => {
    expect(flags({}, "ltoir")).toEqual(["-arch=sm_90", "--dlink-time-opt"]);
    expect(flags({ linkTimeOptimization: true }, "ltoir")).toEqual(["-arch=sm_90", "--dlink-time-opt"]);
    expect(flags({}, "cubin")).toEqual(["-arch=sm_90"]);
  });

  it("takes the backend case-insensitively and refuses others", () => {
    const o = new ProgramOptions({ arch });
    expect(o.asFlags("NVRTC" as "nvrtc")).toEqual(["-arch=sm_90"]);
    expect(() => o.asFlags("nvcc" as "nvrtc")).toThrow(RangeError);
    expect(() => o.asFlags("nvcc" as "nvrtc")).toThrow(/"nvrtc" or "nvvm", got "nvcc"/);
  });
});

describe("ProgramOptions → NVVM flags", () => {
  const nvvm = (init: ProgramOptionsInit, target?: "ptx" | "ltoir"): string[] => new ProgramOptions({ arch, ...init }).asFlags("nvvm", target);

  it("spells arch as compute_ and booleans as 0/1", () => {
    expect(nvvm({})).toEqual(["-arch=compute_90"]);
    expect(new ProgramOptions({ arch: "compute_100" }).asFlags("nvvm")).toEqual(["-arch=compute_100"]);
    expect(new ProgramOptions({ arch: "sm_90a" }).asFlags("nvvm")).toEqual(["-arch=compute_90a"]);
    expect(nvvm({ debug: true, ftz: true, precSqrt: false, precDiv: true, fma: false })).toEqual([
      "-arch=compute_90",
      "-g",
      "-ftz=1",
      "-prec-sqrt=0",
      "-prec-div=1",
      "-fma=0",
    ]);
  });

  it("maps deviceCodeOptimize to -opt and ltoir to -gen-lto", () => {
    expect(nvvm({ deviceCodeOptimize: false })).toEqual(["-arch=compute_90", "-opt=0"]);
    expect(nvvm({ deviceCodeOptimize: true })).toEqual(["-arch=compute_90", "-opt=3"]);
    expect(nvvm({}, "ltoir")).toEqual(["-arch=compute_90", "-gen-lto"]);
  });

  it("refuses NVRTC-only options, naming all of them", () => {
    expect(() => nvvm({ lineinfo: true, std: "c++17", defineMacro: "X" })).toThrow(RangeError);
    expect(() => nvvm({ lineinfo: true, std: "c++17", defineMacro: "X" })).toThrow("not supported by the NVVM backend: lineinfo, defineMacro, std");
    expect(new ProgramOptions({ lineinfo: false, useFastMath: false }).unsupportedByNvvm()).toEqual([]);
    expect(new ProgramOptions({ relocatableDeviceCode: false }).unsupportedByNvvm()).toEqual(["relocatableDeviceCode"]);
  });
});

describe("ProgramOptions validation", () => {
  it.each<[unknown, RegExp, ErrorConstructor]>([
    [{ debug: "yes" }, /ProgramOptions\.debug: expected a boolean, got "yes"/, TypeError],
    [{ maxRegisterCount: -3 }, /ProgramOptions\.maxRegisterCount: expected an integer ≥ 1, got -3/, RangeError],
    [{ maxRegisterCount: 2.5 }, /maxRegisterCount: expected an integer ≥ 1, got 2.5/, RangeError],
    [{ maxRegisterCount: "32" }, /maxRegisterCount: expected an integer ≥ 1, got "32"/, TypeError],
    [{ std: "c++98" }, /ProgramOptions\.std: expected one of "c\+\+03", "c\+\+11", "c\+\+14", "c\+\+17", "c\+\+20", got "c\+\+98"/, RangeError],
    [{ std: 17 }, /ProgramOptions\.std: expected one of .*, got 17/, TypeError],
    [{ arch: "90" }, /ProgramOptions\.arch: expected sm_<cc>.*got "90"/, RangeError],
    [{ arch: 90 }, /ProgramOptions\.arch: expected a string such as "sm_90".*got 90/, TypeError],
    [{ includePath: 3 }, /ProgramOptions\.includePath: expected a string or an array of strings, got 3/, TypeError],
    [{ includePath: ["/a", 7] }, /ProgramOptions\.includePath\[1\]: expected a string, got 7/, TypeError],
    [{ includePath: [""] }, /includePath\[0\]: expected a non-empty string/, RangeError],
    [{ diagError: [1, -2] }, /ProgramOptions\.diagError\[1\]: expected a non-negative integer, got -2/, RangeError],
    [{ defineMacro: 5 }, /ProgramOptions\.defineMacro: expected a string, an array/, TypeError],
    [{ defineMacro: [["A", "1", "2"]] }, /defineMacro\[0\]: expected a \[name, value\] pair/, RangeError],
    [{ defineMacro: [["A B", "1"]] }, /defineMacro\[0\] name: expected a macro name/, RangeError],
    [{ defineMacro: [["A", 1]] }, /defineMacro\[0\] value: expected a string, got 1/, TypeError],
    [{ defineMacro: { N: true } }, /defineMacro\.N: expected a string or a finite number, got true/, TypeError],
    [{ defineMacro: "" }, /defineMacro: expected "NAME" or "NAME=VALUE"/, RangeError],
    [{ ofastCompile: "fast" }, /ofastCompile: expected one of "0", "min", "mid", "max", got "fast"/, RangeError],
    [{ splitCompile: -1 }, /splitCompile: expected an integer ≥ 0, got -1/, RangeError],
    [{ name: "" }, /ProgramOptions\.name: expected a non-empty string/, RangeError],
    [{ name: 1 }, /ProgramOptions\.name: expected a string, got 1/, TypeError],
    [{ extraSources: "x" }, /extraSources: expected an array of \[name, source\] pairs/, TypeError],
    [{ extraSources: [["m", 3]] }, /extraSources\[0\] source: expected NVVM IR text/, TypeError],
    [{ extraSources: [["m", ""]] }, /extraSources\[0\] source: expected non-empty NVVM IR/, RangeError],
    [{ max_register_count: 32 }, /unknown option "max_register_count" \(did you mean maxRegisterCount\?\)/, TypeError],
    [{ Debug: true }, /unknown option "Debug" \(did you mean debug\?\)/, TypeError],
    [{ fastMath: true }, /unknown option "fastMath"$/, TypeError],
  ])("%j", (init, message, type) => {
    expect(() => new ProgramOptions(init as ProgramOptionsInit)).toThrow(type);
    expect(() => new ProgramOptions(init as ProgramOptionsInit)).toThrow(message);
  });

  it("refuses a non-object", () => {
    expect(() => new ProgramOptions("sm_90" as unknown as ProgramOptionsInit)).toThrow(/expected an options object, got "sm_90"/);
    expect(() => new ProgramOptions([] as unknown as ProgramOptionsInit)).toThrow(TypeError);
  });

  it("is frozen, normalises lists and copies inputs", () => {
    const paths = ["/a"];
    const o = new ProgramOptions({ arch, includePath: paths, ptxasOptions: "-v", diagWarn: 3 });
    paths.push("/b");
    expect(o.includePath).toEqual(["/a"]);
    expect(o.ptxasOptions).toEqual(["-v"]);
    expect(o.diagWarn).toEqual([3]);
    expect(Object.isFrozen(o)).toBe(true);
    expect(Object.isFrozen(o.includePath)).toBe(true);
    expect(o.name).toBe("default_program");
    expect(o.debug).toBeUndefined();
    expect(String(o)).toBe('ProgramOptions(name="default_program", arch="sm_90")');
  });

  it("accepts the arch spellings of current GPUs", () => {
    for (const a of ["sm_75", "sm_90", "sm_90a", "sm_100", "sm_100f", "sm_120a", "compute_90", "lto_90"]) {
      expect(new ProgramOptions({ arch: a }).arch).toBe(a);
    }
  });

  it("ProgramOptions.from passes a ProgramOptions through and validates a plain object", () => {
    const o = new ProgramOptions({ arch });
    expect(ProgramOptions.from(o)).toBe(o);
    expect(ProgramOptions.from({ arch: "sm_80" }).arch).toBe("sm_80");
    expect(ProgramOptions.from(undefined).name).toBe("default_program");
  });

  it("translates to the LinkerOptions a PTX program is linked with", () => {
    const o = new ProgramOptions({ arch, name: "p", debug: true, ftz: false, time: "t.csv", ptxasOptions: ["-v"], std: "c++17", maxRegisterCount: 40 });
    expect(o.toLinkerOptions()).toEqual({ name: "p", arch, maxRegisterCount: 40, time: true, debug: true, ftz: false, ptxasOptions: ["-v"] });
  });
});

describe.skipIf(driverPresent)(`the default arch without a driver${skipNote(driverPresent, "a CUDA driver is present")}`, () => {
  it("constructing without arch is fine; needing it throws MissingArchError saying what to do", () => {
    const o = new ProgramOptions({ debug: true });
    expect(o.arch).toBeUndefined();
    expect(() => o.asFlags()).toThrow(MissingArchError);
    expect(() => o.asFlags()).toThrow(/no arch was given.*needs a CUDA driver and a GPU.*Pass an explicit arch, such as \{ arch: "sm_90" \}/s);
  });
});
