/**
 * The cuFile driver, opened once per process: `acquireGdsDriver()` opens it on first use (cuFileDriverOpen) and
 * counts its users (each CuFile, registered buffer and batch holds one); it stays open (cuFile releases it at exit)
 * unless `closeGdsDriver()` closes it while nobody holds it.
 * `gdsStatus()` says what the driver reports: its version, whether the nvidia-fs kernel module serves GPUDirect
 * Storage or cuFile runs in compatibility mode (POSIX I/O through bounce buffers, where there is no GDS: a VM, a
 * file system without O_DIRECT), and which features the library has.
 *
 * Compatibility mode is allowed by cuFile's configuration: `"properties": { "allow_compat_mode": true }` in the
 * cufile.json that `CUFILE_ENV_PATH_JSON` names (default /etc/cufile.json), or forced with the environment variable
 * `CUFILE_FORCE_COMPAT_MODE=true`; both are read when the driver opens. From a program, `configureGdsDriver({
 * allowCompatMode: true })` before the first cuFile use does the same (cuFileSetParameterBool, which cuFile takes
 * only while its driver is closed).
 *
 * @module
 */
import type { GdsStatus } from "./status.ts";
import { describeValue } from "../../errors/describe.ts";
import { cufileModule } from "./cufile-module.ts";

let users = 0;

/** Options of {@link configureGdsDriver}. */
export interface GdsDriverOptions {
  /** Allow compatibility mode (POSIX I/O through bounce buffers where GDS is not available). */
  readonly allowCompatMode?: boolean;
  /** Use compatibility mode even where GDS is available. */
  readonly forceCompatMode?: boolean;
}

/**
 * Sets cuFile's mode parameters (cuFileSetParameterBool) for the next opening of its driver. Throws RangeError
 * while the driver is open (cuFile reads them only when it opens: close every CuFile, registered buffer and batch
 * first), LibraryNotFoundError without libcufile.
 */
export function configureGdsDriver(options: GdsDriverOptions): void {
  if (typeof options !== "object" || options === null) throw new TypeError(`configureGdsDriver: expected an options object, got ${describeValue(options)}`);
  for (const k of ["allowCompatMode", "forceCompatMode"] as const) {
    if (options[k] !== undefined && typeof options[k] !== "boolean") throw new TypeError(`configureGdsDriver: ${k} must be a boolean, got ${describeValue(options[k])}`);
  }
  if (open) {
    throw new RangeError("configureGdsDriver: the cuFile driver is open, and cuFile takes these parameters only before it opens: call it before the first cuFile use, or closeGdsDriver() first");
  }
  const { cufile, CUFileBoolConfigParameter_t } = cufileModule();
  if (options.allowCompatMode !== undefined) cufile.cuFileSetParameterBool(CUFileBoolConfigParameter_t.CUFILE_PARAM_PROPERTIES_ALLOW_COMPAT_MODE, options.allowCompatMode);
  if (options.forceCompatMode !== undefined) cufile.cuFileSetParameterBool(CUFileBoolConfigParameter_t.CUFILE_PARAM_FORCE_COMPAT_MODE, options.forceCompatMode);
}

let open = false;

/** A hold on the open cuFile driver; `release()` (or `using`) gives it back. */
export interface GdsDriverHold {
  release(): void;
  [Symbol.dispose](): void;
}

/**
 * Opens the cuFile driver on first use (cuFileDriverOpen) and counts one more user. The driver then stays open
 * for the process (cuFile releases it at exit; opening it is the expensive part), unless {@link closeGdsDriver}
 * closes it while nobody holds it. Throws CuFileError or LibraryNotFoundError.
 */
export function acquireGdsDriver(): GdsDriverHold {
  if (!open) {
    cufileModule().cufile.cuFileDriverOpen();
    open = true;
  }
  users++;
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    users--;
  };
  return { release, [Symbol.dispose]: release };
}

/** How many holds on the cuFile driver are live (files, registered buffers, batches). */
export function gdsDriverUsers(): number {
  return users;
}

/** Whether the cuFile driver is open in this process. */
export function gdsDriverIsOpen(): boolean {
  return open;
}

/**
 * Closes the cuFile driver (cuFileDriverClose) if it is open and nothing holds it; throws RangeError while files,
 * registered buffers or batches are open. The next cuFile use opens it again (with the parameters of
 * {@link configureGdsDriver}).
 */
export function closeGdsDriver(): void {
  if (!open) return;
  if (users > 0) throw new RangeError(`closeGdsDriver: ${users} CuFiles, registered buffers or batches still use the cuFile driver: close them first`);
  open = false;
  cufileModule().cufile.cuFileDriverClose();
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
  const { CUfileDriverControlFlags_t, CUfileDriverStatusFlags_t, CUfileFeatureFlags_t } = cufileModule();
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
 * What the cuFile driver reports (opening the driver if it is not open yet). Throws LibraryNotFoundError
 * without libcufile, CuFileError when the driver does not open (no GDS and compatibility mode not allowed).
 */
export function gdsStatus(): GdsStatus {
  using _hold = acquireGdsDriver();
  const { cufile, CUfileDrvProps, CUFileBoolConfigParameter_t } = cufileModule();
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
