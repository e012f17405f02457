/**
 * The generated driver tables this package carries. The newest version's declarations are what `cuda-ts/bindings/driver`
 * exports (this file is where the default version is named); every version's table is offered to the binding,
 * which chooses one for the library it loads (the older ones only where the driver may need them). Per-version entry points: src/bindings/cuda-X.Y/driver.ts.
 *
 * @module
 */
import type * as CheckedImpl from "../../../generated/cuda-13.0/driver/checked-impl.ts";
import type * as CheckedCore from "../../../generated/cuda-13.0/driver/checked-impl.core.ts";
import type { Checked } from "../../../generated/cuda-13.0/driver/checked.ts";
import { functions, library, type Raw } from "../../../generated/cuda-13.0/driver/functions.ts";
import { type CheckedRuntime, lazyTableOf } from "../../tables-runtime/checked.ts";
import { deferredLoader, loadOnFirstUse } from "../../deferred.ts";
import { InvalidStateError } from "../../errors/base.ts";
import { ownModuleUrl } from "../../module-url.ts";
import { nativeRequire } from "../../host.ts";
import type { GeneratedTable } from "./registry.ts";
import { olderTables } from "./older-tables.ts";

// The function table of generated/cuda-13.0/driver/index.ts; its enums, constants and records are
// src/bindings/driver-types.ts's, so that the binding alone does not evaluate them.
export { functions, library, type Raw };
export type { Checked };

// The checked functions' makers come in two modules (headers-manifest.json's `makerParts`): the object layer's
// (checked-impl.core.ts, the functions src/core calls) and the whole table's (checked-impl.ts, the table's largest
// module of code). On Bun each loads at the first call that needs it (src/deferred.ts); elsewhere the object
// layer's part loads here, at import, and the whole table where the driver binding is handed to users
// (src/bindings/driver-entry.ts, `cuda-ts/bindings/driver`; and src/bindings/driver.ts), through
// {@link provideCheckedMakers}: importing the package root does not load the makers of the 280 functions the
// object layer never calls.
const coreMakers: () => typeof CheckedCore = await loadOnFirstUse(nativeRequire(import.meta), ownModuleUrl("generated/cuda-13.0/driver/checked-impl.core"), "driver checked (object layer)", false, () => import("../../../generated/cuda-13.0/driver/checked-impl.core.ts"));
let allMakers: (() => typeof CheckedImpl) | undefined = deferredLoader(nativeRequire(import.meta), ownModuleUrl("generated/cuda-13.0/driver/checked-impl"), "driver checked", false);

/** Whether the whole table's makers load on first use here (Bun), so that the entry points need not load them. */
export const checkedMakersLoadLater: boolean = allMakers !== undefined;

/** Gives the binding the whole table's makers (what the driver binding's entry points load at import off Bun). */
export function provideCheckedMakers(all: () => typeof CheckedImpl): void {
  allMakers = all;
}

type Maker = (raw: Raw, rt: CheckedRuntime) => unknown;

function makerOf(name: string): Maker {
  const core = coreMakers().makers as Readonly<Record<string, Maker>>;
  const own = core[name];
  if (own !== undefined) return own;
  if (allMakers === undefined) {
    throw new InvalidStateError(
      `driver.${name}: its checked function is not loaded. The package root loads only the checked functions the object layer calls; ` +
        'import the driver binding from "cuda-ts/bindings/driver" (which loads them all) to call the others.',
    );
  }
  return (allMakers().makers as Readonly<Record<string, Maker>>)[name]!;
}

/** Builds the checked call style over a raw table of CUDA 13.0's driver (generated/cuda-13.0/driver/checked-impl*.ts). */
export function createChecked(raw: Raw, rt: CheckedRuntime): Checked {
  return lazyTableOf<Checked, [Raw, CheckedRuntime]>(Object.keys(functions), makerOf, raw, rt);
}

const v13_0: GeneratedTable = { library, functions, createChecked: createChecked as GeneratedTable["createChecked"] };

/**
 * Every CTK version's table of driver, newest first. The older ones load only where the installed driver may need
 * them (./older-tables.ts says when): importing a table costs tens of milliseconds.
 */
export const generatedTables: readonly GeneratedTable[] = olderTables.load ? [v13_0, await import("../../../generated/cuda-12.4/driver/index.ts")] : [v13_0];

/** The CTK versions of the tables this package carries for driver, loaded or not, newest first. */
export const carriedVersions: readonly string[] = ["13.0", "12.4"];
