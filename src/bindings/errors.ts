/**
 * Typed errors of the bindings. Every library's failure is a {@link LibraryError} carrying its status code, the
 * code's name, a message from the library, and the function that failed; the bindings' other refusals (a bad
 * argument, a function the loaded library lacks) sit under the subject bases of src/errors/base.ts.
 *
 * @module
 */
import { ArgumentError, CudaTsError, InternalError, InvalidStateError, LibraryError, NotFoundError, quietFields } from "../errors/base.ts";

export { LibraryError, type LibraryErrorOptions } from "../errors/base.ts";

/**
 * A CUDA driver API call failed (CUresult ≠ CUDA_SUCCESS); {@link CudaRuntimeError} is the runtime API's. `codeName`
 * says what (`CUDA_ERROR_OUT_OF_MEMORY`, `CUDA_ERROR_ILLEGAL_ADDRESS`, ...); an error of the work on a stream
 * (an illegal address, a failed launch) usually leaves the context unusable: restart the process.
 */
export class CudaError extends LibraryError {
  /** @param library - `"driver"`, or `"runtime"` for {@link CudaRuntimeError}. */
  constructor(code: number, codeName: string, description: string, functionName: string, library: "driver" | "runtime" = "driver") {
    super(library, code, codeName, description, functionName);
    this.name = "CudaError";
  }
}

/** A CUDA runtime API call failed (cudaError_t ≠ cudaSuccess). */
export class CudaRuntimeError extends CudaError {
  constructor(code: number, codeName: string, description: string, functionName: string) {
    super(code, codeName, description, functionName, "runtime");
    this.name = "CudaRuntimeError";
  }
}

/** An NVRTC call failed. For a failed compilation, `log` holds the compiler's log. */
export class NVRTCError extends LibraryError {
  /** The program log, when the failure was a compilation and the log could be read. */
  readonly log: string | undefined;
  constructor(code: number, codeName: string, description: string, functionName: string, log?: string) {
    super("nvrtc", code, codeName, log ? `${description}\n${log.trimEnd()}` : description, functionName);
    this.name = "NVRTCError";
    this.log = log;
    quietFields(this);
  }
}

/** An nvJitLink call failed. For a failed link, `log` holds the linker's error log. */
export class NVJitLinkError extends LibraryError {
  /** The linker's error log, when it could be read. */
  readonly log: string | undefined;
  constructor(code: number, codeName: string, description: string, functionName: string, log?: string) {
    super("nvjitlink", code, codeName, log ? `${description}\n${log.trimEnd()}` : description, functionName);
    this.name = "NVJitLinkError";
    this.log = log;
    quietFields(this);
  }
}

/** A libNVVM call failed. For a failed compilation or verification, `log` holds the program log. */
export class NVVMError extends LibraryError {
  /** The program log, when it could be read. */
  readonly log: string | undefined;
  constructor(code: number, codeName: string, description: string, functionName: string, log?: string) {
    super("nvvm", code, codeName, log ? `${description}\n${log.trimEnd()}` : description, functionName);
    this.name = "NVVMError";
    this.log = log;
    quietFields(this);
  }
}

/** An NVML call failed. */
export class NVMLError extends LibraryError {
  constructor(code: number, codeName: string, description: string, functionName: string) {
    super("nvml", code, codeName, description, functionName);
    this.name = "NVMLError";
  }
}

/** A cuFile call failed. */
export class CuFileError extends LibraryError {
  constructor(code: number, codeName: string, description: string, functionName: string) {
    super("cufile", code, codeName, description, functionName);
    this.name = "CuFileError";
  }
}

/** An nvFatbin call failed. */
export class NvFatbinError extends LibraryError {
  constructor(code: number, codeName: string, description: string, functionName: string) {
    super("nvfatbin", code, codeName, description, functionName);
    this.name = "NvFatbinError";
  }
}

/** A cuBLAS or cuBLASLt call failed (`library` says which). */
export class CUBLASError extends LibraryError {
  constructor(library: string, code: number, codeName: string, description: string, functionName: string) {
    super(library, code, codeName, description, functionName);
    this.name = "CUBLASError";
  }
}

/** A cuRAND call failed. */
export class CURANDError extends LibraryError {
  constructor(library: string, code: number, codeName: string, description: string, functionName: string) {
    super(library, code, codeName, description, functionName);
    this.name = "CURANDError";
  }
}

/** A cuFFT call failed. */
export class CUFFTError extends LibraryError {
  constructor(library: string, code: number, codeName: string, description: string, functionName: string) {
    super(library, code, codeName, description, functionName);
    this.name = "CUFFTError";
  }
}

/** A cuSOLVER call failed. */
export class CUSOLVERError extends LibraryError {
  constructor(library: string, code: number, codeName: string, description: string, functionName: string) {
    super(library, code, codeName, description, functionName);
    this.name = "CUSOLVERError";
  }
}

