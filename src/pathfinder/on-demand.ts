/**
 * The pathfinder, for the layers above it: loaded when a library is first looked for on Bun, and at import elsewhere
 * (src/deferred.ts says why). Nineteen modules a script that imports cuda-ts but has not yet loaded a library does
 * not need.
 *
 * @module
 */
import type * as PathfinderModule from "./index.ts";
import { deferredLoader, markLoaded } from "../deferred.ts";
import { ownModuleUrl } from "../module-url.ts";
import { nativeRequire } from "../host.ts";

const deferred = deferredLoader<typeof PathfinderModule>(nativeRequire(import.meta), ownModuleUrl("src/pathfinder/index"), "pathfinder", false);
const eager: typeof PathfinderModule | undefined = deferred === undefined ? await import("./index.ts") : undefined;
if (eager !== undefined) markLoaded("pathfinder");

/** The pathfinder's module (src/pathfinder/index.ts), loaded on the first call where it was not at import. */
export function pathfinder(): typeof PathfinderModule {
  return eager ?? (deferred as () => typeof PathfinderModule)();
}
