/**
 * Creating arrays without a GPU: the dtypes NumPy gives `full`'s values, `arange`'s plan (length, dtype, the first
 * two values and the difference its kernel steps by) and the values that plan gives, `linspace`'s values (the
 * expression its kernel computes), nested lists' shapes and dtypes, the kernels' generated source, and every error
 * that must come before anything reaches the GPU. Expected values are NumPy 2's (test/fixtures/arrays).
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, Buffer, DTypeError, DeviceArray, ShapeMismatchError, dtypes, type DType, type DTypeName } from "../../../src/index.ts";
import * as ca from "../../../src/array.ts";
import {
  arangePlan,
  bandKernel,
  castScalar,
  encodeLeaves,
  linspaceKernel,
  linspaceValue,
  nestedDType,
  nestedShape,
  rangeKernel,
  scalarDType,
  triangleKernel,
  type ArangePlan,
} from "../../../src/core/array/ops/creation.ts";
import { decodeBFloat16, decodeHalf, encodeBFloat16, encodeHalf } from "../../../src/core/array/dtype.ts";
import fixture from "../../fixtures/arrays/creation-statistics.json" with { type: "json" };

const num = (v: number | string): number => (v === "nan" ? NaN : v === "inf" ? Infinity : v === "-inf" ? -Infinity : (v as number));

/** The value of element i of an arange plan, computed as its kernel does (then cast to the dtype). */
function arangeValue(plan: ArangePlan, i: number): number {
  const d = plan.dtype;
  if (plan.compute === "int64") {
    const v = i === 0 ? (plan.v0 as bigint) : i === 1 ? (plan.v1 as bigint) : (plan.v0 as bigint) + BigInt(i) * (plan.delta as bigint);
    if (d.kind === "b") return v !== 0n ? 1 : 0;
    const bits = d.itemsize * 8;
    return Number(d.kind === "i" ? BigInt.asIntN(bits, v) : BigInt.asUintN(bits, v));
  }
  const [v0, v1, delta] = [plan.v0 as number, plan.v1 as number, plan.delta as number];
  const f = plan.compute === "float32" ? Math.fround : (x: number) => x;
  const v = i === 0 ? v0 : i === 1 ? v1 : f(v0 + f(i * delta));
  if (d.name === "float16") return decodeHalf(encodeHalf(v));
  if (d.name === "bfloat16") return decodeBFloat16(encodeBFloat16(v));
  return f(v);
}

/** An array over memory nothing reads (for errors found before any stream is used). */
function fakeArray(shape: number[], dtype: DTypeName = "float32"): DeviceArray {
  const buffer = Buffer.fromHandle(0x7f00_0000_0000n, 1 << 16, { owner: {} });
  return DeviceArray.fromBuffer(buffer, { dtype, shape });
}

describe("full's dtype from its value", () => {
  it("is NumPy's for each kind of value", () => {
    for (const c of fixture.full) expect(scalarDType(c.value).name).toBe(c.dtype);
    expect(scalarDType(3n).name).toBe("int64");
    expect(scalarDType([1, 2]).name).toBe("complex128");
    expect(scalarDType(NaN).name).toBe("float64");
    // A whole number past 2^53 is a double in JavaScript: float64 (np.full(2, 1e20) is float64 too).
    expect(scalarDType(1e20).name).toBe("float64");
    expect(scalarDType(2 ** 53 - 1).name).toBe("int64");
    expect(scalarDType(Infinity).name).toBe("float64");
    expect(() => scalarDType("3" as never)).toThrow(DTypeError);
  });

  it("casts a value to a given dtype as NumPy casts a Python scalar", () => {
    expect(castScalar(3.7, dtypes.int32)).toBe(3);
    expect(castScalar(-3.7, dtypes.int8)).toBe(-3);
    expect(castScalar(2, dtypes.bool)).toBe(true);
    expect(castScalar(0, dtypes.bool)).toBe(false);
    expect(castScalar(true, dtypes.float32)).toBe(1);
    expect(castScalar(5n, dtypes.float64)).toBe(5);
    expect(castScalar(5n, dtypes.int64)).toBe(5n);
    expect(castScalar(2, dtypes.complex64)).toBe(2);
    expect(castScalar([1, 2], dtypes.complex128)).toEqual([1, 2]);
    expect(() => castScalar([1, 2], dtypes.float32)).toThrow(DTypeError);
    expect(() => castScalar(NaN, dtypes.int32)).toThrow(DTypeError);
  });
});

