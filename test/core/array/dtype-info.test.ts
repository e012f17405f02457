/**
 * finfo, iinfo, canCast and isdtype against NumPy 2 (test/fixtures/arrays/dtype-info.json): every pair of dtypes
 * under every casting rule, every kind, every float's limits.
 */
import { describe, expect, it } from "vitest";
import { DTypeError } from "../../../src/index.ts";
import { canCast, finfo, iinfo, isdtype, type CastingRule, type DTypeKind } from "../../../src/array.ts";
import { dtypeOf, type DTypeName } from "../../../src/core/array/dtype.ts";
import fixture from "../../fixtures/arrays/dtype-info.json" with { type: "json" };

const names = fixture.names as DTypeName[];

describe("dtype facts", () => {
  it("canCast: NumPy's answer for every pair under every rule, names or DTypes", () => {
    for (const [rule, rows] of Object.entries(fixture.canCast)) {
      names.forEach((from, i) => names.forEach((to, j) => expect(canCast(from, dtypeOf(to), rule as CastingRule), `${from} → ${to} (${rule})`).toBe(rows[i]![j])));
    }
    expect(canCast("int32", "float64")).toBe(true);
    expect(canCast("int64", "float64")).toBe(true);
    expect(canCast("int64", "float32")).toBe(false);
    // bfloat16 as ml_dtypes has it: it holds 8-bit integers.
    expect(canCast("int8", "bfloat16")).toBe(true);
    expect(canCast("uint8", "bfloat16")).toBe(true);
    expect(canCast("int16", "bfloat16")).toBe(false);
    expect(() => canCast("int32", "float64", "same-kind" as never)).toThrow(/casting is one of "no", "equiv", "safe", "same_kind", "unsafe"/);
    expect(() => canCast("int" as never, "float64")).toThrow(DTypeError);
  });

  it("isdtype: NumPy's answer for every kind, a dtype, a list", () => {
    for (const [kind, row] of Object.entries(fixture.isdtype)) names.forEach((d, i) => expect(isdtype(d, kind as DTypeKind), `${d} ${kind}`).toBe(row[i]));
    expect(isdtype("bfloat16", "real floating")).toBe(true);
    expect(isdtype("float32", "float32")).toBe(true);
    expect(isdtype(dtypeOf("float32"), ["integral", "float64"])).toBe(false);
    expect(isdtype("int16", ["bool", "signed integer"])).toBe(true);
    expect(() => isdtype("int16", "integer" as never)).toThrow(/kind is a kind name/);
  });

  it("finfo: NumPy's limits of each float dtype, a complex dtype's parts'", () => {
    for (const [name, want] of Object.entries(fixture.finfo)) {
      const got = finfo(name as DTypeName);
      for (const [k, v] of Object.entries(want)) expect(got[k as keyof typeof got], `${name}.${k}`).toBe(v);
      expect(got.tiny).toBe(got.smallestNormal);
    }
    expect(finfo("complex64").dtype.name).toBe("float32");
    // ml_dtypes' bfloat16.
    const b = finfo("bfloat16");
    expect([b.eps, b.max, b.smallestNormal, b.smallestSubnormal, b.precision, b.resolution]).toEqual([0.0078125, 3.3895313892515355e38, 1.1754943508222875e-38, 9.183549615799121e-41, 2, 0.010009765625]);
    expect(() => finfo("int32")).toThrow(/int32 is not a float dtype; use iinfo/);
    expect(() => finfo("bool")).toThrow(DTypeError);
  });

  it("iinfo: numbers up to 32 bits, bigints for 64", () => {
    expect(iinfo("int8")).toMatchObject({ bits: 8, min: -128, max: 127, kind: "i" });
    expect(iinfo("uint32")).toMatchObject({ bits: 32, min: 0, max: 4294967295, kind: "u" });
    expect(iinfo("int64")).toMatchObject({ bits: 64, min: -9223372036854775808n, max: 9223372036854775807n });
    expect(iinfo("uint64").max).toBe(18446744073709551615n);
    expect(() => iinfo("bool")).toThrow(/bool is not an integer dtype/);
    expect(() => iinfo("float32")).toThrow(/use finfo/);
  });
});
