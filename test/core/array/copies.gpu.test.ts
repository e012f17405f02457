/**
 * copy and ascontiguousarray on a real GPU, read back against NumPy 2.4's results (each NumPy call in a comment):
 * copies of views (transposed, sliced, broadcast) that are contiguous, writable and apart from their source, and
 * ascontiguousarray's identity, copies and conversions. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { ascontiguousarray, broadcastTo, copy, mayShareMemory } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, nums, read } from "../../support/gpu-arrays.ts";


describe.skipIf(!gpu.available)(`copy and ascontiguousarray on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("copy: a new contiguous, writable array", () => {
    using x = DeviceArray.from(BigInt64Array.from([0n, 1n, 2n, 3n, 4n, 5n]), { stream, shape: [2, 3] });
    // np.copy(np.arange(6).reshape(2, 3).T) → [[0, 3], [1, 4], [2, 5]]
    using t = copy(x.T);
    expect(read(t)).toEqual(["int64", [3, 2], [0, 3, 1, 4, 2, 5]]);
    expect([t.isContiguous, mayShareMemory(t, x)]).toEqual([true, false]);
    using row = DeviceArray.from(Float32Array.from([1, 2, 3]), { stream });
    const wide = broadcastTo(row, [2, 3]);
    // np.copy(np.broadcast_to([1, 2, 3], (2, 3))) → writable [[1, 2, 3], [1, 2, 3]]
    using w = copy(wide);
    expect([wide.readOnly, w.readOnly]).toEqual([true, false]);
    w.fill(7, { stream });
    expect(read(w)).toEqual(["float32", [2, 3], [7, 7, 7, 7, 7, 7]]);
    expect(read(row)).toEqual(["float32", [3], [1, 2, 3]]);
    // np.copy(x[:, 1:]) → [[1, 2], [4, 5]]
    using s = copy(x.slice(null, [1, null]), { stream });
    expect(read(s)).toEqual(["int64", [2, 2], [1, 2, 4, 5]]);
  });

  it("ascontiguousarray: itself, a copy, a conversion, one axis for 0-d", () => {
    using x = DeviceArray.from(BigInt64Array.from([0n, 1n, 2n, 3n, 4n, 5n]), { stream, shape: [2, 3] });
    // np.ascontiguousarray(x) is x → True
    expect(ascontiguousarray(x)).toBe(x);
    // np.ascontiguousarray(x.T) → C-contiguous [[0, 3], [1, 4], [2, 5]]
    using t = ascontiguousarray(x.T);
    expect(read(t)).toEqual(["int64", [3, 2], [0, 3, 1, 4, 2, 5]]);
    expect(t.isContiguous).toBe(true);
    // np.ascontiguousarray(x[:, :1]) is not x[:, :1] → [[0], [3]]
    using c = ascontiguousarray(x.slice(null, [0, 1]));
    expect(read(c)).toEqual(["int64", [2, 1], [0, 3]]);
    // np.ascontiguousarray(x, dtype=np.float32) → float32 [[0, 1, 2], [3, 4, 5]]
    using f = ascontiguousarray(x, { dtype: "float32" });
    expect(read(f)).toEqual(["float32", [2, 3], [0, 1, 2, 3, 4, 5]]);
    // np.ascontiguousarray(x.T, dtype=np.int8) → int8 [[0, 3], [1, 4], [2, 5]]
    using g = ascontiguousarray(x.T, { dtype: "int8" });
    expect(read(g)).toEqual(["int8", [3, 2], [0, 3, 1, 4, 2, 5]]);
    using s = DeviceArray.from(Float64Array.of(3), { stream, shape: [] });
    // np.ascontiguousarray(np.array(3.0)) → [3.], shape (1,)
    expect(read(ascontiguousarray(s))).toEqual(["float64", [1], [3]]);
    // np.ascontiguousarray(np.array(3.0), dtype=np.float32) → float32 [3.]
    using s32 = ascontiguousarray(s, { dtype: "float32" });
    expect(read(s32)).toEqual(["float32", [1], [3]]);
  });
});
