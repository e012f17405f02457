/**
 * The device features beyond the first program, on a real GPU, on both runtimes: tensor maps (tiled and im2col encoded, passed by value and
 * read back by a kernel, replaceAddress, a box that does not fit), CUDA arrays (1D/2D/3D/layered/cubemap round
 * trips through host and device memory), mipmapped levels, textures over arrays, linear and pitched memory,
 * surfaces, closed arrays; managed buffers and the batch calls; batched copies; a Buffer's deallocation stream;
 * event IPC with a child process; green contexts (a split, a context, a stream, its resources, too many SMs);
 * checkpoint of a child process (a round trip, or the typed "unsupported"); host functions (on Bun through events).
 * Skips without a GPU.
 */
import { writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CheckpointUnsupportedError,
  ClosedError,
  Device,
  DeviceArray,
  DeviceFeatureError,
  GreenContextError,
  LaunchArgumentError,
  LaunchConfig,
  ManagedMemoryResource,
  Program,
  TensorMapError,
  TextureError,
  hostFunctionsSettled,
  f32,
  i32,
  launch,
  u32,
  type ObjectCode,
  type Stream,
} from "../../../src/index.ts";
import { copyBatch, discardBatch, prefetchBatch } from "../../../src/memory.ts";
import { IpcListener } from "../../../src/distributed.ts";
import { CudaArray, MipmappedArray, SurfaceObject, TextureObject } from "../../../src/texture.ts";
import { TensorMap } from "../../../src/tensor-map.ts";
import { GreenContext, smResourceOf, streamResources } from "../../../src/green.ts";
import { CheckpointProcess } from "../../../src/checkpoint.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { driver } from "../../../src/bindings/driver-entry.ts";
import { runScript } from "../memory/spawn.ts";

const here = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname);

const SOURCE = `
struct __align__(64) TensorMap128 { unsigned long long opaque[16]; };
extern "C" __global__ void peek_map(const __grid_constant__ TensorMap128 m, unsigned long long* out) {
  if (threadIdx.x < 16) out[threadIdx.x] = m.opaque[threadIdx.x];
}
extern "C" __global__ void takes_pointer(unsigned long long* out) { out[0] = 1; }
extern "C" __global__ void fetch_linear(cudaTextureObject_t tex, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(tex, i);
}
extern "C" __global__ void fetch_2d(cudaTextureObject_t tex, float* out, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(tex, x + 0.5f, y + 0.5f);
}
extern "C" __global__ void fetch_lod(cudaTextureObject_t tex, float* out, float lod) {
  out[0] = tex2DLod<float>(tex, 0.5f, 0.5f, lod);
}
extern "C" __global__ void read_uchar4(cudaTextureObject_t tex, float4* out, int w) {
  const int x = threadIdx.x;
  if (x < w) out[x] = tex1D<float4>(tex, x + 0.5f);
}
extern "C" __global__ void fill_iota(int* out, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (int)i * 2;
}`;

