/**
 * The NVML functions `system` calls, bound over the generated `system` subset of NVML's tables
 * (generated/cuda-X.Y/nvml/system.ts: 33 functions, the records they return, the status enum and the constants
 * `system` reads) instead of the whole NVML binding (`cuda-ts/bindings/nvml`, half a megabyte of tables). Loaded
 * when `system` first needs NVML on Bun, at import on Deno (src/deferred.ts says why): there its size is what the
 * root's import pays.
 *
 * It is a binding of its own: NVML is opened once per process by the system loader whichever binding asks, and
 * `system` initialises and shuts down its own NVML session (NVML counts them).
 *
 * @module
 */
import * as v13_0 from "../../../generated/cuda-13.0/nvml/system.ts";
import { type Checked, createChecked, functions, library as info, nvmlReturn_t, type Raw } from "../../../generated/cuda-13.0/nvml/system.ts";
import { type BindingExtras, createBinding } from "../../bindings/binding.ts";
import { nvmlErrorOf } from "../../bindings/describe.ts";
import type { GeneratedTable } from "../../bindings/tables/registry.ts";
import { olderTables } from "../../bindings/tables/older-tables.ts";

export { NVML_DEVICE_NAME_V2_BUFFER_SIZE, NVML_DEVICE_UUID_V2_BUFFER_SIZE, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE, NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE, nvmlTemperature_v1, nvmlTemperature_v1_t } from "../../../generated/cuda-13.0/nvml/system.ts";

/** The subset's table of every CTK version, newest first (the older only where the driver may need them). */
const generatedTables: readonly GeneratedTable[] = olderTables.load ? [v13_0, await import("../../../generated/cuda-12.4/nvml/system.ts")] : [v13_0];

/** The NVML functions `system` calls: checked style, `.raw`, and the binding's facts. */
export type NvmlSystemBinding = Checked & BindingExtras<Raw>;

/** NVML, `system`'s part of it. */
export const nvml: NvmlSystemBinding = createBinding<Raw, Checked>({
  library: "nvml",
  info,
  functions,
  createChecked,
  tables: () => generatedTables,
  makeError: (code, fn) => nvmlErrorOf(nvmlReturn_t, nvml, Number(code), fn),
});
