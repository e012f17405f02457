/**
 * Statistics without a GPU: result dtypes as NumPy's (test/fixtures/arrays), norm orders and their errors, the
 * arg-reduction's plan and layout bytes, the arg-reduction kernel's algorithm (groups of threads, chunks, the
 * shared-memory tree, the final pass) simulated on the CPU from the plan and compared with a plain scan over random
 * strided data with ties and NaNs, its generated source, reading back (`item`/`toList` decoding), and the errors that
 * must come before anything reaches the GPU.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, AxisError, Buffer, DTypeError, DeviceArray, ShapeMismatchError, dtypes, type DTypeName } from "../../../src/index.ts";
import * as ca from "../../../src/array.ts";
import {
  ARG_BLOCK,
  argReducePlan,
  argReduceSource,
  compareKernel,
  deviations,
  normDTypes,
  normKernel,
  normPlan,
  varianceDTypes,
} from "../../../src/core/array/ops/statistics.ts";
import { decodeElement, nestHost } from "../../../src/core/array/ops/host.ts";
import { sumDTypes } from "../../../src/core/array/reductions.ts";
import { axisChunks } from "../../../src/core/kernels/reduction.ts";
import { encodeBFloat16, encodeHalf } from "../../../src/core/array/dtype.ts";
import { fakeArray as fakeMemoryArray } from "../../support/fake-arrays.ts";
import fixture from "../../fixtures/arrays/creation-statistics.json" with { type: "json" };

const num = (v: number | string): number => (v === "nan" ? NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : (v as number));

function fakeArray(shape: number[], dtype: DTypeName = "float32", strides?: number[]): DeviceArray {
  const buffer = Buffer.fromHandle(0x7f00_0000_0000n, 1 << 20, { owner: {} });
  return DeviceArray.fromBuffer(buffer, { dtype, shape, ...(strides !== undefined ? { strides } : {}) });
}

/** A deterministic pseudo-random sequence. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

// ---- the arg-reduction kernel, simulated ----

/** The kernel's `_ct_takes`: whether (vb, ib) replaces (va, ia). */
function takes(isMax: boolean, va: number, ia: number, vb: number, ib: number): boolean {
  if (ib < 0) return false;
  if (ia < 0) return true;
  const na = Number.isNaN(va);
  const nb = Number.isNaN(vb);
  if (na || nb) return nb && (!na || ib < ia);
  if (isMax ? vb > va : vb < va) return true;
  if (isMax ? va > vb : va < vb) return false;
  return ib < ia;
}

