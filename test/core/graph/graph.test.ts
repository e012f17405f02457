/**
 * Graphs without a GPU: what is checked before the driver is reached (node parameters, options, states), the
 * errors' wording, and conditions as kernel arguments.
 */
import { describe, expect, it } from "vitest";
import {
  CUDA_MEMCPY3D_st,
  CUgraphDebugDot_flags,
  CUgraphExecUpdateResult,
  CUgraphInstantiateResult,
  CUmemorytype,
} from "../../../src/bindings/driver.ts";
import {
  Buffer,
  GraphFeatureError,
  GraphInstantiateError,
  GraphStateError,
  GraphUpdateError,
  KernelScalar,
  LEGACY_DEFAULT_STREAM,
} from "../../../src/index.ts";
import { GraphCondition, GraphBuilder } from "../../../src/graphs.ts";
import { builderFromStream } from "../../../src/core/graph/builder.ts";
import { ffi } from "../../../src/ffi/index.ts";
import { GraphAttachments } from "../../../src/core/graph/attachments.ts";
import { conditionalPlan } from "../../../src/core/graph/condition.ts";
import { debugDotFlags } from "../../../src/core/graph/debug.ts";
import { fillPattern, memcpyNodeParams, memsetNodeParams } from "../../../src/core/graph/params.ts";
import { Graph, instantiateGraph, type GraphSource } from "../../../src/core/graph/graph.ts";
import { INTERNAL } from "../../../src/core/base/internal.ts";

const device = (address: bigint, size: number) => Buffer.fromHandle(address, size);

describe("graph node parameters (checked before the driver)", () => {
  it("a memset fills the whole buffer: bytes, 2- and 4-byte patterns", () => {
    const b = device(0x7000_0000n, 64);
    const p1 = memsetNodeParams(b, 7, "memset");
    expect([p1.dst, p1.value, p1.elementSize, p1.width, p1.height]).toEqual([0x7000_0000n, 7, 1, 64n, 1n]);
    const p4 = memsetNodeParams(b, Float32Array.of(1.5), "memset");
    expect([p4.value, p4.elementSize, p4.width]).toEqual([0x3fc00000, 4, 16n]);
    const p2 = memsetNodeParams(b, Uint16Array.of(0xbeef), "memset");
    expect([p2.value, p2.elementSize, p2.width]).toEqual([0xbeef, 2, 32n]);
  });

  it("a memset rejects bad patterns and sizes, saying what it takes", () => {
    const b = device(0x7000_0000n, 6);
    expect(() => memsetNodeParams(b, 256, "memset")).toThrow(/one byte \(an integer 0\.\.255\)/);
    expect(() => memsetNodeParams(b, Float64Array.of(1), "memset")).toThrow(/1, 2 or 4 bytes, not 8/);
    expect(() => memsetNodeParams(b, Uint32Array.of(1), "memset")).toThrow(/6 bytes are not a positive multiple of the 4-byte pattern/);
    expect(() => memsetNodeParams(new Uint8Array(4) as unknown as Buffer, 0, "memset")).toThrow(/destination must be a Buffer, not a Uint8Array of 4 bytes/);
    expect(fillPattern(Int8Array.of(-1), "x")).toEqual({ width: 1, bits: 255 });
  });

  it("a copy between buffers uses device memory; host memory is addressed as host memory", () => {
    const a = device(0x7000_0000n, 16);
    const b = device(0x7100_0000n, 16);
    const d2d = memcpyNodeParams(b, a, "memcpy");
    expect(d2d).toBeInstanceOf(CUDA_MEMCPY3D_st);
    expect([d2d.srcMemoryType, d2d.srcDevice, d2d.dstMemoryType, d2d.dstDevice]).toEqual([
      CUmemorytype.CU_MEMORYTYPE_DEVICE,
      0x7000_0000n,
      CUmemorytype.CU_MEMORYTYPE_DEVICE,
      0x7100_0000n,
    ]);
    expect([d2d.WidthInBytes, d2d.Height, d2d.Depth]).toEqual([16n, 1n, 1n]);
    const host = new Float32Array(new ArrayBuffer(16));
    const h2d = memcpyNodeParams(a, host, "memcpy");
    expect(h2d.srcMemoryType).toBe(CUmemorytype.CU_MEMORYTYPE_HOST);
    expect(ffi.addressOf(h2d.srcHost)).toBe(ffi.addressOf(ffi.pointerOf(host)));
    expect(h2d.dstMemoryType).toBe(CUmemorytype.CU_MEMORYTYPE_DEVICE);
  });

  it("a copy needs equal, non-zero sizes and memory on both sides", () => {
    expect(() => memcpyNodeParams(device(1n, 8), device(2n, 16), "memcpy")).toThrow(/source holds 16 bytes and the destination 8/);
    expect(() => memcpyNodeParams(device(1n, 0), new Uint8Array(0), "memcpy")).toThrow(/nothing to copy/);
    expect(() => memcpyNodeParams(device(1n, 8), 5 as unknown as Buffer, "memcpy")).toThrow(/source must be a Buffer, an ArrayBuffer or a typed array, not 5/);
  });
});

