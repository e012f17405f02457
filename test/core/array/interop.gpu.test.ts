/**
 * DLPack and the CUDA Array Interface on a real GPU, for device, pinned (cuMemHostAlloc) and managed
 * (cuMemAllocManaged) memory: round trips keep the memory kind and the values; a kDLCUDAHost tensor a producer
 * hands over is host-accessible and re-exports as kDLCUDAHost; a CUDA Array Interface import asks the driver what
 * the pointer is; a kDLCPU tensor over pinned memory (as PyTorch exports pinned tensors) is taken as pinned memory.
 * Skips without a GPU.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Device, DeviceArray, LegacyPinnedMemoryResource, ManagedMemoryResource, type MemoryResource, type Stream } from "../../../src/index.ts";
import { DLDeviceType, DLPACK_LAYOUT, describeDLPack, fromCudaArrayInterface, fromDLPack, toDLPack } from "../../../src/interop.ts";
import { ffi } from "../../../src/ffi/index.ts";
import { gpu, skipNote } from "../../support/gpu.ts";

/** A versioned DLPack tensor laid out by hand, as a producer (PyTorch, CuPy) hands one over. */
function producerTensor(data: bigint, deviceType: number, deviceId: number, shape: number[]): { pointer: ReturnType<typeof ffi.pointerOf>; keep: unknown[] } {
  const L = DLPACK_LAYOUT;
  const bytes = new Uint8Array(L.DLManagedTensorVersioned.size);
  const dims = BigInt64Array.from(shape, BigInt);
  const dv = new DataView(bytes.buffer);
  const t = L.DLManagedTensorVersioned.dlTensor;
  dv.setUint32(0, 1, true);
  dv.setBigUint64(t + L.DLTensor.data, data, true);
  dv.setInt32(t + L.DLTensor.deviceType, deviceType, true);
  dv.setInt32(t + L.DLTensor.deviceId, deviceId, true);
  dv.setInt32(t + L.DLTensor.ndim, shape.length, true);
  dv.setUint8(t + L.DLTensor.dtypeCode, 2);
  dv.setUint8(t + L.DLTensor.dtypeBits, 32);
  dv.setUint16(t + L.DLTensor.dtypeLanes, 1, true);
  dv.setBigUint64(t + L.DLTensor.shape, ffi.bigAddressOf(ffi.pointerOf(dims)), true);
  return { pointer: ffi.pointerOf(bytes), keep: [bytes, dims] };
}

