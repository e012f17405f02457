/**
 * `system` against the real NVML and driver: NVML and CUDA agree on the GPUs (UUID, name, PCI slot, compute
 * capability), readings are in range, memory NVML reports moves with an allocation of ours, the snapshot and
 * table cover every GPU. Skips where there is no GPU.
 */
import { describe, expect, it } from "vitest";
import { driver } from "../../../src/bindings/driver-entry.ts";
import { Device } from "../../../src/index.ts";
import * as system from "../../../src/system.ts";
import { SystemDevice } from "../../../src/system.ts";
import { gpu, skipNote } from "../../support/gpu.ts";

const GIB = 2n ** 30n;
const visibleDevices = process.env.CUDA_VISIBLE_DEVICES;

describe.skipIf(!gpu.available)(`system (NVML) on this machine's GPUs${skipNote}`, () => {
  it("reports the driver, NVML and CUDA versions, the CUDA one as the driver does", () => {
    expect(system.driverVersion()).toMatch(/^\d+\.\d+/);
    expect(system.nvmlVersion()).toMatch(/^\d+\.\d+/);
    expect(system.cudaDriverVersion()).toBe(driver.driverVersion());
    expect(system.isInitialized()).toBe(true);
  });

  it("sees the GPUs CUDA sees, with the same UUIDs (all of them when CUDA_VISIBLE_DEVICES is unset)", () => {
    const cuda = Device.all();
    const nvmlUuids = system.devices().map((d) => d.uuidWithoutPrefix);
    expect(system.deviceCount()).toBe(nvmlUuids.length);
    expect(new Set(nvmlUuids).size).toBe(nvmlUuids.length);
    for (const d of cuda) expect(nvmlUuids).toContain(d.uuid.toLowerCase());
    if (visibleDevices === undefined) expect([...nvmlUuids].sort()).toEqual(cuda.map((d) => d.uuid.toLowerCase()).sort());
  });

  it("maps each CUDA device to its NVML GPU and back (UUID, name, PCI slot, compute capability)", () => {
    for (const dev of Device.all()) {
      const g = system.Device.fromCudaDevice(dev);
      expect(g).toBeInstanceOf(SystemDevice);
      expect(g.uuid).toMatch(/^(GPU|MIG)-[0-9a-f-]{36}$/);
      expect(g.uuidWithoutPrefix).toBe(dev.uuid.toLowerCase());
      expect(g.toCudaDevice()).toBe(dev);
      expect(g.name).toBe(dev.name);
      expect(new system.Device({ uuid: dev.uuid })).toBe(g);
      expect(new system.Device(g.index)).toBe(g);
      expect(new system.Device({ pciBusId: g.pciBusId })).toBe(g);
      const pci = g.pciInfo;
      expect(pci.vendorId).toBe(0x10de);
      expect(pci.domain).toBe(dev.properties.pciDomainId);
      expect(pci.bus).toBe(dev.properties.pciBusId);
      expect(pci.device).toBe(dev.properties.pciDeviceId);
      // NVML writes an 8-digit domain, CUDA a 4-digit one: the same slot.
      expect(pci.busId.toLowerCase().replace(/^0{4}/, "")).toBe(dev.pciBusId.toLowerCase());
      expect(g.computeCapability).toEqual(dev.computeCapability);
    }
  });

  it("reads memory, utilisation, temperature, power, clocks and modes in range (or undefined where unsupported)", () => {
    for (const dev of Device.all()) {
      const g = system.Device.fromCudaDevice(dev);
      const m = g.memory;
      expect(m).toBeDefined();
      expect(m!.total).toBeGreaterThanOrEqual(dev.totalMemory);
      expect(m!.total).toBeLessThan((dev.totalMemory * 11n) / 10n);
      expect(m!.used + m!.free).toBeLessThanOrEqual(m!.total);
      const u = g.utilization;
      if (u !== undefined) {
        expect(u.gpu).toBeGreaterThanOrEqual(0);
        expect(u.gpu).toBeLessThanOrEqual(100);
        expect(u.memory).toBeLessThanOrEqual(100);
      }
      const t = g.temperature;
      if (t !== undefined) {
        expect(t).toBeGreaterThan(0);
        expect(t).toBeLessThan(110);
      }
      const p = g.power;
      if (p.usage !== undefined && p.limit !== undefined) {
        expect(p.usage).toBeGreaterThan(0);
        expect(p.limit).toBeGreaterThan(0);
        expect(p.usage).toBeLessThan(p.limit * 1.5);
      }
      const c = g.clocks;
      for (const domain of ["graphics", "sm", "memory"] as const) {
        if (c[domain].max !== undefined) expect(c[domain].max).toBeGreaterThan(0);
        if (c[domain].current !== undefined) expect(c[domain].current).toBeGreaterThan(0);
      }
      const ps = g.performanceState;
      if (ps !== undefined) expect(ps).toBeGreaterThanOrEqual(0);
      if (ps !== undefined) expect(ps).toBeLessThanOrEqual(15);
      const mode = g.computeMode;
      if (mode !== undefined) expect(["default", "exclusive-thread", "prohibited", "exclusive-process"]).toContain(mode);
      const fan = g.fanSpeed;
      if (fan !== undefined) expect(fan).toBeLessThanOrEqual(100);
    }
  });

  it("sees device memory this process allocates", async () => {
    const dev = Device.all()[0]!;
    dev.setCurrent();
    const g = system.Device.fromCudaDevice(dev);
    using stream = dev.createStream();
    stream.sync();
    // Per process, not device-wide: other test files allocate and free on the same GPU at the same time.
    const usage = (): Map<number, bigint> =>
      new Map((g.processes ?? []).flatMap((p) => (p.usedMemory === undefined ? [] : [[p.pid, p.usedMemory] as const])));
    const before = usage();
    const buffer = dev.allocate(2n * GIB, { stream });
    buffer.fill(1, { stream });
    await stream.done();
    const during = usage();
    buffer.close(stream);
    await stream.done();
    const grew = (pid: number): bigint => (during.get(pid) ?? 0n) - (before.get(pid) ?? 0n);
    if (during.has(process.pid)) {
      // NVML shares our PID namespace: our own entry grew by our 2 GiB.
      expect(grew(process.pid)).toBeGreaterThanOrEqual((19n * GIB) / 10n);
    } else {
      // NVML reports host PIDs (a container): one process, ours, grew by 2 GiB while we held the buffer.
      expect([...during.keys()].some((pid) => grew(pid) >= (19n * GIB) / 10n), JSON.stringify([...during].map(([p, m]) => [p, String(m)]))).toBe(true);
    }
  });

  it("lists compute processes with sane fields (our own, where NVML shares our PID namespace)", () => {
    const dev = Device.all()[0]!;
    dev.setCurrent();
    const procs = system.Device.fromCudaDevice(dev).processes;
    if (procs === undefined) return;
    for (const p of procs) {
      expect(p.pid).toBeGreaterThan(0);
      if (p.usedMemory !== undefined) expect(p.usedMemory).toBeGreaterThanOrEqual(0n);
    }
    const me = procs.find((p) => p.pid === process.pid);
    if (me !== undefined) {
      expect(me.name).toMatch(/bun|deno|node|vitest/i);
      expect(system.processName(process.pid)).toBe(me.name);
    }
  });

  it("snapshots and tabulates every GPU", () => {
    const s = system.snapshot();
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    expect(s.devices.map((d) => d.uuid)).toEqual(system.devices().map((d) => d.uuid));
    const table = system.formatTable(s);
    for (const d of s.devices) {
      expect(table).toContain(d.pciBusId);
      expect(table).toContain(d.name.slice(0, 20));
    }
    for (const line of table.split("\n").filter((l) => l !== "")) expect(line.length).toBe(91);
  });

  it("shuts NVML down and starts it again with working devices", () => {
    const g = system.Device.fromCudaDevice(Device.all()[0]!);
    const name = g.name;
    system.shutdown();
    expect(system.isInitialized()).toBe(false);
    expect(g.memory?.total).toBeGreaterThan(0n);
    expect(new system.Device({ uuid: g.uuid }).name).toBe(name);
    expect(system.isInitialized()).toBe(true);
  });
});
