/**
 * PMIx, the process management interface of Slurm (`srun --mpi=pmix`) and Open MPI (`mpirun`): how the processes of
 * a job that a resource manager started learn who they are and exchange small values (libpmix.so.2). A failed checked
 * call throws a {@link PMIxError} naming the status, with PMIx's own description (`PMIx_Error_string`).
 *
 * PMIx versions apart from the CUDA Toolkit: the package carries the tables generated from the PMIx 4.2 headers
 * (generated/pmix-4.2/, Debian's libpmix-dev); PMIx keeps its client interface stable across versions (a PMIx 5
 * library serves these calls too). The object layer uses it in src/core/distributed/pmix-meeting.ts, where ranks meet
 * through `PMIx_Put`, `PMIx_Commit`, `PMIx_Fence` and `PMIx_Get`.
 *
 * @module
 */
import { ffi } from "../ffi/index.ts";
import * as v4_2 from "../../generated/pmix-4.2/pmix/index.ts";
import { functions, library as info, type Checked, createChecked, type Raw } from "../../generated/pmix-4.2/pmix/index.ts";
import { type BindingExtras, createBinding, type LoadedLibrary } from "./binding.ts";
import type { GeneratedTable } from "./tables/registry.ts";
import { PMIxError } from "./pmix-error.ts";

export * from "../../generated/pmix-4.2/pmix/index.ts";
export { PMIxError };

/** PMIx: checked functions, `.raw`, and the binding's facts. */
export type PmixBinding = Checked & BindingExtras<Raw>;

/** The generated PMIx tables this package carries, newest first. */
export const generatedTables: readonly GeneratedTable[] = [v4_2];

/** Options of {@link createPmixBinding}. */
export interface PmixBindingOptions {
  /** Opens the library (default: the pathfinder: `CUDA_TS_PMIX_PATH`, then the system loader's libpmix.so.2). */
  readonly open?: () => LoadedLibrary;
}

/** The names of PMIx's status codes (the `PMIX_ERR_*` constants and `PMIX_SUCCESS`), by value. */
function statusNameOf(code: number): string {
  for (const [name, value] of Object.entries(v4_2)) {
    if (value === code && typeof value === "number" && /^PMIX_(ERR_|SUCCESS$|ERROR$)/.test(name)) return name;
  }
  return `pmix_status_t ${code}`;
}

/** Builds a PMIx binding. The package's {@link pmix} is one; make another to bind a particular file (tests). */
export function createPmixBinding(options: PmixBindingOptions = {}): PmixBinding {
  let binding: PmixBinding | undefined = undefined;
  binding = createBinding<Raw, Checked>({
    library: "pmix",
    info,
    functions,
    createChecked,
    tables: () => generatedTables,
    ...(options.open !== undefined ? { open: options.open } : {}),
    makeError: (code, fn) => pmixError(binding!, Number(code), fn),
  });
  return binding;
}

/** PMIx (loaded on the first call). */
export const pmix: PmixBinding = createPmixBinding();

/**
 * The error for a status a PMIx call returned, with the library's description when it is loaded (for callers of the
 * raw style). `advice` says what to do.
 */
export function pmixError(binding: PmixBinding, code: number, functionName: string, advice?: string): PMIxError {
  let description: string | undefined;
  if (binding.loaded !== undefined) {
    try {
      description = ffi.readCString(binding.raw.PMIx_Error_string(code)) ?? undefined;
    } catch {
      description = undefined;
    }
  }
  return new PMIxError(code, statusNameOf(code), description ?? "no description", functionName, advice);
}
