/**
 * `cuda-ts/gds`: GPUDirect Storage through cuFile: reading and writing files straight to and from device memory,
 * batches and stream-ordered operations. cuFile's tables load with this module.
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export {
  CuFile,
  CuFileBatch,
  GdsRegisteredBuffer,
  GdsStreamOperation,
  registerGdsBuffer,
  type CuFileOpenOptions,
  type GdsBatchOperation,
  type GdsBatchResult,
  type GdsOpenMode,
  type GdsRange,
  type GdsTarget,
} from "./core/gds/file.ts";
export { closeGdsDriver, configureGdsDriver, gdsStatus, type GdsDriverOptions } from "./core/gds/driver.ts";
export type { GdsMode, GdsStatus } from "./core/gds/status.ts";
export { CuFileError } from "./bindings/errors.ts";
