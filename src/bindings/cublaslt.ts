/**
 * cuBLASLt, matrix multiplication with epilogues and algorithm heuristics (libcublasLt). A failed checked call throws a {@link CUBLASError}
 * naming the status. Its own entry point (`cuda-ts/bindings/cublaslt`), not part of `cuda-ts/bindings`: its tables
 * are large, and importing them costs start-up time only where they are used.
 *
 * @module
 */
import { type Checked, createChecked, generatedTables, functions, library as info, type Raw } from "./tables/cublaslt.ts";
import { cublasStatus_t } from "./tables/cublas.ts";
import { type BindingExtras, createBinding } from "./binding.ts";
import { chooseByLibraryProperty, headerVersionFromCtk } from "./library-version.ts";
import { libraryDescription, statusName } from "./describe.ts";
import { CUBLASError } from "./errors.ts";

export * from "./tables/cublaslt.ts";

/** cuBLASLt: checked functions, `.raw`, and the binding's facts. */
export type CublasLtBinding = Checked & BindingExtras<Raw>;

/** cuBLASLt. */
export const cublasLt: CublasLtBinding = createBinding<Raw, Checked>({
  library: "cublasLt",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  chooseTable: chooseByLibraryProperty("cublasLtGetProperty", headerVersionFromCtk, true),
  makeError: (code, fn) => {
    const c = Number(code);
    const name = statusName(cublasStatus_t, "cublasStatus_t", c);
    return new CUBLASError("cublasLt", c, name, libraryDescription(cublasLt, "cublasLtGetStatusString", c) ?? "no description", fn);
  },
});