describe("graph options and errors", () => {
  it("debug print options map to CUgraphDebugDot_flags", () => {
    const F = CUgraphDebugDot_flags;
    expect(debugDotFlags()).toBe(0);
    expect(debugDotFlags({ verbose: true })).toBe(F.CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE);
    expect(debugDotFlags({ kernelNodeParams: true, handles: true, conditionalNodeParams: false })).toBe(
      F.CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_PARAMS | F.CU_GRAPH_DEBUG_DOT_FLAGS_HANDLES,
    );
    expect(() => debugDotFlags({ verbose: 1 as unknown as boolean })).toThrow(/verbose must be a boolean/);
  });

  it("complete/instantiate options are checked before the driver", () => {
    const source = { graph: null, context: undefined, attachments: new GraphAttachments(), origin: {} } as unknown as GraphSource;
    expect(() => instantiateGraph(source, { autoFreeOnLaunch: "yes" as unknown as boolean })).toThrow(/autoFreeOnLaunch must be a boolean/);
    expect(() => instantiateGraph(source, { autoFreeOnLaunch: true, deviceLaunch: true })).toThrow(/cannot be combined/);
    expect(() => instantiateGraph(source, { uploadStream: 3 as unknown as never })).toThrow(/GraphCompleteOptions: uploadStream must be a Stream \(or a GraphBuilder\), not 3/);
  });

  it("a refused update says why and what to do", () => {
    const e = new GraphUpdateError(CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
    expect(e.name).toBe("GraphUpdateError");
    expect(e.reason).toBe("CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED");
    expect(e.message).toMatch(/topology differs/);
    expect(e.message).toMatch(/build a new Graph/);
    expect(e.message).toMatch(/unchanged/);
  });

  it("a failed instantiation names the reason", () => {
    const e = new GraphInstantiateError(CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED);
    expect(e.reason).toBe("CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED");
    expect(e.message).toMatch(/no conditional node uses it/);
  });

  it("a feature the driver lacks names both versions", () => {
    const e = new GraphFeatureError("if/else conditional nodes (ifElse)", 12080, 12040);
    expect(e.message).toMatch(/CUDA 12\.8 or newer/);
    expect(e.message).toMatch(/supports CUDA 12\.4/);
    expect([e.required, e.installed]).toEqual([12080, 12040]);
  });

  it("the legacy default stream cannot be captured", () => {
    expect(() => LEGACY_DEFAULT_STREAM.createGraphBuilder()).toThrow(GraphStateError);
    expect(() => builderFromStream(LEGACY_DEFAULT_STREAM)).toThrow(/legacy default stream cannot be captured/);
  });
});

describe("GraphCondition", () => {
  it("is a u64 kernel argument holding the handle, and cannot be changed", () => {
    const c = new GraphCondition(INTERNAL, 0x1234_5678_9abcn, 1);
    expect(c).toBeInstanceOf(KernelScalar);
    expect(c.kind).toBe("u64");
    expect(c.size).toBe(8);
    expect(c.handle).toBe(0x1234_5678_9abcn);
    expect(c.defaultValue).toBe(1);
    const dv = new DataView(new ArrayBuffer(8));
    c.write(dv, 0);
    expect(dv.getBigUint64(0, true)).toBe(0x1234_5678_9abcn);
    expect(() => {
      c.value = 3n;
    }).toThrow(/cannot be changed/);
    expect(String(c)).toBe("GraphCondition(0x123456789abc)");
  });

  it("conditional nodes take a condition, and a switch a positive case count", () => {
    expect(() => conditionalPlan("if", 5, undefined, "ifThen")).toThrow(/ifThen takes a GraphCondition/);
    expect(() => conditionalPlan("switch", 1n, 0, "switch")).toThrow(/number of cases must be an integer ≥ 1/);
  });
});
