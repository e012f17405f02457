/**
 * `PointerArgument`: what `launch` accepts as a typed device pointer besides a Buffer. A DeviceArray is one: it
 * passes the address of its first element, and launch checks its element type against the parameter's pointee type
 * where the kernel knows it (declared with `kernel.declare({ pointer: "f32" })`, or from a C++ kernel's mangled
 * name) before anything reaches the driver.
 *
 * The class lives here, below the arrays, so that launch can recognise arrays without importing them.
 *
 * @module
 */
import type { ScalarKind } from "./mangling.ts";

/** A typed device pointer argument (a DeviceArray). */
export abstract class PointerArgument {
  /**
   * @internal The scalar kind of one element (what the parameter's pointee must be), for launch's check.
   */
  abstract get elementKind(): ScalarKind;

  /**
   * @internal Writes the device address of the first element at `offset` (little-endian, 8 bytes); throws
   * ClosedError when the memory was closed.
   */
  abstract writeAddress(dv: DataView, offset: number): void;

  /** @internal A short description for error messages ("a float32 DeviceArray of shape [4, 4]"). */
  abstract describeArgument(): string;
}
