/**
 * The error of CUDA arrays, textures and surfaces: one that cannot be made or copied as asked. It is re-exported by
 * src/core/errors.ts, the root's one import path for errors.
 *
 * @module
 */
import { ArgumentError } from "../../errors/base.ts";

/**
 * A CUDA array, mipmapped array, texture or surface that cannot be made or copied as asked: a bad extent or
 * channel count, a format without a dtype, a copy whose size does not match the array, a texture option that is
 * not one of the choices. Checked before the driver sees it.
 */
export class TextureError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "TextureError";
  }
}
