/**
 * `partition`, `argpartition`, `lexsort` and `sortComplex` on a real GPU, read back against NumPy 2.4's results (each
 * NumPy call in a comment): partitions of floats with NaN, integers, bool, float16, uint64 and complex along each axis
 * and flattened, of views, empty and 0-d arrays (ours are the fully sorted axis, a valid partition: where NumPy's
 * order within the parts differs, the comment gives both); lexsort of mixed dtypes (int8, float64 with NaN and ±0.0,
 * bool, complex, uint64 and int64), keys as a list and as a 2-d array (and a transposed view), along each axis, ties
 * (stable), 0-d and empty keys; sortComplex of each kind of dtype with NumPy's result dtype. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { argpartition, lexsort, partition, sortComplex } from "../../../src/array.ts";
import { decodeHalf, encodeHalf } from "../../../src/core/array/dtype.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";

/** dtype, shape and elements (row-major; complex as re, im pairs; float16 decoded) of an array, read back. */
const read = (a: DeviceArray): [string, number[], number[]] => {
  const host = Array.from(a.toTypedArraySync() as ArrayLike<number | bigint>, (v) => Number(v));
  return [a.dtype.name, [...a.shape], a.dtype.name === "float16" ? host.map(decodeHalf) : host];
};
/** The elements of a 64-bit integer array, read back as bigints. */
const bigints = (a: DeviceArray): bigint[] => Array.from(a.toTypedArraySync() as ArrayLike<bigint>);

