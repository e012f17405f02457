/**
 * The NCCL binding (src/bindings/nccl.ts, with the tables of every NCCL version it carries), loaded when a
 * communicator, a unique id or a group first needs it on Bun, and at import elsewhere (src/deferred.ts says why).
 * What the object layer needs at import (NCCL's data types and reductions, NCCLError) comes from smaller modules.
 *
 * @module
 */
import type * as NcclModule from "../../bindings/nccl.ts";
import { loadOnFirstUse } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";
import { nativeRequire } from "../../host.ts";

/** The NCCL binding's module, loaded on the first call where it was not at import. */
export const ncclModule: () => typeof NcclModule = await loadOnFirstUse(nativeRequire(import.meta), ownModuleUrl("src/bindings/nccl"), "nccl", false, () => import("../../bindings/nccl.ts"));
