/**
 * `cuda-ts/bindings/cuda-13.0/curand`: the curand binding typed by the CUDA 13.0 table. At run time it is the same
 * binding as `cuda-ts/bindings/curand`.
 *
 * @module
 */
import type { BindingExtras } from "../binding.ts";
import { curand as base } from "../curand.ts";
import type { Checked, Raw } from "../../../generated/cuda-13.0/curand/index.ts";

export * from "../../../generated/cuda-13.0/curand/index.ts";

/** The curand binding, typed by the CUDA 13.0 table. */
export type CurandBinding = Checked & BindingExtras<Raw>;

/** The curand binding, typed by the CUDA 13.0 table. */
export const curand: CurandBinding = base as unknown as CurandBinding;
