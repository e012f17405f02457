/**
 * The scan measures of typed device arrays (contender `<runtime>-arrays`), as JSON lines in the suite's format, beside
 * the copy they are held to in the same run:
 *
 * | measure | unit | what |
 * |---|---|---|
 * | `array.cumsum.2^28.f32` | GB/s | `cumsum` of 2^28 float32 (1 GiB read, 1 GiB written: 2 GiB moved per call), GPU time from events |
 * | `array.cumsum.2^28.i32` | GB/s | `cumsum` of 2^28 int32 into int64 (1 GiB read, 2 GiB written: 3 GiB moved) |
 * | `array.cumsum.axis0.16384x16384.f32` | GB/s | `cumsum(x, { axis: 0 })` of a 16384 × 16384 float32 (2 GiB moved) |
 * | `array.cumsum.axis1.16384x16384.f32` | GB/s | `cumsum(x, { axis: 1 })` of the same (2 GiB moved) |
 * | `copy.d2d.1GiB.raw` | GB/s | cuMemcpyDtoDAsync of 1 GiB (2 GiB moved per call): the copy bandwidth of this run |
 *
 *   bun bench/ts/scan.ts              (or: deno run -A bench/ts/scan.ts; CuPy and PyTorch: python3 bench/python/scan.py)
 *
 * @module
 */
import { Device, DeviceArray, type Stream } from "../../src/index.ts";
import { cumsum } from "../../src/array.ts";
import { driver } from "../../src/bindings/driver-entry.ts";
import type { CUdeviceptr } from "../../src/bindings/driver.ts";
import { ffi } from "../../src/ffi/index.ts";
import { measure, note, type Rep } from "./harness.ts";

const GiB = 2 ** 30;
const C = `${ffi.runtime}-arrays`;

const dev = new Device(0);
dev.setCurrent();
const stream: Stream = dev.createStream();
const so = { stream };
note(`${C} on ${dev.name}: HBM peak is the device's (memoryClockRate × 2 × busWidth): ${((dev.properties.memoryClockRate * 1e3 * 2 * dev.properties.globalMemoryBusWidth) / 8 / 1e9).toFixed(0)} GB/s`);

/** A repetition timed by events on the stream (GPU time), `m` calls of `one`. */
function gpuRep(one: () => void): Rep {
  const start = dev.createEvent({ timing: true });
  const end = dev.createEvent({ timing: true });
  return (m) => {
    stream.record(start);
    for (let i = 0; i < m; i++) one();
    stream.record(end);
    end.sync();
    return end.since(start);
  };
}

const n = 2 ** 28;
const x = DeviceArray.full([n], 1, "float32", so);
const y = DeviceArray.empty([n], "float32", so);
stream.sync();
measure(C, "copy.d2d.1GiB.raw", "GB/s", gpuRep(() => driver.cuMemcpyDtoDAsync(y.address as CUdeviceptr, x.address as CUdeviceptr, GiB, stream.handle)), { bytes: 2 * GiB, note: "cuMemcpyDtoDAsync: read 1 GiB, write 1 GiB" });
measure(C, "array.cumsum.2^28.f32", "GB/s", gpuRep(() => void cumsum(x, { stream, out: y })), { bytes: 2 * GiB, note: "into a given out; the tile kernel's scratch allocation and memset included" });
y.close();
const xi = DeviceArray.full([n], 1, "int32", so);
const yi = DeviceArray.empty([n], "int64", so);
measure(C, "array.cumsum.2^28.i32", "GB/s", gpuRep(() => void cumsum(xi, { stream, out: yi })), { bytes: 3 * GiB, note: "int32 into int64" });
xi.close();
yi.close();
const m2 = x.reshape(16384, 16384);
const o2 = DeviceArray.empty([16384, 16384], "float32", so);
measure(C, "array.cumsum.axis0.16384x16384.f32", "GB/s", gpuRep(() => void cumsum(m2, { stream, axis: 0, out: o2 })), { bytes: 2 * GiB, note: "a thread per (chunk, column): two passes (3 GiB moved in fact)" });
measure(C, "array.cumsum.axis1.16384x16384.f32", "GB/s", gpuRep(() => void cumsum(m2, { stream, axis: 1, out: o2 })), { bytes: 2 * GiB, note: "a warp per row" });
o2.close();
x.close();
stream.sync();
