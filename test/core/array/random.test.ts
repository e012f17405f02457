/**
 * `cuda-ts/array/random` on the CPU: seeds, dtypes and the bounds of `integers`; the arguments of `permutation` and
 * `choice` (the typed errors before any draw); the way the kernels turn random words into values (simulated here on
 * the host: [0, 1) exactly, integers inside their range), and the entry point.
 */
import { describe, expect, it } from "vitest";
import * as random from "../../../src/array-random.ts";
import { AxisError, Buffer, DeviceArray, ShapeMismatchError, UnsupportedError, type DTypeName, type MemoryResource } from "../../../src/index.ts";
import { dtypes } from "../../../src/core/array/dtype.ts";
import { DTypeError } from "../../../src/core/array/errors.ts";
import { choicePlan, countArgument, integerBounds, populationAxis, randomDtype, seedArgument } from "../../../src/core/array/random/plan.ts";
import { fromUniformSpec, integersSpec, uniformExpression } from "../../../src/core/array/math-kernels.ts";

describe("seeds", () => {
  it("takes non-negative integers below 2^64, as numbers or bigints", () => {
    expect(seedArgument(42, "defaultRng")).toBe(42n);
    expect(seedArgument(2n ** 64n - 1n, "defaultRng")).toBe(2n ** 64n - 1n);
    for (const bad of [-1, 1.5, 2n ** 64n, "7", Number.MAX_SAFE_INTEGER + 2]) expect(() => seedArgument(bad, "defaultRng")).toThrow(RangeError);
  });

  it("draws a seed from the platform's crypto source when none is given", () => {
    const a = seedArgument(undefined, "defaultRng");
    const b = seedArgument(undefined, "defaultRng");
    expect(typeof a).toBe("bigint");
    expect(a).not.toBe(b);
  });
});

describe("dtypes", () => {
  it("draws float64 by default, float32 on request, nothing else", () => {
    expect(randomDtype(undefined, "random")).toBe(dtypes.float64);
    expect(randomDtype("float32", "random")).toBe(dtypes.float32);
    expect(randomDtype(dtypes.float64, "random")).toBe(dtypes.float64);
    expect(() => randomDtype("float16", "random")).toThrow(DTypeError);
    expect(() => randomDtype("nope", "random")).toThrow(DTypeError);
  });
});

describe("integers' bounds", () => {
  it("is [low, high), [0, low) with one bound, [low, high] with endpoint", () => {
    expect(integerBounds(3, 10, false, dtypes.int64, "integers")).toEqual({ lo: 3n, span: 7n });
    expect(integerBounds(5, undefined, false, dtypes.int64, "integers")).toEqual({ lo: 0n, span: 5n });
    expect(integerBounds(3, 10, true, dtypes.int32, "integers")).toEqual({ lo: 3n, span: 8n });
    // A negative low in two's complement, as the kernel adds it.
    expect(integerBounds(-2, 2, false, dtypes.int8, "integers")).toEqual({ lo: 2n ** 64n - 2n, span: 4n });
    expect(integerBounds(0, 2, false, dtypes.bool, "integers")).toEqual({ lo: 0n, span: 2n });
  });

  it("refuses empty ranges, ranges outside the dtype, non-integer bounds and float dtypes", () => {
    expect(() => integerBounds(5, 5, false, dtypes.int64, "integers")).toThrow(/empty/);
    expect(() => integerBounds(0, 257, false, dtypes.uint8, "integers")).toThrow(/outside the uint8 range/);
    expect(() => integerBounds(-1, 3, false, dtypes.uint32, "integers")).toThrow(RangeError);
    expect(() => integerBounds(0.5, 3, false, dtypes.int32, "integers")).toThrow(TypeError);
    expect(() => integerBounds(0, 3, false, dtypes.float32, "integers")).toThrow(DTypeError);
    expect(() => integerBounds(-(2n ** 63n), 2n ** 63n, false, dtypes.int64, "integers")).toThrow(/2\^64/);
  });
});

const hostResource: MemoryResource = {
  allocate: () => {
    throw new Error("not used");
  },
  deallocate: () => undefined,
  isDeviceAccessible: true,
  isHostAccessible: true,
  deviceId: -1,
};
/** An array over fake host memory: shapes and dtypes for the checks, nothing to read. */
function arr(shape: number[], dtype: DTypeName = "float64"): DeviceArray {
  return DeviceArray.fromBuffer(Buffer.fromHandle(0x7f00_0000_0000n, 1 << 16, { memoryResource: hostResource }), { dtype, shape });
}