describe.skipIf(!gpu.available)(`DLPack and the CUDA Array Interface on a GPU${skipNote}`, () => {
  let dev: Device;
  let stream: Stream;
  let pinned: LegacyPinnedMemoryResource;
  let managed: ManagedMemoryResource;

  beforeAll(() => {
    if (!gpu.available) return;
    dev = new Device(0);
    dev.setCurrent();
    stream = dev.createStream();
    pinned = new LegacyPinnedMemoryResource();
    managed = new ManagedMemoryResource({ pool: false });
  });

  afterAll(() => {
    stream?.close();
  });

  const kinds = (): [string, MemoryResource | undefined, number, boolean, boolean][] => [
    ["device", undefined, DLDeviceType.kDLCUDA, false, false],
    ["pinned", pinned, DLDeviceType.kDLCUDAHost, true, false],
    ["managed", managed, DLDeviceType.kDLCUDAManaged, true, true],
  ];

  it("round-trips device, pinned and managed arrays through DLPack, keeping their kind and values", () => {
    for (const [name, mr, deviceType, host, isManaged] of kinds()) {
      using a = DeviceArray.from(Float32Array.from({ length: 12 }, (_, i) => i), { stream, shape: [3, 4], ...(mr !== undefined ? { memoryResource: mr } : {}) });
      for (const versioned of [true, false]) {
        const t = toDLPack(a.T, { versioned });
        const d = t.describe();
        expect([name, d.deviceType, d.deviceId]).toEqual([name, deviceType, deviceType === DLDeviceType.kDLCUDA ? dev.id : 0]);
        const back = fromDLPack(t.pointer, { owner: t, kind: versioned ? "managed-versioned" : "managed", stream });
        expect([name, back.buffer.isHostAccessible, back.buffer.isManaged]).toEqual([name, host, isManaged]);
        expect(back.address).toBe(a.address);
        expect([...back.toTypedArraySync({ stream })]).toEqual([0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]);
        expect(toDLPack(back).describe().deviceType).toBe(deviceType);
      }
    }
  });

  it("makes a read-only array of a read-only DLPack tensor, which re-exports read-only and refuses writes", () => {
    using a = DeviceArray.from(Float32Array.from([1, 2, 3, 4]), { stream, shape: [2, 2] });
    const t = toDLPack(a, { readOnly: true });
    const r = fromDLPack(t.pointer, { owner: t, stream });
    expect(r.readOnly).toBe(true);
    expect(a.readOnly).toBe(false);
    expect(describeDLPack(toDLPack(r)).readOnly).toBe(true);
    expect(describeDLPack(toDLPack(r.T)).readOnly).toBe(true);
    expect(r.cudaArrayInterface(stream).data[1]).toBe(true);
    expect(() => r.fill(0, { stream })).toThrow(/is read-only/);
    using c = r.copy({ stream });
    expect(c.readOnly).toBe(false);
    c.fill(5, { stream });
    expect([...r.toTypedArraySync({ stream })]).toEqual([1, 2, 3, 4]);
    expect(describeDLPack(toDLPack(a)).readOnly).toBe(false);
  });

  it("makes a host-accessible array of a pinned (kDLCUDAHost) tensor, which re-exports as kDLCUDAHost", () => {
    using src = DeviceArray.from(new Float32Array([1.5, 2.5, 3.5, 4.5]), { stream, memoryResource: pinned });
    stream.sync();
    const producer = producerTensor(src.address, DLDeviceType.kDLCUDAHost, 0, [4]);
    const a = fromDLPack(producer.pointer, { owner: producer });
    expect(a.buffer.isHostAccessible).toBe(true);
    expect([...a.buffer.asTypedArray(Float32Array)]).toEqual([1.5, 2.5, 3.5, 4.5]);
    a.buffer.asTypedArray(Float32Array)[0] = 9;
    expect([...a.toTypedArraySync({ stream })]).toEqual([9, 2.5, 3.5, 4.5]);
    expect(describeDLPack(toDLPack(a)).deviceType).toBe(DLDeviceType.kDLCUDAHost);
    expect(describeDLPack(toDLPack(a)).deviceId).toBe(0);
  });

  it("takes a kDLCPU tensor over pinned memory (as PyTorch exports pinned tensors) as pinned memory", () => {
    using src = DeviceArray.from(new Float32Array([7, 8]), { stream, memoryResource: pinned });
    stream.sync();
    const producer = producerTensor(src.address, DLDeviceType.kDLCPU, 0, [2]);
    const a = fromDLPack(producer.pointer, { owner: producer });
    expect([a.buffer.isHostAccessible, a.buffer.isManaged]).toEqual([true, false]);
    expect([...a.toTypedArraySync({ stream })]).toEqual([7, 8]);
    // Plain CPU memory the driver does not know is refused.
    const plain = new Float32Array(2);
    const unknown = producerTensor(ffi.bigAddressOf(ffi.pointerOf(plain)), DLDeviceType.kDLCPU, 0, [2]);
    expect(() => fromDLPack(unknown.pointer)).toThrow(/kDLCPU/);
  });

  it("finds the memory kind of a CUDA Array Interface pointer through the driver", () => {
    for (const [name, mr, deviceType, host, isManaged] of kinds()) {
      using a = DeviceArray.from(Float32Array.from({ length: 6 }, (_, i) => i * 2), { stream, shape: [2, 3], ...(mr !== undefined ? { memoryResource: mr } : {}) });
      const cai = a.T.cudaArrayInterface(stream);
      const b = fromCudaArrayInterface(cai, { owner: a, stream });
      expect([name, b.buffer.isHostAccessible, b.buffer.isManaged]).toEqual([name, host, isManaged]);
      if (!host) expect(b.buffer.deviceId).toBe(dev.id);
      expect(toDLPack(b).describe().deviceType).toBe(deviceType);
      expect([...b.toTypedArraySync({ stream })]).toEqual([0, 6, 2, 8, 4, 10]);
    }
  });
});
