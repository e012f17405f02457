/**
 * The generated cusolver tables this package carries. The newest version's declarations are what `cuda-ts/bindings/cusolver`
 * exports (this file is where the default version is named); every version's table is offered to the binding,
 * which chooses one for the library it loads. Per-version entry points: src/bindings/cuda-X.Y/cusolver.ts.
 *
 * @module
 */
import * as v13_0 from "../../../generated/cuda-13.0/cusolver/index.ts";
import * as v12_4 from "../../../generated/cuda-12.4/cusolver/index.ts";
import type { GeneratedTable } from "./registry.ts";

export * from "../../../generated/cuda-13.0/cusolver/index.ts";

/** Every CTK version's table of cusolver, newest first. */
export const generatedTables: readonly GeneratedTable[] = [v13_0, v12_4];
