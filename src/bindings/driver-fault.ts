/**
 * Sticky faults of the CUDA driver: the codes after which the process cannot use CUDA any more (an illegal address,
 * a failed launch, a device-side assert, ...: generated/cuda-X.Y/driver/sticky.ts, read from cuda.h's documentation
 * of each code). The first driver call that returns one records the fault and throws {@link DeviceFaultError}; every
 * later failing call throws a DeviceFaultError naming that first fault, and the binding stops calling the driver
 * at all (see driver-binding.ts).
 *
 * The object layer tells this module what it knows when a fault is recorded (the device, the last launches) through
 * {@link provideFaultContext}: this module imports nothing of it.
 *
 * @module
 */
import { stickyStatuses } from "../../generated/cuda-13.0/driver/sticky.ts";
import { CudaError } from "./errors.ts";
import { quietFields } from "../errors/base.ts";

/** A kernel launch as the launch ring remembers it (src/core/launch/launch-ring.ts). */
export interface LaunchRecord {
  /** The launch's number in this process (1 for the first). */
  readonly sequence: number;
  /** The kernel's name. */
  readonly kernel: string;
  /** Blocks in x, y, z (all clusters' blocks). */
  readonly grid: readonly [number, number, number];
  /** Threads per block in x, y, z. */
  readonly block: readonly [number, number, number];
  /** Dynamic shared memory per block, in bytes. */
  readonly sharedMemory: number;
  /** The device ordinal of the stream it was launched on. */
  readonly deviceId: number;
  /** Where the script launched it (a stack frame), recorded only under `CUDA_TS_DEBUG=sync`. */
  readonly site?: string;
}

/** What a device reports after a sticky fault: `device.fault`. */
export interface DeviceFault {
  /** The CUresult (700 for CUDA_ERROR_ILLEGAL_ADDRESS). */
  readonly code: number;
  /** The code's name. */
  readonly codeName: string;
  /** The driver's description of the code. */
  readonly description: string;
  /** The call that returned it (where the fault was seen, not where it happened). */
  readonly functionName: string;
  /** When it was seen. */
  readonly time: Date;
  /** The device whose context was current when it was seen (undefined where none was known). */
  readonly deviceId: number | undefined;
  /** The most recent kernel launches on that device before it was seen, newest first. */
  readonly launches: readonly LaunchRecord[];
  /** Whether every launch synchronised (`CUDA_TS_DEBUG=sync`): then the newest launch is the one that faulted. */
  readonly syncEachLaunch: boolean;
}

const STICKY = new Set<number>(Object.values(stickyStatuses));

/** Whether a CUresult is sticky: it leaves the process unable to use CUDA (cuda.h says so of it). */
export function isStickyStatus(code: number): boolean {
  return STICKY.has(code);
}

/** What the object layer knows when a fault is recorded. */
export interface FaultContext {
  readonly deviceId: number | undefined;
  readonly launches: readonly LaunchRecord[];
  readonly syncEachLaunch: boolean;
}

let contextOf: (() => FaultContext) | undefined;
let onFault: (() => void)[] = [];
let first: DeviceFaultError | undefined;

/** @internal The object layer's view of a fault (device, launches), asked for once, when the fault is recorded. */
export function provideFaultContext(provider: () => FaultContext): void {
  contextOf = provider;
}

/** @internal Runs `fn` once a fault is recorded (the binding stops calling the driver there). */
export function whenFaulted(fn: () => void): void {
  if (first !== undefined) fn();
  else onFault.push(fn);
}

/** The process's sticky fault, or undefined while CUDA is usable. */
export function processFault(): DeviceFault | undefined {
  return first?.fault;
}

/** The first DeviceFaultError of the process, or undefined while CUDA is usable. */
export function firstFaultError(): DeviceFaultError | undefined {
  return first;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : /(s|sh|ch|x)$/.test(word) ? "es" : "s"}`;
}

/** One line per launch, for a fault's message. */
export function describeLaunches(launches: readonly LaunchRecord[]): string {
  return launches
    .map((l) => {
      const shm = l.sharedMemory > 0 ? `, ${l.sharedMemory} bytes of shared memory` : "";
      return `  #${l.sequence} ${l.kernel} grid [${l.grid.join(", ")}] block [${l.block.join(", ")}]${shm}${l.site !== undefined ? ` at ${l.site}` : ""}`;
    })
    .join("\n");
}

const ENDED =
  "CUDA can no longer be used in this process: every later CUDA call throws this fault again, and closing objects releases nothing. " +
  "Restart the process.";
