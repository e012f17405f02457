/**
 * `mayShareMemory` without a GPU: arrays over a buffer made from a made-up device address (nothing is read or
 * written), their views, and a second buffer elsewhere.
 */
import { describe, expect, it } from "vitest";
import { Buffer, ClosedError, DeviceArray, UnsupportedError } from "../../../src/index.ts";
import { mayShareMemory, sharesMemory } from "../../../src/array.ts";
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

describe("sharesMemory", () => {
  const base = 0x7f20_0000_0000n;
  const buffer = Buffer.fromHandle(base, 1 << 16, { owner: {} });
  const over = (dtype: "uint8" | "int16" | "float32" | "float64", shape: number[], strides: number[], byteOffset: number): DeviceArray =>
    DeviceArray.fromBuffer(buffer, { dtype, shape, strides, byteOffset });

  /** Every byte an element of `x` covers, by walking its indices. */
  function bytesOf(x: DeviceArray): Set<number> {
    const out = new Set<number>();
    const start = Number(x.address - base);
    const index = new Array<number>(x.ndim).fill(0);
    for (let n = 0; n < x.size; n++) {
      let at = start;
      for (let d = 0; d < x.ndim; d++) at += index[d]! * x.strides[d]! * x.itemsize;
      for (let b = 0; b < x.itemsize; b++) out.add(at + b);
      for (let d = x.ndim - 1; d >= 0; d--) {
        if (++index[d]! < x.shape[d]!) break;
        index[d] = 0;
      }
    }
    return out;
  }

  it("tells interleaved views and neighbouring columns apart, where mayShareMemory cannot", () => {
    const x = arrayAt(0x7f00_0000_0000n, [8, 8]);
    const flat = x.reshape([64]);
    expect(sharesMemory(flat.slice([0, null, 2]), flat.slice([1, null, 2]))).toBe(false);
    expect(mayShareMemory(flat.slice([0, null, 2]), flat.slice([1, null, 2]))).toBe(true);
    expect(sharesMemory(flat.slice([0, null, 2]), flat.slice([2, null, 4]))).toBe(true);
    expect(sharesMemory(x.slice(null, 0), x.slice(null, 1))).toBe(false);
    expect(sharesMemory(x.slice(null, 3), x.slice(5))).toBe(true);
    expect(sharesMemory(x, x.T)).toBe(true);
    expect(sharesMemory(x.slice([0, 4]), x.slice([4, 8]))).toBe(false);
    expect(sharesMemory(x.slice([0, 0]), x)).toBe(false);
    // Bytes of one float64 across two float32 elements: a partial overlap shares memory.
    expect(sharesMemory(over("float64", [1], [1], 4), over("float32", [2], [2], 0))).toBe(true);
    expect(sharesMemory(over("float64", [1], [1], 4), over("float32", [2], [2], 12))).toBe(false);
  });

  it("agrees with a byte-by-byte walk over random layouts of one buffer", () => {
    let seed = 12345;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor((seed / 2147483648) * n);
    };
    const dtypes = ["uint8", "int16", "float32", "float64"] as const;
    const itemsizes = { uint8: 1, int16: 2, float32: 4, float64: 8 };
    const make = (): DeviceArray => {
      const dtype = dtypes[random(4)]!;
      const ndim = 1 + random(3);
      const shape = Array.from({ length: ndim }, () => 1 + random(5));
      const strides = Array.from({ length: ndim }, () => random(13) - 4);
      let low = 0;
      for (let d = 0; d < ndim; d++) low += Math.min(0, strides[d]! * (shape[d]! - 1));
      const byteOffset = -low * itemsizes[dtype] + random(64);
      return over(dtype, shape, strides, byteOffset);
    };
    let shared = 0;
    for (let trial = 0; trial < 3000; trial++) {
      const a = make();
      const b = make();
      const bytesA = bytesOf(a);
      const expected = [...bytesOf(b)].some((byte) => bytesA.has(byte));
      if (expected) shared++;
      expect(sharesMemory(a, b), `${a.dtype.name} [${a.shape}] strides [${a.strides}] at ${a.address - base}; ${b.dtype.name} [${b.shape}] strides [${b.strides}] at ${b.address - base}`).toBe(expected);
      if (expected) expect(mayShareMemory(a, b)).toBe(true);
    }
    // Both answers came up often.
    expect(shared).toBeGreaterThan(300);
    expect(shared).toBeLessThan(2700);
  });

  it("gives up past maxWork with an UnsupportedError, at once at maxWork 0 where the byte ranges meet", () => {
    const a = over("float32", [64, 64], [67, 1], 0);
    // Rows of a leave gaps of 3 elements; b's elements, 2 bytes off the element grid, step 1009 and 17 elements.
    const b = over("float32", [15, 15], [1009, 17], 2);
    expect(sharesMemory(a, b)).toBe(true);
    expect(() => sharesMemory(a, b, { maxWork: 1 })).toThrow(UnsupportedError);
    expect(() => sharesMemory(a, b, { maxWork: 1 })).toThrow(/more than maxWork = 1 steps; raise maxWork/);
    expect(sharesMemory(a, b, { maxWork: 1000 })).toBe(true);
    const flat = over("uint8", [64], [1], 0);
    // maxWork 0: no search, so too hard wherever the byte ranges meet (NumPy's TooHardError); apart, false.
    expect(() => sharesMemory(flat.slice([0, null, 2]), flat.slice([1, null, 2]), { maxWork: 0 })).toThrow(UnsupportedError);
    expect(sharesMemory(flat.slice([0, 8]), flat.slice([8, 16]), { maxWork: 0 })).toBe(false);
    expect(() => sharesMemory(a, b, { maxWork: -1 })).toThrow(/maxWork is a count of steps/);
    expect(() => sharesMemory(a, b, { maxWork: 1.5 })).toThrow(/maxWork is a count of steps/);
    expect(() => sharesMemory(a, [1] as unknown as DeviceArray)).toThrow(/b is a DeviceArray, not/);
  });

  it("tells views 8 bytes off each other's 16-byte grid apart without a search, as NumPy", () => {
    // Every byte stride a multiple of 16, b 8 bytes past a's grid: the bytes within an element decide it at once
    // (NumPy answers in microseconds; enumerating the large strides first took seconds to minutes).
    const big = Buffer.fromHandle(0x7f00_0000_0000n, 2 ** 45, { owner: {} });
    const a = DeviceArray.fromBuffer(big, { dtype: "float64", shape: [80, 80, 80], strides: [64254, 18156, 89968] });
    const b = DeviceArray.fromBuffer(big, { dtype: "float64", shape: [80, 80, 80], strides: [73508, 40734, 77700], byteOffset: 8 });
    expect(mayShareMemory(a, b)).toBe(true);
    expect(sharesMemory(a, b, { maxWork: 100 })).toBe(false);
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
