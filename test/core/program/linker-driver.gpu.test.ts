/**
 * The Linker's fallback to the driver's linker (cuLink*) on a real GPU. The pathfinder override for nvJitLink points
 * at a path that holds no library, as on a machine without nvJitLink: the Linker must then link through the driver,
 * warn once, and the linked kernel must run. (test/core/program/program.gpu.test.ts covers nvJitLink.) Skips, naming
 * the reason, without a GPU or NVRTC; with CUDA_TS_REQUIRE_GPU=1 a missing driver fails instead (test/support/gpu.ts).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Device } from "../../../src/core/device.ts";
import { LaunchConfig, launch } from "../../../src/core/launch/launch.ts";
import { u32 } from "../../../src/core/launch/scalars.ts";
import { Linker } from "../../../src/core/program/linker.ts";
import { Program } from "../../../src/core/program/program.ts";
import type { Stream } from "../../../src/core/stream.ts";
import { LibraryNotFoundError, loadNvidiaLibrary } from "../../../src/pathfinder/index.ts";
import { gpu } from "../../support/gpu.ts";

// Set before anything loads nvJitLink (each test file runs in a process of its own): nvJitLink is then not found.
const HIDDEN = "/nonexistent/cuda-ts-hides-nvjitlink";
process.env.CUDA_TS_NVJITLINK_PATH = HIDDEN;

function nvrtcProbe(): { ok: boolean; reason: string } {
  try {
    loadNvidiaLibrary("nvrtc");
    return { ok: true, reason: "" };
  } catch (e) {
    return { ok: false, reason: `nvrtc does not load (${(e as Error).name}: ${(e as Error).message.split("\n")[0]})` };
  }
}

const nvrtc = gpu.available ? nvrtcProbe() : { ok: false, reason: gpu.reason };
const available = gpu.available && nvrtc.ok;

const LIB = 'extern "C" __device__ unsigned scale_drv(unsigned x) { return 3u * x + 1u; }';
const MAIN = `extern "C" __device__ unsigned scale_drv(unsigned x);
extern "C" __global__ void apply_drv(unsigned* p, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = scale_drv(p[i]);
}`;

describe.skipIf(!available)(`the Linker's driver fallback (cuLink*) on a GPU${available ? "" : ` [skipped: ${nvrtc.reason}]`}`, () => {
  let dev: Device;
  let arch: string;
  let stream: Stream;

  beforeAll(() => {
    dev = new Device(0);
    dev.setCurrent();
    arch = `sm_${dev.arch}`;
    stream = dev.createStream();
  });

  afterAll(() => {
    stream?.close();
  });

  it("cannot load nvJitLink through the override", () => {
    expect(() => loadNvidiaLibrary("nvJitLink")).toThrow(LibraryNotFoundError);
  });

  it("falls back to the driver's linker, warning once with the reason", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      expect(Linker.whichBackend()).toBe("driver");
      expect(Linker.whichBackend()).toBe("driver");
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/nvJitLink cannot be used .*falls back to the driver's cuLink\* functions/s);
    } finally {
      warn.mockRestore();
    }
  });

  it("links two relocatable PTX modules through cuLink* into a cubin whose kernel runs", async () => {
    const options = { arch, relocatableDeviceCode: true };
    const lib = new Program(LIB, "c++", options).compile("ptx");
    const main = new Program(MAIN, "c++", options).compile("ptx");
    using linker = new Linker(lib, main, { arch, name: "driver-linked" });
    expect(linker.backend).toBe("driver");
    expect(linker.handle).not.toBeNull();
    const cubin = linker.link("cubin");
    expect(cubin.format).toBe("cubin");
    expect(cubin.name).toBe("driver-linked");
    expect(Array.from(cubin.code.subarray(0, 4))).toEqual([0x7f, 0x45, 0x4c, 0x46]); // an ELF image
    expect(() => linker.link("ptx")).toThrow(RangeError);

    const k = cubin.getKernel("apply_drv");
    k.declare("pointer", "u32");
    const n = 1000;
    const host = Uint32Array.from({ length: n }, (_, i) => i);
    using buf = dev.allocate(host.byteLength, { stream });
    buf.copyFrom(host, { stream });
    launch(stream, new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 }), k, buf, u32(n));
    const out = new Uint32Array(n);
    buf.copyTo(out, { stream });
    await stream.done();
    expect(Array.from(out)).toEqual(Array.from(host, (v) => 3 * v + 1));
  });

  it("reports an undefined symbol with the driver linker's log", () => {
    const main = new Program(MAIN, "c++", { arch, relocatableDeviceCode: true }).compile("ptx");
    using linker = new Linker(main, { arch });
    expect(linker.backend).toBe("driver");
    let err: unknown;
    try {
      linker.link("cubin");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/scale_drv/);
    expect(linker.errorLog).toMatch(/scale_drv/);
  });

  it("refuses LTO, which the driver's linker cannot do, naming nvJitLink", () => {
    const lto = new Program(LIB, "c++", { arch, relocatableDeviceCode: true, linkTimeOptimization: true }).compile("ltoir");
    expect(() => new Linker(lto, { arch, linkTimeOptimization: true })).toThrow(/need nvJitLink/);
  });
});
