/**
 * Unions passed by value are classified as the SysV x86-64 psABI merges their members: each eightbyte takes the
 * classes of every member that overlaps it, INTEGER winning over SSE (generator/emit/native.ts `layoutOf`).
 */
import { describe, expect, it } from "vitest";
import { layoutOf } from "../../generator/emit/native.ts";
import type { IrField, IrRecord, IrType } from "../../generator/ir.ts";

const int: IrType = { kind: "int", spelling: "int", size: 4, signed: true };
const flt: IrType = { kind: "float", spelling: "float", size: 4 };
const dbl: IrType = { kind: "float", spelling: "double", size: 8 };

function field(name: string, type: IrType, offset: number, size: number): IrField {
  return { name, type, offset, size, align: size };
}
function record(name: string, kind: "struct" | "union", size: number, fields: IrField[]): IrRecord {
  return { name, cName: `${kind} ${name}`, aliases: [], recordKind: kind, size, align: Math.min(8, size), fields, anonymous: false, location: { file: "t.h", line: 1 } };
}

describe("unions by value", () => {
  it("an int and a float sharing an eightbyte make it INTEGER; floats and doubles alone stay SSE", () => {
    const records = new Map<string, IrRecord>();
    const u1 = record("IntOrFloat", "union", 4, [field("i", int, 0, 4), field("f", flt, 0, 4)]);
    const u2 = record("FloatOrDouble", "union", 8, [field("f", flt, 0, 4), field("d", dbl, 0, 8)]);
    expect(layoutOf(u1, records).passing).toEqual({ kind: "registers", classes: ["INTEGER"] });
    expect(layoutOf(u2, records).passing).toEqual({ kind: "registers", classes: ["SSE"] });
  });

  it("a union nested in a struct merges into the eightbyte it shares; the next eightbyte keeps its own class", () => {
    const u = record("U", "union", 4, [field("f", flt, 0, 4), field("i", int, 0, 4)]);
    const records = new Map([["U", u]]);
    const uType: IrType = { kind: "record", spelling: "union U", name: "U", recordKind: "union", complete: true };
    const s = record("S", "struct", 16, [field("u", uType, 0, 4), field("g", flt, 4, 4), field("d", dbl, 8, 8)]);
    expect(layoutOf(s, records).passing).toEqual({ kind: "registers", classes: ["INTEGER", "SSE"] });
    // The leaves (how the bytes are read) still follow the largest member.
    expect(layoutOf(u, records).leaves).toEqual([{ offset: 0, type: "f32" }]);
  });
});
