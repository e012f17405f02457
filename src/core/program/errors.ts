/**
 * The errors of programs, linking and object code: no arch to compile for, no nvJitLink, a kernel or a file that is not
 * there. Each is re-exported by src/core/errors.ts, the root's one import path for errors.
 *
 * @module
 */
import { ArgumentError, NotFoundError, UnsupportedError, quietFields } from "../../errors/base.ts";
import { briefError } from "../../errors/describe.ts";

/** No `arch` was given and there is no device to take it from. */
export class MissingArchError extends ArgumentError {
  constructor(owner: string, cause: unknown) {
    const why = briefError(cause);
    super(
      `${owner}: no arch was given, and the default (the current device's, sm_<cc>) needs a CUDA driver and a GPU, ` +
        `which are not available here (${why}). Pass an explicit arch, such as { arch: "sm_90" }.`,
    );
    this.name = "MissingArchError";
    this.cause = cause;
    quietFields(this);
  }
}

/** A link needs nvJitLink (LTO-IR, link-time optimisation, PTX output) and no usable nvJitLink is installed. */
export class LinkerUnavailableError extends UnsupportedError {
  constructor(message: string) {
    super(message);
    this.name = "LinkerUnavailableError";
  }
}

/** `ObjectCode.getKernel` found no kernel of that name (the driver's NOT_FOUND is the `cause`). */
export class KernelNotFoundError extends NotFoundError {
  /** The name asked for. */
  readonly kernelName: string;
  /** The symbol looked up (the lowered name of a name expression, or the name itself). */
  readonly symbol: string;
  constructor(kernelName: string, symbol: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "KernelNotFoundError";
    this.kernelName = kernelName;
    this.symbol = symbol;
    quietFields(this);
  }
}

/** A file the object layer reads (a cubin, PTX, libdevice) does not exist or may not be read. */
export class HostFileError extends NotFoundError {
  /** The file. */
  readonly path: string;
  constructor(path: string, message: string) {
    super(message);
    this.name = "HostFileError";
    this.path = path;
    quietFields(this);
  }
}
