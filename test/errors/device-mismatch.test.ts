/**
 * The wrong device, refused one way: DeviceMismatchError names what came, both devices and what to do, and
 * refuseWrongDevice throws it only on a mismatch. Also the pathfinder's family, matched by `instanceof
 * PathfinderError` across subject bases, and LibraryError's status.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, CudaTsError, DeviceMismatchError, InternalError, NotFoundError } from "../../src/errors/base.ts";
import { refuseWrongDevice } from "../../src/core/base/wrong-device.ts";
import { CudaError, CudaRuntimeError, LibraryError, NVRTCError } from "../../src/bindings/errors.ts";
import * as pathfinder from "../../src/pathfinder/index.ts";

function thrown(f: () => void): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe("DeviceMismatchError and refuseWrongDevice", () => {
  it("says what came, both devices and what to do", () => {
    const e = new DeviceMismatchError("Blas.setStream: the stream", 0, 1);
    expect(e).toBeInstanceOf(ArgumentError);
    expect(e).toBeInstanceOf(CudaTsError);
    expect(e.name).toBe("DeviceMismatchError");
    expect([e.expected, e.actual]).toEqual([0, 1]);
    expect(e.message).toBe("Blas.setStream: the stream is on device 1, but device 0 is needed here; copy it to device 0 first, or use objects of device 1 throughout");
    expect(new DeviceMismatchError("x", 2, 3, "make the handle on device 3").message).toBe("x is on device 3, but device 2 is needed here; make the handle on device 3");
  });

  it("refuseWrongDevice returns for the same device and throws for another", () => {
    expect(refuseWrongDevice("axpy: x", 1, 1)).toBeUndefined();
    const e = thrown(() => refuseWrongDevice("axpy: x", 0, 1, "launch on a stream of device 1")) as DeviceMismatchError;
    expect(e).toBeInstanceOf(DeviceMismatchError);
    expect(e.message).toBe("axpy: x is on device 1, but device 0 is needed here; launch on a stream of device 1");
  });
});

describe("LibraryError", () => {
  it("carries the library, the numeric status and its name", () => {
    const e = new CudaError(2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory", "cuMemAlloc_v2");
    expect(e).toBeInstanceOf(LibraryError);
    expect([e.library, e.status, e.statusName, e.code, e.codeName, e.functionName]).toEqual(["driver", 2, "CUDA_ERROR_OUT_OF_MEMORY", 2, "CUDA_ERROR_OUT_OF_MEMORY", "cuMemAlloc_v2"]);
    expect(e.message).toBe("CUDA_ERROR_OUT_OF_MEMORY: out of memory (cuMemAlloc_v2)");
    const r = new CudaRuntimeError(2, "cudaErrorMemoryAllocation", "out of memory", "cudaMalloc");
    expect(r).toBeInstanceOf(CudaError);
    expect([r.name, r.library]).toEqual(["CudaRuntimeError", "runtime"]);
    expect(new NVRTCError(6, "NVRTC_ERROR_COMPILATION", "compilation failed", "nvrtcCompileProgram", "log\n").message).toBe("NVRTC_ERROR_COMPILATION: compilation failed\nlog (nvrtcCompileProgram)");
  });
});

describe("the pathfinder's errors", () => {
  it("sit under their subject bases and are all `instanceof PathfinderError`", () => {
    const details = { attempts: [], hint: "install it", missingPermissions: [] };
    const notFound = new pathfinder.LibraryNotFoundError("nvrtc", ["libnvrtc.so.13"], details);
    const unknown = new pathfinder.UnknownLibraryError("nvRTC", ["nvrtc"]);
    const cycle = new pathfinder.DependencyCycleError("cusolver");
    const override = new pathfinder.InvalidOverrideError("CUDA_TS_NVRTC_PATH", "lib", "is relative");
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect(notFound).toBeInstanceOf(pathfinder.SearchNotFoundError);
    expect(notFound).toBeInstanceOf(pathfinder.NotFoundError);
    expect(unknown).toBeInstanceOf(ArgumentError);
    expect(override).toBeInstanceOf(ArgumentError);
    expect(cycle).toBeInstanceOf(InternalError);
    for (const e of [notFound, unknown, cycle, override]) {
      expect(e).toBeInstanceOf(pathfinder.PathfinderError);
      expect(e).toBeInstanceOf(CudaTsError);
    }
    expect(new NotFoundError("elsewhere")).not.toBeInstanceOf(pathfinder.PathfinderError);
    expect(new Error("x")).not.toBeInstanceOf(pathfinder.PathfinderError);
    expect(notFound.name).toBe("LibraryNotFoundError");
  });
});
