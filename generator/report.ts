/** The per-library report: counts of what was emitted and every declaration skipped, with its reason. */
import type { IrFunction, IrLibrary, IrParamRole, IrSkip } from "./ir.ts";

/** One library's entry of report.json. */
export interface LibraryReport {
  library: string;
  ctkVersion: string;
  counts: { functions: number; enums: number; constants: number; typedefs: number; records: number; skipped: number };
  skipped: IrSkip[];
  notes: string[];
  /**
   * Each function's parameters in the checked call style: `name: role (rule)`, the role one of input, output,
   * array-output[count], count(...), array-input[count], caller-buffer[size], handle-reference.
   */
  roles: Record<string, string[]>;
}

/** One parameter's role as the report writes it. */
export function describeRole(name: string, r: IrParamRole): string {
  switch (r.role) {
    case "array-output":
    case "array-input":
      return `${name}: ${r.role}[${r.count}] (${r.rule})`;
    case "count":
      return `${name}: count of ${r.arrays.join(", ")}, ${r.pointer ? "in/out pointer" : "by value"}, ${r.unit}${r.query ? ", size query" : ""}${r.capacity ? ", caller capacity" : ""} (${r.rule})`;
    case "caller-buffer":
      return `${name}: caller-buffer${r.size ? `[${r.size} ${r.unit}]` : ""} (${r.rule})`;
    default:
      return `${name}: ${r.role} (${r.rule})`;
  }
}

function rolesOf(fns: IrFunction[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const f of fns) if (f.params.length > 0) out[f.name] = f.params.map((p, i) => describeRole(p.name, f.roles[i]!));
  return out;
}

/** The report entry of a library. */
export function reportFor(ir: IrLibrary): LibraryReport {
  return {
    library: ir.library,
    ctkVersion: ir.ctkVersion,
    counts: {
      functions: ir.functions.length,
      enums: ir.enums.length,
      constants: ir.constants.length,
      typedefs: ir.typedefs.length,
      records: ir.records.length,
      skipped: ir.skipped.length,
    },
    skipped: ir.skipped,
    notes: ir.notes,
    roles: rolesOf(ir.functions),
  };
}

/** A summary table for the console. */
export function formatReport(entries: { report: LibraryReport; status: string }[]): string {
  const rows = [["library", "functions", "enums", "constants", "typedefs", "records", "skipped", "status"]];
  for (const { report: r, status } of entries) {
    const c = r.counts;
    rows.push([r.library, c.functions, c.enums, c.constants, c.typedefs, c.records, c.skipped, status].map(String));
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === 0 || i === r.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")).join("\n");
}