/** Runs the arg-reduction kernel's algorithm over `memory` (element offsets from `plan.layout`), as the GPU would. */
function simulate(memory: Float64Array, base: number, plan: ReturnType<typeof argReducePlan>, isMax: boolean, sms: number): number[] {
  const dv = new DataView(plan.layout.buffer);
  const at = (j: number): number => Number(dv.getBigInt64(8 * j, true));
  const KR = plan.keptRank;
  const RR = plan.reducedRank;
  const kshape = Array.from({ length: KR }, (_, j) => at(j));
  const rshape = Array.from({ length: RR }, (_, j) => at(KR + j));
  const ks = Array.from({ length: KR }, (_, j) => at(KR + RR + j));
  const rs = Array.from({ length: RR }, (_, j) => at(2 * KR + RR + j));
  const offset = (v: number, shape: number[], strides: number[]): number => {
    let q = v;
    let o = 0;
    for (let k = shape.length - 1; k > 0; k--) {
      o += (q % shape[k]!) * strides[k]!;
      q = Math.floor(q / shape[k]!);
    }
    return o + q * strides[0]!;
  };
  const { nOut, nReduced, group: G, outputsPerBlock: W, laneStride: ls } = plan;
  const chunks = axisChunks(nOut, nReduced, G, W, sms);
  const block = G * W;
  expect(block).toBeLessThanOrEqual(ARG_BLOCK);
  const nv = nOut * chunks;
  const len = Math.ceil(nReduced / chunks);
  const out = new Array<number>(nOut).fill(-2);
  const pv = new Array<number>(nv).fill(NaN);
  const pi = new Array<number>(nv).fill(-3);
  for (let b0 = 0; b0 < nv; b0 += W) {
    const sv = new Array<number>(block);
    const si = new Array<number>(block);
    const lanes: number[] = [];
    const slots: number[] = [];
    for (let t = 0; t < block; t++) {
      const lane = ls === 1 ? t % G : Math.floor(t / W);
      const slot = ls === 1 ? Math.floor(t / G) : t % W;
      lanes.push(lane);
      slots.push(slot);
      const v = b0 + slot;
      let bv = 0;
      let bi = -1;
      if (v < nv) {
        const o = v % nOut;
        const lo = Math.floor(v / nOut) * len;
        const hi = Math.min(lo + len, nReduced);
        const ko = offset(o, kshape, ks);
        for (let r = lo + lane; r < hi; r += G) {
          const e = memory[base + ko + offset(r, rshape, rs)]!;
          if (takes(isMax, bv, bi, e, r)) [bv, bi] = [e, r];
        }
      }
      sv[t] = bv;
      si[t] = bi;
    }
    for (let off = G >> 1; off > 0; off >>= 1) {
      for (let t = 0; t < block; t++) {
        if (lanes[t]! < off) {
          const p = t + off * ls;
          if (takes(isMax, sv[t]!, si[t]!, sv[p]!, si[p]!)) [sv[t], si[t]] = [sv[p]!, si[p]!];
        }
      }
    }
    for (let t = 0; t < block; t++) {
      const v = b0 + slots[t]!;
      if (lanes[t] === 0 && v < nv) {
        if (chunks > 1) [pv[v], pi[v]] = [sv[t]!, si[t]!];
        else out[v] = si[t]!;
      }
    }
  }
  if (chunks > 1) {
    for (let o = 0; o < nOut; o++) {
      let bv = 0;
      let bi = -1;
      for (let c = 0; c < chunks; c++) if (takes(isMax, bv, bi, pv[c * nOut + o]!, pi[c * nOut + o]!)) [bv, bi] = [pv[c * nOut + o]!, pi[c * nOut + o]!];
      out[o] = bi;
    }
  }
  return out;
}

/** NumPy's argmax/argmin by a plain scan: row-major over the reduced axes, the first best, NaN first. */
function reference(memory: Float64Array, base: number, shape: number[], strides: number[], axis: number | undefined, isMax: boolean): number[] {
  const axes = axis === undefined ? shape.map((_, d) => d) : [axis];
  const kept = shape.map((_, d) => d).filter((d) => !axes.includes(d));
  const count = (ds: number[]): number => ds.reduce((p, d) => p * shape[d]!, 1);
  const offsetOf = (v: number, ds: number[]): number => {
    let o = 0;
    for (let k = ds.length - 1; k >= 0; k--) {
      o += (v % shape[ds[k]!]!) * strides[ds[k]!]!;
      v = Math.floor(v / shape[ds[k]!]!);
    }
    return o;
  };
  const out: number[] = [];
  for (let o = 0; o < count(kept); o++) {
    let best = -1;
    let bv = 0;
    for (let r = 0; r < count(axes); r++) {
      const e = memory[base + offsetOf(o, kept) + offsetOf(r, axes)]!;
      if (best < 0) [best, bv] = [r, e];
      else if (Number.isNaN(bv)) continue;
      else if (Number.isNaN(e) || (isMax ? e > bv : e < bv)) [best, bv] = [r, e];
    }
    out.push(best);
  }
  return out;
}