describe("permutation's and choice's arguments", () => {
  it("takes a population size as a non-negative integer, number or bigint", () => {
    expect(countArgument(5, "x", "permutation")).toBe(5);
    expect(countArgument(7n, "x", "permutation")).toBe(7);
    expect(countArgument(0, "x", "permutation")).toBe(0);
    expect(() => countArgument(-1, "x", "permutation")).toThrow(RangeError);
    expect(() => countArgument(-1, "x", "permutation")).toThrow("permutation: x must be non-negative, not -1");
    expect(() => countArgument(2.5, "x", "permutation")).toThrow(TypeError);
    expect(() => countArgument(2.5, "x", "permutation")).toThrow("x is a DeviceArray or a non-negative integer (a safe-integer number or a bigint), not 2.5");
    expect(() => countArgument(2n ** 60n, "x", "permutation")).toThrow(TypeError);
    expect(() => countArgument("3", "x", "permutation")).toThrow('not "3"');
  });

  it("takes an array of at least one axis, and the axis drawn along", () => {
    expect(populationAxis(arr([3, 4]), undefined, "x", "permutation")).toBe(0);
    expect(populationAxis(arr([3, 4]), -1, "x", "permutation")).toBe(1);
    expect(() => populationAxis(arr([3, 4]), 2, "x", "permutation")).toThrow(AxisError);
    expect(() => populationAxis(arr([]), undefined, "x", "permutation")).toThrow(ShapeMismatchError);
    expect(() => populationAxis(arr([]), undefined, "x", "permutation")).toThrow("x is an integer or an array of at least one axis, got a 0-d array");
  });

  it("plans a choice: the population, the shape, replace", () => {
    expect(choicePlan(10, [2, 3], undefined, "choice")).toEqual({ n: 10, axis: 0, shape: [2, 3], count: 6, replace: true, p: undefined });
    expect(choicePlan(10n, undefined, { replace: false }, "choice")).toMatchObject({ n: 10, shape: [], count: 1, replace: false });
    expect(choicePlan(arr([4, 7]), 5, { axis: 1 }, "choice")).toMatchObject({ n: 7, axis: 1, shape: [5], count: 5 });
    const p = arr([7], "float32");
    expect(choicePlan(7, 3, { p }, "choice").p).toBe(p);
    // No samples from nothing is fine; some is not.
    expect(choicePlan(0, [0], undefined, "choice").count).toBe(0);
    expect(() => choicePlan(0, [2], undefined, "choice")).toThrow("choice: a must be positive unless no samples are taken (the size asks for 2)");
    expect(() => choicePlan(arr([0, 3]), 1, undefined, "choice")).toThrow("a cannot be empty unless no samples are taken");
  });

  it("refuses a sample larger than the population without replacement", () => {
    expect(choicePlan(5, [5], { replace: false }, "choice").count).toBe(5);
    expect(() => choicePlan(5, [2, 3], { replace: false }, "choice")).toThrow(RangeError);
    expect(() => choicePlan(5, [2, 3], { replace: false }, "choice")).toThrow("choice: cannot take a larger sample than the population when replace is false (6 from 5)");
    expect(() => choicePlan(arr([3, 2]), 4, { replace: false }, "choice")).toThrow("(4 from 3)");
  });

  it("checks p: a 1-d real float array, one probability per entry; with replacement only", () => {
    expect(() => choicePlan(4, 2, { p: arr([4], "int32") }, "choice")).toThrow(DTypeError);
    expect(() => choicePlan(4, 2, { p: arr([4], "int32") }, "choice")).toThrow("choice: p holds probabilities of a float dtype (float32 or float64), not int32");
    expect(() => choicePlan(4, 2, { p: arr([4], "complex64") }, "choice")).toThrow(DTypeError);
    expect(() => choicePlan(4, 2, { p: arr([5]) }, "choice")).toThrow(ShapeMismatchError);
    expect(() => choicePlan(4, 2, { p: arr([5]) }, "choice")).toThrow("p is 1-d with one probability per entry of a ([4]), got shape [5]");
    expect(() => choicePlan(4, 2, { p: arr([2, 2]) }, "choice")).toThrow("got shape [2, 2]");
    expect(() => choicePlan(4, 2, { p: [0.25, 0.75] }, "choice")).toThrow(TypeError);
    expect(() => choicePlan(4, 2, { p: arr([4]), replace: false }, "choice")).toThrow(UnsupportedError);
    expect(() => choicePlan(4, 2, { p: arr([4]), replace: false }, "choice")).toThrow("without replacement with probabilities p is not supported yet");
  });

  it("checks the options' types", () => {
    expect(() => choicePlan(4, 2, { replace: "no" }, "choice")).toThrow('choice: replace is a boolean, not "no"');
    expect(() => choicePlan(4, 2, { shuffle: 0 }, "choice")).toThrow("shuffle is a boolean");
    expect(() => choicePlan(4, -2, undefined, "choice")).toThrow("a shape is a non-negative integer");
    expect(() => choicePlan(4, 2, 7 as never, "choice")).toThrow("takes its options as an object");
    expect(() => choicePlan(-4, 2, undefined, "choice")).toThrow(RangeError);
  });
});

