/**
 * cuSOLVER, dense linear solvers and decompositions (libcusolver, the Dn API). A failed checked call throws a {@link CUSOLVERError}
 * naming the status. Its own entry point (`cuda-ts/bindings/cusolver`), not part of `cuda-ts/bindings`: its tables
 * are large, and importing them costs start-up time only where they are used.
 *
 * @module
 */
import { type Checked, createChecked, generatedTables, functions, library as info, type Raw, cusolverStatus_t } from "./tables/cusolver.ts";
import { type BindingExtras, createBinding } from "./binding.ts";
import { chooseByLibraryProperty, headerVersionFromConstants } from "./library-version.ts";
import { statusName } from "./describe.ts";
import { CUSOLVERError } from "./errors.ts";

export * from "./tables/cusolver.ts";

/** cuSOLVER: checked functions, `.raw`, and the binding's facts. */
export type CusolverBinding = Checked & BindingExtras<Raw>;

/** What each status means (the library has no function that says). */
const STATUS_TEXT: Readonly<Record<string, string>> = {
  CUSOLVER_STATUS_NOT_INITIALIZED: "the library was not initialized (create a handle first)",
  CUSOLVER_STATUS_ALLOC_FAILED: "allocating resources failed",
  CUSOLVER_STATUS_INVALID_VALUE: "an unsupported value or parameter was passed (a negative size, say)",
  CUSOLVER_STATUS_ARCH_MISMATCH: "the GPU does not support the feature",
  CUSOLVER_STATUS_MAPPING_ERROR: "accessing GPU memory failed",
  CUSOLVER_STATUS_EXECUTION_FAILED: "the GPU program failed to execute",
  CUSOLVER_STATUS_INTERNAL_ERROR: "an internal operation failed",
  CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED: "the matrix type is not supported by this function",
  CUSOLVER_STATUS_NOT_SUPPORTED: "the operation is not supported",
  CUSOLVER_STATUS_ZERO_PIVOT: "a zero pivot was met",
  CUSOLVER_STATUS_INVALID_LICENSE: "the license is invalid",
};

/** cuSOLVER. */
export const cusolver: CusolverBinding = createBinding<Raw, Checked>({
  library: "cusolver",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  chooseTable: chooseByLibraryProperty("cusolverGetProperty", headerVersionFromConstants("CUSOLVER")),
  makeError: (code, fn) => {
    const c = Number(code);
    const name = statusName(cusolverStatus_t, "cusolverStatus_t", c);
    return new CUSOLVERError("cusolver", c, name, STATUS_TEXT[name] ?? "no description", fn);
  },
});
