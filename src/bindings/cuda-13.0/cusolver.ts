/**
 * `cuda-ts/bindings/cuda-13.0/cusolver`: the cusolver binding typed by the CUDA 13.0 table. At run time it is the same
 * binding as `cuda-ts/bindings/cusolver`.
 *
 * @module
 */
import type { BindingExtras } from "../binding.ts";
import { cusolver as base } from "../cusolver.ts";
import type { Checked, Raw } from "../../../generated/cuda-13.0/cusolver/index.ts";

export * from "../../../generated/cuda-13.0/cusolver/index.ts";

/** The cusolver binding, typed by the CUDA 13.0 table. */
export type CusolverBinding = Checked & BindingExtras<Raw>;

/** The cusolver binding, typed by the CUDA 13.0 table. */
export const cusolver: CusolverBinding = base as unknown as CusolverBinding;
