/**
 * The error of tensor maps: one that cannot be encoded. It is re-exported by src/core/errors.ts, the root's one import
 * path for errors.
 *
 * @module
 */
import { ArgumentError } from "../../errors/base.ts";

/**
 * A tensor map that cannot be encoded: a rank outside 1..5, a box that does not fit (an extent over 256, a box
 * larger than the tensor, an inner box row that is not a multiple of 16 bytes or wider than the swizzle), an address
 * or stride not aligned to 16 bytes, an unsupported dtype, or an option name that is not one of the choices.
 * Checked before the driver sees it.
 */
export class TensorMapError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "TensorMapError";
  }
}