describe("arange", () => {
  it("has NumPy's dtype, length and values", () => {
    for (const c of fixture.arange) {
      const args = c.args as number[];
      const [start, stop, step] = args.length === 1 ? [0, args[0]!, 1] : [args[0]!, args[1]!, args[2] ?? 1];
      const plan = arangePlan(start, stop, step, (c.dtype ?? undefined) as DTypeName | undefined);
      expect(plan.dtype.name, JSON.stringify(c)).toBe(c.out);
      expect(plan.length, JSON.stringify(c)).toBe(c.values.length);
      const got = Array.from({ length: plan.length }, (_, i) => arangeValue(plan, i));
      expect(got, JSON.stringify(c)).toEqual(c.values.map(num));
    }
  });

  it("computes integer ranges exactly, with bigints too", () => {
    const p = arangePlan(2n ** 60n, 2n ** 60n + 10n, 3n);
    expect([p.length, p.dtype.name, p.v0, p.delta]).toEqual([4, "int64", 2n ** 60n, 3n]);
    expect(arangePlan(0, 10, -1).length).toBe(0);
    expect(arangePlan(10, 0, -3).length).toBe(4);
    expect(arangePlan(0, 1, 1, "bool").length).toBe(1);
  });

  it("refuses what NumPy refuses, before any stream is needed", () => {
    expect(() => arangePlan(0, 5, 0)).toThrow(ArgumentError);
    expect(() => arangePlan(0, 5, 0.0)).toThrow(/step is 0/);
    expect(() => arangePlan(0, Infinity, 1)).toThrow(ArgumentError);
    expect(() => arangePlan(0, NaN, 1)).toThrow(ArgumentError);
    expect(() => arangePlan(0, 5, 1, "complex64")).toThrow(DTypeError);
    expect(() => arangePlan(0, 5, 1, "bool")).toThrow(DTypeError);
    expect(() => arangePlan(200, 300, 1, "int8")).toThrow(/outside the int8 range/);
    expect(() => arangePlan(0, 1e300, 1e-300)).toThrow(/too many/);
    expect(() => ca.arange(5, {} as never)).toThrow(/needs a stream/);
    expect(() => (ca.arange as (...a: unknown[]) => unknown)()).toThrow(ArgumentError);
  });

  it("generates a kernel per arithmetic, without fused multiply-adds for floats", () => {
    expect(rangeKernel("float32")).toBe(rangeKernel("float32"));
    expect(rangeKernel("float32").operation).toContain("__fadd_rn(v0, __fmul_rn((float)i, delta))");
    expect(rangeKernel("float64").operation).toContain("__dadd_rn(v0, __dmul_rn((double)i, delta))");
    expect(rangeKernel("int64").operation).toContain("v0 + (long long)i * delta");
  });
});

describe("linspace", () => {
  it("gives NumPy's values (the kernel's expression, in float64, floored for integers)", () => {
    for (const c of fixture.linspace) {
      const d = dtypes[(c.dtype ?? "float64") as DTypeName] as DType;
      expect(d.name).toBe(c.out);
      const got = Array.from({ length: c.num }, (_, i) => {
        const v = linspaceValue(i, c.start, c.stop, c.num, c.endpoint);
        return d.kind === "i" ? Math.floor(v) : d.name === "float32" ? Math.fround(v) : v;
      });
      expect(got, JSON.stringify(c)).toEqual(c.values.map(num));
    }
  });

  it("compiles the same expression, without fused multiply-adds", () => {
    const src = linspaceKernel(false).operation;
    expect(src).toContain("__dadd_rn(");
    expect(src).toContain("__dmul_rn((double)i, _ct_step)");
    expect(src).toContain("_ct_v = stop");
    expect(linspaceKernel(true).operation).toContain("y = (T)floor(_ct_v)");
  });

  it("refuses bad arguments before any stream is needed", () => {
    expect(() => ca.linspace(0, 1, -1, {} as never)).toThrow(/num is a non-negative integer/);
    expect(() => ca.linspace(0, 1, 2.5, {} as never)).toThrow(ArgumentError);
    expect(() => ca.linspace(0, 1, 5, { endpoint: 1 } as never)).toThrow(/endpoint is a boolean/);
    expect(() => ca.linspace(0, 1, 5, { dtype: "complex64" } as never)).toThrow(DTypeError);
    expect(() => ca.linspace(0, 1, 5, {} as never)).toThrow(/needs a stream/);
  });
});

