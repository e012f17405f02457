/**
 * `cuda-ts/interop`: arrays exchanged with other libraries: DLPack tensors and the CUDA Array Interface.
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export {
  DLPackTensor,
  DLDeviceType,
  DLPACK_VERSION,
  DLPACK_LAYOUT,
  DLPACK_FLAG_BITMASK_READ_ONLY,
  DLPACK_FLAG_BITMASK_IS_COPIED,
  toDLPack,
  fromDLPack,
  describeDLPack,
  dlpackDevice,
  pointerMemoryType,
  fromCudaArrayInterface,
  dtypeFromDLPack,
  dtypeFromTypestr,
  type DLPackDescription,
  type DLPackKind,
  type FromCudaArrayInterfaceOptions,
  type FromDLPackOptions,
  type ToDLPackOptions,
} from "./core/array/interop.ts";
export { DLDataTypeCode } from "./core/array/dtype.ts";
export type { CudaArrayInterface } from "./core/array/device-array.ts";
