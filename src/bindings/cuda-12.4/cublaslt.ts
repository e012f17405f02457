/**
 * `cuda-ts/bindings/cuda-12.4/cublaslt`: the cublaslt binding typed by the CUDA 12.4 table (cuBLASLt 12.4), for code that targets
 * CUDA 12.x: its functions, records, enums and constants are those of the 12.4 headers, so that what 12.4 lacks is a
 * type error. At run time it is the same binding as `cuda-ts/bindings/cublaslt` (one loaded library, one state), which
 * binds the table matching the version the loaded library reports; with a CUDA 12 library (pin it with
 * `CUDA_TS_CUDA_MAJOR=12` where several are installed) that is this table.
 *
 * @module
 */
import type { BindingExtras } from "../binding.ts";
import { cublasLt as base } from "../cublaslt.ts";
import type { Checked, Raw } from "../../../generated/cuda-12.4/cublaslt/index.ts";

export * from "../../../generated/cuda-12.4/cublaslt/index.ts";

/** The cublaslt binding, typed by the CUDA 12.4 table. */
export type CublasLtBinding = Checked & BindingExtras<Raw>;

/** The cublaslt binding, typed by the CUDA 12.4 table. */
export const cublasLt: CublasLtBinding = base as unknown as CublasLtBinding;
