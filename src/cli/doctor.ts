/**
 * `cuda-ts doctor`: what this machine offers cuda-ts, a summary first (can kernels run, what compiles, which libraries
 * were found, what to do), then the details. For every library the pathfinder knows: found or not, where,
 * how, and its version where the bindings can ask it; the driver's version; each GPU, with what NVML reports about
 * it (memory in use, utilisation, temperature, power, clocks, PCI bus id, compute processes); the JavaScript
 * runtime. Never fails for a missing driver, GPU or NVML: it says so.
 *
 * @module
 */
import { overrideVariable, surveyNvidiaLibraries, unsafeLibraryPathEntries, unsafeLibraryPathMessage, type LibrarySurveyEntry } from "../pathfinder/index.ts";
import { getEnv, runtimeName } from "../host.ts";
import type { SystemDeviceSnapshot, SystemSnapshot } from "../core/system/snapshot.ts";
import { formatGdsStatus, type GdsStatus } from "../core/gds/status.ts";

/** One library's line of the report. */
export interface DoctorLibrary extends LibrarySurveyEntry {
  /** Its version, when the bindings could read it. */
  readonly version?: string;
  /**
   * For a library cuda-ts binds: the version of the generated table its binding chose, and why. `of` names what
   * the version counts: the CUDA Toolkit's, or the library's own where it versions apart from it (NCCL).
   */
  readonly table?: { readonly version: string; readonly of: "CUDA" | "NCCL"; readonly reason: string; readonly carried: readonly string[] };
}

/** One GPU's line of the report. */
export interface DoctorDevice {
  readonly ordinal: number;
  readonly name: string;
  readonly computeCapability: string;
  readonly memoryBytes: number;
  readonly uuid: string;
  /** What NVML reports about this GPU (matched by UUID), when NVML could be read. */
  readonly nvml?: SystemDeviceSnapshot;
}

/** The whole report (`cuda-ts doctor --json` prints it). */
export interface DoctorReport {
  readonly runtime: { readonly name: string; readonly version: string };
  /**
   * What in this environment is unsafe (such as empty or relative `LD_LIBRARY_PATH` entries), one line each;
   * {@link doctorReport} always fills it in (empty when there is nothing to say).
   */
  readonly warnings?: readonly string[];
  readonly driver: { readonly found: boolean; readonly cudaVersion?: string; readonly error?: string };
  readonly devices: readonly DoctorDevice[];
  readonly libraries: readonly DoctorLibrary[];
  /** NVML's view: versions and every GPU it sees (also those CUDA_VISIBLE_DEVICES hides from CUDA), or why not. */
  readonly nvml?: SystemSnapshot | { readonly error: string };
  /** GPUDirect Storage: the cuFile driver's mode (where libcufile and a GPU are found), or why it did not open. */
  readonly gds?: GdsStatus | { readonly error: string };
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
      case "cublas": {
        const { cublas } = await import("../bindings/cublas.ts");
        return [0, 1, 2].map((p) => cublas.cublasGetProperty(p as never)).join(".");
      }
      case "cublasLt": {
        const { cublasLt } = await import("../bindings/cublaslt.ts");
        return [0, 1, 2].map((p) => cublasLt.cublasLtGetProperty(p as never)).join(".");
      }
      case "curand": {
        const { curand } = await import("../bindings/curand.ts");
        return [0, 1, 2].map((p) => curand.curandGetProperty(p as never)).join(".");
      }
      case "cufft": {
        const { cufft } = await import("../bindings/cufft.ts");
        return [0, 1, 2].map((p) => cufft.cufftGetProperty(p as never)).join(".");
      }
      case "cusolver": {
        const { cusolver } = await import("../bindings/cusolver.ts");
        return [0, 1, 2].map((p) => cusolver.cusolverGetProperty(p as never)).join(".");
      }
      case "cusparse": {
        const { cusparse } = await import("../bindings/cusparse.ts");
        return [0, 1, 2].map((p) => cusparse.cusparseGetProperty(p as never)).join(".");
      }
      case "cuda": {
        const { driver } = await import("../bindings/driver.ts");
        return cudaVersion(driver.driverVersion());
      }
      case "nccl": {
        const { nccl, loadedNcclVersion } = await import("../bindings/nccl.ts");
        const v = loadedNcclVersion(nccl);
        return `${v.major}.${v.minor}.${v.patch}`;
      }
      default:
        return undefined;
    }
  } catch {
    return undefined;
  }
}

