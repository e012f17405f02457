/**
 * `cuda-ts/bindings/cuda-12.4/cusparse`: the cusparse binding typed by the CUDA 12.4 table (cuSPARSE 12.3), for code that targets
 * CUDA 12.x: its functions, records, enums and constants are those of the 12.4 headers, so that what 12.4 lacks is a
 * type error. At run time it is the same binding as `cuda-ts/bindings/cusparse` (one loaded library, one state), which
 * binds the table matching the version the loaded library reports; with a CUDA 12 library (pin it with
 * `CUDA_TS_CUDA_MAJOR=12` where several are installed) that is this table.
 *
 * @module
 */
import type { BindingExtras } from "../binding.ts";
import { cusparse as base } from "../cusparse.ts";
import type { Checked, Raw } from "../../../generated/cuda-12.4/cusparse/index.ts";

export * from "../../../generated/cuda-12.4/cusparse/index.ts";

/** The cusparse binding, typed by the CUDA 12.4 table. */
export type CusparseBinding = Checked & BindingExtras<Raw>;

/** The cusparse binding, typed by the CUDA 12.4 table. */
export const cusparse: CusparseBinding = base as unknown as CusparseBinding;
