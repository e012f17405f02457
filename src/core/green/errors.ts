/**
 * The error of green contexts: a partition that cannot be made. It is re-exported by src/core/errors.ts, the root's one
 * import path for errors.
 *
 * @module
 */
import { ArgumentError } from "../../errors/base.ts";

/** A green-context partition that cannot be made: more SMs asked for than the device (or the resource) has, a bad group count. */
export class GreenContextError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "GreenContextError";
  }
}
