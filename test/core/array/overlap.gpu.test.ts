/**
 * Outputs that overlap their operands, on a real GPU: `take`, `concatenate`, `cumsum` and a ReductionKernel along an
 * axis given an `out` that shares memory with an input give NumPy's results (computed as if into a new array, then
 * copied), and an in-place scan stays in place. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { ReductionKernel } from "../../../src/kernels.ts";
import { concatenate, cumsum, take } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";
import { numbers } from "../../support/arrays.ts";

describe.skipIf(!gpu.available)(`outputs overlapping their inputs on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  const read = (x: DeviceArray): number[] => numbers(x.toTypedArraySync({ stream }) as ArrayLike<number | bigint>);

  it("take into an out over its own source reads every element before any is written", () => {
    using x = DeviceArray.from(Float32Array.from([0, 1, 2, 3, 4, 5, 6, 7]), { stream });
    using idx = DeviceArray.from(BigInt64Array.from([7n, 6n, 5n, 4n, 3n, 2n, 1n, 0n]), { stream });
    const r = take(x, idx, { out: x, stream });
    expect(r).toBe(x);
    expect(read(x)).toEqual([7, 6, 5, 4, 3, 2, 1, 0]);
  });

  it("concatenate into an out that holds its inputs", () => {
    using buf = DeviceArray.from(Int32Array.from([1, 2, 3, 4, 5, 6, 0, 0]), { stream });
    // [5, 6] then [1, 2, 3, 4], written over the same memory the inputs live in.
    const r = concatenate([buf.slice([4, 6]), buf.slice([0, 4])], { out: buf.slice([0, 6]), stream });
    expect(read(r)).toEqual([5, 6, 1, 2, 3, 4]);
    expect(read(buf)).toEqual([5, 6, 1, 2, 3, 4, 0, 0]);
  });

  it("cumsum into a shifted view of its input, flat and along an axis; in place stays in place", () => {
    const n = 3 * 8192 + 17; // several tiles: a shifted out would race across tile borders
    using x = DeviceArray.full([n + 1], 1, "int32", { stream });
    cumsum(x.slice([0, n]), { out: x.slice([1, n + 1]), stream });
    const got = read(x);
    expect(got[0]).toBe(1);
    expect(got.slice(1).every((v, i) => v === i + 1)).toBe(true);

    using m = DeviceArray.from(Float64Array.from([1, 1, 1, 1, 1, 1, 1, 1, 1, 1]), { stream, shape: [2, 5] });
    cumsum(m.slice(null, [0, 4]), { axis: 1, out: m.slice(null, [1, 5]), stream });
    expect(read(m)).toEqual([1, 1, 2, 3, 4, 1, 1, 2, 3, 4]);

    using y = DeviceArray.full([n], 2, "float32", { stream });
    const r = cumsum(y, { out: y, stream });
    expect(r).toBe(y);
    const h = read(y);
    expect([h[0], h[8191], h[8192], h[n - 1]]).toEqual([2, 16384, 16386, 2 * n]);
  });

  it("a ReductionKernel along an axis into a row of its own input reads every row before writing", () => {
    // Row sums of a [n, n] matrix of ones written over its first row: every group reads row 0, which the others write.
    const n = 2048;
    const sum = new ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "overlap_row_sum");
    using m = DeviceArray.full([n, n], 1, "float32", { stream });
    const row0 = m.slice(0);
    const r = sum.launch(stream, m, row0, { axis: 1 });
    expect(r).toBe(row0);
    const got = read(m);
    expect(got.slice(0, n).every((v) => v === n)).toBe(true);
    expect(got.slice(n).every((v) => v === 1)).toBe(true);
  });
});
