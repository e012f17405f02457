/**
 * The object layer's overheads next to the calls it makes, for the CPU machine (no GPU): run it against the mock
 * libcuda (bench/fixtures/mock-cuda.c), whose calls return at once, so what is left is the JavaScript around them.
 * Each row: a loop of M operations, timed R times interleaved with the other rows, the median (and minimum) in ns per
 * operation. Nothing here measures the GPU; bench/README.md's measures do that on the GPU machine.
 *
 *     gcc -shared -fPIC -O2 -Wl,-soname,libcuda.so.1 -o /tmp/mock/libcuda.so.1 bench/fixtures/mock-cuda.c -ldl
 *     echo x > /tmp/mock/k.cubin
 *     export CUDA_TS_CUDA_PATH=/tmp/mock/libcuda.so.1 CUDA_TS_NVRTC_PATH=/tmp/mock/libcuda.so.1
 *     bun bench/ts/overheads.ts /tmp/mock/k.cubin [ROW-PREFIX,...]
 *     deno run -A bench/ts/overheads.ts /tmp/mock/k.cubin [ROW-PREFIX,...]
 *
 * Environment: OVERHEADS_R (repetitions, default 31); BIG=1 keeps a 256 MiB Uint8Array alive while the rows run (on
 * Bun, JavaScriptCore then collects garbage far more often, and every object a row allocates costs more: the rows'
 * difference with and without it is that runtime cost, which any script holding a large buffer pays).
 *
 * @module
 */
import * as process from "node:process";
import { driver } from "../../src/bindings/index.ts";
import type { CUevent, CUfunction, CUdeviceptr } from "../../src/bindings/driver.ts";
import { Device, DeviceArray, LaunchConfig, ObjectCode, i32, launch, u64 } from "../../src/index.ts";
import { add } from "../../src/array.ts";
import { Scratch } from "../../src/ffi/index.ts";

const [cubin, only] = process.argv.slice(2);
if (cubin === undefined) {
  console.error("usage: overheads.ts CUBIN [ROW-PREFIX,...]");
  process.exit(2);
}
const R = Number(process.env.OVERHEADS_R ?? 31);
const big = process.env.BIG === "1" ? new Uint8Array(256 * 1024 * 1024).fill(1) : undefined;
const M = 20_000;
const LAUNCHES = 2_000;

const dev = new Device(0);
dev.setCurrent();
const stream = dev.createStream();
const so = { stream };
const sh = stream.handle;
const k256 = ObjectCode.fromCubin(cubin).getKernel("k256");
const cfg = new LaunchConfig({ grid: 1, block: 32 });
const ints256 = Array.from({ length: 256 }, (_, i) => i32(i + 1));
const raw = driver.raw;
const out = new Scratch(16);
const o = out.pointerAt(0);
const values = new Scratch(256 * 4);
const table = new Scratch(256 * 8);
for (let i = 0; i < 256; i++) table.writePointer(i * 8, values.pointerAt(i * 4));
const kh = k256.handle as unknown as CUfunction;
const b8 = dev.allocate(8, so);
const d8 = b8.handle;
const host8 = new Uint8Array(8);
// A small array operation (its kernel compiled through the mock NVRTC, its layout the mock's cuda_ts_* one), and the
// bare launch of a kernel of the same four arguments: what the array layer adds to a launch.
const a1024 = DeviceArray.empty([1024], "float32", so);
const b1024 = DeviceArray.empty([1024], "float32", so);
const c1024 = DeviceArray.empty([1024], "float32", so);
add(a1024, b1024, { out: c1024 });
const addKernel = ObjectCode.fromCubin(cubin).getKernel("cuda_ts_bare_add");
const addConfig = new LaunchConfig({ grid: 1, block: 256 });
const n1024 = u64(1024);

const rows: Record<string, [number, () => void]> = {
  "event.raw": [M, () => {
    for (let i = 0; i < M; i++) {
      raw.cuEventCreate(o, 2);
      raw.cuEventDestroy(out.readPointer(0) as CUevent);
    }
  }],
  "event.checked": [M, () => {
    for (let i = 0; i < M; i++) driver.cuEventDestroy(driver.cuEventCreate(2));
  }],
  "event.core": [M, () => {
    for (let i = 0; i < M; i++) dev.createEvent().close();
  }],
  "query.checked": [M, () => {
    for (let i = 0; i < M; i++) driver.cuStreamQuery(sh);
  }],
  "query.core": [M, () => {
    for (let i = 0; i < M; i++) stream.query();
  }],
  "pool.raw": [M, () => {
    for (let i = 0; i < M; i++) {
      raw.cuMemAllocAsync(o, 1024, sh);
      raw.cuMemFreeAsync(out.readU64(0) as CUdeviceptr, sh);
    }
  }],
  "pool.checked": [M, () => {
    for (let i = 0; i < M; i++) driver.cuMemFreeAsync(driver.cuMemAllocAsync(1024, sh), sh);
  }],
  "pool.core": [M, () => {
    for (let i = 0; i < M; i++) dev.allocate(1024, so).close();
  }],
  "h2d8.checked": [M, () => {
    for (let i = 0; i < M; i++) driver.cuMemcpyHtoDAsync(d8, host8, 8, sh);
  }],
  "h2d8.core": [M, () => {
    for (let i = 0; i < M; i++) b8.copyFrom(host8, so);
  }],
  "launch256.checked": [LAUNCHES, () => {
    for (let i = 0; i < LAUNCHES; i++) driver.cuLaunchKernel(kh, 1, 1, 1, 32, 1, 1, 0, sh, table.pointer, null);
  }],
  "launch256.core": [LAUNCHES, () => {
    for (let i = 0; i < LAUNCHES; i++) launch(stream, cfg, k256, ints256);
  }],
  "add1024.launch": [M, () => {
    for (let i = 0; i < M; i++) launch(stream, addConfig, addKernel, a1024, b1024, c1024, n1024);
  }],
  "add1024.array": [M, () => {
    for (let i = 0; i < M; i++) add(a1024, b1024, { out: c1024 });
  }],
};

const names = Object.keys(rows).filter((n) => only === undefined || only.split(",").some((p) => n.startsWith(p)));
const times = new Map<string, number[]>(names.map((n) => [n, []]));
for (const n of names) {
  rows[n]![1](); // warm-up
  rows[n]![1]();
}
for (let r = 0; r < R; r++) {
  for (const n of names) {
    const [count, run] = rows[n]!;
    const t0 = performance.now();
    run();
    times.get(n)!.push(((performance.now() - t0) * 1e6) / count);
  }
}
stream.sync();
if (big !== undefined) console.log(`(with a ${big.byteLength / 2 ** 20} MiB Uint8Array alive)`);
console.log(
  names
    .map((n) => {
      const t = times.get(n)!.sort((a, b) => a - b);
      return `${n}=${t[t.length >> 1]!.toFixed(0)}(min ${t[0]!.toFixed(0)})`;
    })
    .join("  "),
);
