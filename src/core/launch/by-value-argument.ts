/**
 * `ByValueArgument`: an object that `launch` passes to a kernel by value as an opaque struct of a fixed size (a
 * tensor map: the 128-byte `CUtensorMap`, taken by a `const __grid_constant__ CUtensorMap` parameter; an array
 * view: the `cuda_ts::Array<T, N>` record of cuda_ts/array.h). Launch
 * checks the object's size against the kernel's parameter size (from `cuKernelGetParamInfo`) before anything
 * reaches the driver.
 *
 * The class lives here, below the objects that extend it, so that launch can recognise them without importing them;
 * so do the symbol keys of its members (no entry point re-exports them).
 *
 * @module
 */
import { kDescribeArgument } from "./pointer-argument.ts";
import type { ParamType } from "./mangling.ts";

export { kDescribeArgument };

/** The key of the struct's size in bytes (what the kernel's parameter must be). */
export const kArgumentSize: unique symbol = Symbol("argumentSize");
/**
 * The key of the method that writes the struct's bytes at `offset` (`[kArgumentSize]` bytes); it throws ClosedError
 * when the object (or the memory it describes) was closed.
 */
export const kWriteValue: unique symbol = Symbol("writeValue");

/**
 * The key of an optional check of the parameter: given its size in bytes and its type where the kernel knows it
 * (a C++ kernel's mangled name, or `kernel.declare`), it returns what is wrong (launch throws LaunchArgumentError
 * with it) or undefined. An argument without it gets the size check alone.
 */
export const kCheckParameter: unique symbol = Symbol("checkParameter");

/**
 * A struct passed to a kernel by value (a TensorMap, a TextureObject). Only cuda-ts's own classes extend it: launch
 * reads it through keys this module keeps to cuda-ts.
 */
export abstract class ByValueArgument {
  abstract get [kArgumentSize](): number;
  abstract [kWriteValue](dv: DataView, offset: number): void;
  abstract [kDescribeArgument](): string;
  [kCheckParameter]?(size: number, type: ParamType | undefined): string | undefined;
}
