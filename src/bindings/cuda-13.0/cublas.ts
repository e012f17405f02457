/**
 * `cuda-ts/bindings/cuda-13.0/cublas`: the cublas binding typed by the CUDA 13.0 table. At run time it is the same
 * binding as `cuda-ts/bindings/cublas`.
 *
 * @module
 */
import type { BindingExtras } from "../binding.ts";
import { cublas as base } from "../cublas.ts";
import type { Checked, Raw } from "../../../generated/cuda-13.0/cublas/index.ts";

export * from "../../../generated/cuda-13.0/cublas/index.ts";

/** The cublas binding, typed by the CUDA 13.0 table. */
export type CublasBinding = Checked & BindingExtras<Raw>;

/** The cublas binding, typed by the CUDA 13.0 table. */
export const cublas: CublasBinding = base as unknown as CublasBinding;
