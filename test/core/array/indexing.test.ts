/**
 * Indexing without a GPU: indices given as numbers checked on the host (raise, wrap, clip), the plans of gathers
 * (`take` along an axis or flattened, `takeAlongAxis`), the layout struct, the generated source, and the typed errors
 * that come before any stream is used.
 */
import { describe, expect, it } from "vitest";
import { AxisError, BroadcastError, Buffer, DTypeError, DeviceArray, IndexError, ShapeMismatchError, type MemoryResource } from "../../../src/index.ts";
import { compress, extract, put, putMask, take, takeAlongAxis } from "../../../src/array.ts";
import { hostIndices, takeAlongAxisPlan, takePlan } from "../../../src/core/array/ops/indexing.ts";
import { INDEX_LAYOUT_BYTES, INDEX_MODES, indexLayout, indexingSource } from "../../../src/core/array/ops/indexing-source.ts";
import { dtypes } from "../../../src/core/array/dtype.ts";
import { nvccPresent, nvccProblems } from "../../support/nvcc.ts";

const BASE = 0x7f00_0000_0000n;
const hostResource: MemoryResource = {
  allocate: () => {
    throw new Error("not used");
  },
  deallocate: () => undefined,
  isDeviceAccessible: true,
  isHostAccessible: true,
  deviceId: -1,
};
function arr(shape: number[], dtype: "float32" | "int32" | "bool" | "int64" = "float32"): DeviceArray {
  return DeviceArray.fromBuffer(Buffer.fromHandle(BASE, 1 << 16, { memoryResource: hostResource }), { dtype, shape });
}

describe("indices given as numbers", () => {
  it("raise: negative from the end, IndexError naming the index and the extent", () => {
    expect([...hostIndices([0, 4, -1, -5], 5, "raise", "take")]).toEqual([0n, 4n, 4n, 0n]);
    expect(() => hostIndices([0, 5], 5, "raise", "take")).toThrow(IndexError);
    expect(() => hostIndices([0, 5], 5, "raise", "take")).toThrow("take: index 5 (position 1) is out of range for an axis of extent 5 (from -5 to 4)");
    expect(() => hostIndices([-6], 5, "raise", "take")).toThrow("index -6");
    expect(() => hostIndices([1.5], 5, "raise", "take")).toThrow("indices are integers");
  });

  it("wrap and clip as NumPy", () => {
    expect([...hostIndices([5, -1, 12, -7], 5, "wrap", "take")]).toEqual([0n, 4n, 2n, 3n]);
    expect([...hostIndices([5, -1, 12, 2], 5, "clip", "take")]).toEqual([4n, 0n, 4n, 2n]);
    expect(() => hostIndices([0], 0, "wrap", "take")).toThrow("empty axis");
  });
});

describe("gather plans", () => {
  it("take along an axis: the index axes replace it", () => {
    const p = takePlan([2, 3, 4], [12, 4, 1], [5], [1], 1);
    expect(p.shape).toEqual([2, 5, 4]);
    expect(p.layout).toEqual({
      shape: [2, 5, 4],
      strides: [
        [0, 1, 0],
        [12, 0, 1],
      ],
    });
    expect([p.extent, p.axisStride]).toEqual([3, 4]);
    const q = takePlan([2, 3, 4], [12, 4, 1], [2, 2], [2, 1], 2);
    expect(q.shape).toEqual([2, 3, 2, 2]);
    // The two index axes merge (contiguous indices, the array does not move along them); so do the leading two.
    expect(q.layout.shape).toEqual([6, 4]);
  });

  it("take of the flattened array", () => {
    const p = takePlan([24], [1], [2, 2], [2, 1], 0);
    expect(p.shape).toEqual([2, 2]);
    expect(p.layout).toEqual({ shape: [4], strides: [[1], [0]] });
    expect([p.extent, p.axisStride]).toEqual([24, 1]);
  });

  it("takeAlongAxis broadcasts the other axes and walks the indexed one through the indices", () => {
    const p = takeAlongAxisPlan([3, 4], [4, 1], [3, 2], [2, 1], 1);
    expect(p.shape).toEqual([3, 2]);
    expect(p.layout.strides).toEqual([
      [2, 1],
      [4, 0],
    ]);
    expect([p.extent, p.axisStride]).toEqual([4, 1]);
    const b = takeAlongAxisPlan([3, 4], [4, 1], [1, 2], [2, 1], 1);
    expect(b.shape).toEqual([3, 2]);
    expect(b.layout.strides[0]).toEqual([0, 1]);
    expect(() => takeAlongAxisPlan([3, 4], [4, 1], [2], [1], 0)).toThrow(ShapeMismatchError);
    expect(() => takeAlongAxisPlan([3, 4], [4, 1], [2, 2], [2, 1], 1)).toThrow(BroadcastError);
  });

  it("the layout struct: extents, index strides, array strides, ndim", () => {
    const b = indexLayout([3, 5], [0, 1], [7, 0]);
    expect(b.byteLength).toBe(INDEX_LAYOUT_BYTES);
    const v = new BigInt64Array(b.buffer);
    expect([v[0], v[1], v[8], v[9], v[16], v[17], v[24]]).toEqual([3n, 5n, 0n, 1n, 7n, 0n, 2n]);
  });
});

