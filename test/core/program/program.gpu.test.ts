/**
 * Program, the compile cache and the Linker on a real GPU with NVRTC (and nvJitLink for LTO): name expressions,
 * compile errors with their log, every target, PTX through the linker, cache hits that skip NVRTC (calls counted)
 * and survive a truncated or corrupted disk entry, and an LTO round trip whose kernel runs. Skips cleanly, naming
 * the reason, where there is no driver, no GPU, or no NVRTC.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { nvjitlink } from "../../../src/bindings/nvjitlink.ts";
import { nvrtc } from "../../../src/bindings/nvrtc.ts";
import { Device } from "../../../src/core/device.ts";
import { NVJitLinkError, NVRTCError } from "../../../src/core/errors.ts";
import { LaunchConfig, launch } from "../../../src/core/launch/launch.ts";
import { Linker } from "../../../src/core/program/linker.ts";
import { ObjectCode } from "../../../src/core/program/object-code.ts";
import { FileProgramCache } from "../../../src/core/program/cache-file.ts";
import { InMemoryProgramCache } from "../../../src/core/program/cache.ts";
import { Program } from "../../../src/core/program/program.ts";
import { f32, u64 } from "../../../src/core/launch/scalars.ts";
import type { Stream } from "../../../src/core/stream.ts";
import { LibraryNotFoundError, loadNvidiaLibrary } from "../../../src/pathfinder/index.ts";
import { gpu } from "../../support/gpu.ts";

/** Whether a library loads through the pathfinder, and why not. */
function libraryProbe(name: string): { ok: boolean; reason: string } {
  try {
    loadNvidiaLibrary(name);
    return { ok: true, reason: "" };
  } catch (e) {
    if (e instanceof LibraryNotFoundError) return { ok: false, reason: `${name} not found (${e.message.split("\n")[0]})` };
    return { ok: false, reason: `${name} does not load (${(e as Error).message.split("\n")[0]})` };
  }
}

const nvrtcProbe = libraryProbe("nvrtc");
const available = gpu.available && nvrtcProbe.ok;
const reason = !gpu.available ? gpu.reason : nvrtcProbe.reason;
const nvJitLinkOk = available && libraryProbe("nvJitLink").ok && (() => {
  try {
    nvjitlink.nvJitLinkVersion();
    return true;
  } catch {
    return false;
  }
})();

const AXPY = `
template <typename T>
__global__ void axpy(T a, const T* x, T* y, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
`;
const NAMES = ["axpy<float>", "axpy<double>"];
const text = (o: ObjectCode): string => new TextDecoder().decode(o.code).replace(/\0+$/, "");

