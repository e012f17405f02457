/**
 * The bindings on a real GPU (issue: runtime FFI layer, pathfinder, bindings): the driver through cuGetProcAddress,
 * devices and attributes, memory round trips, NVRTC → module → launch through the raw and the checked
 * cuLaunchKernel, and nvJitLink on NVRTC's output. Skips cleanly where there is no driver.
 */
import { describe, expect, it } from "vitest";
import { ffi, Scratch, dl } from "../../src/ffi/index.ts";
import { driver } from "../../src/bindings/driver-entry.ts";
import {
  CUdevice_attribute,
  functions as driverFunctions,
  type CUcontext,
  type CUfunction,
  type CUmodule,
} from "../../src/bindings/driver.ts";
import { nvrtc } from "../../src/bindings/nvrtc.ts";
import { nvjitlink, nvJitLinkResult, NVJITLINK_INPUT_CUBIN_VALUE } from "./nvjitlink-input.ts";
import { CudaError, NVRTCError } from "../../src/bindings/errors.ts";
import { gpu, skipNote } from "../support/gpu.ts";
import type { FunctionTable } from "../../src/tables-runtime/spec.ts";

const SOURCE = `
extern "C" __global__ void scale(float* x, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}`;

function compile(source: string, options: string[]): Uint8Array {
  const prog = nvrtc.nvrtcCreateProgram(source, "scale.cu", 0, null, null);
  try {
    nvrtc.nvrtcCompileProgram(prog, options.length, options);
    const size = Number(nvrtc.nvrtcGetCUBINSize(prog));
    const cubin = new Uint8Array(new ArrayBuffer(size));
    nvrtc.nvrtcGetCUBIN(prog, cubin);
    return cubin;
  } finally {
    const s = new Scratch(8);
    ffi.writePointer(s.dv, 0, prog);
    nvrtc.raw.nvrtcDestroyProgram(s.pointer);
  }
}

