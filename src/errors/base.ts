/**
 * The root of every error cuda-ts throws on purpose, and the subject bases beneath it. This module imports nothing,
 * so every layer (the FFI, the pathfinder, the bindings, the object layer) can build its errors on it.
 *
 * ```text
 * CudaTsError
 * ├── LibraryError        a native library returned a failure status (one class per library: src/bindings/errors.ts)
 * │   └── CudaError       the CUDA driver's; CudaRuntimeError the runtime's
 * ├── ArgumentError       a caller passed something wrong
 * │   └── DeviceMismatchError   something of another device than the one the call works on
 * ├── InvalidStateError   the object (or the process) is not in a state that allows the call
 * ├── UnsupportedError    this device, driver, runtime or machine cannot do it
 * ├── NotFoundError       something looked for by name or path is not there
 * ├── ConnectionError     the other end of an IPC connection or of the rendezvous store failed
 * └── InternalError       cuda-ts's own machinery failed: report it
 * ```
 *
 * Catch a subject base to handle a kind of failure whatever its leaf (`e instanceof ArgumentError`), or
 * `CudaTsError` for anything cuda-ts threw on purpose. Every class sets `name` to its own name.
 *
 * @module
 */

/** Options every cuda-ts error takes: `cause`, the error that led to this one. */
export interface CudaTsErrorOptions {
  /** The error that led to this one (a driver's status error, a failed file read, ...). */
  readonly cause?: unknown;
}

/**
 * The base of every error cuda-ts throws on purpose. Errors that reach the caller without being one are a runtime's
 * own (a failed `fetch`, a permission Deno refused) passed through, or a bug.
 */
export class CudaTsError extends Error {
  constructor(message: string, options?: CudaTsErrorOptions) {
    super(message, options);
    this.name = "CudaTsError";
  }
}

/**
 * A caller passed something wrong: an argument or option of the wrong type, out of range or of the wrong shape,
 * dtype or layout, or a setting (an environment variable, a command line) that cannot be used. Nothing reached the
 * native library. The message names the call, the argument, what was expected, what came and what to do: fix the
 * call, not the machine.
 */
export class ArgumentError extends CudaTsError {
  constructor(message: string, options?: CudaTsErrorOptions) {
    super(message, options);
    this.name = "ArgumentError";
  }
}

/** What a {@link DeviceMismatchError} takes besides its devices. */
export interface DeviceMismatchOptions extends CudaTsErrorOptions {
  /** The whole message, where the thrower words it itself (it must still name both devices and what to do). */
  readonly message?: string;
}

/**
 * Something of another device came where the call works on one device: a stream, an array or a buffer on device
 * `actual` where device `expected` was needed (a handle made on one device, a kernel launched on a stream of
 * another, a collective's operand on another GPU than its communicator's). Nothing reached the native library.
 * Use objects of one device together: make the object on that device, pass a stream of its device, or copy the
 * array to it first. Throw it with `refuseWrongDevice` (src/core/base/wrong-device.ts).
 */
export class DeviceMismatchError extends ArgumentError {
  /** The ordinal of the device the call works on. */
  readonly expected: number;
  /** The ordinal of the device of what came. */
  readonly actual: number;

  /**
   * @param what - what came, with the call (`"Blas.setStream: the stream"`, `"launch(k): x"`).
   * @param expected - the device the call works on.
   * @param actual - the device of what came.
   * @param advice - what to do; by default, copy it to the expected device or use objects of its own device.
   */
  constructor(what: string, expected: number, actual: number, advice?: string, options?: DeviceMismatchOptions) {
    super(
      options?.message ??
        `${what} is on device ${actual}, but device ${expected} is needed here; ` +
          (advice ?? `copy it to device ${expected} first, or use objects of device ${actual} throughout`),
      options,
    );
    this.name = "DeviceMismatchError";
    this.expected = expected;
    this.actual = actual;
    quietFields(this);
  }
}

/**
 * The object, or the process, is not in a state that allows the call: it was closed, an event was never recorded,
 * a graph is not being built, a communicator was aborted, no CUDA context is current, a setting came after it
 * could take effect. The message says which call makes the state right (or to make a new object).
 */
