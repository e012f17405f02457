/**
 * Read-only arrays without a GPU: made over a made-up device address (nothing is read or written), from a read-only
 * CUDA Array Interface, their views, their re-export (the interface's data[1]; DLPack's flag is checked on a GPU in
 * interop.gpu.test.ts, as toDLPack asks the driver about the memory), and the writes that cuda-ts refuses before
 * anything is queued.
 */
import { describe, expect, it } from "vitest";
import { ArgumentError, Buffer, DeviceArray } from "../../../src/index.ts";
import * as ca from "../../../src/array.ts";
import { fromCudaArrayInterface, toDLPack } from "../../../src/core/array/interop.ts";

function arrayAt(address: bigint, shape: number[], readOnly: boolean): DeviceArray<"float32"> {
  const buffer = Buffer.fromHandle(address, 1 << 16, { owner: {} });
  return DeviceArray.fromBuffer(buffer, { dtype: "float32", shape, readOnly });
}

describe("read-only arrays", () => {
  it("are read-only with every view of them; other arrays are not", () => {
    const r = arrayAt(0x7f00_0000_0000n, [4, 6], true);
    const w = arrayAt(0x7f00_0001_0000n, [4, 6], false);
    expect(r.readOnly).toBe(true);
    expect(w.readOnly).toBe(false);
    for (const v of [r.slice([1, 3]), r.T, r.reshape(6, 4), r.view("int32"), r.subarray(0, 1).slice(null, [0, null, 2])]) expect(v.readOnly).toBe(true);
    expect(w.slice([1, 3]).readOnly).toBe(false);
  });

  it("come from a CUDA Array Interface whose data[1] is true, and say so when re-exported", () => {
    const desc = { shape: [3, 5], typestr: "<f4", data: [0x7f00_0000_0000n, true], version: 3 };
    const r = fromCudaArrayInterface(desc, { memoryType: "device" });
    expect(r.readOnly).toBe(true);
    expect(fromCudaArrayInterface({ ...desc, data: [0x7f00_0000_0000n, false] }, { memoryType: "device" }).readOnly).toBe(false);
    expect(r.cudaArrayInterface().data[1]).toBe(true);
    expect(r.slice(1).cudaArrayInterface().data[1]).toBe(true);
    const w = arrayAt(0x7f00_0001_0000n, [2], false);
    expect(w.cudaArrayInterface().data[1]).toBe(false);
  });

  it("refuse the legacy DLPack tensor, which cannot carry the read-only flag", () => {
    const r = arrayAt(0x7f00_0000_0000n, [2, 3], true);
    expect(() => toDLPack(r, { versioned: false })).toThrow(ArgumentError);
    expect(() => toDLPack(r, { versioned: false })).toThrow(/read-only and a legacy DLManagedTensor cannot say so/);
  });

  it("refuse writes through cuda-ts before anything is queued, naming the operation and what to do", () => {
    const r = arrayAt(0x7f00_0000_0000n, [4], true);
    const w = arrayAt(0x7f00_0001_0000n, [4], false);
    expect(() => r.fill(1)).toThrow(/DeviceArray.fill: the float32 array of shape \[4\] is read-only .*a\.copy\(\)/);
    expect(() => r.copyFrom(Float32Array.of(1, 2, 3, 4))).toThrow(ArgumentError);
    expect(() => w.copyTo(r)).toThrow(/DeviceArray.copyTo: dst: .* is read-only/);
    expect(() => ca.add(w, 1, { out: r })).toThrow(/add: out: .* is read-only/);
    expect(() => ca.exp(w, { out: r.slice([0, 4]) })).toThrow(ArgumentError);
    expect(() => ca.put(r, [0], 1)).toThrow(/put: .* is read-only/);
    expect(() => ca.cumsum(w, { out: r })).toThrow(/cumsum: out: .* is read-only/);
    expect(() => ca.concatenate([w], { out: r })).toThrow(/concatenate: out: .* is read-only/);
  });
});
