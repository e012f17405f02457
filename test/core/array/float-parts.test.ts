/**
 * frexp, ldexp and modf without a GPU: the dtypes NumPy's loops give (checked against NumPy 2.4's `ufunc.types`
 * resolution), the inputs NumPy refuses (complex, float or uint64 exponents, exponents past int32), and their
 * generated kernels compiling with nvcc where this machine has it.
 */
import { describe, expect, it } from "vitest";
import { dtypes, type DTypeName } from "../../../src/index.ts";
import { ArgumentError } from "../../../src/errors/base.ts";
import { DTypeError, frexp, ldexp, modf } from "../../../src/array.ts";
import { kernelCache } from "../../../src/core/array/ops/elementwise.ts";
import type { Binding } from "../../../src/core/kernels/params.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import { bundleKernels, nvccPresent, nvccProblems } from "../../support/nvcc.ts";

/** What a call needs once its checks pass, on this machine: a stream (no array here was made on one). */
const NEEDS_STREAM = /needs a stream/;

/** The float dtype NumPy's frexp, ldexp and modf compute in, by input dtype (NumPy 2.4, `np.modf(np.ones(2, d))`). */
const FLOAT_LOOP: Record<string, DTypeName> = {
  bool: "float16",
  int8: "float16",
  uint8: "float16",
  int16: "float32",
  uint16: "float32",
  int32: "float64",
  uint32: "float64",
  int64: "float64",
  uint64: "float64",
  float16: "float16",
  bfloat16: "bfloat16",
  float32: "float32",
  float64: "float64",
};

describe("frexp, ldexp and modf: checks before the stream", () => {
  it("take real inputs of every dtype and refuse complex ones, as NumPy", () => {
    for (const d of Object.keys(FLOAT_LOOP) as DTypeName[]) {
      expect(() => frexp(fakeArray([3], d)), d).toThrow(NEEDS_STREAM);
      expect(() => modf(fakeArray([3], d)), d).toThrow(NEEDS_STREAM);
      expect(() => ldexp(fakeArray([3], d), 2), d).toThrow(NEEDS_STREAM);
    }
    for (const d of ["complex64", "complex128"] as const) {
      expect(() => frexp(fakeArray([3], d))).toThrow(DTypeError);
      expect(() => modf(fakeArray([3], d))).toThrow("modf: not supported for " + d);
      expect(() => ldexp(fakeArray([3], d), 1)).toThrow(DTypeError);
    }
    expect(() => ldexp([1, 2], fakeArray([3], "int32"))).toThrow(DTypeError);
  });

  it("kernels in the float dtype NumPy's loops give", () => {
    for (const [d, c] of Object.entries(FLOAT_LOOP) as [DTypeName, DTypeName][]) {
      expect(() => frexp(fakeArray([2], d))).toThrow(NEEDS_STREAM);
      expect(kernelCache().has(`frexp|${d}|${c}`), `frexp of ${d}`).toBe(true);
      expect(() => modf(fakeArray([2], d))).toThrow(NEEDS_STREAM);
      expect(kernelCache().has(`modf|${d}|${c}`), `modf of ${d}`).toBe(true);
      expect(() => ldexp(fakeArray([2], d), fakeArray([2], "int8"))).toThrow(NEEDS_STREAM);
      expect(kernelCache().has(`ldexp|${d}|int8|${c}|${c}`), `ldexp of ${d}`).toBe(true);
    }
    const frexpKernel = kernelCache().get("frexp|int8|float16")!;
    expect(frexpKernel.params.filter((p) => p.output).map((p) => p.type)).toEqual(["float16", "int32"]);
    // A JavaScript number is a float64 mantissa.
    expect(() => ldexp(3, fakeArray([2], "int32"))).toThrow(NEEDS_STREAM);
    expect(kernelCache().has("ldexp|float64|int32|float64|float64")).toBe(true);
  });

  it("ldexp's exponents: integers up to int64 and uint32, integer scalars within int32", () => {
    const m = fakeArray([4], "float32");
    for (const d of ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64"] as const) {
      expect(() => ldexp(m, fakeArray([4], d)), d).toThrow(NEEDS_STREAM);
    }
    for (const d of ["uint64", "float16", "float32", "float64", "complex64"] as const) {
      expect(() => ldexp(m, fakeArray([4], d)), d).toThrow(DTypeError);
    }
    expect(() => ldexp(m, fakeArray([4], "float32"))).toThrow("ldexp: the exponent array is float32, but the exponents are integers");
    expect(() => ldexp(m, 2.5)).toThrow(DTypeError);
    expect(() => ldexp(m, Number.NaN)).toThrow(DTypeError);
    expect(() => ldexp(m, [1, 0])).toThrow(DTypeError);
    expect(() => ldexp(m, 2 ** 31)).toThrow(ArgumentError);
    expect(() => ldexp(m, -(2 ** 31))).toThrow(NEEDS_STREAM);
    expect(() => ldexp(m, 3n)).toThrow(NEEDS_STREAM);
    expect(() => ldexp(m, true)).toThrow(NEEDS_STREAM);
    expect(() => ldexp(m, "3" as never)).toThrow(TypeError);
    expect(() => ldexp(1.5, 3)).toThrow("ldexp: the mantissa or the exponent must be a DeviceArray");
  });

  it("broadcasts, checks out, and takes no out for two results", () => {
    expect(() => ldexp(fakeArray([2, 3], "float32"), fakeArray([4], "int32"))).toThrow("they do not broadcast");
    expect(() => ldexp(fakeArray([2, 3], "float32"), fakeArray([3], "int32"), { out: fakeArray([2, 3], "float16") })).toThrow(NEEDS_STREAM);
    expect(() => ldexp(fakeArray([2, 3], "float32"), fakeArray([3], "int32"), { out: fakeArray([2, 3], "int32") })).toThrow(DTypeError);
    expect(() => ldexp(fakeArray([2, 3], "float32"), fakeArray([3], "int32"), { out: fakeArray([3], "float32") })).toThrow("out has shape [3]");
    expect(() => frexp(fakeArray([2], "float32"), { out: fakeArray([2], "float32") } as never)).toThrow("frexp takes no out");
    expect(() => modf(fakeArray([2], "float32"), 3 as never)).toThrow(TypeError);
    expect(() => frexp([1, 2] as never)).toThrow(TypeError);
  });
});