export class InvalidStateError extends CudaTsError {
  constructor(message: string, options?: CudaTsErrorOptions) {
    super(message, options);
    this.name = "InvalidStateError";
  }
}

/**
 * What was asked for cannot be done here: the GPU lacks the feature, the driver is too old, the JavaScript runtime's
 * FFI cannot do it, or an optional component (nvJitLink, CUPTI's threads) is missing. Nothing is wrong with the
 * call; the message says what would support it (a newer driver, another GPU, Deno instead of Bun) or how to do
 * without.
 */
export class UnsupportedError extends CudaTsError {
  constructor(message: string, options?: CudaTsErrorOptions) {
    super(message, options);
    this.name = "UnsupportedError";
  }
}

/**
 * Something looked for by name or path is not there: a library, header or tool the pathfinder searched for, a
 * function or symbol a loaded library lacks, a kernel a module lacks, a file, a GPU another API does not list. The
 * message says where it looked and what to install or set.
 */
export class NotFoundError extends CudaTsError {
  constructor(message: string, options?: CudaTsErrorOptions) {
    super(message, options);
    this.name = "NotFoundError";
  }
}

/**
 * The other end of an IPC connection or of the rendezvous store failed: it closed the connection, did not answer
 * in time, was refused as a peer, or sent something malformed. Check that the other process is running, is the
 * one expected and uses the same address and secret.
 */
export class ConnectionError extends CudaTsError {
  constructor(message: string, options?: CudaTsErrorOptions) {
    super(message, options);
    this.name = "ConnectionError";
  }
}

/**
 * cuda-ts's own machinery failed or found itself wrong: a binding wrote past its memory, the pathfinder's catalog
 * has a cycle, a worker crashed. Not the caller's mistake: report it with the message.
 */
export class InternalError extends CudaTsError {
  constructor(message: string, options?: CudaTsErrorOptions) {
    super(message, options);
    this.name = "InternalError";
  }
}

/** What a {@link LibraryError} takes besides its status. */
export interface LibraryErrorOptions extends CudaTsErrorOptions {
  /** The whole message, where the thrower words it itself (it must still name the status and the function). */
  readonly message?: string;
}

/**
 * A native library returned a failure status: the CUDA driver or runtime, NVRTC, nvJitLink, NVVM, NVML, cuFile,
 * nvFatbin, CUPTI, cuBLAS, cuRAND, cuFFT, cuSOLVER, cuSPARSE, NCCL, or libc. `library` says which, `status` (also
 * `code`) the numeric status, `statusName` (also `codeName`) its name (`CUDA_ERROR_OUT_OF_MEMORY`), `functionName`
 * the call. The subclass says which library; the status's name and the library's description say what went wrong.
 */
export class LibraryError extends CudaTsError {
  /** The library (driver, runtime, nvrtc, nvjitlink, nvvm, nvml, cufile, nvfatbin, ...). */
  readonly library: string;
  /** The status code the function returned. */
  readonly code: number;
  /** The status code's name (CUDA_ERROR_INVALID_VALUE, NVRTC_ERROR_COMPILATION, ...). */
  readonly codeName: string;
  /** The function that failed. */
  readonly functionName: string;

  constructor(library: string, code: number, codeName: string, description: string, functionName: string, options?: LibraryErrorOptions) {
    super(options?.message ?? `${codeName}: ${description} (${functionName})`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "LibraryError";
    this.library = library;
    this.code = code;
    this.codeName = codeName;
    this.functionName = functionName;
    quietFields(this);
  }

  /** The numeric status the function returned (the same as `code`). */
  get status(): number {
    return this.code;
  }

  /** The status's name (the same as `codeName`). */
  get statusName(): string {
    return this.codeName;
  }
}

/**
 * Makes an error's own fields non-enumerable, called at the end of the constructor of every class that sets fields.
 * Bun's report of an uncaught error prints every enumerable field after the message (a pathfinder error's `attempts`
 * and `hint`, the hint a second time); the message already says all a reader needs, and the fields stay what programs
 * read (`error.hint`, `error.code`).
 */
export function quietFields(error: Error): void {
  for (const key of Object.keys(error)) {
    const d = Object.getOwnPropertyDescriptor(error, key);
    if (d !== undefined && d.configurable === true) Object.defineProperty(error, key, { ...d, enumerable: false });
  }
}
