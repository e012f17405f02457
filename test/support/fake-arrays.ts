/**
 * Arrays over fake memory for the CPU tests of argument checks: nothing is allocated, read or launched, so an
 * operation that gets past its checks fails (or skips) without a GPU.
 */
import { Buffer, DeviceArray, type DTypeName, type MemoryResource } from "../../src/index.ts";

/** A resource of fake memory: host-reachable (no device) for `deviceId` -1, else on device `deviceId`. */
export function fakeResource(deviceId: number): MemoryResource {
  return {
    allocate: () => {
      throw new Error("not used");
    },
    deallocate: () => undefined,
    isDeviceAccessible: true,
    isHostAccessible: deviceId < 0,
    deviceId,
  };
}

/** A `dtype` array of `shape` over 64 KiB of fake memory of {@link fakeResource}. */
export function fakeArray(shape: readonly number[], dtype: DTypeName, deviceId = -1): DeviceArray {
  return DeviceArray.fromBuffer(Buffer.fromHandle(0x7f00_0000_0000n, 1 << 16, { memoryResource: fakeResource(deviceId) }), { dtype, shape: [...shape] });
}
