/**
 * frexp, ldexp and modf on a real GPU, read back against NumPy 2.4 (each call in a comment): zeros with their signs,
 * infinities, NaN, subnormal numbers and the largest finite numbers; float16 and int8 inputs (computing in float16);
 * ldexp broadcasting int64 and uint32 exponents past every range, rounding into float16's subnormal numbers, and a
 * round trip. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, encodeHalf, type Stream } from "../../../src/index.ts";
import { frexp, ldexp, modf } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, readDecoded } from "../../support/gpu-arrays.ts";

/** Values compared with Object.is, element by element: -0 is not 0, NaN is NaN. */
function same(got: readonly unknown[], want: readonly number[]): void {
  expect(got.length).toBe(want.length);
  want.forEach((w, k) => expect(Object.is(got[k], w), `element ${k}: ${String(got[k])} against ${w}`).toBe(true));
}

describe.skipIf(!gpu.available)(`frexp, ldexp and modf on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("frexp of float64, float32, float16 and int8", () => {
    using x = DeviceArray.from(Float64Array.from([8, -3, 0.1, 0, -0, Infinity, -Infinity, NaN, 5e-324, 1.7976931348623157e308]), { stream });
    // np.frexp([8, -3, 0.1, 0, -0, inf, -inf, nan, 5e-324, 1.7976931348623157e308])
    const [m, e] = frexp(x);
    using _m = m;
    using _e = e;
    const [md, ms, mv] = readDecoded(m, stream);
    expect([md, ms]).toEqual(["float64", [10]]);
    same(mv as number[], [0.5, -0.75, 0.8, 0, -0, Infinity, -Infinity, NaN, 0.5, 0.9999999999999999]);
    expect(readDecoded(e, stream)).toEqual(["int32", [10], [4, 2, -3, 0, 0, 0, 0, 0, -1073, 1024]]);
    // np.frexp(np.float32([8, -3, 0.1, 1e-45, 3.4028235e38]))
    using x32 = DeviceArray.from(Float32Array.from([8, -3, 0.1, 1e-45, 3.4028235e38]), { stream });
    const [m32, e32] = frexp(x32);
    using _m32 = m32;
    using _e32 = e32;
    expect(readDecoded(m32, stream)).toEqual(["float32", [5], [0.5, -0.75, 0.800000011920929, 0.5, 0.9999999403953552]]);
    expect(readDecoded(e32, stream)).toEqual(["int32", [5], [4, 2, -3, -148, 128]]);
    // np.frexp(np.float16([6e-8, 65504, -0.1, 1])): float16 [0.5, 0.9995, -0.7998, 0.5], [-23, 16, -3, 1]
    using h = DeviceArray.from(Uint16Array.from([6e-8, 65504, -0.1, 1], encodeHalf), { stream, dtype: "float16" });
    const [mh, eh] = frexp(h);
    using _mh = mh;
    using _eh = eh;
    expect(readDecoded(mh, stream)).toEqual(["float16", [4], [0.5, 0.99951171875, -0.7998046875, 0.5]]);
    expect(readDecoded(eh, stream)).toEqual(["int32", [4], [-23, 16, -3, 1]]);
    // np.frexp(np.int8([-128, 0, 100])): float16 [-0.5, 0, 0.78125], [8, 0, 7]
    using i8 = DeviceArray.from(Int8Array.from([-128, 0, 100]), { stream });
    const [mi, ei] = frexp(i8);
    using _mi = mi;
    using _ei = ei;
    expect(readDecoded(mi, stream)).toEqual(["float16", [3], [-0.5, 0, 0.78125]]);
    expect(readDecoded(ei, stream)).toEqual(["int32", [3], [8, 0, 7]]);
  });

  it("modf of float64, float32 and int16, signs kept", () => {
    // np.modf([-2.5, 3.75, 0, -0, inf, -inf, nan, 1e300])
    using x = DeviceArray.from(Float64Array.from([-2.5, 3.75, 0, -0, Infinity, -Infinity, NaN, 1e300]), { stream });
    const [f, n] = modf(x);
    using _f = f;
    using _n = n;
    same(readDecoded(f, stream)[2] as number[], [-0.5, 0.75, 0, -0, 0, -0, NaN, 0]);
    same(readDecoded(n, stream)[2] as number[], [-2, 3, 0, -0, Infinity, -Infinity, NaN, 1e300]);
    // np.modf(np.float32([-2.5, 3.75, 1e30]))
    using x32 = DeviceArray.from(Float32Array.from([-2.5, 3.75, 1e30]), { stream });
    const [f32, n32] = modf(x32);
    using _f32 = f32;
    using _n32 = n32;
    expect(readDecoded(f32, stream)).toEqual(["float32", [3], [-0.5, 0.75, 0]]);
    expect(readDecoded(n32, stream)).toEqual(["float32", [3], [-2, 3, Math.fround(1e30)]]);
    // np.modf(np.int16([-7, 100])): float32 [-0, 0], [-7, 100]
    using i16 = DeviceArray.from(Int16Array.from([-7, 100]), { stream });
    const [fi, ni] = modf(i16);
    using _fi = fi;
    using _ni = ni;
    same(readDecoded(fi, stream)[2] as number[], [-0, 0]);
    expect(readDecoded(ni, stream)).toEqual(["float32", [2], [-7, 100]]);
  });

  it("ldexp: exact, past the ranges, rounding into float16's subnormals, broadcast, scalars, out", () => {
    // np.ldexp([1, 0, inf, nan, -0, 1.5, -1], [3, 1000, -5, 1, 7, -1074, 2000])
    using x = DeviceArray.from(Float64Array.from([1, 0, Infinity, NaN, -0, 1.5, -1]), { stream });
    using n = DeviceArray.from(Int32Array.from([3, 1000, -5, 1, 7, -1074, 2000]), { stream });
    using y = ldexp(x, n);
    same(readDecoded(y, stream)[2] as number[], [8, 0, Infinity, NaN, -0, 1e-323, -Infinity]);
    // np.ldexp(np.float16([1.5]), np.int64([-25, 15, 16])): float16 [5.96e-08, 49152, inf]
    using h = DeviceArray.from(Uint16Array.from([1.5], encodeHalf), { stream, dtype: "float16" });
    using e64 = DeviceArray.from(BigInt64Array.from([-25n, 15n, 16n]), { stream });
    expect(readDecoded(ldexp(h, e64), stream)).toEqual(["float16", [3], [5.960464477539063e-8, 49152, Infinity]]);
    // np.ldexp(np.float32([1, 3]), np.int64([[2**40], [-2**40]])) → [[inf, inf], [0, 0]]
    using f = DeviceArray.from(Float32Array.from([1, 3]), { stream });
    using big = DeviceArray.from(BigInt64Array.from([2n ** 40n, -(2n ** 40n)]), { stream, shape: [2, 1] });
    expect(readDecoded(ldexp(f, big), stream)).toEqual(["float32", [2, 2], [Infinity, Infinity, 0, 0]]);
    // np.ldexp(np.float32([[1], [2]]), np.uint32([1, 2, 3])) → [[2, 4, 8], [4, 8, 16]]; uint32 4294967295 → inf
    using col = DeviceArray.from(Float32Array.from([1, 2]), { stream, shape: [2, 1] });
    using u = DeviceArray.from(Uint32Array.from([1, 2, 3, 4294967295]), { stream });
    expect(readDecoded(ldexp(col, u), stream)).toEqual(["float32", [2, 4], [2, 4, 8, Infinity, 4, 8, 16, Infinity]]);
    // np.ldexp(np.int8([-3, 5]), 2) → float16 [-12, 20]; np.ldexp(0.75, np.int16([1, 2])) → [1.5, 3]
    using i8 = DeviceArray.from(Int8Array.from([-3, 5]), { stream });
    expect(readDecoded(ldexp(i8, 2), stream)).toEqual(["float16", [2], [-12, 20]]);
    using i16 = DeviceArray.from(Int16Array.from([1, 2]), { stream });
    expect(readDecoded(ldexp(0.75, i16), stream)).toEqual(["float64", [2], [1.5, 3]]);
    using out = DeviceArray.zeros([2], "float64", { stream });
    expect(ldexp(i8, 2, { out })).toBe(out);
    expect(Array.from(out.toTypedArraySync() as Float64Array)).toEqual([-12, 20]);
  });

  it("ldexp undoes frexp, bit for bit", () => {
    const values = Float64Array.from({ length: 1000 }, (_, k) => (k % 2 === 0 ? 1 : -1) * Math.exp((k - 500) * 1.4) * (1 + k / 997));
    values[0] = 5e-324;
    values[1] = -Number.MAX_VALUE;
    using x = DeviceArray.from(values, { stream });
    const [m, e] = frexp(x);
    using _m = m;
    using _e = e;
    using back = ldexp(m, e);
    expect(Array.from(back.toTypedArraySync() as Float64Array)).toEqual(Array.from(values));
  });
});
