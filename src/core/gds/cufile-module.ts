/**
 * The GDS classes' cuFile binding (./cufile-binding.ts, over the `gds` subset of cuFile's tables), loaded when GDS
 * is first used on Bun, and at import elsewhere (src/deferred.ts says why).
 *
 * @module
 */
import type * as CuFileModule from "./cufile-binding.ts";
import { loadOnFirstUse } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";
import { nativeRequire } from "../../host.ts";

/** The GDS classes' cuFile binding's module, loaded on the first call where it was not at import. */
export const cufileModule: () => typeof CuFileModule = await loadOnFirstUse(nativeRequire(import.meta), ownModuleUrl("src/core/gds/cufile-binding"), "cufile", false, () => import("./cufile-binding.ts"));