describe("logspace and geomspace", () => {
  it("refuse bad arguments before any stream is needed; num may be left out", () => {
    for (const f of [ca.logspace, ca.geomspace]) {
      expect(() => f(0.5, 1, -1, {} as never)).toThrow(/num is a non-negative integer/);
      expect(() => f(0.5, 1, 2.5, {} as never)).toThrow(ArgumentError);
      expect(() => f("1" as never, 1, 5, {} as never)).toThrow(/start is a number/);
      expect(() => f(1, null as never, {} as never)).toThrow(/stop is a number/);
      expect(() => f(0.5, 1, 5, { endpoint: 1 } as never)).toThrow(/endpoint is a boolean/);
      expect(() => f(0.5, 1, 5, undefined as never)).toThrow(/options last/);
      expect(() => f(0.5, 1, "5" as never, {} as never)).toThrow(/num is a count/);
      expect(() => f(0.5, 1, 5, { dtype: "float17" } as never)).toThrow(DTypeError);
      // Past the checks: the stream is what is missing (with num, and with the default 50).
      expect(() => f(0.5, 1, 5, {} as never)).toThrow(/needs a stream/);
      expect(() => f(0.5, 1, {} as never)).toThrow(/needs a stream/);
    }
    expect(() => ca.logspace(0, 1, 5, { base: "2" } as never)).toThrow(/base is a number/);
    expect(() => ca.logspace(0, 1, 5, { dtype: "complex64" } as never)).toThrow(/needs a stream/); // astype's conversion
    expect(() => ca.geomspace(0, 1, 5, {} as never)).toThrow(ArgumentError);
    expect(() => ca.geomspace(1, -0, 5, {} as never)).toThrow(/cannot include zero \(stop is 0\)/);
    expect(() => ca.geomspace(1, 2, 5, { dtype: "complex128" } as never)).toThrow(DTypeError);
  });
});

