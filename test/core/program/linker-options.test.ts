/**
 * LinkerOptions without a GPU: validation, nvJitLink's flag strings (cuda.core's `_prepare_nvjitlink_options`)
 * and the driver's CU_JIT_* options for the cuLink* fallback (`_prepare_driver_options`).
 */
import { describe, expect, it } from "vitest";
import { CUjit_cacheMode, CUjit_option, CUjit_target } from "../../../src/bindings/driver.ts";
import { LinkerOptions, type LinkerOptionsInit } from "../../../src/core/program/linker-options.ts";

const arch = "sm_90";
const flags = (init: LinkerOptionsInit): string[] => new LinkerOptions({ arch, ...init }).asFlags();

describe("LinkerOptions → nvJitLink flags", () => {
  it("starts with -arch", () => {
    expect(flags({})).toEqual(["-arch=sm_90"]);
  });

  it.each<[LinkerOptionsInit, string[]]>([
    [{ maxRegisterCount: 32 }, ["-maxrregcount=32"]],
    [{ time: true }, ["-time"]],
    [{ time: false }, []],
    [{ verbose: true }, ["-verbose"]],
    [{ linkTimeOptimization: true }, ["-lto"]],
    [{ linkTimeOptimization: true, ptx: true }, ["-lto", "-ptx"]],
    [{ optimizationLevel: 3 }, ["-O3"]],
    [{ optimizationLevel: 0 }, ["-O0"]],
    [{ debug: true }, ["-g"]],
    [{ lineinfo: true }, ["-lineinfo"]],
    [{ ftz: true, precDiv: false, precSqrt: true, fma: false }, ["-ftz=1", "-prec-div=0", "-prec-sqrt=1", "-fma=0"]],
    [{ kernelsUsed: "k" }, ["-kernels-used=k"]],
    [{ kernelsUsed: ["a", "b"], variablesUsed: ["v"] }, ["-kernels-used=a", "-kernels-used=b", "-variables-used=v"]],
    [{ optimizeUnusedVariables: true }, ["-optimize-unused-variables"]],
    [{ optimizeUnusedVariables: false }, []],
    [{ ptxasOptions: "-v" }, ["-Xptxas=-v"]],
    [{ ptxasOptions: ["-v", "-O2"] }, ["-Xptxas=-v", "-Xptxas=-O2"]],
    [{ splitCompile: 0, splitCompileExtended: 4 }, ["-split-compile=0", "-split-compile-extended=4"]],
    [{ noCache: true }, ["-no-cache"]],
  ])("%j", (init, expected) => {
    expect(flags(init)).toEqual(["-arch=sm_90", ...expected]);
  });

  it("says when nvJitLink is needed", () => {
    expect(new LinkerOptions({ arch }).needsNvJitLink).toBe(false);
    expect(new LinkerOptions({ arch, linkTimeOptimization: true }).needsNvJitLink).toBe(true);
  });
});

describe("LinkerOptions validation", () => {
  it.each<[unknown, RegExp, ErrorConstructor]>([
    [{ optimizationLevel: 5 }, /LinkerOptions\.optimizationLevel: expected an integer in \[0, 4\], got 5/, RangeError],
    [{ optimizationLevel: "3" }, /optimizationLevel: expected an integer in \[0, 4\], got "3"/, TypeError],
    [{ lto: true }, /LinkerOptions: unknown option "lto"/, TypeError],
    [{ link_time_optimization: true }, /did you mean linkTimeOptimization\?/, TypeError],
    [{ kernelsUsed: [1] }, /LinkerOptions\.kernelsUsed\[0\]: expected a string, got 1/, TypeError],
    [{ arch: "hopper" }, /LinkerOptions\.arch: expected sm_<cc>/, RangeError],
    [{ ptx: true }, /LinkerOptions\.ptx: emitting PTX needs linkTimeOptimization: true/, RangeError],
    [{ debug: 1 }, /LinkerOptions\.debug: expected a boolean, got 1/, TypeError],
    [{ maxRegisterCount: 0 }, /maxRegisterCount: expected an integer ≥ 1, got 0/, RangeError],
  ])("%j", (init, message, type) => {
    expect(() => new LinkerOptions(init as LinkerOptionsInit)).toThrow(type);
    expect(() => new LinkerOptions(init as LinkerOptionsInit)).toThrow(message);
  });

  it("is frozen and named '<default linker>' by default", () => {
    const o = new LinkerOptions({ arch });
    expect(Object.isFrozen(o)).toBe(true);
    expect(o.name).toBe("<default linker>");
    expect(LinkerOptions.from(o)).toBe(o);
    expect(String(o)).toBe('LinkerOptions(name="<default linker>", arch="sm_90")');
  });
});

