/**
 * nvFatbin, fat binary creation (libnvfatbin).
 *
 * @module
 */
import { type Checked, createChecked, generatedTables, functions, library as info, nvFatbinResult, type Raw } from "./tables/nvfatbin.ts";
import { type BindingExtras, chooseByVersion, majorMinor, queryInts, createBinding } from "./binding.ts";
import { libraryDescription, statusName } from "./describe.ts";
import { NvFatbinError } from "./errors.ts";

export * from "./tables/nvfatbin.ts";

/** nvFatbin: checked functions, `.raw`, and the binding's facts. */
export type NvFatbinBinding = Checked & BindingExtras<Raw>;

/** nvFatbin. */
export const nvfatbin: NvFatbinBinding = createBinding<Raw, Checked>({
  library: "nvfatbin",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  chooseTable: chooseByVersion("nvFatbinVersion", (lib) => majorMinor(queryInts(lib, "nvFatbinVersion", 2))),
  makeError: (code, fn) => {
    const c = Number(code);
    return new NvFatbinError(c, statusName(nvFatbinResult, "nvFatbinResult", c), libraryDescription(nvfatbin, "nvFatbinGetErrorString", c) ?? "no description", fn);
  },
});
