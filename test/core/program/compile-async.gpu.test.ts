/**
 * Program.compileAsync and GPU Workers on a real GPU: NVRTC in a compile worker (cubin with name expressions, run
 * here), NVRTCError with its log, PTX linked in a worker, the cache filled by compileAsync and hit by compile(),
 * the event loop running while a worker compiles, and several GPU Workers compiling and launching at once in the
 * device's primary context. Skips, naming the reason, without a GPU or NVRTC.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device } from "../../../src/core/device.ts";
import { NVRTCError } from "../../../src/core/errors.ts";
import { LaunchConfig, launch } from "../../../src/core/launch/launch.ts";
import { f32, u64 } from "../../../src/core/launch/scalars.ts";
import { closeCompileWorkers, configureCompileWorkers } from "../../../src/core/program/compile-async.ts";
import { InMemoryProgramCache } from "../../../src/core/program/cache.ts";
import { Program } from "../../../src/core/program/program.ts";
import type { Stream } from "../../../src/core/stream.ts";
import { WorkerPool } from "../../../src/core/worker/pool.ts";
import { ffi } from "../../../src/ffi/index.ts";
import { LibraryNotFoundError, loadNvidiaLibrary } from "../../../src/pathfinder/index.ts";
import type { GpuJob, GpuJobResult } from "../../../examples/workers/gpu_worker.ts";
import { gpu } from "../../support/gpu.ts";

function libraryProbe(name: string): { ok: boolean; reason: string } {
  try {
    loadNvidiaLibrary(name);
    return { ok: true, reason: "" };
  } catch (e) {
    if (e instanceof LibraryNotFoundError) return { ok: false, reason: `${name} not found` };
    return { ok: false, reason: `${name} does not load (${(e as Error).message.split("\n")[0]})` };
  }
}
const nvrtcProbe = libraryProbe("nvrtc");
const available = gpu.available && nvrtcProbe.ok;
const reason = !gpu.available ? gpu.reason : nvrtcProbe.reason;

const AXPY = `
template <typename T>
__global__ void axpy(T a, const T* x, T* y, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
`;

describe.skipIf(!available)(`compileAsync and GPU workers${available ? "" : ` [skipped: ${reason}]`}`, () => {
  let dev: Device;
  let stream: Stream;
  let arch: string;
  beforeAll(() => {
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    arch = `sm_${dev.arch}`;
    configureCompileWorkers({ size: 2 });
  });
  afterAll(() => {
    closeCompileWorkers();
    stream?.close();
  });

  async function runAxpy(program: Program, compiled: Awaited<ReturnType<Program["compileAsync"]>>): Promise<number> {
    const n = 4096;
    const x = new Float32Array(n).map((_, i) => i);
    const y = new Float32Array(n).fill(1);
    using dx = dev.allocate(n * 4, { stream });
    using dy = dev.allocate(n * 4, { stream });
    dx.copyFrom(x, { stream });
    dy.copyFrom(y, { stream });
    launch(stream, new LaunchConfig({ grid: n / 256, block: 256 }), compiled.getKernel("axpy<float>"), f32(3), dx, dy, u64(n));
    dy.copyTo(y, { stream });
    await stream.done();
    void program;
    let bad = 0;
    for (let i = 0; i < n; i++) if (y[i] !== 3 * i + 1) bad++;
    return bad;
  }

  it("compiles C++ to a cubin in a worker, with the name expressions' mapping, and the kernel runs here", async () => {
    using program = new Program(AXPY, "c++", { arch, std: "c++17" });
    const names = ["axpy<float>", "axpy<double>"];
    const sync = program.compile("cubin", { nameExpressions: names });
    const compiled = await program.compileAsync("cubin", { nameExpressions: names });
    expect(compiled.format).toBe("cubin");
    expect(compiled.symbolMapping).toEqual(sync.symbolMapping);
    expect(await runAxpy(program, compiled)).toBe(0);
    compiled.close();
    sync.close();
  });

  it("lets the event loop run while the worker compiles", async () => {
    using program = new Program(AXPY, "c++", { arch, name: "loop.cu" });
    let timerRan = false;
    setTimeout(() => (timerRan = true), 0);
    const pending = program.compileAsync("ptx", { nameExpressions: ["axpy<float>"] });
    let timerRanFirst: boolean | undefined;
    await pending.then(() => (timerRanFirst = timerRan));
    expect(timerRanFirst).toBe(true);
  });

  it("rejects a broken source with an NVRTCError carrying the log (also in logs and program.log)", async () => {
    using program = new Program("__global__ void k() { this is not C++; }", "c++", { arch });
    const written: string[] = [];
    const e = await program.compileAsync("cubin", { logs: (t) => written.push(t) }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NVRTCError);
    expect((e as NVRTCError).codeName).toBe("NVRTC_ERROR_COMPILATION");
    expect((e as NVRTCError).log).toMatch(/error/);
    expect(written.join("")).toMatch(/error/);
    expect(program.log).toMatch(/error/);
  });

  it("links PTX to a cubin in a worker (nvJitLink or the driver's linker)", async () => {
    using cxx = new Program(AXPY, "c++", { arch: `compute_${dev.arch}` });
    const ptx = cxx.compile("ptx", { nameExpressions: ["axpy<float>"] });
    const text = new TextDecoder().decode(ptx.code).replace(/\0+$/, "");
    using program = new Program(text, "ptx", { arch });
    const linked = await program.compileAsync("cubin");
    expect(linked.format).toBe("cubin");
    // The PTX's mangled name, looked up through the ObjectCode of the NVRTC compile.
    const mangled = ptx.symbolMapping["axpy<float>"]!;
    expect(linked.kernelNames()).toContain(mangled);
    linked.close();
  });

  it("fills the cache that compile() then hits", async () => {
    const cache = new InMemoryProgramCache();
    using program = new Program(AXPY, "c++", { arch, name: "cached.cu" });
    const a = await program.compileAsync("cubin", { nameExpressions: ["axpy<float>"], cache });
    expect(cache.size).toBe(1);
    const b = program.compile("cubin", { nameExpressions: ["axpy<float>"], cache });
    expect(b.code).toEqual(a.code);
    expect(program.log).toBe("");
  });

  it("runs several GPU Workers compiling and launching at once, all in the device's primary context", async () => {
    using pool = new WorkerPool<GpuJob, GpuJobResult>(new URL("../../../examples/workers/gpu_worker.ts", import.meta.url), { size: 4 });
    const results = await Promise.all(Array.from({ length: 8 }, (_, tag) => pool.run({ n: 1 << 16, a: 2, tag })));
    expect(results.map((r) => r.mismatches)).toEqual(new Array(8).fill(0));
    expect(results.map((r) => r.head[1])).toEqual(Array.from({ length: 8 }, (_, tag) => 2 + tag));
    const here = ffi.addressOf(dev.context.handle);
    expect(new Set(results.map((r) => r.context))).toEqual(new Set([here]));
    expect(pool.workerCount).toBeLessThanOrEqual(4);
  });
});
