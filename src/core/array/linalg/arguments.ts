/**
 * The argument checks the linear-algebra functions share, made before anything is queued: an operand is an open
 * DeviceArray, options are a plain object, a flag is a boolean.
 *
 * @module
 * @internal
 */
import { DeviceArray } from "../device-array.ts";
import { ClosedError } from "../../base/errors.ts";
import { describeValue } from "../../../errors/describe.ts";

/** A shape as the messages print it: `[2, 3]`. */
export const showShape = (shape: readonly number[]): string => `[${shape.join(", ")}]`;

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
