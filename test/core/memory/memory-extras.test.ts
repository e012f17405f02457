/**
 * Memory extras without a GPU: a batched copy's plan (addresses, sizes, attributes) and its refusals, the managed
 * buffer's refusals of memory that is not managed, an IPC event descriptor's bytes, and a Buffer's deallocation
 * stream.
 */
import { describe, expect, it } from "vitest";
import {
  Buffer,
  ClosedError,
  DeviceArray,
  IPCFormatError,
  LEGACY_DEFAULT_STREAM,
  type MemoryResource,
} from "../../../src/index.ts";
import { ManagedBuffer, copyBatch, discardBatch, prefetchBatch } from "../../../src/memory.ts";
import { IPCEventDescriptor, EVENT_DESCRIPTOR_BYTES } from "../../../src/distributed.ts";
import { INTERNAL } from "../../../src/core/base/internal.ts";
import { planBatch } from "../../../src/core/memory/batch-copy.ts";
import { releaseNeverOnCollect } from "../../../src/core/memory/buffer.ts";
import { CUmemcpySrcAccessOrder } from "../../../src/bindings/driver.ts";

const A = 0x7f00_0000_0000n;
const B = 0x7f10_0000_0000n;
const borrowed = (at: bigint, size: number): Buffer => Buffer.fromHandle(at, size, { owner: {} });

describe("copyBatch", () => {
  it("plans addresses, sizes (default: the source's) and one set of attributes", () => {
    const arr = DeviceArray.fromBuffer(borrowed(B, 4096), { dtype: "float32", shape: [16], byteOffset: 64 });
    const p = planBatch([{ dst: borrowed(A, 256), src: borrowed(B, 128) }, { dst: borrowed(A + 256n, 64), src: arr, size: 64 }], { srcAccessOrder: "any", preferOverlapWithCompute: true });
    expect([...p.dsts]).toEqual([A, A + 256n]);
    expect([...p.srcs]).toEqual([B, B + 64n]);
    expect([...p.sizes]).toEqual([128n, 64n]);
    expect(p.attrs.srcAccessOrder).toBe(CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY);
    expect(p.attrs.flags).toBe(1);
    expect(planBatch([{ dst: borrowed(A, 8), src: borrowed(B, 8) }], {}).attrs.srcAccessOrder).toBe(CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM);
  });
  it("refuses sizes that do not fit, strided arrays, closed memory, empty batches and unknown orders", () => {
    expect(() => planBatch([{ dst: borrowed(A, 64), src: borrowed(B, 128) }], {})).toThrow(/copy 0 moves 128 bytes but its source has 128 and its destination 64/);
    const strided = DeviceArray.fromBuffer(borrowed(B, 4096), { dtype: "float32", shape: [8, 8] }).T;
    expect(() => planBatch([{ dst: borrowed(A, 4096), src: strided }], {})).toThrow(/must be contiguous/);
    const closed = borrowed(A, 64);
    closed.close();
    expect(() => planBatch([{ dst: closed, src: borrowed(B, 64) }], {})).toThrow(ClosedError);
    expect(() => planBatch([], {})).toThrow(/non-empty array/);
    expect(() => planBatch([{ dst: borrowed(A, 8), src: borrowed(B, 8) }], { srcAccessOrder: "later" as never })).toThrow(/srcAccessOrder is one of "stream", "during-api-call", "any"/);
    expect(() => planBatch([{ dst: 5 as never, src: borrowed(B, 8) }], {})).toThrow(/is a Buffer or a contiguous DeviceArray, not 5/);
  });
  it("refuses the legacy default stream before the driver", () => {
    expect(() => copyBatch([{ dst: borrowed(A, 8), src: borrowed(B, 8) }], { stream: LEGACY_DEFAULT_STREAM })).toThrow(/legacy default stream/);
  });
});

