/**
 * `cuda-ts/system`: the machine's GPUs as NVML sees them (names, memory, temperatures, clocks, processes), without a
 * CUDA context. NVML's tables load with this module.
 *
 * ```ts
 * import * as system from "cuda-ts/system";
 * for (const gpu of system.devices()) console.log(gpu.name, gpu.temperature);
 * ```
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export * from "./core/system/system.ts";
export { SystemDevice, type SystemDeviceSelector } from "./core/system/device.ts";
export { NVMLError } from "./bindings/errors.ts";
