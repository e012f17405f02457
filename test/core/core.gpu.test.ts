/**
 * The object layer on a real GPU: devices, contexts, streams, events, programs, kernels, launches, buffers and
 * lifetimes. Skips cleanly where there is no driver.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Buffer,
  ClosedError,
  Device,
  DeviceNotInitializedError,
  Event,
  EventTimingError,
  Kernel,
  KernelNotFoundError,
  CudaError,
  LaunchArgumentError,
  LaunchConfig,
  LaunchConfigError,
  ObjectCode,
  Program,
  Stream,
  bf16,
  bool,
  complex128,
  complex64,
  f16,
  f32,
  f64,
  i16,
  i32,
  i64,
  i8,
  launch,
  u16,
  u32,
  u64,
  u8,
  type KernelScalar,
} from "../../src/index.ts";
import { NVRTCError } from "../../src/bindings/errors.ts";
import { driver } from "../../src/bindings/driver-entry.ts";
import { CUmemLocation_st } from "../../src/bindings/driver.ts";
import { findNvidiaHeaderDirectory } from "../../src/pathfinder/index.ts";
import { gpu, skipNote } from "../support/gpu.ts";

const SOURCE = `
#include <cuda_fp16.h>
#include <cuda_bf16.h>
template <typename T> __global__ void write_scalar(T* out, T v) { *out = v; }
struct Pair { int a; double b; char c; };
__global__ void read_pair(const Pair p, double* out) { out[0] = p.a; out[1] = p.b; out[2] = p.c; }
struct Loc { int type; int id; };
__global__ void read_loc(Loc l, int* out) { out[0] = l.type; out[1] = l.id; }
__global__ void spin(long long cycles, int* flag, int value) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
  *flag = value;
}
__global__ void copy_flag(const int* src, int* dst) { *dst = *src; }
__global__ void noop() {}
// Launch i records, in slot i, how many launches ran before it plus one, counted in slot n: a launch lost,
// repeated or run out of order leaves a slot that is not i + 1.
__global__ void mark_launch(unsigned* slots, unsigned i, unsigned n) {
  if (threadIdx.x == 0 && blockIdx.x == 0) { unsigned c = slots[n] + 1; slots[n] = c; slots[i] = c; }
}
__global__ void grid_info(unsigned* out) { if (threadIdx.x == 0 && blockIdx.x == 0) { out[0] = gridDim.x; out[1] = blockDim.x; } }
extern "C" __global__ void untyped(int* out, int v) { *out = v; }
`;

const SCALAR_TYPES = [
  ["bool", "bool"],
  ["signed char", "i8"],
  ["unsigned char", "u8"],
  ["short", "i16"],
  ["unsigned short", "u16"],
  ["int", "i32"],
  ["unsigned int", "u32"],
  ["long long", "i64"],
  ["unsigned long long", "u64"],
  ["__half", "f16"],
  ["__nv_bfloat16", "bf16"],
  ["float", "f32"],
  ["double", "f64"],
  ["float2", "complex64"],
  ["double2", "complex128"],
] as const;

describe.skipIf(!gpu.available)(`the object layer on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let code: ObjectCode;

  let beforeSetCurrent: { initialized: boolean; error: unknown } | undefined;

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    let error: unknown;
    try {
      dev.createStream();
    } catch (e) {
      error = e;
    }
    beforeSetCurrent = { initialized: dev.isInitialized, error };
    dev.setCurrent();
    stream = dev.createStream();
    const include = findNvidiaHeaderDirectory("cudart").path;
    const names = SCALAR_TYPES.map(([c]) => `write_scalar<${c}>`);
    const program = new Program(SOURCE, "c++", { arch: `sm_${dev.arch}`, includePath: [include] });
    code = program.compile("cubin", { nameExpressions: names });
  });

  afterAll(() => {
    stream?.close();
  });

  it("refuses to work on a device that was never set current", () => {
    expect(beforeSetCurrent?.initialized).toBe(false);
    expect(beforeSetCurrent?.error).toBeInstanceOf(DeviceNotInitializedError);
    expect(String(beforeSetCurrent?.error)).toMatch(/Device 0 is not yet initialized, perhaps you forgot to call \.setCurrent\(\) first\?/);
  });

  it("finds a plain C++ kernel by its name, and refuses an unknown one with the names it knows", () => {
    expect(code.getKernel("noop").symbol).toBe("_Z4noopv");
    expect(() => code.getKernel("no_such_kernel")).toThrow(/no kernel "no_such_kernel"/);
    expect(() => code.getKernel("no_such_kernel")).toThrow(KernelNotFoundError);
    try {
      code.getKernel("no_such_kernel");
    } catch (e) {
      expect((e as KernelNotFoundError).kernelName).toBe("no_such_kernel");
      expect((e as KernelNotFoundError).cause).toBeInstanceOf(CudaError);
    }
  });

  it("gives one Device per ordinal, with its properties", () => {
    expect(new Device(0)).toBe(dev);
    expect(Device.count).toBeGreaterThan(0);
    expect(dev.name).toMatch(/NVIDIA/);
    expect(dev.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(dev.pciBusId).toMatch(/^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d$/);
    expect(dev.computeCapability.major).toBeGreaterThanOrEqual(7);
    expect(dev.arch).toBe(`${dev.computeCapability.major}${dev.computeCapability.minor}`);
    expect(dev.properties.maxThreadsPerBlock).toBe(1024);
    expect(dev.properties.multiprocessorCount).toBeGreaterThan(0);
    expect(dev.totalMemory).toBeGreaterThan(1n << 30n);
    expect(Device.current).toBe(dev);
    expect(() => new Device(Device.count)).toThrow(RangeError);
  });

  it("round-trips every scalar width through a kernel that writes its argument back", () => {
    using out = dev.allocate(16, { stream });
    const values: Record<string, [KernelScalar, (dv: DataView) => unknown, unknown]> = {
      bool: [bool(true), (dv) => dv.getUint8(0), 1],
      i8: [i8(-100), (dv) => dv.getInt8(0), -100],
      u8: [u8(200), (dv) => dv.getUint8(0), 200],
      i16: [i16(-30000), (dv) => dv.getInt16(0, true), -30000],
      u16: [u16(60000), (dv) => dv.getUint16(0, true), 60000],
      i32: [i32(-2_000_000_000), (dv) => dv.getInt32(0, true), -2_000_000_000],
      u32: [u32(4_000_000_000), (dv) => dv.getUint32(0, true), 4_000_000_000],
      i64: [i64(-(2n ** 62n)), (dv) => dv.getBigInt64(0, true), -(2n ** 62n)],
      u64: [u64(2n ** 63n + 5n), (dv) => dv.getBigUint64(0, true), 2n ** 63n + 5n],
      f16: [f16(1.5), (dv) => dv.getUint16(0, true), 0x3e00],
      bf16: [bf16(-2), (dv) => dv.getUint16(0, true), 0xc000],
      f32: [f32(3.25), (dv) => dv.getFloat32(0, true), 3.25],
      f64: [f64(Math.PI), (dv) => dv.getFloat64(0, true), Math.PI],
      complex64: [complex64(1.5, -2.5), (dv) => [dv.getFloat32(0, true), dv.getFloat32(4, true)], [1.5, -2.5]],
      complex128: [complex128(Math.E, 7), (dv) => [dv.getFloat64(0, true), dv.getFloat64(8, true)], [Math.E, 7]],
    };
    const config = new LaunchConfig({ grid: 1, block: 1 });
    for (const [cType, kind] of SCALAR_TYPES) {
      const [arg, read, expected] = values[kind]!;
      out.fill(0, { stream });
      launch(stream, config, code.getKernel(`write_scalar<${cType}>`), out, arg);
      const host = new Uint8Array(16);
      out.copyTo(host, { stream });
      stream.sync();
      expect(read(new DataView(host.buffer)), `${kind} (${cType})`).toEqual(expected);
    }
  });

  it("passes plain numbers where the mangled name gives the type", () => {
    using out = dev.allocate(8, { stream });
    const config = new LaunchConfig({ grid: 1, block: 1 });
    launch(stream, config, code.getKernel("write_scalar<double>"), out, 0.125);
    const host = new Float64Array(1);
    out.copyTo(host, { stream });
    stream.sync();
    expect(host[0]).toBe(0.125);
    launch(stream, config, code.getKernel("write_scalar<int>"), out, -7);
    const h2 = new Int32Array(2);
    out.copyTo(h2, { stream });
    stream.sync();
    expect(h2[0]).toBe(-7);
  });

  it("passes structs by value: bytes and generated records", () => {
    using out = dev.allocate(24, { stream });
    const k = code.getKernel("_Z9read_pair4PairPd");
    const pair = new DataView(new ArrayBuffer(24));
    pair.setInt32(0, 42, true);
    pair.setFloat64(8, 6.5, true);
    pair.setInt8(16, 9);
    launch(stream, new LaunchConfig({ grid: 1, block: 1 }), k, new Uint8Array(pair.buffer), out);
    const host = new Float64Array(3);
    out.copyTo(host, { stream });
    stream.sync();
    expect([...host]).toEqual([42, 6.5, 9]);
    const loc = new CUmemLocation_st();
    loc.type = 1;
    loc.id = 77;
    using out2 = dev.allocate(8, { stream });
    launch(stream, new LaunchConfig({ grid: 1, block: 1 }), code.getKernel("_Z8read_loc3LocPi"), loc, out2);
    const h = new Int32Array(2);
    out2.copyTo(h, { stream });
    stream.sync();
    expect([...h]).toEqual([1, 77]);
  });

  it("rejects wrong arguments before launching, naming the argument and the sizes", () => {
    using out = dev.allocate(8, { stream });
    const k = code.getKernel("write_scalar<float>");
    const config = new LaunchConfig({ grid: 1, block: 1 });
    expect(() => launch(stream, config, k, out, f64(1))).toThrow(/argument 1 of write_scalar<float>: f64\(1\) is 8 bytes but the parameter is 4 bytes/);
    expect(() => launch(stream, config, k, out)).toThrow(/takes 2 arguments, 1 given/);
    expect(() => launch(stream, config, k, out, "1" as unknown as number)).toThrow(LaunchArgumentError);
    expect(() => launch(stream, config, k, f32(1), f32(1))).toThrow(LaunchArgumentError);
    const untyped = code.getKernel("untyped");
    expect(() => launch(stream, config, untyped, out, 5)).toThrow(/plain number .* needs the parameter's type/);
    untyped.declare("pointer", "i32");
    launch(stream, config, untyped, out, 5);
    const h = new Int32Array(2);
    out.copyTo(h, { stream });
    stream.sync();
    expect(h[0]).toBe(5);
    expect(() => new LaunchConfig({ grid: 0, block: 1 })).toThrow(LaunchConfigError);
    expect(() => new LaunchConfig({ grid: [1, 2, 3, 4] as unknown as number, block: 1 })).toThrow(LaunchConfigError);
  });

  it("reports kernel parameters, attributes and occupancy", () => {
    const k = code.getKernel("write_scalar<double>");
    expect(k.argumentsInfo).toEqual([{ offset: 0, size: 8 }, { offset: 8, size: 8 }]);
    expect(k.numArguments).toBe(2);
    const a = k.attributes(dev);
    expect(a.maxThreadsPerBlock).toBeGreaterThan(0);
    expect(a.numRegs).toBeGreaterThan(0);
    const occ = k.occupancy(dev);
    expect(occ.maxActiveBlocksPerMultiprocessor(128)).toBeGreaterThan(0);
    expect(occ.maxPotentialBlockSize().blockSize).toBeGreaterThan(0);
  });

  it("launches thread-block clusters on compute capability 9.0+, and checks cooperative grids", () => {
    if (dev.computeCapability.major < 9) {
      // A plain value: made anywhere, refused when launched on a device without clusters.
      const clustered = new LaunchConfig({ grid: 1, block: 32, cluster: 2 });
      expect(() => launch(stream, clustered, code.getKernel("noop"))).toThrow(LaunchConfigError);
      return;
    }
    using out = dev.allocate(8, { stream });
    launch(stream, new LaunchConfig({ grid: 4, block: 64, cluster: 2 }), code.getKernel("grid_info"), out);
    const h = new Uint32Array(2);
    out.copyTo(h, { stream });
    stream.sync();
    expect([...h]).toEqual([8, 64]); // grid counts clusters: 4 clusters × 2 blocks
    const tooBig = new LaunchConfig({ grid: dev.properties.multiprocessorCount * 64, block: 1024, cooperative: true });
    expect(() => launch(stream, tooBig, code.getKernel("noop"))).toThrow(LaunchConfigError);
  });

  it("times a kernel with events, and explains what is missing when it cannot", async () => {
    using flag = dev.allocate(4, { stream });
    const start = stream.record(undefined, { timing: true });
    launch(stream, new LaunchConfig({ grid: 1, block: 1 }), code.getKernel("spin"), i64(20_000_000n), flag, i32(1));
    const end = stream.record(undefined, { timing: true });
    await end.done();
    const ms = Event.elapsedTime(start, end);
    expect(ms).toBeGreaterThan(0.5);
    expect(end.since(start)).toBe(ms);
    const untimed = stream.record(undefined, { timing: false });
    untimed.sync();
    expect(() => Event.elapsedTime(start, untimed)).toThrow(/without timing/);
    const unrecorded = dev.createEvent({ timing: true });
    expect(() => Event.elapsedTime(start, unrecorded)).toThrow(EventTimingError);
    for (const e of [start, end, untimed, unrecorded]) e.close();
  });

  it("orders streams with wait()", () => {
    using a = dev.createStream();
    using b = dev.createStream();
    using flag = dev.allocate(4, { stream: a });
    using copy = dev.allocate(4, { stream: a });
    flag.fill(0, { stream: a });
    copy.fill(0, { stream: a });
    a.sync();
    launch(a, new LaunchConfig({ grid: 1, block: 1 }), code.getKernel("spin"), i64(50_000_000n), flag, i32(7));
    b.wait(a);
    launch(b, new LaunchConfig({ grid: 1, block: 1 }), code.getKernel("copy_flag"), flag, copy);
    const h = new Int32Array(1);
    copy.copyTo(h, { stream: b });
    b.sync();
    expect(h[0]).toBe(7);
  });

  it("awaits a stream without blocking timers", async () => {
    using flag = dev.allocate(4, { stream });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    // About 0.2–0.5 s of spinning on the GPU.
    launch(stream, new LaunchConfig({ grid: 1, block: 1 }), code.getKernel("spin"), i64(500_000_000n), flag, i32(1));
    const t0 = performance.now();
    await stream.done();
    const waited = performance.now() - t0;
    clearInterval(timer);
    console.log(`Stream.done waited ${waited.toFixed(1)} ms while a 5 ms timer fired ${ticks} times`);
    expect(ticks).toBeGreaterThan(3);
  });

  it("finishes 100,000 small kernel launches, each one's effect visible in the result", async () => {
    const k = code.getKernel("mark_launch");
    const n = 100_000;
    const config = new LaunchConfig({ grid: 1, block: 32 });
    using slots = dev.allocate((n + 1) * 4, { stream });
    slots.fill(0, { stream });
    await stream.done();
    const t0 = performance.now();
    for (let i = 0; i < n; i++) launch(stream, config, k, slots, u32(i), u32(n));
    await stream.done();
    const dt = performance.now() - t0;
    console.log(`100000 launches of mark_launch: ${(dt / 100).toFixed(2)} µs per launch (wall, including the GPU draining the queue)`);
    const out = new Uint32Array(n + 1);
    slots.copyTo(out, { stream });
    await stream.done();
    expect(out[n], "launches counted").toBe(n);
    let wrong = 0;
    let firstWrong = -1;
    for (let i = 0; i < n; i++) {
      if (out[i] !== i + 1) {
        wrong++;
        if (firstWrong < 0) firstWrong = i;
      }
    }
    expect({ wrong, firstWrong, value: firstWrong < 0 ? undefined : out[firstWrong] }).toEqual({ wrong: 0, firstWrong: -1, value: undefined });
  });

  it("copies every byte both ways, buffer to buffer, and fills patterns", () => {
    const n = (1 << 22) + 3;
    const src = new Uint8Array(n);
    for (let i = 0; i < n; i++) src[i] = (i * 13 + 1) & 0xff;
    using a = dev.allocate(n, { stream });
    using b = dev.allocate(n, { stream });
    a.copyFrom(src, { stream });
    b.copyFrom(a, { stream });
    const back = new Uint8Array(n);
    b.copyTo(back, { stream });
    stream.sync();
    let diff = 0;
    for (let i = 0; i < n; i++) if (back[i] !== src[i]) diff++;
    expect(diff).toBe(0);
    using c = dev.allocate(64, { stream });
    c.fill(Uint32Array.of(0xdeadbeef), { stream });
    const w = new Uint32Array(16);
    c.copyTo(w, { stream });
    stream.sync();
    expect(w.every((x) => x === 0xdeadbeef)).toBe(true);
    c.fill(Uint16Array.of(0x1234), { stream });
    const h = new Uint16Array(32);
    c.copyTo(h, { stream });
    stream.sync();
    expect(h.every((x) => x === 0x1234)).toBe(true);
    expect(() => c.fill(Float64Array.of(1), { stream })).toThrow(RangeError);
    expect(() => c.copyTo(new Uint8Array(10), { stream })).toThrow(/sizes must be equal/);
    expect(() => c.copyFrom(new Uint8Array(64), undefined as never)).toThrow(/needs a stream/);
  });

  it("errors cleanly on closed objects, and closing twice is harmless", () => {
    const s = dev.createStream();
    const buf = dev.allocate(16, { stream: s });
    buf.close();
    buf.close();
    expect(() => buf.handle).toThrow(ClosedError);
    expect(() => buf.fill(0, { stream: s })).toThrow(ClosedError);
    s.close();
    s.close();
    expect(() => launch(s, new LaunchConfig({ grid: 1, block: 1 }), code.getKernel("noop"))).toThrow(ClosedError);
    const e = dev.createEvent();
    e.close();
    expect(() => e.sync()).toThrow(ClosedError);
    const prog = new Program("extern \"C\" __global__ void z() {}", "c++", { arch: `sm_${dev.arch}` });
    const oc = prog.compile("cubin");
    const k: Kernel = oc.getKernel("z");
    oc.close();
    expect(() => launch(stream, new LaunchConfig({ grid: 1, block: 1 }), k)).toThrow(ClosedError);
  });

  it("closes an event whatever context is current, and leaves that context current", () => {
    const e = dev.createEvent();
    const f = dev.createEvent();
    const previous = driver.cuCtxGetCurrent();
    try {
      driver.cuCtxSetCurrent(null);
      e.close(); // its release by the garbage collector runs the same way: no context made current
      expect(driver.cuCtxGetCurrent()).toBeNull();
      dev.setCurrent();
      f.close();
      expect(e.isClosed && f.isClosed).toBe(true);
    } finally {
      driver.cuCtxSetCurrent(previous);
    }
  });

  it("gives the same Stream object for the same handle", () => {
    expect(Stream.fromHandle(stream.handle)).toBe(stream);
    const b = Buffer.fromHandle(0n, 0);
    expect(b.size).toBe(0);
  });

  it("compiles from PTX and from NVVM IR, and reports compile errors with the log", () => {
    const ptx = new Program('extern "C" __global__ void p(int* o) { *o = 3; }', "c++", { arch: `sm_${dev.arch}` }).compile("ptx");
    const fromPtx = new Program(new TextDecoder().decode(ptx.code).replace(/\0+$/, ""), "ptx", { arch: `sm_${dev.arch}` }).compile("cubin");
    using o = dev.allocate(4, { stream });
    launch(stream, new LaunchConfig({ grid: 1, block: 1 }), fromPtx.getKernel("p"), o);
    const h = new Int32Array(1);
    o.copyTo(h, { stream });
    stream.sync();
    expect(h[0]).toBe(3);

    const ir = `target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
define void @nv(i32* %o) {
  store i32 11, i32* %o
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{void (i32*)* @nv, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 2, i32 0, i32 3, i32 2}
`;
    const fromNvvm = new Program(ir, "nvvm", { arch: `sm_${dev.arch}` }).compile("ptx");
    const loaded = new Program(new TextDecoder().decode(fromNvvm.code).replace(/\0+$/, ""), "ptx", { arch: `sm_${dev.arch}` }).compile("cubin");
    launch(stream, new LaunchConfig({ grid: 1, block: 1 }), loaded.getKernel("nv"), o);
    o.copyTo(h, { stream });
    stream.sync();
    expect(h[0]).toBe(11);

    let err: unknown;
    try {
      new Program("__global__ void bad( { }", "c++", { arch: `sm_${dev.arch}` }).compile("cubin");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NVRTCError);
    expect((err as NVRTCError).log).toMatch(/error/);
  });
});
