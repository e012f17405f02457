/**
 * The polynomial functions on a real GPU against NumPy 2.4 (`np.polyval`, `np.polyadd`, `np.polysub`, `np.polymul`,
 * `np.polyder`, `np.polyint`; values and dtypes in the tests). Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { polyadd, polyder, polydiv, polyint, polymul, polysub, polyval } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, readDecoded } from "../../support/gpu-arrays.ts";

describe.skipIf(!gpu.available)(`polynomials on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("polyval: NumPy's dtypes, wrapping integers, float16 rounded each step, complex, scalars, empty p", () => {
    using p = DeviceArray.from(Float32Array.from([3, 0, 1]), { stream });
    using x = DeviceArray.from(Float32Array.from([0, 1.5, 2, -1]), { stream, shape: [2, 2] });
    expect(readDecoded(polyval(p, x), stream)).toEqual(["float32", [2, 2], [1, 7.75, 13, 4]]);
    using i8 = DeviceArray.from(Int8Array.from([1, 2, 3]), { stream });
    expect(readDecoded(polyval([1, 2, 3], i8), stream)).toEqual(["int64", [3], [6, 11, 18]]);
    using p8 = DeviceArray.from(Int8Array.from([1, -2, 3]), { stream });
    using x8 = DeviceArray.from(Int8Array.from([100, -7, 3]), { stream });
    expect(readDecoded(polyval(p8, x8), stream)).toEqual(["int8", [3], [75, 66, 6]]);
    using ph = DeviceArray.from(Float32Array.from([1.5, 2]), { stream }).astype("float16", { stream });
    using xh = DeviceArray.from(Float32Array.from([3.3, 1000]), { stream }).astype("float16", { stream });
    expect(readDecoded(polyval(ph, xh), stream)).toEqual(["float16", [2], [6.953125, 1502]]);
    using pc = DeviceArray.from(Float32Array.from([2, 0, 1, 1]), { stream, dtype: "complex64" });
    using xf = DeviceArray.from(Float32Array.from([3, 2]), { stream });
    expect(readDecoded(polyval(pc, xf), stream)).toEqual(["complex64", [2], [[7, 1], [5, 1]]]);
    using pi = DeviceArray.from(Int32Array.from([1, 2]), { stream });
    expect(readDecoded(polyval(pi, 2.5, { stream }), stream)).toEqual(["float64", [], [4.5]]);
    using empty = DeviceArray.zeros([0], "float32", { stream });
    using x16 = DeviceArray.from(Int16Array.from([1, 2]), { stream });
    expect(readDecoded(polyval(empty, x16), stream)).toEqual(["int16", [2], [0, 0]]);
    using pb = DeviceArray.from(Uint8Array.from([1, 1]), { stream, dtype: "bool" });
    using xb = DeviceArray.from(Uint8Array.from([0, 1]), { stream, dtype: "bool" });
    expect(readDecoded(polyval(pb, xb), stream)).toEqual(["bool", [2], [true, true]]);
    // A strided p: every other coefficient of [1, 9, 0, 9, -2] is x² - 2.
    using wide = DeviceArray.from(Float64Array.from([1, 9, 0, 9, -2]), { stream });
    using xs = DeviceArray.from(Float64Array.from([3, 0.5]), { stream });
    expect(readDecoded(polyval(wide.slice([null, null, 2]), xs), stream)).toEqual(["float64", [2], [7, -1.75]]);
  });

  it("polyval rounds each product and sum on its own, as NumPy (no fused multiply-add)", () => {
    using p = DeviceArray.from(Float64Array.from([1, -2, 1]), { stream });
    using x = DeviceArray.from(Float64Array.from([1 + 2 ** -27]), { stream });
    expect(readDecoded(polyval(p, x), stream)).toEqual(["float64", [1], [0]]);
    // np.polyval([1+2j, -3+0.5j, 0.25-1j], [0.1+0.7j, 3-2j])
    using pc = DeviceArray.from(Float64Array.from([1, 2, -3, 0.5, 0.25, -1]), { stream, dtype: "complex128" });
    using xc = DeviceArray.from(Float64Array.from([0.1, 0.7, 3, -2]), { stream, dtype: "complex128" });
    expect(readDecoded(polyval(pc, xc), stream)).toEqual(["complex128", [2], [[-1.16, -3.8699999999999997], [21.25, 4.5]]]);
  });

  it("polyadd, polysub, polymul: leading zeros, NumPy's dtypes", () => {
    using a = DeviceArray.from(Int8Array.from([1, 2]), { stream });
    using b = DeviceArray.from(Float32Array.from([1, 2, 3]), { stream });
    expect(readDecoded(polyadd(a, b), stream)).toEqual(["float32", [3], [1, 3, 5]]);
    expect(readDecoded(polysub([1, 2, 3], [1], { stream }), stream)).toEqual(["int64", [3], [1, 2, 2]]);
    expect(readDecoded(polymul([1, 2], [1, -2, 3], { stream }), stream)).toEqual(["int64", [4], [1, 0, -1, 6]]);
    // NumPy's polymul trims leading zeros (through poly1d), and an empty polynomial is [0].
    expect(readDecoded(polymul([0, 0, 1, 2], [1, 1], { stream }), stream)).toEqual(["int64", [3], [1, 3, 2]]);
    using none = DeviceArray.zeros([0], "float32", { stream });
    using ones = DeviceArray.from(Float32Array.from([1, 1]), { stream });
    expect(readDecoded(polymul(none, ones), stream)).toEqual(["float32", [2], [0, 0]]);
    expect(readDecoded(polymul([], [1, 2], { stream }), stream)).toEqual(["float64", [2], [0, 0]]);
    // 0-d coefficients count as one, as NumPy's atleast_1d.
    using five = DeviceArray.from(BigInt64Array.from([5n]), { stream, shape: [] });
    expect(readDecoded(polymul(five, [1.5, 2]), stream)).toEqual(["float64", [2], [7.5, 10]]);
    using three = DeviceArray.from(BigInt64Array.from([3n]), { stream, shape: [] });
    expect(readDecoded(polyadd(three, [1, 2]), stream)).toEqual(["int64", [2], [1, 5]]);
  });

  it("polyder and polyint: orders, constants, dtypes as NumPy's", () => {
    using p = DeviceArray.from(Float32Array.from([3, 0, 1, 5]), { stream });
    expect(readDecoded(polyder(p), stream)).toEqual(["float64", [3], [9, 0, 1]]);
    expect(readDecoded(polyder([3, 0, 1, 5], 2, { stream }), stream)).toEqual(["int64", [2], [18, 0]]);
    expect(readDecoded(polyder([3, 0, 1, 5], 0, { stream }), stream)).toEqual(["int64", [4], [3, 0, 1, 5]]);
    expect(readDecoded(polyder([7], 1, { stream }), stream)).toEqual(["int64", [0], []]);
    expect(readDecoded(polyder([3, 0, 1], 5, { stream }), stream)).toEqual(["int64", [0], []]);
    using i32 = DeviceArray.from(Int32Array.from([3, 0, 1]), { stream });
    expect(readDecoded(polyint(i32), stream)).toEqual(["float64", [4], [1, 0, 1, 0]]);
    expect(readDecoded(polyint([3, 0, 1], 2, { k: [1, 2], stream }), stream)).toEqual(["float64", [5], [0.25, 0, 0.5, 1, 2]]);
    expect(readDecoded(polyint([6], 3, { k: 5, stream }), stream)).toEqual(["float64", [4], [1, 2.5, 5, 5]]);
    expect(readDecoded(polyint([], 1, { stream }), stream)).toEqual(["float64", [1], [0]]);
    using c = DeviceArray.from(Float32Array.from([0, 2]), { stream, dtype: "complex64" });
    expect(readDecoded(polyint(c), stream)).toEqual(["complex128", [2], [[0, 2], [0, 0]]]);
  });
  it("polydiv: NumPy's quotient and remainder, in the coefficients' float dtype", () => {
    const [q, r] = polydiv([1, -3, 2, 5], [1, -1], { stream });
    expect(readDecoded(q, stream)).toEqual(["float64", [3], [1, -2, 0]]);
    expect(readDecoded(r, stream)).toEqual(["float64", [1], [5]]);
    using u = DeviceArray.from(Float32Array.from([1, -3, 2, 5]), { stream });
    using v = DeviceArray.from(Float32Array.from([2, -1]), { stream });
    const [q32, r32] = polydiv(u, v);
    expect(readDecoded(q32, stream)).toEqual(["float32", [3], [0.5, -1.25, 0.375]]);
    expect(readDecoded(r32, stream)).toEqual(["float32", [1], [5.375]]);
    const [q0, r0] = polydiv([1, 2], [1, 2, 3], { stream });
    expect(readDecoded(q0, stream)).toEqual(["float64", [1], [0]]);
    expect(readDecoded(r0, stream)).toEqual(["float64", [2], [1, 2]]);
  });
});
