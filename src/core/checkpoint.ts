/**
 * Checkpointing a process's CUDA state (`cuCheckpointProcess*`, CUDA 12.8+ drivers on Linux), as cuda.core's
 * `checkpoint.Process`: `lock` stops new CUDA work of the process (waiting up to a timeout for what runs),
 * `checkpoint` moves its device memory to host memory and releases the GPUs, `restore` brings it back (optionally
 * onto other GPUs of the same kind), `unlock` lets it run again. Used on another process (by pid, as a
 * checkpoint/restore tool would), or carefully on this one. Where the driver cannot (too old, not supported on this
 * system, not permitted) the call throws a {@link CheckpointUnsupportedError} naming why; other driver errors stay
 * CUDAErrors.
 *
 * @module
 */
import { CUcheckpointCheckpointArgs_st, CUcheckpointGpuPair_st, CUcheckpointLockArgs_st, CUcheckpointRestoreArgs_st, CUcheckpointUnlockArgs_st, CUprocessState } from "../bindings/driver.ts";
import { CudaError, FunctionNotFoundError } from "../bindings/errors.ts";
import { formatCudaVersion } from "../bindings/describe.ts";
import { ffi } from "../ffi/index.ts";
import { driver, ensureInit } from "./base/driver-state.ts";
import { describeValue } from "../errors/describe.ts";
import { CheckpointUnsupportedError } from "./checkpoint-errors.ts";

/** The checkpoint states of a process. */
export type ProcessState = "running" | "locked" | "checkpointed" | "failed";

const STATES: Readonly<Record<number, ProcessState>> = {
  [CUprocessState.CU_PROCESS_STATE_RUNNING]: "running",
  [CUprocessState.CU_PROCESS_STATE_LOCKED]: "locked",
  [CUprocessState.CU_PROCESS_STATE_CHECKPOINTED]: "checkpointed",
  [CUprocessState.CU_PROCESS_STATE_FAILED]: "failed",
};

/** The driver version that has the checkpoint calls (12.8). */
export const CHECKPOINT_DRIVER_VERSION = 12080;

const UNSUPPORTED = new Set(["CUDA_ERROR_NOT_SUPPORTED", "CUDA_ERROR_NOT_PERMITTED"]);

/** A GPU of the checkpointed process and the GPU to restore its state onto (UUIDs, as `device.uuid` gives them). */
export interface GpuMapping {
  readonly from: string;
  readonly to: string;
}

/** The 16 bytes of a UUID string ("GPU-" prefix and dashes optional). */
export function uuidBytes(uuid: string, what: string): Uint8Array {
  const hex = typeof uuid === "string" ? uuid.replace(/^GPU-/i, "").replace(/-/g, "") : "";
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new TypeError(`${what}: a GPU UUID is 32 hex digits (dashes and a "GPU-" prefix allowed), not ${describeValue(uuid)}`);
  return Uint8Array.from({ length: 16 }, (_, i) => parseInt(hex.slice(2 * i, 2 * i + 2), 16));
}

/** The CUDA checkpoint state of a process (by pid). */
export class CheckpointProcess {
  /** The process id. */
  readonly pid: number;

  constructor(pid: number) {
    if (!Number.isInteger(pid) || pid <= 0 || pid > 0x7fffffff) throw new TypeError(`CheckpointProcess takes a process id (a positive integer), not ${describeValue(pid)}`);
    this.pid = pid;
  }

  #call<T>(name: string, fn: () => T): T {
    ensureInit();
    const v = driver.driverVersion();
    if (v < CHECKPOINT_DRIVER_VERSION) {
      throw new CheckpointUnsupportedError(`${name}: checkpointing needs a CUDA ${formatCudaVersion(CHECKPOINT_DRIVER_VERSION)} driver; this one supports CUDA ${formatCudaVersion(v)}`);
    }
    try {
      return fn();
    } catch (e) {
      if (e instanceof CudaError && UNSUPPORTED.has(e.codeName)) {
        throw new CheckpointUnsupportedError(`${name} (process ${this.pid}): the driver refused with ${e.codeName}: checkpointing is not available here (it needs Linux, a supported GPU and driver, and permission over the process)`, { cause: e });
      }
      if (e instanceof FunctionNotFoundError) throw new CheckpointUnsupportedError(`${name}: this driver has no ${name}`, { cause: e });
      throw e;
    }
  }

  /** The process's state: "running", "locked", "checkpointed" or "failed". */
  get state(): ProcessState {
    const s = this.#call("cuCheckpointProcessGetState", () => driver.cuCheckpointProcessGetState(this.pid));
    const name = STATES[s as number];
    if (name === undefined) throw new RangeError(`cuCheckpointProcessGetState returned an unknown state ${String(s)}`);
    return name;
  }

  /** The id of the thread that restores the process (`cuCheckpointProcessGetRestoreThreadId`). */
  get restoreThreadId(): number {
    return this.#call("cuCheckpointProcessGetRestoreThreadId", () => driver.cuCheckpointProcessGetRestoreThreadId(this.pid));
  }

  /** Locks the process's CUDA API: new calls block; waits up to `timeoutMs` (0: forever) for running work. */
  lock(options: { readonly timeoutMs?: number } = {}): void {
    const timeout = options.timeoutMs ?? 0;
    if (!Number.isInteger(timeout) || timeout < 0 || timeout > 0xffffffff) throw new TypeError(`lock: timeoutMs must be a non-negative integer, not ${describeValue(timeout)}`);
    const args = new CUcheckpointLockArgs_st();
    args.timeoutMs = timeout;
    this.#call("cuCheckpointProcessLock", () => driver.cuCheckpointProcessLock(this.pid, args));
  }

  /** Checkpoints a locked process: its device memory moves to host memory and the GPUs are released. */
  checkpoint(): void {
    const args = new CUcheckpointCheckpointArgs_st();
    this.#call("cuCheckpointProcessCheckpoint", () => driver.cuCheckpointProcessCheckpoint(this.pid, args));
  }

  /** Restores a checkpointed process (still locked after this), optionally onto other GPUs: `[{ from, to }]` UUIDs. */
  restore(options: { readonly gpuMapping?: readonly GpuMapping[] } = {}): void {
    const args = new CUcheckpointRestoreArgs_st();
    const mapping = options.gpuMapping ?? [];
    if (!Array.isArray(mapping)) throw new TypeError(`restore: gpuMapping is an array of { from, to } UUIDs, not ${describeValue(mapping)}`);
    let pairs: Uint8Array | undefined;
    if (mapping.length > 0) {
      const size = CUcheckpointGpuPair_st.$size;
      pairs = new Uint8Array(size * mapping.length);
      mapping.forEach((m, i) => {
        pairs!.set(uuidBytes(m.from, `restore: gpuMapping[${i}].from`), i * size);
        pairs!.set(uuidBytes(m.to, `restore: gpuMapping[${i}].to`), i * size + 16);
      });
      args.gpuPairs = ffi.pointerOf(pairs) as never;
      args.gpuPairsCount = mapping.length;
    }
    this.#call("cuCheckpointProcessRestore", () => driver.cuCheckpointProcessRestore(this.pid, args));
    void pairs;
  }

  /** Unlocks a locked (or restored) process: its CUDA calls run again. */
  unlock(): void {
    const args = new CUcheckpointUnlockArgs_st();
    this.#call("cuCheckpointProcessUnlock", () => driver.cuCheckpointProcessUnlock(this.pid, args));
  }

  toString(): string {
    return `CheckpointProcess(${this.pid})`;
  }
}
