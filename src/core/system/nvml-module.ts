/**
 * `system`'s NVML binding (./nvml-binding.ts, over the `system` subset of NVML's tables), loaded when `system` first
 * needs it on Bun, and at import elsewhere (src/deferred.ts says why).
 *
 * @module
 */
import type * as NvmlModule from "./nvml-binding.ts";
import { olderTables } from "../../bindings/tables/older-tables.ts";
import { loadOnFirstUse } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";
import { nativeRequire } from "../../host.ts";

/** `system`'s NVML binding's module, loaded on the first call where it was not at import. */
export const nvmlModule: () => typeof NvmlModule = await loadOnFirstUse(nativeRequire(import.meta), ownModuleUrl("src/core/system/nvml-binding"), "nvml", olderTables.load, () => import("./nvml-binding.ts"));
