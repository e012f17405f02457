/**
 * The generated subsets the object layer binds (NVML's `system`, cuFile's `gds`; headers-manifest.json's `subsets`)
 * are exact copies of their libraries' tables: every function's native signature, every record's layout and every
 * enum and constant the same as in the whole library's, for each CTK version carried. `system` and the GDS classes
 * call through them, so a difference would be a call the whole binding makes differently.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as nvml13 from "../../generated/cuda-13.0/nvml/index.ts";
import * as nvmlSystem13 from "../../generated/cuda-13.0/nvml/system.ts";
import * as nvml12 from "../../generated/cuda-12.4/nvml/index.ts";
import * as nvmlSystem12 from "../../generated/cuda-12.4/nvml/system.ts";
import * as cufile13 from "../../generated/cuda-13.0/cufile/index.ts";
import * as cufileGds13 from "../../generated/cuda-13.0/cufile/gds.ts";
import * as cufile12 from "../../generated/cuda-12.4/cufile/index.ts";
import * as cufileGds12 from "../../generated/cuda-12.4/cufile/gds.ts";

interface SubsetSpec {
  readonly functions: readonly string[];
  readonly constants?: readonly string[];
  readonly enums?: readonly string[];
}
const manifest = JSON.parse(readFileSync(new URL("../../headers-manifest.json", import.meta.url), "utf8")) as {
  libraries: Record<string, { subsets?: Record<string, SubsetSpec> }>;
};

interface RecordClass {
  readonly $size: number;
  readonly $align: number;
  readonly $fields: readonly unknown[];
  readonly $cName: string;
}

const isRecord = (v: unknown): v is RecordClass => typeof v === "function" && typeof (v as { $size?: unknown }).$size === "number";

const cases = [
  { library: "nvml", subset: "system", version: "13.0", whole: nvml13, part: nvmlSystem13 },
  { library: "nvml", subset: "system", version: "12.4", whole: nvml12, part: nvmlSystem12 },
  { library: "cufile", subset: "gds", version: "13.0", whole: cufile13, part: cufileGds13 },
  { library: "cufile", subset: "gds", version: "12.4", whole: cufile12, part: cufileGds12 },
] as const;

describe.each(cases)("$library's $subset subset of CUDA $version", ({ library, subset, whole, part }) => {
  const spec = manifest.libraries[library]!.subsets![subset]!;
  const wholeFunctions = whole.functions as Record<string, unknown>;
  const partFunctions = part.functions as Record<string, unknown>;

  it("holds the manifest's functions these headers declare, each with the whole table's native signature", () => {
    const declared = spec.functions.filter((n) => n in wholeFunctions);
    expect(Object.keys(partFunctions).sort()).toEqual(declared.sort());
    for (const name of declared) expect(partFunctions[name], name).toEqual(wholeFunctions[name]);
    expect(part.library).toEqual(whole.library);
  });

  it("lays out every record it carries as the whole library does", () => {
    const records = Object.entries(part).filter(([, v]) => isRecord(v)) as [string, RecordClass][];
    expect(records.length).toBeGreaterThan(0);
    for (const [name, cls] of records) {
      const other = (whole as Record<string, unknown>)[name];
      expect(isRecord(other), name).toBe(true);
      const o = other as RecordClass;
      expect([cls.$cName, cls.$size, cls.$align, cls.$fields], name).toEqual([o.$cName, o.$size, o.$align, o.$fields]);
      expect(cls, `${name} is the subset's own class`).not.toBe(o);
    }
  });

  it("carries the named enums and constants, and the status enum, with the whole library's values", () => {
    // Enums (frozen objects) and constants; not the classes, createChecked, or the tables themselves.
    const values = Object.entries(part).filter(([name, v]) => typeof v !== "function" && name !== "functions" && name !== "library");
    expect(values.length).toBeGreaterThan(0);
    for (const [name, value] of values) expect(value, name).toEqual((whole as Record<string, unknown>)[name]);
    for (const n of [...(spec.enums ?? []), ...(spec.constants ?? [])]) {
      if (n in whole) expect(part, n).toHaveProperty(n);
    }
  });
});
