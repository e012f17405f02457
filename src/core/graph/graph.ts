/**
 * `Graph`: an executable CUDA graph (CUgraphExec), made by `builder.complete()` (stream capture) or
 * `definition.instantiate()` (explicit nodes). Launch it on any stream of its device as often as wanted; upload
 * it ahead of the first launch to take the setup cost out of that launch; update it in place from another graph of
 * the same shape (`update`), or change one kernel node's arguments (`setKernelArguments`).
 *
 * ```ts
 * using builder = dev.createGraphBuilder().beginBuilding();
 * launch(builder, config, kernel, x, y);
 * using graph = builder.endBuilding().complete();
 * graph.launch(stream);
 * await stream.done();
 * ```
 *
 * A Graph keeps alive what its nodes use (kernels, buffers, host memory, host callbacks): see graph-attachments.ts.
 *
 * @module
 */
import { CUDA_HOST_NODE_PARAMS_st, CUDA_GRAPH_INSTANTIATE_PARAMS_st, CUgraphExecUpdateResultInfo_st, CUgraphInstantiate_flags, CUresult, cudaError, type CUgraph, type CUgraphExec } from "../../bindings/driver.ts";
import type { Context } from "../context.ts";
import { driver, makeCurrent } from "../base/driver-state.ts";
import { ClosedError } from "../base/errors.ts";
import type { GraphAttachments } from "./attachments.ts";
import type { GraphBuilder } from "./builder.ts";
import type { GraphDefinition, GraphNode, GraphNodeType, KernelNode } from "./definition.ts";
import type { Buffer, HostMemory } from "../memory/buffer.ts";
import { Event, markEventRecorded } from "../event.ts";
import { GraphInstantiateError, GraphStateError, GraphUpdateError } from "./errors.ts";
import { kernelNodeParams, memcpyNodeParams, memsetNodeParams } from "./params.ts";
import { holdUntilPassed, registerGraphHostFunction, type HostFunction } from "../host-callback.ts";
import type { Kernel } from "../launch/kernel.ts";
import type { KernelArgument, LaunchConfig, StreamLike } from "../launch/launch.ts";
import { track, untrack } from "../base/lifetime.ts";
import { Stream, captureSinkOf, keepAliveOn } from "../stream.ts";
import { describeValue } from "../../errors/describe.ts";
import { takeStream, type StreamSpec } from "../base/stream-arg.ts";

/** Options of `builder.complete()` and `definition.instantiate()` (names as cuda.core's GraphCompleteOptions). */
export interface GraphCompleteOptions {
  /** Free memory allocated inside the graph (allocation nodes) before it is launched again. Default false. */
  readonly autoFreeOnLaunch?: boolean;
  /** Upload the graph on this stream as part of instantiation (see {@link Graph.upload}). */
  readonly uploadStream?: StreamLike;
  /** Make the graph launchable from device code. Not with autoFreeOnLaunch. Default false. */
  readonly deviceLaunch?: boolean;
  /** Use the nodes' priority attributes instead of the launch stream's priority. Default false. */
  readonly useNodePriority?: boolean;
}

/**
 * The key of the method of a GraphBuilder or GraphDefinition that gives its {@link GraphSource} (what
 * Graph.instantiate, Graph.update and embed need); `action` names the call in messages.
 */
export const kGraphSource: unique symbol = Symbol("graphSource");

/** @internal Instantiates a graph (cuGraphInstantiateWithParams): what `complete()` and `instantiate()` do. */
export let instantiateGraph: (source: GraphSource, options?: GraphCompleteOptions) => Graph;

/** @internal What a Graph is made from: a graph (CUgraph) under construction and what it keeps alive. */
export interface GraphSource {
  readonly graph: CUgraph;
  readonly context: Context;
  readonly attachments: GraphAttachments;
  /** The GraphDefinition or GraphBuilder itself (kernel nodes are checked against it). */
  readonly origin: object;
}

const CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE = CUresult.CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;

function flag(options: GraphCompleteOptions, name: keyof GraphCompleteOptions): boolean {
  const v = options[name];
  if (v === undefined) return false;
  if (typeof v !== "boolean") throw new TypeError(`GraphCompleteOptions.${name} must be a boolean, not ${typeof v}`);
  return v;
}

const STREAM_LIKE: StreamSpec = Object.freeze({ like: true });
const UPLOAD_STREAM: StreamSpec = Object.freeze({ like: true, name: "uploadStream" });

