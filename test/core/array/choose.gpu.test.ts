/**
 * choose on a real GPU, read back against NumPy 2.4's results (each NumPy call in a comment): the three modes, an
 * entry out of range found on the device (an IndexError at the next read), broadcasting, a choices array, the
 * promoted dtypes (weak scalars, a bool index array), a transposed view, out (converted, and one that is a choice),
 * 0-d and empty arrays. Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, DeviceArray, IndexError, type Stream } from "../../../src/index.ts";
import { choose } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";

const nums = (a: ArrayLike<number | bigint>): number[] => Array.from(a as ArrayLike<number>, (v) => Number(v));
/** dtype, shape and elements (row-major) of an array, read back. */
const read = (a: DeviceArray): [string, number[], number[]] => [a.dtype.name, [...a.shape], nums(a.toTypedArraySync())];

describe.skipIf(!gpu.available)(`choose on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let c: DeviceArray[];

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    // c = [np.array([0, 1, 2, 3]), np.array([10, 11, 12, 13]), np.array([20, 21, 22, 23]), np.array([30, 31, 32, 33])]
    c = [0, 10, 20, 30].map((b) => DeviceArray.from(BigInt64Array.from([0, 1, 2, 3], (j) => BigInt(b + j)), { stream }));
  });

  afterAll(() => {
    for (const x of c ?? []) x.close();
    stream?.close();
  });

  const ints = (values: number[], type: "int8" | "int16" | "int32" | "int64" = "int64", shape?: number[]): DeviceArray => {
    const data = type === "int64" ? BigInt64Array.from(values, BigInt) : type === "int32" ? Int32Array.from(values) : type === "int16" ? Int16Array.from(values) : Int8Array.from(values);
    return DeviceArray.from(data, { stream, ...(shape !== undefined ? { shape } : {}) });
  };

  it("raise (in range), clip and wrap", () => {
    using k = ints([2, 3, 1, 0], "int32");
    // np.choose(np.array([2, 3, 1, 0], np.int32), c) → [20, 31, 12, 3]
    using r = choose(k, c);
    expect(read(r)).toEqual(["int64", [4], [20, 31, 12, 3]]);
    using bad = ints([2, 4, 1, -1], "int8");
    // np.choose(np.array([2, 4, 1, -1], np.int8), c, mode="clip") → [20, 31, 12, 3]
    using cl = choose(bad, c, { mode: "clip" });
    expect(read(cl)).toEqual(["int64", [4], [20, 31, 12, 3]]);
    // np.choose(np.array([2, 4, 1, -1], np.int8), c, mode="wrap") → [20, 1, 12, 33]
    using w = choose(bad, c, { mode: "wrap" });
    expect(read(w)).toEqual(["int64", [4], [20, 1, 12, 33]]);
    using far = ints([7, -5, 9, -1]);
    // np.choose([7, -5, 9, -1], c, mode="wrap") → [30, 31, 12, 33]
    using w2 = choose(far, c, { mode: "wrap" });
    expect(read(w2)).toEqual(["int64", [4], [30, 31, 12, 33]]);
    using three = ints([5, 0, -3], "int16");
    // np.choose(np.array([5, 0, -3], np.int16), [np.array(1.5), np.array(2.5), np.array(3.5)], mode="clip") → [3.5, 1.5, 1.5]
    const s = [1.5, 2.5, 3.5].map((v) => DeviceArray.from(Float64Array.of(v), { stream, shape: [] }));
    using cs = choose(three, s, { mode: "clip" });
    expect(read(cs)).toEqual(["float64", [3], [3.5, 1.5, 1.5]]);
    for (const x of s) x.close();
  });

  it("an entry out of range is found on the device: an IndexError at the next read, choice 0 there", () => {
    using k = ints([2, 4, 1, 0]);
    // np.choose([2, 4, 1, 0], c) → ValueError: invalid entry in choice array
    using r = choose(k, c);
    expect(() => r.toTypedArraySync()).toThrow(IndexError);
    expect(nums(r.toTypedArraySync())).toEqual([20, 1, 12, 3]);
    using neg = ints([2, -1, 1, 0], "int16");
    // np.choose([2, -1, 1, 0], c) → ValueError (negative entries do not count from the end)
    using n = choose(neg, c);
    expect(() => n.toTypedArraySync()).toThrow(/^choose: entry -1 of the index array is out of range for 4 choices/);
    expect(nums(n.toTypedArraySync())).toEqual([20, 1, 12, 3]);
  });

  it("broadcasting, a choices array, a transposed view, 0-d", () => {
    using k = ints([0, 1], "int64", [2, 1]);
    using a = ints([1, 2, 3]);
    using b = ints([4, 5, 6]);
    // np.choose([[0], [1]], [[1, 2, 3], [4, 5, 6]]) → [[1, 2, 3], [4, 5, 6]]
    using r = choose(k, [a, b]);
    expect(read(r)).toEqual(["int64", [2, 3], [1, 2, 3, 4, 5, 6]]);
    using k2 = ints([1, 0, 1, 0, 1, 0], "int32", [2, 3]);
    using arr = ints([1, 2, 3, 4, 5, 6], "int64", [2, 1, 3]);
    // np.choose([[1, 0, 1], [0, 1, 0]], np.array([[[1, 2, 3]], [[4, 5, 6]]])) → [[4, 2, 6], [1, 5, 3]]
    using ra = choose(k2, arr);
    expect(read(ra)).toEqual(["int64", [2, 3], [4, 2, 6, 1, 5, 3]]);
    using parity = ints([0, 1, 0, 1, 0, 1], "int64", [2, 3]);
    using zeros = DeviceArray.zeros([3, 2], "float32", { stream });
    using ones = DeviceArray.full([3, 2], 1, "float32", { stream });
    // np.choose(np.arange(6).reshape(2, 3).T % 2, [np.zeros((3, 2), np.float32), np.ones((3, 2), np.float32)])
    using t = choose(parity.T, [zeros, ones]);
    expect(read(t)).toEqual(["float32", [3, 2], [0, 1, 1, 0, 0, 1]]);
    using one = ints([1], "int64", []);
    using five = ints([5], "int64", []);
    using seven = ints([7], "int64", []);
    // np.choose(np.array(1), [np.array(5), np.array(7)]) → 7, 0-d
    using z = choose(one, [five, seven]);
    expect(read(z)).toEqual(["int64", [], [7]]);
  });

  it("dtypes: the choices promoted, scalars weak, a bool index array", () => {
    using k = ints([0, 1]);
    using i8 = DeviceArray.from(Int8Array.from([1, 2]), { stream });
    using u8 = DeviceArray.from(Uint8Array.from([3, 250]), { stream });
    // np.choose([0, 1], [np.array([1, 2], np.int8), np.array([3, 250], np.uint8)]) → int16 [1, 250]
    using p = choose(k, [i8, u8]);
    expect(read(p)).toEqual(["int16", [2], [1, 250]]);
    using k3 = ints([0, 1, 1]);
    using i83 = DeviceArray.from(Int8Array.from([1, 2, -3]), { stream });
    // np.choose([0, 1, 1], [np.array([1, 2, -3], np.int8), 3]) → int8 [1, 3, 3]
    using s = choose(k3, [i83, 3]);
    expect(read(s)).toEqual(["int8", [3], [1, 3, 3]]);
    // np.choose([0, 1], [np.array([1, 2], np.int8), 3.5]) → float64 [1.0, 3.5]
    using f = choose(k, [i8, 3.5]);
    expect(read(f)).toEqual(["float64", [2], [1, 3.5]]);
    using mask = DeviceArray.from(Uint8Array.from([1, 0]), { stream, dtype: "bool" });
    using x = ints([1, 2]);
    using y = ints([3, 4]);
    // np.choose(np.array([True, False]), [[1, 2], [3, 4]]) → [3, 2]
    using b = choose(mask, [x, y]);
    expect(read(b)).toEqual(["int64", [2], [3, 2]]);
    using k4 = ints([1, 0, 2]);
    // np.choose([1, 0, 2], [5, 6, 7]) → int64 [6, 5, 7]
    using sc = choose(k4, [5, 6, 7]);
    expect(read(sc)).toEqual(["int64", [3], [6, 5, 7]]);
    using cx = DeviceArray.from(Float32Array.from([1, 2, 0, 3]), { stream, dtype: "complex64" });
    // np.choose([0, 1], [np.array([1+2j, 3j], np.complex64), 2]) → complex64 [1+2j, 2+0j]
    using cc = choose(k, [cx, 2]);
    expect(read(cc)).toEqual(["complex64", [2], [1, 2, 2, 0]]);
    using only = DeviceArray.from(Int16Array.from([9, 8]), { stream });
    using k0 = ints([0, 0]);
    // np.choose([0, 0], [np.array([9, 8], np.int16)]) → int16 [9, 8]
    using o = choose(k0, [only]);
    expect(read(o)).toEqual(["int16", [2], [9, 8]]);
  });

  it("out: converted into, or one of the choices", () => {
    using k = ints([2, 3, 1, 0]);
    using f32 = DeviceArray.zeros([4], "float32", { stream });
    // o = np.zeros(4, np.float32); np.choose([2, 3, 1, 0], c, out=o) → [20., 31., 12., 3.]
    const r = choose(k, c, { out: f32 });
    expect(r).toBe(f32);
    expect(read(f32)).toEqual(["float32", [4], [20, 31, 12, 3]]);
    using c0 = c[0]!.copy();
    // c0 = c[0].copy(); np.choose([2, 3, 1, 0], [c0, *c[1:]], out=c0) → [20, 31, 12, 3]
    choose(k, [c0, c[1]!, c[2]!, c[3]!], { out: c0 });
    expect(read(c0)).toEqual(["int64", [4], [20, 31, 12, 3]]);
    using c3 = c[3]!.copy();
    // The last choice as out: c3 = c[3].copy(); np.choose([2, 3, 1, 0], [*c[:3], c3], out=c3) → [20, 31, 12, 3]
    choose(k, [c[0]!, c[1]!, c[2]!, c3], { out: c3 });
    expect(read(c3)).toEqual(["int64", [4], [20, 31, 12, 3]]);
  });

  it("an empty index array gives an empty result", () => {
    using k = DeviceArray.empty([0], "int64", { stream });
    using e = DeviceArray.empty([0], "float64", { stream });
    // np.choose(np.zeros(0, np.int64), [np.zeros(0), np.zeros(0)]) → float64 []
    using r = choose(k, [e, e]);
    expect(read(r)).toEqual(["float64", [0], []]);
  });
});
