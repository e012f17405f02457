/**
 * jit_lto_fractal: link-time optimisation of user device code, as cuda_core's jit_lto_fractal: a fractal kernel
 * calls `escape_time(x, y, maxIter)`, which it does not define; two user programs define it (the Mandelbrot set and
 * a Julia set), each compiled to LTO-IR with NVRTC and linked with the kernel's LTO-IR by nvJitLink into a cubin,
 * where the call is inlined. Each image is checked against the same iteration on the CPU.
 *
 *   bun examples/jit_lto_fractal.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/jit_lto_fractal.ts
 */
import { Device, DeviceArray, LaunchConfig, Linker, Program, f32, i32, launch } from "../src/index.ts";

const kernelSource = `
extern "C" __device__ int escape_time(float x, float y, int maxIter);
extern "C" __global__ void fractal(unsigned char* image, int width, int height, float x0, float y0, float scale, int maxIter) {
  const int px = blockIdx.x * blockDim.x + threadIdx.x;
  const int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= width || py >= height) return;
  const int it = escape_time(x0 + px * scale, y0 + py * scale, maxIter);
  image[py * width + px] = (unsigned char)(it * 255 / maxIter);
}`;

const users: Record<string, { source: string; cpu: (x: number, y: number, maxIter: number) => number }> = {
  mandelbrot: {
    source: `extern "C" __device__ int escape_time(float cx, float cy, int maxIter) {
  float x = 0.0f, y = 0.0f; int i = 0;
  while (i < maxIter && x * x + y * y <= 4.0f) { float t = x * x - y * y + cx; y = 2.0f * x * y + cy; x = t; i++; }
  return i;
}`,
    cpu: (cx, cy, maxIter) => {
      const F = Math.fround;
      let x = 0, y = 0, i = 0;
      while (i < maxIter && F(F(x * x) + F(y * y)) <= 4) {
        const t = F(F(F(x * x) - F(y * y)) + cx);
        y = F(F(F(2 * x) * y) + cy);
        x = t;
        i++;
      }
      return i;
    },
  },
  julia: {
    source: `extern "C" __device__ int escape_time(float x, float y, int maxIter) {
  const float cr = -0.8f, ci = 0.156f; int i = 0;
  while (i < maxIter && x * x + y * y <= 4.0f) { float t = x * x - y * y + cr; y = 2.0f * x * y + ci; x = t; i++; }
  return i;
}`,
    cpu: (x, y, maxIter) => {
      const F = Math.fround;
      const cr = F(-0.8), ci = F(0.156);
      let i = 0;
      while (i < maxIter && F(F(x * x) + F(y * y)) <= 4) {
        const t = F(F(F(x * x) - F(y * y)) + cr);
        y = F(F(F(2 * x) * y) + ci);
        x = t;
        i++;
      }
      return i;
    },
  },
};

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const arch = `sm_${dev.arch}`;
// No multiply-add contraction, in the compile and in the link: the GPU then rounds every operation as the CPU's
// Math.fround does, and the images match the CPU's exactly (chaotic orbits near the set amplify any difference).
const options = { arch, relocatableDeviceCode: true, linkTimeOptimization: true, fma: false };
const kernelIr = new Program(kernelSource, "c++", options).compile("ltoir");

const width = 512;
const height = 384;
const maxIter = 200;
const scale = 3 / width;
const x0 = -2.1;
const y0 = -(height / 2) * scale;
const config = new LaunchConfig({ grid: [width / 16, height / 16], block: [16, 16] });
const summary: string[] = [];
for (const [name, user] of Object.entries(users)) {
  const userIr = new Program(user.source, "c++", options).compile("ltoir");
  using linker = new Linker(userIr, kernelIr, { arch, linkTimeOptimization: true, fma: false });
  const cubin = linker.link("cubin");
  using image = DeviceArray.zeros([height, width], "uint8", { stream });
  const [fx0, fy0] = name === "julia" ? [-1.6, -(height / 2) * scale] : [x0, y0];
  launch(stream, config, cubin.getKernel("fractal"), image, i32(width), i32(height), f32(fx0), f32(fy0), f32(scale), i32(maxIter));
  const pixels = await image.toTypedArray({ stream });
  // Without contraction the two should agree everywhere; allow 1% for a libdevice or link difference on the edge.
  let same = 0;
  let inside = 0;
  for (let py = 0; py < height; py++) {
    for (let px = 0; px < width; px++) {
      const x = Math.fround(Math.fround(fx0) + Math.fround(px * Math.fround(scale)));
      const y = Math.fround(Math.fround(fy0) + Math.fround(py * Math.fround(scale)));
      const want = Math.trunc((user.cpu(x, y, maxIter) * 255) / maxIter);
      if (pixels[py * width + px] === want) same++;
      if (pixels[py * width + px] === 255) inside++;
    }
  }
  const fraction = same / (width * height);
  if (fraction < 0.99) throw new Error(`${name}: only ${(fraction * 100).toFixed(2)}% of the pixels match the CPU`);
  if (inside === 0 || inside === width * height) throw new Error(`${name}: the image is flat (${inside} pixels inside)`);
  summary.push(`${name} ${(fraction * 100).toFixed(2)}% exact, ${inside} inside`);
}
console.log(`jit_lto_fractal: two user functions linked with nvJitLink LTO into one kernel (${summary.join("; ")}) on ${dev.name} OK`);