describe.skipIf(!available)(`Program, cache and Linker on a GPU${available ? "" : ` [skipped: ${reason}]`}`, () => {
  let dev: Device;
  let arch: string;
  let stream: Stream;
  let tmpRoot: string;

  beforeAll(() => {
    dev = new Device(0);
    dev.setCurrent();
    arch = `sm_${dev.arch}`;
    stream = dev.createStream();
    tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), "cuda-ts-gpu-program-"));
  });

  afterAll(() => {
    stream?.close();
    if (tmpRoot) fs.rmSync(tmpRoot, { recursive: true, force: true });
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("compiles C++ with name expressions and gets each instantiation's kernel by its name expression", () => {
    using prog = new Program(AXPY, "c++", { arch, std: "c++17" });
    expect(prog.backend).toBe("NVRTC");
    expect(prog.handle).not.toBeNull();
    const mod = prog.compile("cubin", { nameExpressions: NAMES });
    expect(mod.format).toBe("cubin");
    expect(Array.from(mod.code.subarray(0, 4))).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    const map = mod.symbolMapping;
    expect(Object.keys(map).sort()).toEqual(["axpy<double>", "axpy<float>"]);
    expect(map["axpy<float>"]).toMatch(/^_Z4axpyIfE/);
    expect(map["axpy<double>"]).toMatch(/^_Z4axpyIdE/);
    const kf = mod.getKernel("axpy<float>");
    const kd = mod.getKernel("axpy<double>");
    expect(kf.symbol).toBe(map["axpy<float>"]);
    expect(kd.symbol).toBe(map["axpy<double>"]);
    expect(kf.numArguments).toBe(4);
  });

  it("runs the axpy<float> it got by name expression", async () => {
    using prog = new Program(AXPY, "c++", { arch });
    const k = prog.compile("cubin", { nameExpressions: ["axpy<float>"] }).getKernel("axpy<float>");
    const n = 1000;
    const hx = Float32Array.from({ length: n }, (_, i) => i);
    const hy = new Float32Array(n).fill(1);
    using x = dev.allocate(n * 4, { stream });
    using y = dev.allocate(n * 4, { stream });
    x.copyFrom(hx, { stream });
    y.copyFrom(hy, { stream });
    launch(stream, new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 }), k, f32(2), x, y, u64(n));
    const out = new Float32Array(n);
    y.copyTo(out, { stream });
    await stream.done();
    expect(out[0]).toBe(1);
    expect(out[10]).toBe(21);
    expect(out[n - 1]).toBe(2 * (n - 1) + 1);
  });

  it("defaults arch to the current device's", () => {
    using prog = new Program('extern "C" __global__ void z() {}', "c++");
    expect(prog.options.asFlags()[0]).toBe(`-arch=sm_${dev.arch}`);
    expect(prog.compile("cubin").getKernel("z").symbol).toBe("z");
  });

  it("puts the compiler log on the error and on the program when compilation fails", () => {
    using prog = new Program("__global__ void bad( { undefined_identifier_xyz; }", "c++", { arch, name: "bad.cu" });
    const logged: string[] = [];
    let err: unknown;
    try {
      prog.compile("cubin", { logs: (t) => logged.push(t) });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NVRTCError);
    const e = err as NVRTCError;
    expect(e.codeName).toBe("NVRTC_ERROR_COMPILATION");
    expect(e.log).toMatch(/error/);
    expect(e.log).toMatch(/bad\.cu/);
    expect(e.message).toContain(e.log!.trimEnd());
    expect(prog.log).toBe(e.log);
    expect(logged).toEqual([e.log]);
  });

  it("keeps warnings in the log of a successful compilation", () => {
    using prog = new Program('extern "C" __global__ void w() { int unused_variable_q; }', "c++", { arch });
    const sink = { text: "", write(t: string) { this.text += t; } };
    prog.compile("ptx", { logs: sink });
    expect(prog.log).toMatch(/unused_variable_q/);
    expect(sink.text).toBe(prog.log);
  });

  it("compiles to ptx, cubin and ltoir", () => {
    const src = 'extern "C" __global__ void t(int* o) { *o = 7; }';
    using prog = new Program(src, "c++", { arch, name: "targets" });
    const ptx = prog.compile("ptx");
    expect(ptx.format).toBe("ptx");
    expect(ptx.name).toBe("targets");
    expect(text(ptx)).toMatch(/\.visible \.entry t\(/);
    expect(text(ptx)).toMatch(new RegExp(`\\.target ${arch}`));
    expect(ptx.getKernel("t").symbol).toBe("t");
    const cubin = prog.compile("cubin");
    expect(cubin.format).toBe("cubin");
    expect(Array.from(cubin.code.subarray(0, 4))).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    using lto = new Program(src, "c++", { arch, relocatableDeviceCode: true });
    const ir = lto.compile("ltoir");
    expect(ir.format).toBe("ltoir");
    expect(ir.code.length).toBeGreaterThan(0);
    expect(() => ir.handle).toThrow(/Linker input/);
    expect(() => new Program(src, "c++", { arch: `compute_${dev.arch}` }).compile("cubin")).toThrow(/a cubin needs a real architecture/);
  });

  it("compiles PTX through the linker", () => {
    const ptx = new Program('extern "C" __global__ void p(int* o) { *o = 3; }', "c++", { arch }).compile("ptx");
    using prog = new Program(text(ptx), "ptx", { arch, name: "from-ptx" });
    expect(prog.backend).toBe(nvJitLinkOk ? "NVJITLINK" : "DRIVER");
    expect(prog.handle).toBeNull();
    const cubin = prog.compile("cubin");
    expect(cubin.format).toBe("cubin");
    expect(cubin.name).toBe("from-ptx");
    expect(cubin.getKernel("p").symbol).toBe("p");
  });

  it("links PTX with the Linker, and reports an undefined symbol with the linker's log", () => {
    const ptx = new Program('extern "C" __global__ void q(int* o) { *o = 4; }', "c++", { arch }).compile("ptx");
    using linker = new Linker(ptx, { arch, name: "linked" });
    expect(linker.backend).toBe(nvJitLinkOk ? "nvJitLink" : "driver");
    expect(Linker.whichBackend()).toBe(linker.backend);
    const cubin = linker.link("cubin");
    expect(cubin.name).toBe("linked");
    expect(cubin.getKernel("q").symbol).toBe("q");
    expect(typeof linker.infoLog).toBe("string");

    const src = 'extern "C" __device__ float missing_fn_xyz(float); extern "C" __global__ void u(float* p) { p[0] = missing_fn_xyz(p[0]); }';
    const rdc = new Program(src, "c++", { arch, relocatableDeviceCode: true }).compile("ptx");
    using bad = new Linker(rdc, { arch });
    let err: unknown;
    try {
      bad.link("cubin");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(Error);
    expect(bad.errorLog).toMatch(/missing_fn_xyz/);
    if (nvJitLinkOk) {
      expect(err).toBeInstanceOf(NVJitLinkError);
      expect((err as NVJitLinkError).log).toMatch(/missing_fn_xyz/);
    } else {
      expect((err as Error).message).toMatch(/missing_fn_xyz/);
    }
  });

  it("serves the second compile from an in-memory cache without calling NVRTC, symbol mapping included", () => {
    new Program('extern "C" __global__ void warm() {}', "c++", { arch }).compile("ptx"); // resolves the function before spying
    const spy = vi.spyOn(nvrtc, "nvrtcCompileProgram");
    const cache = new InMemoryProgramCache();
    const a = new Program(AXPY, "c++", { arch }).compile("cubin", { nameExpressions: NAMES, cache });
    expect(spy).toHaveBeenCalledTimes(1);
    using second = new Program(AXPY, "c++", { arch });
    const b = second.compile("cubin", { nameExpressions: [...NAMES].reverse(), cache });
    expect(spy).toHaveBeenCalledTimes(1);
    expect(second.log).toBe("");
    expect(b).not.toBe(a);
    expect(b.code).toEqual(a.code);
    expect(b.symbolMapping).toEqual(a.symbolMapping);
    expect(b.getKernel("axpy<double>").symbol).toBe(a.symbolMapping["axpy<double>"]);
    new Program(AXPY, "c++", { arch, maxRegisterCount: 32 }).compile("cubin", { nameExpressions: NAMES, cache });
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it("serves compiles from a file cache across instances, and survives a truncated or corrupted entry", () => {
    new Program('extern "C" __global__ void warm2() {}', "c++", { arch }).compile("ptx");
    const spy = vi.spyOn(nvrtc, "nvrtcCompileProgram");
    const directory = path.join(tmpRoot, "file-cache");
    const compile = () => new Program(AXPY, "c++", { arch }).compile("cubin", { nameExpressions: NAMES, cache: new FileProgramCache({ directory }) });
    const first = compile();
    expect(spy).toHaveBeenCalledTimes(1);
    const files = fs.readdirSync(directory);
    expect(files).toHaveLength(1);
    const file = path.join(directory, files[0]!);
    const whole = fs.readFileSync(file);

    const hit = compile();
    expect(spy).toHaveBeenCalledTimes(1);
    expect(hit.code).toEqual(first.code);
    expect(hit.getKernel("axpy<float>").symbol).toBe(first.symbolMapping["axpy<float>"]);

    fs.truncateSync(file, Math.floor(whole.length / 2));
    const afterTruncation = compile();
    expect(spy).toHaveBeenCalledTimes(2);
    expect(afterTruncation.code).toEqual(first.code);
    expect(fs.readFileSync(file)).toEqual(whole);

    const corrupted = new Uint8Array(whole);
    corrupted[corrupted.length - 100] = (corrupted[corrupted.length - 100] ?? 0) ^ 0xff;
    fs.writeFileSync(file, corrupted);
    expect(compile().code).toEqual(first.code);
    expect(spy).toHaveBeenCalledTimes(3);

    expect(compile().getKernel("axpy<double>").symbol).toBe(first.symbolMapping["axpy<double>"]);
    expect(spy).toHaveBeenCalledTimes(3);
    expect(fs.readdirSync(directory)).toEqual(files);
  });

  it.skipIf(!nvJitLinkOk)("LTO round trip: two programs to LTO-IR, linked with LTO into a cubin whose kernel runs", async () => {
    const options = { arch, relocatableDeviceCode: true, linkTimeOptimization: true };
    const lib = new Program('extern "C" __device__ float scale_lto(float x) { return 2.0f * x; }', "c++", options).compile("ltoir");
    const main = new Program(
      'extern "C" __device__ float scale_lto(float x);\nextern "C" __global__ void k_lto(float* p) { p[threadIdx.x] = scale_lto(p[threadIdx.x]); }',
      "c++",
      options,
    ).compile("ltoir");
    expect(lib.format).toBe("ltoir");
    expect(main.format).toBe("ltoir");
    using linker = new Linker(lib, main, { arch, linkTimeOptimization: true });
    expect(linker.backend).toBe("nvJitLink");
    const cubin = linker.link("cubin");
    expect(cubin.format).toBe("cubin");
    const k = cubin.getKernel("k_lto");
    k.declare("pointer");
    const host = Float32Array.from({ length: 32 }, (_, i) => i + 1);
    using buf = dev.allocate(host.byteLength, { stream });
    buf.copyFrom(host, { stream });
    launch(stream, new LaunchConfig({ grid: 1, block: 32 }), k, buf);
    const out = new Float32Array(32);
    buf.copyTo(out, { stream });
    await stream.done();
    expect(Array.from(out)).toEqual(Array.from(host, (v) => 2 * v));

    using toPtx = new Linker(lib, main, { arch, linkTimeOptimization: true, ptx: true });
    const ptx = toPtx.link("ptx");
    expect(ptx.format).toBe("ptx");
    expect(text(ptx)).toMatch(/\.entry k_lto/);
  });

  it.skipIf(!nvJitLinkOk)("Linker.backend says nvJitLink", () => {
    expect(Linker.whichBackend()).toBe("nvJitLink");
    const ptx = new Program('extern "C" __global__ void b() {}', "c++", { arch }).compile("ptx");
    using linker = new Linker(ptx, { arch });
    expect(linker.backend).toBe("nvJitLink");
    expect(linker.handle).not.toBeNull();
    linker.close();
    expect(linker.isClosed).toBe(true);
    expect(() => linker.link()).toThrow(/closed/);
  });
});
