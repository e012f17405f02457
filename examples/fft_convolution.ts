/**
 * fft_convolution: circular convolution through cuFFT. A batch of real signals and filters goes forward (r2c), the
 * spectra are multiplied point by point (an ElementwiseKernel on complex128), and the product comes back (c2r,
 * normalised); the result is checked against the direct convolution computed on the CPU.
 *
 *   bun examples/fft_convolution.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/fft_convolution.ts
 */
import { Device, DeviceArray } from "../src/index.ts";
import { ElementwiseKernel } from "../src/kernels.ts";
import { Fft } from "../src/math.ts";

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
using fft = await Fft.create({ stream });

const batch = 4;
const n = 4096;
const signals = Float64Array.from({ length: batch * n }, (_, i) => Math.sin(i * 0.01) + ((i * 7919) % 13) / 13 - 0.5);
const filters = Float64Array.from({ length: batch * n }, (_, i) => (i % n < 32 ? Math.exp(-(i % n) / 8) / 8 : 0) * (1 + Math.floor(i / n)));

using x = DeviceArray.from(signals, { stream, shape: [batch, n] });
using h = DeviceArray.from(filters, { stream, shape: [batch, n] });
using X = fft.forward(x, { dims: 1 }); // complex128 [batch, n/2+1]
using H = fft.forward(h, { dims: 1 });
const multiply = new ElementwiseKernel("T a, T b", "T c", "c = a * b", "spectrum_product");
using Y = multiply.launch(stream, X, H) as DeviceArray<"complex128">;
using y = fft.inverse(Y, { dims: 1, lastSize: n, normalize: true }); // float64 [batch, n]
const got = await y.toTypedArray({ stream });

let maxError = 0;
let scale = 0;
for (let b = 0; b < batch; b++) {
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += signals[b * n + j]! * filters[b * n + ((i - j + n) % n)]!;
    maxError = Math.max(maxError, Math.abs(got[b * n + i]! - s));
    scale = Math.max(scale, Math.abs(s));
  }
}
if (!(maxError <= 1e-10 * Math.max(1, scale))) throw new Error(`max error ${maxError} (scale ${scale})`);
if (y.dtype.name !== "float64" || y.shape.join() !== `${batch},${n}`) throw new Error(`y is ${y.dtype.name} [${y.shape}]`);

console.log(`fft_convolution: ${batch} circular convolutions of ${n} float64 points (r2c, spectrum product, c2r) on ${dev.name}, max error ${maxError.toExponential(1)} OK`);