describe.skipIf(!gpu.available)(`driver bindings on a GPU${skipNote}`, () => {
  let ctx: CUcontext;

  it("initialises, counts devices, reads names and attributes", () => {
    driver.cuInit(0);
    expect(driver.driverVersion()).toBeGreaterThanOrEqual(13000);
    const n = driver.cuDeviceGetCount();
    expect(n).toBeGreaterThan(0);
    const dev = driver.cuDeviceGet(0);
    const text = driver.cuDeviceGetName(256, dev);
    expect(text).toMatch(/NVIDIA/);
    const major = driver.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    expect(major).toBeGreaterThanOrEqual(7);
    expect(driver.cuDeviceTotalMem(dev)).toBeGreaterThan(1n << 30n);
    const uuid = driver.cuDeviceGetUuid(dev);
    expect([...new Uint8Array(uuid.bytes.buffer, uuid.bytes.byteOffset, 16)].some((b) => b !== 0)).toBe(true);
    ctx = driver.cuDevicePrimaryCtxRetain(dev);
    driver.cuCtxSetCurrent(ctx);
    const [free, total] = driver.cuMemGetInfo();
    expect(free).toBeGreaterThan(0n);
    expect(total).toBeGreaterThanOrEqual(free);
  });

  it("resolves every driver function through cuGetProcAddress to the symbol the generator names", () => {
    // For each function: the address cuGetProcAddress gives for (name, version) is the address dlsym gives for the
    // exported symbol of the generated table. Functions the driver does not have fail with FunctionNotFoundError.
    const handle = driver.load().native.handle;
    const s = new Scratch(16);
    const getProc = driver.load().native.bind("cuGetProcAddress_v2", { parameters: ["pointer", "pointer", "i32", "u64", "pointer"], result: "u32" })!;
    let checked = 0;
    const mismatches: string[] = [];
    for (const [name, spec] of Object.entries(driverFunctions as FunctionTable)) {
      const pa = spec.procAddress;
      if (!pa) continue;
      for (const ptds of [false, true]) {
        const version = ptds && pa.ptdsVersion !== undefined ? pa.ptdsVersion : pa.version;
        const symbol = ptds ? (spec.ptdsSymbol ?? spec.symbol) : spec.symbol;
        const r = getProc(ffi.pointerOf(ffi.cstring(pa.name)), s.pointerAt(0), version, ptds ? 2n : 0n, s.pointerAt(8));
        if (r !== 0 || s.readU32(8) !== 0) continue; // not in this driver
        const viaProc = ffi.addressOf(s.readPointer(0));
        const viaDlsym = ffi.addressOf(dl.dlsym(handle, symbol));
        if (viaDlsym === 0) continue; // not exported (only reachable through cuGetProcAddress)
        checked++;
        if (viaProc !== viaDlsym) mismatches.push(`${name}${ptds ? " (ptds)" : ""}: ${pa.name}@${version} ≠ ${symbol}`);
      }
    }
    console.log(`cuGetProcAddress ≡ dlsym for ${checked} (function, stream mode) pairs; mismatches: ${mismatches.length}`);
    expect(mismatches).toEqual([]);
    expect(checked).toBeGreaterThan(700);
  });

  it("allocates, copies host → device → host and checks every byte", () => {
    const n = 1 << 20;
    const src = new Uint8Array(new ArrayBuffer(n));
    for (let i = 0; i < n; i++) src[i] = (i * 31 + 7) & 0xff;
    const d = driver.cuMemAlloc(n);
    driver.cuMemcpyHtoD(d, src, n);
    const back = new Uint8Array(new ArrayBuffer(n));
    driver.cuMemcpyDtoH(back, d, n);
    expect(Buffer.from(back).equals(Buffer.from(src))).toBe(true);
    driver.cuMemsetD8(d, 0x5a, n);
    driver.cuMemcpyDtoH(back, d, n);
    expect(back.every((b) => b === 0x5a)).toBe(true);
    driver.cuMemFree(d);
  });

  it("compiles with NVRTC, loads, and launches through the raw and the checked cuLaunchKernel", () => {
    const major = driver.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);
    const minor = driver.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0);
    const cubin = compile(SOURCE, [`-arch=sm_${major}${minor}`]);
    const mod: CUmodule = driver.cuModuleLoadData(cubin);
    const fn: CUfunction = driver.cuModuleGetFunction(mod, "scale");
    const n = 4096;
    const host = new Float32Array(new ArrayBuffer(n * 4));
    for (let i = 0; i < n; i++) host[i] = i;
    const d = driver.cuMemAlloc(n * 4);
    driver.cuMemcpyHtoD(d, host, n * 4);
    // kernelParams: void*[3] pointing at the three argument values.
    const values = new Scratch(24);
    values.dv.setBigUint64(0, d, true);
    values.dv.setFloat32(8, 2, true);
    values.dv.setUint32(12, n, true);
    const params = new Scratch(24);
    for (const [k, off] of [[0, 0], [1, 8], [2, 12]] as const) ffi.writePointer(params.dv, k * 8, values.pointerAt(off));
    const stream = driver.cuStreamCreate(0);
    // raw: returns the status
    expect(driver.raw.cuLaunchKernel(fn, n / 256, 1, 1, 256, 1, 1, 0, stream, params.pointer, null)).toBe(0);
    // checked: throws on failure, returns nothing
    driver.cuLaunchKernel(fn, n / 256, 1, 1, 256, 1, 1, 0, stream, params.pointer, null);
    driver.cuStreamSynchronize(stream);
    const out = new Float32Array(new ArrayBuffer(n * 4));
    driver.cuMemcpyDtoH(out, d, n * 4);
    for (let i = 0; i < n; i++) expect(out[i]).toBe(i * 4);
    // A launch with a bad configuration is a typed error, not a crash.
    expect(() => driver.cuLaunchKernel(fn, 1, 1, 1, 4096, 1, 1, 0, stream, params.pointer, null)).toThrow(CudaError);
    driver.cuStreamDestroy(stream);
    driver.cuMemFree(d);
    driver.cuModuleUnload(mod);
  });

  it("reports NVRTC compile errors with the program log", () => {
    let err: unknown;
    try {
      compile("__global__ void broken( { }", ["-arch=sm_90"]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NVRTCError);
    expect((err as NVRTCError).codeName).toBe("NVRTC_ERROR_COMPILATION");
    expect((err as NVRTCError).log).toMatch(/error/);
  });

  it("links NVRTC's cubin with nvJitLink", () => {
    const major = driver.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0);
    const minor = driver.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0);
    // nvJitLink links relocatable device code.
    const cubin = compile(SOURCE, [`-arch=sm_${major}${minor}`, "--relocatable-device-code=true"]);
    const [vmaj] = nvjitlink.nvJitLinkVersion();
    expect(vmaj).toBeGreaterThanOrEqual(13);
    const handle = nvjitlink.nvJitLinkCreate(1, [`-arch=sm_${major}${minor}`]);
    nvjitlink.nvJitLinkAddData(handle, NVJITLINK_INPUT_CUBIN_VALUE, cubin, cubin.length, "scale.cubin");
    nvjitlink.nvJitLinkComplete(handle);
    const size = Number(nvjitlink.nvJitLinkGetLinkedCubinSize(handle));
    expect(size).toBeGreaterThan(0);
    const linked = new Uint8Array(new ArrayBuffer(size));
    nvjitlink.nvJitLinkGetLinkedCubin(handle, linked);
    const mod = driver.cuModuleLoadData(linked);
    expect(driver.cuModuleGetFunction(mod, "scale")).not.toBeNull();
    driver.cuModuleUnload(mod);
    const s = new Scratch(8);
    ffi.writePointer(s.dv, 0, handle);
    expect(nvjitlink.raw.nvJitLinkDestroy(s.pointer)).toBe(nvJitLinkResult.NVJITLINK_SUCCESS);
  });

});
