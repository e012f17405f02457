/**
 * Printing on a real GPU: arrays read back and written as NumPy 2 prints them (values in the tests), views, and
 * summarised arrays, of which only the edges are read back. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { array2string, arrayRepr } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream } from "../../support/gpu-arrays.ts";

describe.skipIf(!gpu.available)(`printing on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("writes arrays and views as NumPy does", async () => {
    using x = DeviceArray.from(Float32Array.from([0, 0.25, 0.5, 0.75, 1, 1.25]), { stream, shape: [2, 3] });
    expect(await array2string(x)).toBe("[[0.   0.25 0.5 ]\n [0.75 1.   1.25]]");
    expect(await arrayRepr(x)).toBe("array([[0.  , 0.25, 0.5 ],\n       [0.75, 1.  , 1.25]], dtype=float32)");
    expect(await array2string(x.T)).toBe("[[0.   0.75]\n [0.25 1.  ]\n [0.5  1.25]]");
    using i = DeviceArray.from(Int32Array.from([1, -20, 300]), { stream });
    expect(await arrayRepr(i)).toBe("array([  1, -20, 300], dtype=int32)");
    using z = DeviceArray.from(Float64Array.from([1, 2, 0, -1.5]), { stream, dtype: "complex128", shape: [2] });
    expect(await arrayRepr(z)).toBe("array([1.+2.j , 0.-1.5j])");
    using b = DeviceArray.from(Uint8Array.from([1, 0]), { stream, dtype: "bool" });
    expect(await array2string(b)).toBe("[ True False]");
  });

  it("summarises long arrays from their edges", async () => {
    using r = DeviceArray.from(Float64Array.from({ length: 2000 }, (_, k) => k), { stream, shape: [40, 50] });
    const text = await array2string(r);
    expect(text.split("\n")[0]).toBe("[[0.000e+00 1.000e+00 2.000e+00 ... 4.700e+01 4.800e+01 4.900e+01]");
    expect(text.split("\n").at(-1)).toBe(" [1.950e+03 1.951e+03 1.952e+03 ... 1.997e+03 1.998e+03 1.999e+03]]");
    expect(text.split("\n")[3]).toBe(" ...");
    using n = DeviceArray.from(BigInt64Array.from({ length: 3000 }, (_, k) => BigInt(k)), { stream });
    expect(await arrayRepr(n)).toBe("array([   0,    1,    2, ..., 2997, 2998, 2999], shape=(3000,))");
    expect(await array2string(n, { threshold: Infinity, maxLineWidth: 20 })).toMatch(/^\[   0    1    2\n    3    4    5\n/);
  });
});
