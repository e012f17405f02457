/**
 * `cuda-ts/bindings/cuda-13.0/nvjitlink`: the nvjitlink binding typed by the CUDA 13.0 table, for code that targets CUDA
 * 13.x: its functions, records, enums and constants are those of the 13.0 headers, so that what
 * 13.0 lacks is a type error. At run time it is the same binding as `cuda-ts/bindings/nvjitlink` (one loaded library, one
 * state), which binds the table matching the library it loads; with a CUDA 13 library (pin it with
 * `CUDA_TS_CUDA_MAJOR=13` where several are installed) that is this table.
 *
 * @module
 */
import type { BindingExtras } from "../binding.ts";
import { nvjitlink as base } from "../nvjitlink.ts";
import type { Checked, Raw } from "../../../generated/cuda-13.0/nvjitlink/index.ts";

export * from "../../../generated/cuda-13.0/nvjitlink/index.ts";


/** The nvjitlink binding, typed by the CUDA 13.0 table. */
export type NvJitLinkBinding = Checked & BindingExtras<Raw>;

/** The nvjitlink binding, typed by the CUDA 13.0 table. */
export const nvjitlink: NvJitLinkBinding = base as unknown as NvJitLinkBinding;
