/**
 * Errors of the object layer. Driver failures are CUDAError (from the bindings); these cover what the object
 * layer checks itself before anything reaches the driver.
 *
 * @module
 */
export { CUDAError, NVRTCError, NVJitLinkError, NVVMError, FunctionNotFoundError } from "../bindings/errors.ts";

/** An object was used after `close()` (or after its parent was closed). */
export class ClosedError extends Error {
  constructor(what: string, action: string) {
    super(`${what} is closed: cannot ${action}. Create a new one (closed objects cannot be reopened).`);
    this.name = "ClosedError";
  }
}

/** A Device was used before `setCurrent()` made its context current (as in cuda.core). */
export class DeviceNotInitializedError extends Error {
  constructor(readonly deviceId: number) {
    super(`Device ${deviceId} is not yet initialized, perhaps you forgot to call .setCurrent() first?`);
    this.name = "DeviceNotInitializedError";
  }
}

/** Elapsed time between two events could not be measured. */
export class EventTimingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EventTimingError";
  }
}

/** A kernel argument does not fit the kernel's parameter (checked before launching). */
export class LaunchArgumentError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = "LaunchArgumentError";
  }
}

/** A launch configuration that cannot be launched (bad dimensions, cluster on an old GPU, too large a grid). */
export class LaunchConfigError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = "LaunchConfigError";
  }
}

/** `ObjectCode.getKernel` found no kernel of that name (the driver's NOT_FOUND is the `cause`). */
export class KernelNotFoundError extends Error {
  /** The name asked for. */
  readonly kernelName: string;
  /** The symbol looked up (the lowered name of a name expression, or the name itself). */
  readonly symbol: string;
  constructor(kernelName: string, symbol: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "KernelNotFoundError";
    this.kernelName = kernelName;
    this.symbol = symbol;
  }
}
