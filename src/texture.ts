/**
 * `cuda-ts/texture`: CUDA arrays (1-3D, layered, mipmapped) and the texture and surface objects that kernels read
 * and write them through.
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export {
  CudaArray,
  MipmappedArray,
  type ArrayDType,
  type ArrayChannels,
  type ArrayExtent,
  type ArrayCopyPeer,
  type ArrayCopyOptions,
  type CudaArrayOptions,
  type MipmappedArrayOptions,
} from "./core/texture/array.ts";
export {
  TextureObject,
  SurfaceObject,
  type AddressMode,
  type FilterMode,
  type ReadMode,
  type TextureObjectOptions,
  type TextureResource,
  type LinearResource,
  type Pitch2DResource,
} from "./core/texture/texture.ts";