describe("argmin and argmax", () => {
  it("take the first occurrence and let NaN win (NumPy's answers)", () => {
    for (const c of fixture.argreduce) {
      const values = Float64Array.from(c.values.map(num));
      const plan = argReducePlan([values.length], [1], undefined, false);
      expect(simulate(values, 0, plan, true, 132)).toEqual([c.argmax]);
      expect(simulate(values, 0, plan, false, 132)).toEqual([c.argmin]);
      expect(reference(values, 0, [values.length], [1], undefined, true)).toEqual([c.argmax]);
    }
  });

  it("plan shapes: flat, one axis, keepdims", () => {
    expect(argReducePlan([3, 4], [4, 1], undefined, false)).toMatchObject({ outShape: [], nOut: 1, nReduced: 12, keptRank: 1, reducedRank: 1 });
    expect(argReducePlan([3, 4], [4, 1], undefined, true).outShape).toEqual([1, 1]);
    expect(argReducePlan([3, 4], [4, 1], 0, false)).toMatchObject({ outShape: [4], nOut: 4, nReduced: 3, laneStride: 4 });
    expect(argReducePlan([3, 4], [4, 1], 1, true)).toMatchObject({ outShape: [3, 1], nOut: 3, nReduced: 4, laneStride: 1 });
    // A transposed view flattened: two reduced axes that do not merge.
    expect(argReducePlan([4, 3], [1, 4], undefined, false)).toMatchObject({ reducedRank: 2, nReduced: 12 });
    expect(argReducePlan([2, 3, 4], [12, 4, 1], 1, false)).toMatchObject({ outShape: [2, 4], keptRank: 2, reducedRank: 1 });
    expect(argReducePlan([], [], undefined, false)).toMatchObject({ outShape: [], nOut: 1, nReduced: 1 });
  });

  it("agree with a plain scan over random strided views, with ties and NaNs, on every path", () => {
    const r = rng(7);
    const cases: { shape: number[]; strides: number[]; base: number }[] = [
      { shape: [1000], strides: [1], base: 0 },
      { shape: [100000], strides: [1], base: 0 }, // a flat reduction split into chunks
      { shape: [7, 300], strides: [300, 1], base: 0 },
      { shape: [300, 7], strides: [7, 1], base: 0 },
      { shape: [5, 6, 40], strides: [240, 40, 1], base: 0 },
      { shape: [40, 30], strides: [1, 40], base: 0 }, // a transpose
      { shape: [20, 25], strides: [-50, 2], base: 19 * 50 }, // reversed rows, every other column
      { shape: [3, 1, 2000], strides: [2000, 2000, 1], base: 0 },
      { shape: [2000, 3], strides: [3, 1], base: 0 },
    ];
    for (const { shape, strides, base } of cases) {
      const span = shape.reduce((m, n, k) => m + (n - 1) * Math.abs(strides[k]!), 0) + 1 + base;
      const memory = Float64Array.from({ length: span }, () => {
        const u = r();
        return u < 0.002 ? NaN : Math.floor(r() * 50);
      });
      for (const axis of [undefined, ...shape.map((_, d) => d)]) {
        const plan = argReducePlan(shape, strides, axis, false);
        for (const isMax of [true, false]) {
          const want = reference(memory, base, shape, strides, axis, isMax);
          for (const sms of [1, 132]) expect(simulate(memory, base, plan, isMax, sms), `${shape} ${strides} axis ${axis} ${isMax} sms ${sms}`).toEqual(want);
        }
      }
    }
  });

  it("generate one kernel and a final pass per dtype and rank, comparing NaN-aware pairs", () => {
    const src = argReduceSource("cuda_ts_argmax_float16", dtypes.float16, true, 2, 1);
    expect(src).toContain("#include <cuda_fp16.h>");
    expect(src).toContain("typedef float _ct_V;");
    expect(src).toContain('extern "C" __global__ void cuda_ts_argmax_float16(');
    expect(src).toContain('extern "C" __global__ void cuda_ts_argmax_float16_final(');
    expect(src).toContain("struct _ct_layout { long long kshape[2]; long long rshape[1]; long long ks[2]; long long rs[1]; };");
    expect(src).toContain("return v > w;");
    expect(argReduceSource("k", dtypes.int8, false, 1, 1)).toContain("return v < w;");
    expect(argReduceSource("k", dtypes.bool, true, 1, 1)).toContain("typedef int _ct_V;");
    const c = argReduceSource("k", dtypes.complex64, true, 1, 1);
    expect(c).toContain("#include <cuda/std/complex>");
    expect(c).toContain("v.real() > w.real() || (v.real() == w.real() && v.imag() > w.imag())");
    for (const s of [src, c]) expect(s.split("{").length).toBe(s.split("}").length);
  });

  it("refuse empty reductions, several axes and bad axes before anything is queued", () => {
    expect(() => ca.argmax(fakeArray([0]))).toThrow(ShapeMismatchError);
    expect(() => ca.argmin(fakeArray([3, 0]), { axis: 1 })).toThrow(/axis 1 of shape \[3, 0\] is empty/);
    expect(() => ca.argmax(fakeArray([2, 3]), { axis: [0, 1] as never })).toThrow(ArgumentError);
    expect(() => ca.argmax(fakeArray([2, 3]), { axis: 2 })).toThrow(AxisError);
    expect(() => fakeArray([2, 3]).argmax({ keepdims: 1 as never })).toThrow(TypeError);
    expect(() => fakeArray([2, 3]).argmin()).toThrow(/needs a stream/);
  });
});

