/**
 * The polynomial functions without a GPU: their arguments checked before a stream is needed, and the Horner kernel
 * compiling with nvcc where this machine has it.
 */
import { describe, expect, it } from "vitest";
import { dtypes, type DTypeName } from "../../../src/index.ts";
import { ArgumentError } from "../../../src/errors/base.ts";
import { ShapeMismatchError } from "../../../src/index.ts";
import { polyadd, polyder, polydiv, polyint, polymul, polysub, polyval } from "../../../src/array.ts";
import { dividePolynomials, polyvalKernel } from "../../../src/core/array/ops/polynomials.ts";
import division from "../../fixtures/arrays/polynomial-division.json" with { type: "json" };
import { promoteTypes } from "../../../src/core/array/promotion.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import { bundleKernels, nvccPresent, nvccProblems } from "../../support/nvcc.ts";

const NEEDS_STREAM = /needs a stream/;

describe("polynomials: checks", () => {
  it("coefficients are a 1-d array or a list of numbers", () => {
    const x = fakeArray([4], "float32");
    expect(() => polyval(fakeArray([3], "float32"), x)).toThrow(NEEDS_STREAM);
    expect(() => polyval([1, 2], x)).toThrow(NEEDS_STREAM);
    expect(() => polyval(fakeArray([2, 3], "float32"), x)).toThrow(ShapeMismatchError);
    expect(() => polyval(["1"] as never, x)).toThrow(TypeError);
    expect(() => polyval(3 as never, x)).toThrow(TypeError);
    expect(() => polyval([1], "2" as never)).toThrow(TypeError);
    expect(() => polyval([1], 2)).toThrow(NEEDS_STREAM);
    expect(() => polyadd([1], fakeArray([1, 1], "int8"))).toThrow(ShapeMismatchError);
    expect(() => polysub([1], [2])).toThrow(NEEDS_STREAM);
    expect(() => polymul([1], null as never)).toThrow(TypeError);
  });

  it("polyder and polyint take a non-negative integer order, polyint enough constants", () => {
    expect(() => polyder([1, 2], -1)).toThrow(ArgumentError);
    expect(() => polyder([1, 2], 1.5)).toThrow(ArgumentError);
    expect(() => polyder([1, 2], 2)).toThrow(NEEDS_STREAM);
    expect(() => polyint([1, 2], 3, { k: [1, 2] })).toThrow(/2 constants for 3 integrations/);
    expect(() => polyint([1, 2], 3, { k: [1] })).toThrow(NEEDS_STREAM);
    expect(() => polyint([1, 2], 3, { k: 4 })).toThrow(NEEDS_STREAM);
    expect(() => polyint([1, 2], 1, { k: "0" as never })).toThrow(TypeError);
  });
});

describe.skipIf(!nvccPresent)(`the Horner kernel compiles with nvcc${nvccPresent ? "" : " [skipped: no nvcc here]"}`, () => {
  it("for bool, integer, half, float and complex results", () => {
    const pairs: [DTypeName, DTypeName][] = [
      ["bool", "bool"], ["int8", "int8"], ["int64", "uint8"], ["uint64", "uint32"], ["float16", "float16"], ["bfloat16", "bfloat16"],
      ["float16", "int8"], ["float32", "float32"], ["int32", "float64"], ["complex64", "float32"], ["complex128", "int64"], ["float32", "complex64"],
    ];
    const sources = pairs.map(([p, x]) => {
      const k = polyvalKernel(dtypes[p], dtypes[x], promoteTypes(dtypes[p], dtypes[x]));
      return k.source({ types: new Map(), dtypes: k.params.map((q) => dtypes[q.type as DTypeName]), scalar: k.params.map((q) => !q.raw && !q.output && q.type === "int64" && q.name === "len"), shape: [1], key: "" });
    });
    expect(nvccProblems({ polyval: bundleKernels(sources) }, { ptx: true, warnings: false })).toEqual([]);
  }, 300_000);
});

describe("polydiv", () => {
  it("divides as NumPy's loop divides, in the dtype, trimming the remainder's leading near-zeros", () => {
    const tolerance: Record<string, number> = { float64: 1e-12, complex128: 1e-12, float32: 1e-5, complex64: 1e-5, float16: 1e-2 };
    let exactLengths = 0;
    const num = (v: number | string): number => (v === "nan" ? NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : (v as number));
    const pairs = (p: (number | string)[][]): [number, number][] => p.map(([re, im]) => [num(re!), num(im!)]);
    for (const c of division.cases) {
      const got = dividePolynomials(pairs(c.u), pairs(c.v), dtypes[c.w as DTypeName], dtypes[c.v_dtype as DTypeName]);
      const label = `${c.dtype}: u ${JSON.stringify(c.u)} v ${JSON.stringify(c.v)}`;
      expect(got.q.length, label).toBe(c.q.length);
      expect(got.r.length, label).toBe(c.r.length);
      exactLengths++;
      const close = (a: readonly [number, number][], b: readonly [number, number][]): void =>
        a.forEach(([re, im], k) => {
          const [wr, wi] = b[k]!;
          if (!Number.isFinite(wr) || !Number.isFinite(wi)) {
            expect([re, im], `${label} [${k}]`).toEqual([wr, wi]);
            return;
          }
          const scale = Math.max(1, Math.hypot(wr, wi));
          expect(Math.abs(re - wr) + Math.abs(im - wi), `${label} [${k}]`).toBeLessThanOrEqual(tolerance[c.w]! * scale * 10);
        });
      close(got.q, pairs(c.q));
      close(got.r, pairs(c.r));
    }
    expect(exactLengths).toBe(360);
  });

  it("takes non-empty coefficient lists or arrays", () => {
    expect(() => polydiv([1, 2], [1])).toThrow(/needs a stream/);
    expect(() => polydiv(fakeArray([3], "float32"), fakeArray([0], "float32"))).toThrow(/v has no coefficients/);
    expect(() => polydiv([], [1])).toThrow(/u has no coefficients/);
    expect(() => polydiv(fakeArray([2, 2], "float64"), [1])).toThrow(ShapeMismatchError);
    expect(() => polydiv("1" as never, [1])).toThrow(TypeError);
  });
});
