/**
 * cuSPARSE, sparse linear algebra (libcusparse). A failed checked call throws a {@link CUSPARSEError}
 * naming the status. Its own entry point (`cuda-ts/bindings/cusparse`), not part of `cuda-ts/bindings`: its tables
 * are large, and importing them costs start-up time only where they are used.
 *
 * @module
 */
import { type Checked, createChecked, generatedTables, functions, library as info, type Raw, cusparseStatus_t } from "./tables/cusparse.ts";
import { type BindingExtras, createBinding } from "./binding.ts";
import { chooseByLibraryProperty, headerVersionFromConstants } from "./library-version.ts";
import { libraryDescription, statusName } from "./describe.ts";
import { CUSPARSEError } from "./errors.ts";

export * from "./tables/cusparse.ts";

/** cuSPARSE: checked functions, `.raw`, and the binding's facts. */
export type CusparseBinding = Checked & BindingExtras<Raw>;

/** cuSPARSE. */
export const cusparse: CusparseBinding = createBinding<Raw, Checked>({
  library: "cusparse",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  chooseTable: chooseByLibraryProperty("cusparseGetProperty", headerVersionFromConstants("CUSPARSE")),
  makeError: (code, fn) => {
    const c = Number(code);
    const name = statusName(cusparseStatus_t, "cusparseStatus_t", c);
    return new CUSPARSEError("cusparse", c, name, libraryDescription(cusparse, "cusparseGetErrorString", c) ?? "no description", fn);
  },
});
