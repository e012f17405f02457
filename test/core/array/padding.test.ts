/**
 * `pad` and `interp` without a GPU: the pad widths and constants as NumPy normalises them, the source coordinate of
 * each mode (against NumPy's results, pads wider than the axis included), the axes the kernel walks (unpadded axes
 * merged, views' strides), a gather mirroring the kernel over the plan (against NumPy's 2-d results, the corners of
 * per-axis constants included), the kernels' source, and the typed errors that come before any stream is used. (The
 * kernels on data are in padding.gpu.test.ts; their syntax in test/core/kernels/parse.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, ArrayLayoutError, DTypeError, DeviceArray, DeviceMismatchError, ShapeMismatchError, type DTypeName } from "../../../src/index.ts";
import { fakeArray } from "../../support/fake-arrays.ts";
import { interp, pad, type PadMode } from "../../../src/array.ts";
import { padConstants, padIndex, padKernel, padPlan, padPreamble, padWidths, type PadPlan } from "../../../src/core/array/ops/padding.ts";
import { interpKernel, interpPreamble } from "../../../src/core/array/ops/interpolation.ts";
import { dtypes } from "../../../src/core/array/dtype.ts";

const arr = (shape: number[], dtype: DTypeName = "float32", deviceId = -1): DeviceArray => fakeArray(shape, dtype, deviceId);

describe("pad's widths and constants, as NumPy normalises them", () => {
  it("takes a count, a pair for every axis, or one pair per axis", () => {
    expect(padWidths(2, 2)).toEqual([[2, 2], [2, 2]]);
    expect(padWidths([3], 2)).toEqual([[3, 3], [3, 3]]);
    expect(padWidths([1, 2], 3)).toEqual([[1, 2], [1, 2], [1, 2]]);
    expect(padWidths([[1, 2]], 2)).toEqual([[1, 2], [1, 2]]);
    expect(padWidths([[1, 2], [3, 4]], 2)).toEqual([[1, 2], [3, 4]]);
    expect(padWidths([[1], [4]], 2)).toEqual([[1, 1], [4, 4]]);
    expect(padWidths(5, 0)).toEqual([]);
  });

  it("refuses widths that are not non-negative integers, or not one pair per axis", () => {
    expect(() => padWidths(-1, 1)).toThrow(ArgumentError);
    expect(() => padWidths(-1, 1)).toThrow("pad: pad widths are non-negative integers, got -1");
    expect(() => padWidths([1, 1.5], 1)).toThrow("got 1.5");
    expect(() => padWidths("2", 1)).toThrow(/padWidth is a non-negative integer, \[before, after\] for every axis, or one \[before, after\] pair per axis, got "2"/);
    expect(() => padWidths([1, 2, 3], 3)).toThrow(ShapeMismatchError);
    expect(() => padWidths([[1, 2], [3, 4], [5, 6]], 2)).toThrow("pad: padWidth has 3 pairs but the array has 2 axes");
    expect(() => padWidths([[1, 2, 3]], 1)).toThrow(ArgumentError);
    expect(() => padWidths([], 1)).toThrow(ArgumentError);
  });

  it("converts constants to the array's dtype as full does, and refuses what it cannot hold", () => {
    expect(padConstants(0, 2, dtypes.float32)).toEqual([[0, 0], [0, 0]]);
    expect(padConstants([[1, 2], [3, 4]], 2, dtypes.float64)).toEqual([[1, 2], [3, 4]]);
    // np.pad(np.array([1, 2], np.int8), 1, constant_values=1.7) → [1, 1, 2, 1]
    expect(padConstants(1.7, 1, dtypes.int8)).toEqual([[1, 1]]);
    expect(padConstants([2, 0], 1, dtypes.bool)).toEqual([[true, false]]);
    expect(padConstants(true, 1, dtypes.float16)).toEqual([[1, 1]]);
    expect(padConstants(5, 1, dtypes.complex64)).toEqual([[5, 5]]);
    expect(padConstants(3n, 1, dtypes.int64)).toEqual([[3n, 3n]]);
    expect(() => padConstants(300, 1, dtypes.int8)).toThrow(DTypeError);
    expect(() => padConstants(Number.NaN, 1, dtypes.int32)).toThrow(DTypeError);
    expect(() => padConstants("0", 1, dtypes.float32)).toThrow(ArgumentError);
  });
});

describe("each mode's source coordinate, against NumPy", () => {
  // np.pad(np.arange(n), (before, after), mode=mode).tolist()
  const table: Record<Exclude<PadMode, "constant">, [number, [number, number], number[]][]> = {
    edge: [
      [1, [3, 2], [0, 0, 0, 0, 0, 0]],
      [2, [5, 4], [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]],
      [3, [7, 7], [0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2]],
      [4, [2, 9], [0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3]],
      [5, [11, 3], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 4, 4, 4]],
    ],
    wrap: [
      [1, [3, 2], [0, 0, 0, 0, 0, 0]],
      [2, [5, 4], [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]],
      [3, [7, 7], [2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0]],
      [4, [2, 9], [2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0]],
      [5, [11, 3], [4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2]],
    ],
    symmetric: [
      [1, [3, 2], [0, 0, 0, 0, 0, 0]],
      [2, [5, 4], [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1]],
      [3, [7, 7], [0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0, 0, 1, 2, 2]],
      [4, [2, 9], [1, 0, 0, 1, 2, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3]],
      [5, [11, 3], [0, 0, 1, 2, 3, 4, 4, 3, 2, 1, 0, 0, 1, 2, 3, 4, 4, 3, 2]],
    ],
    reflect: [
      [1, [3, 2], [0, 0, 0, 0, 0, 0]],
      [2, [5, 4], [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]],
      [3, [7, 7], [1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1]],
      [4, [2, 9], [2, 1, 0, 1, 2, 3, 2, 1, 0, 1, 2, 3, 2, 1, 0]],
      [5, [11, 3], [3, 2, 1, 0, 1, 2, 3, 4, 3, 2, 1, 0, 1, 2, 3, 4, 3, 2, 1]],
    ],
  };
  for (const [mode, rows] of Object.entries(table)) {
    it(mode, () => {
      for (const [n, [b, f], expected] of rows) {
        const got = Array.from({ length: n + b + f }, (_, k) => padIndex(mode as PadMode, n, k - b));
        expect(got, `${mode} n=${n} (${b}, ${f})`).toEqual(expected);
      }
    });
  }
});

/** The kernel's gather over a plan, in TypeScript: the result's elements from `data` (the source's memory span). */
function gather(plan: PadPlan, mode: PadMode, data: readonly number[], constants: readonly (readonly [number, number])[] = []): number[] {
  const size = plan.shape.reduce((x, y) => x * y, 1);
  return Array.from({ length: size }, (_, i) => {
    let r = i;
    let off = plan.base;
    let value: number | undefined;
    for (let d = plan.axes.length - 1; d >= 0; d--) {
      const x = plan.axes[d]!;
      const j = (r % x.out) - x.before;
      r = Math.floor(r / x.out);
      if (mode === "constant" && (j < 0 || j >= x.extent)) value ??= constants[x.axis]![j < 0 ? 0 : 1];
      else off += padIndex(mode, x.extent, j) * x.stride;
    }
    return value ?? data[off]!;
  });
}

