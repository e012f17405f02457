/**
 * `mayShareMemory` without a GPU: arrays over a buffer made from a made-up device address (nothing is read or
 * written), their views, and a second buffer elsewhere.
 */
import { describe, expect, it } from "vitest";
import { Buffer, ClosedError, DeviceArray } from "../../../src/index.ts";
import { mayShareMemory } from "../../../src/array.ts";
import { byteRange } from "../../../src/core/array/layout.ts";

function arrayAt(address: bigint, shape: number[], bytes = 1 << 20): DeviceArray {
  const buffer = Buffer.fromHandle(address, bytes, { owner: {} });
  return DeviceArray.fromBuffer(buffer, { dtype: "float32", shape });
}

describe("mayShareMemory", () => {
  it("says an array and its views share memory, and views that stay apart do not", () => {
    const x = arrayAt(0x7f00_0000_0000n, [8, 8]);
    expect(mayShareMemory(x, x)).toBe(true);
    expect(mayShareMemory(x, x.T)).toBe(true);
    expect(mayShareMemory(x, x.slice([2, 3]))).toBe(true);
    expect(mayShareMemory(x.slice([0, 4]), x.slice([4, 8]))).toBe(false);
    expect(mayShareMemory(x.slice([0, 5]), x.slice([4, 8]))).toBe(true);
    // One column and the next: their byte ranges interleave, so they may share (NumPy's answer too).
    expect(mayShareMemory(x.slice(null, 0), x.slice(null, 1))).toBe(true);
    // The last element of one row and the first of the next are neighbours, not the same bytes.
    expect(mayShareMemory(x.slice(0, [7, 8]), x.slice(1, [0, 1]))).toBe(false);
    // Reversed views reach down from their first element.
    expect(mayShareMemory(x.slice([null, null, -1]).slice([4, 8]), x.slice([0, 4]))).toBe(true);
    expect(mayShareMemory(x.slice([null, null, -1]).slice([0, 4]), x.slice([0, 4]))).toBe(false);
  });

  it("says arrays of other buffers and empty arrays share nothing", () => {
    const x = arrayAt(0x7f00_0000_0000n, [256]);
    const y = arrayAt(0x7f00_0000_0400n, [256]);
    const z = arrayAt(0x7f00_0000_0200n, [256]);
    expect(mayShareMemory(x, y)).toBe(false);
    expect(mayShareMemory(x, z)).toBe(true);
    expect(mayShareMemory(x.slice([0, 0]), x)).toBe(false);
    expect(mayShareMemory(x, DeviceArray.fromBuffer(x.buffer, { dtype: "uint8", shape: [0] }))).toBe(false);
  });

  it("refuses what is not an array, and closed arrays", () => {
    const x = arrayAt(0x7f00_0000_0000n, [4]);
    expect(() => mayShareMemory(x, [1, 2] as unknown as DeviceArray)).toThrow(/b is a DeviceArray, not/);
    const y = arrayAt(0x7f00_0001_0000n, [4]);
    y.close();
    expect(() => mayShareMemory(x, y)).toThrow(ClosedError);
  });

  it("measures a layout's byte range from its lowest to the end of its highest element", () => {
    expect(byteRange(1000, [3, 4], [4, 1], 4)).toEqual([1000, 1048]);
    expect(byteRange(1000, [3], [-2], 8)).toEqual([968, 1008]);
    expect(byteRange(1000, [2, 0], [1, 1], 4)).toEqual([1000, 1000]);
  });
});

describe("sameElements (when an out may be written in place)", () => {
  it("holds for the same view, not for shifted, transposed or reinterpreted ones", async () => {
    const { sameElements } = await import("../../../src/core/array/ops/overlap.ts");
    const x = arrayAt(0x7f10_0000_0000n, [8, 8]);
    expect(sameElements(x, x)).toBe(true);
    expect(sameElements(x, x.slice([0, 8]))).toBe(true);
    expect(sameElements(x.slice([0, 7]), x.slice([1, 8]))).toBe(false);
    expect(sameElements(x, x.T)).toBe(false);
    expect(sameElements(x, x.reshape([64]))).toBe(false);
    expect(sameElements(x.reshape([64]), x.reshape([64]))).toBe(true);
    const y = arrayAt(0x7f10_0000_0000n, [8, 8]);
    expect(sameElements(x, y)).toBe(true);
  });
});
