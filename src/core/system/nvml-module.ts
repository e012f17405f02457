/**
 * `system`'s NVML binding (./nvml-binding.ts, over the `system` subset of NVML's tables), loaded when `system` first
 * needs it on Bun, and at import elsewhere (src/deferred.ts says why).
 *
 * @module
 */
import type * as NvmlModule from "./nvml-binding.ts";
import { olderTables } from "../../bindings/tables/older-tables.ts";
import { deferredLoader, markLoaded } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";
import { nativeRequire } from "../../host.ts";

const deferred = deferredLoader<typeof NvmlModule>(nativeRequire(import.meta), ownModuleUrl("src/core/system/nvml-binding"), "nvml", olderTables.load);
const eager: typeof NvmlModule | undefined = deferred === undefined ? await import("./nvml-binding.ts") : undefined;
if (eager !== undefined) markLoaded("nvml");

/** `system`'s NVML binding's module, loaded on the first call where it was not at import. */
export function nvmlModule(): typeof NvmlModule {
  return eager ?? (deferred as () => typeof NvmlModule)();
}
