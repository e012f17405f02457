/**
 * `cuda-ts doctor`: what this machine offers cuda-ts. For every library the pathfinder knows: found or not, where,
 * how, and its version where the bindings can ask it; the driver's version; each GPU; the JavaScript runtime.
 * Never fails for a missing driver or GPU: it says so.
 *
 * @module
 */
import { surveyNvidiaLibraries, type LibrarySurveyEntry } from "../pathfinder/index.ts";
import { runtimeName } from "../ffi/host.ts";

/** One library's line of the report. */
export interface DoctorLibrary extends LibrarySurveyEntry {
  /** Its version, when the bindings could read it. */
  readonly version?: string;
}

/** One GPU's line of the report. */
export interface DoctorDevice {
  readonly ordinal: number;
  readonly name: string;
  readonly computeCapability: string;
  readonly memoryBytes: number;
  readonly uuid: string;
}

/** The whole report (`cuda-ts doctor --json` prints it). */
export interface DoctorReport {
  readonly runtime: { readonly name: string; readonly version: string };
  readonly driver: { readonly found: boolean; readonly cudaVersion?: string; readonly error?: string };
  readonly devices: readonly DoctorDevice[];
  readonly libraries: readonly DoctorLibrary[];
  readonly nvml?: { readonly driverVersion: string; readonly nvmlVersion: string } | { readonly error: string };
}

function cudaVersion(v: number): string {
  return `${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}`;
}

async function libraryVersion(name: string): Promise<string | undefined> {
  try {
    switch (name) {
      case "cudart": {
        const { runtime } = await import("../bindings/runtime.ts");
        return cudaVersion(runtime.cudaRuntimeGetVersion());
      }
      case "nvrtc": {
        const { nvrtc } = await import("../bindings/nvrtc.ts");
        return nvrtc.nvrtcVersion().join(".");
      }
      case "nvJitLink": {
        const { nvjitlink } = await import("../bindings/nvjitlink.ts");
        return nvjitlink.nvJitLinkVersion().join(".");
      }
      case "nvvm": {
        const { nvvm } = await import("../bindings/nvvm.ts");
        return `${nvvm.nvvmVersion().join(".")} (IR ${nvvm.nvvmIRVersion().slice(0, 2).join(".")})`;
      }
      case "nvfatbin": {
        const { nvfatbin } = await import("../bindings/nvfatbin.ts");
        return nvfatbin.nvFatbinVersion().join(".");
      }
      case "cupti": {
        const { cupti } = await import("../bindings/cupti.ts");
        return String(cupti.cuptiGetVersion());
      }
      case "cuda": {
        const { driver } = await import("../bindings/driver.ts");
        return cudaVersion(driver.driverVersion());
      }
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

/** Builds the report. */
export async function doctorReport(): Promise<DoctorReport> {
  const rt = runtimeName === "bun"
    ? { name: "Bun", version: (globalThis as unknown as { Bun: { version: string } }).Bun.version }
    : { name: "Deno", version: (globalThis as unknown as { Deno: { version: { deno: string } } }).Deno.version.deno };
  const survey = surveyNvidiaLibraries({ load: true });
  const libraries: DoctorLibrary[] = [];
  for (const entry of survey) {
    const version = entry.found ? await libraryVersion(entry.name) : undefined;
    libraries.push(version === undefined ? entry : { ...entry, version });
  }
  let driverInfo: DoctorReport["driver"];
  const devices: DoctorDevice[] = [];
  try {
    const { driver } = await import("../bindings/driver.ts");
    driver.cuInit(0);
    driverInfo = { found: true, cudaVersion: cudaVersion(driver.driverVersion()) };
    const { Device } = await import("../core/device.ts");
    for (const d of Device.all()) {
      const cc = d.computeCapability;
      devices.push({ ordinal: d.id, name: d.name, computeCapability: `${cc.major}.${cc.minor}`, memoryBytes: Number(d.totalMemory), uuid: d.uuid });
    }
  } catch (e) {
    driverInfo = { found: false, error: (e as Error).message.split("\n")[0] ?? String(e) };
  }
  let nvml: DoctorReport["nvml"];
  try {
    const { nvml: lib } = await import("../bindings/nvml.ts");
    lib.nvmlInit();
    const buf = new Uint8Array(new ArrayBuffer(96));
    lib.nvmlSystemGetDriverVersion(buf, 96);
    const driverVersion = new TextDecoder().decode(buf.subarray(0, buf.indexOf(0)));
    lib.nvmlSystemGetNVMLVersion(buf, 96);
    const nvmlVersion = new TextDecoder().decode(buf.subarray(0, buf.indexOf(0)));
    lib.nvmlShutdown();
    nvml = { driverVersion, nvmlVersion };
  } catch (e) {
    nvml = { error: (e as Error).message.split("\n")[0] ?? String(e) };
  }
  return { runtime: rt, driver: driverInfo, devices, libraries, nvml };
}

/** The report as text for a terminal. */
export function formatDoctor(r: DoctorReport): string {
  const lines: string[] = [];
  lines.push(`cuda-ts doctor — ${r.runtime.name} ${r.runtime.version}`);
  lines.push("");
  if (r.driver.found) {
    lines.push(`NVIDIA driver: supports CUDA ${r.driver.cudaVersion}${r.nvml && "driverVersion" in r.nvml ? ` (driver ${r.nvml.driverVersion}, NVML ${r.nvml.nvmlVersion})` : ""}`);
    if (r.devices.length === 0) lines.push("GPUs: none");
    for (const d of r.devices) {
      lines.push(`GPU ${d.ordinal}: ${d.name}, compute capability ${d.computeCapability}, ${(d.memoryBytes / 2 ** 30).toFixed(1)} GiB, ${d.uuid}`);
    }
  } else {
    lines.push("NVIDIA driver: not found — this machine cannot run CUDA kernels (compilers and tools may still work).");
    if (r.driver.error) lines.push(`  (${r.driver.error})`);
  }
  lines.push("");
  lines.push("Libraries:");
  const w = Math.max(...r.libraries.map((l) => l.name.length));
  for (const l of r.libraries) {
    if (l.found) lines.push(`  ${l.name.padEnd(w)}  found  ${l.version ? `v${l.version}  ` : ""}${l.path} (${l.foundVia})`);
    else lines.push(`  ${l.name.padEnd(w)}  -      not found`);
  }
  return lines.join("\n");
}
