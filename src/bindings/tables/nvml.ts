/**
 * The generated nvml tables this package carries. The newest version's declarations are what `cuda-ts/bindings/nvml`
 * exports (this file is where the default version is named); every version's table is offered to the binding,
 * which chooses one for the library it loads (the older ones only where the driver may need them). Per-version entry points: src/bindings/cuda-X.Y/nvml.ts.
 *
 * @module
 */
import * as v13_0 from "../../../generated/cuda-13.0/nvml/index.ts";
import type { GeneratedTable } from "./registry.ts";
import { olderTables } from "./older-tables.ts";

export * from "../../../generated/cuda-13.0/nvml/index.ts";

/**
 * Every CTK version's table of nvml, newest first. The older ones load only where the installed driver may need
 * them (./older-tables.ts says when): importing a table costs tens of milliseconds.
 */
export const generatedTables: readonly GeneratedTable[] = olderTables.load ? [v13_0, await import("../../../generated/cuda-12.4/nvml/index.ts")] : [v13_0];

/** The CTK versions of the tables this package carries for nvml, loaded or not, newest first. */
export const carriedVersions: readonly string[] = ["13.0", "12.4"];
