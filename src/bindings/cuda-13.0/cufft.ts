/**
 * `cuda-ts/bindings/cuda-13.0/cufft`: the cufft binding typed by the CUDA 13.0 table. At run time it is the same
 * binding as `cuda-ts/bindings/cufft`.
 *
 * @module
 */
import type { BindingExtras } from "../binding.ts";
import { cufft as base } from "../cufft.ts";
import type { Checked, Raw } from "../../../generated/cuda-13.0/cufft/index.ts";

export * from "../../../generated/cuda-13.0/cufft/index.ts";

/** The cufft binding, typed by the CUDA 13.0 table. */
export type CufftBinding = Checked & BindingExtras<Raw>;

/** The cufft binding, typed by the CUDA 13.0 table. */
export const cufft: CufftBinding = base as unknown as CufftBinding;
