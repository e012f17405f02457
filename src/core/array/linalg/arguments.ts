/**
 * The argument checks the linear-algebra functions share, made before anything is queued: an operand is an open
 * DeviceArray, options are a plain object, a flag is a boolean, a stack of matrices has two axes, operands share a
 * device (and the call's stream).
 *
 * @module
 * @internal
 */
import { DeviceArray, operationStream, type ArrayOperationOptions } from "../device-array.ts";
import { ShapeMismatchError } from "../errors.ts";
import { showShape } from "../broadcast.ts";
import { checkOneDevice } from "../ops/elementwise.ts";
import type { Stream } from "../../stream.ts";
import { ClosedError } from "../../base/errors.ts";
import { describeValue } from "../../../errors/describe.ts";

/** `a`, checked to be an open DeviceArray: TypeError naming `name` of `action` otherwise, ClosedError once closed. */
export function checkOperand(a: unknown, name: string, action: string): DeviceArray {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${action}: ${name} is a DeviceArray, not ${describeValue(a)}`);
  if (a.isClosed) throw new ClosedError(`${action}: ${name} (${a.dtype.name} ${showShape(a.shape)})`, "compute with it");
  return a;
}

/** `options` as a record to read (empty when left out): TypeError listing `keys` for anything but a plain object. */
export function checkOptions(options: unknown, action: string, keys: string): Record<string, unknown> {
  if (options === undefined) return {};
  if (options === null || typeof options !== "object" || Array.isArray(options)) throw new TypeError(`${action} takes options { ${keys} }, got ${describeValue(options)}`);
  return options as Record<string, unknown>;
}

/** The boolean option `name`, `fallback` when left out: TypeError for anything but a boolean. */
export function checkFlag(value: unknown, name: string, fallback: boolean, action: string): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw new TypeError(`${action}: ${name} is a boolean, got ${describeValue(value)}`);
  return value;
}

/** The batch shape and the last two extents of a stack of matrices `name`: ShapeMismatchError for fewer than 2 axes, or not square when `square`. */
export function matrices(a: DeviceArray, name: string, action: string, square: boolean): { batch: number[]; m: number; n: number } {
  if (a.ndim < 2) throw new ShapeMismatchError(`${action}: ${name} must be a matrix or a stack of them ([..., m, n]), not shape ${showShape(a.shape)}`);
  const m = a.shape[a.ndim - 2]!;
  const n = a.shape[a.ndim - 1]!;
  if (square && m !== n) throw new ShapeMismatchError(`${action}: ${name} must be square ([..., n, n]), not shape ${showShape(a.shape)}`);
  return { batch: a.shape.slice(0, -2) as number[], m, n };
}

/** The stream of a call on `operands` (named `names`) and `out`, after checking that they are on one device. */
export function callStream(action: string, options: ArrayOperationOptions | undefined, operands: readonly DeviceArray[], names: readonly string[], out?: DeviceArray): Stream {
  checkOneDevice(action, [...operands.map((a, k) => [names[k]!, a] as const), ["out", out] as const]);
  return operationStream(action, options, out === undefined ? operands : [...operands, out]);
}
