/**
 * The GDS classes' cuFile binding (./cufile-binding.ts, over the `gds` subset of cuFile's tables), loaded when GDS
 * is first used on Bun, and at import elsewhere (src/deferred.ts says why).
 *
 * @module
 */
import type * as CuFileModule from "./cufile-binding.ts";
import { deferredLoader, markLoaded } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";
import { nativeRequire } from "../../host.ts";

const deferred = deferredLoader<typeof CuFileModule>(nativeRequire(import.meta), ownModuleUrl("src/core/gds/cufile-binding"), "cufile", false);
const eager: typeof CuFileModule | undefined = deferred === undefined ? await import("./cufile-binding.ts") : undefined;
if (eager !== undefined) markLoaded("cufile");

/** The GDS classes' cuFile binding's module, loaded on the first call where it was not at import. */
export function cufileModule(): typeof CuFileModule {
  return eager ?? (deferred as () => typeof CuFileModule)();
}