/** The runtime's command, for the compute-sanitizer line ("bun", or "deno run -A"). */
const RUN = (globalThis as { Bun?: unknown }).Bun !== undefined ? "bun" : "deno run -A";
const SANITIZER = `compute-sanitizer (\`compute-sanitizer --tool memcheck ${RUN} script.ts\`) names the faulting access and thread.`;

function advice(syncEachLaunch: boolean): string {
  return syncEachLaunch
    ? `${ENDED} ${SANITIZER}`
    : `${ENDED} To find the kernel, run it again with CUDA_TS_DEBUG=sync (every launch then waits for its kernel, so the fault names its own launch); ${SANITIZER}`;
}

function firstMessage(f: DeviceFault): string {
  const where = f.deviceId === undefined ? "" : ` on device ${f.deviceId}`;
  const head = `${f.codeName}: ${f.description} (seen at ${f.functionName}${where}).`;
  let cause: string;
  if (f.launches.length === 0) {
    cause = "Device code that ran earlier caused it (kernel launches are asynchronous: a fault surfaces at a later call); no kernel launched through cuda-ts is known on this device.";
  } else if (f.syncEachLaunch) {
    cause = `With CUDA_TS_DEBUG=sync every launch waits for its kernel: the newest launch below faulted. The last ${plural(f.launches.length, "launch")}${where}, newest first:\n${describeLaunches(f.launches)}`;
  } else {
    cause =
      "Device code that ran earlier caused it: kernel launches are asynchronous, so a fault surfaces at a later call, not at its launch. " +
      `The last ${plural(f.launches.length, "launch")}${where}, newest first (the faulting kernel is usually among them):\n${describeLaunches(f.launches)}`;
  }
  return `${head}\n${cause}\n${advice(f.syncEachLaunch)}`;
}

/**
 * The context (and with it CUDA in this process) was ruined by a sticky fault: device code hit an illegal address,
 * a trap or a failed `assert`, an illegal instruction, a hardware stack error, an uncontained hardware error, ...
 * (the CUresult codes cuda.h documents as leaving the process in an inconsistent state). The call named in
 * `functionName` only saw it: launches are asynchronous, so the kernel that faulted ran earlier; `fault.launches`
 * lists the last launches. Every later CUDA call throws a DeviceFaultError too, without calling the driver, naming
 * the first in `original`. Restart the process; find the kernel with `CUDA_TS_DEBUG=sync` or compute-sanitizer.
 */
export class DeviceFaultError extends CudaError {
  /** The fault: its code, when and where it was seen, the last launches. The same object for every later error. */
  readonly fault: DeviceFault;
  /** The first DeviceFaultError of the process (this one, for the first). */
  readonly original: DeviceFaultError;

  /** @internal Made by the driver binding: a call that returns a sticky code, or any call after one did. */
  constructor(fault: DeviceFault, functionName: string, original?: DeviceFaultError) {
    super(fault.code, fault.codeName, fault.description, functionName);
    this.name = "DeviceFaultError";
    this.fault = fault;
    this.original = original ?? this;
    this.message =
      original === undefined
        ? firstMessage(fault)
        : `${functionName} was not called: CUDA can no longer be used in this process after an earlier fault (${fault.codeName}, seen at ` +
          `${fault.functionName} at ${fault.time.toISOString()}). Restart the process. The fault:\n${original.message}`;
    quietFields(this);
  }
}

/**
 * @internal The error of a failed driver call once a sticky code has been seen, or undefined while CUDA is
 * usable and `code` is not sticky. Records the fault the first time.
 */
export function faultFor(code: number, functionName: string, description: () => string, codeName: () => string): DeviceFaultError | undefined {
  if (first !== undefined) return new DeviceFaultError(first.fault, functionName, first);
  if (!STICKY.has(code)) return undefined;
  let known: FaultContext = { deviceId: undefined, launches: [], syncEachLaunch: false };
  try {
    if (contextOf !== undefined) known = contextOf();
  } catch {
    // What the object layer knows is a help for the message; the fault is recorded without it.
  }
  const fault: DeviceFault = Object.freeze({
    code,
    codeName: codeName(),
    description: description(),
    functionName,
    time: new Date(),
    deviceId: known.deviceId,
    launches: Object.freeze([...known.launches]),
    syncEachLaunch: known.syncEachLaunch,
  });
  first = new DeviceFaultError(fault, functionName);
  const hooks = onFault;
  onFault = [];
  for (const h of hooks) {
    try {
      h();
    } catch {
      // A hook that fails must not hide the fault.
    }
  }
  return first;
}

/**
 * @internal Throws the DeviceFaultError naming the first fault when one was seen (for paths that would call the
 * driver other than through the checked style: the raw style, a non-blocking wait).
 */
export function throwIfFaulted(functionName: string): void {
  if (first !== undefined) throw new DeviceFaultError(first.fault, functionName, first);
}
