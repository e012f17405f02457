/**
 * histogramdd, histogram2d and histogramBinEdges on a real GPU against NumPy 2.4 (each call in a comment): counted
 * bins over the data's range and a given one, variables of different dtypes, edges given as numbers (int64 edges,
 * as `np.asarray` makes them),
 * values on the last edge, outliers and NaN, weights, density, float32 edges from float32 data. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { histogram2d, histogramBinEdges, histogramdd } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, readDecoded } from "../../support/gpu-arrays.ts";

describe.skipIf(!gpu.available)(`histogramdd and histogram2d on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("histogram2d: a given range, the last edge included, outliers and NaN left out", () => {
    using x = DeviceArray.from(Float64Array.from([0.1, 0.4, 0.4, 0.9, 1.0, -1.0, NaN]), { stream });
    using y = DeviceArray.from(Float64Array.from([0.2, 0.2, 0.8, 0.5, 1.0, 0.5, 0.5]), { stream });
    // np.histogram2d(x, y, bins=2, range=[[0, 1], [0, 1]]) → [[2, 1], [0, 2]], edges [0, 0.5, 1] twice
    const { hist, xedges, yedges } = histogram2d(x, y, { bins: 2, range: [[0, 1], [0, 1]] });
    expect(readDecoded(hist, stream)).toEqual(["float64", [2, 2], [2, 1, 0, 2]]);
    expect(readDecoded(xedges, stream)).toEqual(["float64", [3], [0, 0.5, 1]]);
    expect(readDecoded(yedges, stream)).toEqual(["float64", [3], [0, 0.5, 1]]);
    using u = DeviceArray.from(Float64Array.from([0, 1, 2]), { stream });
    // np.histogram2d([0, 1, 2], [0, 1, 2], bins=[0, 1, 1.5, 2]) → the identity, edges [0, 1, 1.5, 2] for both
    const same = histogram2d(u, u, { bins: [0, 1, 1.5, 2] });
    expect(readDecoded(same.hist, stream)).toEqual(["float64", [3, 3], [1, 0, 0, 0, 1, 0, 0, 0, 1]]);
    expect(readDecoded(same.xedges, stream)).toEqual(["float64", [4], [0, 1, 1.5, 2]]);
    same.yedges.close();
  });

  it("variables of different dtypes: the edges in their common dtype, as NumPy's one sample array", () => {
    using x = DeviceArray.from(Float32Array.from({ length: 8 }, (_, k) => 1000 + k * 2 ** -14), { stream });
    using y = DeviceArray.zeros([8], "float64", { stream });
    // np.histogram2d(f32 1000 + k * 2**-14 for k < 8, zeros(8), bins=[3, 1]) → [3, 2, 3], float64 edges
    const { hist, xedges, yedges } = histogram2d(x, y, { bins: [3, 1] });
    expect(readDecoded(hist, stream)).toEqual(["float64", [3, 1], [3, 2, 3]]);
    expect(readDecoded(xedges, stream)).toEqual(["float64", [4], [1000, 1000.0001424153646, 1000.0002848307291, 1000.0004272460938]]);
    expect(readDecoded(yedges, stream)).toEqual(["float64", [2], [-0.5, 0.5]]);
  });

  it("histogramdd of int32 samples: counted bins, edges given, weights, density", () => {
    using s = DeviceArray.from(Int32Array.from([0, 0, 1, 1, 1, 1, 2, 3, 3, 3]), { stream, shape: [5, 2] });
    // np.histogramdd(s, bins=[3, 2]) → [[1, 0], [2, 0], [0, 2]], edges [0, 1, 2, 3] and [0, 1.5, 3] (float64)
    const counted = histogramdd(s, { bins: [3, 2] });
    expect(readDecoded(counted.hist, stream)).toEqual(["float64", [3, 2], [1, 0, 2, 0, 0, 2]]);
    expect(counted.edges.map((e) => readDecoded(e, stream))).toEqual([
      ["float64", [4], [0, 1, 2, 3]],
      ["float64", [3], [0, 1.5, 3]],
    ]);
    // np.histogramdd(s, bins=[[0, 1, 2, 3], [0, 3]]) → [[1], [2], [2]], int64 edges
    const given = histogramdd(s, { bins: [[0, 1, 2, 3], [0, 3]] });
    expect(readDecoded(given.hist, stream)).toEqual(["float64", [3, 1], [1, 2, 2]]);
    expect(given.edges.map((e) => readDecoded(e, stream))).toEqual([
      ["int64", [4], [0, 1, 2, 3]],
      ["int64", [2], [0, 3]],
    ]);
    // np.histogramdd(s, bins=[3, 2], weights=[1, 2, 3, 4, 5]) → [[1, 0], [5, 0], [0, 9]]
    using w = DeviceArray.from(Float64Array.from([1, 2, 3, 4, 5]), { stream });
    const weighted = histogramdd(s, { bins: [3, 2], weights: w });
    expect(readDecoded(weighted.hist, stream)).toEqual(["float64", [3, 2], [1, 0, 5, 0, 0, 9]]);
    for (const e of weighted.edges) e.close();
    // np.histogramdd(s, bins=[3, 2], density=True) → [[2/15, 0], [4/15, 0], [0, 4/15]]
    const dense = histogramdd(s, { bins: [3, 2], density: true });
    const [, , values] = readDecoded(dense.hist, stream);
    const want = [0.13333333333333333, 0, 0.26666666666666666, 0, 0, 0.26666666666666666];
    (values as number[]).forEach((v, k) => expect(Math.abs(v - want[k]!)).toBeLessThan(1e-15));
    for (const e of dense.edges) e.close();
  });

  it("float32 data: float32 edges from its own range, float64 from a given one; histogramBinEdges", () => {
    using f = DeviceArray.from(Float32Array.from([0.5, 0.25, 0.75, 0.5]), { stream });
    // np.histogramdd(f32 [0.5, 0.25, 0.75, 0.5], bins=4) → [1, 0, 2, 1], float32 edges [0.25, 0.375, 0.5, 0.625, 0.75]
    const one = histogramdd(f, { bins: 4 });
    expect(readDecoded(one.hist, stream)).toEqual(["float64", [4], [1, 0, 2, 1]]);
    expect(readDecoded(one.edges[0]!, stream)).toEqual(["float32", [5], [0.25, 0.375, 0.5, 0.625, 0.75]]);
    // np.histogramdd([f, f], bins=2, range=[None, (0, 1)]) → [[1, 0], [0, 3]], edges float32 and float64
    const two = histogramdd([f, f], { bins: 2, range: [null, [0, 1]] });
    expect(readDecoded(two.hist, stream)).toEqual(["float64", [2, 2], [1, 0, 0, 3]]);
    expect(two.edges.map((e) => readDecoded(e, stream))).toEqual([
      ["float32", [3], [0.25, 0.5, 0.75]],
      ["float64", [3], [0, 0.5, 1]],
    ]);
    using ints = DeviceArray.from(BigInt64Array.from([1n, 2n, 3n, 4n]), { stream });
    // np.histogram_bin_edges([1, 2, 3, 4], bins=3) → [1, 2, 3, 4]
    expect(readDecoded(histogramBinEdges(ints, { bins: 3 }), stream)).toEqual(["float64", [4], [1, 2, 3, 4]]);
    // np.histogram_bin_edges(f, bins=[0, 1, 2]) → int64 [0, 1, 2]
    expect(readDecoded(histogramBinEdges(f, { bins: [0, 1, 2] }), stream)).toEqual(["int64", [3], [0, 1, 2]]);
  });
});