/** An executable graph. */
export class Graph {
  #exec: CUgraphExec;
  #closed = false;
  readonly #context: Context;
  readonly #origin: object;
  #attachments: GraphAttachments;
  /** Arguments of kernel nodes set on this graph (setKernelNode), per node. */
  readonly #nodeArguments = new Map<GraphNode, unknown>();
  #lastStream: Stream | undefined;

  private constructor(exec: CUgraphExec, source: GraphSource) {
    this.#exec = exec;
    this.#context = source.context;
    this.#origin = source.origin;
    this.#attachments = source.attachments;
    const e = exec;
    const ctx = source.context;
    track(this, "Graph", () => {
      void ctx;
      driver.cuGraphExecDestroy(e);
    });
  }

  static {
    instantiateGraph = (source, options) => Graph.#instantiate(source, options);
  }

  static #instantiate(source: GraphSource, options: GraphCompleteOptions = {}): Graph {
    if (options === null || typeof options !== "object") throw new TypeError("GraphCompleteOptions must be an object");
    const F = CUgraphInstantiate_flags;
    let flags = 0;
    if (flag(options, "autoFreeOnLaunch")) flags |= F.CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH;
    if (flag(options, "deviceLaunch")) flags |= F.CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH;
    if (flag(options, "useNodePriority")) flags |= F.CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
    if (options.autoFreeOnLaunch === true && options.deviceLaunch === true) {
      throw new TypeError("GraphCompleteOptions: autoFreeOnLaunch and deviceLaunch cannot be combined (the driver refuses it); choose one");
    }
    const params = new CUDA_GRAPH_INSTANTIATE_PARAMS_st();
    if (options.uploadStream !== undefined) {
      flags |= F.CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
      params.hUploadStream = takeStream(options.uploadStream, "GraphCompleteOptions", UPLOAD_STREAM).handle;
    }
    params.flags = flags;
    let exec: CUgraphExec;
    try {
      exec = source.context.run(() => driver.cuGraphInstantiateWithParams(source.graph, params));
    } catch (e) {
      if (params.result_out !== 0) throw new GraphInstantiateError(params.result_out, e);
      throw e;
    }
    if (params.result_out !== 0) {
      driver.raw.cuGraphExecDestroy(exec);
      throw new GraphInstantiateError(params.result_out);
    }
    return new Graph(exec, source);
  }

  /** The CUgraphExec handle. */
  get handle(): CUgraphExec {
    if (this.#closed) throw new ClosedError("this Graph", "launch or update it");
    return this.#exec;
  }

  /** Whether close() has been called. */
  get isClosed(): boolean {
    return this.#closed;
  }

  /** Whether the graph contains host callbacks (whose launches need Deno and `await stream.done()`). */
  get hasHostCallbacks(): boolean {
    return this.#attachments.hasHostCallbacks;
  }

  /**
   * Queues the whole graph on `stream` (cuGraphLaunch). A graph with host callbacks holds them, and the event
   * loop, until the stream has passed them; wait for it with `await stream.done()`, not `stream.sync()` (see
   * host-callback.ts).
   */
  launch(stream: StreamLike): void {
    // The common case inline (a hot path, as in launch()): an open Stream; anything else is checked by takeStream.
    const s = stream instanceof Stream && !stream.isClosed ? stream : takeStream(stream, "Graph.launch", STREAM_LIKE);
    const exec = this.handle;
    makeCurrent(this.#context.handle);
    driver.cuGraphLaunch(exec, s.handle);
    this.#lastStream = s;
    captureSinkOf(s)?.push(this.#attachments, this);
    if (this.#attachments.hasHostCallbacks) holdUntilPassed(s, captureSinkOf(s), this.#attachments);
  }

  /** Uploads the graph to the device on `stream` ahead of its first launch, so that launch starts sooner. */
  upload(stream: StreamLike): void {
    const s = takeStream(stream, "Graph.upload", STREAM_LIKE);
    const exec = this.handle;
    makeCurrent(this.#context.handle);
    driver.cuGraphUpload(exec, s.handle);
  }

  /**
   * Updates the graph in place (cuGraphExecUpdate) from another graph of the same shape: a GraphBuilder whose
   * building has ended, or a GraphDefinition. Arguments, buffers, sizes and values may differ; the operations, their
   * order and their dependencies may not. Launches already queued are not affected.
   *
   * @throws GraphUpdateError saying why when the driver refuses (for example when the topology differs); the Graph
   *   is then unchanged.
   */
  update(source: GraphBuilder | GraphDefinition): void {
    const src = sourceOf(source, "Graph.update");
    const exec = this.handle;
    const info = new CUgraphExecUpdateResultInfo_st();
    const r = this.#context.run(() => driver.raw.cuGraphExecUpdate(exec, src.graph, info.$pointer()));
    if (r === CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) throw new GraphUpdateError(info.result);
    if (r !== 0) throw cudaError(r, "cuGraphExecUpdate");
    this.#retire(this.#attachments);
    this.#attachments = src.attachments;
  }

  /** Sets the arguments of a kernel node (from the GraphDefinition this graph was instantiated from) in this graph. */
  setKernelArguments(node: KernelNode, ...args: KernelArgument[]): void {
    this.setKernelNode(node, { args });
  }

  /**
   * Sets a kernel node's launch in this graph (cuGraphExecKernelNodeSetParams): its arguments, and optionally
   * another configuration (grid, block, shared memory; not the cluster shape or cooperativeness) or another kernel
   * of the same context. Only future launches see it; the GraphDefinition's node is unchanged.
   */
  setKernelNode(node: KernelNode, params: { readonly args: readonly KernelArgument[]; readonly config?: LaunchConfig; readonly kernel?: Kernel }): void {
    const exec = this.handle;
    if (node === null || typeof node !== "object" || node.type !== "kernel" || node.definition?.root !== this.#origin) {
      throw new GraphStateError(
        "Graph.setKernelNode: the node is not a kernel node of the GraphDefinition this Graph was instantiated from; pass a node returned by that definition's launch()",
      );
    }
    if (params === null || typeof params !== "object" || !Array.isArray(params.args)) {
      throw new TypeError("Graph.setKernelNode takes { args: [...], config?, kernel? }");
    }
    const config = params.config ?? node.config;
    const kernel = params.kernel ?? node.kernel;
    if (String(config.cluster) !== String(node.config.cluster) || config.cooperative !== node.config.cooperative) {
      throw new GraphStateError("Graph.setKernelNode: the cluster shape and cooperativeness of a kernel node cannot change in an instantiated graph; build a new Graph instead");
    }
    const p = kernelNodeParams(config, kernel, params.args, this.#context, "Graph.setKernelNode");
    this.#context.run(() => driver.cuGraphExecKernelNodeSetParams(exec, node.handle, p));
    this.#retire(this.#nodeArguments.get(node));
    this.#nodeArguments.set(node, [kernel, params.args]);
  }

  /**
   * Sets a memset node's destination and pattern in this graph (cuGraphExecMemsetNodeSetParams). The driver
   * accepts a destination of the same device, and a pattern of the same width and size as the node's.
   */
  setMemsetNode(node: GraphNode, dst: Buffer, value: number | ArrayBufferView): void {
    const exec = this.handle;
    this.#checkNode(node, ["memset"], "setMemsetNode", "memset()");
    const p = memsetNodeParams(dst, value, "Graph.setMemsetNode");
    this.#context.run(() => driver.cuGraphExecMemsetNodeSetParams(exec, node.handle, p, this.#context.handle));
    this.#keepForNode(node, [dst]);
  }

  /**
   * Sets a copy node's source and destination in this graph (cuGraphExecMemcpyNodeSetParams): the same sizes and
   * kinds of memory as the node's (device to device stays device to device).
   */
  setMemcpyNode(node: GraphNode, dst: Buffer | HostMemory, src: Buffer | HostMemory): void {
    const exec = this.handle;
    this.#checkNode(node, ["memcpy"], "setMemcpyNode", "memcpy()");
    const p = memcpyNodeParams(dst, src, "Graph.setMemcpyNode");
    this.#context.run(() => driver.cuGraphExecMemcpyNodeSetParams(exec, node.handle, p, this.#context.handle));
    this.#keepForNode(node, [dst, src]);
  }

  /** Sets the event an event record or event wait node uses in this graph (cuGraphExecEvent{Record,Wait}NodeSetEvent). */
  setEventNode(node: GraphNode, event: Event): void {
    const exec = this.handle;
    this.#checkNode(node, ["eventRecord", "eventWait"], "setEventNode", "record() or wait()");
    if (!(event instanceof Event)) throw new TypeError(`Graph.setEventNode takes an Event (device.createEvent()), not ${describeValue(event)}`);
    const e = event.handle;
    this.#context.run(() =>
      node.type === "eventRecord" ? driver.cuGraphExecEventRecordNodeSetEvent(exec, node.handle, e) : driver.cuGraphExecEventWaitNodeSetEvent(exec, node.handle, e),
    );
    if (node.type === "eventRecord") markEventRecorded(event);
    this.#keepForNode(node, [event]);
  }

  /**
   * Sets a child graph node's graph in this graph (cuGraphExecChildGraphNodeSetParams): a GraphDefinition or an
   * ended GraphBuilder of the same shape as the node's child (same nodes and edges, other parameters).
   */
  setChildGraphNode(node: GraphNode, child: GraphDefinition | GraphBuilder): void {
    const exec = this.handle;
    this.#checkNode(node, ["graph"], "setChildGraphNode", "embed()");
    const src = sourceOf(child, "Graph.setChildGraphNode");
    this.#context.run(() => driver.cuGraphExecChildGraphNodeSetParams(exec, node.handle, src.graph));
    this.#keepForNode(node, [src.attachments, src.origin]);
  }

  /**
   * Sets the function a host node runs in this graph (cuGraphExecHostNodeSetParams). Deno only, as host nodes are
   * (Bun throws UnsupportedOnRuntimeError).
   */
  setHostNode(node: GraphNode, fn: HostFunction): void {
    const exec = this.handle;
    this.#checkNode(node, ["host"], "setHostNode", "callback()");
    const { fn: pointer, userData } = registerGraphHostFunction(fn, this.#attachments, "Graph.setHostNode");
    const p = new CUDA_HOST_NODE_PARAMS_st();
    p.fn = pointer;
    p.userData = userData;
    this.#context.run(() => driver.cuGraphExecHostNodeSetParams(exec, node.handle, p));
  }

  /**
   * Turns a node off or on in this graph (cuGraphNodeSetEnabled): a disabled node does nothing when launched, as an
   * empty node, until enabled again. The driver allows it for kernel, memcpy and memset nodes.
   */
  setNodeEnabled(node: GraphNode, enabled: boolean): void {
    const exec = this.handle;
    this.#checkNode(node, ["kernel", "memcpy", "memset"], "setNodeEnabled", "launch(), memcpy() or memset()");
    if (typeof enabled !== "boolean") throw new TypeError(`Graph.setNodeEnabled: enabled is a boolean, not ${describeValue(enabled)}`);
    this.#context.run(() => driver.cuGraphNodeSetEnabled(exec, node.handle, enabled ? 1 : 0));
  }

  /** Whether a kernel, memcpy or memset node is enabled in this graph (cuGraphNodeGetEnabled). */
  isNodeEnabled(node: GraphNode): boolean {
    const exec = this.handle;
    this.#checkNode(node, ["kernel", "memcpy", "memset"], "isNodeEnabled", "launch(), memcpy() or memset()");
    return this.#context.run(() => driver.cuGraphNodeGetEnabled(exec, node.handle)) !== 0;
  }

  /** Throws GraphStateError unless `node` is a node of one of `types` of the definition this graph was made from. */
  #checkNode(node: GraphNode, types: readonly GraphNodeType[], action: string, adder: string): void {
    const n = node as Partial<GraphNode> | null;
    if (n === null || typeof n !== "object" || n.definition?.root !== this.#origin) {
      throw new GraphStateError(
        `Graph.${action}: the node is not a node of the GraphDefinition this Graph was instantiated from (${describeValue(node)}); pass a node returned by that definition's ${adder}`,
      );
    }
    if (!types.includes(n.type!)) {
      throw new GraphStateError(`Graph.${action}: the node is a ${n.type} node; this takes ${types.join(" or ")} nodes (made by ${adder})`);
    }
  }

  /** Keeps what a node's new parameters reference alive with the graph, retiring what the previous ones did. */
  #keepForNode(node: GraphNode, values: readonly unknown[]): void {
    this.#retire(this.#nodeArguments.get(node));
    this.#nodeArguments.set(node, values);
  }

  /** What earlier parameters referenced stays alive until the last launch's stream is synchronised. */
  #retire(value: unknown): void {
    if (value !== undefined && this.#lastStream !== undefined && !this.#lastStream.isClosed) keepAliveOn(this.#lastStream, value);
  }

  /** Destroys the executable graph (launches already queued still run); closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    untrack(this);
    driver.cuGraphExecDestroy(this.#exec);
    this.#retire(this.#attachments); // launches still queued may use what the nodes reference
    this.#nodeArguments.clear();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}

/** @internal The source of a GraphBuilder or GraphDefinition. */
export function sourceOf(source: GraphBuilder | GraphDefinition, action: string): GraphSource {
  const s = source as { [kGraphSource]?: (action: string) => GraphSource } | null;
  if (s === null || typeof s !== "object" || typeof s[kGraphSource] !== "function") {
    throw new TypeError(`${action} takes a GraphBuilder (whose building has ended) or a GraphDefinition, not ${describeValue(source)}`);
  }
  return s[kGraphSource](action);
}
