/**
 * `PointerArgument`: what `launch` accepts as a typed device pointer besides a Buffer. A DeviceArray is one: it
 * passes the address of its first element, and launch checks its element type against the parameter's pointee type
 * where the kernel knows it (declared with `kernel.declare({ pointer: "f32" })`, or from a C++ kernel's mangled
 * name) before anything reaches the driver.
 *
 * The class lives here, below the arrays, so that launch can recognise arrays without importing them; so do the
 * symbol keys of its members (no entry point re-exports them).
 *
 * @module
 */
import type { ScalarKind } from "./mangling.ts";

/** The key of the scalar kind of one element (what the parameter's pointee must be), for launch's check. */
export const kElementKind: unique symbol = Symbol("elementKind");
/**
 * The key of the method that writes the device address of the first element at `offset` (little-endian, 8 bytes);
 * it throws ClosedError when the memory was closed.
 */
export const kWriteAddress: unique symbol = Symbol("writeAddress");
/** The key of a short description for error messages ("a float32 DeviceArray of shape [4, 4]"). */
export const kDescribeArgument: unique symbol = Symbol("describeArgument");

/**
 * A typed device pointer argument (a DeviceArray). Only cuda-ts's own classes extend it: launch reads it through
 * keys this module keeps to cuda-ts.
 */
export abstract class PointerArgument {
  abstract get [kElementKind](): ScalarKind;
  abstract [kWriteAddress](dv: DataView, offset: number): void;
  abstract [kDescribeArgument](): string;
}
