/**
 * A snapshot of what NVML reports, as plain JSON-friendly data (numbers, not bigints): what `cuda-ts doctor`
 * prints per GPU and what {@link formatSystemTable} lays out like nvidia-smi.
 *
 * @module
 */
import type { ClockDomain, ComputeMode } from "./device.ts";
import { SystemDevice } from "./device.ts";
import { nvmlSession } from "./nvml.ts";
import { formatCudaVersion } from "../../bindings/describe.ts";
import { nvmlModule } from "./nvml-module.ts";

/** One GPU's snapshot. Absent readings are ones the GPU or driver does not report. */
export interface SystemDeviceSnapshot {
  /** NVML's index. */
  readonly index: number;
  readonly name: string;
  /** "GPU-…" as NVML writes it. */
  readonly uuid: string;
  /** "00000000:19:00.0" as NVML writes it. */
  readonly pciBusId: string;
  readonly memory?: { readonly totalBytes: number; readonly usedBytes: number; readonly freeBytes: number; readonly reservedBytes?: number };
  /** Percent. */
  readonly utilization?: { readonly gpu: number; readonly memory: number };
  /** °C. */
  readonly temperature?: number;
  /** Percent. */
  readonly fanSpeed?: number;
  readonly performanceState?: number;
  /** Watts. */
  readonly power: { readonly usage?: number; readonly limit?: number };
  /** MHz. */
  readonly clocks: { readonly [K in ClockDomain]: { readonly current?: number; readonly max?: number } };
  readonly persistenceMode?: boolean;
  readonly displayActive?: boolean;
  readonly computeMode?: ComputeMode;
  readonly migMode?: boolean;
  readonly uncorrectedEccErrors?: number;
  readonly processes?: readonly { readonly pid: number; readonly name?: string; readonly usedMemoryBytes?: number }[];
}

/** The whole machine's snapshot. */
export interface SystemSnapshot {
  /** The kernel-mode driver's version ("580.95.05"). */
  readonly driverVersion: string;
  /** NVML's version ("13.580.95.05"). */
  readonly nvmlVersion: string;
  /** The CUDA version the driver supports ("13.0"). */
  readonly cudaVersion: string;
  readonly devices: readonly SystemDeviceSnapshot[];
}

/** Copies the defined entries of `o` (so JSON and `toEqual` see no `undefined` members). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function num(v: bigint | undefined): number | undefined {
  return v === undefined ? undefined : Number(v);
}

/** Reads one GPU's snapshot. */
export function snapshotDevice(d: SystemDevice): SystemDeviceSnapshot {
  const m = d.memory;
  const u = d.utilization;
  const power = d.power;
  const clocks = d.clocks;
  const clock = (c: { current: number | undefined; max: number | undefined }) => defined({ current: c.current, max: c.max });
  return defined({
    index: d.index,
    name: d.name,
    uuid: d.uuid,
    pciBusId: d.pciBusId,
    memory: m === undefined ? undefined : defined({ totalBytes: Number(m.total), usedBytes: Number(m.used), freeBytes: Number(m.free), reservedBytes: num(m.reserved) }),
    utilization: u === undefined ? undefined : { gpu: u.gpu, memory: u.memory },
    temperature: d.temperature,
    fanSpeed: d.fanSpeed,
    performanceState: d.performanceState,
    power: defined({ usage: power.usage, limit: power.limit }),
    clocks: { graphics: clock(clocks.graphics), sm: clock(clocks.sm), memory: clock(clocks.memory), video: clock(clocks.video) },
    persistenceMode: d.persistenceMode,
    displayActive: d.displayActive,
    computeMode: d.computeMode,
    migMode: d.migMode,
    uncorrectedEccErrors: num(d.uncorrectedEccErrors),
    processes: d.processes?.map((p) => defined({ pid: p.pid, name: p.name, usedMemoryBytes: num(p.usedMemory) })),
  });
}

/** The kernel-mode driver's version string (nvmlSystemGetDriverVersion). */
export function systemDriverVersion(): string {
  const lib = nvmlSession();
  return lib.nvmlSystemGetDriverVersion(nvmlModule().NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE);
}

/** NVML's version string (nvmlSystemGetNVMLVersion). */
export function systemNvmlVersion(): string {
  const lib = nvmlSession();
  return lib.nvmlSystemGetNVMLVersion(nvmlModule().NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE);
}

/** The CUDA version the driver supports, as a number (13000 for 13.0). */
export function systemCudaDriverVersion(): number {
  return nvmlSession().nvmlSystemGetCudaDriverVersion_v2();
}

/** Reads the whole machine's snapshot. */
export function systemSnapshot(): SystemSnapshot {
  return {
    driverVersion: systemDriverVersion(),
    nvmlVersion: systemNvmlVersion(),
    cudaVersion: formatCudaVersion(systemCudaDriverVersion()),
    devices: SystemDevice.all().map(snapshotDevice),
  };
}
