/**
 * `cuda-ts/checkpoint`: CUDA checkpoint and restore of a process's GPU state (the driver's cuCheckpoint API).
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export { CheckpointProcess, CHECKPOINT_DRIVER_VERSION, type ProcessState, type GpuMapping } from "./core/checkpoint.ts";