/** The binding of a pathfinder library name, for the libraries cuda-ts binds. */
async function bindingOf(name: string): Promise<{ table(): { table: { library: { ctkVersion: string } }; reason: string }; readonly tableVersions: readonly string[] } | undefined> {
  switch (name) {
    case "cuda":
      return (await import("../bindings/driver.ts")).driver;
    case "cudart":
      return (await import("../bindings/runtime.ts")).runtime;
    case "nvrtc":
      return (await import("../bindings/nvrtc.ts")).nvrtc;
    case "nvJitLink":
      return (await import("../bindings/nvjitlink.ts")).nvjitlink;
    case "nvvm":
      return (await import("../bindings/nvvm.ts")).nvvm;
    case "nvml":
      return (await import("../bindings/nvml.ts")).nvml;
    case "cufile":
      return (await import("../bindings/cufile.ts")).cufile;
    case "nvfatbin":
      return (await import("../bindings/nvfatbin.ts")).nvfatbin;
    case "cupti":
      return (await import("../bindings/cupti.ts")).cupti;
    case "cublas":
      return (await import("../bindings/cublas.ts")).cublas;
    case "cublasLt":
      return (await import("../bindings/cublaslt.ts")).cublasLt;
    case "curand":
      return (await import("../bindings/curand.ts")).curand;
    case "cufft":
      return (await import("../bindings/cufft.ts")).cufft;
    case "cusolver":
      return (await import("../bindings/cusolver.ts")).cusolver;
    case "cusparse":
      return (await import("../bindings/cusparse.ts")).cusparse;
    case "nccl":
      return (await import("../bindings/nccl.ts")).nccl;
    default:
      return undefined;
  }
}

/** The generated table a library's binding chose (loading it), or undefined. */
async function chosenTable(name: string): Promise<DoctorLibrary["table"]> {
  try {
    const b = await bindingOf(name);
    if (b === undefined) return undefined;
    const c = b.table();
    return { version: c.table.library.ctkVersion, of: name === "nccl" ? "NCCL" : "CUDA", reason: c.reason, carried: b.tableVersions };
  } catch {
    return undefined;
  }
}

/** The environment's warnings: empty or relative `LD_LIBRARY_PATH` entries (the system loader searches them from the current directory). */
export function environmentWarnings(ldLibraryPath: string | undefined = getEnv("LD_LIBRARY_PATH")): string[] {
  const unsafe = unsafeLibraryPathEntries(ldLibraryPath);
  return unsafe.length === 0 ? [] : [unsafeLibraryPathMessage(unsafe)];
}

/** Builds the report. */
export async function doctorReport(): Promise<DoctorReport> {
  const warnings = environmentWarnings();
  const rt = runtimeName === "bun"
    ? { name: "Bun", version: (globalThis as unknown as { Bun: { version: string } }).Bun.version }
    : { name: "Deno", version: (globalThis as unknown as { Deno: { version: { deno: string } } }).Deno.version.deno };
  const survey = surveyNvidiaLibraries({ load: true });
  const libraries: DoctorLibrary[] = [];
  for (const entry of survey) {
    const version = entry.found ? await libraryVersion(entry.name) : undefined;
    const table = entry.found ? await chosenTable(entry.name) : undefined;
    libraries.push({ ...entry, ...(version === undefined ? {} : { version }), ...(table === undefined ? {} : { table }) });
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
    driverInfo = { found: false, error: e instanceof Error ? e.message : String(e) };
  }
  let nvml: DoctorReport["nvml"];
  try {
    const { systemSnapshot } = await import("../core/system/snapshot.ts");
    const { shutdownNvml } = await import("../core/system/nvml.ts");
    try {
      nvml = systemSnapshot();
    } finally {
      shutdownNvml();
    }
  } catch (e) {
    nvml = { error: e instanceof Error ? e.message : String(e) };
  }
  if (nvml !== undefined && "devices" in nvml) {
    const byUuid = new Map(nvml.devices.map((g) => [g.uuid.replace(/^(GPU|MIG)-/i, "").toLowerCase(), g]));
    for (let i = 0; i < devices.length; i++) {
      const d = devices[i]!;
      const g = byUuid.get(d.uuid.toLowerCase());
      if (g !== undefined) devices[i] = { ...d, nvml: g };
    }
  }
  let gds: DoctorReport["gds"];
  if (devices.length > 0 && libraries.some((l) => l.name === "cufile" && l.found)) {
    try {
      const { Device } = await import("../core/device.ts");
      new Device(0).setCurrent();
      const { gdsStatus } = await import("../core/gds/driver.ts");
      gds = gdsStatus();
    } catch (e) {
      gds = { error: e instanceof Error ? e.message : String(e) };
    }
  }
  return { runtime: rt, warnings, driver: driverInfo, devices, libraries, nvml, ...(gds === undefined ? {} : { gds }) };
}

