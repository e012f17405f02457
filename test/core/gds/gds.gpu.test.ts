/**
 * GPUDirect Storage on a GPU, in this process: cuFile's driver opened (compatibility mode allowed where there is no
 * nvidia-fs), files written and read back byte for byte, reads at file and device offsets into Buffers and
 * DeviceArray views, short reads at the end of a file, registered buffers, stream-ordered and batch I/O where the
 * library offers them, and every object closed (the driver's users back to none). The 1 GiB round trip and the
 * bandwidth comparison run in test/examples/compile-io.gpu.test.ts (examples/gds_read_write.ts). Skips, naming the
 * reason, without a GPU or libcufile.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CuFileError } from "../../../src/bindings/errors.ts";
import { DeviceArray } from "../../../src/core/array/device-array.ts";
import { Device } from "../../../src/core/device.ts";
import { ClosedError } from "../../../src/core/errors.ts";
import { configureGdsDriver, gdsDriverUsers, gdsStatus } from "../../../src/core/gds/driver.ts";
import { CU_FILE_HANDLE_NOT_REGISTERED, CuFile, CuFileBatch, registerGdsBuffer } from "../../../src/core/gds/file.ts";
import type { GdsStatus } from "../../../src/core/gds/status.ts";
import type { Buffer } from "../../../src/core/memory/buffer.ts";
import type { Stream } from "../../../src/core/stream.ts";
import { tryFindNvidiaLibrary } from "../../../src/pathfinder/index.ts";
import { gpu } from "../../support/gpu.ts";

const cufileFound = tryFindNvidiaLibrary("cufile") !== undefined;
const available = gpu.available && cufileFound;
const reason = !gpu.available ? gpu.reason : "libcufile not found";
const MiB = 1 << 20;

/** The test pattern: word i of the file is (i * 2654435761) ^ seed. */
function pattern(words: number, first = 0, seed = 0x5eed): Uint32Array {
  const out = new Uint32Array(words);
  for (let i = 0; i < words; i++) out[i] = (Math.imul(i + first, 2654435761) ^ seed) >>> 0;
  return out;
}

