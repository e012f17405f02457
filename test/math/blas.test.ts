/**
 * `Blas` and `BlasLt` without a GPU: the entry point (`cuda-ts/math/blas`) and what importing costs (the root import
 * never reaches the cuBLAS tables; importing the entry loads no library), and the option checks that come before any
 * library is touched. The GPU side is test/math/blas.gpu.test.ts.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { ClosedError, LEGACY_DEFAULT_STREAM } from "../../src/index.ts";
import * as entry from "../../src/math-blas.ts";
import { Blas, BlasLt, CUBLASError, DEFAULT_WORKSPACE_BYTES } from "../../src/math-blas.ts";
import { cublas } from "../../src/bindings/cublas.ts";
import { cublasLt } from "../../src/bindings/cublaslt.ts";
import { valueImportGraph } from "../support/import-graph.ts";

const root = resolve(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../..");

function reachable(graph: Map<string, string[]>, from: string): Set<string> {
  const seen = new Set<string>();
  const todo = [from];
  while (todo.length > 0) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const g of graph.get(f) ?? []) todo.push(g);
  }
  return seen;
}

describe("cuda-ts/math/blas, the entry point", () => {
  it("exports Blas, BlasLt, their errors and the layout helpers", () => {
    for (const name of ["Blas", "BlasLt", "MatmulPlan", "CUBLASError", "DEFAULT_WORKSPACE_BYTES", "matrixStorage", "planGemm"]) {
      expect(entry, name).toHaveProperty(name);
    }
    expect(DEFAULT_WORKSPACE_BYTES).toBe(32 * 1024 * 1024);
  });

  it("is an entry point of the package (package.json for npm, deno.json for JSR)", () => {
    const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as { exports: Record<string, { node: string; default: string }> };
    const deno = JSON.parse(readFileSync(resolve(root, "deno.json"), "utf8")) as { exports: Record<string, string> };
    expect(pkg.exports["./math/blas"]?.default).toBe("./dist/src/math-blas.js");
    expect(pkg.exports["./math/blas"]?.node).toBe("./dist/node/math-blas.js");
    expect(deno.exports["./math/blas"]).toBe("./src/math-blas.ts");
  });

  it("keeps the root import free of the cuBLAS tables; the entry point reaches them", () => {
    const graph = valueImportGraph(root, "src");
    const fromRoot = reachable(graph, "src/index.ts");
    for (const f of ["src/bindings/cublas.ts", "src/bindings/cublaslt.ts", "src/bindings/tables/cublas.ts", "src/math-blas.ts", "src/core/math/blas/blas.ts"]) {
      expect(fromRoot.has(f), f).toBe(false);
    }
    const fromEntry = reachable(graph, "src/math-blas.ts");
    expect(fromEntry.has("src/bindings/cublas.ts")).toBe(true);
    expect(fromEntry.has("src/bindings/cublaslt.ts")).toBe(true);
  });

  it("loads no library on import: cuBLAS and cuBLASLt load at the first handle", () => {
    expect(cublas.loaded).toBeUndefined();
    expect(cublasLt.loaded).toBeUndefined();
  });
});

describe("Blas and BlasLt: options checked before any library is loaded", () => {
  const stream = LEGACY_DEFAULT_STREAM;

  it("needs { stream } with a Stream", () => {
    expect(() => new Blas(undefined as never)).toThrow(TypeError);
    expect(() => new Blas(undefined as never)).toThrow(/new Blas takes \{ stream, workspace\?, mathMode\? \}/);
    expect(() => new Blas({} as never)).toThrow(/new Blas: options.stream must be a Stream/);
    expect(() => new Blas({ stream: 0 } as never)).toThrow(/new Blas: options.stream must be a Stream, not 0/);
    expect(() => new BlasLt({ stream: "s" } as never)).toThrow(/new BlasLt: options.stream must be a Stream/);
  });

  it("checks the workspace, math mode and plan-cache size", () => {
    expect(() => new Blas({ stream, workspace: { size: -1 } })).toThrow(RangeError);
    expect(() => new Blas({ stream, workspace: { size: 1.5 } })).toThrow(/workspace\.size is a byte count/);
    expect(() => new Blas({ stream, workspace: 5 as never })).toThrow(/workspace is \{ size\?, memoryResource\? \}/);
    expect(() => new Blas({ stream, workspace: { memoryResource: {} as never } })).toThrow(/workspace\.memoryResource must be a MemoryResource/);
    expect(() => new Blas({ stream, mathMode: "fast" as never })).toThrow(/Blas\.mathMode is one of default, pedantic, tf32/);
    expect(() => new BlasLt({ stream, maxPlans: 0 })).toThrow(/maxPlans is a positive integer/);
    expect(() => new BlasLt({ stream, workspace: { size: -5 } })).toThrow(RangeError);
    expect(cublas.loaded).toBeUndefined();
  });

  it("has typed errors that say what came, what was expected and what to do", () => {
    expect(new CUBLASError("cublas", 7, "CUBLAS_STATUS_INVALID_VALUE", "an invalid numeric value was used as an argument", "cublasGemmEx").name).toBe("CUBLASError");
    expect(new ClosedError("this Blas", "Blas.gemm").message).toMatch(/this Blas is closed: cannot Blas\.gemm/);
  });
});
