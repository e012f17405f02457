/**
 * Graph memory and introspection without a GPU: what is checked before the driver is reached (sizes, streams,
 * attribute names, free-node operands) and the names of the driver's node kinds.
 */
import { describe, expect, it } from "vitest";
import { CUgraphNodeType } from "../../src/bindings/driver.ts";
import {
  GraphMemoryResource,
  NodeBuilder,
  graphNodeTypeName,
  type GraphDefinition,
  type GraphNode,
} from "../../src/graphs.ts";
import { GraphMemoryAttributes, graphMemoryAttribute } from "../../src/core/memory/graph-memory-resource.ts";
import type { Device } from "../../src/core/device.ts";
import { INTERNAL } from "../../src/core/base/internal.ts";

/** A node builder whose definition is never reached: only argument checks run. */
class Unreached extends NodeBuilder {
  protected target(): GraphDefinition {
    return {} as GraphDefinition;
  }
  protected predecessors(): readonly GraphNode[] {
    return [];
  }
}

describe("graph memory (checked before the driver)", () => {
  const gmr = Object.create(GraphMemoryResource.prototype) as GraphMemoryResource;

  it("an allocation needs a stream and a size of at least one byte", () => {
    expect(() => gmr.allocate(64)).toThrow(/GraphMemoryResource\.allocate needs a stream: pass \{ stream \}/);
    expect(() => gmr.allocate(-1, {})).toThrow(/whole number of bytes/);
    expect(() => gmr.allocate(1.5, {})).toThrow(RangeError);
  });

  it("names the four graph memory attributes and refuses others", () => {
    expect(["usedMemCurrent", "usedMemHigh", "reservedMemCurrent", "reservedMemHigh"].map(graphMemoryAttribute)).toEqual([0, 1, 2, 3]);
    expect(() => graphMemoryAttribute("releaseThreshold")).toThrow(/no graph memory attribute is called "releaseThreshold"; the attributes are usedMemCurrent, usedMemHigh/);
    const attrs = new GraphMemoryAttributes(INTERNAL, {} as Device);
    expect(() => attrs.resetHigh("usedMemCurrent" as "usedMemHigh")).toThrow(/resets "usedMemHigh" or "reservedMemHigh"/);
  });

  it("a device is a Device or an ordinal", () => {
    expect(() => new GraphMemoryResource("0" as unknown as number)).toThrow(/takes a Device or a device ordinal, not/);
  });

  it("allocation and free nodes check their operands", () => {
    const b = new Unreached();
    expect(() => b.allocate(0)).toThrow(/cannot be empty/);
    expect(() => b.allocate(-4)).toThrow(RangeError);
    expect(() => b.deallocate("0x10" as unknown as bigint)).toThrow(/deallocate takes an AllocNode, its Buffer or a device address/);
    expect(() => b.deallocate(0n as never)).toThrow(/the address is 0/);
  });
});

describe("graph node kinds", () => {
  it("names every CUgraphNodeType of CUDA 13.0", () => {
    const names = Object.entries(CUgraphNodeType)
      .filter(([k]) => k.startsWith("CU_GRAPH_NODE_TYPE_"))
      .map(([, v]) => graphNodeTypeName(v));
    expect(new Set(names)).toEqual(
      new Set(["kernel", "memcpy", "memset", "host", "graph", "empty", "eventWait", "eventRecord", "externalSemaphoreSignal", "externalSemaphoreWait", "memAlloc", "memFree", "batchMemOp", "conditional"]),
    );
    expect(() => graphNodeTypeName(99)).toThrow(/unknown CUgraphNodeType 99/);
  });
});