describe("nanargmin and nanargmax", () => {
  it("check as argmin and argmax, under their own names, before anything is queued", () => {
    expect(() => ca.nanargmin(fakeArray([0], "float32"))).toThrow(ShapeMismatchError);
    expect(() => ca.nanargmax(fakeArray([3, 0], "float64"), { axis: 1 })).toThrow(/nanargmax: axis 1 of shape \[3, 0\] is empty, and an empty sequence has no greatest element/);
    expect(() => ca.nanargmin(fakeArray([2, 3], "float32"), { axis: [0, 1] as never })).toThrow(ArgumentError);
    expect(() => ca.nanargmax(fakeArray([2, 3], "float32"), { axis: -3 })).toThrow(AxisError);
    expect(() => ca.nanargmin(fakeArray([2, 3], "float32"), { keepdims: 1 as never })).toThrow(/nanargmin: keepdims is a boolean/);
    expect(() => ca.nanargmin("x" as never)).toThrow(/nanargmin takes a DeviceArray/);
    // Past the checks: the stream is what is missing (floats, and integers, which are argmin's).
    expect(() => ca.nanargmin(fakeArray([2, 3], "float32"), { axis: 1 })).toThrow(/nanargmin needs a stream/);
    expect(() => ca.nanargmax(fakeArray([2, 3], "int32"))).toThrow(/nanargmax needs a stream/);
  });
});

describe("var and std", () => {
  it("give NumPy's dtypes", () => {
    for (const [name, d] of Object.entries(fixture.dtypes)) {
      expect(varianceDTypes(dtypes[name as DTypeName]).out.name, name).toBe(d.var);
      expect(varianceDTypes(dtypes[name as DTypeName]).out.name, name).toBe(d.std);
    }
    expect(varianceDTypes(dtypes.float16)).toMatchObject({ mean: dtypes.float32, accumulate: dtypes.float32 });
    expect(varianceDTypes(dtypes.complex64)).toMatchObject({ mean: dtypes.complex64, accumulate: dtypes.float32 });
  });

  it("sum squared deviations from the broadcast mean (|x - m|^2 for complex)", () => {
    expect(deviations(dtypes.float32, dtypes.float32, dtypes.float32).mapExpr).toBe("((float)(x) - m) * ((float)(x) - m)");
    expect(deviations(dtypes.float16, dtypes.float32, dtypes.float32).mapExpr).toContain("__half2float(x)");
    expect(deviations(dtypes.complex128, dtypes.complex128, dtypes.float64).mapExpr).toContain("cuda::std::norm(");
    expect(deviations(dtypes.int8, dtypes.float64, dtypes.float64).params.map((p) => p.type)).toEqual(["int8", "float64", "float64"]);
  });

  it("check their options before anything is queued", () => {
    expect(() => ca.var(fakeArray([2, 3]), { ddof: "1" as never })).toThrow(/ddof is a finite number/);
    expect(() => ca.std(fakeArray([2, 3]), { axis: 3 })).toThrow(AxisError);
    expect(() => fakeArray([2, 3]).var({ keepdims: "yes" as never })).toThrow(TypeError);
    expect(() => fakeArray([2, 3]).std()).toThrow(/needs a stream/);
  });
});

describe("nanvar and nanstd", () => {
  it("check their options before anything is queued", () => {
    const m = fakeArray([2, 3]);
    expect(() => ca.nanvar(m, { ddof: "1" as never })).toThrow(ArgumentError);
    expect(() => ca.nanstd(m, { ddof: NaN })).toThrow(/nanstd: ddof is a finite number/);
    expect(() => ca.nanvar(m, { axis: 2 })).toThrow(AxisError);
    expect(() => ca.nanstd(m, { keepdims: 1 as never })).toThrow(/nanstd: keepdims is a boolean/);
    expect(() => ca.nanvar([1, 2] as never)).toThrow(/nanvar takes a DeviceArray/);
    expect(() => ca.nanvar(m, { dtype: "float64" } as never)).toThrow(/nanvar takes no dtype/);
    // The out: the reduced shape, a dtype var's result converts to (float64 for int32, float32 for complex64).
    expect(() => ca.nanvar(m, { axis: 1, out: fakeArray([3]) })).toThrow(/nanvar: out has shape \[3\]/);
    expect(() => ca.nanvar(fakeArray([2, 3], "int32"), { out: fakeArray([], "int64") })).toThrow(/the result is float64/);
    expect(() => ca.nanstd(fakeArray([4], "complex64"), { out: fakeArray([], "int32") })).toThrow(/the result is float32/);
    // Past the checks, host-reachable fake memory has no stream: the next thing checked.
    const h = fakeMemoryArray([2, 3], "float32");
    expect(() => ca.nanvar(h, { axis: 0, ddof: 1, out: fakeMemoryArray([3], "float64") })).toThrow(/needs a stream/);
    expect(() => ca.nanstd(fakeMemoryArray([2, 3], "int16"), { keepdims: true })).toThrow(/needs a stream/);
  });
});