describe("the axes the pad kernel walks", () => {
  it("merges unpadded axes that lie one inside the other, and leaves out unpadded extents of 1", () => {
    const p = padPlan([2, 3, 4], [12, 4, 1], [[1, 1], [0, 0], [0, 0]]);
    expect(p.shape).toEqual([4, 3, 4]);
    expect(p.axes).toEqual([
      { extent: 2, stride: 12, before: 1, out: 4, axis: 0 },
      { extent: 12, stride: 1, before: 0, out: 12, axis: 2 },
    ]);
    expect([p.base, p.low, p.span]).toEqual([0, 0, 24]);
    const q = padPlan([1, 5, 1], [5, 1, 1], [[0, 0], [2, 0], [0, 0]]);
    expect(q.axes).toEqual([{ extent: 5, stride: 1, before: 2, out: 7, axis: 1 }]);
    expect(q.shape).toEqual([1, 7, 1]);
    // A transposed view: the unpadded axes do not merge.
    expect(padPlan([4, 3], [1, 4], [[0, 0], [0, 0]]).axes.length).toBe(2);
  });

  it("reads a view with negative strides through the span of its memory", () => {
    // a[::-1, ::2] of a [3, 4] array: element [0, 0] at flat 8, strides [-4, 2].
    const p = padPlan([3, 2], [-4, 2], [[1, 0], [0, 1]]);
    expect([p.low, p.base, p.span]).toEqual([-8, 8, 11]);
  });

  it("gives NumPy's 2-d results, views and per-axis constants included", () => {
    const a = [0, 1, 2, 3, 4, 5]; // np.arange(6).reshape(2, 3)
    const cases: [PadMode, number[][]][] = [
      // np.pad(a, ((3, 1), (2, 4)), mode=mode).tolist()
      ["edge", [[0, 0, 0, 1, 2, 2, 2, 2, 2], [0, 0, 0, 1, 2, 2, 2, 2, 2], [0, 0, 0, 1, 2, 2, 2, 2, 2], [0, 0, 0, 1, 2, 2, 2, 2, 2], [3, 3, 3, 4, 5, 5, 5, 5, 5], [3, 3, 3, 4, 5, 5, 5, 5, 5]]],
      ["wrap", [[4, 5, 3, 4, 5, 3, 4, 5, 3], [1, 2, 0, 1, 2, 0, 1, 2, 0], [4, 5, 3, 4, 5, 3, 4, 5, 3], [1, 2, 0, 1, 2, 0, 1, 2, 0], [4, 5, 3, 4, 5, 3, 4, 5, 3], [1, 2, 0, 1, 2, 0, 1, 2, 0]]],
      ["symmetric", [[4, 3, 3, 4, 5, 5, 4, 3, 3], [4, 3, 3, 4, 5, 5, 4, 3, 3], [1, 0, 0, 1, 2, 2, 1, 0, 0], [1, 0, 0, 1, 2, 2, 1, 0, 0], [4, 3, 3, 4, 5, 5, 4, 3, 3], [4, 3, 3, 4, 5, 5, 4, 3, 3]]],
      ["reflect", [[5, 4, 3, 4, 5, 4, 3, 4, 5], [2, 1, 0, 1, 2, 1, 0, 1, 2], [5, 4, 3, 4, 5, 4, 3, 4, 5], [2, 1, 0, 1, 2, 1, 0, 1, 2], [5, 4, 3, 4, 5, 4, 3, 4, 5], [2, 1, 0, 1, 2, 1, 0, 1, 2]]],
    ];
    for (const [mode, expected] of cases) expect(gather(padPlan([2, 3], [3, 1], [[3, 1], [2, 4]]), mode, a), mode).toEqual(expected.flat());
    // np.pad(a.T, ((1, 2), (0, 3)), mode=mode).tolist(): a.T has strides [1, 3].
    const transposed: [PadMode, number[][]][] = [
      ["edge", [[0, 3, 3, 3, 3], [0, 3, 3, 3, 3], [1, 4, 4, 4, 4], [2, 5, 5, 5, 5], [2, 5, 5, 5, 5], [2, 5, 5, 5, 5]]],
      ["wrap", [[2, 5, 2, 5, 2], [0, 3, 0, 3, 0], [1, 4, 1, 4, 1], [2, 5, 2, 5, 2], [0, 3, 0, 3, 0], [1, 4, 1, 4, 1]]],
      ["symmetric", [[0, 3, 3, 0, 0], [0, 3, 3, 0, 0], [1, 4, 4, 1, 1], [2, 5, 5, 2, 2], [2, 5, 5, 2, 2], [1, 4, 4, 1, 1]]],
      ["reflect", [[1, 4, 1, 4, 1], [0, 3, 0, 3, 0], [1, 4, 1, 4, 1], [2, 5, 2, 5, 2], [1, 4, 1, 4, 1], [0, 3, 0, 3, 0]]],
    ];
    for (const [mode, expected] of transposed) expect(gather(padPlan([3, 2], [1, 3], [[1, 2], [0, 3]]), mode, a), `${mode} of a.T`).toEqual(expected.flat());
    // np.pad(a, ((1, 2), (2, 1)), constant_values=((-1, -2), (-3, -4))).tolist(): the corners take axis 1's values.
    const c = gather(padPlan([2, 3], [3, 1], [[1, 2], [2, 1]]), "constant", a, [[-1, -2], [-3, -4]]);
    expect(c).toEqual([[-3, -3, -1, -1, -1, -4], [-3, -3, 0, 1, 2, -4], [-3, -3, 3, 4, 5, -4], [-3, -3, -2, -2, -2, -4], [-3, -3, -2, -2, -2, -4]].flat());
  });
});

