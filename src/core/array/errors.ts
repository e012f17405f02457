/**
 * The errors of arrays: shapes, dtypes and layouts that do not allow what was asked. Each is re-exported by
 * src/core/errors.ts, the root's one import path for errors.
 *
 * @module
 */
import { ArgumentError, type DeviceMismatchError } from "../../errors/base.ts";

/**
 * Arrays whose shapes disagree (an elementwise kernel's operands, a copy's source and destination), or a shape that
 * is not a shape (negative or fractional extents, a reshape to another element count). The message names the arrays.
 */
export class ShapeMismatchError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "ShapeMismatchError";
  }
}

/**
 * A dtype that is not one of the array dtypes, or an array whose dtype is not the one asked for (a copy between
 * dtypes, a typed array of the wrong kind, a kernel's placeholder bound to two dtypes).
 */
export class DTypeError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "DTypeError";
  }
}

/**
 * An array's layout does not allow what was asked: a view reaching outside its buffer, a non-contiguous array where a
 * contiguous one is needed, a reshape or dtype view the strides do not allow. (Arrays on different devices are a
 * {@link DeviceMismatchError}.)
 */
export class ArrayLayoutError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "ArrayLayoutError";
  }
}

/**
 * Shapes that do not broadcast together under NumPy's rules (aligned at their last axis, each pair of extents equal or
 * one of them 1), or an output whose shape is not the one its inputs broadcast to. A {@link ShapeMismatchError}: the
 * message names both shapes and the axis where they disagree.
 */
export class BroadcastError extends ShapeMismatchError {
  constructor(message: string) {
    super(message);
    this.name = "BroadcastError";
  }
}

/** An axis outside an array's axes (a reduction's `axis`: from -ndim to ndim - 1), or one named twice. */
export class AxisError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "AxisError";
  }
}

/**
 * An index outside the axis it indexes (`take`, `put`, integer indexing): found on the host for indices given as
 * numbers, on the device for index arrays (nothing is read or written outside the array; the error is thrown when
 * the call's stream next synchronises with a read, `toTypedArray` or `item`). Pass indices in range, or
 * `{ mode: "wrap" }` / `{ mode: "clip" }`.
 */
export class IndexError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "IndexError";
  }
}
