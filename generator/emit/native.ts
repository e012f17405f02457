/** C types → the runtime-neutral FFI descriptors of src/ffi/types.ts. */
import { type IrLibrary, type IrRecord, type IrType, resolveTypedefs } from "../ir.ts";
import type { LeafType, StructPassing } from "../../src/ffi/types.ts";
import { classifyStruct } from "../../src/ffi/abi.ts";

/** The scalar FFI type of a non-record C type. */
export function scalarNative(t: IrType): string {
  const r = resolveTypedefs(t);
  switch (r.kind) {
    case "void":
      return "void";
    case "bool":
      return "bool";
    case "int":
    case "enum":
      return `${r.signed ? "i" : "u"}${r.size * 8}`;
    case "float":
      return r.size === 4 ? "f32" : "f64";
    case "pointer": {
      const p = resolveTypedefs(r.pointee);
      return p.kind === "function" ? "function" : "pointer";
    }
    case "array":
      return "pointer";
    default:
      throw new Error(`no scalar FFI type for ${t.spelling}`);
  }
}

/** A record's FFI layout: flattened leaves and SysV class. */
export interface LayoutInfo {
  name: string;
  size: number;
  align: number;
  leaves: { offset: number; type: LeafType }[];
  passing: StructPassing;
}

/**
 * Flattens a record into scalar leaves (arrays repeated, nested records inlined, unions by their largest member) and
 * classifies it for SysV x86-64: a union's eightbytes merge the classes of all its members (an `int` and a `float`
 * sharing an eightbyte make it INTEGER), as the psABI says.
 */
export function layoutOf(rec: IrRecord, records: Map<string, IrRecord>): LayoutInfo {
  const leaves = flatten(rec, records, "largest");
  const passing = classifyStruct(rec.size, rec.align, flatten(rec, records, "all"));
  return { name: rec.cName, size: rec.size, align: rec.align, leaves, passing };
}

function flatten(rec: IrRecord, records: Map<string, IrRecord>, unions: "largest" | "all"): { offset: number; type: LeafType }[] {
  const leaves: { offset: number; type: LeafType }[] = [];
  const addType = (t: IrType, offset: number): void => {
    const r = resolveTypedefs(t);
    if (r.kind === "array") {
      const el = resolveTypedefs(r.element);
      const size = elementSize(el, records);
      for (let i = 0; i < (r.length ?? 0); i++) addType(el, offset + i * size);
    } else if (r.kind === "record") {
      const nested = records.get(r.name);
      if (!nested) throw new Error(`record ${r.name} used by value is not known`);
      addRecord(nested, offset);
    } else {
      leaves.push({ offset, type: scalarNative(r) as LeafType });
    }
  };
  const addRecord = (rec: IrRecord, base: number): void => {
    if (rec.recordKind === "union") {
      if (unions === "all") {
        for (const f of rec.fields) addType(f.type, base + f.offset);
        return;
      }
      const largest = [...rec.fields].sort((a, b) => b.size - a.size)[0];
      if (largest) addType(largest.type, base + largest.offset);
      return;
    }
    for (const f of rec.fields) {
      if (f.bitWidth !== undefined) continue; // bit-fields share a storage unit: add it once below
      addType(f.type, base + f.offset);
    }
    const units = new Map<number, IrType>();
    for (const f of rec.fields) if (f.bitWidth !== undefined) units.set(f.offset, f.type);
    for (const [off, t] of units) addType(t, base + off);
  };
  addRecord(rec, 0);
  leaves.sort((a, b) => a.offset - b.offset);
  return leaves;
}

/** The size of one element of a C type (0 where it has none: void, functions). */
export function elementSize(t: IrType, records: Map<string, IrRecord>): number {
  switch (t.kind) {
    case "int":
    case "enum":
      return t.size;
    case "float":
      return t.size;
    case "bool":
      return 1;
    case "pointer":
      return 8;
    case "record":
      return records.get(t.name)?.size ?? 0;
    case "array":
      return (t.length ?? 0) * elementSize(resolveTypedefs(t.element), records);
    default:
      return 0;
  }
}

/** Records of all libraries by class name and alias. */
export function recordIndex(all: IrLibrary[]): Map<string, IrRecord> {
  const m = new Map<string, IrRecord>();
  for (const l of all) for (const r of l.records) for (const n of [r.name, ...r.aliases]) if (!m.has(n)) m.set(n, r);
  return m;
}
