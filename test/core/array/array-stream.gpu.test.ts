/**
 * The stream an array remembers: arrays made on a stream keep it, views share it, operations without `{ stream }`
 * run on it, an operand made on another stream is waited for, and arrays without one (over a caller's buffer) ask
 * for `{ stream }`. Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArgumentError, ClosedError, Device, DeviceArray, sum, type Stream } from "../../../src/index.ts";
import { ElementwiseKernel } from "../../../src/kernels.ts";
import { gpu, skipNote } from "../../support/gpu.ts";

describe.skipIf(!gpu.available)(`arrays and their streams on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;

  beforeAll(() => {
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
  });
  afterAll(() => {
    stream.close();
  });

  it("keeps the stream it was made on, in its views and in the arrays made from it", async () => {
    using a = DeviceArray.from(new Float32Array([1, 2, 3, 4, 5, 6]), { stream, shape: [2, 3] });
    expect(a.stream).toBe(stream);
    expect(a.T.stream).toBe(stream);
    expect(a.slice(null, 1).stream).toBe(stream);
    using b = a.copy();
    expect(b.stream).toBe(stream);
    using s = a.sum({ axis: 0 });
    expect(s.stream).toBe(stream);
    expect(Array.from((await s.toTypedArray()) as Float32Array)).toEqual([5, 7, 9]);
    b.fill(2);
    expect(Array.from(b.toTypedArraySync())).toEqual([2, 2, 2, 2, 2, 2]);
  });

  it("waits for an operand made on another stream", async () => {
    using other = dev.createStream();
    const n = 1 << 22;
    using big = DeviceArray.zeros([n], "float32", { stream: other });
    // Queue work on `other` that the sum on `stream` must see: fill with ones through a kernel.
    const ones = new ElementwiseKernel("", "float32 y", "y = 1.0f", "cuda_ts_test_ones");
    ones.launch(other, big);
    using total = sum(big, { stream });
    expect(Array.from((await total.toTypedArray()) as Float32Array)).toEqual([n]);
  });

  it("asks for a stream where no array gives one, and refuses a closed one", () => {
    using buf = dev.allocate(64, { stream });
    using bare = DeviceArray.fromBuffer(buf, { dtype: "float32" });
    expect(bare.stream).toBeUndefined();
    expect(() => bare.sum()).toThrow(ArgumentError);
    expect(() => bare.sum()).toThrow(/pass \{ stream \}/);
    using t = bare.sum({ stream });
    expect(t.stream).toBe(stream);
    const closing = dev.createStream();
    const a = DeviceArray.zeros([4], "float32", { stream: closing });
    closing.sync();
    closing.close();
    expect(() => a.sum()).toThrow(ClosedError);
    a.close(stream);
  });
});
