/**
 * `cuda-ts/bindings/cuda-12.4/cufft`: the cufft binding typed by the CUDA 12.4 table (cuFFT 11.2), for code that targets
 * CUDA 12.x: its functions, records, enums and constants are those of the 12.4 headers, so that what 12.4 lacks is a
 * type error. At run time it is the same binding as `cuda-ts/bindings/cufft` (one loaded library, one state), which
 * binds the table matching the version the loaded library reports; with a CUDA 12 library (pin it with
 * `CUDA_TS_CUDA_MAJOR=12` where several are installed) that is this table.
 *
 * @module
 */
import type { BindingExtras } from "../binding.ts";
import { cufft as base } from "../cufft.ts";
import type { Checked, Raw } from "../../../generated/cuda-12.4/cufft/index.ts";

export * from "../../../generated/cuda-12.4/cufft/index.ts";

/** The cufft binding, typed by the CUDA 12.4 table. */
export type CufftBinding = Checked & BindingExtras<Raw>;

/** The cufft binding, typed by the CUDA 12.4 table. */
export const cufft: CufftBinding = base as unknown as CufftBinding;