/** What the kernels compute from random words, in exact arithmetic on the host. */
const unit32 = (w: number): number => Math.fround((w >>> 8) * (1 / 16777216));
const unit64 = (w0: number, w1: number): number => ((w0 >>> 5) * 67108864 + (w1 >>> 6)) * (1 / 9007199254740992);
const integer = (w0: number, w1: number, lo: bigint, span: bigint): bigint => lo + (((BigInt(w0) << 32n) | BigInt(w1)) * span >> 64n);

describe("the kernels' arithmetic, simulated", () => {
  it("makes uniforms on [0, 1): 0 from zero words, below 1 from all-ones words", () => {
    expect(unit32(0)).toBe(0);
    expect(unit32(0xffffffff)).toBeLessThan(1);
    expect(unit32(0xffffffff)).toBe(1 - 2 ** -24);
    expect(unit64(0, 0)).toBe(0);
    expect(unit64(0xffffffff, 0xffffffff)).toBe(1 - 2 ** -53);
    expect(uniformExpression("float32")).toContain("bits[i] >> 8");
    expect(uniformExpression("float64")).toContain("bits[2 * i + 1] >> 6");
  });

  it("maps 64 random bits onto [low, low + span)", () => {
    const words = [0, 1, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff];
    for (const span of [1n, 2n, 7n, 1000n, 2n ** 40n, 2n ** 64n - 1n]) {
      for (const w0 of words) {
        for (const w1 of words) {
          const v = integer(w0, w1, 0n, span);
          expect(v >= 0n && v < span, `span ${span}`).toBe(true);
        }
      }
    }
    expect(integer(0xffffffff, 0xffffffff, 0n, 10n)).toBe(9n);
    expect(integer(0x80000000, 0, 0n, 10n)).toBe(5n);
    // int8 [-2, 2): lo wraps in two's complement and the kernel's cast to signed char takes the low byte.
    const { lo, span } = integerBounds(-2, 2, false, dtypes.int8, "integers");
    const raw = BigInt.asUintN(64, integer(0, 0, lo, span));
    expect(Number(BigInt.asIntN(8, raw))).toBe(-2);
  });

  it("names a kernel per distribution and dtype", () => {
    expect(fromUniformSpec("uniform", "float32").inParams).toBe("raw uint32 bits, float64 p0, float64 p1");
    expect(fromUniformSpec("exponential", "float64").body).toContain("log1p(-u)");
    expect(integersSpec(dtypes.int16).body).toContain("(short)(lo + __umul64hi(x, span))");
  });
});

describe("the entry point", () => {
  it("exports the Generator API and the module-level functions", () => {
    for (const f of ["defaultRng", "seed", "random", "uniform", "normal", "standardNormal", "integers", "permutation", "shuffle", "choice"]) expect(typeof (random as Record<string, unknown>)[f], f).toBe("function");
    for (const m of ["poisson", "permutation", "shuffle", "choice"] as const) expect(typeof random.Generator.prototype[m], m).toBe("function");
  });

  it("needs a stream: defaultRng and the module-level draws refuse options without one", () => {
    expect(() => random.defaultRng(1, {} as never)).toThrow(/stream/);
    expect(() => random.random([2], {} as never)).toThrow(/stream/);
    expect(() => random.permutation(5, {} as never)).toThrow(/stream/);
    expect(() => random.choice(5, [2], {} as never)).toThrow(/stream/);
    expect(() => random.shuffle(arr([3]), {} as never)).toThrow(/stream/);
    expect(() => random.defaultRng(-1, { stream: undefined as never })).toThrow();
  });
});
