/**
 * A fake NVML for the `system` tests that need no GPU: it implements the functions `system` calls (NvmlApi) over
 * a list of made-up GPUs, counts init/shutdown, invalidates handles at shutdown like the real library, and fails
 * on demand (NOT_SUPPORTED, a missing function, a version mismatch) so the mapping of each can be checked.
 */
import { FunctionNotFoundError, NVMLError } from "../../../src/bindings/errors.ts";
import {
  nvmlMemory_st,
  nvmlMemory_v2,
  nvmlMemory_v2_st,
  nvmlPciInfo_st,
  nvmlProcessInfo_v2_st,
  nvmlTemperature_v1,
  nvmlTemperature_v1_t,
  nvmlUtilization_st,
  type nvmlDevice_t,
} from "../../../src/bindings/nvml.ts";
import type { NvmlApi } from "../../../src/core/system/nvml.ts";

export interface FakeGpu {
  uuid: string;
  name: string;
  busId: string;
  pciDeviceId: number;
  memory: { total: bigint; used: bigint; free: bigint; reserved: bigint };
  utilization: { gpu: number; memory: number };
  temperature: number;
  fanSpeed: number;
  powerMilliwatts: number;
  limitMilliwatts: number;
  /** graphics, sm, memory, video (MHz). */
  clocks: [number, number, number, number];
  maxClocks: [number, number, number, number];
  pstate: number;
  persistence: boolean;
  computeMode: number;
  processes: { pid: number; used: bigint }[];
}

export function fakeGpu(i: number, overrides: Partial<FakeGpu> = {}): FakeGpu {
  return {
    uuid: `GPU-0000000${i}-1111-2222-3333-44444444444${i}`,
    name: `Fake GPU ${i}`,
    busId: `00000000:${(0x19 + i).toString(16).toUpperCase()}:00.0`,
    pciDeviceId: 0x233510de,
    memory: { total: 150_000n * 2n ** 20n, used: 1024n * 2n ** 20n, free: 148_976n * 2n ** 20n, reserved: 500n * 2n ** 20n },
    utilization: { gpu: 7 + i, memory: 3 },
    temperature: 31 + i,
    fanSpeed: 40,
    powerMilliwatts: 75_500,
    limitMilliwatts: 700_000,
    clocks: [1980, 1980, 2619, 1545],
    maxClocks: [1980, 1980, 2619, 1755],
    pstate: 0,
    persistence: true,
    computeMode: 0,
    processes: [],
    ...overrides,
  };
}

interface FakeHandle {
  readonly session: number;
  readonly index: number;
}

const encoder = new TextEncoder();

/** A string getter's result, as the checked style returns it: NVML fails when the buffer of `length` bytes is too small. */
function returnString(length: number, text: string): string {
  const bytes = encoder.encode(text);
  if (bytes.length + 1 > length) throw nvmlError(7, "nvmlFake");
  return text;
}

const CODE_NAMES: Record<number, string> = {
  1: "NVML_ERROR_UNINITIALIZED",
  2: "NVML_ERROR_INVALID_ARGUMENT",
  3: "NVML_ERROR_NOT_SUPPORTED",
  4: "NVML_ERROR_NO_PERMISSION",
  6: "NVML_ERROR_NOT_FOUND",
  7: "NVML_ERROR_INSUFFICIENT_SIZE",
  25: "NVML_ERROR_ARGUMENT_VERSION_MISMATCH",
  999: "NVML_ERROR_UNKNOWN",
};

export function nvmlError(code: number, fn: string): NVMLError {
  return new NVMLError(code, CODE_NAMES[code] ?? `nvmlReturn_t(${code})`, "fake", fn);
}

/** How a function of the fake fails: an NVML status code, or "missing" (the driver does not export it). */
export type Failure = number | "missing";

export class FakeNvml implements NvmlApi {
  inits = 0;
  shutdowns = 0;
  session = 0;
  initialised = false;
  readonly calls: string[] = [];
  /** Function name → how it fails (for every device). */
  readonly failures = new Map<string, Failure>();
  /** pid → process name (others are "not found"). */
  readonly processNames = new Map<number, string>();
  /** The record passed to the last versioned call, by function name. */
  readonly versions = new Map<string, number>();

  constructor(readonly gpus: FakeGpu[]) {}

