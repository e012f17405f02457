/**
 * `cuda-ts/bindings/cuda-13.0/cublaslt`: the cublaslt binding typed by the CUDA 13.0 table. At run time it is the same
 * binding as `cuda-ts/bindings/cublaslt`.
 *
 * @module
 */
import type { BindingExtras } from "../binding.ts";
import { cublasLt as base } from "../cublaslt.ts";
import type { Checked, Raw } from "../../../generated/cuda-13.0/cublaslt/index.ts";

export * from "../../../generated/cuda-13.0/cublaslt/index.ts";

/** The cublaslt binding, typed by the CUDA 13.0 table. */
export type CublasLtBinding = Checked & BindingExtras<Raw>;

/** The cublaslt binding, typed by the CUDA 13.0 table. */
export const cublasLt: CublasLtBinding = base as unknown as CublasLtBinding;
