/**
 * Program without a GPU: argument and option checks (all before any compiler loads), and NVVM for real through
 * this machine's libNVVM and libdevice (skipped where libNVVM is absent). NVRTC and the linker run in
 * test/core/program/program.gpu.test.ts.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { driver } from "../../../src/bindings/driver-entry.ts";
import { NVVMError } from "../../../src/bindings/errors.ts";
import { nvjitlink } from "../../../src/bindings/nvjitlink.ts";
import { nvrtc } from "../../../src/bindings/nvrtc.ts";
import { nvvm } from "../../../src/bindings/nvvm.ts";
import { ClosedError } from "../../../src/core/errors.ts";
import { ObjectCode } from "../../../src/core/program/object-code.ts";
import { InMemoryProgramCache } from "../../../src/core/program/cache.ts";
import { Program } from "../../../src/core/program/program.ts";
import { LibraryNotFoundError, tryFindBitcodeLibrary } from "../../../src/pathfinder/index.ts";

/** A title suffix naming why a suite or test is skipped here (empty when it runs). */
const skipNote = (skip: boolean, why: string): string => (skip ? ` [skipped: ${why}]` : "");

function loads(load: () => unknown): boolean {
  try {
    load();
    return true;
  } catch {
    return false;
  }
}
const nvvmPresent = loads(() => nvvm.nvvmVersion());
const libdevicePresent = nvvmPresent && tryFindBitcodeLibrary("device") !== undefined;
const nvrtcPresent = loads(() => nvrtc.load());
const driverPresent = loads(() => driver.load());
const nvJitLinkPresent = loads(() => nvjitlink.load());

const decode = (o: ObjectCode): string => new TextDecoder().decode(o.code).replace(/\0+$/, "");

/** NVVM IR for this libNVVM: a kernel `scale` that calls libdevice's `__nv_sinf` when `withLibdevice`. */
function nvvmIr(kernel = "scale", withLibdevice = false): string {
  const [major, minor, debugMajor, debugMinor] = irVersion();
  const body = withLibdevice ? "%y = call float @__nv_sinf(float %x)" : "%y = fmul float %x, 2.0";
  return `target triple = "nvptx64-unknown-cuda"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"

define void @${kernel}(float* %data) {
entry:
  %x = load float, float* %data, align 4
  ${body}
  store float %y, float* %data, align 4
  ret void
}
${withLibdevice ? "declare float @__nv_sinf(float)\n" : ""}
!nvvm.annotations = !{!0}
!0 = !{void (float*)* @${kernel}, !"kernel", i32 1}

!nvvmir.version = !{!1}
!1 = !{i32 ${major}, i32 ${minor}, i32 ${debugMajor}, i32 ${debugMinor}}
`;
}

/** A second NVVM module: a device function `twice` (called by `nvvmIrCaller`). */
function nvvmHelperIr(): string {
  return `target triple = "nvptx64-unknown-cuda"
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"

define float @twice(float %x) {
entry:
  %y = fmul float %x, 2.0
  ret float %y
}

!nvvmir.version = !{!0}
!0 = !{i32 ${irVersion().join(", i32 ")}}
`;
}

function irVersion(): number[] {
  return nvvmPresent ? nvvm.nvvmIRVersion() : [2, 0, 3, 2];
}

