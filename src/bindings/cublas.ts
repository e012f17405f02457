/**
 * cuBLAS, dense linear algebra on the GPU (libcublas, the v2 API: `cublasCreate` is `cublasCreate_v2`, ...). A failed checked call throws a {@link CUBLASError}
 * naming the status. Its own entry point (`cuda-ts/bindings/cublas`), not part of `cuda-ts/bindings`: its tables
 * are large, and importing them costs start-up time only where they are used.
 *
 * @module
 */
import { type Checked, createChecked, generatedTables, functions, library as info, type Raw, cublasStatus_t } from "./tables/cublas.ts";
import { type BindingExtras, createBinding } from "./binding.ts";
import { chooseByLibraryProperty, headerVersionFromCtk } from "./library-version.ts";
import { libraryDescription, statusName } from "./describe.ts";
import { CUBLASError } from "./errors.ts";

export * from "./tables/cublas.ts";

/** cuBLAS: checked functions, `.raw`, and the binding's facts. */
export type CublasBinding = Checked & BindingExtras<Raw>;

/** cuBLAS. */
export const cublas: CublasBinding = createBinding<Raw, Checked>({
  library: "cublas",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  chooseTable: chooseByLibraryProperty("cublasGetProperty", headerVersionFromCtk, true),
  makeError: (code, fn) => {
    const c = Number(code);
    const name = statusName(cublasStatus_t, "cublasStatus_t", c);
    return new CUBLASError("cublas", c, name, libraryDescription(cublas, "cublasGetStatusString", c) ?? "no description", fn);
  },
});
