/**
 * Memory resources without a GPU: option checks, size arithmetic, pool attribute names, locations and advice, IPC
 * descriptor bytes, and host views (detached on close) over malloc'd memory behind a stand-in resource.
 */
import { describe, expect, it } from "vitest";
import { CUmem_advise, CUmemAccess_flags, CUmemAllocationHandleType, CUmemLocationType, CUmemPool_attribute } from "../../../src/bindings/driver.ts";
import { ffi } from "../../../src/ffi/index.ts";
import { Buffer, relocateBuffer } from "../../../src/core/memory/buffer.ts";
import { ClosedError, IPCFormatError } from "../../../src/core/errors.ts";
import { locationRecord, MANAGED_ADVICE, resolveAdvice, resolveLocation } from "../../../src/core/memory/location.ts";
import { BUFFER_DESCRIPTOR_BYTES, HANDLE_MESSAGE_BYTES, IPCAllocationHandle, IPCBufferDescriptor, uuidFromBytes, uuidToBytes } from "../../../src/core/memory/ipc.ts";
import { byteCount, resolveDevicePoolOptions, resolveManagedOptions, resolvePinnedOptions } from "../../../src/core/memory/options.ts";
import { decodePoolAttribute, encodePoolAttribute, POOL_ATTRIBUTES, poolAttributeInfo, ULLONG_MAX } from "../../../src/core/memory/pool-attributes.ts";
import { allocationSize, type MemoryResource } from "../../../src/core/memory/resource.ts";
import { detach, HostViewSlot, isDetached } from "../../../src/core/memory/view.ts";
import { alignUp, growthPlan, resolveVirtualOptions } from "../../../src/core/memory/virtual-options.ts";
import type { CUdeviceptr } from "../../../src/bindings/driver.ts";
import { INTERNAL } from "../../../src/core/base/internal.ts";

const libc = ffi.openLibrary("libc.so.6");
const malloc = libc.bind("malloc", { parameters: ["u64"], result: "pointer" } as const)!;
const free = libc.bind("free", { parameters: ["pointer"], result: "void" } as const)!;

/** A host-accessible resource over malloc/free, standing in for pinned memory. */
class MallocResource implements MemoryResource {
  readonly isDeviceAccessible = false;
  readonly isHostAccessible = true;
  readonly deviceId = -1;
  readonly live = new Set<bigint>();
  allocate(size: number | bigint): Buffer {
    const n = Number(allocationSize(size));
    const p = ffi.bigAddressOf(malloc(BigInt(Math.max(n, 1))));
    this.live.add(p);
    return Buffer.fromHandle(p, n, { memoryResource: this });
  }
  deallocate(ptr: CUdeviceptr): void {
    if (!this.live.delete(ptr)) throw new Error("double free");
    free(ffi.pointerFromAddress(ptr));
  }
}