function nvvmIrCaller(): string {
  return nvvmIr("caller").replace("%y = fmul float %x, 2.0", "%y = call float @twice(float %x)").replace("\n!nvvm.annotations", "declare float @twice(float)\n\n!nvvm.annotations");
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("Program arguments (checked before any compiler is loaded)", () => {
  it("takes c++, ptx and nvvm, case-insensitively", () => {
    expect(() => new Program("goto 100", "fortran")).toThrow(RangeError);
    expect(() => new Program("goto 100", "FORTRAN")).toThrow(/codeType must be one of "c\+\+", "ptx", "nvvm", got "FORTRAN"/);
    expect(() => new Program("x", 3 as unknown as string)).toThrow(/got 3/);
  });

  it("needs text for C++ and PTX, text or bytes for NVVM", () => {
    expect(() => new Program(12345 as unknown as string, "c++")).toThrow(TypeError);
    expect(() => new Program(new Uint8Array(3), "C++", { arch: "sm_90" })).toThrow(/c\+\+ source must be a string, got a Uint8Array/);
    expect(() => new Program(new Uint8Array(3), "ptx", { arch: "sm_90" })).toThrow(/ptx source must be a string/);
    expect(() => new Program(42 as unknown as string, "nvvm", { arch: "sm_90" })).toThrow(/NVVM IR must be text \(a string\) or bitcode \(a Uint8Array\), got 42/);
    expect(() => new Program("", "nvvm", { arch: "sm_90" })).toThrow(/NVVM IR is empty/);
  });

  it("validates the options first", () => {
    expect(() => new Program("x", "c++", { maxRegisterCount: -1 })).toThrow(/ProgramOptions\.maxRegisterCount: expected an integer ≥ 1, got -1/);
    expect(() => new Program("x", "c++", { arch: "sm_90", useLibdevice: true })).toThrow(/useLibdevice only apply to NVVM programs, not c\+\+/);
    expect(() => new Program("x", "ptx", { arch: "sm_90", extraSources: [["m", "x"]] })).toThrow(/extraSources only apply to NVVM programs, not ptx/);
    expect(() => new Program(nvvmIr(), "nvvm", { arch: "sm_90", std: "c++17", lineinfo: true })).toThrow(/not supported by the NVVM backend: lineinfo, std/);
  });

  it.skipIf(nvrtcPresent)(`C++ without NVRTC throws the pathfinder's LibraryNotFoundError${skipNote(nvrtcPresent, "NVRTC is present")}`, () => {
    expect(() => new Program('extern "C" __global__ void k() {}', "c++", { arch: "sm_90" })).toThrow(LibraryNotFoundError);
    expect(() => new Program('extern "C" __global__ void k() {}', "c++", { arch: "sm_90" })).toThrow(/"nvrtc"/);
  });
});

describe.skipIf(nvJitLinkPresent)(`PTX programs without nvJitLink${skipNote(nvJitLinkPresent, "nvJitLink is present")}`, () => {
  it("use the driver's linker, and refuse what it cannot do", () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    const p = new Program(".version 8.0\n.target sm_90\n.address_size 64\n", "ptx", { arch: "sm_90" });
    expect(p.backend).toBe("DRIVER");
    expect(p.handle).toBeNull();
    expect(() => p.compile("ptx")).toThrow(/DRIVER backend compiles ptx to "cubin", not "ptx"/);
    expect(() => p.compile("cubin", { nameExpressions: ["k"] })).toThrow(/nameExpressions are an NVRTC feature/);
    expect(() => new Program("x", "ptx", { arch: "sm_90", ptxasOptions: "-v" })).toThrow(/not supported by the driver's linker.*ptxasOptions/);
  });

  it.skipIf(driverPresent)(`compiling without a driver either throws the driver's LibraryNotFoundError${skipNote(driverPresent, "a driver is present")}`, () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(() => new Program("x", "ptx", { arch: "sm_90" }).compile("cubin")).toThrow(LibraryNotFoundError);
    expect(() => new Program("x", "ptx").compile("cubin")).toThrow(/no arch was given/);
  });
});

