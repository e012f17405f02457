/**
 * copyto's checks without a GPU, against NumPy 2.4's `copyto` (each refusal NumPy's too): casting rules for arrays
 * and for weak scalars, shapes that do not broadcast into the destination, masks that are not bool, read-only
 * destinations and bad options, all before anything reaches a stream.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError } from "../../../src/errors/base.ts";
import { BroadcastError, DTypeError, copyto } from "../../../src/array.ts";
import { dtypes, type DTypeName } from "../../../src/index.ts";
import { maskedKernel } from "../../../src/core/array/ops/copyto.ts";
import { castKernel } from "../../../src/core/array/ops/cast.ts";
import type { Binding } from "../../../src/core/kernels/params.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import { bundleKernels, nvccPresent, nvccProblems } from "../../support/nvcc.ts";

/** What a call needs once its checks pass, on this machine: a stream (no array here was made on one). */
const NEEDS_STREAM = /needs a stream/;

describe("copyto checks", () => {
  it("casting rules for arrays: same_kind by default, safe, no, unsafe", () => {
    const i8 = fakeArray([3], "int8");
    // np.copyto(int8, int64) works (same_kind); under "safe" it is a TypeError
    expect(() => copyto(i8, fakeArray([3], "int64"))).toThrow(NEEDS_STREAM);
    expect(() => copyto(i8, fakeArray([3], "int64"), { casting: "safe" })).toThrow(DTypeError);
    expect(() => copyto(i8, fakeArray([3], "int8"), { casting: "no" })).toThrow(NEEDS_STREAM);
    expect(() => copyto(i8, fakeArray([3], "int16"), { casting: "equiv" })).toThrow(DTypeError);
    // int64 into uint8 and float into int are not "same_kind"; "unsafe" takes them
    expect(() => copyto(fakeArray([3], "uint8"), fakeArray([3], "int64"))).toThrow('cannot write int64 into dst (uint8) under "same_kind" casting');
    expect(() => copyto(i8, fakeArray([3], "float32"))).toThrow(DTypeError);
    expect(() => copyto(i8, fakeArray([3], "float32"), { casting: "unsafe" })).toThrow(NEEDS_STREAM);
    expect(() => copyto(fakeArray([3], "float32"), fakeArray([3], "complex64"))).toThrow(DTypeError);
    expect(() => copyto(i8, fakeArray([3], "int8"), { casting: "sometimes" as never })).toThrow(ArgumentError);
  });

  it("weak scalars: the destination's dtype where the kind allows and the value fits", () => {
    const i8 = fakeArray([3], "int8");
    expect(() => copyto(i8, 5, { casting: "no" })).toThrow(NEEDS_STREAM);
    expect(() => copyto(i8, true)).toThrow(NEEDS_STREAM);
    expect(() => copyto(i8, 300)).toThrow("outside the int8 range");
    expect(() => copyto(fakeArray([3], "uint8"), -1)).toThrow(DTypeError);
    expect(() => copyto(i8, 1.5)).toThrow('the scalar 1.5 cannot be written into dst (int8) under "same_kind" casting (it is a float)');
    expect(() => copyto(i8, 1.5, { casting: "unsafe" })).toThrow(NEEDS_STREAM);
    expect(() => copyto(fakeArray([3], "float32"), 1e300)).toThrow(NEEDS_STREAM);
    expect(() => copyto(fakeArray([3], "float32"), [0, 1])).toThrow(DTypeError);
    expect(() => copyto(fakeArray([3], "float32"), [0, 1], { casting: "unsafe" })).toThrow(NEEDS_STREAM);
    expect(() => copyto(fakeArray([3], "bool"), 2)).toThrow(DTypeError);
    expect(() => copyto(i8, "5" as never)).toThrow(TypeError);
  });

  it("weak scalars under \"no\" and \"equiv\" as NumPy 2.4: no boolean into another dtype; equiv only into the scalar's own dtype", () => {
    const i8 = fakeArray([3], "int8");
    expect(() => copyto(i8, true, { casting: "no" })).toThrow("a boolean goes only into bool");
    expect(() => copyto(fakeArray([3], "bool"), true, { casting: "no" })).toThrow(NEEDS_STREAM);
    expect(() => copyto(fakeArray([3], "float32"), 1.5, { casting: "no" })).toThrow(NEEDS_STREAM);
    expect(() => copyto(i8, 5, { casting: "equiv" })).toThrow('"equiv" takes a JavaScript scalar only into its own dtype, int64');
    expect(() => copyto(fakeArray([3], "int64"), 5, { casting: "equiv" })).toThrow(NEEDS_STREAM);
    expect(() => copyto(fakeArray([3], "float32"), 1.5, { casting: "equiv" })).toThrow(DTypeError);
    expect(() => copyto(fakeArray([3], "float64"), 1.5, { casting: "equiv" })).toThrow(NEEDS_STREAM);
    expect(() => copyto(i8, true, { casting: "safe" })).toThrow(NEEDS_STREAM);
  });

  it("\"unsafe\" takes every scalar, converted on the device as arrays are", () => {
    expect(() => copyto(fakeArray([3], "uint8"), -1.5, { casting: "unsafe" })).toThrow(NEEDS_STREAM);
    expect(() => copyto(fakeArray([3], "int8"), 300.5, { casting: "unsafe" })).toThrow(NEEDS_STREAM);
    expect(() => copyto(fakeArray([3], "int32"), Number.NaN, { casting: "unsafe" })).toThrow(NEEDS_STREAM);
    expect(() => copyto(fakeArray([3], "bool"), [0, 2], { casting: "unsafe" })).toThrow(NEEDS_STREAM);
  });

  it("src and where broadcast into dst's shape, which does not grow; where is bool", () => {
    const dst = fakeArray([2, 3], "float32");
    expect(() => copyto(dst, fakeArray([3], "float32"))).toThrow(NEEDS_STREAM);
    expect(() => copyto(dst, fakeArray([2, 1], "float32"))).toThrow(NEEDS_STREAM);
    expect(() => copyto(dst, fakeArray([2], "float32"))).toThrow(BroadcastError);
    // NumPy drops a source's leading axes of extent 1: np.copyto(np.zeros(3), np.ones((1, 1, 3))) works
    expect(() => copyto(fakeArray([3], "float32"), fakeArray([1, 1, 3], "float32"))).toThrow(NEEDS_STREAM);
    expect(() => copyto(fakeArray([3], "float32"), 1, { where: fakeArray([1, 3], "bool") })).toThrow(BroadcastError);
    expect(() => copyto(fakeArray([3], "float32"), fakeArray([2, 3], "float32"))).toThrow("src has shape [2, 3], which does not broadcast to dst's shape [3]");
    expect(() => copyto(dst, 1, { where: fakeArray([3], "bool") })).toThrow(NEEDS_STREAM);
    expect(() => copyto(dst, 1, { where: fakeArray([4], "bool") })).toThrow("where has shape [4]");
    expect(() => copyto(dst, 1, { where: fakeArray([3], "int64") })).toThrow("where is a bool array, got int64");
    expect(() => copyto(dst, 1, { where: false })).toThrow(NEEDS_STREAM);
    expect(() => copyto(dst, 1, 3 as never)).toThrow(TypeError);
    expect(() => copyto(3 as never, 1)).toThrow(TypeError);
  });
});