describe("host views of host-accessible buffers", () => {
  it("see the memory without copying and read as detached after close", () => {
    const mr = new MallocResource();
    const b = mr.allocate(64);
    const f = b.asTypedArray(Float32Array);
    expect(f.length).toBe(16);
    f.fill(2.5);
    const again = b.asTypedArray(Uint8Array);
    expect(again.buffer).toBe(f.buffer); // one ArrayBuffer per buffer
    expect(b.asArrayBuffer()).toBe(f.buffer);
    // Both views share the native memory.
    expect(new Float32Array(again.buffer, 0, 1)[0]).toBe(2.5);
    const dv = b.asTypedArray(DataView);
    expect(dv.getFloat32(4, true)).toBe(2.5);
    const ab = b.asArrayBuffer();
    b.close();
    expect(mr.live.size).toBe(0);
    expect(f.length).toBe(0);
    expect(again.length).toBe(0);
    expect(f[0]).toBeUndefined();
    expect(ab.byteLength).toBe(0);
    expect(isDetached(ab)).toBe(true);
    expect(() => new Uint8Array(ab)).toThrow(TypeError);
    expect(() => dv.getFloat32(0, true)).toThrow(TypeError);
    expect(() => b.asTypedArray(Float32Array)).toThrow(ClosedError);
  });

  it("check the element size and refuse device-only memory", () => {
    const mr = new MallocResource();
    using b = mr.allocate(6);
    expect(() => b.asTypedArray(Float32Array)).toThrow(/not a whole number of Float32Array elements/);
    expect(b.asTypedArray(Uint16Array).length).toBe(3);
    const device = Buffer.fromHandle(0x1000n, 16);
    expect(() => device.asTypedArray(Uint8Array)).toThrow(/not host-accessible/);
    using empty = mr.allocate(0);
    expect(empty.asTypedArray(Float64Array).length).toBe(0);
  });

  it("are detached by relocate (a grown or moved allocation)", () => {
    const mr = new MallocResource();
    const b = mr.allocate(16);
    const v = b.asTypedArray(Uint32Array);
    const old = b.handle;
    const p = ffi.bigAddressOf(malloc(32n));
    mr.live.add(p);
    relocateBuffer(b, p as CUdeviceptr, 32);
    expect(v.length).toBe(0);
    expect(b.size).toBe(32);
    expect(b.asTypedArray(Uint32Array).length).toBe(8);
    mr.deallocate(old);
    b.close();
    expect(mr.live.size).toBe(0);
  });

  it("detach() never frees or copies the native memory", () => {
    const p = malloc(8n);
    const slot = new HostViewSlot();
    const owner = {};
    const ab = slot.get(owner, ffi.bigAddressOf(p), 8);
    new Uint8Array(ab)[0] = 9;
    const other = new Uint8Array(ffi.view(p as Parameters<typeof ffi.view>[0], 8));
    slot.release();
    expect(isDetached(ab)).toBe(true);
    expect(other[0]).toBe(9);
    detach(ab); // twice is harmless
    free(p);
  });
});

