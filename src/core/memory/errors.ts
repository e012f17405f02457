/**
 * The errors of memory: a device that lacks what a resource needs, peer access between GPUs that cannot have it,
 * managed-memory advice the driver refused. Each is re-exported by src/core/errors.ts, the root's one import path for
 * errors.
 *
 * @module
 */
import { UnsupportedError, quietFields } from "../../errors/base.ts";
import { CudaError } from "../../bindings/errors.ts";
import { ClosedError } from "../base/errors.ts";

/** The device (or this machine) lacks what a resource needs: virtual memory management, GPUDirect RDMA, Linux for IPC. */
export class DeviceFeatureError extends UnsupportedError {
  constructor(message: string) {
    super(message);
    this.name = "DeviceFeatureError";
  }
}

/** Peer access was asked for between GPUs that cannot access each other's memory. */
export class PeerAccessError extends UnsupportedError {
  /** The device that would access. */
  readonly deviceId: number;
  /** The device whose memory it would access. */
  readonly peerId: number;
  constructor(deviceId: number, peerId: number, message: string) {
    super(message);
    this.name = "PeerAccessError";
    this.deviceId = deviceId;
    this.peerId = peerId;
    quietFields(this);
  }
}

/** The driver refused advice for this managed memory; the message says what to do instead. */
export class ManagedAdviceError extends UnsupportedError {
  /** The driver's error. */
  override readonly cause: CudaError;
  constructor(message: string, cause: CudaError) {
    super(message);
    this.name = "ManagedAdviceError";
    this.cause = cause;
    quietFields(this);
  }
}

/** What an {@link OutOfMemoryError} reports of the device when it was thrown. */
export interface OutOfMemoryReport {
  /** The bytes asked for. */
  readonly requestedBytes: number;
  /** The device's free memory after the retries (cuMemGetInfo), or undefined where it could not be read. */
  readonly freeBytes: number | undefined;
  /** The device's total memory, or undefined where it could not be read. */
  readonly totalBytes: number | undefined;
  /** What this process's live Buffers and arrays hold on the device. */
  readonly bytesInUse: number;
  /** How many of them are live. */
  readonly liveObjects: number;
  /** What the device's pools keep reserved but unused (after the trim). */
  readonly poolReservedUnusedBytes: number;
  /** Whether a garbage collection was tried (false where the runtime offers no collector). */
  readonly collected: boolean;
}

/**
 * An allocation failed with CUDA_ERROR_OUT_OF_MEMORY after cuda-ts trimmed the pools' unused memory and, where the
 * runtime allows it, collected garbage to free dropped buffers, retrying after each. The message names the size
 * asked for, the device's free and total memory, what this process's arrays and buffers hold, what the pools keep
 * unused, and what to do. The context stays usable: free memory and allocate again.
 */
export class OutOfMemoryError extends CudaError {
  /** The figures the message gives. */
  readonly report: OutOfMemoryReport;
  /** The device ordinal. */
  readonly deviceId: number;
  /** @internal Made by the allocator. */
  constructor(cause: CudaError, deviceId: number, report: OutOfMemoryReport, message: string) {
    super(cause.code, cause.codeName, "out of memory", cause.functionName);
    this.name = "OutOfMemoryError";
    this.message = message;
    this.deviceId = deviceId;
    this.report = report;
    quietFields(this);
  }
}

/**
 * An array or buffer was used after the `scope()` that made it ended and closed it. Return it from the scope's
 * callback (alone, or inside a returned array or object), or `keep()` it inside the scope, to use it afterwards.
 */
export class ScopeClosedError extends ClosedError {
  constructor(what: string, action: string) {
    super(what, action);
    this.name = "ScopeClosedError";
    this.message =
      `${what} was closed when the scope() that made it ended: cannot ${action}. Return it from the scope's callback ` +
      "(alone, or inside a returned array or object), or keep(x) it inside the scope, to use it afterwards.";
    quietFields(this);
  }
}
