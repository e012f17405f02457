/**
 * `system.Device`: one GPU as NVML sees it (every GPU of the machine, whatever CUDA_VISIBLE_DEVICES hides from
 * CUDA). Identity (name, UUID, PCI) is read once; readings (memory, utilisation, temperature, power, clocks,
 * processes) are read afresh on every access. A reading the device cannot report is `undefined`.
 *
 * NVML numbers GPUs in PCI order; CUDA numbers them fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID, and
 * CUDA_VISIBLE_DEVICES renumbers them. The two are matched by UUID: {@link SystemDevice.toCudaDevice} and
 * {@link SystemDevice.fromCudaDevice} (`system.Device.fromCudaDevice(dev)`).
 *
 * @module
 */
import type { nvmlDevice_t, nvmlProcessInfo_v2_st } from "../../bindings/nvml.ts";
import { nvmlClockType_t, nvmlEccCounterType_t, nvmlEnableState_t, nvmlMemoryErrorType_t, nvmlPstates_t, nvmlTemperatureSensors_t } from "../../../generated/cuda-13.0/nvml/enums.ts";
import { nvmlModule } from "./nvml-module.ts";
import type { Device } from "../device.ts";
import { allDevices, deviceCount } from "../base/hub.ts";
import {
  NVML_ERROR_NOT_FOUND,
  decodeCString,
  needsFallback,
  nvmlCode,
  nvmlSession,
  nvmlSessionId,
  optional,
  type NvmlApi,
} from "./nvml.ts";
import { describeValue } from "../../errors/describe.ts";
import { DeviceMatchError } from "./errors.ts";

/** How to pick a GPU: its NVML index, its UUID ("GPU-…", the prefix optional) or its PCI bus id. */
export type SystemDeviceSelector = number | { readonly index: number } | { readonly uuid: string } | { readonly pciBusId: string };

/** Device memory in bytes. */
export interface SystemMemoryInfo {
  readonly total: bigint;
  readonly used: bigint;
  readonly free: bigint;
  /** Memory the driver and firmware reserve (NVML's v2 memory query; undefined on drivers without it). */
  readonly reserved: bigint | undefined;
}

/** Utilisation over NVML's last sample period, in percent. */
export interface SystemUtilization {
  /** Time one or more kernels ran. */
  readonly gpu: number;
  /** Time device memory was read or written. */
  readonly memory: number;
}

/** Power in watts. */
export interface SystemPower {
  /** The board's draw now. */
  readonly usage: number | undefined;
  /** The limit the driver enforces. */
  readonly limit: number | undefined;
}

/** A clock domain. */
export type ClockDomain = "graphics" | "sm" | "memory" | "video";

/** One clock domain's frequency in MHz. */
export interface ClockReading {
  readonly current: number | undefined;
  readonly max: number | undefined;
}

/** Every clock domain's reading. */
export type SystemClocks = { readonly [K in ClockDomain]: ClockReading };

/** PCI facts. */
export interface SystemPciInfo {
  /** The bus id as NVML writes it ("00000000:19:00.0"; CUDA's `Device.pciBusId` writes a 4-digit domain). */
  readonly busId: string;
  readonly domain: number;
  readonly bus: number;
  readonly device: number;
  /** The PCI device id (0x2335 for an H200). */
  readonly deviceId: number;
  /** The PCI vendor id (0x10de for NVIDIA). */
  readonly vendorId: number;
  /** The combined sub-system id. */
  readonly subsystemId: number;
}

/** A process using the GPU for compute. */
export interface ComputeProcess {
  readonly pid: number;
  /** Device memory it uses, in bytes (undefined where NVML cannot tell, e.g. under some virtualisation). */
  readonly usedMemory: bigint | undefined;
  /** Its name, where NVML may read it (undefined for another user's process or another PID namespace). */
  readonly name: string | undefined;
}

