/**
 * The NCCL binding (src/bindings/nccl.ts, with the tables of every NCCL version it carries), loaded when a
 * communicator, a unique id or a group first needs it on Bun, and at import elsewhere (src/deferred.ts says why).
 * What the object layer needs at import (NCCL's data types and reductions, NCCLError) comes from smaller modules.
 *
 * @module
 */
import type * as NcclModule from "../../bindings/nccl.ts";
import { deferredLoader, markLoaded } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";
import { nativeRequire } from "../../host.ts";

const deferred = deferredLoader<typeof NcclModule>(nativeRequire(import.meta), ownModuleUrl("src/bindings/nccl"), "nccl", false);
const eager: typeof NcclModule | undefined = deferred === undefined ? await import("../../bindings/nccl.ts") : undefined;
if (eager !== undefined) markLoaded("nccl");

/** The NCCL binding's module, loaded on the first call where it was not at import. */
export function ncclModule(): typeof NcclModule {
  return eager ?? (deferred as () => typeof NcclModule)();
}