describe("ManagedBuffer and the batch operations", () => {
  it("refuse memory that is not managed, naming the resource to use", () => {
    expect(() => ManagedBuffer.from(borrowed(A, 64))).toThrow(/needs managed memory.*ManagedMemoryResource/);
    expect(() => prefetchBatch([borrowed(A, 64)], 0, { stream: LEGACY_DEFAULT_STREAM })).toThrow(/needs managed memory/);
    expect(() => discardBatch("x" as never, { stream: LEGACY_DEFAULT_STREAM })).toThrow(/takes an array of ManagedBuffers/);
  });
  it("prefetchBatch wants one location or one per buffer", () => {
    const managed: MemoryResource = { allocate: () => borrowed(A, 1), deallocate: () => undefined, isDeviceAccessible: true, isHostAccessible: true, isManaged: true, deviceId: -1 } as MemoryResource;
    const m = Buffer.fromHandle(A, 64, { memoryResource: managed });
    expect(() => prefetchBatch([m, m], [0], { stream: LEGACY_DEFAULT_STREAM })).toThrow(/1 locations for 2 buffers/);
    expect(() => prefetchBatch([m], "mars" as never, { stream: LEGACY_DEFAULT_STREAM })).toThrow(/a location is a Device/);
  });
});

describe("IPCEventDescriptor", () => {
  it("round-trips its bytes and refuses anything else", () => {
    const payload = Uint8Array.from({ length: 64 }, (_, i) => i * 3);
    const bytes = new IPCEventDescriptor(INTERNAL, payload).toBytes();
    expect(bytes.length).toBe(EVENT_DESCRIPTOR_BYTES);
    expect([...IPCEventDescriptor.fromBytes(bytes).payload]).toEqual([...payload]);
    expect(() => IPCEventDescriptor.fromBytes(new Uint8Array(10))).toThrow(IPCFormatError);
    const wrong = bytes.slice();
    wrong[0] = wrong[0]! ^ 1;
    expect(() => IPCEventDescriptor.fromBytes(wrong)).toThrow(/wrong magic/);
    expect(() => new IPCEventDescriptor(INTERNAL, new Uint8Array(63))).toThrow(IPCFormatError);
  });
});

describe("Buffer.deallocationStream", () => {
  it("defaults to the allocation stream, can be set, and is refused once closed or when not a Stream", () => {
    const freed: unknown[] = [];
    const mr: MemoryResource = { allocate: () => borrowed(A, 1), deallocate: (_p, _s, o) => void freed.push(o?.stream), isDeviceAccessible: true, isHostAccessible: true, deviceId: -1 };
    const b = Buffer.fromHandle(A, 64, { memoryResource: mr });
    expect(b.deallocationStream).toBeUndefined();
    b.deallocationStream = LEGACY_DEFAULT_STREAM;
    expect(b.deallocationStream).toBe(LEGACY_DEFAULT_STREAM);
    expect(() => (b.deallocationStream = 3 as never)).toThrow(/^Buffer: deallocationStream must be a Stream or undefined, not 3/);
    b.close();
    expect(freed).toEqual([LEGACY_DEFAULT_STREAM]);
    expect(() => (b.deallocationStream = undefined)).toThrow(ClosedError);
  });

  const gc = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc ?? (globalThis as { gc?: () => void }).gc;
  it.skipIf(gc === undefined)(`memory a graph owns stays out of the collector's release when its deallocation stream is set${gc === undefined ? " [skipped: no gc() to call on this runtime]" : ""}`, async () => {
    const freed: bigint[] = [];
    const mr: MemoryResource = { allocate: () => borrowed(A, 1), deallocate: (p) => void freed.push(p), isDeviceAccessible: true, isHostAccessible: true, deviceId: -1 };
    const N = 64;
    (() => {
      for (let i = 0; i < N; i++) {
        const owned = Buffer.fromHandle(A + BigInt(i), 8, { memoryResource: mr }); // a forgotten buffer: freed at collection
        void owned;
        const graphs = Buffer.fromHandle(A + 0x1_0000n + BigInt(i), 8, { memoryResource: mr });
        releaseNeverOnCollect(graphs); // as GraphMemoryResource.allocate does
        graphs.deallocationStream = LEGACY_DEFAULT_STREAM;
      }
    })();
    for (let i = 0; i < 10 && freed.length === 0; i++) {
      for (let j = 0; j < 6; j++) {
        gc!(true);
        await new Promise((r) => setTimeout(r, 0));
      }
    }
    expect(freed.length).toBeGreaterThan(0); // the collector ran and released forgotten buffers
    expect(freed.filter((p) => p >= A + 0x1_0000n)).toEqual([]); // but never one the graph owns
  });
});