const GIB = 2 ** 30;

function gib(bytes: number): string {
  return (bytes / GIB).toFixed(1);
}

function clockPair(c: { readonly current?: number; readonly max?: number }): string {
  return `${c.current ?? "?"}/${c.max ?? "?"}`;
}

/** The NVML lines of one GPU (indented under its CUDA line). */
export function formatNvmlDevice(g: SystemDeviceSnapshot, indent = "       "): string[] {
  const facts: string[] = [`PCI ${g.pciBusId}`];
  if (g.memory) facts.push(`memory ${gib(g.memory.usedBytes)} / ${gib(g.memory.totalBytes)} GiB used`);
  if (g.utilization) facts.push(`utilisation GPU ${g.utilization.gpu}% memory ${g.utilization.memory}%`);
  if (g.temperature !== undefined) facts.push(`${g.temperature} °C`);
  if (g.power.usage !== undefined || g.power.limit !== undefined) {
    facts.push(`power ${g.power.usage === undefined ? "?" : Math.round(g.power.usage)} / ${g.power.limit === undefined ? "?" : Math.round(g.power.limit)} W`);
  }
  if (g.performanceState !== undefined) facts.push(`P${g.performanceState}`);
  const lines = [`${indent}NVML: ${facts.join(", ")}`];
  const c = g.clocks;
  lines.push(`${indent}clocks MHz (current/max): graphics ${clockPair(c.graphics)}, SM ${clockPair(c.sm)}, memory ${clockPair(c.memory)}`);
  if (g.processes === undefined) lines.push(`${indent}processes: (NVML cannot list them)`);
  else if (g.processes.length === 0) lines.push(`${indent}processes: none`);
  else {
    const list = g.processes.map((p) => `${p.pid} ${p.name ?? "?"}${p.usedMemoryBytes === undefined ? "" : ` (${gib(p.usedMemoryBytes)} GiB)`}`);
    lines.push(`${indent}processes: ${list.join(", ")}`);
  }
  return lines;
}

/**
 * Every library cuda-ts binds (src/bindings, by the pathfinder's names), in the order doctor lists them: the driver
 * and the compilers a first program uses ({@link CORE_LIBRARIES}), then the rest. test/cli/doctor-libraries.test.ts
 * holds the list equal to the libraries the bindings name.
 */
export const BOUND_LIBRARIES: readonly string[] = [
  "cuda",
  "nvrtc",
  "nvJitLink",
  "nvvm",
  "cudart",
  "nvml",
  "cufile",
  "nvfatbin",
  "cupti",
  "cublas",
  "cublasLt",
  "curand",
  "cufft",
  "cusolver",
  "cusparse",
  "nccl",
  "pmix",
];

/** The libraries a first program needs (the driver, the compilers): a failure to find one is printed with its reason. */
export const CORE_LIBRARIES: readonly string[] = ["cuda", "nvrtc", "nvJitLink", "nvvm"];

/** Options of {@link formatDoctor}. */
export interface FormatDoctorOptions {
  /** Print the whole reason of every library not found, not only of those cuda-ts binds. */
  readonly verbose?: boolean;
}

/** A multi-line reason, indented under the line it explains. */
function indented(text: string, indent: string): string[] {
  return text.split("\n").map((line) => `${indent}${line}`);
}


/** What each library a first program needs is for, in the to-do list when it is missing. */
const NEEDED_FOR: Readonly<Record<string, string>> = {
  cuda: "nothing runs on a GPU without the NVIDIA driver",
  nvrtc: "CUDA C++ kernels (Program with \"c++\", the kernel builders) are compiled by NVRTC",
  nvJitLink: "linking and LTO (Linker, compile(\"ltoir\")) need nvJitLink",
  nvvm: "NVVM IR programs (Program with \"nvvm\") need libNVVM",
};