/** The compute mode: who may create contexts on the GPU. */
export type ComputeMode = "default" | "exclusive-thread" | "prohibited" | "exclusive-process";

const COMPUTE_MODES: readonly ComputeMode[] = ["default", "exclusive-thread", "prohibited", "exclusive-process"];
const CLOCK_TYPES: Readonly<Record<ClockDomain, nvmlClockType_t>> = {
  graphics: nvmlClockType_t.NVML_CLOCK_GRAPHICS,
  sm: nvmlClockType_t.NVML_CLOCK_SM,
  memory: nvmlClockType_t.NVML_CLOCK_MEM,
  video: nvmlClockType_t.NVML_CLOCK_VIDEO,
};
const NVML_TEMPERATURE_GPU = nvmlTemperatureSensors_t.NVML_TEMPERATURE_GPU;
const NVML_MEMORY_ERROR_TYPE_UNCORRECTED = nvmlMemoryErrorType_t.NVML_MEMORY_ERROR_TYPE_UNCORRECTED;
const NVML_VOLATILE_ECC = nvmlEccCounterType_t.NVML_VOLATILE_ECC;
const NOT_AVAILABLE_U64 = 0xffff_ffff_ffff_ffffn;
const PROCESS_NAME_SIZE = 256;

const byUuid = new Map<string, SystemDevice>();

function withPrefix(uuid: string): string {
  return /^(GPU|MIG)-/i.test(uuid) ? uuid : `GPU-${uuid}`;
}

/** A UUID without its GPU-/MIG- prefix, lower case (CUDA's form). */
function bareUuid(uuid: string): string {
  return uuid.replace(/^(GPU|MIG)-/i, "").toLowerCase();
}

function lookup(lib: NvmlApi, selector: SystemDeviceSelector): nvmlDevice_t {
  if (typeof selector === "number") return byIndex(lib, selector);
  if (selector === null || typeof selector !== "object") {
    throw new TypeError(`system.Device takes an index, { index }, { uuid } or { pciBusId }, not ${describeValue(selector)}`);
  }
  if ("index" in selector) return byIndex(lib, selector.index);
  if ("uuid" in selector) {
    if (typeof selector.uuid !== "string" || selector.uuid === "") throw new TypeError("system.Device({ uuid }): the UUID is a non-empty string");
    return lib.nvmlDeviceGetHandleByUUID(withPrefix(selector.uuid));
  }
  if ("pciBusId" in selector) {
    if (typeof selector.pciBusId !== "string" || selector.pciBusId === "") throw new TypeError("system.Device({ pciBusId }): the bus id is a non-empty string");
    return lib.nvmlDeviceGetHandleByPciBusId(selector.pciBusId);
  }
  throw new TypeError("system.Device takes an index, { index }, { uuid } or { pciBusId }");
}

function byIndex(lib: NvmlApi, index: number): nvmlDevice_t {
  if (!Number.isInteger(index) || index < 0) throw new RangeError(`an NVML device index is a non-negative integer, not ${String(index)}`);
  const count = lib.nvmlDeviceGetCount();
  if (index >= count) throw new RangeError(`NVML device ${index} does not exist: NVML sees ${count} GPU${count === 1 ? "" : "s"}`);
  return lib.nvmlDeviceGetHandleByIndex(index);
}

/** A GPU as NVML sees it. */
export class SystemDevice {
  /** The UUID as NVML writes it ("GPU-8-4-4-4-12 hex"; "MIG-…" for a MIG instance). */
  readonly uuid!: string;
  #handle!: nvmlDevice_t;
  #session!: number;
  #name: string | undefined;
  #pci: SystemPciInfo | undefined;

