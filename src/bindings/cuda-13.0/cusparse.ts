/**
 * `cuda-ts/bindings/cuda-13.0/cusparse`: the cusparse binding typed by the CUDA 13.0 table. At run time it is the same
 * binding as `cuda-ts/bindings/cusparse`.
 *
 * @module
 */
import type { BindingExtras } from "../binding.ts";
import { cusparse as base } from "../cusparse.ts";
import type { Checked, Raw } from "../../../generated/cuda-13.0/cusparse/index.ts";

export * from "../../../generated/cuda-13.0/cusparse/index.ts";

/** The cusparse binding, typed by the CUDA 13.0 table. */
export type CusparseBinding = Checked & BindingExtras<Raw>;

/** The cusparse binding, typed by the CUDA 13.0 table. */
export const cusparse: CusparseBinding = base as unknown as CusparseBinding;
