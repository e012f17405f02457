/**
 * Loads the whole driver table's checked makers at import where they cannot load at their first call (off Bun:
 * src/deferred.ts says why). Imported by the modules that hand the driver binding to users
 * (`cuda-ts/bindings/driver`, `cuda-ts/bindings`, the per-version entry points), never by the package root, whose
 * object layer needs only its own part of them (src/bindings/tables/driver.ts).
 *
 * @module
 */
import type * as CheckedImpl from "../../generated/cuda-13.0/driver/checked-impl.ts";
import { loadOnFirstUse } from "../deferred.ts";
import { ownModuleUrl } from "../module-url.ts";
import { checkedMakersLoadLater, provideCheckedMakers } from "./tables/driver.ts";

if (!checkedMakersLoadLater) {
  const all: () => typeof CheckedImpl = await loadOnFirstUse(undefined, ownModuleUrl("generated/cuda-13.0/driver/checked-impl"), "driver checked", true, () => import("../../generated/cuda-13.0/driver/checked-impl.ts"));
  provideCheckedMakers(all);
}
