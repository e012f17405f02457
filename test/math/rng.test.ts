/**
 * Rng without a GPU: its options' checks, how normal counts are split for cuRAND, the argument checks the math
 * objects share, and that importing cuda-ts loads none of the math libraries' tables (they load on `create`).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ArgumentError, ArrayLayoutError, ClosedError, DTypeError } from "../../src/index.ts";
import { Fft, FftPlan, Rng, RNG_GENERATORS, Solver, Sparse, SparseMatrix } from "../../src/math.ts";
import { checkRngOptions, isQuasi, normalSplit, type RngOptions } from "../../src/core/math/rng/rng.ts";
import { checkArray, listOf, replacementStream } from "../../src/core/math/rng/shared.ts";
import { valueImportGraph } from "../support/import-graph.ts";
import { fake } from "./fake-arrays.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");
const stream = {} as RngOptions["stream"]; // not read by checkRngOptions

describe("Rng options", () => {
  it("default to XORWOW with one dimension", () => {
    expect(checkRngOptions({ stream })).toEqual({ generator: "xorwow", dimensions: 1 });
    expect(checkRngOptions({ stream, generator: "sobol32", dimensions: 3 })).toEqual({ generator: "sobol32", dimensions: 3 });
  });

  it("name cuRAND's generator types", () => {
    expect(RNG_GENERATORS).toMatchObject({ xorwow: 101, mrg32k3a: 121, mt19937: 142, philox: 161, sobol32: 201, "scrambled-sobol64": 204 });
    expect(isQuasi("philox")).toBe(false);
    expect(isQuasi("sobol64")).toBe(true);
  });

  it("refuse what cuRAND would refuse, before any call", () => {
    expect(() => checkRngOptions({ stream, generator: "mersenne" as never })).toThrow(/generator "mersenne" is not one of xorwow, .* or scrambled-sobol64/);
    expect(() => checkRngOptions({ stream, generator: "sobol32", seed: 1 })).toThrow(/quasi-random and takes no seed/);
    expect(() => checkRngOptions({ stream, seed: -1 })).toThrow(RangeError);
    expect(() => checkRngOptions({ stream, seed: 1.5 })).toThrow(/seed must be a non-negative integer below 2\^64/);
    expect(() => checkRngOptions({ stream, seed: 1n << 64n })).toThrow(RangeError);
    expect(checkRngOptions({ stream, seed: (1n << 64n) - 1n, offset: 10 }).generator).toBe("xorwow");
    expect(() => checkRngOptions({ stream, ordering: "quasi-default" })).toThrow(/is for quasi-random generators/);
    expect(() => checkRngOptions({ stream, generator: "sobol32", ordering: "seeded" })).toThrow(/is for pseudo-random generators/);
    expect(() => checkRngOptions({ stream, dimensions: 2 })).toThrow(/dimensions are for quasi-random/);
    expect(() => checkRngOptions({ stream, generator: "sobol32", dimensions: 0 })).toThrow(/from 1 to 20000/);
    expect(() => checkRngOptions({ stream, generator: "mt19937", offset: 5 })).toThrow(/takes no offset/);
    expect(checkRngOptions({ stream, generator: "mtgp32", offset: 0 }).generator).toBe("mtgp32");
    expect(() => checkRngOptions(null as never)).toThrow(TypeError);
  });

  it("Rng.create needs a Stream in its options (checked before the library loads)", async () => {
    await expect(Rng.create({ stream: undefined as never })).rejects.toThrow(/Rng.create: options.stream must be a Stream/);
    await expect(Fft.create({ stream: 1 as never })).rejects.toThrow(ArgumentError);
    await expect(Solver.create({} as never)).rejects.toThrow(/Solver.create: options.stream must be a Stream/);
    await expect(Sparse.create(undefined as never)).rejects.toThrow(TypeError);
  });
});

describe("normal counts", () => {
  it("are split into an even main part and one value from a pair for pseudo-random generators", () => {
    expect(normalSplit(10, false, 1)).toEqual({ main: 10, tail: false });
    expect(normalSplit(11, false, 1)).toEqual({ main: 10, tail: true });
    expect(normalSplit(1, false, 1)).toEqual({ main: 0, tail: true });
  });
  it("must be multiples of a quasi-random generator's dimensions", () => {
    expect(normalSplit(9, true, 3)).toEqual({ main: 9, tail: false });
    expect(() => normalSplit(10, true, 3)).toThrow(/multiples of 3, not 10/);
  });
});

describe("the math objects' shared checks", () => {
  it("take open, contiguous arrays of the dtypes asked", () => {
    const a = fake([4, 8], "float32");
    expect(checkArray(a, "x", "op", ["float32", "float64"], 0)).toBe(a);
    expect(() => checkArray(new Float32Array(4), "x", "op", ["float32"], 0)).toThrow(/op: x must be a DeviceArray, not a Float32Array/);
    expect(() => checkArray(a, "x", "op", ["uint32"], 0)).toThrow(DTypeError);
    expect(() => checkArray(a, "x", "op", ["uint32", "int32"], 0)).toThrow(/x is float32 but must be uint32 or int32/);
    expect(() => checkArray(a.T, "x", "op", ["float32"], 0)).toThrow(ArrayLayoutError);
    expect(() => checkArray(a.T, "x", "op", ["float32"], 0)).toThrow(/is not contiguous; pass a contiguous array/);
    const b = fake([3], "float64");
    b.close();
    expect(() => checkArray(b, "x", "op", ["float64"], 0)).toThrow(ClosedError);
  });

  it("take a Stream and name what came instead", () => {
    expect(() => replacementStream(null, 0, "Rng")).toThrow(/^Rng.stream needs a Stream, not null; pass a stream from device.createStream\(\)$/);
    expect(listOf(["a", "b", "c"])).toBe("a, b or c");
  });
});

describe("the math classes' public faces", () => {
  it("make objects only through create, checking the options before any library loads, and answer instanceof", async () => {
    for (const [name, C] of [["Rng", Rng], ["Fft", Fft], ["Solver", Solver], ["Sparse", Sparse], ["FftPlan", FftPlan], ["SparseMatrix", SparseMatrix]] as const) {
      expect(() => new (C as unknown as new () => unknown)(), name).toThrow(new RegExp(`${name} has no public constructor: .*create`));
      expect(C.name).toBe(name);
      expect({} instanceof C, name).toBe(false);
      expect((null as unknown as object) instanceof C, name).toBe(false);
    }
    await expect(Rng.create({ stream: null as never })).rejects.toThrow(/^Rng.create: options.stream must be a Stream, not null; pass \{ stream \} with a Stream \(for example device.createStream\(\)\)$/);
    await expect(Rng.create({ stream: {} as never, generator: "mersenne" as never })).rejects.toThrow(/generator "mersenne" is not one of/);
    await expect(Fft.create(null as never)).rejects.toThrow(/Fft.create takes \{ stream, memoryResource\? \}, not null/);
    await expect(Solver.create({ stream: 1 as never })).rejects.toThrow(/Solver.create: options.stream must be a Stream, not 1/);
    await expect(Sparse.create(undefined as never)).rejects.toThrow(/Sparse.create takes \{ stream, memoryResource\? \}/);
  });
});

describe("loading", () => {
  it("importing cuda-ts/math loads none of cuRAND's, cuFFT's, cuSOLVER's or cuSPARSE's tables, nor the classes' code (they load on create); the root loads none of it", () => {
    const graph = valueImportGraph(root, "src");
    const seen = new Set<string>();
    const visit = (f: string): void => {
      if (seen.has(f)) return;
      seen.add(f);
      for (const g of graph.get(f) ?? []) visit(g);
    };
    visit("src/index.ts");
    expect([...seen].filter((f) => f.startsWith("src/core/math/")), "the root import reaches no math module").toEqual([]);
    visit("src/math.ts");
    for (const lib of ["curand", "cufft", "cusolver", "cusparse"]) {
      expect(seen.has(`src/bindings/${lib}.ts`), lib).toBe(false);
      expect(seen.has(`src/bindings/tables/${lib}.ts`), lib).toBe(false);
    }
    for (const name of ["rng/rng", "fft/fft", "solver/solver", "sparse/sparse"]) {
      // The public module (the factory, the options' types) is imported; the classes' code loads on create.
      expect(seen.has(`src/core/math/${name}.ts`), name).toBe(true);
      expect(seen.has(`src/core/math/${name}-impl.ts`), `${name}-impl`).toBe(false);
      expect(readFileSync(resolve(root, `src/core/math/${name}-impl.ts`), "utf8")).toMatch(/import\("\.\.\/\.\.\/\.\.\/bindings\/cu\w+\.ts"\)/);
    }
  });
});