const binding = (k: { params: readonly { type: string; output?: boolean }[] }, scalar: readonly boolean[]): Binding => ({
  types: new Map(),
  dtypes: k.params.map((p) => dtypes[p.type as DTypeName]),
  scalar: [...scalar],
  shape: [1],
  key: "",
});

describe.skipIf(!nvccPresent)(`copyto's kernels compile with nvcc${nvccPresent ? "" : " [skipped: no nvcc here]"}`, () => {
  it("masked arrays and scalars, and the unsafe scalar fill, from every scalar dtype into every dtype", () => {
    const sources: string[] = [];
    const into: DTypeName[] = ["bool", "int8", "uint8", "int64", "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"];
    for (const from of ["bool", "int64", "float64", "complex128"] as const) {
      for (const to of into) {
        const m = maskedKernel(dtypes.bool, dtypes[from], dtypes[to]);
        sources.push(m.source(binding(m, [false, true, false])));
        if (from !== to) {
          const c = castKernel(dtypes[from], dtypes[to]);
          sources.push(c.source(binding(c, [true, false])));
        }
      }
    }
    for (const from of ["int8", "float16", "float32", "complex64"] as const) {
      for (const to of into) {
        const m = maskedKernel(dtypes.bool, dtypes[from], dtypes[to]);
        sources.push(m.source(binding(m, [false, false, false])));
      }
    }
    expect(sources.length).toBeGreaterThan(80);
    expect(nvccProblems({ copyto: bundleKernels(sources) }, { ptx: true, warnings: false })).toEqual([]);
  }, 300_000);
});