/** One library's line in the list of the libraries cuda-ts binds (a found one has a second line: its table). */
function libraryLines(l: DoctorLibrary, w: number, verbose: boolean): string[] {
  if (l.found) {
    const lines = [`  ${l.name.padEnd(w)}  found  ${l.version ? `v${l.version}  ` : ""}${l.path} (${l.foundVia})`];
    if (l.table !== undefined) {
      lines.push(`  ${"".padEnd(w)}         table ${l.table.of} ${l.table.version} (${l.table.reason}; carried: ${l.table.carried.join(", ")})`);
    }
    return lines;
  }
  if (verbose) return [`  ${l.name.padEnd(w)}  -      not found:`, ...(l.error === undefined ? [] : indented(l.error, "      "))];
  // The library's own variable (a reason may name another library's: a dependency that was not found). The driver's
  // libraries are looked for through the system loader only, never under CUDA_PATH.
  const where = l.packagedWith === "driver" ? `the NVIDIA driver installs it; ${overrideVariable(l.name)} would point to it` : `${overrideVariable(l.name)} or CUDA_PATH would point to it`;
  return [`  ${l.name.padEnd(w)}  -      not found (${where})${BOUND_LIBRARIES.includes(l.name) ? "" : "; cuda-ts does not bind it"}`];
}

/** The summary's lines: whether kernels can run, what compiles, which bound libraries were found. */
function summaryLines(r: DoctorReport): string[] {
  const lines: string[] = [];
  const has = (name: string): DoctorLibrary | undefined => r.libraries.find((l) => l.name === name && l.found);
  if (!r.driver.found) lines.push("  GPU:        cannot run kernels: the NVIDIA driver (libcuda.so.1) was not found");
  else if (r.devices.length === 0) lines.push(`  GPU:        the driver (CUDA ${r.driver.cudaVersion}) sees no GPU${getEnv("CUDA_VISIBLE_DEVICES") !== undefined ? ` (CUDA_VISIBLE_DEVICES=${getEnv("CUDA_VISIBLE_DEVICES")})` : ""}`);
  else {
    const driver = r.nvml && "driverVersion" in r.nvml ? `driver ${r.nvml.driverVersion}, ` : "";
    const names = [...new Set(r.devices.map((d) => `${d.name} (compute ${d.computeCapability})`))].join(", ");
    lines.push(`  GPU:        ${r.devices.length} visible, ${names}; ${driver}CUDA ${r.driver.cudaVersion}`);
  }
  const compilers = [
    ["CUDA C++", "nvrtc"],
    ["NVVM IR", "nvvm"],
    ["linking", "nvJitLink"],
  ].map(([what, lib]) => `${what} ${has(lib!) ? "yes" : "no"}`);
  lines.push(`  Compile:    ${compilers.join(", ")}`);
  const bound = r.libraries.filter((l) => BOUND_LIBRARIES.includes(l.name));
  const found = bound.filter((l) => l.found);
  const list = found.map((l) => (l.version === undefined ? l.name : `${l.name} ${l.version}`)).join(", ");
  lines.push(`  Libraries:  ${found.length} of the ${BOUND_LIBRARIES.length} cuda-ts binds found${found.length > 0 ? `: ${list}` : ""}`);
  return lines;
}

/** What to do: a line for each missing library a first program needs, one for the rest. */
function todoLines(r: DoctorReport): string[] {
  const lines: string[] = [];
  const missing = r.libraries.filter((l) => BOUND_LIBRARIES.includes(l.name) && !l.found);
  const core = CORE_LIBRARIES.map((name) => missing.find((l) => l.name === name)).filter((l) => l !== undefined);
  for (const l of core) {
    const fix = l.name === "cuda"
      ? "install the NVIDIA driver (check: ldconfig -p | grep libcuda.so.1), or set CUDA_TS_CUDA_PATH to the path of libcuda.so.1"
      : `install the CUDA Toolkit or NVIDIA's wheel, then set CUDA_PATH to the toolkit's root or ${overrideVariable(l.name)} to the library`;
    lines.push(`  - ${l.name}: ${NEEDED_FOR[l.name] ?? "needed by a first program"}: ${fix}.`);
  }
  const rest = missing.filter((l) => !CORE_LIBRARIES.includes(l.name));
  if (rest.length > 0) {
    lines.push(`  - Not found, needed only by the scripts that use them: ${rest.map((l) => l.name).join(", ")}. Install them (the CUDA Toolkit, NVIDIA's wheels, the driver for nvml), then set CUDA_PATH to a toolkit root that has them, or the variable each line below names.`);
  }
  if (r.driver.found && r.devices.length === 0) lines.push("  - No GPU is visible: check CUDA_VISIBLE_DEVICES and `nvidia-smi`.");
  return lines;
}

