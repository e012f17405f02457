/**
 * Whether this process loads the generated tables of CUDA versions older than the newest, for the libraries that come
 * with the NVIDIA driver (the driver API and NVML).
 *
 * Each table costs tens of milliseconds to import, and a script whose driver supports the newest CUDA never uses the
 * older ones: the driver binding chooses the newest table not newer than `cuDriverGetVersion`. The installed kernel
 * module says which that will be before anything is loaded: /proc/driver/nvidia/version names it (580 is the first
 * branch of CUDA 13.0), and a libcuda never reports an older CUDA than its kernel module (forward-compatibility
 * packages report a newer one). So the older tables are left out only when all of these hold:
 * - the kernel module's branch is at least the newest table's first driver branch;
 * - nothing points the driver binding elsewhere: `CUDA_TS_CUDA_PATH`, `CUDA_TS_DRIVER_TABLE` and `CUDA_TS_CUDA_MAJOR`
 *   are unset;
 * - `CUDA_TS_TABLES` is not `all`.
 * Anything unknown (no /proc file, no permission to read it, WSL) loads them all, as before, unless
 * `CUDA_TS_TABLES=newest` says the driver supports the newest table (a container without the kernel module's /proc
 * file, on a driver of branch 580 or newer): then only the newest loads, and an older driver is refused on its first
 * call with a TableNotLoadedError that says so.
 *
 * @module
 */
import { readSmallFile } from "../../ffi/libc-read.ts";
import { getEnv } from "../../host.ts";
import { InvalidStateError, quietFields } from "../../errors/base.ts";

/** The first driver branch of CUDA 13.0 (the newest generated table's version). */
export const FIRST_BRANCH_OF_NEWEST = 580;

/** The file the NVIDIA kernel module writes its version into. */
export const KERNEL_MODULE_VERSION_FILE = "/proc/driver/nvidia/version";

/** The variable that makes every carried table load (`CUDA_TS_TABLES=all`), or only the newest (`newest`). */
export const TABLES_VARIABLE = "CUDA_TS_TABLES";

/** The branch (580 of "580.95.05") of the kernel module the text of /proc/driver/nvidia/version names, if any. */
export function kernelModuleBranch(text: string): number | undefined {
  const m = /Kernel Module.*?\s(\d+)\.\d+(?:\.\d+)?\s/.exec(text);
  return m === null ? undefined : Number(m[1]);
}

/** Why the older tables load, or are left out (for `doctor` and the error that asks for them). */
export interface OlderTablesDecision {
  /** Whether the driver's and NVML's older tables are loaded. */
  readonly load: boolean;
  /** Why, in words. */
  readonly reason: string;
  /** The kernel module's branch, where /proc said. */
  readonly kernelBranch?: number;
}

/**
 * The decision, from the environment (`env`) and the kernel module's version file (`readVersionFile`): see the
 * module's documentation for the rules, in the order they are applied here.
 */
export function decideOlderTables(env: (name: string) => string | undefined, readVersionFile: () => Uint8Array | undefined): OlderTablesDecision {
  const tables = env(TABLES_VARIABLE);
  if (tables === "all") return { load: true, reason: `${TABLES_VARIABLE}=all` };
  for (const v of ["CUDA_TS_CUDA_PATH", "CUDA_TS_DRIVER_TABLE", "CUDA_TS_CUDA_MAJOR"]) {
    const value = env(v);
    if (value !== undefined && value !== "") return { load: true, reason: `${v} is set` };
  }
  if (tables === "newest") return { load: false, reason: `${TABLES_VARIABLE}=newest` };
  const bytes = readVersionFile();
  if (bytes === undefined) return { load: true, reason: `${KERNEL_MODULE_VERSION_FILE} could not be read` };
  const branch = kernelModuleBranch(new TextDecoder().decode(bytes));
  if (branch === undefined) return { load: true, reason: `${KERNEL_MODULE_VERSION_FILE} names no kernel module version` };
  if (branch < FIRST_BRANCH_OF_NEWEST) return { load: true, reason: `the kernel module is of branch ${branch}, older than CUDA 13.0's ${FIRST_BRANCH_OF_NEWEST}`, kernelBranch: branch };
  return { load: false, reason: `the kernel module is of branch ${branch}: its driver supports CUDA 13.0, the newest table`, kernelBranch: branch };
}

/** This process's decision, made once at import. */
export const olderTables: OlderTablesDecision = decideOlderTables(getEnv, () => readSmallFile(KERNEL_MODULE_VERSION_FILE));

/** Raised when a table this process left out is asked for (a pin to an older version after start). */
export class TableNotLoadedError extends InvalidStateError {
  constructor(
    readonly library: string,
    readonly ctkVersion: string,
  ) {
    super(
      `${library}: the CUDA ${ctkVersion} table was not loaded at start (${olderTables.reason}). ` +
        `Set ${TABLES_VARIABLE}=all (or CUDA_TS_DRIVER_TABLE=${ctkVersion}) before the process starts, ` +
        `or import the version's own entry point (cuda-ts/bindings/cuda-${ctkVersion}/${library}).`,
    );
    this.name = "TableNotLoadedError";
    quietFields(this);
  }
}
