/**
 * NVML, the NVIDIA Management Library (libnvidia-ml, a driver library: found through the system loader).
 *
 * @module
 */
import { type Checked, createChecked, generatedTables, functions, library as info, nvmlReturn_t, type Raw } from "./tables/nvml.ts";
import { type BindingExtras, createBinding } from "./binding.ts";
import { nvmlErrorOf } from "./describe.ts";

export * from "./tables/nvml.ts";

/** NVML: checked functions, `.raw`, and the binding's facts. */
export type NvmlBinding = Checked & BindingExtras<Raw>;

/** NVML. */
export const nvml: NvmlBinding = createBinding<Raw, Checked>({
  library: "nvml",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  makeError: (code, fn) => nvmlErrorOf(nvmlReturn_t, nvml, Number(code), fn),
});
