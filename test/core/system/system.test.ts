/**
 * `system` over a fake NVML (no GPU, no libnvidia-ml needed): versioned structs, NOT_SUPPORTED → undefined, the
 * fallbacks to older functions, one initialisation per session, handles looked up again after a shutdown,
 * selectors, processes, the snapshot.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NVMLError } from "../../../src/bindings/errors.ts";
import { nvmlMemory_v2, nvmlMemory_v2_st, nvmlTemperature_v1, nvmlTemperature_v1_t } from "../../../src/bindings/nvml.ts";
import * as system from "../../../src/core/system/system.ts";
import { SystemDevice } from "../../../src/core/system/device.ts";
import { decodeCString, optional, structVersion, useNvmlForTesting } from "../../../src/core/system/nvml.ts";
import { snapshotDevice } from "../../../src/core/system/snapshot.ts";
import { FakeNvml, fakeGpu, nvmlError } from "./fake.ts";

let fake: FakeNvml;

beforeEach(() => {
  fake = new FakeNvml([fakeGpu(0), fakeGpu(1)]);
  useNvmlForTesting(fake);
});

afterEach(() => {
  useNvmlForTesting(undefined);
});

describe("NVML versioned structs", () => {
  it("encode sizeof | version << 24, as the headers' NVML_STRUCT_VERSION does", () => {
    expect(structVersion(nvmlMemory_v2_st.$size, 2)).toBe(nvmlMemory_v2);
    expect(structVersion(nvmlTemperature_v1_t.$size, 1)).toBe(nvmlTemperature_v1);
    expect(nvmlMemory_v2).toBe(40 | (2 << 24));
    expect(structVersion(8, 255)).toBe(0xff000008);
    expect(() => structVersion(0, 1)).toThrow(RangeError);
    expect(() => structVersion(16, 256)).toThrow(RangeError);
  });

  it("are passed with their version set (memory v2, temperature v1)", () => {
    const gpu = new system.Device(0);
    expect(gpu.memory).toEqual({ total: 150_000n * 2n ** 20n, used: 1024n * 2n ** 20n, free: 148_976n * 2n ** 20n, reserved: 500n * 2n ** 20n });
    expect(fake.versions.get("nvmlDeviceGetMemoryInfo_v2")).toBe(nvmlMemory_v2);
    expect(gpu.temperature).toBe(31);
    expect(fake.versions.get("nvmlDeviceGetTemperatureV")).toBe(nvmlTemperature_v1);
  });
});

describe("optional readings", () => {
  it("are undefined for NVML_ERROR_NOT_SUPPORTED", () => {
    for (const fn of ["nvmlDeviceGetFanSpeed", "nvmlDeviceGetPowerUsage", "nvmlDeviceGetTemperatureV", "nvmlDeviceGetUtilizationRates", "nvmlDeviceGetMemoryInfo_v2"]) {
      fake.failures.set(fn, 3);
    }
    const gpu = new system.Device(0);
    expect(gpu.fanSpeed).toBeUndefined();
    expect(gpu.temperature).toBeUndefined();
    expect(gpu.utilization).toBeUndefined();
    expect(gpu.memory).toBeUndefined();
    expect(gpu.power).toEqual({ usage: undefined, limit: 700 });
    expect(gpu.clock("sm")).toBe(1980);
  });

  it("propagate every other NVML failure as NVMLError", () => {
    fake.failures.set("nvmlDeviceGetFanSpeed", 999);
    const gpu = new system.Device(0);
    expect(() => gpu.fanSpeed).toThrow(NVMLError);
    expect(() => gpu.fanSpeed).toThrow(/NVML_ERROR_UNKNOWN/);
    fake.failures.set("nvmlDeviceGetFanSpeed", 4);
    expect(() => gpu.fanSpeed).toThrow(/NVML_ERROR_NO_PERMISSION/);
  });

  it("fall back to the older function when the driver lacks the versioned one or rejects its version", () => {
    const gpu = new system.Device(1);
    fake.failures.set("nvmlDeviceGetMemoryInfo_v2", "missing");
    fake.failures.set("nvmlDeviceGetTemperatureV", "missing");
    expect(gpu.memory).toEqual({ total: 150_000n * 2n ** 20n, used: 1524n * 2n ** 20n, free: 148_976n * 2n ** 20n, reserved: undefined });
    expect(gpu.temperature).toBe(32);
    expect(fake.calls).toContain("nvmlDeviceGetMemoryInfo");
    expect(fake.calls).toContain("nvmlDeviceGetTemperature");
    fake.failures.set("nvmlDeviceGetMemoryInfo_v2", 25);
    expect(gpu.memory?.reserved).toBeUndefined();
  });

  it("treat a function missing from both versions as not supported", () => {
    fake.failures.set("nvmlDeviceGetTemperatureV", "missing");
    fake.failures.set("nvmlDeviceGetTemperature", 3);
    expect(new system.Device(0).temperature).toBeUndefined();
  });

  it("optional() maps only not-supported failures", () => {
    expect(optional(() => 5)).toBe(5);
    expect(optional(() => {
      throw nvmlError(3, "f");
    })).toBeUndefined();
    expect(() => optional(() => {
      throw nvmlError(2, "f");
    })).toThrow(NVMLError);
    expect(() => optional(() => {
      throw new TypeError("not NVML");
    })).toThrow(TypeError);
  });
});

describe("the NVML session", () => {
  it("initialises once, on first use", () => {
    expect(fake.inits).toBe(0);
    expect(system.isInitialized()).toBe(false);
    expect(system.deviceCount()).toBe(2);
    expect(system.driverVersion()).toBe("580.95.05");
    expect(system.nvmlVersion()).toBe("13.580.95.05");
    expect(system.cudaDriverVersion()).toBe(13000);
    void system.devices().map((d) => d.temperature);
    expect(fake.inits).toBe(1);
    expect(system.isInitialized()).toBe(true);
  });

  it("shuts down once, and starts again with fresh handles on the next use", () => {
    const gpu = new system.Device(1);
    expect(gpu.name).toBe("Fake GPU 1");
    system.shutdown();
    system.shutdown();
    expect(fake.shutdowns).toBe(1);
    expect(system.isInitialized()).toBe(false);
    // The fake rejects handles of an older session, as NVML may: the device looks itself up again by UUID.
    expect(gpu.temperature).toBe(32);
    expect(fake.inits).toBe(2);
    expect(fake.calls).toContain("nvmlDeviceGetHandleByUUID");
    expect(new system.Device(1)).toBe(gpu);
  });

  it("reports NVML's failure to start", () => {
    fake.failures.set("nvmlInit", 9);
    expect(() => system.deviceCount()).toThrow(NVMLError);
    fake.failures.delete("nvmlInit");
    expect(system.deviceCount()).toBe(2);
  });
});

describe("system.Device", () => {
  it("is found by index, UUID (with or without GPU-) and PCI bus id, the same object each time", () => {
    const a = new system.Device(1);
    expect(new system.Device({ index: 1 })).toBe(a);
    expect(new system.Device({ uuid: "GPU-00000001-1111-2222-3333-444444444441" })).toBe(a);
    expect(new system.Device({ uuid: "00000001-1111-2222-3333-444444444441" })).toBe(a);
    expect(new system.Device({ pciBusId: "00000000:1A:00.0" })).toBe(a);
    expect(a.uuid).toBe("GPU-00000001-1111-2222-3333-444444444441");
    expect(a.uuidWithoutPrefix).toBe("00000001-1111-2222-3333-444444444441");
    expect(a.index).toBe(1);
    expect(SystemDevice.all().map((d) => d.name)).toEqual(["Fake GPU 0", "Fake GPU 1"]);
  });

  it("rejects indices out of range and malformed selectors, and passes NOT_FOUND on", () => {
    expect(() => new system.Device(2)).toThrow(/NVML device 2 does not exist: NVML sees 2 GPUs/);
    expect(() => new system.Device(-1)).toThrow(RangeError);
    expect(() => new system.Device(1.5)).toThrow(RangeError);
    expect(() => new system.Device({ uuid: "" })).toThrow(TypeError);
    expect(() => new system.Device({} as never)).toThrow(TypeError);
    expect(() => new system.Device({ uuid: "GPU-nope" })).toThrow(/NVML_ERROR_NOT_FOUND/);
  });

  it("reads PCI facts, splitting the combined device and vendor id", () => {
    const p = new system.Device(0).pciInfo;
    expect(p).toEqual({ busId: "00000000:19:00.0", domain: 0, bus: 0x19, device: 0, deviceId: 0x2335, vendorId: 0x10de, subsystemId: 0x18761 });
    expect(new system.Device(0).pciBusId).toBe("00000000:19:00.0");
  });

  it("reads utilisation, power in watts, clocks, modes", () => {
    const gpu = new system.Device(0);
    expect(gpu.utilization).toEqual({ gpu: 7, memory: 3 });
    expect(gpu.power).toEqual({ usage: 75.5, limit: 700 });
    expect(gpu.clocks).toEqual({
      graphics: { current: 1980, max: 1980 },
      sm: { current: 1980, max: 1980 },
      memory: { current: 2619, max: 2619 },
      video: { current: 1545, max: 1755 },
    });
    expect(gpu.clock("video", "max")).toBe(1755);
    expect(() => gpu.clock("shader" as never)).toThrow(RangeError);
    expect(gpu.performanceState).toBe(0);
    expect(gpu.persistenceMode).toBe(true);
    expect(gpu.displayActive).toBe(false);
    expect(gpu.computeMode).toBe("default");
    expect(gpu.migMode).toBe(false);
    expect(gpu.uncorrectedEccErrors).toBe(0n);
    expect(gpu.computeCapability).toEqual({ major: 9, minor: 0 });
    expect(String(gpu)).toBe("system.Device(GPU-00000000-1111-2222-3333-444444444440)");
  });

  it("lists compute processes (the checked call sizes the array), names where readable", () => {
    const many = Array.from({ length: 40 }, (_, i) => ({ pid: 1000 + i, used: BigInt(i) * 2n ** 20n }));
    many[3] = { pid: 1003, used: 0xffff_ffff_ffff_ffffn };
    fake.gpus[0]!.processes = many;
    fake.processNames.set(1000, "python3");
    const procs = new system.Device(0).processes!;
    expect(procs).toHaveLength(40);
    expect(procs[0]).toEqual({ pid: 1000, usedMemory: 0n, name: "python3" });
    expect(procs[1]).toEqual({ pid: 1001, usedMemory: 2n ** 20n, name: undefined });
    expect(procs[3]!.usedMemory).toBeUndefined();
    expect(fake.calls.filter((c) => c === "nvmlDeviceGetComputeRunningProcesses").length).toBe(1);
    expect(new system.Device(1).processes).toEqual([]);
    expect(system.processName(1000)).toBe("python3");
    expect(system.processName(1)).toBeUndefined();
    fake.failures.set("nvmlDeviceGetComputeRunningProcesses", 3);
    expect(new system.Device(0).processes).toBeUndefined();
  });
});

describe("system.snapshot", () => {
  it("is plain JSON-friendly data with absent readings left out", () => {
    fake.failures.set("nvmlDeviceGetFanSpeed", 3);
    fake.gpus[1]!.processes = [{ pid: 42, used: 3n * 2n ** 20n }];
    fake.processNames.set(42, "worker");
    const s = system.snapshot();
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    expect(s.driverVersion).toBe("580.95.05");
    expect(s.cudaVersion).toBe("13.0");
    expect(s.devices).toHaveLength(2);
    const d = s.devices[1]!;
    expect(d).not.toHaveProperty("fanSpeed");
    expect(d.memory).toEqual({ totalBytes: 150_000 * 2 ** 20, usedBytes: 1024 * 2 ** 20, freeBytes: 148_976 * 2 ** 20, reservedBytes: 500 * 2 ** 20 });
    expect(d.processes).toEqual([{ pid: 42, name: "worker", usedMemoryBytes: 3 * 2 ** 20 }]);
    expect(d.power).toEqual({ usage: 75.5, limit: 700 });
    expect(snapshotDevice(new system.Device(1))).toEqual(d);
  });
});

describe("decodeCString", () => {
  it("stops at the first NUL and takes signed bytes too", () => {
    expect(decodeCString(Uint8Array.of(0x41, 0x42, 0, 0x43))).toBe("AB");
    expect(decodeCString(Int8Array.of(0x41, 0x42))).toBe("AB");
    expect(decodeCString(new TextEncoder().encode("Grüße\0x"))).toBe("Grüße");
  });
});
