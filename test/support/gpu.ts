/**
 * Whether this machine can run the GPU tests: a CUDA driver that initialises and at least one device. Tests
 * use `describe.skipIf(!gpu.available)` and name the reason.
 */
import { driver } from "../../src/bindings/driver.ts";

function probe(): { available: boolean; reason: string } {
  try {
    driver.cuInit(0);
    const n = driver.cuDeviceGetCount();
    if (n === 0) return { available: false, reason: "no CUDA device" };
    return { available: true, reason: "" };
  } catch (e) {
    // The first line of a pathfinder error ends with "Searched, in order:"; the reason keeps what comes before.
    const first = ((e as Error).message.split("\n")[0] ?? "").replace(/\.? Searched, in order:$/, "");
    return { available: false, reason: `no usable CUDA driver (${(e as Error).name}: ${first})` };
  }
}

/** The probe's result, computed once per test file. */
export const gpu: { available: boolean; reason: string } = probe();

/** A suffix for describe() titles: why the suite skips here. */
export const skipNote: string = gpu.available ? "" : ` [skipped: ${gpu.reason}]`;
