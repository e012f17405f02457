/**
 * The errors of `Blas` and `BlasLt` that the rest of the object layer has no class for. Shapes, dtypes, layouts and
 * closed objects use the layer's own (ShapeMismatchError, DTypeError, ArrayLayoutError, ClosedError); a failed
 * cuBLAS call is the bindings' CUBLASError.
 *
 * @module
 */

/**
 * A stream or an array on another device than the handle's: a cuBLAS handle belongs to the device it was created
 * on. The message names both devices and what to do (create a `Blas` per device, or copy the array across).
 */
export class BlasDeviceError extends Error {
  /** The handle's device. */
  readonly expected: number;
  /** The device that came. */
  readonly got: number;
  constructor(what: string, expected: number, got: number, todo: string) {
    super(`${what} is on device ${got}, but this handle belongs to device ${expected}; ${todo}`);
    this.name = "BlasDeviceError";
    this.expected = expected;
    this.got = got;
  }
}
