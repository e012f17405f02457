/** The per-library report: counts of what was emitted and every declaration skipped, with its reason. */
import type { IrLibrary, IrSkip } from "./ir.ts";

/** One library's entry of report.json. */
export interface LibraryReport {
  library: string;
  ctkVersion: string;
  counts: { functions: number; enums: number; constants: number; typedefs: number; records: number; skipped: number };
  skipped: IrSkip[];
  notes: string[];
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