describe("eye, tri, tril, triu, diag", () => {
  it("write their band with one kernel each", () => {
    expect(bandKernel("eq").operation).toContain("_ct_c - _ct_r == k");
    expect(bandKernel("le").operation).toContain("_ct_c - _ct_r <= k");
    expect(triangleKernel(true).operation).toContain("_ct_c - _ct_r <= k) ? x : T()");
    expect(triangleKernel(false).operation).toContain("_ct_c - _ct_r >= k) ? x : T()");
  });

  it("check their arguments before any stream is needed", () => {
    expect(() => ca.eye(-1, {} as never)).toThrow(/n is a non-negative integer/);
    expect(() => ca.eye(3, { m: 1.5 } as never)).toThrow(/m is a non-negative integer/);
    expect(() => ca.eye(3, { k: 0.5 } as never)).toThrow(/k is an integer/);
    expect(() => ca.eye(3, { dtype: "float8" } as never)).toThrow(DTypeError);
    expect(() => ca.identity(3, {} as never)).toThrow(/needs a stream/);
    expect(() => ca.tril(fakeArray([4]))).toThrow(ShapeMismatchError);
    expect(() => ca.triu(fakeArray([2, 2]), { k: 0.5 })).toThrow(ArgumentError);
    expect(() => ca.tril(fakeArray([2, 2]), { dtype: "float64" })).toThrow(/keeps the array's dtype/);
    expect(() => ca.diag(fakeArray([2, 2, 2]))).toThrow(/1-d or a 2-d array/);
    expect(() => ca.tril(fakeArray([3, 3]))).toThrow(/needs a stream/);
    expect(() => ca.diag([1, 2] as never)).toThrow(TypeError);
  });
});

describe("vander", () => {
  it("checks its arguments before any stream is needed", () => {
    expect(() => ca.vander([1, 2] as never)).toThrow(TypeError);
    // np.vander(np.array(2.)) and np.vander(np.ones((2, 2))) → ValueError: x must be a one-dimensional array or sequence.
    expect(() => ca.vander(fakeArray([]))).toThrow(/x is a 1-d array, got shape \[\]/);
    expect(() => ca.vander(fakeArray([2, 2]))).toThrow(ShapeMismatchError);
    // np.vander(np.array([1, 2, 3]), -1) → ValueError: negative dimensions are not allowed
    expect(() => ca.vander(fakeArray([3]), { N: -1 })).toThrow(/N \(the number of columns\) is a non-negative integer/);
    expect(() => ca.vander(fakeArray([3]), { N: 1.5 })).toThrow(ArgumentError);
    expect(() => ca.vander(fakeArray([3]), { increasing: 1 as unknown as boolean })).toThrow(/increasing is a boolean/);
    expect(() => ca.vander(fakeArray([3]), 3 as never)).toThrow(ArgumentError);
    expect(() => ca.vander(fakeArray([3]), { N: 0 })).toThrow(/needs a stream/);
    expect(() => ca.vander(fakeArray([0], "int8"))).toThrow(/needs a stream/);
  });
});

describe("empty, zeros, ones, full and the *Like forms", () => {
  it("check shapes, dtypes and values before any stream is needed", () => {
    expect(() => ca.zeros([2, -1], {} as never)).toThrow(ShapeMismatchError);
    expect(() => ca.zeros([2, 2], {} as never)).toThrow(/needs a stream/);
    expect(() => ca.ones(3, { dtype: "nope" } as never)).toThrow(DTypeError);
    expect(() => ca.empty(3, "float32" as never)).toThrow(/options as an object/);
    expect(() => ca.full([2], 300, { dtype: "int8" } as never)).toThrow(DTypeError);
    expect(() => ca.full([2], [1, 2], { dtype: "float32" } as never)).toThrow(DTypeError);
    expect(() => ca.zerosLike([1, 2] as never)).toThrow(TypeError);
    // An array over a caller's memory has no stream: the *Like forms then need one.
    expect(() => ca.onesLike(fakeArray([2, 3]))).toThrow(/needs a stream/);
    expect(() => ca.fullLike(fakeArray([2, 3], "int8"), 1000)).toThrow(DTypeError);
  });
});

describe("asarray from nested lists", () => {
  it("infers the shape and NumPy's dtype", () => {
    expect(nestedShape([[1, 2, 3], [4, 5, 6]])).toEqual({ shape: [2, 3], leaves: [1, 2, 3, 4, 5, 6] });
    expect(nestedShape(7).shape).toEqual([]);
    expect(nestedShape([]).shape).toEqual([0]);
    expect(nestedShape([[], []]).shape).toEqual([2, 0]);
    expect(nestedShape([[[1], [2]]]).shape).toEqual([1, 2, 1]);
    expect(nestedDType([1, 2, 3]).name).toBe("int64");
    expect(nestedDType([1, 2.5]).name).toBe("float64");
    expect(nestedDType([true, false]).name).toBe("bool");
    expect(nestedDType([true, 2]).name).toBe("int64");
    expect(nestedDType([1n, 2]).name).toBe("int64");
    expect(nestedDType([NaN]).name).toBe("float64");
    expect(nestedDType([]).name).toBe("float64");
  });

  it("refuses ragged nesting and other leaves with typed errors", () => {
    expect(() => nestedShape([[1, 2], [3]])).toThrow(ShapeMismatchError);
    expect(() => nestedShape([[1, 2], [3]])).toThrow(/ragged: along axis 1 there are lists of length 2 and 1/);
    expect(() => nestedShape([[1, 2], 3])).toThrow(/some entries are lists and some are scalars/);
    expect(() => nestedShape(["a"] as never)).toThrow(DTypeError);
    expect(() => ca.asarray([[1, 2], [3]], {} as never)).toThrow(ShapeMismatchError);
  });

  it("encodes the leaves in the dtype's host array", () => {
    expect(Array.from(encodeLeaves([1, 2.7, -3.2], dtypes.int16) as Int16Array)).toEqual([1, 2, -3]);
    expect(Array.from(encodeLeaves([1, 2n], dtypes.int64) as BigInt64Array)).toEqual([1n, 2n]);
    expect(Array.from(encodeLeaves([true, 0, 5], dtypes.bool) as Uint8Array)).toEqual([1, 0, 1]);
    expect(Array.from(encodeLeaves([1.5, -2], dtypes.complex64) as Float32Array)).toEqual([1.5, 0, -2, 0]);
    expect(Array.from(encodeLeaves([0.5, 1], dtypes.float16) as Uint16Array)).toEqual([encodeHalf(0.5), encodeHalf(1)]);
    expect(Array.from(encodeLeaves([0.5], dtypes.bfloat16) as Uint16Array)).toEqual([encodeBFloat16(0.5)]);
    expect(() => encodeLeaves([300], dtypes.uint8)).toThrow(/outside the uint8 range/);
    expect(() => encodeLeaves([-1], dtypes.uint64)).toThrow(/outside the uint64 range/);
    expect(() => ca.asarray([1, 2, 3], { shape: [2, 2] } as never)).toThrow(/holds 4 elements but the data has 3/);
  });

  it("returns a DeviceArray itself when no other dtype or shape is asked for", () => {
    const a = fakeArray([2, 3]);
    expect(ca.asarray(a)).toBe(a);
    expect(ca.asarray(a, { dtype: "float32", shape: [2, 3] })).toBe(a);
    expect(() => ca.array(a)).toThrow(/needs a stream/);
    expect(() => ca.asarray(a, { shape: [4] })).toThrow(/holds 4 elements but the array has 6/);
  });
});