describe.skipIf(!nvvmPresent)(`NVVM programs on this machine's libNVVM${skipNote(!nvvmPresent, "libNVVM not found")}`, () => {
  it("compiles IR text to PTX", () => {
    using p = new Program(nvvmIr(), "nvvm", { arch: "sm_90", name: "scale.ll" });
    expect(p.backend).toBe("NVVM");
    expect(p.codeType).toBe("nvvm");
    expect(p.handle).not.toBeNull();
    const ptx = p.compile("ptx");
    expect(ptx).toBeInstanceOf(ObjectCode);
    expect(ptx.format).toBe("ptx");
    expect(ptx.name).toBe("scale.ll");
    expect(decode(ptx)).toMatch(/\.target sm_90/);
    expect(decode(ptx)).toMatch(/\.visible \.entry scale\(/);
    expect(ptx.symbolMapping).toEqual({});
    expect(p.log).toBe("");
  });

  it("compiles IR bytes and honours options (-arch as compute_, fast-math flags)", () => {
    using p = new Program(new TextEncoder().encode(nvvmIr()), "NVVM", { arch: "compute_80", ftz: true, precDiv: false, fma: true, deviceCodeOptimize: true });
    const text = decode(p.compile("ptx"));
    expect(text).toMatch(/\.target sm_80/);
    expect(text).toMatch(/\.ftz\.f32/);
  });

  it("compiles to LTO-IR", () => {
    using p = new Program(nvvmIr(), "nvvm", { arch: "sm_90" });
    const lto = p.compile("ltoir");
    expect(lto.format).toBe("ltoir");
    expect(lto.code.length).toBeGreaterThan(100);
    expect(decode(lto)).not.toMatch(/\.entry/);
  });

  it("refuses targets NVVM does not produce, and name expressions", () => {
    using p = new Program(nvvmIr(), "nvvm", { arch: "sm_90" });
    expect(() => p.compile("cubin")).toThrow(/the NVVM backend compiles nvvm to "ptx", "ltoir", not "cubin"/);
    expect(() => p.compile("sass" as "ptx")).toThrow(RangeError);
    expect(() => p.compile("ptx", { nameExpressions: ["scale"] })).toThrow(/nameExpressions are an NVRTC feature/);
    expect(() => p.compile("ptx", { nameExpressions: "scale" as unknown as string[] })).toThrow(/nameExpressions: expected an array of strings, got "scale"/);
    expect(() => p.compile("ptx", { logs: 3 as never })).toThrow(/logs must have a write\(text\) method or be a function/);
  });

  it("adds extraSources as more modules", () => {
    using p = new Program(nvvmIrCaller(), "nvvm", { arch: "sm_90", extraSources: [["helper.ll", nvvmHelperIr()]] });
    const text = decode(p.compile("ptx"));
    expect(text).toMatch(/\.entry caller\(/);
    expect(text).not.toMatch(/call\.uni.*twice|\.extern \.func.*twice/);
  });

  it("reports IR errors as NVVMError with the log, which is also on the program and in the sink", () => {
    using p = new Program(nvvmIr().replace("store float %y", "store i32 %y"), "nvvm", { arch: "sm_90" });
    let err: unknown;
    const logged: string[] = [];
    try {
      p.compile("ptx", { logs: (t) => logged.push(t) });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NVVMError);
    expect((err as NVVMError).codeName).toMatch(/^NVVM_ERROR_/);
    expect((err as NVVMError).log).toMatch(/%y/);
    expect((err as NVVMError).message).toContain((err as NVVMError).log!.trimEnd());
    expect(p.log).toBe((err as NVVMError).log);
    expect(logged).toEqual([p.log]);
  });

  it("reports IR syntax errors when compiling", () => {
    const p = new Program("define void @x( {", "nvvm", { arch: "sm_90" });
    expect(() => p.compile("ptx")).toThrow(NVVMError);
    expect(p.log).toMatch(/parse/);
    p.close();
  });

  it.skipIf(!libdevicePresent)(`links libdevice with useLibdevice${skipNote(!libdevicePresent, "libdevice not found")}`, () => {
    expect(decode(new Program(nvvmIr("s", true), "nvvm", { arch: "sm_90" }).compile("ptx"))).toMatch(/__nv_sinf/);
    using p = new Program(nvvmIr("s", true), "nvvm", { arch: "sm_90", useLibdevice: true });
    const text = decode(p.compile("ptx"));
    expect(text).toMatch(/\.entry s\(/);
    expect(text).not.toMatch(/__nv_sinf/);
    // A second compile reuses the program (libdevice is added once).
    expect(decode(p.compile("ptx"))).toBe(text);
  });

  it("writes non-empty logs to a sink with write()", () => {
    using p = new Program(nvvmIr(), "nvvm", { arch: "sm_90" });
    const sink = { text: "", write(t: string) { this.text += t; } };
    p.compile("ptx", { logs: sink });
    expect(sink.text).toBe(p.log);
  });

  it("closes, and refuses to compile afterwards; ObjectCodes stay usable", () => {
    const p = new Program(nvvmIr(), "nvvm", { arch: "sm_90" });
    const ptx = p.compile("ptx");
    p.close();
    p.close();
    expect(p.isClosed).toBe(true);
    expect(p.handle).toBeNull();
    expect(() => p.compile("ptx")).toThrow(ClosedError);
    expect(decode(ptx)).toMatch(/\.entry scale/);
    let inner: Program | undefined;
    {
      using q = new Program(nvvmIr(), "nvvm", { arch: "sm_90" });
      inner = q;
    }
    expect(inner.isClosed).toBe(true);
    expect(String(p)).toBe('Program(backend=NVVM, name="default_program")');
  });

  it("compiles through a cache: the second compile does not call libNVVM", () => {
    const cache = new InMemoryProgramCache();
    using warm = new Program(nvvmIr("warm"), "nvvm", { arch: "sm_90" });
    warm.compile("ptx"); // resolves nvvmCompileProgram before it is spied on
    const spy = vi.spyOn(nvvm, "nvvmCompileProgram");
    using p1 = new Program(nvvmIr(), "nvvm", { arch: "sm_90" });
    const a = p1.compile("ptx", { cache });
    expect(spy).toHaveBeenCalledTimes(1);
    using p2 = new Program(nvvmIr(), "nvvm", { arch: "sm_90" });
    const b = p2.compile("ptx", { cache });
    expect(spy).toHaveBeenCalledTimes(1);
    expect(b).not.toBe(a);
    expect(b.code).toEqual(a.code);
    expect(b.format).toBe("ptx");
    expect(p2.log).toBe("");
    // Another target, another arch, other options, other source: misses.
    p2.compile("ltoir", { cache });
    new Program(nvvmIr(), "nvvm", { arch: "sm_80" }).compile("ptx", { cache });
    new Program(nvvmIr(), "nvvm", { arch: "sm_90", ftz: true }).compile("ptx", { cache });
    new Program(nvvmIr("other"), "nvvm", { arch: "sm_90" }).compile("ptx", { cache });
    expect(spy).toHaveBeenCalledTimes(5);
    expect(cache.size).toBe(5);
  });
});
