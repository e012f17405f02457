/**
 * The pathfinder, for the layers above it: loaded when a library is first looked for on Bun, and at import elsewhere
 * (src/deferred.ts says why). Nineteen modules a script that imports cuda-ts but has not yet loaded a library does
 * not need.
 *
 * @module
 */
import type * as PathfinderModule from "./index.ts";
import { loadOnFirstUse } from "../deferred.ts";
import { ownModuleUrl } from "../module-url.ts";
import { nativeRequire } from "../host.ts";

/** The pathfinder's module (src/pathfinder/index.ts), loaded on the first call where it was not at import. */
export const pathfinder: () => typeof PathfinderModule = await loadOnFirstUse(nativeRequire(import.meta), ownModuleUrl("src/pathfinder/index"), "pathfinder", false, () => import("./index.ts"));
