/**
 * `ByValueArgument`: an object that `launch` passes to a kernel by value as an opaque struct of a fixed size (a
 * tensor map: the 128-byte `CUtensorMap`, taken by a `const __grid_constant__ CUtensorMap` parameter). Launch
 * checks the object's size against the kernel's parameter size (from `cuKernelGetParamInfo`) before anything
 * reaches the driver.
 *
 * The class lives here, below the objects that extend it, so that launch can recognise them without importing them.
 *
 * @module
 */

/** A struct passed to a kernel by value (a TensorMap). */
export abstract class ByValueArgument {
  /** @internal The struct's size in bytes (what the kernel's parameter must be). */
  abstract get argumentSize(): number;

  /**
   * @internal Writes the struct's bytes at `offset` (`argumentSize` bytes); throws ClosedError when the object (or
   * the memory it describes) was closed.
   */
  abstract writeValue(dv: DataView, offset: number): void;

  /** @internal A short description for error messages ("a 2D float32 TensorMap (tiled, box [64, 64])"). */
  abstract describeArgument(): string;
}