describe("the pad kernel's source", () => {
  it("splits the index from the innermost axis, in 32 or 64 bits, and maps each coordinate by the mode", () => {
    const r = padPreamble("reflect", dtypes.float32, 2, true);
    expect(r).toContain("__device__ __forceinline__ float _ct_pad(const unsigned long long _i, const float* __restrict__ a, const long long base, const long long n0,");
    expect(r).toContain("const unsigned int q = r / (unsigned int)m1;");
    expect(r).toContain("long long j = (long long)(r - q * (unsigned int)m1) - b1;");
    expect(r).toContain("long long j = (long long)r - b0;");
    expect(r).toContain("if (j < 0 || j >= n1) { if (n1 == 1) j = 0; else { const long long p = 2 * (n1 - 1); j %= p; if (j < 0) j += p; if (j >= n1) j = p - j; } }");
    expect(r).toContain("return a[off];");
    expect(padPreamble("symmetric", dtypes.int8, 1, false)).toContain("const long long p = 2 * n0; j %= p; if (j < 0) j += p; if (j >= n0) j = p - 1 - j;");
    expect(padPreamble("wrap", dtypes.int8, 1, false)).toContain("j %= n0; if (j < 0) j += n0;");
    expect(padPreamble("edge", dtypes.int8, 1, false)).toContain("j = j < 0 ? 0 : n0 - 1;");
    expect(padPreamble("edge", dtypes.int8, 3, false)).toContain("unsigned long long r = (unsigned long long)_i;");
  });

  it("writes the constant of the last axis whose pad holds the element", () => {
    const c = padPreamble("constant", dtypes.float16, 2, true);
    expect(c).toContain("const __half lo0, const __half hi0, const __half lo1, const __half hi1) {");
    expect(c).toContain("if (j < 0 || j >= n1) { if (!hit) { hit = true; v = j < 0 ? lo1 : hi1; } }");
    expect(c.indexOf("lo1 : hi1")).toBeLessThan(c.indexOf("lo0 : hi0"));
    expect(c).toContain("return hit ? v : a[off];");
  });

  it("is one ElementwiseKernel per mode, dtype, number of axes and index width", () => {
    const k = padKernel("constant", dtypes.bool, 1, true);
    expect(k.name).toBe("cuda_ts_pad_constant_bool_r1");
    expect(k.params.map((p) => `${p.raw ? "raw " : ""}${p.type} ${p.name}`)).toEqual(["raw bool a", "int64 base", "int64 n0", "int64 s0", "int64 b0", "int64 m0", "bool lo0", "bool hi0", "bool z"]);
    expect(k.operation).toBe("z = _ct_pad(i, a, base, n0, s0, b0, m0, lo0, hi0)");
    expect(padKernel("constant", dtypes.bool, 1, true)).toBe(k);
    expect(padKernel("wrap", dtypes.float64, 2, false).name).toBe("cuda_ts_pad_wrap_float64_r2_i64");
  });
});