describe.skipIf(!available)(`GPUDirect Storage (cuFile)${available ? "" : ` [skipped: ${reason}]`}`, () => {
  let dev: Device;
  let stream: Stream;
  let status: GdsStatus;
  let dir = "";
  const size = 64 * MiB;
  let data: Uint32Array = new Uint32Array(0);
  let path = "";
  let refused: CuFileError | undefined;
  /** A test that opens files: skipped, with cuFile's reason, where cuFile registers no file. */
  const withFiles = (name: string, fn: () => unknown): void => {
    it(name, (ctx) => {
      if (refused !== undefined) ctx.skip(`cuFile registers no file on this machine: ${refused.message.split(". ")[0]}`);
      return fn() as Promise<void> | void;
    });
  };

  beforeAll(() => {
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    data = pattern(size / 4);
    configureGdsDriver({ allowCompatMode: true });
    status = gdsStatus();
    dir = mkdtempSync(join(process.env.CUDA_TS_GDS_DIR ?? tmpdir(), "cuda-ts-gds-test-"));
    path = join(dir, "data.bin");
    // Whether cuFile registers files on this machine at all (it refuses every file where udev has no attributes of
    // the volume, as on the H200 VM): the tests that read and write files say so and skip.
    try {
      CuFile.open(join(dir, "probe.bin"), "w+").close();
    } catch (e) {
      if (!(e instanceof CuFileError) || e.code !== CU_FILE_HANDLE_NOT_REGISTERED) throw e;
      refused = e;
    }
  });
  afterAll(() => {
    stream?.close();
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  async function host(buf: Buffer, bytes = buf.size): Promise<Uint32Array> {
    const out = new Uint32Array(bytes / 4);
    buf.copyTo(out, { stream });
    await stream.done();
    return out;
  }

  it("where cuFile refuses to register files, CuFile.open says why and what to do, and leaves the process working", (ctx) => {
    if (refused === undefined) ctx.skip("cuFile registers files on this machine");
    expect(refused!.codeName).toBe("CU_FILE_HANDLE_NOT_REGISTERED");
    expect(refused!.message).toContain("udev");
    expect(refused!.message).toContain("CUFILE_LOGGING_LEVEL=TRACE");
    expect(() => CuFile.open(join(dir, "again.bin"), "w+")).toThrow(CuFileError);
    using b = dev.allocate(4096, { stream });
    b.fill(7, { stream });
    stream.sync();
  });

  it("opens the driver in GDS or compatibility mode", () => {
    expect(["gds", "compat"]).toContain(status.mode);
    console.log(`gds: ${JSON.stringify({ ...status, maxDirectIOSize: String(status.maxDirectIOSize) })}`);
  });

  withFiles("writes a buffer to a file and reads it back byte for byte", async () => {
    using src = dev.allocate(size, { stream });
    src.copyFrom(data, { stream });
    await stream.done();
    {
      using file = CuFile.open(path, "w+");
      expect(file.write(src)).toBe(size);
    }
    expect(statSync(path).size).toBe(size);
    using dst = dev.allocate(size, { stream });
    dst.fill(0, { stream });
    await stream.done();
    using file = CuFile.open(path, "r");
    expect(file.read(dst)).toBe(size);
    const back = await host(dst);
    expect(back.length).toBe(data.length);
    let diff = 0;
    for (let i = 0; i < back.length; i++) if (back[i] !== data[i]) diff++;
    expect(diff).toBe(0);
  });

  withFiles("reads a range at file and device offsets, and into a DeviceArray view", async () => {
    using file = CuFile.open(path, "r");
    using dst = dev.allocate(4 * MiB, { stream });
    dst.fill(0, { stream });
    await stream.done();
    const fileOffset = 3 * MiB + 4096;
    expect(file.read(dst, { fileOffset, deviceOffset: 65536, size: MiB })).toBe(MiB);
    const back = await host(dst);
    expect(back.subarray(0, 65536 / 4).every((w) => w === 0)).toBe(true);
    expect(back.subarray(65536 / 4, (65536 + MiB) / 4)).toEqual(pattern(MiB / 4, fileOffset / 4));
    expect(back.subarray((65536 + MiB) / 4).every((w) => w === 0)).toBe(true);

    using arr = DeviceArray.zeros([1024, 1024], "uint32", { stream });
    const rows = arr.slice([256, 512]); // rows 256..511: a contiguous view 1 MiB into the array
    await stream.done();
    expect(file.read(rows, { fileOffset: 8 * MiB })).toBe(MiB);
    const all = arr.toTypedArraySync({ stream }) as Uint32Array;
    expect(all.subarray(256 * 1024, 512 * 1024)).toEqual(pattern(MiB / 4, (8 * MiB) / 4));
    expect(all.subarray(0, 256 * 1024).every((w) => w === 0)).toBe(true);
    expect(() => file.read(arr.slice(null, [0, 1]))).toThrow(/must be contiguous/);
  });

  withFiles("returns fewer bytes at the end of the file", () => {
    using file = CuFile.open(path, "r");
    using dst = dev.allocate(2 * MiB, { stream });
    expect(file.read(dst, { fileOffset: size - MiB })).toBe(MiB);
    expect(file.read(dst, { fileOffset: size })).toBe(0);
  });

  withFiles("reads and writes through a registered buffer", async () => {
    using buf = dev.allocate(8 * MiB, { stream });
    using registered = registerGdsBuffer(buf);
    using file = CuFile.open(path, "r");
    expect(file.read(buf, { fileOffset: 16 * MiB })).toBe(8 * MiB);
    expect(await host(buf)).toEqual(pattern((8 * MiB) / 4, (16 * MiB) / 4));
    registered.close();
    registered.close();
    expect(registered.isClosed).toBe(true);
  });

  withFiles("reads on a stream where the library offers stream I/O", async () => {
    if (!status.streams) {
      console.log("gds: this libcufile offers no stream I/O (cuFileReadAsync); the test checks nothing more");
      return;
    }
    using file = CuFile.open(path, "r");
    using dst = dev.allocate(4 * MiB, { stream });
    let op;
    try {
      op = file.readAsync(dst, stream, { fileOffset: 4 * MiB });
    } catch (e) {
      if (status.mode === "compat" && e instanceof CuFileError) {
        console.log(`gds: stream I/O refused in compatibility mode: ${e.codeName}`);
        return;
      }
      throw e;
    }
    await stream.done();
    expect(op.bytes).toBe(4 * MiB);
    expect(await host(dst)).toEqual(pattern(MiB, MiB));
  });

  withFiles("submits batch reads where the library offers batch I/O", async () => {
    if (!status.batchIO) {
      console.log("gds: this libcufile offers no batch I/O; the test checks nothing more");
      return;
    }
    using file = CuFile.open(path, "r");
    using dst = dev.allocate(4 * MiB, { stream });
    let batch: CuFileBatch | undefined;
    try {
      batch = new CuFileBatch(4);
      batch.submit([0, 1, 2, 3].map((k) => ({ op: "read" as const, file, target: dst, fileOffset: (3 - k) * MiB, deviceOffset: k * MiB, size: MiB })));
    } catch (e) {
      batch?.close();
      // cuFile refuses batches in compatibility mode on some versions (CU_FILE_BATCH_NOCOMPAT_ERROR).
      if (status.mode === "compat" && e instanceof CuFileError) {
        console.log(`gds: batch I/O refused in compatibility mode: ${e.codeName}`);
        return;
      }
      throw e;
    }
    try {
      const results = await batch.wait();
      expect(results).toEqual(new Array(4).fill({ status: "complete", bytes: MiB }));
      const back = await host(dst);
      for (let k = 0; k < 4; k++) expect(back.subarray((k * MiB) / 4, ((k + 1) * MiB) / 4)).toEqual(pattern(MiB / 4, ((3 - k) * MiB) / 4));
    } finally {
      batch.close();
    }
  });

  withFiles("closes: ClosedError after close, closing twice harmless, the driver's users back to none", () => {
    const file = CuFile.open(path, "r");
    const users = gdsDriverUsers();
    expect(users).toBeGreaterThan(0);
    file.close();
    file.close();
    expect(file.isClosed).toBe(true);
    expect(() => file.read(stream as never)).toThrow(ClosedError);
    expect(gdsDriverUsers()).toBe(users - 1);
    expect(gdsDriverUsers()).toBe(0);
  });

  it("refuses configureGdsDriver once the driver is open", () => {
    expect(() => configureGdsDriver({ allowCompatMode: true })).toThrow(/driver is open/);
  });
});
