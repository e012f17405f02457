/**
 * cuFFT and cuRAND through cuda-ts's `Fft` and `Rng`, on the runtime that runs this file, as JSON
 * lines in the suite's format (contender `<runtime>-mathlibs`; bench/c/fft_rng.c is `c-mathlibs`, bench/python/
 * fft_rng.py is `python-cupy`). The same measures, names and method in all three; bench/fft-rng-run.sh runs them side
 * by side.
 *
 * | measure | unit | what |
 * |---|---|---|
 * | `fft.c2c.1d.2^24.f32` | ms | one 2^24-point complex64 FFT, in place, forward; GPU time from events |
 * | `fft.c2c.2d.256x512x512.f32` | ms | 256 batched 512×512 complex64 2D FFTs, in place, forward; GPU time from events |
 * | `rng.normal.1e9.f32` | ms | 10^9 float32 normals (Philox, mean 0, stddev 1) into one array; GPU time from events |
 * | `fft.c2c.1d.256.call` | ns | the CPU cost of one call of a cached 256-point plan (bursts of 256 calls, synchronised between bursts, untimed) |
 * | `rng.uniform.1024.call` | ns | the CPU cost of one call generating 1024 uniform floats (same bursts) |
 *
 *   bun bench/ts/fft-rng.ts              (or: deno run -A bench/ts/fft-rng.ts)
 *
 * @module
 */
import { Device, DeviceArray, type Stream } from "../../src/index.ts";
import { Fft, Rng } from "../../src/math.ts";
import { ffi } from "../../src/ffi/index.ts";
import { BURST, burstRep, measure, note, skip, type Rep } from "./harness.ts";

const C = `${ffi.runtime}-mathlibs`;

const dev = new Device(0);
dev.setCurrent();
const stream: Stream = dev.createStream();
note(`${C} on ${dev.name}`);

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

const fft = await Fft.create({ stream });

// ---- a 2^24-point C2C FFT ----
try {
  const n = 1 << 24;
  using x = DeviceArray.zeros([n], "complex64", { stream });
  const plan = fft.plan({ kind: "c2c", precision: "single", shape: [n] });
  measure(C, "fft.c2c.1d.2^24.f32", "ms", gpuRep(() => plan.exec(x, x, "forward")), { note: `in place, work area ${plan.workSize} B from the device's pool` });
} catch (e) {
  skip(C, "fft.c2c.1d.2^24.f32", String(e));
}

// ---- 256 batched 512x512 C2C FFTs ----
try {
  using x = DeviceArray.zeros([256, 512, 512], "complex64", { stream });
  const plan = fft.plan({ kind: "c2c", precision: "single", shape: [512, 512], batch: 256 });
  measure(C, "fft.c2c.2d.256x512x512.f32", "ms", gpuRep(() => plan.exec(x, x, "forward")), { note: "in place, batched" });
} catch (e) {
  skip(C, "fft.c2c.2d.256x512x512.f32", String(e));
}

// ---- the CPU cost of a small transform's call ----
try {
  using x = DeviceArray.zeros([256], "complex64", { stream });
  const plan = fft.plan({ kind: "c2c", precision: "single", shape: [256] });
  measure(C, "fft.c2c.1d.256.call", "ns", burstRep(() => plan.exec(x, x, "forward"), BURST, () => stream.sync()), { note: "FftPlan.exec: argument checks, then cufftExecC2C" });
} catch (e) {
  skip(C, "fft.c2c.1d.256.call", String(e));
}
fft.close();

// ---- 10^9 normals ----
const rng = await Rng.create({ stream, generator: "philox", seed: 1234 });
try {
  using out = DeviceArray.empty([1_000_000_000], "float32", { stream });
  measure(C, "rng.normal.1e9.f32", "ms", gpuRep(() => void rng.normal(out)), { note: "Philox4_32_10, curandGenerateNormal" });
} catch (e) {
  skip(C, "rng.normal.1e9.f32", String(e));
}
try {
  using out = DeviceArray.empty([1024], "float32", { stream });
  measure(C, "rng.uniform.1024.call", "ns", burstRep(() => void rng.uniform(out), BURST, () => stream.sync()), { note: "Rng.uniform: argument checks, then curandGenerateUniform" });
} catch (e) {
  skip(C, "rng.uniform.1024.call", String(e));
}
rng.close();
stream.close();
