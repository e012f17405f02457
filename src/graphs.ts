/**
 * `cuda-ts/graphs`: CUDA graphs: capturing a stream's work ({@link GraphBuilder}), building nodes explicitly
 * ({@link GraphDefinition}), conditional nodes, graph memory, and reading a graph back.
 *
 * ```ts
 * import { GraphBuilder } from "cuda-ts/graphs";
 * const builder = stream.createGraphBuilder().beginBuilding();
 * ```
 *
 * @module
 */
// The object layer this subject builds on (the root registers Device and DeviceArray with the layers below it).
import "./index.ts";
export { GraphBuilder, type GraphBuildMode } from "./core/graph/builder.ts";
export { Graph, type GraphCompleteOptions } from "./core/graph/graph.ts";
export { GraphDefinition, GraphNode, KernelNode, ConditionalNode, NodeBuilder, AllocNode, type GraphNodeType } from "./core/graph/definition.ts";
export { GraphCondition } from "./core/graph/condition.ts";
export type { GraphDebugPrintOptions } from "./core/graph/debug.ts";
export {
  graphNodeTypeName,
  inspectGraph,
  readNodeParams,
  type GraphNodeParams,
  type GraphStructure,
  type InspectedNode,
  type MemcpyEndpoint,
  type MemcpyEndpointType,
} from "./core/graph/inspect.ts";
export {
  GraphMemoryAttributes,
  GraphMemoryResource,
  type GraphMemoryAttributeName,
  type GraphMemoryAttributeValues,
} from "./core/memory/graph-memory-resource.ts";