describe.skipIf(!gpu.available)(`tensor maps, textures, managed memory, green contexts and checkpoints on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let code: ObjectCode;

  beforeAll(() => {
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    code = new Program(SOURCE, "c++", { arch: `sm_${dev.arch}`, std: "c++17" }).compile("cubin");
  });
  afterAll(() => {
    stream?.close();
  });

  /** A float32 array of `n` elements at an address aligned to `align` bytes (textures need the device's alignment). */
  function aligned(n: number, align: number, shape: number[] = [n]): DeviceArray<"float32"> {
    const buf = dev.allocate(n * 4 + align, { stream });
    const offset = Number((BigInt(align) - (BigInt(buf.handle) % BigInt(align))) % BigInt(align));
    return DeviceArray.fromBuffer(buf, { dtype: "float32", shape, byteOffset: offset });
  }

  describe("tensor maps", () => {
    it.skipIf(!gpu.available)("encode tiled maps, pass them by value (the kernel reads the same 128 bytes), replace the address", async () => {
      if (dev.computeCapability.major < 9) return; // the TMA: Hopper and newer
      using a = DeviceArray.zeros([256, 256], "float32", { stream });
      using b = DeviceArray.zeros([256, 256], "float32", { stream });
      using out = DeviceArray.zeros([16], "uint64", { stream });
      using map = TensorMap.tiled(a, { box: [64, 32], swizzle: "128B", l2Promotion: "128B", oobFill: "nan" });
      expect(map.toBytes().length).toBe(128);
      expect(map.box).toEqual([64, 32]);
      launch(stream, new LaunchConfig({ grid: 1, block: 32 }), code.getKernel("peek_map"), map, out);
      const seen = new Uint8Array((await out.toTypedArray({ stream })).buffer);
      expect([...seen]).toEqual([...map.toBytes()]);
      const before = map.toBytes();
      map.replaceAddress(b);
      expect(map.array).toBe(b);
      expect([...map.toBytes()]).not.toEqual([...before]);
      expect(() => map.replaceAddress(DeviceArray.zeros([128, 256], "float32", { stream }))).toThrow(TensorMapError);
      // A kernel whose parameter is a pointer: 128 bytes do not fit 8.
      expect(() => launch(stream, new LaunchConfig({ grid: 1, block: 1 }), code.getKernel("takes_pointer"), map)).toThrow(LaunchArgumentError);
      // A box that does not fit: refused before the driver.
      expect(() => TensorMap.tiled(a, { box: [300, 32] })).toThrow(TensorMapError);
      map.close();
      expect(() => launch(stream, new LaunchConfig({ grid: 1, block: 32 }), code.getKernel("peek_map"), map, out)).toThrow(ClosedError);
    });

    it.skipIf(!gpu.available)("encode an im2col map over an NHWC array", () => {
      if (dev.computeCapability.major < 9) return;
      using nhwc = DeviceArray.zeros([2, 16, 16, 32], "float16", { stream });
      using map = TensorMap.im2col(nhwc, { pixelBoxLowerCorner: [-1, -1], pixelBoxUpperCorner: [-1, -1], channelsPerPixel: 32, pixelsPerColumn: 64 });
      expect(map.kind).toBe("im2col");
      expect(map.rank).toBe(4);
      expect(map.toBytes().some((x) => x !== 0)).toBe(true);
    });
  });

  describe("CUDA arrays, textures, surfaces", () => {
    it("round-trip 1D, 2D, 3D, layered and cubemap arrays through host and device memory", async () => {
      const shapes = [
        { width: 100 },
        { width: 33, height: 17, channels: 2 as const },
        { width: 8, height: 4, depth: 3, channels: 4 as const },
        { width: 16, height: 8, layers: 3 },
        { width: 16, layers: 5 },
        { width: 8, cubemap: true },
      ];
      for (const s of shapes) {
        using arr = CudaArray.create({ dtype: "float32", ...s });
        const n = arr.length;
        const host = Float32Array.from({ length: n }, (_, i) => i * 0.5 - 7);
        arr.copyFrom(host, { stream });
        const back = (await arr.toTypedArray({ stream })) as Float32Array;
        expect([...back], JSON.stringify(s)).toEqual([...host]);
        using dst = DeviceArray.zeros([n], "float32", { stream });
        arr.copyTo(dst, { stream });
        expect([...(await dst.toTypedArray({ stream }))], JSON.stringify(s)).toEqual([...host]);
        using arr2 = CudaArray.create({ dtype: "float32", ...s });
        arr2.copyFrom(dst, { stream });
        const again = new Float32Array(n);
        arr2.copyTo(again, { stream });
        expect([...again], JSON.stringify(s)).toEqual([...host]);
      }
      using small = CudaArray.create({ dtype: "int16", width: 4 });
      expect(() => small.copyFrom(new Int16Array(5), { stream })).toThrow(TextureError);
    });

    it("copies to and from a pitched (padded-row) DeviceArray", async () => {
      using arr = CudaArray.create({ dtype: "float32", width: 30, height: 10 });
      // Rows of 30 elements, 32 apart: element (r, c) is r * 30 + c.
      using padded = DeviceArray.from(Float32Array.from({ length: 320 }, (_, i) => ((i % 32) < 30 ? Math.floor(i / 32) * 30 + (i % 32) : -1)), { stream, shape: [10, 32] });
      const view = padded.slice(null, [0, 30]);
      arr.copyFrom(view, { stream });
      const back = (await arr.toTypedArray({ stream })) as Float32Array;
      expect(back[299]).toBe(299);
      expect(back[31]).toBe(31);
    });

    it("textures over linear, pitched and array memory read what was written; integer textures normalise", async () => {
      const n = 1000;
      using lin = aligned(n, dev.properties.textureAlignment);
      lin.copyFrom(Float32Array.from({ length: n }, (_, i) => i + 0.25), { stream });
      using out = DeviceArray.zeros([n], "float32", { stream });
      {
        using tex = TextureObject.create({ linear: lin });
        launch(stream, new LaunchConfig({ grid: Math.ceil(n / 128), block: 128 }), code.getKernel("fetch_linear"), tex, out, i32(n));
        const got = await out.toTypedArray({ stream });
        expect(got[0]).toBe(0.25);
        expect(got[n - 1]).toBe(n - 1 + 0.25);
      }
      const w = 40;
      const h = 25;
      const pitch = Math.ceil((w * 4) / dev.properties.texturePitchAlignment) * dev.properties.texturePitchAlignment / 4;
      using base = aligned(pitch * h, dev.properties.textureAlignment, [h, pitch]);
      base.copyFrom(Float32Array.from({ length: pitch * h }, (_, i) => ((i % pitch) < w ? Math.floor(i / pitch) * w + (i % pitch) : -1)), { stream });
      const rows = base.slice(null, [0, w]);
      using out2 = DeviceArray.zeros([h, w], "float32", { stream });
      {
        using tex = TextureObject.create({ pitch2D: rows });
        launch(stream, new LaunchConfig({ grid: [3, 2], block: [16, 16] }), code.getKernel("fetch_2d"), tex, out2, i32(w), i32(h));
        const got = await out2.toTypedArray({ stream });
        expect(got[w * h - 1]).toBe(w * h - 1);
        expect(got[w + 3]).toBe(w + 3);
      }
      // uchar4 texels read as normalised floats.
      using rgba = CudaArray.create({ dtype: "uint8", channels: 4, width: 4 });
      rgba.copyFrom(Uint8Array.of(0, 255, 51, 102, 255, 0, 0, 255, 1, 2, 3, 4, 5, 6, 7, 8), { stream });
      using out3 = DeviceArray.zeros([16], "float32", { stream });
      {
        using tex = TextureObject.create(rgba, { readMode: "normalized-float" });
        launch(stream, new LaunchConfig({ grid: 1, block: 4 }), code.getKernel("read_uchar4"), tex, out3, i32(4));
        const got = await out3.toTypedArray({ stream });
        expect(got[0]).toBe(0);
        expect(got[1]).toBe(1);
        expect(got[2]).toBeCloseTo(0.2, 5);
        expect(got[3]).toBeCloseTo(0.4, 5);
      }
    });

    it("mipmapped arrays: level extents, a level filled and read at its level of detail", async () => {
      using mip = MipmappedArray.create({ dtype: "float32", width: 16, height: 16, levels: 3 });
      expect(mip.levelExtent(2)).toMatchObject({ width: 4, height: 4 });
      const l1 = mip.level(1);
      expect(l1.extent).toMatchObject({ width: 8, height: 8 });
      l1.copyFrom(new Float32Array(64).fill(7), { stream });
      mip.level(0).copyFrom(new Float32Array(256).fill(1), { stream });
      mip.level(2).copyFrom(new Float32Array(16).fill(3), { stream });
      using out = DeviceArray.zeros([1], "float32", { stream });
      using tex = TextureObject.create(mip, { normalizedCoordinates: true, filterMode: "point", mipmapFilterMode: "point", maxMipmapLevelClamp: 2 });
      launch(stream, new LaunchConfig({ grid: 1, block: 1 }), code.getKernel("fetch_lod"), tex, out, f32(1));
      expect((await out.toTypedArray({ stream }))[0]).toBe(7);
      expect(() => MipmappedArray.create({ dtype: "float32", width: 16, height: 16, levels: 9 })).toThrow(TextureError);
    });

    it("a texture on a closed array is a ClosedError; closing an array closes its textures; surfaces need surfaceLoadStore", () => {
      const arr = CudaArray.create({ dtype: "float32", width: 16, height: 16 });
      const tex = TextureObject.create(arr);
      expect(() => SurfaceObject.create(arr)).toThrow(TextureError);
      arr.close();
      expect(tex.isClosed).toBe(true);
      expect(() => tex.handle).toThrow(ClosedError);
      expect(() => TextureObject.create(arr)).toThrow(ClosedError);
      const surfArr = CudaArray.create({ dtype: "int32", width: 8, surfaceLoadStore: true });
      const surf = SurfaceObject.create(surfArr);
      expect(typeof surf.handle).toBe("bigint");
      surfArr.close();
      expect(surf.isClosed).toBe(true);
    });
  });

  describe("memory extras", () => {
    it("a managed buffer's advice reads back; prefetch, batched prefetch and discard", async () => {
      using mr = new ManagedMemoryResource({ pool: false });
      using m = mr.allocateManaged(1 << 16);
      expect(m.readMostly).toBe(false);
      m.readMostly = true;
      expect(m.readMostly).toBe(true);
      m.readMostly = false;
      m.preferredLocation = dev;
      expect(m.preferredLocation).toEqual({ type: "device", id: dev.id });
      m.preferredLocation = undefined;
      expect(m.preferredLocation.type).toBe("none");
      m.addAccessedBy(dev);
      expect(m.accessedBy).toContain(dev.id);
      m.removeAccessedBy(dev);
      expect(m.accessedBy).not.toContain(dev.id);
      m.prefetch(dev, { stream });
      await stream.done();
      expect(m.lastPrefetchLocation).toEqual({ type: "device", id: dev.id });
      using m2 = mr.allocateManaged(1 << 16);
      prefetchBatch([m, m2], "host", { stream });
      prefetchBatch([m, m2.buffer], [dev, dev], { stream });
      await stream.done();
      expect(m2.lastPrefetchLocation).toEqual({ type: "device", id: dev.id });
      if (driver.cuDriverGetVersion() >= 13000) {
        discardBatch([m, m2], { stream });
        m.discardPrefetch(dev, { stream });
        await stream.done();
      } else {
        expect(() => discardBatch([m], { stream })).toThrow(DeviceFeatureError);
      }
    });

    it("copyBatch moves several buffers in one call", async () => {
      if (driver.cuDriverGetVersion() < 13000) return;
      const n = 4096;
      using a = DeviceArray.from(Int32Array.from({ length: n }, (_, i) => i), { stream });
      using b = DeviceArray.from(Int32Array.from({ length: n }, (_, i) => -i), { stream });
      using x = DeviceArray.zeros([n], "int32", { stream });
      using y = dev.allocate(n * 4, { stream });
      copyBatch([{ dst: x, src: a }, { dst: y, src: b, size: n * 2 }], { stream });
      const gx = await x.toTypedArray({ stream });
      const gy = new Int32Array(n);
      y.copyTo(gy, { stream });
      await stream.done();
      expect(gx[n - 1]).toBe(n - 1);
      expect(gy[n / 2 - 1]).toBe(-(n / 2 - 1));
    });

    it("a buffer frees on its deallocation stream", async () => {
      using other = dev.createStream();
      const b = dev.allocate(1024, { stream });
      expect(b.deallocationStream).toBe(stream);
      b.deallocationStream = other;
      expect(b.deallocationStream).toBe(other);
      b.close();
      await other.done();
      expect(b.isClosed).toBe(true);
    });

    it("an IPC event opened by another process", async () => {
      using event = dev.createEvent({ ipc: true });
      expect(() => dev.createEvent().ipcDescriptor).toThrow(/not made for IPC/);
      using listener = IpcListener.listen();
      const child = runScript(resolve(here, "ipc-event-child.ts"), [listener.address], 90_000);
      const ch = await listener.accept({ timeoutMs: 60_000 }).catch(async (e: unknown) => {
        const r = await child;
        throw new Error(`the child never connected (exit ${r.code}): ${r.stderr}\n${String(e)}`);
      });
      try {
        using scratch = dev.allocate(8, { stream });
        launch(stream, new LaunchConfig({ grid: 1, block: 1 }), code.getKernel("takes_pointer"), scratch);
        stream.record(event);
        ch.send(event.ipcDescriptor.toBytes());
        const reply = JSON.parse(new TextDecoder().decode((await ch.receive({ timeoutMs: 60_000 })).data)) as unknown;
        ch.send(new Uint8Array([1]));
        const r = await child;
        expect(r.stderr).toBe("");
        expect(r.code).toBe(0);
        expect(reply).toEqual({ ipc: true, timing: false, done: true });
      } finally {
        ch.close();
      }
    });
  });

  describe("green contexts", () => {
    it("split the device's SMs, run a kernel on a green stream, report its resources; too many SMs is a typed error", async () => {
      const whole = smResourceOf(dev);
      expect(whole.smCount).toBe(dev.properties.multiprocessorCount);
      expect(() => whole.split({ count: whole.smCount + 1 })).toThrow(GreenContextError);
      const { groups, remaining } = whole.split({ count: whole.minPartitionSize, groups: 1 });
      expect(groups.length).toBe(1);
      expect(groups[0]!.smCount).toBeGreaterThanOrEqual(whole.minPartitionSize);
      expect(groups[0]!.smCount + remaining.smCount).toBeLessThanOrEqual(whole.smCount);
      using green = GreenContext.create(dev, groups[0]!);
      expect(green.resources.smCount).toBe(groups[0]!.smCount);
      const s = green.createStream();
      expect(streamResources(s).smCount).toBe(groups[0]!.smCount);
      expect(streamResources(stream).smCount).toBe(whole.smCount);
      const n = 10_000;
      using out = DeviceArray.zeros([n], "int32", { stream });
      await stream.done();
      launch(s, new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 }), code.getKernel("fill_iota"), out, u32(n));
      await s.done();
      dev.setCurrent(); // the launch made the green context current
      const got = await out.toTypedArray({ stream });
      expect(got[n - 1]).toBe((n - 1) * 2);
      green.close();
      expect(s.isClosed).toBe(true);
    });
  });

  describe("checkpoint", () => {
    it("locks, checkpoints, restores and unlocks a child process, or says it is unsupported (typed)", async () => {
      const marker = join(tmpdir(), `cuda-ts-checkpoint-${process.pid}-${Date.now()}`);
      let pid = 0;
      let resolveReady: () => void = () => {};
      const ready = new Promise<void>((r) => (resolveReady = r));
      const child = runScript(resolve(here, "checkpoint-child.ts"), [marker], 180_000, {
        onStdout: (t) => {
          const m = /ready (\d+)/.exec(t);
          if (m) {
            pid = Number(m[1]);
            resolveReady();
          }
        },
      });
      await Promise.race([ready, child.then((r) => Promise.reject(new Error(`the child exited first (${r.code}): ${r.stderr}`)))]);
      const p = new CheckpointProcess(pid);
      const states: string[] = [];
      let unsupported: unknown;
      try {
        states.push(p.state);
        p.lock({ timeoutMs: 30_000 });
        states.push(p.state);
        p.checkpoint();
        states.push(p.state);
        p.restore();
        states.push(p.state);
        p.unlock();
        states.push(p.state);
      } catch (e) {
        // Leave the child running whatever happened, so it can exit.
        for (const step of [() => p.state === "checkpointed" && p.restore(), () => p.state === "locked" && p.unlock()]) {
          try {
            step();
          } catch {
            // best effort
          }
        }
        if (!(e instanceof CheckpointUnsupportedError)) throw e;
        unsupported = e;
      } finally {
        writeFileSync(marker, "go");
      }
      const r = await child;
      rmSync(marker, { force: true });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/survived 0/);
      if (unsupported === undefined) expect(states).toEqual(["running", "locked", "checkpointed", "locked", "running"]);
      else expect((unsupported as Error).message).toMatch(/checkpoint|CUDA_ERROR/i);
    }, 240_000);
  });

  describe("host functions", () => {
    it("run in stream order on both runtimes (on Bun after an event, without holding the stream)", async () => {
      const order: number[] = [];
      using out = DeviceArray.zeros([256], "int32", { stream });
      launch(stream, new LaunchConfig({ grid: 1, block: 256 }), code.getKernel("fill_iota"), out, u32(256));
      stream.launchHostFunction(() => order.push(1));
      stream.launchHostFunction(() => order.push(2));
      await stream.done();
      await hostFunctionsSettled();
      expect(order).toEqual([1, 2]);
    });
  });
});