describe("pad's errors, before any stream is used", () => {
  it("takes a DeviceArray, options, a mode it knows and constants only for mode constant", () => {
    expect(() => pad([1, 2] as unknown as DeviceArray, 1)).toThrow(TypeError);
    expect(() => pad(arr([3]), 1, 3 as unknown as undefined)).toThrow("pad takes options { mode?, constantValues?, stream? }, got 3");
    expect(() => pad(arr([3]), 1, { mode: "mean" as PadMode })).toThrow(ArgumentError);
    expect(() => pad(arr([3]), 1, { mode: "mean" as PadMode })).toThrow(/mode is "constant", "edge", "reflect", "symmetric", "wrap", got "mean"/);
    expect(() => pad(arr([3]), 1, { mode: "edge", constantValues: 1 })).toThrow('pad: constantValues is for mode "constant", not "edge"; leave it out');
  });

  it("checks the widths and constants against the array", () => {
    expect(() => pad(arr([3, 4]), [[1, 2], [3, 4], [5, 6]])).toThrow(ShapeMismatchError);
    expect(() => pad(arr([3]), -2)).toThrow(ArgumentError);
    expect(() => pad(arr([3], "int8"), 1, { constantValues: 200 })).toThrow(DTypeError);
    expect(() => pad(arr([3, 4]), 1, { constantValues: [[1, 2], [3, 4], [5, 6]] })).toThrow("pad: constantValues has 3 pairs but the array has 2 axes");
  });

  it("refuses to extend an axis of extent 0 in a mode other than constant", () => {
    expect(() => pad(arr([0, 3]), [[1, 0], [0, 0]], { mode: "edge" })).toThrow(ShapeMismatchError);
    expect(() => pad(arr([0, 3]), [[1, 0], [0, 0]], { mode: "wrap" })).toThrow('pad: axis 0 has extent 0, which mode "wrap" cannot extend (it has no element to copy); give it zero widths, or use mode "constant"');
    // Zero widths on the empty axis (or mode constant) pass the checks: these arrays then lack a stream.
    expect(() => pad(arr([0, 3]), [[0, 0], [1, 1]], { mode: "reflect" })).toThrow(/needs a stream/);
    expect(() => pad(arr([0, 3]), 1)).toThrow(/needs a stream/);
  });

  it("refuses layouts of more than 32 axes after merging", () => {
    const a = arr(Array<number>(34).fill(1), "uint8");
    expect(() => pad(a, 1)).toThrow(ArrayLayoutError);
    expect(() => pad(a, [[1, 0], ...Array<[number, number]>(33).fill([0, 0])])).toThrow(/needs a stream/);
  });
});