/** A cuSPARSE call failed. */
export class CUSPARSEError extends LibraryError {
  constructor(library: string, code: number, codeName: string, description: string, functionName: string) {
    super(library, code, codeName, description, functionName);
    this.name = "CUSPARSEError";
  }
}

/** A function the bindings know but the loaded library does not provide (an older driver, say). */
export class FunctionNotFoundError extends NotFoundError {
  /** The function's C name. */
  readonly functionName: string;
  /** The library it was looked for in. */
  readonly library: string;
  constructor(functionName: string, library: string, detail: string) {
    super(`${functionName} is not available: ${detail}`);
    this.name = "FunctionNotFoundError";
    this.functionName = functionName;
    this.library = library;
    quietFields(this);
  }
}

/**
 * A function that the loaded library's version lacks: the binding chose the generated table of the version it
 * loaded (for the driver: the newest table not newer than `cuDriverGetVersion`), and that table has no such
 * function; it first appears in a newer version's table. Update the library (the NVIDIA driver for `driver`), or
 * do without the function.
 */
export class FunctionVersionError extends FunctionNotFoundError {
  /** The oldest CTK version whose table has the function ("13.0"). */
  readonly requiredVersion: string;
  /** The CTK version of the table chosen for the loaded library ("12.4"). */
  readonly tableVersion: string;
  /** The loaded library's own version, when it reports one ("12.4"; the driver: its CUDA version). */
  readonly loadedVersion: string | undefined;
  constructor(functionName: string, library: string, requiredVersion: string, tableVersion: string, loadedVersion: string | undefined, path: string) {
    const number = (v: string): number => v.split(".").reduce((a, x, i) => a + Number(x) * (i === 0 ? 1000 : 10), 0);
    const pinned = loadedVersion !== undefined && number(loadedVersion) >= number(requiredVersion);
    // NCCL versions apart from the CUDA Toolkit: its tables and library are NCCL versions.
    const v = library === "nccl" ? "NCCL" : "CUDA";
    super(
      functionName,
      library,
      pinned
        ? `it needs ${v} ${requiredVersion}; the loaded ${library} (${path}) is ${v} ${loadedVersion}, but cuda-ts was told to bind ` +
            `it with the ${v} ${tableVersion} table, which lacks ${functionName}. Unpin the table (CUDA_TS_DRIVER_TABLE, ` +
            "configureDriver({ tableVersion })) to use it, or do without it."
        : `it needs ${v} ${requiredVersion}, but the loaded ${library} (${path}) is ${v} ${loadedVersion ?? tableVersion}, so cuda-ts ` +
            `bound it with the ${v} ${tableVersion} table, which lacks ${functionName}. ` +
            (library === "driver" ? "Update the NVIDIA driver" : `Load a ${v} ${requiredVersion} or newer ${library}`) +
            " to use it, or do without it.",
    );
    this.name = "FunctionVersionError";
    this.requiredVersion = requiredVersion;
    this.tableVersion = tableVersion;
    this.loadedVersion = loadedVersion;
    quietFields(this);
  }
}

/**
 * A checked call refused its arguments before reaching the native library: a negative or fractional count, a
 * count larger than the array passed can hold, a record of another type than the function takes.
 */
export class BindingArgumentError extends ArgumentError {
  /** The function that was called. */
  readonly functionName: string;
  /** The parameter at fault. */
  readonly parameter: string;
  constructor(functionName: string, parameter: string, expected: string, received: string, fix: string) {
    super(`${functionName}: \`${parameter}\` must be ${expected}; got ${received}. ${fix}`);
    this.name = "BindingArgumentError";
    this.functionName = functionName;
    this.parameter = parameter;
    quietFields(this);
  }
}

/**
 * Debug mode (`CUDA_TS_DEBUG=guards`) found a native call that wrote past the memory the checked style gave it:
 * a binding bug, reported with the function's name so it can be fixed in the generator.
 */
export class GuardError extends InternalError {
  /** The function whose call overwrote a guard. */
  readonly functionName: string;
  constructor(functionName: string, where: string) {
    super(`${functionName} wrote past ${where} (guard bytes overwritten). This is a cuda-ts binding bug: please report it with the function's name.`);
    this.name = "GuardError";
    this.functionName = functionName;
    quietFields(this);
  }
}

/** `configureDriver()` came after the first driver call, when the driver's functions are already bound. */
export class DriverAlreadyBoundError extends InvalidStateError {
  constructor() {
    super("configureDriver() must be called before the first driver call: the driver's functions are already bound. Call it first, or set CUDA_TS_PER_THREAD_DEFAULT_STREAM before starting the process.");
    this.name = "DriverAlreadyBoundError";
  }
}

export { ArgumentError, CudaTsError, DeviceMismatchError, InternalError, InvalidStateError, NotFoundError, UnsupportedError } from "../errors/base.ts";