const binding = (k: { params: readonly { type: string }[] }, scalar: boolean[]): Binding => ({
  types: new Map(),
  dtypes: k.params.map((p) => dtypes[p.type as DTypeName]),
  scalar,
  shape: [1],
  key: "",
});

describe.skipIf(!nvccPresent)(`their kernels compile with nvcc${nvccPresent ? "" : " [skipped: no nvcc here]"}`, () => {
  it("every input dtype, array and scalar exponents, outs of another dtype", () => {
    const sources: string[] = [];
    for (const d of Object.keys(FLOAT_LOOP) as DTypeName[]) {
      expect(() => frexp(fakeArray([2], d))).toThrow(NEEDS_STREAM);
      expect(() => modf(fakeArray([2], d))).toThrow(NEEDS_STREAM);
      for (const e of ["bool", "int16", "uint32", "int64"] as const) expect(() => ldexp(fakeArray([2], d), fakeArray([2], e))).toThrow(NEEDS_STREAM);
      expect(() => ldexp(fakeArray([2], d), 3, { out: fakeArray([2], "float64") })).toThrow(NEEDS_STREAM);
    }
    for (const [key, k] of kernelCache()) {
      if (!/^(frexp|modf|ldexp)\|/.test(key)) continue;
      const scalarExponent = key.startsWith("ldexp|") && k.params[1]!.type === "int32";
      sources.push(k.source(binding(k, k.params.map((p, i) => scalarExponent && i === 1 && !p.output))));
      if (scalarExponent) sources.push(k.source(binding(k, k.params.map(() => false))));
    }
    expect(sources.length).toBeGreaterThan(50);
    expect(nvccProblems({ "float-parts": bundleKernels(sources) }, { ptx: true, warnings: false })).toEqual([]);
  }, 600_000);
});
