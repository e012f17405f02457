/**
 * What the cuFile driver reports, as data and as the line `cuda-ts doctor` prints (no cuFile loaded by this module).
 *
 * @module
 */
import { formatCudaVersion } from "../../bindings/describe.ts";

/** Which way cuFile moves data. */
export type GdsMode = "gds" | "compat" | "unavailable";

/** What the cuFile driver reports ({@link gdsStatus}). */
export interface GdsStatus {
  /** `"gds"`: nvidia-fs is loaded, reads and writes go straight between storage and GPU memory; `"compat"`: POSIX
   *  I/O through bounce buffers (no nvidia-fs, or compatibility mode forced); `"unavailable"`: neither. */
  readonly mode: GdsMode;
  /** libcufile's version (cuFileGetVersion, e.g. 1150 for 1.15), when the library has the call. */
  readonly libraryVersion: number | undefined;
  /** The nvidia-fs kernel module's version, `"0.0"` when it is not loaded. */
  readonly nvfsVersion: string;
  /** Whether compatibility mode is allowed (properties.allow_compat_mode). */
  readonly compatAllowed: boolean;
  /** Whether compatibility mode is forced (CUFILE_FORCE_COMPAT_MODE). */
  readonly compatForced: boolean;
  /** The storage kinds nvidia-fs supports (names from CUfileDriverStatusFlags: `"NVME"`, `"NFS"`, ...). */
  readonly supported: readonly string[];
  /** Whether batch I/O (cuFileBatchIO*) is available. */
  readonly batchIO: boolean;
  /** Whether stream-ordered I/O (cuFileReadAsync/WriteAsync) is available. */
  readonly streams: boolean;
  /** The most operations of one batch. */
  readonly maxBatchIOSize: number;
  /** The largest direct I/O, in bytes. */
  readonly maxDirectIOSize: bigint;
}

/** One line for `cuda-ts doctor`. */
export function formatGdsStatus(s: GdsStatus): string {
  const version = s.libraryVersion === undefined ? "" : ` (libcufile ${formatCudaVersion(s.libraryVersion)})`;
  const features = [s.batchIO ? "batch I/O" : "", s.streams ? "stream I/O" : ""].filter((f) => f !== "").join(", ");
  const extra = features === "" ? "" : `; ${features}`;
  switch (s.mode) {
    case "gds":
      return `GPUDirect Storage: GDS mode, nvidia-fs ${s.nvfsVersion}${s.supported.length > 0 ? ` (${s.supported.join(", ")})` : ""}${version}${extra}`;
    case "compat":
      return `GPUDirect Storage: compatibility mode (${s.compatForced ? "forced by CUFILE_FORCE_COMPAT_MODE" : "no nvidia-fs: POSIX I/O through bounce buffers"})${version}${extra}`;
    default:
      return `GPUDirect Storage: unavailable (no nvidia-fs, and compatibility mode is off: set "allow_compat_mode": true in cufile.json or CUFILE_FORCE_COMPAT_MODE=true)${version}`;
  }
}
