/**
 * The generated driver tables this package carries. The newest version's declarations are what `cuda-ts/bindings/driver`
 * exports (this file is where the default version is named); every version's table is offered to the binding,
 * which chooses one for the library it loads (the older ones only where the driver may need them). Per-version entry points: src/bindings/cuda-X.Y/driver.ts.
 *
 * @module
 */
import type * as CheckedImpl from "../../../generated/cuda-13.0/driver/checked-impl.ts";
import type { Checked } from "../../../generated/cuda-13.0/driver/checked.ts";
import { functions, library, type Raw } from "../../../generated/cuda-13.0/driver/functions.ts";
import type { CheckedRuntime } from "../../tables-runtime/checked.ts";
import { loadOnFirstUse } from "../../deferred.ts";
import { ownModuleUrl } from "../../module-url.ts";
import { nativeRequire } from "../../host.ts";
import type { GeneratedTable } from "./registry.ts";
import { olderTables } from "./older-tables.ts";

// The function table of generated/cuda-13.0/driver/index.ts; its enums, constants and records are
// src/bindings/driver-types.ts's, so that the binding alone does not evaluate them. The checked functions' makers
// (checked-impl, the table's largest module of code) load when the binding first makes a checked function on Bun,
// not at import (src/deferred.ts).
export { functions, library, type Raw };
export type { Checked };

const checkedImpl: () => typeof CheckedImpl = await loadOnFirstUse(nativeRequire(import.meta), ownModuleUrl("generated/cuda-13.0/driver/checked-impl"), "driver checked", false, () => import("../../../generated/cuda-13.0/driver/checked-impl.ts"));

/** Builds the checked call style over a raw table of CUDA 13.0's driver (generated/cuda-13.0/driver/checked-impl.ts). */
export function createChecked(raw: Raw, rt: CheckedRuntime): Checked {
  return checkedImpl().createChecked(raw, rt);
}

const v13_0: GeneratedTable = { library, functions, createChecked: createChecked as GeneratedTable["createChecked"] };

/**
 * Every CTK version's table of driver, newest first. The older ones load only where the installed driver may need
 * them (./older-tables.ts says when): importing a table costs tens of milliseconds.
 */
export const generatedTables: readonly GeneratedTable[] = olderTables.load ? [v13_0, await import("../../../generated/cuda-12.4/driver/index.ts")] : [v13_0];

/** The CTK versions of the tables this package carries for driver, loaded or not, newest first. */
export const carriedVersions: readonly string[] = ["13.0", "12.4"];
