/**
 * `system`: the machine's GPUs as NVML (the NVIDIA Management Library) reports them, in the style of
 * cuda.core's `system`. Imported as a namespace:
 *
 * ```ts
 * import * as system from "cuda-ts/system";
 * console.log(system.driverVersion(), system.deviceCount());
 * for (const gpu of system.devices()) {
 *   console.log(gpu.name, gpu.uuid, gpu.memory?.used, gpu.temperature, gpu.power.usage, gpu.processes);
 * }
 * const same = new system.Device({ uuid: cudaDevice.uuid }).toCudaDevice();
 * ```
 *
 * NVML is libnvidia-ml.so.1, part of the driver: the pathfinder finds it through the system loader. It is
 * initialised on first use and shut down at process exit (see nvml.ts for how on each runtime);
 * {@link shutdown} does it earlier. Readings a GPU cannot report are `undefined`; other NVML failures throw
 * NVMLError, and a machine without the library throws LibraryNotFoundError.
 *
 * @module
 */
import { systemProcessName, SystemDevice } from "./device.ts";
import { formatSystemTable } from "./format.ts";
import { nvmlIsInitialized, nvmlSession, shutdownNvml } from "./nvml.ts";
import {
  systemCudaDriverVersion,
  systemDriverVersion,
  systemNvmlVersion,
  systemSnapshot,
  type SystemSnapshot,
} from "./snapshot.ts";

export { SystemDevice as Device } from "./device.ts";
export type {
  ClockDomain,
  ClockReading,
  ComputeMode,
  ComputeProcess,
  SystemClocks,
  SystemDeviceSelector as DeviceSelector,
  SystemMemoryInfo as MemoryInfo,
  SystemPciInfo as PciInfo,
  SystemPower as Power,
  SystemUtilization as Utilization,
} from "./device.ts";
export type { SystemDeviceSnapshot as DeviceSnapshot, SystemSnapshot as Snapshot } from "./snapshot.ts";

/** The kernel-mode driver's version ("580.95.05"). */
export function driverVersion(): string {
  return systemDriverVersion();
}

/** NVML's version ("13.580.95.05"). */
export function nvmlVersion(): string {
  return systemNvmlVersion();
}

/** The CUDA version the driver supports, as CUDA numbers it (13000 for 13.0). */
export function cudaDriverVersion(): number {
  return systemCudaDriverVersion();
}

/** How many GPUs NVML sees (all of the machine's, whatever CUDA_VISIBLE_DEVICES says). */
export function deviceCount(): number {
  return nvmlSession().nvmlDeviceGetCount();
}

/** Every GPU NVML sees, in NVML's (PCI) order. */
export function devices(): SystemDevice[] {
  return SystemDevice.all();
}

/** A process's name (nvmlSystemGetProcessName), or undefined when NVML may not read it. */
export function processName(pid: number): string | undefined {
  return systemProcessName(pid);
}

/** Everything NVML reports about the machine, as plain data (numbers, not bigints; JSON-friendly). */
export function snapshot(): SystemSnapshot {
  return systemSnapshot();
}

/** An nvidia-smi-like table of a snapshot (a fresh one when omitted). */
export function formatTable(s: SystemSnapshot = systemSnapshot()): string {
  return formatSystemTable(s);
}

/** Shuts NVML down now; the next call starts it again. Harmless when it is not running. */
export function shutdown(): void {
  shutdownNvml();
}

/** Whether NVML is initialised now. */
export function isInitialized(): boolean {
  return nvmlIsInitialized();
}
