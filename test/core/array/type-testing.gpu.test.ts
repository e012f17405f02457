/**
 * iscomplex and isreal on a real GPU against NumPy 2.4 (`np.iscomplex([1+0j, 1j, nan+0j, nanj])` is
 * `[False, True, False, True]`, `np.isreal` the opposite; real dtypes give all false and all true). Skips without
 * a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { iscomplex, isreal, realIfClose } from "../../../src/array.ts";
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
  it("realIfClose: the real parts (a view) within tol, else the array itself", async () => {
    using z = DeviceArray.from(Float64Array.from([1, 1e-15, 2, -1e-15]), { stream, dtype: "complex128" });
    const r = await realIfClose(z);
    expect(r.dtype.name).toBe("float64");
    expect(r.base).toBe(z);
    expect(readDecoded(r.copy({ stream }), stream)).toEqual(["float64", [2], [1, 2]]);
    expect(await realIfClose(z, { tol: 1 })).not.toBe(z); // absolute 1: still close
    using w = DeviceArray.from(Float64Array.from([1, 1e-10, 2, 0]), { stream, dtype: "complex128" });
    expect(await realIfClose(w)).toBe(w); // 1e-10 > 100 · 2.2e-16
    using f = DeviceArray.from(Float32Array.from([1, 1e-6, 2, 0]), { stream, dtype: "complex64" });
    expect((await realIfClose(f)).dtype.name).toBe("float32"); // 1e-6 < 100 · 1.19e-7
  });
});
