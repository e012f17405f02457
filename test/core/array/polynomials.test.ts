/**
 * The polynomial functions without a GPU: their arguments checked before a stream is needed, and the Horner kernel
 * compiling with nvcc where this machine has it.
 */
import { describe, expect, it } from "vitest";
import { dtypes, type DTypeName } from "../../../src/index.ts";
import { ArgumentError } from "../../../src/errors/base.ts";
import { ShapeMismatchError } from "../../../src/index.ts";
import { polyadd, polyder, polyint, polymul, polysub, polyval } from "../../../src/array.ts";
import { polyvalKernel } from "../../../src/core/array/ops/polynomials.ts";
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