  /**
   * The GPU of an NVML index (a number or `{ index }`), a UUID (`{ uuid }`, with or without "GPU-") or a PCI bus
   * id (`{ pciBusId }`). The same object for the same GPU. Initialises NVML on first use.
   */
  constructor(selector: SystemDeviceSelector) {
    const lib = nvmlSession();
    const handle = lookup(lib, selector);
    const uuid = lib.nvmlDeviceGetUUID(handle, nvmlModule().NVML_DEVICE_UUID_V2_BUFFER_SIZE);
    const existing = byUuid.get(uuid);
    if (existing !== undefined) {
      existing.#handle = handle;
      existing.#session = nvmlSessionId();
      return existing;
    }
    this.uuid = uuid;
    this.#handle = handle;
    this.#session = nvmlSessionId();
    byUuid.set(uuid, this);
  }

  /** Every GPU NVML sees, in NVML's order. */
  static all(): SystemDevice[] {
    const count = nvmlSession().nvmlDeviceGetCount();
    return Array.from({ length: count }, (_, i) => new SystemDevice(i));
  }

  /** The NVML view of a CUDA device (matched by UUID). */
  static fromCudaDevice(device: Device): SystemDevice {
    const lib = nvmlSession();
    const uuid = device.uuid;
    try {
      return new SystemDevice({ uuid: `GPU-${uuid}` });
    } catch (e) {
      if (nvmlCode(e) !== NVML_ERROR_NOT_FOUND) throw e;
    }
    try {
      return new SystemDevice({ uuid: `MIG-${uuid}` });
    } catch (e) {
      if (nvmlCode(e) !== NVML_ERROR_NOT_FOUND) throw e;
      throw new DeviceMatchError(`NVML does not know CUDA device ${device.id} (UUID ${uuid}); NVML sees ${lib.nvmlDeviceGetCount()} GPU(s)`);
    }
  }

  /** The NVML handle (valid for the current NVML session; looked up again after a shutdown). */
  get handle(): nvmlDevice_t {
    const lib = nvmlSession();
    if (this.#session !== nvmlSessionId()) {
      this.#handle = lib.nvmlDeviceGetHandleByUUID(this.uuid);
      this.#session = nvmlSessionId();
    }
    return this.#handle;
  }

