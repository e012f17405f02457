/**
 * The generated NCCL tables this package carries. NCCL versions apart from the CUDA Toolkit (generated/nccl-X.Y/,
 * the manifest's second version axis): 2.28 (the PyTorch wheels' NCCL) and 2.22 (Debian's libnccl2). The newest
 * version's declarations are what `cuda-ts/bindings/nccl` exports; the binding chooses one table for the library
 * it loads (its `ncclGetVersion`).
 *
 * @module
 */
import * as v2_28 from "../../../generated/nccl-2.28/nccl/index.ts";
import * as v2_22 from "../../../generated/nccl-2.22/nccl/index.ts";
import type { GeneratedTable } from "./registry.ts";

export * from "../../../generated/nccl-2.28/nccl/index.ts";

/** Every NCCL version's table, newest first (`library.ctkVersion` holds the NCCL version, "2.28"). */
export const generatedTables: readonly GeneratedTable[] = [v2_28, v2_22];

/** One NCCL version's generated module: its records (ncclConfig_t, ncclUniqueId) and constants as that version lays them out. */
export type NcclModule = typeof v2_28 | typeof v2_22;

/** The generated module of each NCCL version, by version ("2.28"). */
export const ncclModules: Readonly<Record<string, NcclModule>> = { "2.28": v2_28, "2.22": v2_22 };
