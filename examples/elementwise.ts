/**
 * elementwise: kernels in a few lines with ElementwiseKernel (CuPy's notation): saxpy with a broadcast scalar in
 * float32 and float64 from one definition, and a fused expression with two outputs, each checked against the CPU.
 * Each dtype is compiled once; the block size comes from the occupancy API.
 *
 *   bun examples/elementwise.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/elementwise.ts
 */
import { Device, DeviceArray } from "../src/index.ts";
import { ElementwiseKernel } from "../src/kernels.ts";

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();

const saxpy = new ElementwiseKernel("T a, T x, T y", "T z", "z = a * x + y", "saxpy");

const n = 1 << 20;
{
  const xs = Float32Array.from({ length: n }, (_, i) => (i % 1000) / 8);
  using x = DeviceArray.from(xs, { stream });
  using y = DeviceArray.full([n], 1, "float32", { stream });
  using z = saxpy.launch(stream, 2.5, x, y) as DeviceArray<"float32">;
  const host = await z.toTypedArray({ stream });
  for (let i = 0; i < n; i++) if (host[i] !== Math.fround(2.5 * xs[i]! + 1)) throw new Error(`float32 z[${i}] = ${host[i]}`);
}
{
  const xs = Float64Array.from({ length: n }, (_, i) => i / 3);
  using x = DeviceArray.from(xs, { stream });
  using out = DeviceArray.empty([n], "float64", { stream });
  saxpy.launch(stream, -0.5, x, x, out); // the output given: written in place
  const host = await out.toTypedArray({ stream });
  for (let i = 0; i < n; i++) if (host[i] !== -0.5 * xs[i]! + xs[i]!) throw new Error(`float64 z[${i}] = ${host[i]}`);
}

// A fused expression: two outputs from one pass over the inputs.
const polar = new ElementwiseKernel("T re, T im", "T r, T theta", "r = sqrt(re * re + im * im); theta = atan2(im, re)", "to_polar");
{
  const m = 10_000;
  const re = Float64Array.from({ length: m }, (_, i) => Math.cos(i) * (i % 7));
  const im = Float64Array.from({ length: m }, (_, i) => Math.sin(i) * (i % 5));
  using dre = DeviceArray.from(re, { stream, shape: [100, 100] });
  using dim = DeviceArray.from(im, { stream, shape: [100, 100] });
  const [r, theta] = polar.launch(stream, dre, dim) as DeviceArray<"float64">[];
  const rh = await r!.toTypedArray({ stream });
  const th = await theta!.toTypedArray({ stream });
  for (let i = 0; i < m; i++) {
    if (Math.abs(rh[i]! - Math.hypot(re[i]!, im[i]!)) > 1e-12 * (1 + rh[i]!)) throw new Error(`r[${i}] = ${rh[i]}`);
    if (Math.abs(th[i]! - Math.atan2(im[i]!, re[i]!)) > 1e-12) throw new Error(`theta[${i}] = ${th[i]}`);
  }
  if (r!.shape.join() !== "100,100") throw new Error(`r has shape ${r!.shape}`);
  r!.close();
  theta!.close();
}

console.log(`elementwise: saxpy in float32 and float64 (${n} elements) and a fused two-output expression on ${dev.name} OK`);