/**
 * The report as text for a terminal: a summary (can kernels run, what compiles, which libraries were found), what to
 * do, then one line per library cuda-ts binds. `verbose` adds every search in full, NVML's view of each GPU and the
 * libraries cuda-ts does not bind.
 */
export function formatDoctor(r: DoctorReport, options: FormatDoctorOptions = {}): string {
  const verbose = options.verbose === true;
  const lines: string[] = [];
  lines.push(`cuda-ts doctor — ${r.runtime.name} ${r.runtime.version}`);
  lines.push("");
  if (r.warnings !== undefined && r.warnings.length > 0) {
    for (const w of r.warnings) lines.push(`Warning: ${w}`);
    lines.push("");
  }
  lines.push("Summary:");
  lines.push(...summaryLines(r));
  const todo = todoLines(r);
  if (todo.length > 0) {
    lines.push("");
    lines.push("To do:");
    lines.push(...todo);
  }
  lines.push("");
  if (r.driver.found) {
    lines.push(`NVIDIA driver: supports CUDA ${r.driver.cudaVersion}${r.nvml && "driverVersion" in r.nvml ? ` (driver ${r.nvml.driverVersion}, NVML ${r.nvml.nvmlVersion})` : ""}`);
    if (r.devices.length === 0) lines.push("GPUs: none");
    for (const d of r.devices) {
      lines.push(`GPU ${d.ordinal}: ${d.name}, compute capability ${d.computeCapability}, ${(d.memoryBytes / 2 ** 30).toFixed(1)} GiB, ${d.uuid}`);
      if (verbose && d.nvml !== undefined) lines.push(...formatNvmlDevice(d.nvml));
    }
    if (verbose && r.nvml && "devices" in r.nvml) {
      const seen = new Set(r.devices.map((d) => d.uuid.toLowerCase()));
      for (const g of r.nvml.devices) {
        if (seen.has(g.uuid.replace(/^(GPU|MIG)-/i, "").toLowerCase())) continue;
        lines.push(`NVML GPU ${g.index}: ${g.name}, ${g.uuid} (not visible to CUDA in this process)`);
        lines.push(...formatNvmlDevice(g));
      }
    }
    if (r.nvml && "error" in r.nvml) {
      lines.push(`NVML: not available${verbose ? ":" : ` (${r.nvml.error.split("\n")[0]})`}`);
      if (verbose) lines.push(...indented(r.nvml.error, "    "));
    }
    if (r.gds !== undefined) {
      if ("error" in r.gds) lines.push(`GPUDirect Storage: the cuFile driver does not open: ${r.gds.error.split("\n")[0]}`);
      else lines.push(formatGdsStatus(r.gds));
    }
  } else {
    lines.push("NVIDIA driver: not found — this machine cannot run CUDA kernels (compilers and tools may still work).");
    if (verbose && r.driver.error) lines.push(...indented(r.driver.error, "    "));
  }
  lines.push("");
  const shown = verbose ? r.libraries : r.libraries.filter((l) => BOUND_LIBRARIES.includes(l.name));
  lines.push(verbose ? "Libraries (every one the pathfinder knows):" : "Libraries cuda-ts binds:");
  const w = Math.max(...shown.map((l) => l.name.length));
  for (const l of shown) lines.push(...libraryLines(l, w, verbose));
  lines.push("");
  lines.push(verbose ? "(`cuda-ts doctor --json` prints all of it as JSON)" : "(`cuda-ts doctor --verbose`: every search in full, NVML's view of each GPU, the libraries cuda-ts does not bind; `--json`: all of it)");
  return lines.join("\n");
}
