/**
 * DOT dumps of graphs (`cuGraphDebugDotPrint`), for `builder.debugDotPrint(path)` and
 * `definition.debugDotPrint(path)`. Render with Graphviz: `dot -Tsvg graph.dot -o graph.svg`.
 *
 * @module
 */
import { CUgraphDebugDot_flags, type CUgraph } from "../../bindings/driver.ts";
import { driver } from "../base/driver-state.ts";

/** What a DOT dump shows beyond the topology, node types, kernel names and copy directions (all default false). */
export interface GraphDebugPrintOptions {
  /** Everything below. */
  readonly verbose?: boolean;
  /** CUDA runtime names for structures instead of driver names. */
  readonly runtimeTypes?: boolean;
  /** Kernel parameter values. */
  readonly kernelNodeParams?: boolean;
  /** Copy parameters. */
  readonly memcpyNodeParams?: boolean;
  /** Memset parameters. */
  readonly memsetNodeParams?: boolean;
  /** Host node parameters. */
  readonly hostNodeParams?: boolean;
  /** Event node parameters. */
  readonly eventNodeParams?: boolean;
  /** Kernel node attributes. */
  readonly kernelNodeAttributes?: boolean;
  /** Node and function handles. */
  readonly handles?: boolean;
  /** Edge numbering. */
  readonly extraTopoInfo?: boolean;
  /** Conditional node parameters. */
  readonly conditionalNodeParams?: boolean;
}

const F = CUgraphDebugDot_flags;
const FLAGS: readonly [keyof GraphDebugPrintOptions, number][] = [
  ["verbose", F.CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE],
  ["runtimeTypes", F.CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES],
  ["kernelNodeParams", F.CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_PARAMS],
  ["memcpyNodeParams", F.CU_GRAPH_DEBUG_DOT_FLAGS_MEMCPY_NODE_PARAMS],
  ["memsetNodeParams", F.CU_GRAPH_DEBUG_DOT_FLAGS_MEMSET_NODE_PARAMS],
  ["hostNodeParams", F.CU_GRAPH_DEBUG_DOT_FLAGS_HOST_NODE_PARAMS],
  ["eventNodeParams", F.CU_GRAPH_DEBUG_DOT_FLAGS_EVENT_NODE_PARAMS],
  ["kernelNodeAttributes", F.CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_ATTRIBUTES],
  ["handles", F.CU_GRAPH_DEBUG_DOT_FLAGS_HANDLES],
  ["extraTopoInfo", F.CU_GRAPH_DEBUG_DOT_FLAGS_EXTRA_TOPO_INFO],
  ["conditionalNodeParams", F.CU_GRAPH_DEBUG_DOT_FLAGS_CONDITIONAL_NODE_PARAMS],
];

/** The CUgraphDebugDot_flags of the options (exported for tests). */
export function debugDotFlags(options: GraphDebugPrintOptions = {}): number {
  if (options === null || typeof options !== "object") throw new TypeError("debugDotPrint options must be an object of booleans ({ verbose: true, ... })");
  let flags = 0;
  for (const [name, flag] of FLAGS) {
    const v = options[name];
    if (v === undefined) continue;
    if (typeof v !== "boolean") throw new TypeError(`GraphDebugPrintOptions.${name} must be a boolean, not ${typeof v}`);
    if (v) flags |= flag;
  }
  return flags;
}

/** @internal Writes the DOT description of `graph` to `path`. */
export function debugDotPrint(graph: CUgraph, path: string, options?: GraphDebugPrintOptions): void {
  if (typeof path !== "string" || path === "") throw new TypeError("debugDotPrint takes a file path (a non-empty string)");
  driver.cuGraphDebugDotPrint(graph, path, debugDotFlags(options));
}
