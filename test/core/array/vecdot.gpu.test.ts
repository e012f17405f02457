/**
 * vecdot on a real GPU, read back against NumPy 2.4's `vecdot` (each call in a comment): rows against a vector,
 * complex (the first operand conjugated), int8 wrapping in its dtype, bool, the vectors along axis 0 with the other
 * axes broadcast, and a given `out`. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, decodeHalf, encodeHalf, type Stream } from "../../../src/index.ts";
import { vecdot } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, readDecoded } from "../../support/gpu-arrays.ts";

describe.skipIf(!gpu.available)(`vecdot on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("rows against a vector, complex conjugated, int8 in int8, bool", () => {
    using rows = DeviceArray.from(Float32Array.from([0, 1, 2, 3, 4, 5]), { stream, shape: [2, 3] });
    using v = DeviceArray.from(Float32Array.from([1, 1, 2]), { stream });
    // np.vecdot([[0, 1, 2], [3, 4, 5]], [1, 1, 2]) (float32) → [5, 17]
    expect(readDecoded(vecdot(rows, v), stream)).toEqual(["float32", [2], [5, 17]]);
    // np.vecdot([1+2j, 3j], [1j, 2]) → 2-5j
    using a = DeviceArray.from(Float64Array.from([1, 2, 0, 3]), { stream, dtype: "complex128" });
    using b = DeviceArray.from(Float64Array.from([0, 1, 2, 0]), { stream, dtype: "complex128" });
    expect(readDecoded(vecdot(a, b), stream)).toEqual(["complex128", [], [[2, -5]]]);
    // np.vecdot(int8 [100, 100], int8 [100, 100]) → int8 32 (wrapped)
    using h = DeviceArray.from(Int8Array.from([100, 100]), { stream });
    expect(readDecoded(vecdot(h, h), stream)).toEqual(["int8", [], [32]]);
    // np.vecdot([[True, False], [False, True]], [True, False]) → [True, False]
    using p = DeviceArray.from(Uint8Array.from([1, 0, 0, 1]), { stream, dtype: "bool", shape: [2, 2] });
    using q = DeviceArray.from(Uint8Array.from([1, 0]), { stream, dtype: "bool" });
    expect(readDecoded(vecdot(p, q), stream)).toEqual(["bool", [2], [true, false]]);
  });

  it("float16 multiplies and adds in float32, rounding once", () => {
    const half = (v: number[]): DeviceArray => DeviceArray.from(Uint16Array.from(v, encodeHalf), { stream, dtype: "float16" });
    using a = half([300, 300]);
    using b = half([300, -300]);
    // np.vecdot(f16 [300, 300], f16 [300, -300]) → 0.0 (the products 90000 overflow float16 alone)
    expect(readDecoded(vecdot(a, b), stream)).toEqual(["float16", [], [0]]);
    using c = half([1.0009765625, 1.0009765625]);
    using d = half([1.0009765625, -1]);
    // np.vecdot(f16 [1.0009765625] * 2, f16 [1.0009765625, -1]) → 0.0009775 (float16 0x1401)
    expect(readDecoded(vecdot(c, d), stream)).toEqual(["float16", [], [decodeHalf(0x1401)]]);
  });

  it("vectors along axis 0, the other axes broadcast; out", () => {
    using x = DeviceArray.from(Float64Array.from([1, 2, 3, 4, 5, 6]), { stream, shape: [3, 2] });
    using y = DeviceArray.from(Float64Array.from([1, 10, 100]), { stream, shape: [3, 1] });
    // np.vecdot([[1, 2], [3, 4], [5, 6]], [[1], [10], [100]], axis=0) → [531, 642]
    expect(readDecoded(vecdot(x, y, { axis: 0 }), stream)).toEqual(["float64", [2], [531, 642]]);
    using out = DeviceArray.zeros([2], "float64", { stream });
    expect(vecdot(x, y, { axis: 0, out })).toBe(out);
    expect(Array.from(out.toTypedArraySync() as Float64Array)).toEqual([531, 642]);
  });
});