describe("LinkerOptions → the driver's JIT options (cuLink* fallback)", () => {
  const J = CUjit_option;

  it("starts with the info and error log buffers and their sizes, then the target", () => {
    const jit = new LinkerOptions({ arch }).driverJitOptions(4096);
    expect(jit.keys).toEqual([
      J.CU_JIT_INFO_LOG_BUFFER,
      J.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      J.CU_JIT_ERROR_LOG_BUFFER,
      J.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      J.CU_JIT_TARGET,
    ]);
    expect(jit.values[0]).toBeInstanceOf(Uint8Array);
    expect((jit.values[0] as Uint8Array).length).toBe(4096);
    expect(jit.values[1]).toBe(4096);
    expect(jit.values[3]).toBe(4096);
    expect(jit.values[4]).toBe(CUjit_target.CU_TARGET_COMPUTE_90);
    expect(jit.ignored).toEqual([]);
  });

  it("maps arch suffixes to the driver's targets", () => {
    expect(new LinkerOptions({ arch: "sm_90a" }).driverJitOptions(16).values[4]).toBe(CUjit_target.CU_TARGET_COMPUTE_90A);
    expect(new LinkerOptions({ arch: "sm_100f" }).driverJitOptions(16).values[4]).toBe(CUjit_target.CU_TARGET_COMPUTE_100F);
    expect(() => new LinkerOptions({ arch: "sm_99" }).driverJitOptions(16)).toThrow(/no target for "sm_99"/);
  });

  it("maps the options the driver honours", () => {
    const jit = new LinkerOptions({ arch, maxRegisterCount: 32, verbose: true, optimizationLevel: 2, debug: true, lineinfo: true, noCache: true }).driverJitOptions(16);
    expect(jit.keys.slice(5)).toEqual([
      J.CU_JIT_MAX_REGISTERS,
      J.CU_JIT_LOG_VERBOSE,
      J.CU_JIT_OPTIMIZATION_LEVEL,
      J.CU_JIT_GENERATE_DEBUG_INFO,
      J.CU_JIT_GENERATE_LINE_INFO,
      J.CU_JIT_CACHE_MODE,
    ]);
    expect(jit.values.slice(5)).toEqual([32, 1, 2, 1, 1, CUjit_cacheMode.CU_JIT_CACHE_OPTION_NONE]);
  });

  it("refuses what the driver cannot do and lists what it ignores", () => {
    expect(() => new LinkerOptions({ arch, time: true, ptxasOptions: "-v", splitCompile: 2 }).driverJitOptions(16)).toThrow(
      "not supported by the driver's linker (cuLink*; install nvJitLink for them): time, ptxasOptions, splitCompile",
    );
    expect(() => new LinkerOptions({ arch, linkTimeOptimization: true }).driverJitOptions(16)).toThrow(RangeError);
    const jit = new LinkerOptions({ arch, ftz: true, fma: false, kernelsUsed: "k" }).driverJitOptions(16);
    expect(jit.ignored).toEqual(["ftz", "fma", "kernelsUsed"]);
    expect(jit.keys).toHaveLength(5);
  });
});
