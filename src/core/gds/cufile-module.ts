/**
 * The cuFile binding (src/bindings/cufile.ts, with its tables), loaded when GDS is first used on Bun, and at import
 * elsewhere (src/deferred.ts says why).
 *
 * @module
 */
import type * as CuFileModule from "../../bindings/cufile.ts";
import { deferredLoader, markLoaded } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";
import { nativeRequire } from "../../host.ts";

const deferred = deferredLoader<typeof CuFileModule>(nativeRequire(import.meta), ownModuleUrl("src/bindings/cufile"), "cufile", false);
const eager: typeof CuFileModule | undefined = deferred === undefined ? await import("../../bindings/cufile.ts") : undefined;
if (eager !== undefined) markLoaded("cufile");

/** The cuFile binding's module, loaded on the first call where it was not at import. */
export function cufileModule(): typeof CuFileModule {
  return eager ?? (deferred as () => typeof CuFileModule)();
}