describe("memory resource options", () => {
  it("checks device pool options", () => {
    expect(resolveDevicePoolOptions({})).toEqual({ ipcEnabled: false, maxSize: 0n, releaseThreshold: undefined });
    expect(resolveDevicePoolOptions({ ipcEnabled: true, maxSize: 1 << 20, releaseThreshold: 5n })).toEqual({ ipcEnabled: true, maxSize: 1048576n, releaseThreshold: 5n });
    expect(() => resolveDevicePoolOptions({ maxSize: -1 })).toThrow(/maxSize is a non-negative whole number of bytes/);
    expect(() => resolveDevicePoolOptions({ maxSize: 1.5 })).toThrow(RangeError);
    expect(() => resolveDevicePoolOptions({ ipcEnabled: "yes" as unknown as boolean })).toThrow(/ipcEnabled is a boolean/);
    expect(() => resolveDevicePoolOptions({ ipc: true } as never)).toThrow(/no option "ipc"; the options are ipcEnabled, maxSize, releaseThreshold/);
  });

  it("puts IPC-enabled or NUMA pinned pools on a host NUMA node", () => {
    expect(resolvePinnedOptions()).toMatchObject({ location: "host", numaId: -1, ipcEnabled: false, accessibleBy: undefined });
    expect(resolvePinnedOptions({ ipcEnabled: true })).toMatchObject({ location: "host-numa", numaId: 0 });
    expect(resolvePinnedOptions({ numaId: 1 })).toMatchObject({ location: "host-numa", numaId: 1 });
    expect(resolvePinnedOptions({ accessibleBy: [0, { id: 2 }] }).accessibleBy).toEqual([0, 2]);
    expect(() => resolvePinnedOptions({ numaId: -1 })).toThrow(/numaId is a host NUMA node number/);
    expect(() => resolvePinnedOptions({ accessibleBy: ["gpu0"] as never })).toThrow(/accessibleBy holds Devices or device ordinals/);
  });

  it("resolves a managed preferred location", () => {
    expect(resolveManagedOptions().preferred).toEqual({ type: "none", id: -1 });
    expect(resolveManagedOptions({ preferredLocation: 1 }).preferred).toEqual({ type: "device", id: 1 });
    expect(resolveManagedOptions({ preferredLocation: { id: 0 } }).preferred).toEqual({ type: "device", id: 0 });
    expect(resolveManagedOptions({ preferredLocation: "host" }).preferred).toEqual({ type: "host", id: -1 });
    expect(resolveManagedOptions({ preferredLocation: { type: "host-numa", id: 3 } }).preferred).toEqual({ type: "host-numa", id: 3 });
    expect(() => resolveManagedOptions({ preferredLocation: -2 })).toThrow(/preferredLocation is a device ordinal/);
    expect(() => resolveManagedOptions({ preferredLocation: "gpu" as never })).toThrow(RangeError);
    expect(resolveManagedOptions().pool).toBe(true);
    expect(resolveManagedOptions({ pool: false }).pool).toBe(false);
    expect(() => resolveManagedOptions({ legacy: true } as never)).toThrow(/no option "legacy"; the options are preferredLocation, releaseThreshold, pool/);
  });

  it("checks byte counts and allocation sizes", () => {
    expect(byteCount(0, "x")).toBe(0n);
    expect(byteCount(ULLONG_MAX, "x")).toBe(ULLONG_MAX);
    expect(() => byteCount(ULLONG_MAX + 1n, "x")).toThrow(RangeError);
    expect(allocationSize(10n)).toBe(10);
    expect(allocationSize(0)).toBe(0);
    expect(() => allocationSize(-1)).toThrow(/whole number of bytes from 0 to 2\^64-1 \(a number or a bigint\), not -1$/);
    expect(() => allocationSize(-1n)).toThrow(/not -1n$/);
    expect(() => allocationSize(1.5)).toThrow(/not 1.5$/);
    expect(() => allocationSize(NaN)).toThrow(/not NaN$/);
    expect(() => allocationSize("8" as unknown as number)).toThrow(/not "8"$/);
  });

  it("passes every size up to 2^64-1 on to the driver (which answers what it cannot allocate)", () => {
    expect(allocationSize(2 ** 53 - 1)).toBe(2 ** 53 - 1);
    expect(allocationSize(2 ** 60)).toBe(1n << 60n);
    expect(allocationSize(1n << 60n)).toBe(1n << 60n);
    expect(allocationSize(2n ** 64n - 1n)).toBe(2n ** 64n - 1n);
    expect(() => allocationSize(2n ** 64n)).toThrow(RangeError);
    expect(() => allocationSize(2 ** 64)).toThrow(/more than 64 bits can count/);
  });
});

