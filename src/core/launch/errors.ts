/**
 * The errors of launches: a kernel argument or a launch configuration refused before the driver sees it. Each is
 * re-exported by src/core/errors.ts, the root's one import path for errors.
 *
 * @module
 */
import { ArgumentError } from "../../errors/base.ts";

/** A kernel argument does not fit the kernel's parameter (checked before launching). */
export class LaunchArgumentError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "LaunchArgumentError";
  }
}

/** A launch configuration that cannot be launched (bad dimensions, cluster on an old GPU, too large a grid). */
export class LaunchConfigError extends ArgumentError {
  constructor(message: string) {
    super(message);
    this.name = "LaunchConfigError";
  }
}
