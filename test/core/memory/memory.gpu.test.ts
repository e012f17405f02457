/**
 * Memory resources on a real GPU: every resource allocates, copies and frees; pool attributes read, rise and fall,
 * and the settable ones set; managed prefetch and advice; host views of pinned memory see kernels' writes and are
 * detached on close; virtual memory grows keeping its contents; IPC moves bytes between two processes; the memory
 * examples run. Skips cleanly where there is no driver.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolve } from "node:path";
import {
  Buffer,
  CudaError,
  Device,
  DeviceMemoryResource,
  LaunchConfig,
  LegacyPinnedMemoryResource,
  ManagedAdviceError,
  ManagedMemoryResource,
  PinnedMemoryResource,
  SynchronousMemoryResource,
  VirtualMemoryResource,
  launch,
  u32,
  type Kernel,
  type MemoryResource,
  type Stream,
} from "../../../src/index.ts";
import { IpcListener } from "../../../src/distributed.ts";
import { driver } from "../../../src/bindings/driver-entry.ts";
import { CUmem_range_attribute, type CUdeviceptr } from "../../../src/bindings/driver.ts";
import { Program } from "../../../src/core/program/program.ts";
import { ULLONG_MAX } from "../../../src/core/memory/pool-attributes.ts";
import { runScript } from "./spawn.ts";
import { gpu, skipNote } from "../../support/gpu.ts";

const here = import.meta.dirname ?? new URL(".", import.meta.url).pathname;
const root = resolve(here, "../../..");

const SOURCE = `
extern "C" __global__ void iota3(unsigned* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3u * i + 1u;
}
extern "C" __global__ void add1(unsigned* p, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] += 1u;
}`;

function pattern(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 13 + seed) & 0xff;
  return out;
}

/** How many bytes differ (a loop: deep equality of megabyte arrays is slow in the test runner). */
function mismatches(a: Uint8Array, b: Uint8Array): number {
  if (a.length < b.length) return b.length;
  let n = 0;
  for (let i = 0; i < b.length; i++) if (a[i] !== b[i]) n++;
  return n;
}

function grid(n: number): LaunchConfig {
  return new LaunchConfig({ grid: Math.max(1, Math.ceil(n / 256)), block: 256 });
}

