/**
 * GPUDirect Storage without a GPU or libcufile: the driver's status decoded (GDS, compatibility mode, neither) and
 * the line doctor prints, every argument checked before cuFile is reached, files opened and closed again when
 * cuFile is missing, and the open(2) flags per architecture. I/O itself runs in gds.gpu.test.ts.
 */
import { readdirSync } from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatDoctor, type DoctorReport } from "../../../src/cli/doctor.ts";
import { CuFile, CuFileBatch, resolveRange } from "../../../src/core/gds/file.ts";
import { configureGdsDriver, decodeGdsStatus, gdsDriverIsOpen, gdsDriverUsers, gdsStatus } from "../../../src/core/gds/driver.ts";
import { formatGdsStatus } from "../../../src/core/gds/status.ts";
import { Buffer } from "../../../src/core/memory/buffer.ts";
import { SystemCallError } from "../../../src/core/errors.ts";
import { openFlags } from "../../../src/ffi/libc-file.ts";
import { tryFindNvidiaLibrary } from "../../../src/pathfinder/index.ts";

const noCufile = tryFindNvidiaLibrary("cufile") === undefined;
const dir = mkdtempSync(join(tmpdir(), "cuda-ts-gds-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = { dstatusflags: 0, dcontrolflags: 0, fflags: 0, maxBatchIOSize: 128, maxDirectIOSize: 16n << 20n, libraryVersion: 1150, compatForced: false };

describe("the cuFile driver's status", () => {
  it("is GDS mode when nvidia-fs is loaded, with the storage kinds and features it names", () => {
    const s = decodeGdsStatus({ ...base, major: 2, minor: 26, dstatusflags: (1 << 4) | (1 << 2), fflags: 0b110, dcontrolflags: 0b10 });
    expect(s.mode).toBe("gds");
    expect(s.nvfsVersion).toBe("2.26");
    expect(s.supported).toEqual(["NFS", "NVME"]);
    expect(s.batchIO).toBe(true);
    expect(s.streams).toBe(true);
    expect(s.compatAllowed).toBe(true);
    expect(formatGdsStatus(s)).toBe("GPUDirect Storage: GDS mode, nvidia-fs 2.26 (NFS, NVME) (libcufile 1.15); batch I/O, stream I/O");
  });

  it("is compatibility mode without nvidia-fs when it is allowed, or when it is forced", () => {
    const allowed = decodeGdsStatus({ ...base, major: 0, minor: 0, dcontrolflags: 0b10 });
    expect(allowed.mode).toBe("compat");
    expect(formatGdsStatus(allowed)).toBe("GPUDirect Storage: compatibility mode (no nvidia-fs: POSIX I/O through bounce buffers) (libcufile 1.15)");
    const forced = decodeGdsStatus({ ...base, major: 2, minor: 26, compatForced: true });
    expect(forced.mode).toBe("compat");
    expect(formatGdsStatus(forced)).toMatch(/forced by CUFILE_FORCE_COMPAT_MODE/);
  });

  it("is unavailable without nvidia-fs and without compatibility mode, saying how to allow it", () => {
    const s = decodeGdsStatus({ ...base, major: 0, minor: 0, libraryVersion: undefined });
    expect(s.mode).toBe("unavailable");
    expect(formatGdsStatus(s)).toMatch(/"allow_compat_mode": true in cufile.json or CUFILE_FORCE_COMPAT_MODE=true/);
  });

  it("appears in doctor's report, or why the driver did not open", () => {
    const report: DoctorReport = {
      runtime: { name: "Bun", version: "1.4.5" },
      driver: { found: true, cudaVersion: "13.0" },
      devices: [],
      libraries: [],
      gds: decodeGdsStatus({ ...base, major: 0, minor: 0, dcontrolflags: 0b10 }),
    };
    expect(formatDoctor(report)).toContain("GPUDirect Storage: compatibility mode");
    expect(formatDoctor({ ...report, gds: { error: "CU_FILE_DRIVER_NOT_INITIALIZED: driver not initialized (cuFileDriverOpen)\nmore" } })).toContain(
      "GPUDirect Storage: the cuFile driver does not open: CU_FILE_DRIVER_NOT_INITIALIZED",
    );
  });

  it.skipIf(!noCufile)("throws LibraryNotFoundError without libcufile, holding nothing", () => {
    expect(() => gdsStatus()).toThrow(/could not find library "cufile"/);
    expect(gdsDriverUsers()).toBe(0);
    expect(gdsDriverIsOpen()).toBe(false);
    expect(() => configureGdsDriver({ allowCompatMode: true })).toThrow(/could not find library "cufile"/);
  });

  it("checks configureGdsDriver's options before cuFile is loaded", () => {
    expect(() => configureGdsDriver(null as never)).toThrow(TypeError);
    expect(() => configureGdsDriver({ allowCompatMode: "yes" as never })).toThrow(/allowCompatMode must be a boolean, got "yes"/);
    expect(() => configureGdsDriver({ forceCompatMode: 1 as never })).toThrow(/forceCompatMode must be a boolean/);
  });
});

describe("CuFile arguments", () => {
  it("are checked before anything is opened", () => {
    expect(() => CuFile.open("" as string)).toThrow(TypeError);
    expect(() => CuFile.open("a\0b")).toThrow(/without NUL/);
    expect(() => CuFile.open(3 as unknown as string)).toThrow(TypeError);
    expect(() => CuFile.open("x", "rw" as never)).toThrow(/mode must be one of "r", "w", "r\+", "w\+", got "rw"/);
    expect(() => CuFile.open("x", "r", { direct: "yes" as never })).toThrow(/direct must be true, false or "auto"/);
    expect(() => CuFile.open("x", "w", { permissions: 0o10000 })).toThrow(/permissions must be mode bits/);
  });

  it("report a missing file with open's errno before cuFile is loaded", () => {
    const e = (() => {
      try {
        CuFile.open(join(dir, "missing.bin"), "r");
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(SystemCallError);
    expect((e as SystemCallError).errno).toBe(2);
    expect((e as Error).message).toMatch(/missing\.bin.*No such file or directory/);
  });

  it.skipIf(!noCufile)("close the file again when cuFile cannot be loaded (no descriptor leaks)", () => {
    const fds = (): number => readdirSync("/proc/self/fd").length;
    const before = fds();
    for (let i = 0; i < 5; i++) expect(() => CuFile.open(join(dir, `f${i}.bin`), "w")).toThrow(/could not find library "cufile"/);
    expect(fds()).toBe(before);
    expect(gdsDriverUsers()).toBe(0);
  });

  it("ranges are checked against the Buffer: offsets, sizes, the end", () => {
    const buf = Buffer.fromHandle(0x7f0000000000n, 4096);
    expect(resolveRange("t", buf, undefined)).toMatchObject({ deviceOffset: 0, size: 4096, fileOffset: 0 });
    expect(resolveRange("t", buf, { deviceOffset: 1024, fileOffset: 1 << 30 })).toMatchObject({ deviceOffset: 1024, size: 3072, fileOffset: 1 << 30 });
    expect(resolveRange("t", buf, { deviceOffset: 4096 })).toMatchObject({ size: 0 });
    expect(() => resolveRange("t", buf, { deviceOffset: 4097 })).toThrow(/past the end of the 4096-byte target/);
    expect(() => resolveRange("t", buf, { deviceOffset: 4000, size: 200 })).toThrow(/200 bytes at deviceOffset 4000 do not fit the 4096-byte target \(at most 96\)/);
    expect(() => resolveRange("t", buf, { fileOffset: -1 })).toThrow(/fileOffset must be a non-negative integer/);
    expect(() => resolveRange("t", buf, { size: 1.5 })).toThrow(/size must be a non-negative integer/);
    expect(() => resolveRange("t", new Uint8Array(4) as never, {})).toThrow(/expected a Buffer or a DeviceArray, got/);
    expect(() => resolveRange("t", buf, 7 as never)).toThrow(/expected a range object/);
  });

  it("a batch's capacity is checked before cuFile is loaded", () => {
    expect(() => new CuFileBatch(0)).toThrow(RangeError);
    expect(() => new CuFileBatch(2.5)).toThrow(RangeError);
  });
});

describe("open(2) flags", () => {
  it("use the architecture's O_DIRECT", () => {
    expect(openFlags("x64").O_DIRECT).toBe(0o40000);
    expect(openFlags("x86_64").O_DIRECT).toBe(0o40000);
    expect(openFlags("arm64").O_DIRECT).toBe(0o200000);
    expect(openFlags("aarch64").O_DIRECT).toBe(0o200000);
  });
});