describe("any, all, countNonzero", () => {
  it("give NumPy's dtypes", () => {
    for (const [name, d] of Object.entries(fixture.dtypes)) {
      expect(d.any).toBe("bool");
      expect(d.countNonzero).toBe("int64");
      expect(d.argmax, name).toBe("int64");
    }
  });

  it("check axes before anything is queued", () => {
    expect(() => ca.any(fakeArray([2, 3]), { axis: [0, 0] })).toThrow(AxisError);
    expect(() => fakeArray([2]).all({ axis: -2 })).toThrow(AxisError);
    expect(() => ca.countNonzero(fakeArray([2]))).toThrow(/needs a stream/);
  });
});

describe("a reduction's out", () => {
  it("must have the reduced shape and a dtype the result converts to, checked before anything is queued", () => {
    const m = fakeArray([2, 3]);
    expect(() => ca.sum(m, { axis: 0, out: fakeArray([2]) })).toThrow(ShapeMismatchError);
    expect(() => ca.sum(m, { axis: 0, out: fakeArray([2]) })).toThrow(/sum: out has shape \[2\] but reducing \[2, 3\] over axes \[0\] gives \[3\]/);
    expect(() => m.max({ axis: 1, keepdims: true, out: fakeArray([2]) })).toThrow(/gives \[2, 1\]/);
    expect(() => ca.mean(fakeArray([2, 3], "int32"), { out: fakeArray([], "int64") })).toThrow(DTypeError);
    expect(() => ca.mean(fakeArray([2, 3], "int32"), { out: fakeArray([], "int64") })).toThrow(/the result is float64 and cannot be stored in a int64 out/);
    expect(() => ca.var(m, { axis: 1, out: fakeArray([2], "int32") })).toThrow(DTypeError);
    expect(() => ca.any(m, { out: Float32Array.of(0) as never })).toThrow(/any: out is a DeviceArray/);
    expect(() => ca.countNonzero(m, { axis: 0, out: fakeArray([2], "int64") })).toThrow(ShapeMismatchError);
    expect(() => ca.nansum(m, { axis: 1, keepdims: true, out: fakeArray([2]) })).toThrow(/nansum: out has shape \[2\]/);
    expect(() => ca.nanmax(m, { out: fakeArray([], "int32") })).toThrow(DTypeError);
    expect(() => ca.ptp(m, { axis: 0, out: fakeArray([2]) })).toThrow(ShapeMismatchError);
    expect(() => ca.average(m, { out: fakeArray([]) } as never)).toThrow(/average takes no out/);
    // A right out gets past the checks: these arrays (of host-reachable fake memory) have no stream, the next thing checked.
    const h = fakeMemoryArray([2, 3], "float32");
    expect(() => ca.sum(h, { axis: 0, out: fakeMemoryArray([3], "float64") })).toThrow(/needs a stream/);
    expect(() => ca.all(h, { axis: [0, 1], keepdims: true, out: fakeMemoryArray([1, 1], "bool") })).toThrow(/needs a stream/);
  });
});

