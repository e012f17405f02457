/**
 * Graph introspection: the nodes, edges and node kinds of a CUDA graph as the driver holds it, and each node's
 * parameters read back (cuGraphGetNodes, cuGraphGetEdges, cuGraphNodeGetType, cuGraph*NodeGetParams). Works for
 * graphs built node by node (`definition.inspect()`, `node.params`) and for captured ones (`builder.inspect()`),
 * where it shows what stream capture made of the work (kernel, memcpy, memset, host, allocation, free nodes ...).
 *
 * ```ts
 * const { nodes, edges } = builder.endBuilding().inspect();
 * for (const n of nodes) console.log(n.index, n.type, n.params);
 * ```
 *
 * @module
 */
import {
  CUgraphNodeType,
  CUmemorytype,
  type CUcontext,
  type CUdeviceptr,
  type CUevent,
  type CUfunction,
  type CUgraph,
  type CUgraphNode,
  type CUkernel,
} from "../../bindings/driver.ts";
import { ffi, type Pointer } from "../../ffi/index.ts";
import { driver } from "../base/driver-state.ts";
import type { GraphNodeType } from "./definition.ts";

const TYPES: Readonly<Record<number, GraphNodeType>> = Object.freeze({
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_KERNEL]: "kernel",
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEMCPY]: "memcpy",
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEMSET]: "memset",
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_HOST]: "host",
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_GRAPH]: "graph",
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_EMPTY]: "empty",
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_WAIT_EVENT]: "eventWait",
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_EVENT_RECORD]: "eventRecord",
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL]: "externalSemaphoreSignal",
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT]: "externalSemaphoreWait",
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEM_ALLOC]: "memAlloc",
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEM_FREE]: "memFree",
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_BATCH_MEM_OP]: "batchMemOp",
  [CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL]: "conditional",
});

/** The name of a driver node type (CUgraphNodeType); a RangeError for a value this version does not know. */
export function graphNodeTypeName(type: number): GraphNodeType {
  const t = TYPES[type];
  if (t === undefined) throw new RangeError(`unknown CUgraphNodeType ${type}: a newer driver's node kind that cuda-ts does not name yet`);
  return t;
}

/** Where one side of a copy node is: host memory, device memory, a CUDA array, or unified addressing. */
export type MemcpyEndpointType = "host" | "device" | "array" | "unified";

/** One side of a copy node. */
export interface MemcpyEndpoint {
  readonly memoryType: MemcpyEndpointType;
  /** The device address (device, unified) or host address (host); 0n for an array. */
  readonly address: bigint;
  /** Offset in bytes into the row, then row and slice. */
  readonly x: bigint;
  readonly y: bigint;
  readonly z: bigint;
  /** Bytes per row (0 for a one-row copy). */
  readonly pitch: bigint;
}

/** A node's parameters read back from the driver, by kind. */
export type GraphNodeParams =
  | {
      readonly type: "kernel";
      readonly grid: readonly [number, number, number];
      readonly block: readonly [number, number, number];
      readonly sharedMemory: number;
      /** The CUfunction launched (null when the node launches a CUkernel of a library). */
      readonly function: CUfunction | null;
      /** The CUkernel launched (null when the node launches a CUfunction). */
      readonly kernel: CUkernel | null;
      readonly context: CUcontext | null;
    }
  | {
      readonly type: "memcpy";
      readonly src: MemcpyEndpoint;
      readonly dst: MemcpyEndpoint;
      /** Bytes per row, rows, slices. */
      readonly widthInBytes: bigint;
      readonly height: bigint;
      readonly depth: bigint;
    }
  | {
      readonly type: "memset";
      readonly dst: CUdeviceptr;
      /** The pattern's bits. */
      readonly value: number;
      readonly elementSize: number;
      /** Elements per row, rows, and bytes per row. */
      readonly width: bigint;
      readonly height: bigint;
      readonly pitch: bigint;
    }
  | { readonly type: "host"; readonly fn: Pointer; readonly userData: Pointer }
  | { readonly type: "graph"; readonly graph: CUgraph }
  | { readonly type: "eventRecord" | "eventWait"; readonly event: CUevent }
  | { readonly type: "memAlloc"; readonly address: CUdeviceptr; readonly size: bigint; readonly deviceId: number }
  | { readonly type: "memFree"; readonly address: CUdeviceptr }
  /** Kinds whose parameters are not read back: empty nodes; conditional, external semaphore and batched memory
   * operation nodes (CUDA 13.0's driver API has no general cuGraphNodeGetParams). */
  | { readonly type: "empty" | "conditional" | "externalSemaphoreSignal" | "externalSemaphoreWait" | "batchMemOp" };

const MEMORY_TYPES: Readonly<Record<number, MemcpyEndpointType>> = {
  [CUmemorytype.CU_MEMORYTYPE_HOST]: "host",
  [CUmemorytype.CU_MEMORYTYPE_DEVICE]: "device",
  [CUmemorytype.CU_MEMORYTYPE_ARRAY]: "array",
  [CUmemorytype.CU_MEMORYTYPE_UNIFIED]: "unified",
};