  #enter(fn: string): void {
    this.calls.push(fn);
    const f = this.failures.get(fn);
    if (f === "missing") throw new FunctionNotFoundError(fn, "nvml", `libnvidia-ml.so.1 does not export ${fn}`);
    if (typeof f === "number") throw nvmlError(f, fn);
    if (!this.initialised && fn !== "nvmlInit") throw nvmlError(1, fn);
  }

  #gpu(fn: string, device: nvmlDevice_t): FakeGpu {
    this.#enter(fn);
    const h = device as unknown as FakeHandle;
    if (h === null || typeof h !== "object" || h.session !== this.session) throw nvmlError(2, fn);
    return this.gpus[h.index]!;
  }

  #handle(index: number): nvmlDevice_t {
    return { session: this.session, index } as unknown as nvmlDevice_t;
  }

  nvmlInit(): void {
    this.#enter("nvmlInit");
    this.inits++;
    this.session++;
    this.initialised = true;
  }
  nvmlShutdown(): void {
    this.#enter("nvmlShutdown");
    this.shutdowns++;
    this.initialised = false;
  }
  nvmlSystemGetDriverVersion(length: number): string {
    this.#enter("nvmlSystemGetDriverVersion");
    return returnString(length, "580.95.05");
  }
  nvmlSystemGetNVMLVersion(length: number): string {
    this.#enter("nvmlSystemGetNVMLVersion");
    return returnString(length, "13.580.95.05");
  }
  nvmlSystemGetCudaDriverVersion_v2(): number {
    this.#enter("nvmlSystemGetCudaDriverVersion_v2");
    return 13000;
  }
  nvmlSystemGetProcessName(pid: number, length: number): string {
    this.#enter("nvmlSystemGetProcessName");
    const n = this.processNames.get(pid);
    if (n === undefined) throw nvmlError(6, "nvmlSystemGetProcessName");
    return returnString(length, n);
  }
  nvmlDeviceGetCount(): number {
    this.#enter("nvmlDeviceGetCount");
    return this.gpus.length;
  }
  nvmlDeviceGetHandleByIndex(index: number): nvmlDevice_t {
    this.#enter("nvmlDeviceGetHandleByIndex");
    if (index >= this.gpus.length) throw nvmlError(2, "nvmlDeviceGetHandleByIndex");
    return this.#handle(index);
  }
  nvmlDeviceGetHandleByUUID(uuid: unknown): nvmlDevice_t {
    this.#enter("nvmlDeviceGetHandleByUUID");
    const i = this.gpus.findIndex((g) => g.uuid === uuid);
    if (i < 0) throw nvmlError(6, "nvmlDeviceGetHandleByUUID");
    return this.#handle(i);
  }
  nvmlDeviceGetHandleByPciBusId(pciBusId: unknown): nvmlDevice_t {
    this.#enter("nvmlDeviceGetHandleByPciBusId");
    const i = this.gpus.findIndex((g) => g.busId.toLowerCase() === String(pciBusId).toLowerCase());
    if (i < 0) throw nvmlError(6, "nvmlDeviceGetHandleByPciBusId");
    return this.#handle(i);
  }
  nvmlDeviceGetIndex(device: nvmlDevice_t): number {
    this.#gpu("nvmlDeviceGetIndex", device);
    return (device as unknown as FakeHandle).index;
  }
  nvmlDeviceGetName(device: nvmlDevice_t, length: number): string {
    return returnString(length, this.#gpu("nvmlDeviceGetName", device).name);
  }
  nvmlDeviceGetUUID(device: nvmlDevice_t, length: number): string {
    return returnString(length, this.#gpu("nvmlDeviceGetUUID", device).uuid);
  }
  nvmlDeviceGetPciInfo(device: nvmlDevice_t): nvmlPciInfo_st {
    const g = this.#gpu("nvmlDeviceGetPciInfo", device);
    const p = new nvmlPciInfo_st();
    const bytes = encoder.encode(g.busId);
    new Uint8Array(p.busId.buffer, p.busId.byteOffset, 32).set(bytes);
    const [domain, bus, dev] = g.busId.split(/[:.]/).map((x) => Number.parseInt(x, 16));
    p.domain = domain!;
    p.bus = bus!;
    p.device = dev!;
    p.pciDeviceId = g.pciDeviceId;
    p.pciSubSystemId = 0x18761;
    return p;
  }
  nvmlDeviceGetMemoryInfo(device: nvmlDevice_t): nvmlMemory_st {
    const g = this.#gpu("nvmlDeviceGetMemoryInfo", device);
    const m = new nvmlMemory_st();
    m.total = g.memory.total;
    m.free = g.memory.free;
    m.used = g.memory.used + g.memory.reserved;
    return m;
  }
  nvmlDeviceGetMemoryInfo_v2(device: nvmlDevice_t, memory?: nvmlMemory_v2_st): nvmlMemory_v2_st {
    const g = this.#gpu("nvmlDeviceGetMemoryInfo_v2", device);
    // Like the checked style: a new record is stamped with its version, a caller's keeps its own.
    const m = memory ?? new nvmlMemory_v2_st();
    if (memory === undefined) m.version = nvmlMemory_v2;
    this.versions.set("nvmlDeviceGetMemoryInfo_v2", m.version);
    if (m.version !== nvmlMemory_v2) throw nvmlError(25, "nvmlDeviceGetMemoryInfo_v2");
    m.total = g.memory.total;
    m.used = g.memory.used;
    m.free = g.memory.free;
    m.reserved = g.memory.reserved;
    return m;
  }
  nvmlDeviceGetUtilizationRates(device: nvmlDevice_t): nvmlUtilization_st {
    const g = this.#gpu("nvmlDeviceGetUtilizationRates", device);
    const u = new nvmlUtilization_st();
    u.gpu = g.utilization.gpu;
    u.memory = g.utilization.memory;
    return u;
  }
  nvmlDeviceGetTemperatureV(device: nvmlDevice_t, temperature?: nvmlTemperature_v1_t): nvmlTemperature_v1_t {
    const g = this.#gpu("nvmlDeviceGetTemperatureV", device);
    const t = temperature ?? new nvmlTemperature_v1_t();
    if (temperature === undefined) t.version = nvmlTemperature_v1;
    this.versions.set("nvmlDeviceGetTemperatureV", t.version);
    if (t.version !== nvmlTemperature_v1) throw nvmlError(25, "nvmlDeviceGetTemperatureV");
    if (t.sensorType !== 0) throw nvmlError(2, "nvmlDeviceGetTemperatureV");
    t.temperature = g.temperature;
    return t;
  }
  nvmlDeviceGetTemperature(device: nvmlDevice_t, sensorType: number): number {
    const g = this.#gpu("nvmlDeviceGetTemperature", device);
    if (sensorType !== 0) throw nvmlError(2, "nvmlDeviceGetTemperature");
    return g.temperature;
  }
  nvmlDeviceGetPowerUsage(device: nvmlDevice_t): number {
    return this.#gpu("nvmlDeviceGetPowerUsage", device).powerMilliwatts;
  }
  nvmlDeviceGetEnforcedPowerLimit(device: nvmlDevice_t): number {
    return this.#gpu("nvmlDeviceGetEnforcedPowerLimit", device).limitMilliwatts;
  }
  nvmlDeviceGetClockInfo(device: nvmlDevice_t, type: number): number {
    return this.#gpu("nvmlDeviceGetClockInfo", device).clocks[type]!;
  }
  nvmlDeviceGetMaxClockInfo(device: nvmlDevice_t, type: number): number {
    return this.#gpu("nvmlDeviceGetMaxClockInfo", device).maxClocks[type]!;
  }
  nvmlDeviceGetFanSpeed(device: nvmlDevice_t): number {
    return this.#gpu("nvmlDeviceGetFanSpeed", device).fanSpeed;
  }
  nvmlDeviceGetPerformanceState(device: nvmlDevice_t): ReturnType<NvmlApi["nvmlDeviceGetPerformanceState"]> {
    return this.#gpu("nvmlDeviceGetPerformanceState", device).pstate as ReturnType<NvmlApi["nvmlDeviceGetPerformanceState"]>;
  }
  nvmlDeviceGetPersistenceMode(device: nvmlDevice_t): ReturnType<NvmlApi["nvmlDeviceGetPersistenceMode"]> {
    return (this.#gpu("nvmlDeviceGetPersistenceMode", device).persistence ? 1 : 0) as ReturnType<NvmlApi["nvmlDeviceGetPersistenceMode"]>;
  }
  nvmlDeviceGetDisplayActive(device: nvmlDevice_t): ReturnType<NvmlApi["nvmlDeviceGetDisplayActive"]> {
    this.#gpu("nvmlDeviceGetDisplayActive", device);
    return 0 as ReturnType<NvmlApi["nvmlDeviceGetDisplayActive"]>;
  }
  nvmlDeviceGetComputeMode(device: nvmlDevice_t): ReturnType<NvmlApi["nvmlDeviceGetComputeMode"]> {
    return this.#gpu("nvmlDeviceGetComputeMode", device).computeMode as ReturnType<NvmlApi["nvmlDeviceGetComputeMode"]>;
  }
  nvmlDeviceGetMigMode(device: nvmlDevice_t): [currentMode: number, pendingMode: number] {
    this.#gpu("nvmlDeviceGetMigMode", device);
    return [0, 0];
  }
  nvmlDeviceGetTotalEccErrors(device: nvmlDevice_t, errorType: number, counterType: number): bigint {
    this.#gpu("nvmlDeviceGetTotalEccErrors", device);
    if (errorType !== 1 || counterType !== 0) throw nvmlError(2, "nvmlDeviceGetTotalEccErrors");
    return 0n;
  }
  nvmlDeviceGetCudaComputeCapability(device: nvmlDevice_t): [major: number, minor: number] {
    this.#gpu("nvmlDeviceGetCudaComputeCapability", device);
    return [9, 0];
  }
  nvmlDeviceGetComputeRunningProcesses(device: nvmlDevice_t, infoCount?: number): nvmlProcessInfo_v2_st[] {
    const g = this.#gpu("nvmlDeviceGetComputeRunningProcesses", device);
    const capacity = infoCount ?? g.processes.length;
    if (g.processes.length > capacity) throw nvmlError(7, "nvmlDeviceGetComputeRunningProcesses");
    const buffer = new ArrayBuffer(Math.max(8, g.processes.length * nvmlProcessInfo_v2_st.$size));
    return g.processes.map((p, i) => {
      const r = new nvmlProcessInfo_v2_st(buffer, i * nvmlProcessInfo_v2_st.$size);
      r.pid = p.pid;
      r.usedGpuMemory = p.used;
      r.gpuInstanceId = 0xffffffff;
      r.computeInstanceId = 0xffffffff;
      return r;
    });
  }
}
