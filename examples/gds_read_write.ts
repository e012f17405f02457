/**
 * gds_read_write: GPUDirect Storage through cuFile. Fills device memory with a pattern, writes it to a file with
 * cuFile, reads it back into zeroed device memory (whole, and a range at offsets), checks every byte on the GPU,
 * tries stream-ordered and batch I/O where the library offers them, and compares the read bandwidth with a plain
 * read() into pinned host memory plus a copy to the device.
 *
 *   bun examples/gds_read_write.ts [MiB]          (default 256)
 *   deno run --allow-ffi --allow-env --allow-read --allow-write examples/gds_read_write.ts [MiB]
 *
 * Without GPUDirect Storage (no nvidia-fs: a VM, a container), cuFile works in compatibility mode when it is
 * allowed: this example allows it with `configureGdsDriver({ allowCompatMode: true })` before the driver opens; the
 * other ways are `"properties": { "allow_compat_mode": true }` in the cufile.json that CUFILE_ENV_PATH_JSON names
 * (default /etc/cufile.json), or CUFILE_FORCE_COMPAT_MODE=true. `cuda-ts doctor` says which mode is active. The
 * file goes to $CUDA_TS_GDS_DIR or the temporary directory.
 */
import { mkdtempSync, openSync, readSync, closeSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CuFileError,
  Device,
  LaunchConfig,
  LegacyPinnedMemoryResource,
  Program,
  launch,
  u32,
  u64,
  type Buffer,
  type Stream,
} from "../src/index.ts";
import { CuFile, CuFileBatch, configureGdsDriver, gdsStatus, registerGdsBuffer } from "../src/gds.ts";

const MiB = 1 << 20;
const sizeMiB = Number(process.argv[2] ?? 256);
if (!Number.isInteger(sizeMiB) || sizeMiB < 1) throw new Error(`gds_read_write: the size must be a whole number of MiB, got ${sizeMiB}`);
const size = sizeMiB * MiB;
const SEED = 0x9e3779b9;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
configureGdsDriver({ allowCompatMode: true }); // GDS where nvidia-fs serves it, POSIX I/O through cuFile where not
const status = gdsStatus();
console.log(`GPUDirect Storage: ${status.mode} mode (nvidia-fs ${status.nvfsVersion}; batch I/O ${status.batchIO}, stream I/O ${status.streams})`);

const program = new Program(
  `
extern "C" __global__ void fill(unsigned* x, size_t n, unsigned seed) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) x[i] = (unsigned)(i * 2654435761ull) ^ seed;
}
// Counts the words of x[0, n) that differ from the pattern starting at word 'first'.
extern "C" __global__ void check(const unsigned* x, size_t n, size_t first, unsigned seed, unsigned long long* bad) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n && x[i] != ((unsigned)((i + first) * 2654435761ull) ^ seed)) atomicAdd(bad, 1ull);
}`,
  "c++",
  { arch: `sm_${dev.arch}`, name: "gds_pattern.cu" },
);
const code = program.compile("cubin");
const fill = code.getKernel("fill");
const check = code.getKernel("check");
using bad = dev.allocate(8, { stream });

/** Words of `buf` (from byte `at`, `bytes` long) that differ from the pattern at file byte `fileAt`. */
async function mismatches(buf: Buffer, at: number, bytes: number, fileAt: number, s: Stream): Promise<bigint> {
  bad.fill(0, { stream: s });
  const n = bytes / 4;
  launch(s, new LaunchConfig({ grid: Math.ceil(n / 256), block: 256 }), check, offsetPointer(buf, at), u64(n), u64(fileAt / 4), u32(SEED), bad);
  const out = new BigUint64Array(1);
  bad.copyTo(out, { stream: s });
  await s.done();
  return out[0]!;
}

/** A kernel argument pointing `bytes` into `buf`. */
function offsetPointer(buf: Buffer, bytes: number): ReturnType<typeof u64> {
  return u64(BigInt(buf.handle) + BigInt(bytes));
}


/** Ends the example early, cleanly (cuFile registers no file here). */
class SkipExample extends Error {}