function orNull<T>(p: T): T | null {
  return p === null || ffi.addressOf(p as Pointer) === 0 ? null : p;
}

/** Reads a node's parameters from the driver (the node's graph must be alive). */
export function readNodeParams(node: CUgraphNode): GraphNodeParams {
  const type = graphNodeTypeName(driver.cuGraphNodeGetType(node));
  switch (type) {
    case "kernel": {
      const p = driver.cuGraphKernelNodeGetParams(node);
      return {
        type,
        grid: [p.gridDimX, p.gridDimY, p.gridDimZ],
        block: [p.blockDimX, p.blockDimY, p.blockDimZ],
        sharedMemory: p.sharedMemBytes,
        function: orNull(p.func),
        kernel: orNull(p.kern),
        context: orNull(p.ctx),
      };
    }
    case "memcpy": {
      const p = driver.cuGraphMemcpyNodeGetParams(node);
      const side = (t: CUmemorytype, host: Pointer, device: CUdeviceptr, x: bigint, y: bigint, z: bigint, pitch: bigint): MemcpyEndpoint => {
        const memoryType = MEMORY_TYPES[t] ?? "device";
        const address = memoryType === "host" ? BigInt(ffi.addressOf(host)) : memoryType === "array" ? 0n : BigInt(device);
        return { memoryType, address, x, y, z, pitch };
      };
      return {
        type,
        src: side(p.srcMemoryType, p.srcHost, p.srcDevice, p.srcXInBytes, p.srcY, p.srcZ, p.srcPitch),
        dst: side(p.dstMemoryType, p.dstHost, p.dstDevice, p.dstXInBytes, p.dstY, p.dstZ, p.dstPitch),
        widthInBytes: p.WidthInBytes,
        height: p.Height,
        depth: p.Depth,
      };
    }
    case "memset": {
      const p = driver.cuGraphMemsetNodeGetParams(node);
      return { type, dst: p.dst, value: p.value, elementSize: p.elementSize, width: BigInt(p.width), height: BigInt(p.height), pitch: BigInt(p.pitch) };
    }
    case "host": {
      const p = driver.cuGraphHostNodeGetParams(node);
      return { type, fn: p.fn, userData: p.userData };
    }
    case "graph":
      return { type, graph: driver.cuGraphChildGraphNodeGetGraph(node) };
    case "eventRecord":
      return { type, event: driver.cuGraphEventRecordNodeGetEvent(node) };
    case "eventWait":
      return { type, event: driver.cuGraphEventWaitNodeGetEvent(node) };
    case "memAlloc": {
      const p = driver.cuGraphMemAllocNodeGetParams(node);
      return { type, address: p.dptr, size: p.bytesize, deviceId: p.poolProps.location.id };
    }
    case "memFree":
      return { type, address: driver.cuGraphMemFreeNodeGetParams(node) };
    default:
      return { type };
  }
}

/** A node of an inspected graph. */
export interface InspectedNode {
  /** Its position in `nodes` (the driver's order). */
  readonly index: number;
  readonly handle: CUgraphNode;
  readonly type: GraphNodeType;
  /** Its parameters, read when the graph was inspected. */
  readonly params: GraphNodeParams;
  /** The nodes it runs after. */
  readonly dependencies: readonly InspectedNode[];
  /** The nodes that run after it. */
  readonly dependents: readonly InspectedNode[];
}

/** The nodes and edges of a graph, read from the driver. */
export interface GraphStructure {
  readonly nodes: readonly InspectedNode[];
  /** [from, to]: `to` runs after `from`. */
  readonly edges: readonly (readonly [InspectedNode, InspectedNode])[];
  /** The nodes of one kind. */
  ofType(type: GraphNodeType): InspectedNode[];
}

/** Reads a graph's nodes, their kinds and parameters, and its edges. */
export function inspectGraph(graph: CUgraph): GraphStructure {
  const handles = driver.cuGraphGetNodes(graph);
  const byAddress = new Map<number, { index: number; handle: CUgraphNode; type: GraphNodeType; params: GraphNodeParams; dependencies: InspectedNode[]; dependents: InspectedNode[] }>();
  const nodes = handles.map((handle, index) => {
    const params = readNodeParams(handle);
    const n = { index, handle, type: params.type, params, dependencies: [] as InspectedNode[], dependents: [] as InspectedNode[] };
    byAddress.set(ffi.addressOf(handle), n);
    return n;
  });
  const edges: [InspectedNode, InspectedNode][] = [];
  if (nodes.length > 0) {
    const [from, to] = driver.cuGraphGetEdges(graph);
    for (let i = 0; i < from.length; i++) {
      const a = byAddress.get(ffi.addressOf(from[i]!));
      const b = byAddress.get(ffi.addressOf(to[i]!));
      if (a === undefined || b === undefined) continue;
      a.dependents.push(b);
      b.dependencies.push(a);
      edges.push([a, b]);
    }
  }
  return { nodes, edges, ofType: (type) => nodes.filter((n) => n.type === type) };
}
