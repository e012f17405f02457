/**
 * The cuFile driver, opened once per process: `acquireGdsDriver()` opens it on first use (cuFileDriverOpen) and
 * counts its users (each CuFile and registered buffer holds one); the last release closes it (cuFileDriverClose).
 * `gdsStatus()` says what the driver reports: its version, whether the nvidia-fs kernel module serves GPUDirect
 * Storage or cuFile runs in compatibility mode (POSIX I/O through bounce buffers, where there is no GDS: a VM, a
 * file system without O_DIRECT), and which features the library has.
 *
 * Compatibility mode is allowed by cuFile's configuration: `"properties": { "allow_compat_mode": true }` in the
 * cufile.json that `CUFILE_ENV_PATH_JSON` names (default /etc/cufile.json), or forced with the environment variable
 * `CUFILE_FORCE_COMPAT_MODE=true`; both are read when the driver opens.
 *
 * @module
 */
import type { GdsStatus } from "./status.ts";
import { cufile, CUfileDrvProps, CUfileDriverControlFlags_t, CUfileDriverStatusFlags_t, CUfileFeatureFlags_t, CUFileBoolConfigParameter_t } from "../../bindings/cufile.ts";

let users = 0;

/** A hold on the open cuFile driver; `release()` (or `using`) gives it back (the last one closes the driver). */
export interface GdsDriverHold {
  release(): void;
  [Symbol.dispose](): void;
}

/** Opens the cuFile driver if it is not open and counts one more user. Throws CuFileError or LibraryNotFoundError. */
export function acquireGdsDriver(): GdsDriverHold {
  if (users === 0) cufile.cuFileDriverOpen();
  users++;
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    users--;
    if (users === 0) {
      try {
        cufile.cuFileDriverClose();
      } catch {
        // Closing reports failures the caller cannot act on (the driver is gone either way).
      }
    }
  };
  return { release, [Symbol.dispose]: release };
}

/** How many holds on the cuFile driver are live (0: it is closed). */
export function gdsDriverUsers(): number {
  return users;
}

function bit(flags: number, index: number): boolean {
  return ((flags >>> index) & 1) === 1;
}

/** Decodes the driver's properties and parameters (exported for tests: no cuFile needed). */
export function decodeGdsStatus(props: {
  readonly major: number;
  readonly minor: number;
  readonly dstatusflags: number;
  readonly dcontrolflags: number;
  readonly fflags: number;
  readonly maxBatchIOSize: number;
  readonly maxDirectIOSize: bigint;
  readonly libraryVersion: number | undefined;
  readonly compatForced: boolean;
}): GdsStatus {
  const compatAllowed = bit(props.dcontrolflags, CUfileDriverControlFlags_t.CU_FILE_ALLOW_COMPAT_MODE);
  const nvfsLoaded = props.major !== 0 || props.minor !== 0;
  const supported = Object.entries(CUfileDriverStatusFlags_t)
    .filter(([, i]) => bit(props.dstatusflags, i))
    .map(([name]) => name.replace(/^CU_FILE_/, "").replace(/_SUPPORTED$/, ""));
  const mode: GdsStatus["mode"] = nvfsLoaded && !props.compatForced ? "gds" : compatAllowed || props.compatForced ? "compat" : "unavailable";
  return {
    mode,
    libraryVersion: props.libraryVersion,
    nvfsVersion: `${props.major}.${props.minor}`,
    compatAllowed,
    compatForced: props.compatForced,
    supported,
    batchIO: bit(props.fflags, CUfileFeatureFlags_t.CU_FILE_BATCH_IO_SUPPORTED),
    streams: bit(props.fflags, CUfileFeatureFlags_t.CU_FILE_STREAMS_SUPPORTED),
    maxBatchIOSize: props.maxBatchIOSize,
    maxDirectIOSize: props.maxDirectIOSize,
  };
}

function optional<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/**
 * What the cuFile driver reports (opening it for the call when nobody holds it). Throws LibraryNotFoundError
 * without libcufile, CuFileError when the driver does not open (no GDS and compatibility mode not allowed).
 */
export function gdsStatus(): GdsStatus {
  using _hold = acquireGdsDriver();
  const props = cufile.cuFileDriverGetProperties(new CUfileDrvProps());
  return decodeGdsStatus({
    major: props.nvfs.major_version,
    minor: props.nvfs.minor_version,
    dstatusflags: props.nvfs.dstatusflags,
    dcontrolflags: props.nvfs.dcontrolflags,
    fflags: props.fflags,
    maxBatchIOSize: props.max_batch_io_size,
    maxDirectIOSize: props.nvfs.max_direct_io_size,
    libraryVersion: optional(() => cufile.cuFileGetVersion()),
    compatForced: optional(() => cufile.cuFileGetParameterBool(CUFileBoolConfigParameter_t.CUFILE_PARAM_FORCE_COMPAT_MODE)) ?? false,
  });
}
