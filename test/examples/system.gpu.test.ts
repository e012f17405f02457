/**
 * The examples show_device_properties.ts and nvidia_smi.ts run with this runtime (Bun: this executable; Deno: the
 * deno of node_modules/.bin with --allow-ffi --allow-env --allow-read), exit 0, and print what the driver and NVML
 * report for every GPU. Skips where there is no GPU.
 */
import { runExample } from "../support/runtime.ts";
import { describe, expect, it } from "vitest";
import { Device } from "../../src/index.ts";
import * as system from "../../src/system.ts";
import { gpu, skipNote } from "../support/gpu.ts";

describe.skipIf(!gpu.available)(`examples: show_device_properties, nvidia_smi${skipNote}`, () => {
  it("show_device_properties prints every device with every attribute and exits 0", () => {
    const r = runExample("show_device_properties.ts");
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    for (const d of Device.all()) {
      expect(r.stdout).toContain(`Device ${d.id}: ${d.name}`);
      expect(r.stdout).toContain(d.uuid);
      expect(r.stdout).toContain(d.pciBusId);
    }
    expect(r.stdout).toMatch(/^ {4}maxThreadsPerBlock +\d+$/m);
    expect(r.stdout).toMatch(/^ {4}multiprocessorCount +\d+$/m);
    expect(r.stdout).toMatch(/show_device_properties: \d+ device\(s\), \d+ attributes each, OK/);
  });

  it("nvidia_smi prints the table and finds NVML and the driver agreeing on the GPUs (UUIDs), exit 0", () => {
    const r = runExample("nvidia_smi.ts");
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain(`Driver Version: ${system.driverVersion()}`);
    for (const d of Device.all()) {
      const g = system.Device.fromCudaDevice(d);
      expect(r.stdout).toContain(`CUDA device ${d.id} = NVML GPU ${g.index}: ${g.uuid}`);
      expect(r.stdout).toContain(g.pciBusId);
    }
    expect(r.stdout).toMatch(/nvidia_smi: NVML and CUDA agree on \d+ GPU\(s\)/);
  });
});
