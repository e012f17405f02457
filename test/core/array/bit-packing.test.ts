/**
 * packbits and unpackbits without a GPU: their arguments checked before a stream is needed, and their kernels
 * compiling with nvcc where this machine has it.
 */
import { describe, expect, it } from "vitest";
import { dtypes, type DTypeName } from "../../../src/index.ts";
import { ArgumentError } from "../../../src/errors/base.ts";
import { AxisError, DTypeError, packbits, unpackbits } from "../../../src/array.ts";
import { packbitsKernel, unpackbitsKernel } from "../../../src/core/array/ops/bit-packing.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import { bundleKernels, nvccPresent, nvccProblems } from "../../support/nvcc.ts";

const NEEDS_STREAM = /needs a stream/;

describe("packbits and unpackbits: checks", () => {
  it("packbits takes bool and integer arrays, an axis in range, a bit order", () => {
    for (const t of ["bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "uint64"] as const) expect(() => packbits(fakeArray([3, 9], t))).toThrow(NEEDS_STREAM);
    for (const t of ["float16", "bfloat16", "float32", "float64", "complex64"] as const) expect(() => packbits(fakeArray([9], t))).toThrow(DTypeError);
    expect(() => packbits(fakeArray([9], "float32"))).toThrow(/bool or integer/);
    expect(() => packbits(fakeArray([3, 9], "bool"), { axis: 2 })).toThrow(AxisError);
    expect(() => packbits(fakeArray([3, 9], "bool"), { axis: -2 })).toThrow(NEEDS_STREAM);
    expect(() => packbits(fakeArray([], "bool"), { axis: 0 })).toThrow(NEEDS_STREAM);
    expect(() => packbits(fakeArray([], "bool"), { axis: 1 })).toThrow(AxisError);
    expect(() => packbits(fakeArray([], "bool"))).toThrow(NEEDS_STREAM);
    expect(() => packbits(fakeArray([9], "bool"), { bitorder: "middle" as never })).toThrow(ArgumentError);
    expect(() => packbits(fakeArray([9], "bool"), 3 as never)).toThrow(TypeError);
    expect(() => packbits([1, 0] as never)).toThrow(TypeError);
  });

  it("unpackbits takes uint8 arrays and a count that keeps at least nothing", () => {
    expect(() => unpackbits(fakeArray([4], "uint8"))).toThrow(NEEDS_STREAM);
    expect(() => unpackbits(fakeArray([4], "int8"))).toThrow(/uint8/);
    expect(() => unpackbits(fakeArray([4], "bool"))).toThrow(DTypeError);
    expect(() => unpackbits(fakeArray([4], "uint8"), { count: -32 })).toThrow(NEEDS_STREAM);
    expect(() => unpackbits(fakeArray([4], "uint8"), { count: -33 })).toThrow(/drops more bits than the 32/);
    expect(() => unpackbits(fakeArray([4], "uint8"), { count: 100 })).toThrow(NEEDS_STREAM);
    expect(() => unpackbits(fakeArray([4], "uint8"), { count: 1.5 })).toThrow(ArgumentError);
    expect(() => unpackbits(fakeArray([2, 4], "uint8"), { axis: -3 })).toThrow(AxisError);
    expect(() => unpackbits(fakeArray([4], "uint8"), { bitorder: "BIG" as never })).toThrow(ArgumentError);
  });
});

describe.skipIf(!nvccPresent)(`bit packing kernels compile with nvcc${nvccPresent ? "" : " [skipped: no nvcc here]"}`, () => {
  it("packbits of every bool and integer dtype, unpackbits, both bit orders", () => {
    const sources: string[] = [];
    const names: DTypeName[] = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"];
    for (const order of ["big", "little"] as const) {
      for (const t of names) {
        const k = packbitsKernel(dtypes[t], order);
        expect(k.name).toBe(`cuda_ts_packbits_${t}_${order}`);
        sources.push(k.source({ types: new Map(), dtypes: k.params.map((p) => dtypes[p.type as DTypeName]), scalar: k.params.map((p) => !p.raw && !p.output), shape: [1], key: "" }));
      }
      const u = unpackbitsKernel(order);
      sources.push(u.source({ types: new Map(), dtypes: u.params.map((p) => dtypes[p.type as DTypeName]), scalar: u.params.map((p) => !p.raw && !p.output), shape: [1], key: "" }));
    }
    expect(nvccProblems({ bits: bundleKernels(sources) }, { ptx: true, warnings: false })).toEqual([]);
  }, 300_000);
});
