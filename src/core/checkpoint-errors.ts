/**
 * The error of checkpoints (src/core/checkpoint.ts): a checkpoint call the driver refused as unsupported. It is
 * re-exported by src/core/errors.ts, the root's one import path for errors.
 *
 * @module
 */
import { UnsupportedError } from "../errors/base.ts";

/**
 * The driver refused a checkpoint call as unsupported (CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_NOT_PERMITTED, or a
 * driver older than 12.8 without the `cuCheckpointProcess*` calls). `cause` is the driver's error when there is one.
 */
export class CheckpointUnsupportedError extends UnsupportedError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "CheckpointUnsupportedError";
  }
}
