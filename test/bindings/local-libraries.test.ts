/**
 * The bindings against the CUDA libraries this machine has without a GPU: libcudart, libnvvm (with libdevice) and
 * libcupti. Where a driver is present (the GPU machine) the "no driver" expectations flip, and say so.
 */
import { describe, expect, it } from "vitest";
import { runtime, cudaError_t } from "../../src/bindings/runtime.ts";
import { nvvm } from "../../src/bindings/nvvm.ts";
import { cupti } from "../../src/bindings/cupti.ts";
import { driver } from "../../src/bindings/driver-entry.ts";
import { CUresult } from "../../src/bindings/driver.ts";
import { CudaRuntimeError, NVVMError, enumName, LibraryNotFoundError } from "../../src/bindings/index.ts";
import { findBitcodeLibrary, tryFindNvidiaLibrary } from "../../src/pathfinder/index.ts";
import { readFileBytes } from "../../src/host.ts";
import { ffi, Scratch } from "../../src/ffi/index.ts";

const hasCudart = tryFindNvidiaLibrary("cudart") !== undefined;
const hasNvvm = tryFindNvidiaLibrary("nvvm") !== undefined;
const hasCupti = tryFindNvidiaLibrary("cupti") !== undefined;
const hasDriver = tryFindNvidiaLibrary("cuda") !== undefined;

describe.skipIf(!hasCudart)("libcudart without a GPU", () => {
  it("reports its version", () => {
    expect(runtime.cudaRuntimeGetVersion()).toBe(13000);
    expect(runtime.loaded?.path).toMatch(/libcudart\.so\.13/);
  });

  it("names and describes errors", () => {
    expect(runtime.cudaGetErrorName(cudaError_t.cudaErrorInsufficientDriver)).toBe("cudaErrorInsufficientDriver");
    expect(runtime.cudaGetErrorString(cudaError_t.cudaErrorInvalidValue)).toBe("invalid argument");
    expect(enumName(cudaError_t, 35)).toBe("cudaErrorInsufficientDriver");
  });

  it.runIf(!hasDriver)("sees no driver: cudaDriverGetVersion is 0 and cudaGetDeviceCount fails with a typed error", () => {
    expect(runtime.cudaDriverGetVersion()).toBe(0);
    let err: unknown;
    try {
      runtime.cudaGetDeviceCount();
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CudaRuntimeError);
    const e = err as CudaRuntimeError;
    expect(e.code).toBe(cudaError_t.cudaErrorInsufficientDriver);
    expect(e.codeName).toBe("cudaErrorInsufficientDriver");
    expect(e.message).toMatch(/cudaErrorInsufficientDriver: CUDA driver version is insufficient.*\(cudaGetDeviceCount\)/);
    // The raw style returns the status instead.
    const s = new Scratch(8);
    expect(runtime.raw.cudaGetDeviceCount(s.pointer)).toBe(cudaError_t.cudaErrorInsufficientDriver);
  });

  it.runIf(hasDriver)("sees the driver (this machine has one): devices are counted", () => {
    expect(runtime.cudaDriverGetVersion()).toBeGreaterThanOrEqual(13000);
    expect(runtime.cudaGetDeviceCount()).toBeGreaterThan(0);
  });
});

const IR = `target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
declare float @__nv_sinf(float)
define void @sine(float* %out, float %x) {
  %s = call float @__nv_sinf(float %x)
  store float %s, float* %out
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{void (float*, float)* @sine, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 2, i32 0, i32 3, i32 2}
`;

describe.skipIf(!hasNvvm)("libNVVM without a GPU", () => {
  it("reports its version", () => {
    const [major, minor] = nvvm.nvvmVersion();
    expect(major).toBeGreaterThanOrEqual(2);
    expect(minor).toBeGreaterThanOrEqual(0);
  });

  it("compiles an NVVM IR module with libdevice to PTX", () => {
    const libdevice = readFileBytes(findBitcodeLibrary("device").path)!;
    const prog = nvvm.nvvmCreateProgram();
    try {
      const ir = new TextEncoder().encode(IR);
      nvvm.nvvmAddModuleToProgram(prog, ir, ir.length, "sine.ll");
      nvvm.nvvmLazyAddModuleToProgram(prog, libdevice, libdevice.length, "libdevice.10.bc");
      nvvm.nvvmCompileProgram(prog, 1, ["-arch=compute_90"]);
      const size = Number(nvvm.nvvmGetCompiledResultSize(prog));
      const ptx = new Uint8Array(new ArrayBuffer(size));
      nvvm.nvvmGetCompiledResult(prog, ptx);
      const text = new TextDecoder().decode(ptx.subarray(0, ptx.indexOf(0)));
      expect(text).toMatch(/\.entry sine/);
      expect(text).toMatch(/\.target sm_90/);
      expect(text).not.toMatch(/__nv_sinf/); // inlined from libdevice
    } finally {
      const s = new Scratch(8);
      ffi.writePointer(s.dv, 0, prog);
      nvvm.raw.nvvmDestroyProgram(s.pointer);
    }
  });

  it("throws NVVMError with the program log for invalid IR", () => {
    const prog = nvvm.nvvmCreateProgram();
    const ir = new TextEncoder().encode("this is not LLVM IR");
    nvvm.nvvmAddModuleToProgram(prog, ir, ir.length, "bad.ll");
    let err: unknown;
    try {
      nvvm.nvvmCompileProgram(prog, 0, []);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NVVMError);
    expect((err as NVVMError).codeName).toMatch(/^NVVM_ERROR_/);
    expect((err as NVVMError).log ?? "").not.toBe("");
  });
});

describe.skipIf(!hasCupti)("CUPTI without a GPU", () => {
  it("reports its version", () => {
    expect(cupti.cuptiGetVersion()).toBeGreaterThan(0);
  });
});

describe.runIf(!hasDriver)("the driver where there is none", () => {
  it("fails to load with LibraryNotFoundError listing every place searched", () => {
    let err: unknown;
    try {
      driver.cuInit(0);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(LibraryNotFoundError);
    const msg = (err as Error).message;
    expect(msg).toMatch(/libcuda\.so\.1/);
    expect(msg).toMatch(/CUDA_TS_CUDA_PATH/);
    expect(msg).toMatch(/system-search/);
    expect(driver.loaded).toBeUndefined();
    expect(enumName(CUresult, 1)).toBe("CUDA_ERROR_INVALID_VALUE");
  });
});
