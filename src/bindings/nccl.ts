/**
 * NCCL, collective communication across GPUs and processes (libnccl.so.2). A failed checked call throws an
 * {@link NCCLError} naming the status, with NCCL's own description and its last error message.
 *
 * NCCL versions apart from the CUDA Toolkit: the package carries tables generated from the NCCL 2.28 and 2.22
 * headers (generated/nccl-X.Y/), and the binding chooses, for the library it loads, the newest table not newer than
 * its `ncclGetVersion` (2.26 gets 2.22, 2.28 and 2.29 get 2.28). A function newer than the chosen table (such as
 * `ncclCommShrink` on an NCCL 2.22) fails on its first call with a {@link FunctionVersionError}.
 *
 * Its own entry point (`cuda-ts/bindings/nccl`), not part of `cuda-ts/bindings`: most programs never load NCCL.
 *
 * @module
 */
import { ffi } from "../ffi/index.ts";
import { generatedTables, functions, library as info, type Checked, createChecked, type Raw, ncclResult_t, ncclModules, type NcclModule } from "./tables/nccl.ts";
import { type BindingExtras, createBinding, type LoadedLibrary, newestNotNewerThan, queryInts, type TableChooser, chooseBySoname, versionNumber } from "./binding.ts";
import { libraryDescription, statusName } from "./describe.ts";
import { NCCLError } from "./nccl-error.ts";

export * from "./tables/nccl.ts";
export { NCCLError };

/** NCCL: checked functions, `.raw`, and the binding's facts. */
export type NcclBinding = Checked & BindingExtras<Raw>;

/** What each status means, for when the library cannot say (not loaded, or no text). */
const STATUS_TEXT: Readonly<Record<string, string>> = {
  ncclUnhandledCudaError: "a call to CUDA failed inside NCCL",
  ncclSystemError: "a system call failed (a socket, shared memory, a file)",
  ncclInternalError: "an internal check failed: a bug in NCCL or memory corruption",
  ncclInvalidArgument: "an argument is invalid",
  ncclInvalidUsage: "the call is not valid now (check the order of calls, or the communicator's state)",
  ncclRemoteError: "a remote process failed or the network connection broke",
  ncclInProgress: "the operation is in progress (a non-blocking communicator)",
};

/** A version as NCCL's `ncclGetVersion` reports it, split: 22809 → { major: 2, minor: 28, patch: 9 }. */
export interface NcclVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** The code itself (NCCL_VERSION_CODE). */
  readonly code: number;
}

/**
 * Splits an NCCL version code: major·10000 + minor·100 + patch from NCCL 2.9 on (22809 is 2.28.9), major·1000 +
 * minor·100 + patch before (2804 is 2.8.4).
 */
export function ncclVersionFromCode(code: number): NcclVersion {
  if (!Number.isSafeInteger(code) || code <= 0) throw new RangeError(`an NCCL version code is a positive integer such as 22809, not ${String(code)}`);
  if (code >= 20900) return { major: Math.floor(code / 10000), minor: Math.floor((code % 10000) / 100), patch: code % 100, code };
  return { major: Math.floor(code / 1000), minor: Math.floor((code % 1000) / 100), patch: code % 100, code };
}

/** Chooses the table by `ncclGetVersion`: the newest not newer than the library; by soname when it cannot say. */
export const chooseNcclTable: TableChooser = (lib, tables) => {
  let code: number | undefined;
  try {
    code = queryInts(lib, "ncclGetVersion", 1)?.[0];
  } catch {
    code = undefined;
  }
  if (code === undefined || code <= 0) return chooseBySoname(lib, tables);
  const v = ncclVersionFromCode(code);
  return { table: newestNotNewerThan(tables, versionNumber(`${v.major}.${v.minor}`)), libraryVersion: `${v.major}.${v.minor}`, reason: `ncclGetVersion ${code} (NCCL ${v.major}.${v.minor}.${v.patch})` };
};

/** Options of {@link createNcclBinding}. */
export interface NcclBindingOptions {
  /** Opens the library (default: the pathfinder: `CUDA_TS_NCCL_PATH`, the wheels' nvidia/nccl/lib, conda, the system loader). */
  readonly open?: () => LoadedLibrary;
}

/**
 * Builds an NCCL binding. The package's {@link nccl} is one; make another to bind a particular file (tests, a
 * second NCCL build).
 */
export function createNcclBinding(options: NcclBindingOptions = {}): NcclBinding {
  let binding: NcclBinding | undefined = undefined;
  binding = createBinding<Raw, Checked>({
    library: "nccl",
    info,
    functions,
    createChecked,
    tables: () => generatedTables,
    chooseTable: chooseNcclTable,
    ...(options.open !== undefined ? { open: options.open } : {}),
    makeError: (code, fn) => ncclError(binding!, Number(code), fn),
  });
  return binding;
}

/** NCCL (loaded on the first call). */
export const nccl: NcclBinding = createNcclBinding();

/**
 * The error for a status an NCCL call returned (or `ncclCommGetAsyncError` reported: `asynchronous`), with the
 * library's description and last error message. For callers of the raw style.
 */
export function ncclError(binding: NcclBinding, code: number, functionName: string, asynchronous = false): NCCLError {
  const name = statusName(ncclResult_t, "ncclResult_t", code);
  let description: string | undefined;
  let last: string | undefined;
  if (binding.loaded !== undefined) {
    description = libraryDescription(binding, "ncclGetErrorString", code);
    try {
      // ncclGetLastError is 2.13 and newer (both tables have it); NULL asks for the thread's last error.
      const s = ffi.readCString(binding.raw.ncclGetLastError(null));
      last = s === null || s === "" ? undefined : s;
    } catch {
      last = undefined;
    }
  }
  return new NCCLError(code, name, description ?? STATUS_TEXT[name] ?? "no description", functionName, last, asynchronous);
}

/** The generated module (records, constants) of the table the binding chose for its library (loads it). */
export function chosenNcclModule(binding: NcclBinding): NcclModule {
  const v = binding.table().table.library.ctkVersion;
  const m = ncclModules[v];
  if (m === undefined) throw new RangeError(`no generated NCCL module for the chosen table ${v}: tables/nccl.ts lists it in generatedTables but not in ncclModules`);
  return m;
}

/** The version of the loaded NCCL (loads it). */
export function loadedNcclVersion(binding: NcclBinding): NcclVersion {
  return ncclVersionFromCode(binding.ncclGetVersion());
}
