/**
 * `cuda-ts/bindings/driver/types`: the CUDA driver API's enums, constants, records (the C structs) and type names,
 * from the newest generated table (CUDA 13.0), for calls through `cuda-ts/bindings/driver`:
 *
 * ```ts
 * import { driver } from "cuda-ts/bindings/driver";
 * import { CUdevice_attribute } from "cuda-ts/bindings/driver/types";
 * const sms = driver.cuDeviceGetAttribute(CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0);
 * ```
 *
 * A module of its own: these are most of the driver table's code, and a script that only calls functions need not
 * evaluate them.
 *
 * @module
 */
import { CUresult } from "../../generated/cuda-13.0/driver/enums.ts";
import { provideStatusNames } from "./driver-binding.ts";

export * from "../../generated/cuda-13.0/driver/enums.ts";
export * from "../../generated/cuda-13.0/driver/constants.ts";
export * from "../../generated/cuda-13.0/driver/types.ts";
export * from "../../generated/cuda-13.0/driver/records.ts";

// The driver binding names a failed call's status by this enum once it is loaded (the driver's own names otherwise).
provideStatusNames(CUresult);