describe.skipIf(!gpu.available)(`memory resources on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let iota3: Kernel;
  let add1: Kernel;

  beforeAll(() => {
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    const code = new Program(SOURCE, "c++", { arch: `sm_${dev.arch}` }).compile("cubin");
    iota3 = code.getKernel("iota3");
    add1 = code.getKernel("add1");
  });

  afterAll(() => {
    stream?.close();
  });

  /** A buffer's bytes, copied to the host. */
  function read(buf: Buffer): Uint8Array {
    const out = new Uint8Array(buf.size);
    buf.copyTo(out, { stream });
    stream.sync();
    return out;
  }

  /** Round-trips 4 KiB through a buffer of `mr` and a device-pool buffer, then frees both. */
  function roundTrip(mr: MemoryResource): void {
    const src = pattern(4096, mr.constructor.name.length);
    const a = mr.allocate(4096, { stream });
    expect(a.size).toBe(4096);
    expect(a.memoryResource).toBe(mr);
    using b = dev.allocate(4096, { stream });
    a.copyFrom(src, { stream });
    b.copyFrom(a, { stream });
    a.fill(0, { stream });
    a.copyFrom(b, { stream });
    const back = new Uint8Array(4096);
    a.copyTo(back, { stream });
    stream.sync();
    expect(back).toEqual(src);
    a.close(stream);
    a.close();
    expect(a.isClosed).toBe(true);
    stream.sync();
  }

  it("allocates, copies and frees with every resource", () => {
    const vmm = new VirtualMemoryResource(dev);
    const resources: MemoryResource[] = [
      dev.memoryResource,
      new DeviceMemoryResource(dev, {}),
      new PinnedMemoryResource(),
      new ManagedMemoryResource(),
      new LegacyPinnedMemoryResource(),
      vmm,
      new SynchronousMemoryResource(dev),
    ];
    for (const mr of resources) roundTrip(mr);
    expect(resources.map((r) => [r.isDeviceAccessible, r.isHostAccessible, r.isManaged ?? false, r.deviceId])).toEqual([
      [true, false, false, 0],
      [true, false, false, 0],
      [true, true, false, -1],
      [true, true, true, -1],
      [true, true, false, -1],
      [true, false, false, 0],
      [true, false, false, 0],
    ]);
    expect(vmm.granularity > 0n).toBe(true);
    using zero = dev.allocate(0, { stream });
    expect(zero.size).toBe(0);
    for (const r of resources.slice(1)) (r as { close?: () => void }).close?.(); // not the device's own resource
  });

  it("makes the device's default pool its default resource, and lets users swap it", () => {
    const mr = dev.memoryResource;
    expect(mr).toBeInstanceOf(DeviceMemoryResource);
    const pool = mr as DeviceMemoryResource;
    expect(pool.isHandleOwned).toBe(false);
    expect(pool.attributes.releaseThreshold).toBe(ULLONG_MAX); // raised from 0, as cuda.core does
    using pinned = new PinnedMemoryResource();
    dev.memoryResource = pinned;
    try {
      using b = dev.allocate(64, { stream });
      expect(b.memoryResource).toBe(pinned);
      expect(b.isHostAccessible).toBe(true);
    } finally {
      dev.memoryResource = mr;
    }
    expect(dev.memoryResource).toBe(mr);
  });

  it("reads every pool attribute, and the pool's used memory rises and falls", () => {
    using mr = new DeviceMemoryResource(dev, { releaseThreshold: 0 });
    const a = mr.attributes;
    const all = a.toObject();
    expect(typeof all.reuseAllowOpportunistic).toBe("boolean");
    expect(all.usedMemCurrent).toBe(0n);
    expect(all.releaseThreshold).toBe(0n);
    const b = mr.allocate(1 << 20, { stream });
    expect(a.usedMemCurrent >= 1n << 20n).toBe(true);
    expect(a.usedMemHigh >= 1n << 20n).toBe(true);
    expect(a.reservedMemCurrent >= a.usedMemCurrent).toBe(true);
    b.close(stream);
    stream.sync();
    expect(a.usedMemCurrent).toBe(0n);
    expect(a.usedMemHigh >= 1n << 20n).toBe(true);
    a.usedMemHigh = 0;
    expect(a.usedMemHigh).toBe(0n);
    mr.trimTo(0);
    expect(a.reservedMemCurrent).toBe(0n);
  });

  it("hands sizes beyond the device to the driver, whose out-of-memory error comes back typed", () => {
    const resources: MemoryResource[] = [dev.memoryResource, new SynchronousMemoryResource(dev)];
    for (const mr of resources) {
      for (const size of [2 ** 60, 1n << 60n]) {
        let error: unknown;
        try {
          mr.allocate(size, { stream }).close(stream);
        } catch (e) {
          error = e;
        }
        expect(error, `${mr.constructor.name}.allocate(${String(size)})`).toBeInstanceOf(CudaError);
        expect((error as CudaError).codeName).toBe("CUDA_ERROR_OUT_OF_MEMORY");
      }
      expect(() => mr.allocate(2n ** 64n - 1n, { stream })).toThrow(CudaError);
    }
    // The device still works afterwards.
    using b = dev.allocate(64, { stream });
    b.fill(7, { stream });
    stream.sync();
  });

  it("leaves the pool's freed memory releasable once `await stream.done()` returns (on Bun as on Deno)", async () => {
    using mr = new DeviceMemoryResource(dev, { releaseThreshold: 0 });
    const a = mr.attributes;
    for (let round = 0; round < 3; round++) {
      const b = mr.allocate(64 << 20, { stream });
      b.fill(1, { stream });
      b.close(stream);
      await stream.done();
      expect(a.usedMemCurrent).toBe(0n);
      mr.trimTo(0);
      expect(a.reservedMemCurrent, `round ${round}`).toBe(0n);
    }
  });

  it("sets the settable pool attributes and refuses the others", () => {
    using mr = new DeviceMemoryResource(dev, {});
    const a = mr.attributes;
    a.releaseThreshold = 123n << 20n;
    expect(a.releaseThreshold).toBe(123n << 20n);
    for (const name of ["reuseFollowEventDependencies", "reuseAllowOpportunistic", "reuseAllowInternalDependencies"] as const) {
      const was = a.get(name);
      a.set(name, !was);
      expect(a.get(name)).toBe(!was);
      a.set(name, was);
    }
    expect(() => a.set("usedMemCurrent", 0n)).toThrow(/read-only/);
    expect(() => (a.reservedMemHigh = 5n)).toThrow(/only be reset to 0/);
    mr.close();
    expect(() => mr.attributes).toThrow(/closed/);
    expect(() => mr.allocate(8, { stream })).toThrow(/closed/);
  });

  it("shows a kernel's writes to pinned memory through a TypedArray view after sync, and detaches it on close", () => {
    for (const mr of [new PinnedMemoryResource(), new LegacyPinnedMemoryResource()]) {
      const n = 10_000;
      const buf = mr.allocate(n * 4, { stream });
      stream.sync();
      const view = buf.asTypedArray(Uint32Array);
      view.fill(0);
      launch(stream, grid(n), iota3, buf, u32(n));
      stream.sync();
      let wrong = 0;
      for (let i = 0; i < n; i++) if (view[i] !== 3 * i + 1) wrong++;
      expect(wrong).toBe(0);
      // Host writes are seen by the next kernel too.
      view[5] = 100;
      launch(stream, grid(n), add1, buf, u32(n));
      stream.sync();
      expect(view[5]).toBe(101);
      expect(view[6]).toBe(20);
      buf.close(stream);
      expect(view.length).toBe(0);
      expect(view[0]).toBeUndefined();
      expect(() => buf.asArrayBuffer()).toThrow(/closed/);
      (mr as { close?: () => void }).close?.();
    }
    using d = dev.allocate(16, { stream });
    expect(() => d.asTypedArray(Uint8Array)).toThrow(/not host-accessible/);
  });

  it("prefetches managed pool memory, with the data right on both sides", () => {
    using mr = new ManagedMemoryResource({ preferredLocation: dev.id });
    expect(mr.deviceId).toBe(dev.id);
    expect(mr.usesPool).toBe(true); // CUDA 13 drivers have managed pools
    const n = 1 << 16;
    using buf = mr.allocate(n * 4, { stream });
    expect(buf.isManaged).toBe(true);
    stream.sync();
    const v = buf.asTypedArray(Uint32Array);
    v.fill(41);
    mr.prefetch(buf, dev, { stream });
    launch(stream, grid(n), add1, buf, u32(n));
    mr.prefetch(buf, "host", { stream });
    stream.sync();
    expect(v.every((x) => x === 42)).toBe(true);
    expect(mr.attributes.usedMemCurrent >= BigInt(n * 4)).toBe(true);
    // Advice on pool memory: supported by later drivers, refused by 13.0 with a ManagedAdviceError saying what to do.
    try {
      mr.advise(buf, "accessed-by", dev);
    } catch (e) {
      expect(e).toBeInstanceOf(ManagedAdviceError);
      expect((e as Error).message).toMatch(/pool: false/);
    }
    using plain = dev.allocate(16, { stream });
    expect(() => mr.prefetch(plain, dev, { stream })).toThrow(/needs managed memory/);
  });

  it("advises and prefetches cuMemAllocManaged memory (pool: false)", () => {
    using mr = new ManagedMemoryResource({ pool: false });
    expect(mr.usesPool).toBe(false);
    expect(mr.fallbackReason).toMatch(/pool: false/);
    expect(() => mr.attributes).toThrow(/no pool/);
    const n = 1 << 16;
    using buf = mr.allocate(n * 4, { stream });
    const v = buf.asTypedArray(Uint32Array);
    v.fill(41);
    mr.advise(buf, "read-mostly");
    mr.advise(buf, "unset-read-mostly");
    mr.advise(buf, "preferred-location", dev);
    mr.advise(buf, "accessed-by", dev);
    mr.prefetch(buf, dev, { stream });
    launch(stream, grid(n), add1, buf, u32(n));
    mr.prefetch(buf, "host", { stream });
    stream.sync();
    expect(v.every((x) => x === 42)).toBe(true);
    // The driver recorded the last prefetch location: the host (CU_DEVICE_CPU = -1).
    const out = new Int32Array(new ArrayBuffer(8));
    driver.cuMemRangeGetAttribute(out, 4, CUmem_range_attribute.CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, buf.handle, buf.size);
    expect(out[0]).toBe(-1);
    mr.advise(buf, "unset-preferred-location");
    mr.advise(buf, "unset-accessed-by", dev);
    expect(() => mr.advise(buf, "accessed-by")).toThrow(/needs a location/);
  });

  it("grows virtual memory keeping its contents, in place or remapped", () => {
    const mr = new VirtualMemoryResource(dev);
    const g = Number(mr.granularity);
    const buf = mr.allocate(g, { stream });
    buf.copyFrom(pattern(g, 1), { stream });
    stream.sync();
    mr.grow(buf, 2 * g + 100);
    expect(buf.size).toBe(2 * g + 100);
    expect(mr.mappedSize(buf)).toBe(BigInt(3 * g));
    expect(mismatches(read(buf), pattern(g, 1))).toBe(0);
    // The new part is usable: write everything, read it back.
    const whole = pattern(buf.size, 5);
    buf.copyFrom(whole, { stream });
    expect(mismatches(read(buf), whole)).toBe(0);
    const grownAt = buf.handle;

    // Take the addresses right after the buffer, so the next grow cannot extend in place and must remap.
    const next = (BigInt(grownAt) + mr.mappedSize(buf)) as CUdeviceptr;
    const blocker = driver.cuMemAddressReserve(g, g, next, 0);
    try {
      mr.grow(buf, 4 * g);
      expect(buf.size).toBe(4 * g);
      expect(mismatches(read(buf), whole)).toBe(0);
      if (blocker === next) expect(buf.handle).not.toBe(grownAt);
      const all = pattern(4 * g, 9);
      buf.copyFrom(all, { stream });
      expect(mismatches(read(buf), all)).toBe(0);
    } finally {
      driver.cuMemAddressFree(blocker, g);
    }
    buf.close(stream);
    expect(() => mr.grow(buf, 8 * g)).toThrow(/closed/);
    const small = mr.allocate(g, { stream });
    expect(() => mr.grow(small, 1)).toThrow(/makes buffers larger/);
    small.close();
  });

  it("maps host memory with virtual memory, visible from the host and from kernels", () => {
    const mr = new VirtualMemoryResource(dev, { locationType: "host" });
    expect([mr.isHostAccessible, mr.isDeviceAccessible, mr.deviceId]).toEqual([true, true, -1]);
    const n = 1024;
    using buf = mr.allocate(n * 4, { stream });
    const v = buf.asTypedArray(Uint32Array);
    v.fill(0);
    launch(stream, grid(n), iota3, buf, u32(n));
    stream.sync();
    let wrong = 0;
    for (let i = 0; i < n; i++) if (v[i] !== 3 * i + 1) wrong++;
    expect(wrong).toBe(0);
  });

  it("moves bytes between two processes through an IPC-enabled device pool", async () => {
    using mr = new DeviceMemoryResource(dev, { ipcEnabled: true });
    expect(mr.isIpcEnabled).toBe(true);
    expect(mr.isMapped).toBe(false);
    const size = 1 << 16;
    using buf = mr.allocate(size, { stream });
    buf.copyFrom(Uint8Array.from({ length: size }, (_, i) => (i * 7 + 3) % 251), { stream });
    stream.sync();
    const report = await exchange("device", mr.allocationHandle, buf);
    expect(report).toEqual({ size, wrong: 0, mapped: true, uuid: mr.uuid, handleClosed: true });
    const back = new Uint8Array(size);
    buf.copyTo(back, { stream });
    stream.sync();
    expect(back.every((x) => x === 0x5a)).toBe(true);
    expect(DeviceMemoryResource.fromAllocationHandle(dev, mr.allocationHandle)).toBe(mr); // already known here
    expect(mr.allocationHandle.isClosed).toBe(false); // and its own handle stays open
  }, 120_000);

  it("moves bytes between two processes through an IPC-enabled pinned pool", async () => {
    using mr = new PinnedMemoryResource({ ipcEnabled: true });
    expect(mr.numaId).toBe(0);
    const size = 4096;
    using buf = mr.allocate(size, { stream });
    stream.sync();
    const v = buf.asTypedArray(Uint8Array);
    for (let i = 0; i < size; i++) v[i] = (i * 7 + 3) % 251;
    const report = await exchange("pinned", mr.allocationHandle, buf);
    expect(report).toEqual({ size, wrong: 0, mapped: true, uuid: mr.uuid, handleClosed: true });
    expect(v.every((x) => x === 0x5a)).toBe(true); // the other process's writes, seen through this one's view
  }, 120_000);

  it("refuses IPC on pools created without it", () => {
    using mr = new DeviceMemoryResource(dev, {});
    using buf = mr.allocate(64, { stream });
    expect(() => mr.allocationHandle).toThrow(/not IPC-enabled/);
    expect(() => buf.ipcDescriptor).toThrow(/not IPC-enabled/);
    using legacy = new LegacyPinnedMemoryResource().allocate(8);
    expect(() => legacy.ipcDescriptor).toThrow(/cannot share memory between processes/);
  });

  it("runs both memory examples with this runtime", async () => {
    for (const example of ["memory_ops.ts", "memory_pool_resources.ts"]) {
      const r = await runScript(resolve(root, "examples", example), [], 180_000);
      expect({ example, code: r.code, stderr: r.stderr.trim() }).toEqual({ example, code: 0, stderr: "" });
      expect(r.stdout).toMatch(/OK/);
    }
  }, 400_000);

  /** Shares `buf` with a child process of this runtime; returns the child's report. */
  async function exchange(kind: "device" | "pinned", handle: DeviceMemoryResource["allocationHandle"], buf: Buffer): Promise<unknown> {
    using listener = IpcListener.listen();
    const child = runScript(resolve(here, "ipc-gpu-child.ts"), [kind, listener.address], 90_000);
    const ch = await listener.accept({ timeoutMs: 60_000 }).catch(async (e: unknown) => {
      const r = await child;
      throw new Error(`the child never connected (exit ${r.code}): ${r.stderr}\n${String(e)}`);
    });
    try {
      ch.sendAllocationHandle(handle);
      ch.send(buf.ipcDescriptor.toBytes());
      const reply = await ch.receive({ timeoutMs: 60_000 });
      ch.send(new Uint8Array([1]));
      const r = await child;
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      return JSON.parse(new TextDecoder().decode(reply.data));
    } finally {
      ch.close();
    }
  }
});
