/**
 * iscomplex and isreal on a real GPU against NumPy 2.4 (`np.iscomplex([1+0j, 1j, nan+0j, nanj])` is
 * `[False, True, False, True]`, `np.isreal` the opposite; real dtypes give all false and all true). Skips without
 * a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { iscomplex, isreal } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, readDecoded } from "../../support/gpu-arrays.ts";

describe.skipIf(!gpu.available)(`iscomplex and isreal on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("complex parts, NaN parts, real dtypes", () => {
    using z = DeviceArray.from(Float64Array.from([1, 0, 0, 1, NaN, 0, 0, NaN]), { stream, dtype: "complex128" });
    expect(readDecoded(iscomplex(z), stream)).toEqual(["bool", [4], [false, true, false, true]]);
    expect(readDecoded(isreal(z), stream)).toEqual(["bool", [4], [true, false, true, false]]);
    using x = DeviceArray.from(Float32Array.from([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    expect(readDecoded(iscomplex(x), stream)).toEqual(["bool", [2, 3], [false, false, false, false, false, false]]);
    expect(readDecoded(isreal(x), stream)).toEqual(["bool", [2, 3], [true, true, true, true, true, true]]);
    using c64 = DeviceArray.from(Float32Array.from([1, 0, 2, -3]), { stream, dtype: "complex64" });
    expect(readDecoded(iscomplex(c64.slice([1, 2])), stream)).toEqual(["bool", [1], [true]]);
  });
});
