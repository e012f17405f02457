/**
 * Whether this machine can run the GPU tests: a CUDA driver that initialises and at least one device. Tests
 * use `describe.skipIf(!gpu.available)` and name the reason.
 *
 * With `CUDA_TS_REQUIRE_GPU=1` (set on the GPU machine, docs/contributing.md, "GPU tests") a probe that finds no usable
 * GPU throws {@link GpuRequiredError} instead, naming the cause: every GPU test file then fails rather than skips, so
 * a bug in our own pathfinder or driver binding cannot turn the GPU run into a green run of skips.
 */
import { driver } from "../../src/bindings/driver-entry.ts";

/** The environment variable that turns the probe's skip into a failure. */
export const REQUIRE_GPU_VARIABLE = "CUDA_TS_REQUIRE_GPU";

/** The probe found no usable GPU while {@link REQUIRE_GPU_VARIABLE} asked for one. */
export class GpuRequiredError extends Error {
  override readonly name = "GpuRequiredError";
  /** Why the probe found no usable GPU. */
  readonly reason: string;
  constructor(reason: string) {
    super(`${REQUIRE_GPU_VARIABLE}=1 but the GPU tests cannot run: ${reason}`);
    this.reason = reason;
  }
}

/** What the probe found: whether the GPU tests can run, and why not. */
export interface GpuProbe {
  readonly available: boolean;
  readonly reason: string;
}

function probe(): GpuProbe {
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

/** Whether the environment asks for a GPU: the variable set to anything but "", "0" or "false". */
export function gpuRequired(value: string | undefined = process.env[REQUIRE_GPU_VARIABLE]): boolean {
  return value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false";
}

/** The probe's result, or a {@link GpuRequiredError} when it found no GPU and one is required. */
export function requireGpu(result: GpuProbe, required: boolean = gpuRequired()): GpuProbe {
  if (!result.available && required) throw new GpuRequiredError(result.reason);
  return result;
}

/** The probe's result, computed once per test file. Throws {@link GpuRequiredError} (see above). */
export const gpu: GpuProbe = requireGpu(probe());

/** A suffix for describe() titles: why the suite skips here. */
export const skipNote: string = gpu.available ? "" : ` [skipped: ${gpu.reason}]`;