describe("indexing source", () => {
  it("moves elements as words of their width and checks every index", () => {
    const s = indexingSource(4, dtypes.int32);
    for (const k of ["gather", "scatter", "putmask", "compact", "coords", "check"]) expect(s).toContain(`cuda_ts_index_w4_int32_${k}(`);
    expect(s).toContain("typedef unsigned int W;");
    expect(s).toContain("typedef int I;");
    expect(s).toContain("if (!ix_fix(k, extent, mode, flag, op)) { out[i] = W(); continue; }");
    expect(s).toContain("__threadfence_system();");
    expect(indexingSource(16, dtypes.uint8)).toContain("typedef ix_w16 W;");
    expect(() => indexingSource(3, dtypes.int32)).toThrow(RangeError);
    const code = s.replace(/\/\/.*$/gm, "");
    const count = (c: string): number => code.split(c).length - 1;
    expect(count("{")).toBe(count("}"));
    expect(count("(")).toBe(count(")"));
  });

  it("counts negative indices from the end in mode 0 only: mode 3 (the index helpers' check) records them", () => {
    const s = indexingSource(8, dtypes.int64);
    expect(s).toContain("if (k < 0 && mode == 0) k += n;");
    expect(s).toMatch(/_check\(const I\* __restrict__ idx, unsigned long long n, ix_layout l, long long extent, int mode, ix_flag\* flag, int op\)/);
    expect(INDEX_MODES).toEqual({ raise: 0, wrap: 1, clip: 2, raiseNonNegative: 3 });
  });

  it.skipIf(!nvccPresent)("compiles with nvcc for sm_90 where nvcc is installed (every width, signed and unsigned indices)", () => {
    const sources = Object.fromEntries(([[1, dtypes.uint8], [4, dtypes.int32], [8, dtypes.int64], [16, dtypes.uint64]] as const).map(([width, index]) => [`w${width}_${index.name}`, indexingSource(width, index)]));
    expect(nvccProblems(sources)).toEqual([]);
  }, 120_000);
});

describe("indexing errors before the stream", () => {
  it("take and put", () => {
    const a = arr([3, 4]);
    expect(() => take(a, arr([2], "bool"))).toThrow(DTypeError);
    expect(() => take(a, arr([2], "bool"))).toThrow("for a boolean mask use extract");
    expect(() => take(a, arr([2], "float32"))).toThrow("indices are an integer array, got float32");
    expect(() => take(a, [0, 12])).toThrow(IndexError);
    expect(() => take(a, [0, 3], { axis: 0 })).toThrow("index 3 (position 1) is out of range for an axis of extent 3");
    expect(() => take(a, [0], { axis: 2 })).toThrow(AxisError);
    expect(() => take(a, [0], { mode: "nearest" as "clip" })).toThrow('mode is "raise", "wrap" or "clip"');
    expect(() => a.take([1, 2])).toThrow("needs a stream");
    expect(() => put(a, [12], 1)).toThrow(IndexError);
    expect(() => put(a, [0], 1.5 as number, {})).not.toThrow(IndexError);
    expect(() => put(arr([2], "int32"), [0], 1.5)).toThrow(DTypeError);
    expect(() => put(a, [0], "x" as unknown as number)).toThrow(TypeError);
  });

  it("masks", () => {
    const a = arr([3, 4]);
    expect(() => putMask(a, arr([4, 3], "bool"), 0)).toThrow(ShapeMismatchError);
    expect(() => putMask(a, arr([4, 3], "bool"), 0)).toThrow("the mask has shape [4, 3] but the array has shape [3, 4]");
    expect(() => extract(arr([5], "bool"), a)).toThrow("(5 elements) but the array has shape [3, 4] (12)");
    expect(() => compress(arr([2, 2], "bool"), a)).toThrow("the condition is 1-d");
    expect(() => compress(arr([5], "bool"), a, { axis: 1 })).toThrow("the condition has 5 elements but the axis has 4");
    expect(() => takeAlongAxis(a, arr([3, 4], "int64"), { axis: 3 })).toThrow(AxisError);
  });
});
