/**
 * The generated cublas tables this package carries (CUDA 13.0 only: the math libraries' 12.x headers are not
 * generated yet). The default version is named here.
 *
 * @module
 */
import * as v13_0 from "../../../generated/cuda-13.0/cublas/index.ts";
import type { GeneratedTable } from "./registry.ts";

export * from "../../../generated/cuda-13.0/cublas/index.ts";

/** Every CTK version's table of cublas, newest first. */
export const generatedTables: readonly GeneratedTable[] = [v13_0];
