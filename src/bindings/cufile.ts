/**
 * cuFile, GPUDirect Storage (libcufile). Its functions return a CUfileError_t struct; the checked style throws a
 * CuFileError when its `err` member is not CU_FILE_SUCCESS.
 *
 * @module
 */
import { type Checked, createChecked, generatedTables, CUfileOpError, functions, library as info, type Raw } from "./tables/cufile.ts";
import { type BindingExtras, createBinding } from "./binding.ts";
import { cuFileErrorOf } from "./describe.ts";
import type { CuFileError } from "./errors.ts";

export * from "./tables/cufile.ts";

/** cuFile: checked functions, `.raw`, and the binding's facts. */
export type CuFileBinding = Checked & BindingExtras<Raw>;

/** cuFile. */
export const cufile: CuFileBinding = createBinding<Raw, Checked>({
  library: "cufile",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  makeError: (code, fn) => cuFileError(Number(code), fn),
});

/** The typed error of a cuFile status `code` (a CU_FILE_* value) that `functionName` reported. */
export function cuFileError(code: number, functionName: string): CuFileError {
  return cuFileErrorOf(CUfileOpError, code, functionName);
}
