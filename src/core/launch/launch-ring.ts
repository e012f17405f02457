/**
 * The launch ring: the last kernel launches of the process, so that a sticky fault (seen at a later call: launches
 * are asynchronous) can name the kernels that may have caused it. A launch writes one slot: references to its
 * kernel, configuration and stream, kept as they are (no copy, no string, no stack); the names, grids and devices
 * are read from them only when a fault is described. Under `CUDA_TS_DEBUG=sync` each slot also keeps the stack of
 * the launch (the script's line), and every launch waits for its kernel (see launch.ts).
 *
 * @module
 */
import { type LaunchRecord, provideFaultContext } from "../../bindings/driver-fault.ts";
import { driver } from "../base/driver-state.ts";
import { debugFlag, scriptFrame } from "../base/debug.ts";
import { Scratch } from "../../ffi/index.ts";
import type { Kernel } from "./kernel.ts";
import type { LaunchConfig } from "./launch.ts";
import type { Stream } from "../stream.ts";

/** Slots in the ring (a power of two). */
const SIZE = 8;
const MASK = SIZE - 1;

/** Whether every launch synchronises its stream (`CUDA_TS_DEBUG=sync`), read once. */
export const syncEachLaunch: boolean = debugFlag("sync");

/**
 * The ring: slot i's kernel, configuration and stream at `3 * i`, `3 * i + 1`, `3 * i + 2`. A plain array of
 * references, written in place.
 */
const slots: unknown[] = new Array<unknown>(3 * SIZE).fill(undefined);
/** The launch stacks, under `CUDA_TS_DEBUG=sync` only. */
const sites: (string | undefined)[] = new Array<string | undefined>(SIZE).fill(undefined);
let launches = 0;

/** Records a launch (the hot path: one slot of three references, no allocation). */
export function recordLaunch(kernel: Kernel, config: LaunchConfig, stream: Stream): void {
  const j = (launches++ & MASK) * 3;
  slots[j] = kernel;
  slots[j + 1] = config;
  slots[j + 2] = stream;
  if (syncEachLaunch) sites[j / 3] = new Error("launch").stack;
}

function deviceOfStream(stream: Stream): number {
  try {
    return stream.device.id;
  } catch {
    return -1;
  }
}

/** The launches in the ring, newest first (on `deviceId` only, when given). */
export function recentLaunches(deviceId?: number): LaunchRecord[] {
  const out: LaunchRecord[] = [];
  const n = Math.min(launches, SIZE);
  for (let k = 0; k < n; k++) {
    const sequence = launches - k;
    const i = (sequence - 1) & MASK;
    const kernel = slots[3 * i] as Kernel;
    const config = slots[3 * i + 1] as LaunchConfig;
    const device = deviceOfStream(slots[3 * i + 2] as Stream);
    if (deviceId !== undefined && device !== deviceId && device !== -1) continue;
    const cl = config.cluster ?? [1, 1, 1];
    const site = scriptFrame(sites[i]);
    out.push({
      sequence,
      kernel: kernel.name,
      grid: [config.grid[0] * cl[0], config.grid[1] * cl[1], config.grid[2] * cl[2]],
      block: [config.block[0], config.block[1], config.block[2]],
      sharedMemory: config.sharedMemory,
      deviceId: device,
      ...(site === undefined ? {} : { site }),
    });
  }
  return out;
}

/** How many kernels this process has launched through `launch`. */
export function launchCount(): number {
  return launches;
}

const scratch = new Scratch(8);

/** The device of the current context, read without the checked style (it may be failing already). */
function currentDevice(): number | undefined {
  try {
    if (driver.raw.cuCtxGetDevice(scratch.pointerAt(0)) !== 0) return undefined;
    return scratch.i32[0];
  } catch {
    return undefined;
  }
}

provideFaultContext(() => {
  // The current context's device; where the driver no longer says, the device of the newest launch.
  const deviceId = currentDevice() ?? recentLaunches()[0]?.deviceId;
  return { deviceId: deviceId === -1 ? undefined : deviceId, launches: recentLaunches(deviceId === -1 ? undefined : deviceId), syncEachLaunch };
});
