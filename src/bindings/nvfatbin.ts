/**
 * nvFatbin, fat binary creation (libnvfatbin).
 *
 * @module
 */
import { type Checked, createChecked, functions, library as info, nvFatbinResult, type Raw } from "../../generated/cuda-13.0/nvfatbin/index.ts";
import { type BindingExtras, createBinding } from "./binding.ts";
import { libraryDescription, statusName } from "./describe.ts";
import { NvFatbinError } from "./errors.ts";

export * from "../../generated/cuda-13.0/nvfatbin/index.ts";

/** nvFatbin: checked functions, `.raw`, and the binding's facts. */
export type NvFatbinBinding = Checked & BindingExtras<Raw>;

/** nvFatbin. */
export const nvfatbin: NvFatbinBinding = createBinding<Raw, Checked>({
  library: "nvfatbin",
  info,
  functions,
  createChecked,
  makeError: (code, fn) => {
    const c = Number(code);
    return new NvFatbinError(c, statusName(nvFatbinResult, "nvFatbinResult", c), libraryDescription(nvfatbin, "nvFatbinGetErrorString", c) ?? "no description", fn);
  },
});
