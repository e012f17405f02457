/**
 * DeviceArrays over a stand-in buffer (an address nothing reads, host-accessible so no driver call asks its device),
 * for the math objects' argument checks without a GPU.
 */
import { Buffer, DeviceArray, type DTypeName, type MemoryResource } from "../../src/index.ts";

const BASE = 0x7f00_0000_0000n;

const hostResource: MemoryResource = {
  allocate: () => {
    throw new RangeError("not used");
  },
  deallocate: () => undefined,
  isDeviceAccessible: true,
  isHostAccessible: true,
  deviceId: -1,
};

/** A contiguous array of `shape` and `dtype` at a fake address. */
export function fake<N extends DTypeName>(shape: readonly number[], dtype: N): DeviceArray<N> {
  const n = shape.reduce((a, b) => a * b, 1);
  const buffer = Buffer.fromHandle(BASE, Math.max(16, n * 16), { memoryResource: hostResource });
  return DeviceArray.fromBuffer(buffer, { dtype, shape: [...shape] });
}