describe("a reduction's dtype", () => {
  it("is the result's and the accumulation's (float32 for half precision), as NumPy's dtype argument", () => {
    const names = (op: "sum" | "prod" | "mean", i: DTypeName, q: DTypeName): [string, string] => {
      const r = sumDTypes(op, dtypes[i], dtypes[q]);
      return [r.out.name, r.accumulate.name];
    };
    expect(names("sum", "float32", "float64")).toEqual(["float64", "float64"]);
    expect(names("sum", "int8", "int16")).toEqual(["int16", "int16"]);
    expect(names("prod", "float64", "float16")).toEqual(["float16", "float32"]);
    expect(names("mean", "int32", "bfloat16")).toEqual(["bfloat16", "float32"]);
    expect(names("sum", "complex64", "complex128")).toEqual(["complex128", "complex128"]);
    expect(sumDTypes("mean", dtypes.int32, undefined).out.name).toBe("float64");
  });

  it("is refused where it cannot be, before anything is queued", () => {
    const m = fakeArray([2, 3]);
    expect(() => ca.sum(m, { dtype: "bool" })).toThrow(DTypeError);
    expect(() => ca.sum(m, { dtype: "bool" })).toThrow(/use any\(\) or all\(\)/);
    expect(() => ca.mean(fakeArray([2], "complex64"), { dtype: "float64" })).toThrow(/would drop the imaginary parts/);
    expect(() => ca.min(m, { dtype: "float64" } as never)).toThrow(/min takes no dtype/);
    expect(() => ca.ptp(m, { dtype: "float64" } as never)).toThrow(/ptp takes no dtype/);
    expect(() => ca.nanmean(m, { dtype: "int32" })).toThrow(/computed in a float or complex dtype/);
    expect(() => ca.sum(m, { dtype: "nope" as never })).toThrow();
    // The out is checked against the requested dtype: float64 does not go into int64 under same_kind.
    expect(() => ca.sum(fakeArray([2, 3], "int32"), { dtype: "float64", out: fakeArray([], "int64") })).toThrow(/the result is float64/);
    const h = fakeMemoryArray([2, 3], "float32");
    expect(() => h.sum({ dtype: "float64", axis: 1 })).toThrow(/needs a stream/);
    expect(() => ca.nansum(h, { dtype: "int32" })).toThrow(/needs a stream/);
  });
});

describe("norm", () => {
  it("gives NumPy's dtypes", () => {
    for (const [name, d] of Object.entries(fixture.dtypes)) {
      expect(normDTypes(dtypes[name as DTypeName]).out.name, name).toBe(d.norm);
      if (name !== "bool") expect(normDTypes(dtypes[name as DTypeName]).out.name, name).toBe(d.norm1);
    }
  });

  it("plans vector and matrix norms as numpy.linalg.norm", () => {
    expect(normPlan(3, undefined, undefined)).toEqual({ kind: "vector", axes: [0, 1, 2], ord: 2 });
    expect(normPlan(1, 1, undefined)).toEqual({ kind: "vector", axes: [0], ord: 1 });
    expect(normPlan(2, Infinity, undefined)).toEqual({ kind: "matrix", row: 0, col: 1, ord: Infinity });
    expect(normPlan(3, undefined, -1)).toEqual({ kind: "vector", axes: [2], ord: 2 });
    expect(normPlan(3, 0.5, [1])).toEqual({ kind: "vector", axes: [1], ord: 0.5 });
    expect(normPlan(3, undefined, [2, 0])).toEqual({ kind: "matrix", row: 2, col: 0, ord: "fro" });
    expect(normPlan(4, -1, [-1, -2])).toEqual({ kind: "matrix", row: 3, col: 2, ord: -1 });
  });

  it("refuses orders it does not define, and sends SVD norms to linalg", () => {
    expect(() => normPlan(3, 1, undefined)).toThrow(/no axis, and the array has 3 axes/);
    expect(() => normPlan(1, "fro", 0)).toThrow(/not an order of a vector norm/);
    expect(() => normPlan(2, "nuc", [0, 1])).toThrow(/cuda-ts\/array\/linalg/);
    expect(() => normPlan(2, 2, undefined)).toThrow(/svd from cuda-ts\/array\/linalg/);
    expect(() => normPlan(2, -2, [0, 1])).toThrow(ArgumentError);
    expect(() => normPlan(2, 3, [0, 1])).toThrow(/not an order of a matrix norm/);
    expect(() => normPlan(2, 1, [1, 1])).toThrow(/same axis/);
    expect(() => normPlan(2, 1, [0, 1, 2] as never)).toThrow(ArgumentError);
    expect(() => normPlan(2, 1, [0, 5])).toThrow(AxisError);
    expect(() => ca.norm(fakeArray([0]), { ord: Infinity })).toThrow(ShapeMismatchError);
    expect(() => ca.norm(fakeArray([2, 0]), { ord: 1 })).toThrow(ShapeMismatchError);
  });

  it("maps magnitudes in the accumulate type", () => {
    expect(normKernel("sumsq", dtypes.float16).mapExpr).toBe("((float)__half2float(x)) * ((float)__half2float(x))");
    expect(normKernel("sumsq", dtypes.float16).postMapExpr).toBe("y = sqrt(a)");
    expect(normKernel("maxabs", dtypes.complex64).mapExpr).toContain("cuda::std::abs(");
    expect(normKernel("minabs", dtypes.float64).identity).toBe("__longlong_as_double(0x7ff0000000000000LL)");
    expect(normKernel("sumpow", dtypes.int32).params.map((p) => `${p.type} ${p.name}`)).toEqual(["int32 x", "float64 p", "float64 y"]);
  });
});