describe("the interpolation kernel's source", () => {
  it("finds the interval with searchsorted's search on the right, in float64", () => {
    const s = interpPreamble(dtypes.float32, dtypes.float16, dtypes.float64);
    expect(s).toContain("__device__ __forceinline__ long long _ct_search(const float* __restrict__ a, const double v, const long long n) {");
    expect(s).toContain("if (!_ct_before(v, x)) lo = mid + 1;");
    expect(s).toContain("const long long j = _ct_search(xp, x, n) - 1;");
    expect(s).toContain("return (double)(xp[k]);");
    expect(s).toContain("return (double)(__half2float(fp[k]));");
  });

  it("interpolates as NumPy's C code, without fused multiply-adds", () => {
    const s = interpPreamble(dtypes.float64, dtypes.float64, dtypes.float64);
    expect(s).toContain("double y = __dadd_rn(__dmul_rn(slope, x - xj), fj);");
    expect(s).toContain("y = __dadd_rn(__dmul_rn(slope, x - xj1), fj1);");
    expect(s).toContain("if (y != y && fj == fj1) y = fj;");
    expect(s).toContain("return x < x0 ? lval : (x > x0 ? rval : _ct_fp(fp, 0));");
    expect(s).toContain("if (x != x) return x;");
    expect(s).toContain("if (xj == x) return fj;");
    expect(s).toContain("return _ct_line((fj1 - fj) / (xj1 - xj), x, xj, xj1, fj, fj1);");
    const c = interpPreamble(dtypes.float64, dtypes.complex64, dtypes.complex128);
    expect(c).toContain("return cuda::std::complex<double>(fp[k]);");
    expect(c).toContain("if (x != x) return cuda::std::complex<double>(x, 0.0);");
    expect(c).toContain("const double inv = 1.0 / (xj1 - xj);");
    expect(c).toContain("_ct_line((fj1.real() - fj.real()) * inv, x, xj, xj1, fj.real(), fj1.real())");
  });

  it("takes left and right, or reads fp's ends", () => {
    const k = interpKernel(dtypes.float32, dtypes.float64, dtypes.int32, dtypes.float64, false, true);
    expect(k.name).toBe("cuda_ts_interp_float32_float64_int32_r");
    expect(k.params.map((p) => `${p.raw ? "raw " : ""}${p.type} ${p.name}`)).toEqual(["raw float32 xp", "raw float64 fp", "int32 x", "int64 len", "float64 right", "float64 z"]);
    expect(k.operation).toBe("z = _ct_interp((double)(x), xp, fp, len, _ct_fp(fp, 0), right)");
    expect(interpKernel(dtypes.float32, dtypes.float64, dtypes.int32, dtypes.float64, false, true)).toBe(k);
    expect(interpKernel(dtypes.float64, dtypes.complex128, dtypes.float64, dtypes.complex128, true, false).params.map((p) => p.type)).toEqual(["float64", "complex128", "float64", "int64", "complex128", "complex128"]);
  });
});

