/**
 * `cuda-ts/bindings/cuda-12.4/nvrtc`: the nvrtc binding typed by the CUDA 12.4 table, for code that targets CUDA
 * 12.x: its functions, records, enums and constants are those of the 12.4 headers, so that what
 * 12.4 lacks is a type error. At run time it is the same binding as `cuda-ts/bindings/nvrtc` (one loaded library, one
 * state), which binds the table matching the library it loads; with a CUDA 12 library (pin it with
 * `CUDA_TS_CUDA_MAJOR=12` where several are installed) that is this table.
 *
 * @module
 */
import type { BindingExtras } from "../binding.ts";
import { nvrtc as base } from "../nvrtc.ts";
import type { Checked, Raw } from "../../../generated/cuda-12.4/nvrtc/index.ts";

export * from "../../../generated/cuda-12.4/nvrtc/index.ts";


/** The nvrtc binding, typed by the CUDA 12.4 table. */
export type NvrtcBinding = Checked & BindingExtras<Raw>;

/** The nvrtc binding, typed by the CUDA 12.4 table. */
export const nvrtc: NvrtcBinding = base as unknown as NvrtcBinding;