const folder = mkdtempSync(join(process.env.CUDA_TS_GDS_DIR ?? tmpdir(), "cuda-ts-gds-"));
const path = join(folder, "data.bin");
/** Why cuFile registers no file here (it refuses every file where udev has no attributes of the volume), if so. */
function registrationRefused(): string | undefined {
  try {
    CuFile.open(join(folder, "probe.bin"), "w+").close();
    return undefined;
  } catch (e) {
    if (e instanceof CuFileError && e.codeName === "CU_FILE_HANDLE_NOT_REGISTERED") return e.message;
    throw e;
  }
}
const refused = registrationRefused();
if (refused !== undefined) {
  console.log(`gds_read_write: ${refused}`);
  console.log(`gds_read_write: cuFile registers no file on this machine (${status.mode} mode) (skipped)`);
}
try {
  if (refused !== undefined) throw new SkipExample();
  using src = dev.allocate(size, { stream });
  using dst = dev.allocate(size, { stream });
  launch(stream, new LaunchConfig({ grid: Math.ceil(size / 4 / 256), block: 256 }), fill, src, u64(size / 4), u32(SEED));
  dst.fill(0, { stream });
  await stream.done();

  // Write the whole buffer (registered: cuFile reuses its mapping), then read it back.
  {
    using file = CuFile.open(path, "w+");
    using _registered = registerGdsBuffer(src);
    const written = file.write(src);
    if (written !== size) throw new Error(`cuFileWrite wrote ${written} bytes, expected ${size}`);
  }
  using file = CuFile.open(path, "r");
  const t0 = performance.now();
  const read = file.read(dst);
  const gdsSeconds = (performance.now() - t0) / 1000;
  if (read !== size) throw new Error(`cuFileRead read ${read} bytes, expected ${size}`);
  const wrong = await mismatches(dst, 0, size, 0, stream);
  if (wrong !== 0n) throw new Error(`${wrong} words differ after the round trip`);

  // A range: 1 MiB from file offset 3 MiB + 4 KiB into the destination at 64 KiB.
  dst.fill(0, { stream });
  await stream.done();
  const part = size >= 8 * MiB ? MiB : size / 4;
  const fileAt = size >= 8 * MiB ? 3 * MiB + 4096 : 4096;
  const got = file.read(dst, { fileOffset: fileAt, deviceOffset: 65536, size: part });
  if (got !== part) throw new Error(`the ranged read gave ${got} bytes, expected ${part}`);
  const wrongPart = await mismatches(dst, 65536, part, fileAt, stream);
  if (wrongPart !== 0n) throw new Error(`${wrongPart} words differ in the ranged read`);

  // Stream-ordered I/O, where the library has it.
  let streamLine = "stream I/O: not offered by this libcufile";
  if (status.streams) {
    dst.fill(0, { stream });
    try {
      const op = file.readAsync(dst, stream, { size: Math.min(size, 16 * MiB) });
      await stream.done();
      if (op.bytes !== Math.min(size, 16 * MiB)) throw new Error(`cuFileReadAsync read ${op.bytes} bytes`);
      const w = await mismatches(dst, 0, op.bytes, 0, stream);
      if (w !== 0n) throw new Error(`${w} words differ after cuFileReadAsync`);
      streamLine = `stream I/O: ${op.bytes / MiB} MiB read on a stream OK`;
    } catch (e) {
      if (status.mode === "gds" || !(e instanceof CuFileError)) throw e;
      streamLine = `stream I/O: not in compatibility mode (${e.message.split("\n")[0]})`;
    }
  }

  // Batch I/O: four quarters of the first 16 MiB at once, where the library has it.
  let batchLine = "batch I/O: not offered by this libcufile";
  if (status.batchIO) {
    const quarter = Math.min(size, 16 * MiB) / 4;
    dst.fill(0, { stream });
    await stream.done();
    try {
      using batch = new CuFileBatch(4);
      batch.submit([0, 1, 2, 3].map((k) => ({ op: "read" as const, file, target: dst, fileOffset: k * quarter, deviceOffset: k * quarter, size: quarter })));
      const results = await batch.wait();
      if (!results.every((r) => r.status === "complete" && r.bytes === quarter)) throw new Error(`batch results: ${JSON.stringify(results)}`);
      const w = await mismatches(dst, 0, 4 * quarter, 0, stream);
      if (w !== 0n) throw new Error(`${w} words differ after batch I/O`);
      batchLine = `batch I/O: 4 reads of ${quarter / MiB} MiB OK`;
    } catch (e) {
      if (status.mode === "gds" || !(e instanceof CuFileError)) throw e;
      batchLine = `batch I/O: not in compatibility mode (${(e as Error).message.split("\n")[0]})`;
    }
  }

  // The same read without cuFile: read() into pinned host memory, then a copy to the device.
  const pinned = new LegacyPinnedMemoryResource().allocate(size);
  try {
    const host = new Uint8Array(pinned.asArrayBuffer());
    const t1 = performance.now();
    const fd = openSync(path, "r");
    try {
      for (let off = 0; off < size; ) {
        const n = readSync(fd, host, off, Math.min(size - off, 64 * MiB), off);
        if (n <= 0) throw new Error(`read() returned ${n} at ${off}`);
        off += n;
      }
    } finally {
      closeSync(fd);
    }
    dst.copyFrom(pinned, { stream });
    await stream.done();
    const posixSeconds = (performance.now() - t1) / 1000;
    const wrongPosix = await mismatches(dst, 0, size, 0, stream);
    if (wrongPosix !== 0n) throw new Error(`${wrongPosix} words differ after read() + copy`);
    const gbps = (s: number): string => (size / s / 1e9).toFixed(2);
    console.log(`read bandwidth: cuFile ${gbps(gdsSeconds)} GB/s, read() into pinned memory + copy ${gbps(posixSeconds)} GB/s (one run each, file likely in the page cache)`);
  } finally {
    pinned.close();
  }
  console.log(streamLine);
  console.log(batchLine);
  console.log(`gds_read_write: ${sizeMiB} MiB written and read back through cuFile (${status.mode} mode${file.direct ? ", O_DIRECT" : ""}), every byte checked on ${dev.name} OK`);
} catch (e) {
  if (!(e instanceof SkipExample)) throw e;
} finally {
  code.close();
  program.close();
  rmSync(folder, { recursive: true, force: true });
}
