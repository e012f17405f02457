/**
 * `cuda-ts/bindings/cuda-12.4/driver`: the driver binding typed by the CUDA 12.4 table, for code that targets CUDA
 * 12.x: its functions, records, enums and constants are those of the 12.4 headers, so that what
 * 12.4 lacks is a type error. At run time it is the same binding as `cuda-ts/bindings/driver` (one loaded library, one
 * state), which binds the table matching the library it loads; with a CUDA 12 library (pin it with
 * `CUDA_TS_CUDA_MAJOR=12` where several are installed) that is this table.
 *
 * @module
 */
import "../driver-all-makers.ts";
import type { BindingExtras } from "../binding.ts";
import { driver as base, type DriverBinding as Base } from "../driver.ts";
import type { Checked, Raw } from "../../../generated/cuda-12.4/driver/index.ts";

export * from "../../../generated/cuda-12.4/driver/index.ts";
export { configureDriver, cudaError } from "../driver.ts";

/** The driver binding, typed by the CUDA 12.4 table. */
export type DriverBinding = Checked & BindingExtras<Raw> & Pick<Base, "driverVersion" | "perThreadDefaultStream">;

/** The driver binding, typed by the CUDA 12.4 table. */
export const driver: DriverBinding = base as unknown as DriverBinding;
