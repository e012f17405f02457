/**
 * The errors every subject throws: an object used after `close()`, a Device not yet set current, no current context, a
 * path others could have written. Each is re-exported by src/core/errors.ts, the root's one import path for errors.
 *
 * @module
 */
import { ArgumentError, InvalidStateError, quietFields } from "../../errors/base.ts";

/** An object was used after `close()` (or after its parent was closed). */
export class ClosedError extends InvalidStateError {
  constructor(what: string, action: string) {
    super(`${what} is closed: cannot ${action}. Create a new one (closed objects cannot be reopened).`);
    this.name = "ClosedError";
  }
}

/** A Device was used before `setCurrent()` made its context current (as in cuda.core). */
export class DeviceNotInitializedError extends InvalidStateError {
  constructor(readonly deviceId: number) {
    super(`Device ${deviceId} is not yet initialized, perhaps you forgot to call .setCurrent() first?`);
    this.name = "DeviceNotInitializedError";
    quietFields(this);
  }
}

/** A call needs a CUDA context and none is current (or none is known yet): the message says which call to make. */
export class NoContextError extends InvalidStateError {
  constructor(message: string) {
    super(message);
    this.name = "NoContextError";
  }
}

/**
 * A directory or file that others could have written was refused (like ssh refuses a key file others can write):
 * it is owned by another user, or writable by its group or by everyone, or is not the kind of file expected. The
 * message names the path and the fix.
 */
export class InsecurePathError extends ArgumentError {
  /** The path refused. */
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.name = "InsecurePathError";
    this.path = path;
    quietFields(this);
  }
}
