/**
 * `cuda-ts/bindings/cuda-12.4/cublas`: the cublas binding typed by the CUDA 12.4 table (cuBLAS 12.4), for code that targets
 * CUDA 12.x: its functions, records, enums and constants are those of the 12.4 headers, so that what 12.4 lacks is a
 * type error. At run time it is the same binding as `cuda-ts/bindings/cublas` (one loaded library, one state), which
 * binds the table matching the version the loaded library reports; with a CUDA 12 library (pin it with
 * `CUDA_TS_CUDA_MAJOR=12` where several are installed) that is this table.
 *
 * @module
 */
import type { BindingExtras } from "../binding.ts";
import { cublas as base } from "../cublas.ts";
import type { Checked, Raw } from "../../../generated/cuda-12.4/cublas/index.ts";

export * from "../../../generated/cuda-12.4/cublas/index.ts";

/** The cublas binding, typed by the CUDA 12.4 table. */
export type CublasBinding = Checked & BindingExtras<Raw>;

/** The cublas binding, typed by the CUDA 12.4 table. */
export const cublas: CublasBinding = base as unknown as CublasBinding;
