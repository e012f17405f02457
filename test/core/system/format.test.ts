/** The nvidia-smi-like table and the doctor's NVML lines, from fixed snapshots. */
import { describe, expect, it } from "vitest";
import { formatSystemTable } from "../../../src/core/system/format.ts";
import type { SystemDeviceSnapshot, SystemSnapshot } from "../../../src/core/system/snapshot.ts";
import { formatNvmlDevice } from "../../../src/cli/doctor.ts";

const MIB = 2 ** 20;

const h200: SystemDeviceSnapshot = {
  index: 0,
  name: "NVIDIA H200",
  uuid: "GPU-6b2a3c1e-0d4f-4a5b-9c8d-7e6f5a4b3c2d",
  pciBusId: "00000000:19:00.0",
  memory: { totalBytes: 143_771 * MIB, usedBytes: 4_321 * MIB, freeBytes: 139_450 * MIB, reservedBytes: 512 * MIB },
  utilization: { gpu: 87, memory: 41 },
  temperature: 45,
  performanceState: 0,
  power: { usage: 312.4, limit: 700 },
  clocks: { graphics: { current: 1980, max: 1980 }, sm: { current: 1980, max: 1980 }, memory: { current: 2619, max: 2619 }, video: { current: 1545, max: 1755 } },
  persistenceMode: true,
  displayActive: false,
  computeMode: "default",
  migMode: false,
  uncorrectedEccErrors: 0,
  processes: [
    { pid: 4242, name: "bun", usedMemoryBytes: 4_000 * MIB },
    { pid: 77, usedMemoryBytes: undefined as never },
  ],
};

const bare: SystemDeviceSnapshot = {
  index: 1,
  name: "A GPU whose name is far too long to fit in the first cell of the table",
  uuid: "GPU-00000000-0000-0000-0000-000000000001",
  pciBusId: "00000000:9A:00.0",
  power: {},
  clocks: { graphics: {}, sm: {}, memory: {}, video: {} },
};

const snapshot: SystemSnapshot = { driverVersion: "580.95.05", nvmlVersion: "13.580.95.05", cudaVersion: "13.0", devices: [h200, bare] };

describe("formatSystemTable", () => {
  const table = formatSystemTable(snapshot);
  const lines = table.split("\n");

  it("draws every row 91 columns wide, like nvidia-smi", () => {
    for (const l of lines.filter((x) => x !== "")) expect(l.length, l).toBe(91);
    expect(lines[0]).toBe(`+${"-".repeat(89)}+`);
  });

  it("names the driver, NVML and CUDA versions", () => {
    expect(lines[1]).toMatch(/^\| cuda-ts system \(NVML 13\.580\.95\.05\) +Driver Version: 580\.95\.05 {3}CUDA Version: 13\.0 \|$/);
  });

  it("shows each GPU's identity and readings in nvidia-smi's places", () => {
    const row = lines.findIndex((l) => l.includes("NVIDIA H200"));
    expect(lines[row]).toMatch(/^\| {3}0 {2}NVIDIA H200 +On \| {3}00000000:19:00\.0 Off \| +0 \|$/);
    expect(lines[row + 1]).toMatch(/^\| N\/A {3}45C {3}P0 +312W \/ {2}700W \| +4321MiB \/ 143771MiB \| {3}87% +Default \|$/);
    expect(lines[row + 2]).toMatch(/\| +Disabled \|$/);
  });

  it("writes N/A for readings a GPU does not report, and cuts long names", () => {
    const row = lines.findIndex((l) => l.startsWith("|   1  A GPU"));
    expect(lines[row]).toContain("…");
    expect(lines[row]).toMatch(/N\/A \| {3}00000000:9A:00\.0 N\/A \| +N\/A \|$/);
    expect(lines[row + 1]).toMatch(/^\| N\/A {3}N\/A {2}N\/A +N\/A \/ {3}N\/A \| +N\/A \| {3}N\/A +N\/A \|$/);
  });

  it("lists clocks, current / max", () => {
    const row = lines.find((l) => l.startsWith("|    0   1980 / 1980"));
    expect(row).toMatch(/1980 \/ 1980 +1980 \/ 1980 +2619 \/ 2619 +1545 \/ 1755/);
    expect(lines.find((l) => l.startsWith("|    1   N/A / N/A"))).toBeDefined();
  });

  it("lists processes with names and memory where known", () => {
    expect(table).toMatch(/\| +0 +4242 {3}bun +4000MiB \|/);
    expect(table).toMatch(/\| +0 +77 {3}\(name not readable\) +N\/A \|/);
    expect(table).toMatch(/\| +1 {3}\(NVML cannot list this GPU's processes\) +\|/);
  });

  it("says so when there are no GPUs or no processes", () => {
    const none = formatSystemTable({ ...snapshot, devices: [] });
    expect(none).toContain("No GPUs found");
    expect(none).toContain("No running processes found");
    for (const l of none.split("\n").filter((x) => x !== "")) expect(l.length, l).toBe(91);
    const idle = formatSystemTable({ ...snapshot, devices: [{ ...h200, processes: [] }] });
    expect(idle).toContain("No running processes found");
  });
});

describe("the doctor's NVML lines", () => {
  it("summarise memory, utilisation, temperature, power, clocks and processes", () => {
    const lines = formatNvmlDevice(h200, "  ");
    expect(lines[0]).toBe("  NVML: PCI 00000000:19:00.0, memory 4.2 / 140.4 GiB used, utilisation GPU 87% memory 41%, 45 °C, power 312 / 700 W, P0");
    expect(lines[1]).toBe("  clocks MHz (current/max): graphics 1980/1980, SM 1980/1980, memory 2619/2619");
    expect(lines[2]).toBe("  processes: 4242 bun (3.9 GiB), 77 ?");
    expect(formatNvmlDevice(bare, "")).toEqual([
      "NVML: PCI 00000000:9A:00.0",
      "clocks MHz (current/max): graphics ?/?, SM ?/?, memory ?/?",
      "processes: (NVML cannot list them)",
    ]);
  });
});
