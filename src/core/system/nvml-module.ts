/**
 * The NVML binding (src/bindings/nvml.ts, with its tables: the largest the object layer uses), loaded when `system`
 * first needs it on Bun, and at import elsewhere (src/deferred.ts says why).
 *
 * @module
 */
import type * as NvmlModule from "../../bindings/nvml.ts";
import { olderTables } from "../../bindings/tables/older-tables.ts";
import { deferredLoader, markLoaded } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";
import { nativeRequire } from "../../host.ts";

const deferred = deferredLoader<typeof NvmlModule>(nativeRequire(import.meta), ownModuleUrl("src/bindings/nvml"), "nvml", olderTables.load);
const eager: typeof NvmlModule | undefined = deferred === undefined ? await import("../../bindings/nvml.ts") : undefined;
if (eager !== undefined) markLoaded("nvml");

/** The NVML binding's module, loaded on the first call where it was not at import. */
export function nvmlModule(): typeof NvmlModule {
  return eager ?? (deferred as () => typeof NvmlModule)();
}
