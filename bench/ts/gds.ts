/**
 * A GPU probe of GPUDirect Storage read bandwidth (run on the GPU machine, both runtimes):
 *
 *     bun bench/ts/gds.ts [MiB]            deno run -A bench/ts/gds.ts [MiB]          (default 1024)
 *
 * One file of MiB mebibytes (written once through cuFile, in $CUDA_TS_GDS_DIR or the temporary directory), then
 * ROUNDS rounds alternating two ways of getting it into device memory:
 *
 * - `gds.read`: `CuFile.read` into a device Buffer (registered with cuFile), GDS or compatibility mode (the row's
 *   `mode` says which);
 * - `posix.read+copy`: `read()` (node:fs readSync) into pinned host memory, then a copy to the device.
 *
 * Each row is the median of the rounds in GB/s with min and max. Both paths read the same file, which after the
 * first round is in the page cache unless the file is larger than memory: the figures compare the two paths' costs
 * over the page cache, not the disk (say so in any report). Compatibility mode is allowed (configureGdsDriver). JSON lines on stdout (contender `<runtime>-core`), notes on stderr.
 *
 * @module
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Device, LegacyPinnedMemoryResource } from "../../src/index.ts";
import { CuFile, configureGdsDriver, gdsStatus, registerGdsBuffer } from "../../src/gds.ts";

const ROUNDS = 7;
const MiB = 1 << 20;
const rt = (globalThis as { Bun?: unknown }).Bun !== undefined ? "bun" : "deno";
const sizeMiB = Number(process.argv[2] ?? 1024);
const size = sizeMiB * MiB;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
configureGdsDriver({ allowCompatMode: true });
const status = gdsStatus();
console.error(`gds: ${status.mode} mode, ${sizeMiB} MiB, ${ROUNDS} rounds`);

const folder = mkdtempSync(join(process.env.CUDA_TS_GDS_DIR ?? tmpdir(), "cuda-ts-gds-bench-"));
const path = join(folder, "data.bin");
try {
  using buf = dev.allocate(size, { stream });
  buf.fill(7, { stream });
  await stream.done();
  using _registered = registerGdsBuffer(buf);
  {
    using f = CuFile.open(path, "w+");
    if (f.write(buf) !== size) throw new Error("short write");
  }
  using file = CuFile.open(path, "r");
  const pinned = new LegacyPinnedMemoryResource().allocate(size);
  const host = new Uint8Array(pinned.asArrayBuffer());
  const gds: number[] = [];
  const posix: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let t = performance.now();
    if (file.read(buf) !== size) throw new Error("short cuFile read");
    gds.push((performance.now() - t) / 1000);
    t = performance.now();
    const fd = openSync(path, "r");
    try {
      for (let off = 0; off < size; ) {
        const n = readSync(fd, host, off, Math.min(size - off, 64 * MiB), off);
        if (n <= 0) throw new Error(`read() returned ${n}`);
        off += n;
      }
    } finally {
      closeSync(fd);
    }
    buf.copyFrom(pinned, { stream });
    await stream.done();
    posix.push((performance.now() - t) / 1000);
  }
  pinned.close();
  const row = (measure: string, seconds: number[], extra: Record<string, unknown> = {}): void => {
    const s = [...seconds].sort((a, b) => a - b);
    const gbps = (x: number): number => Number((size / x / 1e9).toPrecision(4));
    console.log(JSON.stringify({ contender: `${rt}-core`, measure, value: gbps(s[s.length >> 1]!), unit: "GB/s", min: gbps(s[s.length - 1]!), max: gbps(s[0]!), reps: ROUNDS, iters: 1, ...extra }));
  };
  row(`gds.read.${sizeMiB}MiB`, gds, { mode: status.mode, direct: file.direct });
  row(`posix.read+copy.${sizeMiB}MiB`, posix);
} finally {
  rmSync(folder, { recursive: true, force: true });
}
