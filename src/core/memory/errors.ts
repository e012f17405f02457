/**
 * The errors of memory: a device that lacks what a resource needs, peer access between GPUs that cannot have it,
 * managed-memory advice the driver refused. Each is re-exported by src/core/errors.ts, the root's one import path for
 * errors.
 *
 * @module
 */
import { UnsupportedError } from "../../errors/base.ts";
import type { CudaError } from "../../bindings/errors.ts";

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
  }
}
