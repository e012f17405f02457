/**
 * packbits and unpackbits on a real GPU against NumPy 2.4 (`np.packbits`, `np.unpackbits`; values in the tests):
 * bool and integer sources, both bit orders, axes, a strided source, counts that trim and pad. Skips without a GPU.
 */
import { describe, expect, it } from "vitest";
import { DeviceArray, type Stream } from "../../../src/index.ts";
import { packbits, transpose, unpackbits } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { onGpuStream, readDecoded } from "../../support/gpu-arrays.ts";

describe.skipIf(!gpu.available)(`packbits and unpackbits on a GPU${skipNote}`, () => {
  let stream: Stream;
  onGpuStream((s) => (stream = s));

  it("packbits: flattened, along each axis, little-endian bits, a transposed source", () => {
    using a = DeviceArray.from(Uint8Array.from([1, 0, 1, 1, 0, 0, 0, 1, 1]), { stream, dtype: "bool" });
    expect(readDecoded(packbits(a, { stream }), stream)).toEqual(["uint8", [2], [177, 128]]);
    expect(readDecoded(packbits(a, { bitorder: "little", stream }), stream)).toEqual(["uint8", [2], [141, 1]]);
    // np.int16 [[3,0,-1,0,0,0,0,0,7,1],[0,0,0,0,0,0,0,1,0,0],[1]*10]
    using m = DeviceArray.from(Int16Array.from([3, 0, -1, 0, 0, 0, 0, 0, 7, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]), { stream, shape: [3, 10] });
    expect(readDecoded(packbits(m, { axis: 1, stream }), stream)).toEqual(["uint8", [3, 2], [160, 192, 1, 0, 255, 192]]);
    expect(readDecoded(packbits(m, { axis: 0, stream }), stream)).toEqual(["uint8", [1, 10], [160, 32, 160, 32, 32, 32, 32, 96, 160, 160]]);
    expect(readDecoded(packbits(m, { stream }), stream)).toEqual(["uint8", [4], [160, 192, 79, 252]]);
    expect(readDecoded(packbits(m, { axis: -1, bitorder: "little", stream }), stream)).toEqual(["uint8", [3, 2], [5, 3, 128, 0, 255, 3]]);
    expect(readDecoded(packbits(transpose(m), { axis: 0, stream }), stream)).toEqual(["uint8", [2, 3], [160, 1, 255, 192, 0, 192]]);
    using s = DeviceArray.from(Int32Array.from([5]), { stream, shape: [] });
    expect(readDecoded(packbits(s, { stream }), stream)).toEqual(["uint8", [1], [128]]);
    expect(readDecoded(packbits(s, { axis: 0, stream }), stream)).toEqual(["uint8", [1], [128]]);
    using e = DeviceArray.zeros([2, 0], "bool", { stream });
    expect(readDecoded(packbits(e, { axis: 1, stream }), stream)).toEqual(["uint8", [2, 0], []]);
  });

  it("unpackbits: both bit orders, counts that trim and pad, along an axis, and back again", () => {
    using b = DeviceArray.from(Uint8Array.from([177, 128, 255, 1]), { stream });
    const big = [1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1];
    expect(readDecoded(unpackbits(b, { stream }), stream)).toEqual(["uint8", [32], big]);
    expect(readDecoded(unpackbits(b, { bitorder: "little", stream }), stream)).toEqual([
      "uint8",
      [32],
      [1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0],
    ]);
    expect(readDecoded(unpackbits(b, { count: 9, stream }), stream)).toEqual(["uint8", [9], big.slice(0, 9)]);
    expect(readDecoded(unpackbits(b, { count: -30, stream }), stream)).toEqual(["uint8", [2], [1, 0]]);
    expect(readDecoded(unpackbits(b, { count: 35, stream }), stream)).toEqual(["uint8", [35], [...big, 0, 0, 0]]);
    using b2 = DeviceArray.from(Uint8Array.from([177, 128, 255, 1]), { stream, shape: [2, 2] });
    expect(readDecoded(unpackbits(b2, { axis: 0, stream }), stream)).toEqual([
      "uint8",
      [16, 2],
      [1, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 1],
    ]);
    expect(readDecoded(unpackbits(b2, { axis: 1, count: 3, bitorder: "little", stream }), stream)).toEqual(["uint8", [2, 3], [1, 0, 0, 1, 1, 1]]);
    using byte = DeviceArray.from(Uint8Array.from([5]), { stream, shape: [] });
    expect(readDecoded(unpackbits(byte, { axis: -1, stream }), stream)).toEqual(["uint8", [8], [0, 0, 0, 0, 0, 1, 0, 1]]);
    using none = DeviceArray.zeros([0], "uint8", { stream });
    expect(readDecoded(unpackbits(none, { count: 3, stream }), stream)).toEqual(["uint8", [3], [0, 0, 0]]);
    // A round trip of a large mask along an axis that does not fill its last byte.
    const n = 3 * 1001;
    const host = new Uint8Array(n);
    for (let i = 0; i < n; i++) host[i] = (i * 2654435761) % 7 < 3 ? 1 : 0;
    using mask = DeviceArray.from(host, { stream, dtype: "bool", shape: [3, 1001] });
    using packed = packbits(mask, { axis: 1, stream });
    expect(packed.shape).toEqual([3, 126]);
    expect(readDecoded(unpackbits(packed, { axis: 1, count: 1001, stream }), stream)).toEqual(["uint8", [3, 1001], Array.from(host)]);
  });
});
