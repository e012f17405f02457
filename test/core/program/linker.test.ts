/**
 * The Linker without a GPU: the backend decision (cuda.core's `_choose_backend`), the fallback warning printed
 * once, the input-type tables, and argument checking. Linking itself runs in test/core/program/program.gpu.test.ts.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { driver } from "../../../src/bindings/driver-entry.ts";
import { CUjitInputType } from "../../../src/bindings/driver.ts";
import { nvjitlink, nvJitLinkInputType } from "../../../src/bindings/nvjitlink.ts";
import { LibraryNotFoundError } from "../../../src/pathfinder/index.ts";
import { chooseLinkerBackend, probeNvJitLink, resetLinkerBackendProbe, whichLinkerBackend } from "../../../src/core/program/linker-backend.ts";
import { DRIVER_INPUT_TYPES } from "../../../src/core/program/linker-driver.ts";
import { nvJitLinkInputTypes } from "../../../src/core/program/linker-nvjitlink.ts";
import { Linker } from "../../../src/core/program/linker.ts";
import { ObjectCode } from "../../../src/core/program/object-code.ts";

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
const nvJitLinkPresent = loads(() => nvjitlink.load());
const driverPresent = loads(() => driver.load());
const ptx = () => ObjectCode.fromPtx(new TextEncoder().encode(".version 8.0\n.target sm_90\n.address_size 64\n"));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("chooseLinkerBackend (cuda.core's decision table)", () => {
  it.each<[number | undefined, [number, number] | undefined, boolean, string]>([
    [13, [13, 0], false, "nvJitLink"],
    [13, [13, 0], true, "nvJitLink"],
    [undefined, [13, 0], true, "nvJitLink"],
    [undefined, [13, 0], false, "nvJitLink"],
    [13, undefined, false, "driver"],
    [undefined, undefined, false, "driver"],
    [13, [12, 9], false, "driver"],
  ])("driver %s, nvJitLink %j, needs nvJitLink %s → %s", (driverMajor, version, needs, expected) => {
    expect(chooseLinkerBackend(driverMajor, version, needs)).toBe(expected);
  });

  it("refuses LTO without nvJitLink, or with mismatched majors", () => {
    expect(() => chooseLinkerBackend(13, undefined, true, "libnvJitLink.so.13 not found")).toThrow(/need nvJitLink.*libnvJitLink\.so\.13 not found/);
    expect(() => chooseLinkerBackend(13, [12, 9], true)).toThrow(/nvJitLink 12\.x for a CUDA 13\.x driver/);
  });
});

describe("input types", () => {
  it("map every ObjectCode format to nvJitLink's and the driver's enums", () => {
    expect(nvJitLinkInputTypes()).toEqual({
      cubin: nvJitLinkInputType.NVJITLINK_INPUT_CUBIN,
      ptx: nvJitLinkInputType.NVJITLINK_INPUT_PTX,
      ltoir: nvJitLinkInputType.NVJITLINK_INPUT_LTOIR,
      fatbin: nvJitLinkInputType.NVJITLINK_INPUT_FATBIN,
      object: nvJitLinkInputType.NVJITLINK_INPUT_OBJECT,
      library: nvJitLinkInputType.NVJITLINK_INPUT_LIBRARY,
    });
    expect(DRIVER_INPUT_TYPES).toEqual({
      cubin: CUjitInputType.CU_JIT_INPUT_CUBIN,
      ptx: CUjitInputType.CU_JIT_INPUT_PTX,
      ltoir: CUjitInputType.CU_JIT_INPUT_NVVM,
      fatbin: CUjitInputType.CU_JIT_INPUT_FATBINARY,
      object: CUjitInputType.CU_JIT_INPUT_OBJECT,
      library: CUjitInputType.CU_JIT_INPUT_LIBRARY,
    });
  });
});

describe("Linker arguments", () => {
  it("needs at least one ObjectCode, and ObjectCodes before the options", () => {
    expect(() => new Linker()).toThrow(/at least one ObjectCode/);
    expect(() => new Linker({ arch: "sm_90" } as never)).toThrow(/at least one ObjectCode/);
    expect(() => new Linker("a.ptx" as never, ptx())).toThrow(/argument 0 must be an ObjectCode.*got "a\.ptx"/);
    expect(() => new Linker(ptx(), { arch: "sm_90" } as never, ptx())).toThrow(/argument 1 must be an ObjectCode/);
  });

  it("validates the options before choosing a backend", () => {
    expect(() => new Linker(ptx(), { arch: "sm_90", lto: true } as never)).toThrow(/unknown option "lto"/);
    expect(() => new Linker(ptx(), { optimizationLevel: 9 })).toThrow(RangeError);
  });
});

describe.skipIf(nvJitLinkPresent)(`without nvJitLink${skipNote(nvJitLinkPresent, "nvJitLink is present")}`, () => {
  it("falls back to the driver and warns once", () => {
    resetLinkerBackendProbe();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(Linker.whichBackend()).toBe("driver");
    expect(Linker.whichBackend()).toBe("driver");
    expect(whichLinkerBackend()).toBe("driver");
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/nvJitLink cannot be used \(LibraryNotFoundError: could not find library "nvJitLink".*falls back to the driver's cuLink\*/);
    const probe = probeNvJitLink();
    expect("problem" in probe && probe.problem).toMatch(/^LibraryNotFoundError/);
  });

  it("refuses LTO-IR inputs and LTO, before touching the driver", () => {
    const lto = ObjectCode.fromLtoir(new Uint8Array([1, 2, 3]));
    vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(() => new Linker(lto, { arch: "sm_90" })).toThrow(/need nvJitLink/);
    expect(() => new Linker(ptx(), { arch: "sm_90", linkTimeOptimization: true })).toThrow(/need nvJitLink/);
  });

  it.skipIf(driverPresent)(`without a driver either, building a Linker throws LibraryNotFoundError for the driver${skipNote(driverPresent, "a driver is present")}`, () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(() => new Linker(ptx(), { arch: "sm_90" })).toThrow(LibraryNotFoundError);
    expect(() => new Linker(ptx(), { arch: "sm_90" })).toThrow(/"cuda"/);
  });

  it("refuses driver-unsupported options before creating the link", () => {
    vi.spyOn(console, "warn").mockImplementation(() => {});
    expect(() => new Linker(ptx(), { arch: "sm_90", ptxasOptions: "-v" })).toThrow(/not supported by the driver's linker.*ptxasOptions/);
  });
});

describe.skipIf(!nvJitLinkPresent)(`with nvJitLink${skipNote(!nvJitLinkPresent, "nvJitLink is not installed here")}`, () => {
  it("uses nvJitLink", () => {
    expect(Linker.whichBackend()).toBe("nvJitLink");
  });
});
