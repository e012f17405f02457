/**
 * CUDA arrays, textures and surfaces without a GPU: the descriptors built from options (formats, flags, layered and
 * cubemap extents, texture flags and modes), and every refusal that comes before the driver as a typed error.
 */
import { describe, expect, it } from "vitest";
import { Buffer, ClosedError, DeviceArray, TextureError } from "../../../src/index.ts";
import { TextureObject, SurfaceObject } from "../../../src/texture.ts";
import { arrayDescriptor } from "../../../src/core/texture/array.ts";
import { resourceDescriptor, textureDescriptor } from "../../../src/core/texture/texture.ts";
import {
  CUDA_ARRAY3D_CUBEMAP,
  CUDA_ARRAY3D_LAYERED,
  CUDA_ARRAY3D_SURFACE_LDST,
  CU_TRSF_NORMALIZED_COORDINATES,
  CU_TRSF_READ_AS_INTEGER,
  CU_TRSF_SRGB,
  CUarray_format,
  CUaddress_mode,
  CUfilter_mode,
} from "../../../src/bindings/driver.ts";

function refusal(fn: () => unknown): TextureError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(TextureError);
    return e as TextureError;
  }
  throw new Error("expected TextureError, nothing was thrown");
}

describe("CUDA array descriptors", () => {
  it("a 2D float32 RGBA array with surface load/store", () => {
    const { desc, channels, extent } = arrayDescriptor({ dtype: "float32", channels: 4, width: 64, height: 32, surfaceLoadStore: true }, "t");
    expect([Number(desc.Width), Number(desc.Height), Number(desc.Depth)]).toEqual([64, 32, 0]);
    expect(desc.Format).toBe(CUarray_format.CU_AD_FORMAT_FLOAT);
    expect(desc.NumChannels).toBe(4);
    expect(desc.Flags).toBe(CUDA_ARRAY3D_SURFACE_LDST);
    expect(channels).toBe(4);
    expect(extent).toEqual({ width: 64, height: 32, depth: 0, layered: false, cubemap: false });
  });
  it("layered and cubemap arrays put layers and faces in the depth", () => {
    const l1 = arrayDescriptor({ dtype: "uint8", width: 16, layers: 3 }, "t");
    expect([Number(l1.desc.Height), Number(l1.desc.Depth), l1.desc.Flags]).toEqual([0, 3, CUDA_ARRAY3D_LAYERED]);
    const cube = arrayDescriptor({ dtype: "float16", width: 8, cubemap: true }, "t");
    expect([Number(cube.desc.Width), Number(cube.desc.Height), Number(cube.desc.Depth), cube.desc.Flags]).toEqual([8, 8, 6, CUDA_ARRAY3D_CUBEMAP]);
    expect(cube.desc.Format).toBe(CUarray_format.CU_AD_FORMAT_HALF);
    const cubes = arrayDescriptor({ dtype: "int16", width: 8, cubemap: true, layers: 2 }, "t");
    expect([Number(cubes.desc.Depth), cubes.desc.Flags]).toEqual([12, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED]);
  });
  it("refuses bad dtypes, channels, extents and combinations", () => {
    expect(refusal(() => arrayDescriptor({ dtype: "float64" as never, width: 4 }, "CudaArray.create")).message).toMatch(/channel dtype must be one of "uint8", "int8".*not "float64"/);
    expect(refusal(() => arrayDescriptor({ dtype: "float32", channels: 3 as never, width: 4 }, "t")).message).toMatch(/channels must be 1, 2 or 4, not 3/);
    expect(refusal(() => arrayDescriptor({ dtype: "float32", width: 0 }, "t")).message).toMatch(/width must be an integer ≥ 1/);
    expect(refusal(() => arrayDescriptor({ dtype: "float32", width: 4, depth: 4 }, "t")).message).toMatch(/a 3D array needs a height/);
    expect(refusal(() => arrayDescriptor({ dtype: "float32", width: 4, height: 4, depth: 2, layers: 2 }, "t")).message).toMatch(/layers instead of a depth/);
    expect(refusal(() => arrayDescriptor({ dtype: "float32", width: 4, height: 8, cubemap: true }, "t")).message).toMatch(/faces are square/);
    expect(refusal(() => arrayDescriptor({ dtype: "float32", width: 4, textureGather: true }, "t")).message).toMatch(/texture gather needs a 2D array/);
  });
});

describe("texture descriptors", () => {
  it("maps modes and flags by name", () => {
    const d = textureDescriptor({ addressMode: ["wrap", "border"], filterMode: "linear", normalizedCoordinates: true, sRGB: true, maxAnisotropy: 4, borderColor: [1, 0, 0, 1] }, false);
    expect([...d.addressMode]).toEqual([CUaddress_mode.CU_TR_ADDRESS_MODE_WRAP, CUaddress_mode.CU_TR_ADDRESS_MODE_BORDER, CUaddress_mode.CU_TR_ADDRESS_MODE_BORDER]);
    expect(d.filterMode).toBe(CUfilter_mode.CU_TR_FILTER_MODE_LINEAR);
    expect(d.flags).toBe(CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_SRGB);
    expect(d.maxAnisotropy).toBe(4);
    expect([...d.borderColor]).toEqual([1, 0, 0, 1]);
    expect(textureDescriptor({}, true).flags).toBe(CU_TRSF_READ_AS_INTEGER);
    expect(textureDescriptor({ readMode: "normalized-float", filterMode: "linear" }, true).flags).toBe(0);
  });
  it("refuses unknown names, wrap without normalised coordinates, and linear filtering of integers", () => {
    expect(refusal(() => textureDescriptor({ filterMode: "cubic" as never }, false)).message).toMatch(/filterMode must be one of "point", "linear", not "cubic"/);
    expect(refusal(() => textureDescriptor({ addressMode: "wrap" }, false)).message).toMatch(/need normalizedCoordinates: true/);
    expect(refusal(() => textureDescriptor({ filterMode: "linear" }, true)).message).toMatch(/integer texels read as their own type cannot be filtered/);
    expect(refusal(() => textureDescriptor({ maxAnisotropy: 32 }, false)).message).toMatch(/maxAnisotropy must be an integer 0\.\.16/);
    expect(refusal(() => textureDescriptor({ borderColor: [1, 2] as never }, false)).message).toMatch(/borderColor must be 4 finite numbers/);
  });
});

describe("texture resources", () => {
  const buffer = (): Buffer => Buffer.fromHandle(0x7f00_0000_0000n, 1 << 20, { owner: {} });
  it("refuses a closed DeviceArray with ClosedError, and things that are not resources", () => {
    const a = DeviceArray.fromBuffer(buffer(), { dtype: "float32", shape: [256] });
    a.close();
    expect(() => TextureObject.create({ linear: a })).toThrow(ClosedError);
    expect(refusal(() => resourceDescriptor({} as never, "TextureObject")).message).toMatch(/takes a CudaArray, a MipmappedArray, \{ linear: deviceArray \} or \{ pitch2D: deviceArray \}/);
    expect(refusal(() => SurfaceObject.create({} as never)).message).toMatch(/SurfaceObject takes a CudaArray/);
  });
  it("refuses a dtype a texture cannot read", () => {
    const a = DeviceArray.fromBuffer(buffer(), { dtype: "float64", shape: [256] });
    expect(refusal(() => TextureObject.create({ linear: a })).message).toMatch(/channel dtype must be one of/);
  });
});
