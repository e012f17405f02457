/**
 * Lays a {@link SystemSnapshot} out as a table in the style of `nvidia-smi` (91 columns): one block per GPU,
 * then clocks, then compute processes. Pure formatting: tests feed it fixed snapshots.
 *
 * @module
 */
import type { ComputeMode } from "./device.ts";
import type { SystemDeviceSnapshot, SystemSnapshot } from "./snapshot.ts";

/** The widths of the three cells of a GPU block (between the bars). */
const CELLS = [41, 24, 22] as const;
/** The inner width of a full-width row. */
const INNER = CELLS[0] + CELLS[1] + CELLS[2] + 2;

const MIB = 2 ** 20;

function fit(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

/** `left` and `right` in a cell of `width` characters, one space of margin each side. */
function cell(left: string, right: string, width: number): string {
  const room = width - 2;
  const r = fit(right, room);
  const l = fit(left, Math.max(0, room - r.length - (r.length > 0 ? 1 : 0)));
  return ` ${l}${" ".repeat(room - l.length - r.length)}${r} `;
}

function row(...cells: string[]): string {
  return `|${cells.join("|")}|`;
}

function rule(fill: "-" | "=", joint: "+" | "|", split: boolean): string {
  if (!split) return `${joint === "|" ? "|" : "+"}${fill.repeat(INNER)}${joint === "|" ? "|" : "+"}`;
  return `${joint}${CELLS.map((w) => fill.repeat(w)).join("+")}${joint}`;
}

function line(text: string): string {
  return row(cell(text, "", INNER));
}

function na<T>(v: T | undefined, f: (v: T) => string): string {
  return v === undefined ? "N/A" : f(v);
}

function onOff(v: boolean | undefined): string {
  return na(v, (b) => (b ? "On" : "Off"));
}

const MODE_LABEL: Readonly<Record<ComputeMode, string>> = {
  default: "Default",
  "exclusive-thread": "E. Thread",
  prohibited: "Prohibited",
  "exclusive-process": "E. Process",
};

function mib(bytes: number): string {
  return `${Math.floor(bytes / MIB)}MiB`;
}

function watts(w: number | undefined): string {
  return na(w, (x) => `${Math.round(x)}W`).padStart(5);
}

function gpuBlock(d: SystemDeviceSnapshot): string[] {
  const [w1, w2, w3] = CELLS;
  const memory = d.memory === undefined ? "N/A" : `${mib(d.memory.usedBytes)} / ${mib(d.memory.totalBytes)}`;
  const fan = na(d.fanSpeed, (f) => `${f}%`).padEnd(5);
  const temp = na(d.temperature, (t) => `${t}C`).padStart(4);
  const perf = na(d.performanceState, (p) => `P${p}`).padStart(5);
  return [
    row(cell(`${String(d.index).padStart(3)}  ${d.name}`, onOff(d.persistenceMode), w1), cell(`  ${d.pciBusId}`, onOff(d.displayActive), w2), cell("", na(d.uncorrectedEccErrors, String), w3)),
    row(
      cell(`${fan}${temp}${perf}`, `${watts(d.power.usage)} / ${watts(d.power.limit)}`, w1),
      cell("", memory, w2),
      cell(na(d.utilization, (u) => `${u.gpu}%`).padStart(5), na(d.computeMode, (m) => MODE_LABEL[m]), w3),
    ),
    row(cell("", "", w1), cell("", "", w2), cell("", na(d.migMode, (m) => (m ? "Enabled" : "Disabled")), w3)),
  ];
}

function clockText(c: { readonly current?: number; readonly max?: number }): string {
  return `${c.current ?? "N/A"} / ${c.max ?? "N/A"}`.padEnd(18);
}

/** Formats a snapshot as an nvidia-smi-like table (lines joined by "\n", no trailing newline). */
export function formatSystemTable(s: SystemSnapshot): string {
  const out: string[] = [];
  const full = rule("-", "+", false);
  out.push(full);
  out.push(row(cell(`cuda-ts system (NVML ${s.nvmlVersion})`, `Driver Version: ${s.driverVersion}   CUDA Version: ${s.cudaVersion}`, INNER)));
  out.push(rule("-", "+", true));
  out.push(row(cell("GPU  Name", "Persistence-M", CELLS[0]), cell("Bus-Id", "Disp.A", CELLS[1]), cell("", "Volatile Uncorr. ECC", CELLS[2])));
  out.push(row(cell("Fan  Temp   Perf", "Pwr:Usage/Cap", CELLS[0]), cell("", "Memory-Usage", CELLS[1]), cell("GPU-Util", "Compute M.", CELLS[2])));
  out.push(row(cell("", "", CELLS[0]), cell("", "", CELLS[1]), cell("", "MIG M.", CELLS[2])));
  out.push(rule("=", "|", true));
  if (s.devices.length === 0) {
    out.push(row(cell("No GPUs found", "", CELLS[0]), cell("", "", CELLS[1]), cell("", "", CELLS[2])));
    out.push(rule("-", "+", true));
  }
  for (const d of s.devices) {
    out.push(...gpuBlock(d));
    out.push(rule("-", "+", true));
  }
  out.push("");
  out.push(full);
  out.push(line("Clocks (MHz, current / max)"));
  out.push(line(` GPU   ${"Graphics".padEnd(18)}  ${"SM".padEnd(18)}  ${"Memory".padEnd(18)}  Video`));
  out.push(rule("=", "|", false));
  if (s.devices.length === 0) out.push(line(" No GPUs found"));
  for (const d of s.devices) {
    const c = d.clocks;
    out.push(line(`${String(d.index).padStart(4)}   ${clockText(c.graphics)}  ${clockText(c.sm)}  ${clockText(c.memory)}  ${clockText(c.video).trimEnd()}`));
  }
  out.push(full);
  out.push("");
  out.push(full);
  out.push(line("Processes:"));
  out.push(row(cell(` GPU        PID   Process name`, "GPU Memory", INNER)));
  out.push(rule("=", "|", false));
  let any = false;
  for (const d of s.devices) {
    if (d.processes === undefined) {
      out.push(line(`${String(d.index).padStart(4)}   (NVML cannot list this GPU's processes)`));
      any = true;
      continue;
    }
    for (const p of d.processes) {
      any = true;
      out.push(row(cell(`${String(d.index).padStart(4)} ${String(p.pid).padStart(10)}   ${p.name ?? "(name not readable)"}`, na(p.usedMemoryBytes, mib), INNER)));
    }
  }
  if (!any) out.push(line(" No running processes found"));
  out.push(full);
  return out.join("\n");
}
