/**
 * What importing cuda-ts leaves for later, to keep start-up cheap: checked functions made on their first call
 * (lazyTable), record classes whose layout and accessors are made on first use (RecordBase.$define), and no Node.js
 * built-in loaded by any module of src/ (they load on first use, through src/host.ts's nodeBuiltin).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { lazyTable } from "../../src/tables-runtime/checked.ts";
import { RecordBase } from "../../src/tables-runtime/record.ts";
import { valueImportGraph } from "../support/import-graph.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");

describe("lazyTable", () => {
  it("makes each function on its first call, once, and then holds the function itself", () => {
    const made: string[] = [];
    const makers = {
      twice: (k: number) => {
        made.push("twice");
        return (x: number): number => 2 * x * k;
      },
      name: (_k: number) => {
        made.push("name");
        return function named(this: unknown): string {
          return this === table ? "called on the table" : "elsewhere";
        };
      },
    };
    const table = lazyTable(makers, 1);
    expect(Object.keys(table).sort()).toEqual(["name", "twice"]);
    expect(made).toEqual([]);
    const early = table.twice; // a placeholder, kept before the first call
    expect(table.twice(3)).toBe(6);
    expect(made).toEqual(["twice"]);
    expect(table.twice).not.toBe(early); // the table now holds the made function
    expect(early(4)).toBe(8); // the placeholder forwards to it, without making it again
    expect(table.twice(5)).toBe(10);
    expect(made).toEqual(["twice"]);
    expect(table.name()).toBe("called on the table"); // `this` reaches the made function
    expect(table.name.name).toBe("named");
  });
});

describe("generated records", () => {
  it("define their accessors and layout facts on first use", async () => {
    // CUuuid_st: no function of the driver passes it by value, and nothing else in this file has touched it.
    const { CUuuid_st, CUuuid } = await import("../../generated/cuda-13.0/driver/records.ts");
    expect(CUuuid).toBe(CUuuid_st);
    expect(Object.getOwnPropertyDescriptor(CUuuid_st.prototype, "bytes")).toBeUndefined();
    expect(Object.hasOwn(CUuuid_st, "$size")).toBe(false);
    expect(CUuuid_st.$size).toBe(16); // the first use defines the class
    expect(typeof Object.getOwnPropertyDescriptor(CUuuid_st.prototype, "bytes")?.get).toBe("function");
    expect([CUuuid_st.$cName, CUuuid_st.$align, CUuuid_st.$fields.map((f) => f.name)]).toEqual(["struct CUuuid_st", 1, ["bytes"]]);
    const u = new CUuuid_st();
    u.bytes[3] = 7;
    expect(u.$bytes()[3]).toBe(7);
    expect(u.$toObject()).toEqual({ bytes: u.bytes });
  });

  it("define themselves on the first `new` too, setters included", async () => {
    const { CUmemLocation_st, CUmemLocationType } = await import("../../generated/cuda-13.0/driver/index.ts");
    const l = new CUmemLocation_st();
    l.type = CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE;
    l.id = 3;
    expect([l.type, l.id]).toEqual([CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, 3]);
    expect(new DataView(l.$bytes().buffer).getInt32(4, true)).toBe(3);
  });

  it("refuse a class that was never registered, naming it", () => {
    class Stray extends RecordBase {}
    expect(() => Stray.$size).toThrow(/Stray is not a generated record class/);
    expect(() => new (Stray as unknown as new () => RecordBase)()).toThrow(TypeError);
  });
});

describe("src/ at import", () => {
  it("imports no Node.js built-in by value (they load on first use, through host.ts's nodeBuiltin)", () => {
    const valueNodeImport = /^import (?!type )[^;]*?from "node:|^export [^;]*?from "node:/m;
    const files = [...valueImportGraph(root, "src").keys()].filter((f) => valueNodeImport.test(readFileSync(resolve(root, f), "utf8")));
    expect(files, "a static import of a node: module starts Deno's Node.js layer (~50 ms) at import").toEqual([]);
  });
});

describe("the driver's tables (src/bindings/tables/driver.ts) and types (src/bindings/driver-types.ts)", () => {
  it("split what the generated index exports: the function table and the checked makers' builder, and the enums, constants and records", async () => {
    const generated = (await import("../../generated/cuda-13.0/driver/index.ts")) as Record<string, unknown>;
    const tables = (await import("../../src/bindings/tables/driver.ts")) as Record<string, unknown>;
    const types = (await import("../../src/bindings/driver-types.ts")) as Record<string, unknown>;
    const own = new Set(["generatedTables", "carriedVersions", "checkedMakersLoadLater", "provideCheckedMakers"]);
    const names = (m: Record<string, unknown>): string[] => Object.keys(m).filter((k) => !own.has(k));
    expect([...names(tables), ...names(types)].sort()).toEqual(names(generated).sort());
    expect(names(tables).sort()).toEqual(["createChecked", "functions", "library"]);
    // The same classes and enums, not copies.
    expect(types.CUDA_MEMCPY3D_st).toBe(generated.CUDA_MEMCPY3D_st);
    expect(types.CUresult).toBe(generated.CUresult);
    expect(tables.functions).toBe(generated.functions);
    expect(tables.createChecked).not.toBe(generated.createChecked);
    expect(typeof tables.createChecked).toBe("function");
  });

  it("leaves the enums, constants and records out of cuda-ts/bindings/driver's module graph", () => {
    const graph = valueImportGraph(root, "src");
    const seen = new Set<string>();
    const visit = (f: string): void => {
      if (seen.has(f)) return;
      seen.add(f);
      for (const g of graph.get(f) ?? []) visit(g);
    };
    visit("src/bindings/driver-entry.ts");
    for (const part of ["enums", "constants", "records"]) expect(seen.has(`generated/cuda-13.0/driver/${part}.ts`), part).toBe(false);
    expect(seen.has("generated/cuda-13.0/driver/functions.ts")).toBe(true);
  });
});

describe("the driver's checked makers in parts (headers-manifest.json's makerParts)", () => {
  it("puts every driver function the object layer calls in the object layer's part, which the package root loads alone", () => {
    const manifest = JSON.parse(readFileSync(resolve(root, "headers-manifest.json"), "utf8")) as {
      libraries: { driver: { makerParts: Record<string, { functions: string[] }> } };
    };
    const part = new Set(manifest.libraries.driver.makerParts.core!.functions);
    const called = new Set<string>();
    const files = [...valueImportGraph(root, "src").keys()].filter((f) => f.startsWith("src/core/") || /^src\/[\w-]+\.ts$/.test(f));
    for (const f of files) for (const m of readFileSync(resolve(root, f), "utf8").matchAll(/\bdriver\.(cu[A-Z]\w*)\b/g)) called.add(m[1]!);
    expect(called.size).toBeGreaterThan(100);
    expect([...called].filter((f) => !part.has(f)).sort(), "add these to makerParts.core in headers-manifest.json and regenerate").toEqual([]);
    // And no more than it calls: the part is what the root loads.
    expect([...part].filter((f) => !called.has(f)).sort(), "remove these from makerParts.core (the object layer no longer calls them)").toEqual([]);
    const graph = valueImportGraph(root, "src");
    const seen = new Set<string>();
    const visit = (f: string): void => {
      if (seen.has(f)) return;
      seen.add(f);
      for (const g of graph.get(f) ?? []) visit(g);
    };
    visit("src/index.ts");
    expect(seen.has("src/bindings/driver-all-makers.ts"), "the root must not load the whole driver table's makers").toBe(false);
  });
});