describe("allclose and arrayEqual", () => {
  it("compare in double (complex<double> where either is complex), integers exactly", () => {
    const close = compareKernel("close", dtypes.float16, dtypes.complex64);
    expect(close.params.map((p) => p.name)).toEqual(["x", "y", "rtol", "atol", "eqn", "z"]);
    const eq = compareKernel("equal", dtypes.int64, dtypes.uint64);
    expect(eq.mapExpr).toBe("_ct_equal(x, y)");
    expect(compareKernel("equal", dtypes.int64, dtypes.uint64)).toBe(eq);
  });

  it("are false at once for different shapes, and check their options", async () => {
    await expect(ca.arrayEqual(fakeArray([2, 3]), fakeArray([3, 2]))).resolves.toBe(false);
    await expect(ca.allclose(fakeArray([2, 3]), fakeArray([3, 2]))).rejects.toThrow(/needs a stream|broadcast/);
    await expect(ca.allclose(fakeArray([2]), fakeArray([2]), { rtol: "x" as never })).rejects.toThrow(/rtol is a number/);
    await expect(ca.allclose(fakeArray([2]), fakeArray([2]), { equalNan: 1 as never })).rejects.toThrow(/equalNan is a boolean/);
    await expect(ca.arrayEqual(fakeArray([2]), fakeArray([2]), { equalNan: 1 as never })).rejects.toThrow(/equalNan is a boolean/);
    // arrayEquiv: shapes that do not broadcast are false at once; ones that do need the GPU.
    await expect(ca.arrayEquiv(fakeArray([2, 3]), fakeArray([2]))).resolves.toBe(false);
    await expect(ca.arrayEquiv(fakeArray([2, 3]), fakeArray([3]))).rejects.toThrow(/needs a stream/);
  });
});

describe("reading back", () => {
  it("decodes each dtype as NumPy's tolist", () => {
    expect(decodeElement(dtypes.bool, new Uint8Array([0, 1]), 1)).toBe(true);
    expect(decodeElement(dtypes.int64, new BigInt64Array([5n, -7n]), 1)).toBe(-7n);
    expect(decodeElement(dtypes.uint64, new BigUint64Array([2n ** 64n - 1n]), 0)).toBe(2n ** 64n - 1n);
    expect(decodeElement(dtypes.float16, new Uint16Array([encodeHalf(1.5)]), 0)).toBe(1.5);
    expect(decodeElement(dtypes.bfloat16, new Uint16Array([encodeBFloat16(-2)]), 0)).toBe(-2);
    expect(decodeElement(dtypes.complex64, new Float32Array([1, 2, 3, 4]), 1)).toEqual([3, 4]);
    expect(decodeElement(dtypes.int8, new Int8Array([-3]), 0)).toBe(-3);
  });

  it("nests by the shape (a scalar for 0-d, empty axes kept)", () => {
    expect(nestHost(dtypes.int32, new Int32Array([1, 2, 3, 4, 5, 6]), [2, 3])).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(nestHost(dtypes.float64, new Float64Array([7]), [])).toBe(7);
    expect(nestHost(dtypes.float64, new Float64Array([]), [2, 0])).toEqual([[], []]);
    expect(nestHost(dtypes.complex128, new Float64Array([1, 2, 3, 4]), [1, 2, 1])).toEqual([[[[1, 2]], [[3, 4]]]]);
  });

  it("item refuses arrays of another size than one", async () => {
    await expect(ca.item(fakeArray([2]))).rejects.toThrow(ShapeMismatchError);
    await expect(fakeArray([2, 3]).item()).rejects.toThrow(/has 6 elements/);
  });
});
