/**
 * `cuda-ts/tensor-map`: tensor maps, the descriptors of the Tensor Memory Accelerator (sm_90 and newer), passed to a
 * kernel by value.
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export {
  TensorMap,
  type TensorMapDataType,
  type TensorMapInterleave,
  type TensorMapSwizzle,
  type TensorMapL2Promotion,
  type TensorMapOOBFill,
  type TensorMapOptions,
  type TiledTensorMapOptions,
  type Im2colTensorMapOptions,
} from "./core/tensor-map/tensor-map.ts";
