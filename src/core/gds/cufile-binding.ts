/**
 * The cuFile functions and enums the GDS classes use, bound over the generated `gds` subset of cuFile's tables
 * (generated/cuda-X.Y/cufile/gds.ts: 18 functions, the records they take and return, the enums the classes read)
 * instead of the whole cuFile binding (`cuda-ts/bindings/cufile`). Loaded when GDS is first used on Bun, at import
 * on Deno (src/deferred.ts says why): there its size is what the root's import pays.
 *
 * A binding of its own: the system loader opens libcufile once per process whichever binding asks.
 *
 * @module
 */
import * as v13_0 from "../../../generated/cuda-13.0/cufile/gds.ts";
import * as v12_4 from "../../../generated/cuda-12.4/cufile/gds.ts";
import { type Checked, createChecked, CUfileOpError, functions, library as info, type Raw } from "../../../generated/cuda-13.0/cufile/gds.ts";
import { type BindingExtras, createBinding } from "../../bindings/binding.ts";
import { cuFileErrorOf } from "../../bindings/describe.ts";
import type { CuFileError } from "../../bindings/errors.ts";
import type { GeneratedTable } from "../../bindings/tables/registry.ts";

export {
  CUFileBoolConfigParameter_t,
  CUfileBatchMode_t,
  CUfileDescr_t,
  CUfileDriverControlFlags_t,
  CUfileDriverStatusFlags_t,
  CUfileDrvProps,
  CUfileFeatureFlags_t,
  CUfileFileHandleType,
  CUfileIOEvents,
  CUfileIOParams,
  CUfileOpcode_t,
  CUfileStatus_t,
} from "../../../generated/cuda-13.0/cufile/gds.ts";

/** The subset's table of every CTK version, newest first. */
const generatedTables: readonly GeneratedTable[] = [v13_0, v12_4];

/** The cuFile functions the GDS classes call: checked style, `.raw`, and the binding's facts. */
export type CuFileGdsBinding = Checked & BindingExtras<Raw>;

/** cuFile, the GDS classes' part of it. */
export const cufile: CuFileGdsBinding = createBinding<Raw, Checked>({
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
