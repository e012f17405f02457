/**
 * texture_sample: a 2D CUDA array bound to texture objects, as cuda_core's example: the array is filled from the
 * host, then read by a kernel through a texture with point sampling (each texel exactly) and with linear filtering
 * (half-way between neighbours: their mean), with clamped and bordered edges; a surface object writes a second
 * array from the kernel, which is copied back to the host. Every value is checked against the CPU.
 *
 *   bun examples/texture_sample.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/texture_sample.ts
 */
import { Device, DeviceArray, LaunchConfig, Program, f32, i32, launch } from "../src/index.ts";
import { CudaArray, SurfaceObject, TextureObject } from "../src/texture.ts";

const source = `
extern "C" __global__ void sample(cudaTextureObject_t tex, float* out, int w, int h, float dx, float dy) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(tex, x + dx, y + dy);
}
extern "C" __global__ void write_surface(cudaSurfaceObject_t surf, int w, int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) surf2Dwrite(float(x * y), surf, x * (int)sizeof(float), y);
}`;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const code = new Program(source, "c++", { arch: `sm_${dev.arch}`, std: "c++17" }).compile("cubin");
const sample = code.getKernel("sample");
const writeSurface = code.getKernel("write_surface");

const w = 64;
const h = 48;
const texel = (x: number, y: number): number => x + 100 * y;
const host = Float32Array.from({ length: w * h }, (_, i) => texel(i % w, Math.floor(i / w)));
using array = CudaArray.create({ dtype: "float32", width: w, height: h, surfaceLoadStore: true });
array.copyFrom(host, { stream });
using out = DeviceArray.zeros([h, w], "float32", { stream });
const config = new LaunchConfig({ grid: [Math.ceil(w / 16), Math.ceil(h / 16)], block: [16, 16] });
const clamp = (v: number, hi: number): number => Math.min(Math.max(v, 0), hi);

// Point sampling at texel centres: every texel exactly.
{
  using tex = TextureObject.create(array, { filterMode: "point", addressMode: "clamp" });
  launch(stream, config, sample, tex, out, i32(w), i32(h), f32(0.5), f32(0.5));
  const got = await out.toTypedArray({ stream });
  for (let i = 0; i < w * h; i++) if (got[i] !== host[i]) throw new Error(`point: texel ${i} read ${got[i]}, expected ${host[i]}`);
}

// Linear filtering half-way between a texel and its right neighbour (clamped at the right edge): their mean.
{
  using tex = TextureObject.create(array, { filterMode: "linear", addressMode: "clamp" });
  launch(stream, config, sample, tex, out, i32(w), i32(h), f32(1), f32(0.5));
  const got = await out.toTypedArray({ stream });
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const want = (texel(x, y) + texel(clamp(x + 1, w - 1), y)) / 2;
      if (Math.abs(got[y * w + x]! - want) > 1e-2 * Math.max(1, Math.abs(want))) throw new Error(`linear: (${x}, ${y}) read ${got[y * w + x]}, expected ${want}`);
    }
  }
}

// Border addressing: one row below the texture reads the border colour.
{
  using tex = TextureObject.create(array, { filterMode: "point", addressMode: "border", borderColor: [-1, -1, -1, -1] });
  launch(stream, config, sample, tex, out, i32(w), i32(h), f32(0.5), f32(1.5));
  const got = await out.toTypedArray({ stream });
  for (let x = 0; x < w; x++) {
    if (got[(h - 1) * w + x] !== -1) throw new Error(`border: (${x}, ${h - 1}) read ${got[(h - 1) * w + x]}, expected the border colour -1`);
    if (got[x] !== texel(x, 1)) throw new Error(`border: (${x}, 0) read ${got[x]}, expected ${texel(x, 1)}`);
  }
}

// A surface writes the array from the kernel; copied back to the host.
{
  using surf = SurfaceObject.create(array);
  launch(stream, config, writeSurface, surf, i32(w), i32(h));
  const back = new Float32Array(w * h);
  array.copyTo(back, { stream });
  for (let i = 0; i < w * h; i++) if (back[i] !== (i % w) * Math.floor(i / w)) throw new Error(`surface: element ${i} is ${back[i]}, expected ${(i % w) * Math.floor(i / w)}`);
}

console.log(`texture_sample: a ${w} × ${h} float32 CUDA array read through point, linear and border textures and written through a surface on ${dev.name} OK`);
