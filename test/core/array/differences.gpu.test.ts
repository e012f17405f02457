/**
 * `diff` and `meshgrid` on a real GPU, against NumPy's results worked out by hand: differences of order 1 and 2,
 * along either axis, of bool arrays (not-equal), with a scalar or array prepended or appended; coordinate grids with
 * "xy" and "ij" indexing, sparse and as views. Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, DeviceArray, type Stream } from "../../../src/index.ts";
import { diff, meshgrid } from "../../../src/array.ts";
import { gpu, skipNote } from "../../support/gpu.ts";
import { readAndClose } from "../../support/arrays.ts";

describe.skipIf(!gpu.available)(`diff and meshgrid on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
  });

  afterAll(() => {
    stream?.close();
  });

  const read = (x: DeviceArray): number[] => readAndClose(x, stream);

  it("takes differences of neighbours, n times, along an axis", () => {
    using x = DeviceArray.from(Float64Array.from([1, 4, 9, 16]), { stream });
    expect(read(diff(x))).toEqual([3, 5, 7]);
    expect(read(diff(x, { n: 2 }))).toEqual([2, 2]);
    expect(read(diff(x, { n: 4 }))).toEqual([]);
    expect(read(diff(x, { n: 0 }))).toEqual([1, 4, 9, 16]);
    using m = DeviceArray.from(Int32Array.from([1, 3, 6, 10, 0, 5, 2, 2]), { stream, shape: [2, 4] });
    using d0 = diff(m, { axis: 0 });
    expect([d0.shape, d0.dtype.name]).toEqual([[1, 4], "int32"]);
    expect(read(d0.copy({ stream }))).toEqual([-1, 2, -4, -8]);
    expect(read(diff(m))).toEqual([2, 3, 4, 5, -3, 0]);
    using b = DeviceArray.from(Uint8Array.from([1, 1, 0, 1]), { stream, dtype: "bool" });
    using db = diff(b);
    expect(db.dtype.name).toBe("bool");
    expect(read(db.copy({ stream }))).toEqual([0, 1, 1]);
  });

  it("prepends and appends before taking differences", () => {
    using x = DeviceArray.from(Float32Array.from([2, 5, 6]), { stream });
    expect(read(diff(x, { prepend: 0 }))).toEqual([2, 3, 1]);
    expect(read(diff(x, { append: 10 }))).toEqual([3, 1, 4]);
    using m = DeviceArray.from(Int32Array.from([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    using p = DeviceArray.from(Int32Array.from([10, 20]), { stream, shape: [2, 1] });
    using d = diff(m, { prepend: p });
    expect(d.shape).toEqual([2, 3]);
    expect(read(d.copy({ stream }))).toEqual([-9, 1, 1, -16, 1, 1]);
  });

  it("makes coordinate grids with xy and ij indexing, sparse and as views", () => {
    using x = DeviceArray.from(Float32Array.from([1, 2, 3]), { stream });
    using y = DeviceArray.from(Float32Array.from([10, 20]), { stream });
    const [X, Y] = meshgrid([x, y]);
    expect([X!.shape, Y!.shape]).toEqual([[2, 3], [2, 3]]);
    expect(read(X!)).toEqual([1, 2, 3, 1, 2, 3]);
    expect(read(Y!)).toEqual([10, 10, 10, 20, 20, 20]);
    const [I, J] = meshgrid([x, y], { indexing: "ij" });
    expect(I!.shape).toEqual([3, 2]);
    expect(read(I!)).toEqual([1, 1, 2, 2, 3, 3]);
    expect(read(J!)).toEqual([10, 20, 10, 20, 10, 20]);
    const [sx, sy] = meshgrid([x, y], { sparse: true });
    expect([sx!.shape, sy!.shape]).toEqual([[1, 3], [2, 1]]);
    const [vx] = meshgrid([x, y], { copy: false });
    expect([vx!.shape, vx!.strides, vx!.base !== undefined]).toEqual([[2, 3], [0, 1], true]);
    expect(read(vx!.copy({ stream }))).toEqual([1, 2, 3, 1, 2, 3]);
  });

  it("hands out a flattened copy of a transposed input as a view that frees it when closed", () => {
    using flat = DeviceArray.from(Float32Array.from([1, 2, 3, 4]), { stream });
    const m = flat.reshape([2, 2]);
    using y = DeviceArray.from(Float32Array.from([10, 20, 30]), { stream });
    // m.T flattened is [1, 3, 2, 4]: no flat view of it exists, so meshgrid copies it first.
    const [vx, vy] = meshgrid([m.transpose(), y], { copy: false });
    expect([vx!.shape, vx!.strides, vx!.base]).toEqual([[3, 4], [0, 1], undefined]);
    expect(vx!.buffer).not.toBe(m.buffer);
    expect(vy!.buffer).toBe(y.buffer);
    expect(read(vx!.copy({ stream }))).toEqual([1, 3, 2, 4, 1, 3, 2, 4, 1, 3, 2, 4]);
    vx!.close();
    expect(vx!.buffer.isClosed).toBe(true);
    expect(m.isClosed).toBe(false);
  });
});
