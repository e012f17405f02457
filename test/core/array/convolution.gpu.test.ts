/**
 * `convolve` and `correlate` on a real GPU, read back against NumPy 2.4's results (each NumPy call in a comment):
 * every mode, either input longer, even and odd lengths, complex inputs (correlate conjugates v), integer wrapping,
 * bool, mixed dtypes, float16, NaN and an infinity in the shorter input, a 0-d input, strided views, and inputs long
 * enough to be computed in several chunks. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type DTypeName, type Stream } from "../../../src/index.ts";
import * as ca from "../../../src/array.ts";
import type { NestedData } from "../../../src/core/array/ops/creation.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, readDecoded, type ElementValue } from "../../support/gpu-arrays.ts";


describe.skipIf(!gpu.available)(`convolve and correlate on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const arr = (data: NestedData, dtype?: DTypeName): DeviceArray => ca.asarray(data, { stream, ...(dtype !== undefined ? { dtype } : {}) });
  const cplx = (pairs: readonly (readonly [number, number])[], dtype: "complex64" | "complex128" = "complex128"): DeviceArray =>
    DeviceArray.from((dtype === "complex64" ? Float32Array : Float64Array).from(pairs.flat()), { stream, dtype });
  const read = (x: DeviceArray): [string, number[], ElementValue[]] => readDecoded(x, stream);


  it("every mode, as NumPy", () => {
    using a = arr([1, 2, 3], "float64");
    using v = arr([0, 1, 0.5], "float64");
    // np.convolve([1, 2, 3], [0, 1, 0.5]) → [0, 1, 2.5, 4, 1.5]; "same" → [1, 2.5, 4]; "valid" → [2.5]
    expect(read(ca.convolve(a, v))).toEqual(["float64", [5], [0, 1, 2.5, 4, 1.5]]);
    expect(read(ca.convolve(a, v, { mode: "same" }))).toEqual(["float64", [3], [1, 2.5, 4]]);
    expect(read(ca.convolve(a, v, { mode: "valid" }))).toEqual(["float64", [1], [2.5]]);
    // np.correlate([1, 2, 3], [0, 1, 0.5]) → [3.5]; "same" → [2, 3.5, 3]; "full" → [0.5, 2, 3.5, 3, 0]
    expect(read(ca.correlate(a, v))).toEqual(["float64", [1], [3.5]]);
    expect(read(ca.correlate(a, v, { mode: "same" }))).toEqual(["float64", [3], [2, 3.5, 3]]);
    expect(read(ca.correlate(a, v, { mode: "full" }))).toEqual(["float64", [5], [0.5, 2, 3.5, 3, 0]]);
    // np.convolve([1, 2, 3, 4], [1, 10], "same") → [1, 12, 23, 34]; np.correlate(..., "same") → [10, 21, 32, 43]
    using e = arr([1, 2, 3, 4], "float64");
    using w = arr([1, 10], "float64");
    expect(read(ca.convolve(e, w, { mode: "same" }))).toEqual(["float64", [4], [1, 12, 23, 34]]);
    expect(read(ca.correlate(e, w, { mode: "same" }))).toEqual(["float64", [4], [10, 21, 32, 43]]);
  });

  it("v longer than a: NumPy's swapped inputs", () => {
    using a = arr([1, 2], "float64");
    using v = arr([1, 2, 3, 4, 5], "float64");
    // np.convolve([1, 2], [1, 2, 3, 4, 5], mode) → full [1, 4, 7, 10, 13, 10], same [1, 4, 7, 10, 13], valid [4, 7, 10, 13]
    expect(read(ca.convolve(a, v))).toEqual(["float64", [6], [1, 4, 7, 10, 13, 10]]);
    expect(read(ca.convolve(a, v, { mode: "same" }))).toEqual(["float64", [5], [1, 4, 7, 10, 13]]);
    expect(read(ca.convolve(a, v, { mode: "valid" }))).toEqual(["float64", [4], [4, 7, 10, 13]]);
    // np.correlate([1, 2], [1, 2, 3, 4, 5], mode) → full [5, 14, 11, 8, 5, 2], same [14, 11, 8, 5, 2], valid [14, 11, 8, 5]
    expect(read(ca.correlate(a, v, { mode: "full" }))).toEqual(["float64", [6], [5, 14, 11, 8, 5, 2]]);
    expect(read(ca.correlate(a, v, { mode: "same" }))).toEqual(["float64", [5], [14, 11, 8, 5, 2]]);
    expect(read(ca.correlate(a, v))).toEqual(["float64", [4], [14, 11, 8, 5]]);
  });

  it("complex: correlate conjugates v (also when v is longer), convolve does not", () => {
    using a = cplx([[1, 1], [2, 0], [3, -1]]);
    using v = cplx([[0, 1], [2, 0]]);
    // np.correlate([1+1j, 2, 3-1j], [1j, 2]) → [5-1j, 6-4j]
    expect(read(ca.correlate(a, v))).toEqual(["complex128", [2], [[5, -1], [6, -4]]]);
    // np.convolve([1+1j, 2, 3-1j], [1j, 2]) → [-1+1j, 2+4j, 5+3j, 6-2j]
    expect(read(ca.convolve(a, v))).toEqual(["complex128", [4], [[-1, 1], [2, 4], [5, 3], [6, -2]]]);
    // np.correlate([0, 1, 0.5j], [1+1j, 2, 3-1j, 1j], "full") → [0, -1j, 3.5+1j, 1.5+1.5j, 1, 0.5+0.5j]
    using s = cplx([[0, 0], [1, 0], [0, 0.5]]);
    using l = cplx([[1, 1], [2, 0], [3, -1], [0, 1]]);
    const [dt, shape, values] = read(ca.correlate(s, l, { mode: "full" }));
    expect([dt, shape]).toEqual(["complex128", [6]]);
    expect((values as [number, number][]).map(([re, im]) => [re + 0, im + 0])).toEqual([[0, 0], [0, -1], [3.5, 1], [1.5, 1.5], [1, 0], [0.5, 0.5]]);
    // np.correlate(np.array([1j, 2], dtype=np.complex64), np.array([1, 2-1j, 3], dtype=np.complex64), "same") → complex64 [5+2j, 4+3j, 2]
    using c1 = cplx([[0, 1], [2, 0]], "complex64");
    using c2 = cplx([[1, 0], [2, -1], [3, 0]], "complex64");
    const [dt2, , v2] = read(ca.correlate(c1, c2, { mode: "same" }));
    expect(dt2).toBe("complex64");
    expect((v2 as [number, number][]).map(([re, im]) => [re + 0, im + 0])).toEqual([[5, 2], [4, 3], [2, 0]]);
  });

  it("integers wrap in their dtype; bool is or of ands; dtypes promote", () => {
    // np.convolve(np.array([100, 100], dtype=np.int8), np.array([2, 1], dtype=np.int8)) → int8 [-56, 44, 100]
    using a = arr([100, 100], "int8");
    using v = arr([2, 1], "int8");
    expect(read(ca.convolve(a, v))).toEqual(["int8", [3], [-56, 44, 100]]);
    // np.convolve(np.array([1, 2, 3], dtype=np.int8), np.array([200, 1], dtype=np.uint8)) → int16 [200, 401, 602, 3]
    using i8 = arr([1, 2, 3], "int8");
    using u8 = arr([200, 1], "uint8");
    expect(read(ca.convolve(i8, u8))).toEqual(["int16", [4], [200, 401, 602, 3]]);
    // np.correlate(np.array([True, False, True]), np.array([True, True]), "full") → [True, True, True, True]
    using b1 = arr([true, false, true]);
    using b2 = arr([true, true]);
    expect(read(ca.correlate(b1, b2, { mode: "full" }))).toEqual(["bool", [4], [true, true, true, true]]);
    // np.correlate(np.array([True, False, False, True]), np.array([True, False]), "same") → [False, True, False, False]
    using b3 = arr([true, false, false, true]);
    using b4 = arr([true, false]);
    expect(read(ca.correlate(b3, b4, { mode: "same" }))).toEqual(["bool", [4], [false, true, false, false]]);
    // np.convolve(np.array([1, 2, 3], dtype=np.float32), np.array([1, 2], dtype=np.int32)) → float64 [1, 4, 7, 6]
    using f32 = arr([1, 2, 3], "float32");
    using i32 = arr([1, 2], "int32");
    expect(read(ca.convolve(f32, i32))).toEqual(["float64", [4], [1, 4, 7, 6]]);
    // np.convolve(np.array([1, 2, 3], dtype=np.float16), np.array([0.1, 0.2], dtype=np.float16)) → float16 [0.0999755859375, 0.39990234375, 0.69970703125, 0.599609375]
    using h1 = arr([1, 2, 3], "float16");
    using h2 = arr([0.1, 0.2], "float16");
    expect(read(ca.convolve(h1, h2))).toEqual(["float16", [4], [0.0999755859375, 0.39990234375, 0.69970703125, 0.599609375]]);
  });

  it("NaN where NumPy has it, infinities only where they overlap", () => {
    // np.convolve([1, np.nan, 3, 4], [1, 0.5]) → [1, nan, nan, 5.5, 2]; np.correlate(..., "same") → [0.5, nan, nan, 5]
    using a = arr([1, NaN, 3, 4]);
    using v = arr([1, 0.5]);
    expect(read(ca.convolve(a, v))).toEqual(["float64", [5], [1, NaN, NaN, 5.5, 2]]);
    expect(read(ca.correlate(a, v, { mode: "same" }))).toEqual(["float64", [4], [0.5, NaN, NaN, 5]]);
    // np.convolve([1., 2, 3], [np.inf, 1]) → [inf, inf, inf, 3]; "same" → [inf, inf, inf]
    using b = arr([1, 2, 3], "float64");
    using inf = arr([Infinity, 1]);
    expect(read(ca.convolve(b, inf))).toEqual(["float64", [4], [Infinity, Infinity, Infinity, 3]]);
    expect(read(ca.convolve(b, inf, { mode: "same" }))).toEqual(["float64", [3], [Infinity, Infinity, Infinity]]);
    // np.correlate([1., 2, 3], [np.nan, 1], "same") → [1, nan, nan]
    using nan = arr([NaN, 1]);
    expect(read(ca.correlate(b, nan, { mode: "same" }))).toEqual(["float64", [3], [1, NaN, NaN]]);
  });

  it("a 0-d input (convolve), strided views", () => {
    // np.convolve(np.array(3.), np.array([1., 2])) → [3, 6]
    using z = arr(3, "float64");
    using v = arr([1, 2], "float64");
    expect(read(ca.convolve(z, v))).toEqual(["float64", [2], [3, 6]]);
    // np.correlate(np.array([3., 2, 1])[::-1], np.array([1., 0, -1]), "full") → [-1, -2, -2, 2, 3]
    using r = arr([3, 2, 1], "float64");
    using k = arr([1, 0, -1], "float64");
    expect(read(ca.correlate(ca.flip(r), k, { mode: "full" }))).toEqual(["float64", [5], [-1, -2, -2, 2, 3]]);
    // np.correlate(np.array([1, 2, 3, 4, 5])[::2], np.array([1, 1]), "full") → [1, 4, 8, 5]
    using s = arr([1, 2, 3, 4, 5]);
    using ones = arr([1, 1]);
    expect(read(ca.correlate(s.slice([null, null, 2]), ones, { mode: "full" }))).toEqual(["int64", [4], [1, 4, 8, 5]]);
  });

  it("long inputs, computed in several chunks of rows", () => {
    // np.convolve(np.ones(3000, dtype=np.int32), np.ones(2048, dtype=np.int32)): each output counts its overlap,
    // min(k + 1, 2048, 5047 - k) for k in 0..5046 (the chunks hold 2048 rows of 2048 products each)
    using a = ca.ones([3000], { stream, dtype: "int32" });
    using v = ca.ones([2048], { stream, dtype: "int32" });
    const want = Array.from({ length: 5047 }, (_, k) => Math.min(k + 1, 2048, 5047 - k));
    expect(read(ca.convolve(a, v))).toEqual(["int32", [5047], want]);
    // mode="same" starts at (2048 - 1) // 2 = 1023; "valid" at 2047, 953 values of 2048
    expect(read(ca.convolve(v, a, { mode: "same" }))).toEqual(["int32", [3000], want.slice(1023, 4023)]);
    expect(read(ca.correlate(a, v))).toEqual(["int32", [953], new Array<number>(953).fill(2048)]);
  });
});
