/**
 * `cuda-ts/bindings/cuda-12.4/nvfatbin`: the nvfatbin binding typed by the CUDA 12.4 table, for code that targets CUDA
 * 12.x: its functions, records, enums and constants are those of the 12.4 headers, so that what
 * 12.4 lacks is a type error. At run time it is the same binding as `cuda-ts/bindings/nvfatbin` (one loaded library, one
 * state), which binds the table matching the library it loads; with a CUDA 12 library (pin it with
 * `CUDA_TS_CUDA_MAJOR=12` where several are installed) that is this table.
 *
 * @module
 */
import type { BindingExtras } from "../binding.ts";
import { nvfatbin as base } from "../nvfatbin.ts";
import type { Checked, Raw } from "../../../generated/cuda-12.4/nvfatbin/index.ts";

export * from "../../../generated/cuda-12.4/nvfatbin/index.ts";


/** The nvfatbin binding, typed by the CUDA 12.4 table. */
export type NvFatbinBinding = Checked & BindingExtras<Raw>;

/** The nvfatbin binding, typed by the CUDA 12.4 table. */
export const nvfatbin: NvFatbinBinding = base as unknown as NvFatbinBinding;