describe.skipIf(!gpu.available)(`partition, argpartition, lexsort and sortComplex on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("partition and argpartition of floats: the kth in place, NaN last", () => {
    // x = np.array([3, 4, 2, 1, 7, nan, 0], np.float32)
    using x = DeviceArray.from(Float32Array.from([3, 4, 2, 1, 7, NaN, 0]), { stream });
    // np.partition(x, 2) → [0, 1, 2, 3, 4, 7, nan]
    using p = partition(x, 2);
    expect(read(p)).toEqual(["float32", [7], [0, 1, 2, 3, 4, 7, NaN]]);
    // np.partition(x, [0, -1]) → [0, 4, 2, 1, 7, 3, nan]; ours is np.sort(x), the same 0 first and nan last
    using q = partition(x, [0, -1]);
    expect(read(q)).toEqual(["float32", [7], [0, 1, 2, 3, 4, 7, NaN]]);
    // np.argpartition(x, 2) → [3, 6, 2, 0, 1, 5, 4] (index 2 at kth 2); ours is np.argsort(x, kind="stable") → [6, 3, 2, 0, 1, 4, 5]
    using i = argpartition(x, 2);
    expect(read(i)).toEqual(["int64", [7], [6, 3, 2, 0, 1, 4, 5]]);
    // np.argpartition(x, -1) → [3, 6, 1, 0, 2, 4, 5] (the NaN's index 5 last, as ours)
    using j = argpartition(x, -1);
    expect(read(j)).toEqual(["int64", [7], [6, 3, 2, 0, 1, 4, 5]]);
    // h = np.array([1.5, -2, nan, 0.5], np.float16): np.partition(h, -1) → [-2, 0.5, 1.5, nan]; np.argpartition(h, [0, 3]) → [1, 3, 0, 2]
    using h = DeviceArray.from(Uint16Array.from([1.5, -2, NaN, 0.5].map(encodeHalf)), { stream, dtype: "float16" });
    using hp = partition(h, -1);
    expect(read(hp)).toEqual(["float16", [4], [-2, 0.5, 1.5, NaN]]);
    using hi = argpartition(h, [0, 3]);
    expect(read(hi)).toEqual(["int64", [4], [1, 3, 0, 2]]);
  });

  it("partition and argpartition along each axis and flattened", () => {
    // m = np.array([[5, 1, 4], [2, 8, 2]], np.int32)
    using m = DeviceArray.from(Int32Array.from([5, 1, 4, 2, 8, 2]), { stream, shape: [2, 3] });
    // np.partition(m, [0, -1], axis=0) → [[2, 1, 2], [5, 8, 4]]; np.argpartition(m, 1, axis=0) → [[1, 0, 1], [0, 1, 0]]
    using p0 = partition(m, [0, -1], { axis: 0 });
    expect(read(p0)).toEqual(["int32", [2, 3], [2, 1, 2, 5, 8, 4]]);
    using i0 = argpartition(m, 1, { axis: 0 });
    expect(read(i0)).toEqual(["int64", [2, 3], [1, 0, 1, 0, 1, 0]]);
    // np.partition(m, [0, -1], axis=1) → [[1, 4, 5], [2, 2, 8]] (axis=-1 the same); np.argpartition(m, 1, axis=1) → [[1, 2, 0], [0, 2, 1]]
    using p1 = partition(m, [0, -1], { axis: 1 });
    expect(read(p1)).toEqual(["int32", [2, 3], [1, 4, 5, 2, 2, 8]]);
    using p2 = partition(m, [0, -1]);
    expect(read(p2)).toEqual(["int32", [2, 3], [1, 4, 5, 2, 2, 8]]);
    using i1 = argpartition(m, 1, { axis: -1 });
    expect(read(i1)).toEqual(["int64", [2, 3], [1, 2, 0, 0, 2, 1]]);
    // np.partition(m, [0, -1], axis=None) → [1, 2, 2, 4, 5, 8]; np.argpartition(m, 1, axis=None) → [1, 3, 5, 2, 0, 4]
    using pf = partition(m, [0, -1], { axis: null });
    expect(read(pf)).toEqual(["int32", [6], [1, 2, 2, 4, 5, 8]]);
    using iff = argpartition(m, 1, { axis: null });
    expect(read(iff)).toEqual(["int64", [6], [1, 3, 5, 2, 0, 4]]);
    // w = np.array([[3, -2, 1, 0.5], [7, -6, 5, -4], [11, -10, 9, -8]]); a transposed view:
    using w = DeviceArray.from(Float64Array.from([3, -2, 1, 0.5, 7, -6, 5, -4, 11, -10, 9, -8]), { stream, shape: [3, 4] });
    // np.partition(w.T, 1, axis=0) → [[-2, -6, -10], [0.5, -4, -8], [1, 5, 9], [3, 7, 11]]
    using pw = partition(w.T, 1, { axis: 0 });
    expect(read(pw)).toEqual(["float64", [4, 3], [-2, -6, -10, 0.5, -4, -8, 1, 5, 9, 3, 7, 11]]);
    // np.argpartition(w.T, 1, axis=0) → [[1, 1, 1], [3, 3, 3], [2, 2, 2], [0, 0, 0]]
    using iw = argpartition(w.T, 1, { axis: 0 });
    expect(read(iw)).toEqual(["int64", [4, 3], [1, 1, 1, 3, 3, 3, 2, 2, 2, 0, 0, 0]]);
    // np.argpartition(w.T, [0, -1], axis=1) → [[0, 1, 2], [2, 1, 0], [0, 1, 2], [2, 1, 0]]
    using iw1 = argpartition(w.T, [0, -1], { axis: 1 });
    expect(read(iw1)).toEqual(["int64", [4, 3], [0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0]]);
  });

  it("argpartition keeps ties in their order; bool, uint64 and complex partition", () => {
    // t = np.array([2, 1, 2, 1, 2]): np.argpartition(t, 1) → [1, 3, 0, 2, 4]; np.argpartition(t, [1, 3]) → [1, 3, 2, 0, 4], ours stable [1, 3, 0, 2, 4]
    using t = DeviceArray.from(BigInt64Array.from([2n, 1n, 2n, 1n, 2n]), { stream });
    using t1 = argpartition(t, 1);
    expect(read(t1)).toEqual(["int64", [5], [1, 3, 0, 2, 4]]);
    using t2 = argpartition(t, [1, 3]);
    expect(read(t2)).toEqual(["int64", [5], [1, 3, 0, 2, 4]]);
    // b = np.array([True, False, True, False]): np.partition(b, 1) → [False, False, True, True]; np.argpartition(b, 1) → [1, 3, 2, 0], ours [1, 3, 0, 2]
    using b = DeviceArray.from(Uint8Array.from([1, 0, 1, 0]), { stream, dtype: "bool" });
    using bp = partition(b, 1);
    expect(read(bp)).toEqual(["bool", [4], [0, 0, 1, 1]]);
    using bi = argpartition(b, 1);
    expect(read(bi)).toEqual(["int64", [4], [1, 3, 0, 2]]);
    // u = np.array([2**63 + 5, 3, 2**64 - 1, 0], np.uint64): np.partition(u, 1) → [0, 3, 2**63 + 5, 2**64 - 1]; np.argpartition(u, 1) → [3, 1, 0, 2]
    using u = DeviceArray.from(BigUint64Array.from([2n ** 63n + 5n, 3n, 2n ** 64n - 1n, 0n]), { stream });
    using up = partition(u, 1);
    expect(up.dtype.name).toBe("uint64");
    expect(bigints(up)).toEqual([0n, 3n, 2n ** 63n + 5n, 2n ** 64n - 1n]);
    using ui = argpartition(u, 1);
    expect(read(ui)).toEqual(["int64", [4], [3, 1, 0, 2]]);
    // z = np.array([1+1j, 1-1j, complex(nan, 0), 2j], np.complex64)
    using z = DeviceArray.from(Float32Array.from([1, 1, 1, -1, NaN, 0, 0, 2]), { stream, dtype: "complex64" });
    // np.partition(z, 1) → [2j, 1-1j, nan+0j, 1+1j]; ours is np.sort(z) → [2j, 1-1j, 1+1j, nan+0j]
    using zp = partition(z, 1);
    expect(read(zp)).toEqual(["complex64", [4], [0, 2, 1, -1, 1, 1, NaN, 0]]);
    // np.argpartition(z, 1) → [3, 1, 2, 0]; ours is np.argsort(z, kind="stable") → [3, 1, 0, 2]
    using zi = argpartition(z, 1);
    expect(read(zi)).toEqual(["int64", [4], [3, 1, 0, 2]]);
  });

  it("partition and argpartition of empty and 0-d arrays", () => {
    using e = DeviceArray.empty([2, 0], "float32", { stream });
    // np.partition(np.zeros((2, 0), np.float32), 0) → float32, shape (2, 0)
    using ep = partition(e, 0);
    expect(read(ep)).toEqual(["float32", [2, 0], []]);
    using f = DeviceArray.empty([0, 3], "float32", { stream });
    // np.argpartition(np.zeros((0, 3), np.float32), 5) → int64, shape (0, 3); axis=None, kth 7 → int64, shape (0,)
    using fi = argpartition(f, 5);
    expect(read(fi)).toEqual(["int64", [0, 3], []]);
    using ff = argpartition(f, 7, { axis: null });
    expect(read(ff)).toEqual(["int64", [0], []]);
    using s = DeviceArray.from(Int16Array.from([5]), { stream, shape: [] });
    // np.partition(np.array(5, np.int16), 0, axis=None) → int16 [5]
    using sp = partition(s, 0, { axis: null });
    expect(read(sp)).toEqual(["int16", [1], [5]]);
    // np.argpartition(np.array(5, np.int16), 0) → [0]; np.argpartition(np.array(5.0), -1, axis=0) → [0]
    using si = argpartition(s, 0);
    expect(read(si)).toEqual(["int64", [1], [0]]);
    using d = DeviceArray.from(Float64Array.from([5]), { stream, shape: [] });
    using di = argpartition(d, -1, { axis: 0 });
    expect(read(di)).toEqual(["int64", [1], [0]]);
  });

  it("lexsort by the last key first, of mixed dtypes, stable", () => {
    // a = [1, 5, 1, 4, 3, 4, 4]; b = [9, 4, 0, 4, 0, 2, 1]: np.lexsort((b, a)) → [2, 0, 4, 6, 5, 3, 1]
    using a = DeviceArray.from(BigInt64Array.from([1n, 5n, 1n, 4n, 3n, 4n, 4n]), { stream });
    using b = DeviceArray.from(Int32Array.from([9, 4, 0, 4, 0, 2, 1]), { stream });
    using ab = lexsort([b, a]);
    expect(read(ab)).toEqual(["int64", [7], [2, 0, 4, 6, 5, 3, 1]]);
    // k1 = np.array([3, -1, 3, -1, 2, 2], np.int8); k2 = np.array([0.5, nan, 0.5, -0.0, nan, 0.0]); k3 = np.array([True, False, True, False, True, False])
    using k1 = DeviceArray.from(Int8Array.from([3, -1, 3, -1, 2, 2]), { stream });
    using k2 = DeviceArray.from(Float64Array.from([0.5, NaN, 0.5, -0, NaN, 0]), { stream });
    using k3 = DeviceArray.from(Uint8Array.from([1, 0, 1, 0, 1, 0]), { stream, dtype: "bool" });
    // np.lexsort([k1, k2]) → [3, 5, 0, 2, 1, 4] (-0.0 equals 0.0, NaN last)
    using r12 = lexsort([k1, k2]);
    expect(read(r12)).toEqual(["int64", [6], [3, 5, 0, 2, 1, 4]]);
    // np.lexsort([k1, k2, k3]) → [3, 5, 1, 0, 2, 4]
    using r123 = lexsort([k1, k2, k3]);
    expect(read(r123)).toEqual(["int64", [6], [3, 5, 1, 0, 2, 4]]);
    // np.lexsort([k3, k1]) → [1, 3, 5, 4, 0, 2]
    using r31 = lexsort([k3, k1]);
    expect(read(r31)).toEqual(["int64", [6], [1, 3, 5, 4, 0, 2]]);
    // np.lexsort([k2]) → [3, 5, 0, 2, 1, 4]
    using r2 = lexsort([k2]);
    expect(read(r2)).toEqual(["int64", [6], [3, 5, 0, 2, 1, 4]]);
    // np.lexsort([np.zeros(5, np.int16), np.ones(5, np.float32)]) → [0, 1, 2, 3, 4] (all ties)
    using z16 = DeviceArray.from(new Int16Array(5), { stream });
    using o32 = DeviceArray.from(new Float32Array(5).fill(1), { stream });
    using ties = lexsort([z16, o32]);
    expect(read(ties)).toEqual(["int64", [5], [0, 1, 2, 3, 4]]);
    // z = np.array([1+1j, 1-1j, complex(nan, 0), 0j, 1+1j]); s = np.array([1, 1, 0, 0, 0]): np.lexsort([z, s]) → [3, 4, 2, 1, 0]
    using z = DeviceArray.from(Float64Array.from([1, 1, 1, -1, NaN, 0, 0, 0, 1, 1]), { stream, dtype: "complex128" });
    using s = DeviceArray.from(BigInt64Array.from([1n, 1n, 0n, 0n, 0n]), { stream });
    using zs = lexsort([z, s]);
    expect(read(zs)).toEqual(["int64", [5], [3, 4, 2, 1, 0]]);
    // u = np.array([2**64 - 1, 1, 2**63, 1], np.uint64); i = np.array([-5, 2**62, 7, -2**63])
    using u = DeviceArray.from(BigUint64Array.from([2n ** 64n - 1n, 1n, 2n ** 63n, 1n]), { stream });
    using i = DeviceArray.from(BigInt64Array.from([-5n, 2n ** 62n, 7n, -(2n ** 63n)]), { stream });
    using zero = DeviceArray.from(new Int32Array(4), { stream });
    // np.lexsort([u, np.array([0, 0, 0, 0])]) → [1, 3, 2, 0]; np.lexsort([i, u]) → [3, 1, 2, 0]
    using uz = lexsort([u, zero]);
    expect(read(uz)).toEqual(["int64", [4], [1, 3, 2, 0]]);
    using iu = lexsort([i, u]);
    expect(read(iu)).toEqual(["int64", [4], [3, 1, 2, 0]]);
  });

  it("lexsort of keys as the rows of an array, along each axis, 0-d and empty", () => {
    // np.lexsort(np.array([[2, 1, 2, 1], [0, 0, 1, 1]], np.int32)) → [1, 0, 3, 2]
    using k = DeviceArray.from(Int32Array.from([2, 1, 2, 1, 0, 0, 1, 1]), { stream, shape: [2, 4] });
    using rk = lexsort(k);
    expect(read(rk)).toEqual(["int64", [4], [1, 0, 3, 2]]);
    // np.lexsort(np.array([[3, 1], [1, 1], [2, 0]], np.int16).T) → [2, 1, 0] (the keys strided views)
    using k2 = DeviceArray.from(Int16Array.from([3, 1, 1, 1, 2, 0]), { stream, shape: [3, 2] });
    using rk2 = lexsort(k2.T);
    expect(read(rk2)).toEqual(["int64", [3], [2, 1, 0]]);
    // A = np.array([[1, 0, 1], [0, 0, 1], [1, 1, 0]], np.uint8); B = np.array([[5, 5, 1], [2, 9, 9], [7, 7, 7]], np.float32)
    using A = DeviceArray.from(Uint8Array.from([1, 0, 1, 0, 0, 1, 1, 1, 0]), { stream, shape: [3, 3] });
    using B = DeviceArray.from(Float32Array.from([5, 5, 1, 2, 9, 9, 7, 7, 7]), { stream, shape: [3, 3] });
    // np.lexsort([B, A]) → [[1, 2, 0], [0, 1, 2], [2, 0, 1]]
    using last = lexsort([B, A]);
    expect(read(last)).toEqual(["int64", [3, 3], [1, 2, 0, 0, 1, 2, 2, 0, 1]]);
    // np.lexsort([B, A], axis=0) → [[1, 0, 2], [0, 1, 0], [2, 2, 1]]
    using first = lexsort([B, A], { axis: 0 });
    expect(read(first)).toEqual(["int64", [3, 3], [1, 0, 2, 0, 1, 0, 2, 2, 1]]);
    // np.lexsort([np.array(5)]) → np.int64(0), 0-d; np.lexsort(np.array([5, 6])) → np.int64(0)
    using p = DeviceArray.from(BigInt64Array.from([5n]), { stream, shape: [] });
    using rp = lexsort([p]);
    expect(read(rp)).toEqual(["int64", [], [0]]);
    using pair = DeviceArray.from(BigInt64Array.from([5n, 6n]), { stream });
    using rpair = lexsort(pair, { axis: 0 });
    expect(read(rpair)).toEqual(["int64", [], [0]]);
    // np.lexsort([np.zeros(0), np.zeros(0, np.int8)]) → int64 []
    using e1 = DeviceArray.empty([0], "float64", { stream });
    using e2 = DeviceArray.empty([0], "int8", { stream });
    using re = lexsort([e1, e2]);
    expect(read(re)).toEqual(["int64", [0], []]);
  });

  it("sortComplex: sorted along the last axis, NumPy's complex dtype", () => {
    // np.sort_complex(np.array([3, -1, 2, -128], np.int8)) → complex64 [-128, -1, 2, 3]
    using i8 = DeviceArray.from(Int8Array.from([3, -1, 2, -128]), { stream });
    using r8 = sortComplex(i8);
    expect(read(r8)).toEqual(["complex64", [4], [-128, 0, -1, 0, 2, 0, 3, 0]]);
    // np.sort_complex(np.array([3, nan, 1, -inf], np.float32)) → complex128 [-inf, 1, 3, nan]
    using f32 = DeviceArray.from(Float32Array.from([3, NaN, 1, -Infinity]), { stream });
    using r32 = sortComplex(f32);
    expect(read(r32)).toEqual(["complex128", [4], [-Infinity, 0, 1, 0, 3, 0, NaN, 0]]);
    // np.sort_complex(np.array([complex(1, nan), complex(nan, 0), 1-1j, 0j, complex(nan, nan), 2j, 1+1j], np.complex64))
    //   → complex64 [0, 2j, 1-1j, 1+1j, 1+nanj, nan+0j, nan+nanj]
    using c64 = DeviceArray.from(Float32Array.from([1, NaN, NaN, 0, 1, -1, 0, 0, NaN, NaN, 0, 2, 1, 1]), { stream, dtype: "complex64" });
    using rc = sortComplex(c64);
    expect(read(rc)).toEqual(["complex64", [7], [0, 0, 0, 2, 1, -1, 1, 1, 1, NaN, NaN, 0, NaN, NaN]]);
    // np.sort_complex(np.array([[3, 1, 2], [0, -5, 9]], np.int32)) → complex128 [[1, 2, 3], [-5, 0, 9]]
    using m = DeviceArray.from(Int32Array.from([3, 1, 2, 0, -5, 9]), { stream, shape: [2, 3] });
    using rm = sortComplex(m);
    expect(read(rm)).toEqual(["complex128", [2, 3], [1, 0, 2, 0, 3, 0, -5, 0, 0, 0, 9, 0]]);
    // np.sort_complex(np.array([[2, 1], [4, 3]], np.float64).T) → complex128 [[2, 4], [1, 3]]
    using v = DeviceArray.from(Float64Array.from([2, 1, 4, 3]), { stream, shape: [2, 2] });
    using rv = sortComplex(v.T);
    expect(read(rv)).toEqual(["complex128", [2, 2], [2, 0, 4, 0, 1, 0, 3, 0]]);
    // np.sort_complex(np.array([True, False, True])) → complex128 [0, 1, 1]
    using b = DeviceArray.from(Uint8Array.from([1, 0, 1]), { stream, dtype: "bool" });
    using rb = sortComplex(b);
    expect(read(rb)).toEqual(["complex128", [3], [0, 0, 1, 0, 1, 0]]);
    // np.sort_complex(np.array([1.5, -0.25, nan], np.float16)) → complex128 [-0.25, 1.5, nan]
    using h = DeviceArray.from(Uint16Array.from([1.5, -0.25, NaN].map(encodeHalf)), { stream, dtype: "float16" });
    using rh = sortComplex(h);
    expect(read(rh)).toEqual(["complex128", [3], [-0.25, 0, 1.5, 0, NaN, 0]]);
    // np.sort_complex(np.array([65535, 7, 300], np.uint16)) → complex64 [7, 300, 65535]
    using u16 = DeviceArray.from(Uint16Array.from([65535, 7, 300]), { stream });
    using ru = sortComplex(u16);
    expect(read(ru)).toEqual(["complex64", [3], [7, 0, 300, 0, 65535, 0]]);
    // np.sort_complex(np.array([2**63 - 1, -3])) → complex128 [-3, 9.223372036854776e18]
    using i64 = DeviceArray.from(BigInt64Array.from([2n ** 63n - 1n, -3n]), { stream });
    using ri = sortComplex(i64);
    expect(read(ri)).toEqual(["complex128", [2], [-3, 0, 2 ** 63, 0]]);
    // np.sort_complex(np.zeros((2, 0), np.float32)) → complex128, shape (2, 0)
    using e = DeviceArray.empty([2, 0], "float32", { stream });
    using re = sortComplex(e);
    expect(read(re)).toEqual(["complex128", [2, 0], []]);
  });
});