describe("interp's errors, before any stream is used", () => {
  it("takes 1-d sample points and values of one non-zero length", () => {
    expect(() => interp(arr([4]), arr([2, 3]), arr([6]))).toThrow(ShapeMismatchError);
    expect(() => interp(arr([4]), arr([2, 3]), arr([6]))).toThrow("interp: xp is a 1-d array of sample points, got shape [2, 3]");
    expect(() => interp(arr([4]), arr([3]), arr([3, 1]))).toThrow("interp: fp is a 1-d array of sample values, got shape [3, 1]");
    expect(() => interp(arr([4]), arr([0]), arr([0]))).toThrow("interp: xp is empty; give at least one sample point");
    expect(() => interp(arr([4]), arr([3]), arr([4]))).toThrow("interp: fp has 4 values but xp has 3 points; give one value per point");
    expect(() => interp(arr([4]), [1, 2] as unknown as DeviceArray, arr([2]))).toThrow(TypeError);
    expect(() => interp("x" as unknown as number, arr([2]), arr([2]))).toThrow("interp: x is a DeviceArray or a scalar");
    expect(() => interp(arr([4]), arr([2]), arr([2]), 3 as unknown as undefined)).toThrow(TypeError);
  });

  it("takes real points", () => {
    expect(() => interp(arr([4]), arr([2], "complex64"), arr([2]))).toThrow(DTypeError);
    expect(() => interp(arr([4], "complex128"), arr([2]), arr([2]))).toThrow("interp: x is complex128; interpolation is at real points");
    expect(() => interp([1, 2], arr([2]), arr([2]))).toThrow(DTypeError);
  });

  it("checks left, right and period", () => {
    expect(() => interp(arr([4]), arr([2]), arr([2]), { left: [1, 2] })).toThrow(DTypeError);
    expect(() => interp(arr([4]), arr([2]), arr([2]), { right: "0" as unknown as number })).toThrow("interp: right is a number, got \"0\"");
    expect(() => interp(arr([4]), arr([2]), arr([2], "complex64"), { left: [1, 2], right: 0 })).toThrow(/needs a stream/);
    expect(() => interp(arr([4]), arr([2]), arr([2]), { period: 0 })).toThrow(ArgumentError);
    expect(() => interp(arr([4]), arr([2]), arr([2]), { period: Number.POSITIVE_INFINITY })).toThrow("interp: period is a finite non-zero number, got Infinity");
    // With a period, left and right are ignored (as NumPy's), so not checked.
    expect(() => interp(arr([4]), arr([2]), arr([2]), { period: -360, left: "x" as unknown as number })).toThrow(/needs a stream/);
  });

  it("takes arrays of one device", () => {
    expect(() => interp(arr([4], "float32", 0), arr([2], "float32", 1), arr([2], "float32", 1))).toThrow(DeviceMismatchError);
  });
});
