/**
 * simple_cubemap_texture: a port of the CUDA sample (cuda_bindings' simpleCubemapTexture): a float cubemap CUDA
 * array (six width × width faces) is filled from the host and read through a texture object with normalised
 * coordinates and linear filtering: for every texel of every face the kernel computes the direction through its
 * centre, samples the cubemap there (`texCubemap`) and writes the negated value. The result must be the negated
 * input, face by face.
 *
 *   bun examples/simple_cubemap_texture.ts
 *   deno run --allow-ffi --allow-env --allow-read examples/simple_cubemap_texture.ts
 */
import { Device, DeviceArray, LaunchConfig, Program, i32, launch } from "../src/index.ts";
import { CudaArray, TextureObject } from "../src/texture.ts";

const source = `
extern "C" __global__ void transformKernel(float* g_odata, int width, cudaTextureObject_t tex) {
  const unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= width) return;
  const float u = ((x + 0.5f) / (float)width) * 2.f - 1.f;
  const float v = ((y + 0.5f) / (float)width) * 2.f - 1.f;
  float cx, cy, cz;
  for (unsigned int face = 0; face < 6; face++) {
    if (face == 0) { cx = 1; cy = -v; cz = -u; }        // +x
    else if (face == 1) { cx = -1; cy = -v; cz = u; }   // -x
    else if (face == 2) { cx = u; cy = 1; cz = v; }     // +y
    else if (face == 3) { cx = u; cy = -1; cz = -v; }   // -y
    else if (face == 4) { cx = u; cy = -v; cz = 1; }    // +z
    else { cx = -u; cy = -v; cz = -1; }                 // -z
    g_odata[face * width * width + y * width + x] = -texCubemap<float>(tex, cx, cy, cz);
  }
}`;

const dev = new Device(0);
dev.setCurrent();
using stream = dev.createStream();
const kernel = new Program(source, "c++", { arch: `sm_${dev.arch}`, std: "c++17" }).compile("cubin").getKernel("transformKernel");

const width = 64;
const faces = 6;
const data = Float32Array.from({ length: width * width * faces }, (_, i) => i);
using cubemap = CudaArray.create({ dtype: "float32", width, cubemap: true });
cubemap.copyFrom(data, { stream });
using tex = TextureObject.create(cubemap, { normalizedCoordinates: true, filterMode: "linear", addressMode: "wrap" });
using out = DeviceArray.zeros([faces, width, width], "float32", { stream });
launch(stream, new LaunchConfig({ grid: [width / 8, width / 8], block: [8, 8] }), kernel, out, i32(width), tex);
const got = await out.toTypedArray({ stream });

let worst = 0;
for (let i = 0; i < data.length; i++) worst = Math.max(worst, Math.abs(got[i]! + data[i]!));
if (worst > 1e-3) throw new Error(`simple_cubemap_texture: the result differs from the negated input by up to ${worst}`);
console.log(`simple_cubemap_texture: a ${width} × ${width} float cubemap (${faces} faces) sampled at every texel centre and negated on ${dev.name} OK`);