describe("virtual memory sizes and options", () => {
  it("rounds to the granularity and plans growth", () => {
    const g = 2n * 1024n * 1024n;
    expect(alignUp(0n, g)).toBe(0n);
    expect(alignUp(1n, g)).toBe(g);
    expect(alignUp(g, g)).toBe(g);
    expect(alignUp(g + 1n, g)).toBe(2n * g);
    expect(alignUp(10n, 3n)).toBe(12n);
    expect(() => alignUp(1n, 0n)).toThrow(RangeError);
    expect(growthPlan(g, g - 5n, g)).toEqual({ extra: 0n, total: g });
    expect(growthPlan(g, g + 1n, g)).toEqual({ extra: g, total: 2n * g });
    expect(growthPlan(g, 5n * g, g)).toEqual({ extra: 4n * g, total: 5n * g });
  });

  it("converts options to the driver's values", () => {
    const d = resolveVirtualOptions();
    expect(d.locationType).toBe(CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE);
    expect(d.handleType).toBe(CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_NONE);
    expect(d.selfAccess).toBe(CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    expect(d.addressAlignment).toBe(0n);
    const h = resolveVirtualOptions({ locationType: "host-numa", numaId: 1, handleType: "posix-fd", peers: [1, { id: 2 }], peerAccess: "read", granularity: "minimum" });
    expect(h).toMatchObject({ location: "host-numa", numaId: 1, peers: [1, 2], peerAccess: CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READ, granularityFlag: 0 });
    expect(h.handleType).toBe(CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    expect(() => resolveVirtualOptions({ locationType: "gpu" as never })).toThrow(/locationType is one of "device", "host", "host-numa", "host-numa-current"/);
    expect(() => resolveVirtualOptions({ addressAlignment: 3 })).toThrow(/power of two/);
    expect(() => resolveVirtualOptions({ numaId: 0 })).toThrow(/numaId applies to locationType "host-numa"/);
    expect(() => resolveVirtualOptions({ size: 1 } as never)).toThrow(/no option "size"/);
  });
});

describe("pool attributes", () => {
  it("map cuda.core's names to CUmemPool_attribute", () => {
    expect(Object.keys(POOL_ATTRIBUTES).sort()).toEqual(
      ["releaseThreshold", "reservedMemCurrent", "reservedMemHigh", "reuseAllowInternalDependencies", "reuseAllowOpportunistic", "reuseFollowEventDependencies", "usedMemCurrent", "usedMemHigh"],
    );
    expect(poolAttributeInfo("usedMemCurrent").attribute).toBe(CUmemPool_attribute.CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
    expect(poolAttributeInfo("reuseAllowOpportunistic")).toMatchObject({ kind: "bool", access: "read-write" });
    expect(() => poolAttributeInfo("used")).toThrow(/no memory pool attribute is called "used"/);
  });

  it("encode and decode values with the access rules", () => {
    const dv = new DataView(new ArrayBuffer(8));
    encodePoolAttribute("releaseThreshold", ULLONG_MAX, dv);
    expect(decodePoolAttribute("releaseThreshold", dv)).toBe(ULLONG_MAX);
    encodePoolAttribute("releaseThreshold", 4096, dv);
    expect(dv.getBigUint64(0, true)).toBe(4096n);
    encodePoolAttribute("reuseAllowOpportunistic", true, dv);
    expect(dv.getInt32(0, true)).toBe(1);
    expect(decodePoolAttribute("reuseAllowOpportunistic", dv)).toBe(true);
    encodePoolAttribute("usedMemHigh", 0n, dv);
    expect(() => encodePoolAttribute("usedMemHigh", 5n, dv)).toThrow(/can only be reset to 0/);
    expect(() => encodePoolAttribute("usedMemCurrent", 0n, dv)).toThrow(/read-only/);
    expect(() => encodePoolAttribute("reuseAllowOpportunistic", 1, dv)).toThrow(/is a boolean/);
    expect(() => encodePoolAttribute("releaseThreshold", true, dv)).toThrow(/byte count/);
    expect(() => encodePoolAttribute("releaseThreshold", -1, dv)).toThrow(RangeError);
  });
});

describe("memory locations and managed advice", () => {
  it("resolve devices, the host and NUMA nodes", () => {
    expect(resolveLocation(2, "prefetch")).toMatchObject({ type: "device", id: 2 });
    expect(resolveLocation({ id: 1 }, "prefetch")).toMatchObject({ type: "device", id: 1 });
    expect(resolveLocation("host", "prefetch")).toMatchObject({ type: "host", cuType: CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST });
    expect(resolveLocation({ type: "host-numa", id: 1 }, "prefetch")).toMatchObject({ cuType: CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST_NUMA, id: 1 });
    expect(() => resolveLocation(-1, "prefetch")).toThrow(/prefetch: a device ordinal must be a non-negative integer/);
    expect(() => resolveLocation({ type: "gpu", id: 0 } as never, "prefetch")).toThrow(/location type is one of/);
    expect(() => resolveLocation("device" as never, "prefetch")).toThrow(TypeError);
  });

  it("encode CUmemLocation as the 8 bytes passed by value", () => {
    const r = locationRecord(3, "prefetch");
    const bytes = r.$bytes();
    expect(bytes.length).toBe(8);
    const dv = new DataView(bytes.buffer, bytes.byteOffset, 8);
    expect(dv.getUint32(0, true)).toBe(CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE);
    expect(dv.getInt32(4, true)).toBe(3);
  });

  it("map advice names and demand a location where the driver needs one", () => {
    expect(MANAGED_ADVICE).toHaveLength(6);
    expect(resolveAdvice("read-mostly", undefined).advice).toBe(CUmem_advise.CU_MEM_ADVISE_SET_READ_MOSTLY);
    const p = resolveAdvice("preferred-location", "host");
    expect(p.advice).toBe(CUmem_advise.CU_MEM_ADVISE_SET_PREFERRED_LOCATION);
    expect(p.location.type).toBe(CUmemLocationType.CU_MEM_LOCATION_TYPE_HOST);
    expect(resolveAdvice("accessed-by", 0).location.id).toBe(0);
    expect(() => resolveAdvice("accessed-by", undefined)).toThrow(/needs a location/);
    expect(() => resolveAdvice("mostly-read" as never, 0)).toThrow(/advice is one of "read-mostly"/);
  });
});

describe("IPC descriptors", () => {
  const uuid = "0123abcd-4567-89ef-0123-456789abcdef";

  it("convert UUIDs to bytes and back", () => {
    expect(uuidFromBytes(uuidToBytes(uuid))).toBe(uuid);
    expect(() => uuidToBytes("not-a-uuid")).toThrow(IPCFormatError);
  });

  it("round-trip a buffer descriptor through bytes", () => {
    const payload = Uint8Array.from({ length: 64 }, (_, i) => i * 3);
    const d = new IPCBufferDescriptor(INTERNAL, payload, 123_456_789, uuid);
    const bytes = d.toBytes();
    expect(bytes.length).toBe(BUFFER_DESCRIPTOR_BYTES);
    const back = IPCBufferDescriptor.fromBytes(bytes);
    expect(back.size).toBe(123_456_789);
    expect(back.poolUuid).toBe(uuid);
    expect([...back.payload]).toEqual([...payload]);
    // An offset view of a larger buffer decodes too.
    const framed = new Uint8Array(BUFFER_DESCRIPTOR_BYTES + 8);
    framed.set(bytes, 8);
    expect(IPCBufferDescriptor.fromBytes(framed.subarray(8)).size).toBe(123_456_789);
  });

  it("reject malformed descriptor bytes with what was expected", () => {
    const good = new IPCBufferDescriptor(INTERNAL, new Uint8Array(64), 8, uuid).toBytes();
    expect(() => IPCBufferDescriptor.fromBytes(good.subarray(1))).toThrow(/is 96 bytes, not 95/);
    const wrongMagic = good.slice();
    wrongMagic[0] = 0;
    expect(() => IPCBufferDescriptor.fromBytes(wrongMagic)).toThrow(/wrong magic number/);
    const wrongVersion = good.slice();
    wrongVersion[4] = 9;
    expect(() => IPCBufferDescriptor.fromBytes(wrongVersion)).toThrow(/format version 9/);
    const huge = good.slice();
    new DataView(huge.buffer).setBigUint64(8, 1n << 60n, true);
    expect(() => IPCBufferDescriptor.fromBytes(huge)).toThrow(/larger than any buffer/);
    expect(() => new IPCBufferDescriptor(INTERNAL, new Uint8Array(63), 1, uuid)).toThrow(/64 bytes/);
  });

  it("encode the allocation-handle message sent with the descriptor", () => {
    const h = new IPCAllocationHandle(INTERNAL, 0, uuid); // fd 0 only as a number: never closed here
    const m = h.encodeMessage();
    expect(m.length).toBe(HANDLE_MESSAGE_BYTES);
    expect(IPCAllocationHandle.decodeMessage(m)).toEqual({ uuid });
    expect(() => IPCAllocationHandle.decodeMessage(new IPCBufferDescriptor(INTERNAL, new Uint8Array(64), 1, uuid).toBytes())).toThrow(IPCFormatError);
    expect(() => new IPCAllocationHandle(INTERNAL, -1, uuid)).toThrow(/non-negative integer/);
  });
});
