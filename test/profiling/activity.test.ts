/**
 * profile() end to end against a gcc-built fake libcupti (test/fixtures/cupti/fake-cupti.c), loaded through
 * CUDA_TS_CUPTI_PATH: the buffer callbacks are registered once, buffers are requested and handed back on the
 * JavaScript thread, records are walked with cuptiActivityGetNextRecord and parsed by the generated layouts
 * (CUDA 13's CUpti_ActivityKernel10, Memcpy6, Memset4), kinds are switched on only inside profile(), one profile()
 * at a time. No GPU and no driver: every profile() here passes synchronize: false. The GPU's own check (against
 * event timings) is test/profiling/profile.gpu.test.ts.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CUpti_ActivityKernel10, CUpti_ActivityMemcpy6, CUpti_ActivityMemset4, cupti } from "../../src/bindings/cupti.ts";
import { ffi, type Pointer } from "../../src/ffi/index.ts";
import { profile, ProfileOptionError, ProfilerBusyError } from "../../src/core/profiling/index.ts";
import { gccReason } from "../nvtx/fixture.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");

function defines(prefix: string, cls: { readonly $fields: readonly { name: string; offset: number }[]; readonly $size: number }, names: string[]): string[] {
  const out = [`-D${prefix}_SIZE=${cls.$size}`];
  for (const n of names) {
    const f = cls.$fields.find((x) => x.name === n);
    if (f === undefined) throw new Error(`no field ${n}`);
    out.push(`-D${prefix}_${n.toUpperCase()}=${f.offset}`);
  }
  return out;
}

describe.skipIf(gccReason !== undefined)(`profile() with a fake libcupti${gccReason ? ` [skipped: ${gccReason}]` : ""}`, () => {
  let kernel: (name: Pointer, gx: number, gy: number, gz: number, bx: number, by: number, bz: number, start: bigint, end: bigint, stream: number, corr: number) => void;
  let memcpy: (kind: number, bytes: bigint, start: bigint, end: bigint, stream: number) => void;
  let memset: (value: number, bytes: bigint, start: bigint, end: bigint, stream: number) => void;
  let requests: () => number;
  let flushedElsewhere: () => number;
  const names = new Map<string, Uint8Array>();
  const launch = (name: string, grid: number, block: number, start: bigint, end: bigint, stream = 7, corr = 1): void => {
    if (!names.has(name)) names.set(name, ffi.cstring(name));
    kernel(ffi.pointerOf(names.get(name)!), grid, 1, 1, block, 2, 1, start, end, stream, corr);
  };

  beforeAll(() => {
    // On Bun profile() is refused (CUPTI's own thread hangs Bun's callbacks); the fake calls back on the calling thread.
    process.env.CUDA_TS_BUN_CUPTI = "1";
    const dir = mkdtempSync(join(tmpdir(), "cuda-ts-cupti-"));
    const lib = join(dir, "libcupti.so.13");
    execFileSync("gcc", [
      "-shared",
      "-fPIC",
      "-O1",
      ...defines("K", CUpti_ActivityKernel10, ["start", "end", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ", "streamId", "correlationId", "deviceId", "contextId", "registersPerThread", "dynamicSharedMemory", "name"]),
      ...defines("C", CUpti_ActivityMemcpy6, ["copyKind", "bytes", "start", "end", "streamId"]),
      ...defines("S", CUpti_ActivityMemset4, ["value", "bytes", "start", "end", "streamId"]),
      "-o",
      lib,
      join(root, "test/fixtures/cupti/fake-cupti.c"),
    ]);
    process.env.CUDA_TS_CUPTI_PATH = lib;
    const fake = ffi.openLibrary(lib);
    kernel = fake.bind("fake_kernel", { parameters: ["pointer", "i32", "i32", "i32", "i32", "i32", "i32", "u64", "u64", "u32", "u32"], result: "void" })!;
    memcpy = fake.bind("fake_memcpy", { parameters: ["u8", "u64", "u64", "u64", "u32"], result: "void" })!;
    memset = fake.bind("fake_memset", { parameters: ["u32", "u64", "u64", "u64", "u32"], result: "void" })!;
    requests = fake.bind("fake_requests", { parameters: [], result: "i32" })!;
    flushedElsewhere = fake.bind("fake_flushed_elsewhere", { parameters: [], result: "i32" })!;
  });

  it("collects the kernels, memcpys and memsets of the scope, parsed field by field", async () => {
    launch("before", 1, 1, 1n, 2n); // kinds are off outside profile(): not recorded
    const r = await profile(
      async () => {
        launch("axpy", 128, 256, 5_000n, 7_500n, 7, 42);
        memcpy(1, 1n << 20n, 8_000n, 9_000n, 7);
        memset(0xab, 4096n, 9_100n, 9_200n, 9);
        await Promise.resolve();
        launch("reduce", 4, 64, 10_000n, 10_250n, 9, 43);
        return "done";
      },
      { synchronize: false },
    );
    expect(cupti.table().reason).toBe("soname libcupti.so.13");
    expect(r.result).toBe("done");
    expect(r.kernels).toEqual([
      { name: "axpy", grid: [128, 1, 1], block: [256, 2, 1], start: 5_000n, end: 7_500n, duration: 2_500, streamId: 7, contextId: 1, deviceId: 0, correlationId: 42, registersPerThread: 32, staticSharedMemory: 0, dynamicSharedMemory: 256 },
      { name: "reduce", grid: [4, 1, 1], block: [64, 2, 1], start: 10_000n, end: 10_250n, duration: 250, streamId: 9, contextId: 1, deviceId: 0, correlationId: 43, registersPerThread: 32, staticSharedMemory: 0, dynamicSharedMemory: 256 },
    ]);
    expect(r.memcpys).toEqual([{ kind: "HtoD", bytes: 1 << 20, start: 8_000n, end: 9_000n, duration: 1_000, streamId: 7, contextId: 0, deviceId: 0, correlationId: 0 }]);
    expect(r.memsets).toEqual([{ value: 0xab, bytes: 4096, start: 9_100n, end: 9_200n, duration: 100, streamId: 9, contextId: 0, deviceId: 0, correlationId: 0 }]);
    expect(r.dropped).toBe(0);
    expect(r.end > r.begin).toBe(true);
    // Deno flushes on a worker thread (the completion callback crosses threads); Bun on the JavaScript thread.
    expect(flushedElsewhere()).toBe(ffi.supportsNonblocking ? 1 : 0);
    const s9 = r.forStream({ handle: ffi.pointerFromAddress(9), context: { handle: null } });
    expect(s9.streamId).toBe(9);
    expect(s9.kernels.map((k) => k.name)).toEqual(["reduce"]);
    expect(s9.memsets).toHaveLength(1);
    expect(s9.memcpys).toHaveLength(0);
  });

  it("collects only the kinds asked for, and nothing after it returns", async () => {
    const r = await profile(() => {
      launch("k", 1, 32, 1n, 3n);
      memcpy(2, 16n, 3n, 4n, 0);
    }, { kinds: ["memcpy"], synchronize: false });
    expect(r.kernels).toEqual([]);
    expect(r.memcpys.map((m) => m.kind)).toEqual(["DtoH"]);
    launch("after", 1, 1, 1n, 2n);
    const empty = await profile(() => 0, { synchronize: false });
    expect(empty.kernels).toEqual([]);
  });

  it("reuses its buffers: one request per profile() that records something", async () => {
    const before = requests();
    for (let i = 0; i < 3; i++) await profile(() => launch("loop", 1, 1, 1n, 2n), { synchronize: false });
    expect(requests() - before).toBe(3);
  });

  it("one profile() at a time: a second one while the first runs is ProfilerBusyError", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = profile(() => gate, { synchronize: false });
    await new Promise((r) => setTimeout(r, 0));
    await expect(profile(() => 1, { synchronize: false })).rejects.toBeInstanceOf(ProfilerBusyError);
    release();
    await first;
    await expect(profile(() => 2, { synchronize: false })).resolves.toMatchObject({ result: 2 });
  });

  it("an exception of the function is rethrown after collection is switched off", async () => {
    await expect(
      profile(() => {
        launch("failing", 1, 1, 1n, 2n);
        throw new RangeError("boom");
      }, { synchronize: false }),
    ).rejects.toThrow("boom");
    const r = await profile(() => launch("next", 1, 1, 1n, 2n), { synchronize: false });
    expect(r.kernels.map((k) => k.name)).toEqual(["next"]);
  });

  it("bad options are ProfileOptionError, before CUPTI is touched", async () => {
    await expect(profile(() => 0, { kinds: [] })).rejects.toBeInstanceOf(ProfileOptionError);
    await expect(profile(() => 0, { kinds: ["kernels" as "kernel"] })).rejects.toThrow(/each kind must be "kernel", "memcpy" or "memset"; got "kernels"/);
    await expect(profile(() => 0, { bufferBytes: 1000 })).rejects.toThrow(/bufferBytes must be an integer of at least 65536/);
    await expect(profile(42 as unknown as () => void)).rejects.toThrow(/must be a function/);
  });
});
