/**
 * plasma_ppm: cuda_core's gl_interop_plasma without OpenGL: the same animated plasma (a sum of sine waves mapped
 * through a colour palette) computed by a kernel straight into a DeviceArray of RGB bytes, frame after frame, and
 * the last frame written as a PPM image (P6) instead of being shown in a GL window. A sample of pixels is checked
 * against the same formula on the CPU, and the file is read back.
 *
 *   bun examples/plasma_ppm.ts [out.ppm]
 *   deno run --allow-ffi --allow-env --allow-read --allow-write examples/plasma_ppm.ts [out.ppm]
 *
 * The image goes to the path given, or to plasma.ppm in the system's temporary directory.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { Device, DeviceArray, LaunchConfig, Program, launch } from "../src/index.ts";

const source = `
__device__ float plasma(float x, float y, float t) {
  const float dx = x - 160.0f + 80.0f * sinf(t * 0.5f), dy = y - 120.0f + 60.0f * cosf(t * 0.3f);
  return sinf(x * 0.031f + t) + sinf(y * 0.047f + t * 1.3f) + sinf((x + y) * 0.023f + t * 0.7f) + sinf(sqrtf(dx * dx + dy * dy) * 0.05f - t);
}
__global__ void renderPlasma(unsigned char* rgb, int width, int height, float t) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const float v = plasma((float)x, (float)y, t) * 0.25f; // in [-1, 1]
  const float pi = 3.14159265f;
  unsigned char* p = rgb + 3 * (y * width + x);
  p[0] = (unsigned char)(127.5f + 127.5f * sinf(pi * v));
  p[1] = (unsigned char)(127.5f + 127.5f * sinf(pi * v + 2.0f * pi / 3.0f));
  p[2] = (unsigned char)(127.5f + 127.5f * sinf(pi * v + 4.0f * pi / 3.0f));
}`;

const width = 320;
const height = 240;
const frames = 30;
const out = process.argv[2] ?? join(tmpdir(), "plasma.ppm");

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const kernel = new Program(source, "c++", { arch: `sm_${dev.arch}` }).compile("cubin", { nameExpressions: ["renderPlasma"] }).getKernel("renderPlasma");
using image = DeviceArray.zeros(width * height * 3, "uint8", { stream });
const config = new LaunchConfig({ grid: [width / 16, height / 16], block: [16, 16] });
const dt = 1 / 30;
for (let f = 0; f < frames; f++) launch(stream, config, kernel, image, width, height, f * dt);
const rgb = await image.toTypedArray({ stream });

// The CPU's plasma for the last frame, at every 97th pixel (float rounding may move a channel by one step).
const t = Math.fround((frames - 1) * dt);
const plasma = (x: number, y: number) => {
  const dx = x - 160 + 80 * Math.sin(t * 0.5);
  const dy = y - 120 + 60 * Math.cos(t * 0.3);
  return Math.sin(x * 0.031 + t) + Math.sin(y * 0.047 + t * 1.3) + Math.sin((x + y) * 0.023 + t * 0.7) + Math.sin(Math.sqrt(dx * dx + dy * dy) * 0.05 - t);
};
let worst = 0;
for (let i = 0; i < width * height; i += 97) {
  const v = plasma(i % width, Math.floor(i / width)) * 0.25;
  for (let c = 0; c < 3; c++) {
    const want = Math.floor(127.5 + 127.5 * Math.sin(Math.PI * v + (c * 2 * Math.PI) / 3));
    worst = Math.max(worst, Math.abs(rgb[3 * i + c]! - want));
  }
}
if (worst > 2) throw new Error(`plasma_ppm: a pixel differs from the CPU's plasma by ${worst} steps`);

const header = new TextEncoder().encode(`P6\n${width} ${height}\n255\n`);
const file = new Uint8Array(header.length + rgb.length);
file.set(header);
file.set(rgb, header.length);
writeFileSync(out, file);
const back = readFileSync(out);
if (back.length !== file.length || !new TextDecoder().decode(back.subarray(0, 2)).startsWith("P6")) throw new Error(`plasma_ppm: ${out} did not read back as written`);
console.log(`plasma_ppm: ${frames} frames of a ${width}x${height} plasma rendered into a DeviceArray, the last written to ${out} (${back.length} bytes) on ${dev.name}: OK`);