  #lib(): NvmlApi {
    return nvmlSession();
  }

  /** The NVML index (PCI order; not the CUDA ordinal). */
  get index(): number {
    return this.#lib().nvmlDeviceGetIndex(this.handle);
  }

  /** The UUID without the "GPU-" prefix, lower case: CUDA's `Device.uuid`. */
  get uuidWithoutPrefix(): string {
    return bareUuid(this.uuid);
  }

  /** The product name ("NVIDIA H200"). */
  get name(): string {
    if (this.#name === undefined) {
      const h = this.handle;
      const lib = this.#lib();
      this.#name = lib.nvmlDeviceGetName(h, nvmlModule().NVML_DEVICE_NAME_V2_BUFFER_SIZE);
    }
    return this.#name;
  }

  /** PCI facts (nvmlDeviceGetPciInfo_v3). */
  get pciInfo(): SystemPciInfo {
    if (this.#pci === undefined) {
      const p = this.#lib().nvmlDeviceGetPciInfo(this.handle);
      const combined = p.pciDeviceId >>> 0;
      this.#pci = Object.freeze({
        busId: decodeCString(p.busId),
        domain: p.domain,
        bus: p.bus,
        device: p.device,
        deviceId: combined >>> 16,
        vendorId: combined & 0xffff,
        subsystemId: p.pciSubSystemId >>> 0,
      });
    }
    return this.#pci;
  }

  /** The PCI bus id as NVML writes it ("00000000:19:00.0"). */
  get pciBusId(): string {
    return this.pciInfo.busId;
  }

  /** Device memory (v2 query where the driver has it: `used` then excludes `reserved`), or undefined. */
  get memory(): SystemMemoryInfo | undefined {
    const lib = this.#lib();
    const h = this.handle;
    return optional(() => {
      try {
        const m = lib.nvmlDeviceGetMemoryInfo_v2(h);
        return Object.freeze({ total: m.total, used: m.used, free: m.free, reserved: m.reserved });
      } catch (e) {
        if (!needsFallback(e)) throw e;
      }
      const m = lib.nvmlDeviceGetMemoryInfo(h);
      return Object.freeze({ total: m.total, used: m.used, free: m.free, reserved: undefined });
    });
  }

  /** GPU and memory utilisation in percent, or undefined. */
  get utilization(): SystemUtilization | undefined {
    const lib = this.#lib();
    const h = this.handle;
    return optional(() => {
      const u = lib.nvmlDeviceGetUtilizationRates(h);
      return Object.freeze({ gpu: u.gpu, memory: u.memory });
    });
  }

  /** The GPU die's temperature in °C, or undefined. */
  get temperature(): number | undefined {
    const lib = this.#lib();
    const h = this.handle;
    return optional(() => {
      try {
        const { nvmlTemperature_v1, nvmlTemperature_v1_t } = nvmlModule();
        const t = new nvmlTemperature_v1_t();
        t.version = nvmlTemperature_v1;
        t.sensorType = NVML_TEMPERATURE_GPU;
        lib.nvmlDeviceGetTemperatureV(h, t);
        return t.temperature;
      } catch (e) {
        if (!needsFallback(e)) throw e;
      }
      return lib.nvmlDeviceGetTemperature(h, NVML_TEMPERATURE_GPU);
    });
  }

  /** Power draw and enforced limit in watts (each undefined where not reported). */
  get power(): SystemPower {
    const lib = this.#lib();
    const h = this.handle;
    const usage = optional(() => lib.nvmlDeviceGetPowerUsage(h));
    const limit = optional(() => lib.nvmlDeviceGetEnforcedPowerLimit(h));
    return Object.freeze({ usage: usage === undefined ? undefined : usage / 1000, limit: limit === undefined ? undefined : limit / 1000 });
  }

  /** One clock domain's current or maximum frequency in MHz, or undefined. */
  clock(domain: ClockDomain, which: "current" | "max" = "current"): number | undefined {
    const type = CLOCK_TYPES[domain];
    if (type === undefined) throw new RangeError(`a clock domain is one of ${Object.keys(CLOCK_TYPES).join(", ")}, not ${String(domain)}`);
    const lib = this.#lib();
    const h = this.handle;
    return optional(() => (which === "max" ? lib.nvmlDeviceGetMaxClockInfo(h, type) : lib.nvmlDeviceGetClockInfo(h, type)));
  }

  /** Every clock domain, current and maximum, in MHz. */
  get clocks(): SystemClocks {
    const read = (d: ClockDomain): ClockReading => Object.freeze({ current: this.clock(d, "current"), max: this.clock(d, "max") });
    return Object.freeze({ graphics: read("graphics"), sm: read("sm"), memory: read("memory"), video: read("video") });
  }

  /** Fan speed in percent of its maximum, or undefined (passively cooled boards have no fan). */
  get fanSpeed(): number | undefined {
    const lib = this.#lib();
    const h = this.handle;
    return optional(() => lib.nvmlDeviceGetFanSpeed(h));
  }

  /** The performance state: 0 (P0, fastest) to 15, or undefined. */
  get performanceState(): number | undefined {
    const lib = this.#lib();
    const h = this.handle;
    const p = optional(() => lib.nvmlDeviceGetPerformanceState(h));
    return p === undefined || p === nvmlPstates_t.NVML_PSTATE_UNKNOWN ? undefined : p;
  }

  /** Whether persistence mode is on (Linux), or undefined. */
  get persistenceMode(): boolean | undefined {
    const lib = this.#lib();
    const h = this.handle;
    const v = optional(() => lib.nvmlDeviceGetPersistenceMode(h));
    return v === undefined ? undefined : v === nvmlEnableState_t.NVML_FEATURE_ENABLED;
  }

  /** Whether a display is initialised on the GPU, or undefined. */
  get displayActive(): boolean | undefined {
    const lib = this.#lib();
    const h = this.handle;
    const v = optional(() => lib.nvmlDeviceGetDisplayActive(h));
    return v === undefined ? undefined : v === nvmlEnableState_t.NVML_FEATURE_ENABLED;
  }

  /** The compute mode, or undefined. */
  get computeMode(): ComputeMode | undefined {
    const lib = this.#lib();
    const h = this.handle;
    const v = optional(() => lib.nvmlDeviceGetComputeMode(h));
    return v === undefined ? undefined : COMPUTE_MODES[v];
  }

  /** Whether MIG mode is on now, or undefined where the GPU has no MIG. */
  get migMode(): boolean | undefined {
    const lib = this.#lib();
    const h = this.handle;
    const v = optional(() => lib.nvmlDeviceGetMigMode(h));
    return v === undefined ? undefined : v[0] === 1;
  }

  /** Uncorrected ECC errors since the driver loaded, or undefined where ECC is off or absent. */
  get uncorrectedEccErrors(): bigint | undefined {
    const lib = this.#lib();
    const h = this.handle;
    return optional(() => lib.nvmlDeviceGetTotalEccErrors(h, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC));
  }

  /** The compute capability NVML reports. */
  get computeCapability(): { readonly major: number; readonly minor: number } {
    const [major, minor] = this.#lib().nvmlDeviceGetCudaComputeCapability(this.handle);
    return Object.freeze({ major, minor });
  }

  /**
   * The processes running compute work on the GPU now (nvmlDeviceGetComputeRunningProcesses_v3), or undefined
   * where NVML cannot list them. On a MIG-enabled GPU NVML lists them per MIG instance, not here.
   */
  get processes(): ComputeProcess[] | undefined {
    const lib = this.#lib();
    const h = this.handle;
    const infos = optional(() => runningProcesses(lib, h));
    if (infos === undefined) return undefined;
    return infos.map((p) => Object.freeze({ pid: p.pid, usedMemory: p.usedGpuMemory === NOT_AVAILABLE_U64 ? undefined : p.usedGpuMemory, name: processName(lib, p.pid) }));
  }

  /**
   * The CUDA device of this GPU in this process (matched by UUID). Throws when CUDA does not see it
   * (CUDA_VISIBLE_DEVICES hides it, or it is a MIG-enabled GPU whose instances CUDA lists instead).
   */
  toCudaDevice(): Device {
    const want = this.uuidWithoutPrefix;
    for (const d of allDevices()) if (d.uuid.toLowerCase() === want) return d;
    throw new DeviceMatchError(
      `${this.name} (${this.uuid}) is not visible to CUDA in this process: CUDA sees ${deviceCount()} device(s)` +
        " (CUDA_VISIBLE_DEVICES may hide it, or MIG may be on)",
    );
  }

  toString(): string {
    return `system.Device(${this.uuid})`;
  }
}

/** The compute processes' records (the checked call sizes the array and retries while NVML says it is too small). */
function runningProcesses(lib: NvmlApi, h: nvmlDevice_t): nvmlProcessInfo_v2_st[] {
  return lib.nvmlDeviceGetComputeRunningProcesses(h);
}

function processName(lib: NvmlApi, pid: number): string | undefined {
  try {
    const name = lib.nvmlSystemGetProcessName(pid, PROCESS_NAME_SIZE);
    return name === "" ? undefined : name;
  } catch {
    // Another user's process, another PID namespace, or gone already: the name is not readable.
    return undefined;
  }
}

/** @internal The name of a process (nvmlSystemGetProcessName), or undefined when it cannot be read. */
export function systemProcessName(pid: number): string | undefined {
  if (!Number.isInteger(pid) || pid < 0) throw new RangeError(`a process id is a non-negative integer, not ${String(pid)}`);
  return processName(nvmlSession(), pid);
}
