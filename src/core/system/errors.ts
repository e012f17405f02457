/**
 * The error of the system view: NVML and CUDA that do not see the same GPU. It is re-exported by src/core/errors.ts,
 * the root's one import path for errors.
 *
 * @module
 */
import { NotFoundError } from "../../errors/base.ts";

/** NVML and CUDA do not see the same GPU (another process's CUDA_VISIBLE_DEVICES, MIG, or a GPU NVML cannot read). */
export class DeviceMatchError extends NotFoundError {
  constructor(message: string) {
    super(message);
    this.name = "DeviceMatchError";
  }
}
