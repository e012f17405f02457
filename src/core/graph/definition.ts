/**
 * `GraphDefinition`: builds a CUDA graph node by node (explicit construction), in the style of cuda.core. Methods
 * of the definition add nodes with no dependencies; the same methods of a node add nodes that run after it;
 * `after(a, b)` adds nodes that run after several; `join(a, b)` adds an empty node after several.
 *
 * ```ts
 * using def = new GraphDefinition(dev);
 * const zero = def.memset(y, 0);
 * const k = zero.launch(config, axpy, f32(2), x, y, u32(n));
 * const done = k.record(event);
 * using graph = def.instantiate();
 * graph.launch(stream);
 * graph.setKernelArguments(k, f32(3), x, y, u32(n)); // later launches use 3
 * ```
 *
 * Nodes: kernel launches, memsets, copies (between buffers and host memory), event record and wait, child graphs,
 * empty nodes, host callbacks (Deno only, see host-callback.ts) and conditional nodes (CUDA 12.3+; their bodies
 * are GraphDefinitions too). What the nodes use stays alive as long as the definition and the Graphs made from it.
 *
 * @module
 */
import {
  CUDA_HOST_NODE_PARAMS_st,
  CUDA_MEM_ALLOC_NODE_PARAMS_v1_st,
  CUmemAllocationType,
  CUmemLocationType,
  type CUdeviceptr,
  type CUgraph,
  type CUgraphNode,
} from "../../bindings/driver.ts";
import { ffi, type Pointer } from "../../ffi/index.ts";
import { Buffer, type HostMemory } from "../memory/buffer.ts";
import { allocationSize } from "../memory/resource.ts";
import { inspectGraph, readNodeParams, type GraphNodeParams, type GraphStructure } from "./inspect.ts";
import type { Context } from "../context.ts";
import type { Device } from "../device.ts";
import { deviceOf, isDevice } from "../base/hub.ts";
import { driver } from "../base/driver-state.ts";
import { ClosedError } from "../base/errors.ts";
import { Event, markEventRecorded } from "../event.ts";
import { GraphAttachments } from "./attachments.ts";
import { conditionalBodies, conditionalNodeParams, conditionalPlan, createCondition, type ConditionalKind, type GraphCondition } from "./condition.ts";
import { debugDotPrint, type GraphDebugPrintOptions } from "./debug.ts";
import { GraphStateError } from "./errors.ts";
import { kernelNodeParams, memcpyNodeParams, memsetNodeParams, setKernelNodeAttributes } from "./params.ts";
import { Graph, instantiateGraph, kGraphSource, sourceOf, type GraphCompleteOptions, type GraphSource } from "./graph.ts";
import type { GraphBuilder } from "./builder.ts";
import { registerGraphHostFunction, type HostFunction } from "../host-callback.ts";
import type { Kernel } from "../launch/kernel.ts";
import type { KernelArgument, LaunchConfig } from "../launch/launch.ts";
import { track, untrack } from "../base/lifetime.ts";
import { describeValue } from "../../errors/describe.ts";
import { INTERNAL, checkInternal, type Internal } from "../base/internal.ts";

/**
 * The kind of a node (the driver's CUgraphNodeType by name). A GraphDefinition adds every kind but the external
 * semaphore and batched memory operation nodes, which appear only when a graph is read back (see inspect.ts).
 */
export type GraphNodeType =
  | "kernel"
  | "memcpy"
  | "memset"
  | "host"
  | "graph"
  | "empty"
  | "eventRecord"
  | "eventWait"
  | "conditional"
  | "memAlloc"
  | "memFree"
  | "externalSemaphoreSignal"
  | "externalSemaphoreWait"
  | "batchMemOp";

type Create = (graph: CUgraph, deps: Pointer, count: number) => CUgraphNode;

/** What the nodes of a definition use (module state of GraphDefinition). */
let attachmentsOf: (definition: GraphDefinition) => GraphAttachments;
/** Adds a node to `definition` after `deps`, keeping `keep` alive with the graph (module state of GraphDefinition). */
let addNode: <N extends GraphNode>(
  definition: GraphDefinition,
  deps: readonly GraphNode[],
  create: Create,
  keep: readonly unknown[],
  make: (h: CUgraphNode, deps: readonly GraphNode[]) => N,
) => N;
/** What the next `new GraphDefinition()` wraps instead of a new graph: a conditional node's body. */
let pendingBody: { readonly graph: CUgraph; readonly parent: GraphDefinition } | undefined;

/** The body graph of a conditional node of `parent`. */
function definitionBody(graph: CUgraph, parent: GraphDefinition): GraphDefinition {
  pendingBody = { graph, parent };
  return new GraphDefinition();
}

/** The methods that add nodes; on a definition they add root nodes, on a node they add nodes that run after it. */
export abstract class NodeBuilder {
  /** @internal The definition new nodes go into. */
  protected abstract target(): GraphDefinition;
  /** @internal The nodes new nodes depend on. */
  protected abstract predecessors(): readonly GraphNode[];

  /** Adds a kernel launch (arguments checked as `launch` checks them). */
  launch(config: LaunchConfig, kernel: Kernel, ...args: KernelArgument[]): KernelNode {
    const def = this.target();
    const p = kernelNodeParams(config, kernel, args, def.context, "launch");
    return addNode(
      def,
      this.predecessors(),
      (g, d, n) => {
        const node = driver.cuGraphAddKernelNode(g, d, n, p);
        setKernelNodeAttributes(node, config);
        return node;
      },
      [kernel, args],
      (h, deps) => new KernelNode(INTERNAL, def, h, deps, config, kernel, args),
    );
  }

  /** Adds a memset of all of `dst`: a byte (0..255), or a 1-, 2- or 4-byte pattern as a typed array. */
  memset(dst: Buffer, value: number | ArrayBufferView): GraphNode {
    const def = this.target();
    const p = memsetNodeParams(dst, value, "memset");
    return addNode(def, this.predecessors(), (g, d, n) => driver.cuGraphAddMemsetNode(g, d, n, p, def.context.handle), [dst], plain(def, "memset"));
  }

  /** Adds a copy of all of `src` into `dst` (equal sizes): buffers, or host memory (kept alive with the graph). */
  memcpy(dst: Buffer | HostMemory, src: Buffer | HostMemory): GraphNode {
    const def = this.target();
    const p = memcpyNodeParams(dst, src, "memcpy");
    return addNode(def, this.predecessors(), (g, d, n) => driver.cuGraphAddMemcpyNode(g, d, n, p, def.context.handle), [dst, src], plain(def, "memcpy"));
  }

  /** Adds an event record node: the event completes when the work before it has. */
  record(event: Event): GraphNode {
    const e = checkEvent(event, "record");
    const node = addNode(this.target(), this.predecessors(), (g, d, n) => driver.cuGraphAddEventRecordNode(g, d, n, e.handle), [e], plain(this.target(), "eventRecord"));
    markEventRecorded(e); // the event counts as recorded for wait() and elapsed time once a graph can record it
    return node;
  }

  /** Adds an event wait node: work after it waits for the event's last record (in this graph or elsewhere). */
  wait(event: Event): GraphNode {
    const e = checkEvent(event, "wait");
    return addNode(this.target(), this.predecessors(), (g, d, n) => driver.cuGraphAddEventWaitNode(g, d, n, e.handle), [e], plain(this.target(), "eventWait"));
  }

  /** Adds a copy of another graph (a GraphDefinition, or a GraphBuilder whose building has ended) as a child graph. */
  embed(child: GraphDefinition | GraphBuilder): GraphNode {
    const src = sourceOf(child, "embed");
    const def = this.target();
    const node = addNode(def, this.predecessors(), (g, d, n) => driver.cuGraphAddChildGraphNode(g, d, n, src.graph), [], plain(def, "graph"));
    attachmentsOf(def).include(src.attachments);
    return node;
  }

  /**
   * Adds an allocation node (cuGraphAddMemAllocNode): `size` bytes of device memory of the definition's device,
   * allocated each time a launch reaches the node. The address (`node.address`, or `node.buffer` to pass to
   * kernels and copies) is fixed when the node is added and valid in the nodes after it; free it with
   * `deallocate(node)` later in the graph, or instantiate with `autoFreeOnLaunch`, or free it after a launch
   * (`node.buffer` is borrowed: close it only to forget it). A graph with allocation nodes can be instantiated once
   * at a time, and cannot be embedded or cloned (the driver's rules).
   */
  allocate(size: number | bigint): AllocNode {
    const def = this.target();
    const n = allocationSize(size);
    if (n === 0) throw new RangeError("allocate: a graph allocation node cannot be empty; ask for at least 1 byte");
    const p = new CUDA_MEM_ALLOC_NODE_PARAMS_v1_st();
    p.poolProps.allocType = CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED;
    p.poolProps.location.type = CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE;
    p.poolProps.location.id = def.context.device.id;
    p.bytesize = n;
    return addNode(
      def,
      this.predecessors(),
      (g, d, k) => driver.cuGraphAddMemAllocNode(g, d, k, p.$pointer()),
      [],
      (h, deps) => new AllocNode(INTERNAL, def, h, deps, p.dptr, Number(n)),
    );
  }

  /**
   * Adds a free node (cuGraphAddMemFreeNode) for memory an allocation node allocated: the AllocNode itself, its
   * buffer, or the address. The memory must not be used by nodes after it.
   */
  deallocate(memory: AllocNode | Buffer | CUdeviceptr): GraphNode {
    const def = this.target();
    let address: CUdeviceptr;
    if (memory instanceof AllocNode) address = memory.address;
    else if (typeof memory === "bigint") address = memory;
    else if (memory !== null && typeof memory === "object" && typeof (memory as Partial<Buffer>).handle === "bigint") address = (memory as Buffer).handle;
    else throw new TypeError(`deallocate takes an AllocNode, its Buffer or a device address (a bigint), not ${describeValue(memory)}`);
    if (address === 0n) throw new RangeError("deallocate: the address is 0; pass the AllocNode whose memory is freed");
    return addNode(def, this.predecessors(), (g, d, k) => driver.cuGraphAddMemFreeNode(g, d, k, address), [], plain(def, "memFree"));
  }

  /** Adds an empty node (a point to depend on). */
  empty(): GraphNode {
    const def = this.target();
    return addNode(def, this.predecessors(), (g, d, n) => driver.cuGraphAddEmptyNode(g, d, n), [], plain(def, "empty"));
  }

  /** Adds an empty node that runs after these nodes and `nodes`. */
  join(...nodes: GraphNode[]): GraphNode {
    return new Dependents(this.target(), [...this.predecessors(), ...nodes], "join").empty();
  }

  /**
   * Adds a host callback: `fn` runs on the host each time a launch reaches the node. Deno only: Bun throws
   * UnsupportedOnRuntimeError; wait for launches with `await stream.done()`, not `stream.sync()` (see host-callback.ts).
   */
  callback(fn: HostFunction): GraphNode {
    const def = this.target();
    const { fn: pointer, userData } = registerGraphHostFunction(fn, attachmentsOf(def), "GraphDefinition.callback");
    const p = new CUDA_HOST_NODE_PARAMS_st();
    p.fn = pointer;
    p.userData = userData;
    return addNode(def, this.predecessors(), (g, d, n) => driver.cuGraphAddHostNode(g, d, n, p), [], plain(def, "host"));
  }

  /** Adds an if node (CUDA 12.3+): its body (`node.bodies[0]`) runs when the condition is non-zero. */
  ifThen(condition: GraphCondition): ConditionalNode {
    return this.#conditional("if", condition, undefined, "ifThen");
  }

  /** Adds an if/else node (CUDA 12.8+): `bodies[0]` runs when the condition is non-zero, `bodies[1]` when zero. */
  ifElse(condition: GraphCondition): ConditionalNode {
    return this.#conditional("ifElse", condition, undefined, "ifElse");
  }

  /** Adds a while node (CUDA 12.3+): its body (`bodies[0]`) runs again and again while the condition is non-zero. */
  whileLoop(condition: GraphCondition): ConditionalNode {
    return this.#conditional("while", condition, undefined, "whileLoop");
  }

  /** Adds a switch node (CUDA 12.8+) of `count` bodies: body n runs when the condition is n. */
  switch(condition: GraphCondition, count: number): ConditionalNode {
    return this.#conditional("switch", condition, count, "switch");
  }

  #conditional(kind: ConditionalKind, condition: GraphCondition, count: number | undefined, action: string): ConditionalNode {
    const { handle, size } = conditionalPlan(kind, condition, count, action);
    const def = this.target();
    const p = conditionalNodeParams(kind, handle, size, def.context);
    return addNode(
      def,
      this.predecessors(),
      (g, d, n) => driver.cuGraphAddNode(g, d, null, n, p),
      [condition],
      (h, deps) => new ConditionalNode(INTERNAL, def, h, deps, condition, conditionalBodies(p, size).map((b) => definitionBody(b, def))),
    );
  }
}

function plain(def: GraphDefinition, type: GraphNodeType): (h: CUgraphNode, deps: readonly GraphNode[]) => GraphNode {
  return (h, deps) => new GraphNode(INTERNAL, def, h, deps, type);
}

function checkEvent(event: Event, action: string): Event {
  if (!(event instanceof Event)) throw new TypeError(`${action} takes an Event (device.createEvent()), not ${describeValue(event)}`);
  return event;
}

/** A node of a GraphDefinition. Its builder methods add nodes that run after it. */
export class GraphNode extends NodeBuilder {
  readonly #handle: CUgraphNode;
  /** The definition the node belongs to. */
  readonly definition: GraphDefinition;
  /** The kind of node. */
  readonly type: GraphNodeType;
  /** The nodes it runs after. */
  readonly dependencies: readonly GraphNode[];

  /** Reserved to cuda-ts (the token is not exported): the methods of a GraphDefinition or a node add nodes. */
  constructor(token: Internal, definition: GraphDefinition, handle: CUgraphNode, dependencies: readonly GraphNode[], type: GraphNodeType) {
    super();
    checkInternal(token, "GraphNode", "the methods of a GraphDefinition or a node (definition.launch(...))");
    this.definition = definition;
    this.#handle = handle;
    this.dependencies = dependencies;
    this.type = type;
  }

  /** The CUgraphNode handle (valid while the definition is open). */
  get handle(): CUgraphNode {
    if (this.definition.isClosed) throw new ClosedError("this node's GraphDefinition", "use the node");
    return this.#handle;
  }

  /** The node's parameters as the driver holds them now (see inspect.ts for what each kind reports). */
  get params(): GraphNodeParams {
    const h = this.handle;
    return this.definition.context.run(() => readNodeParams(h));
  }

  /** The nodes that run after this one (added so far). */
  get dependents(): readonly GraphNode[] {
    return this.definition.nodes.filter((n) => n.dependencies.includes(this));
  }

  protected target(): GraphDefinition {
    return this.definition;
  }

  protected predecessors(): readonly GraphNode[] {
    return [this];
  }
}

/** A kernel launch node: what `Graph.setKernelArguments(node, ...)` changes in an instantiated graph. */
export class KernelNode extends GraphNode {
  /** Reserved to cuda-ts (the token is not exported): the methods of a GraphDefinition or a node add nodes. */
  constructor(
    token: Internal,
    definition: GraphDefinition,
    handle: CUgraphNode,
    dependencies: readonly GraphNode[],
    /** The configuration it was added with. */
    readonly config: LaunchConfig,
    /** The kernel it launches. */
    readonly kernel: Kernel,
    /** The arguments it was added with. */
    readonly args: readonly KernelArgument[],
  ) {
    super(token, definition, handle, dependencies, "kernel");
  }
}

/** An allocation node: graph memory allocated when a launch reaches it (see `allocate`). */
export class AllocNode extends GraphNode {
  /** The memory as a Buffer to pass to kernels and copies (borrowed: the graph owns the memory). */
  readonly buffer: Buffer;

  /** Reserved to cuda-ts (the token is not exported): the methods of a GraphDefinition or a node add nodes. */
  constructor(
    token: Internal,
    definition: GraphDefinition,
    handle: CUgraphNode,
    dependencies: readonly GraphNode[],
    /** The allocation's device address (fixed for the graph's life). */
    readonly address: CUdeviceptr,
    /** Its size in bytes. */
    readonly size: number,
  ) {
    super(token, definition, handle, dependencies, "memAlloc");
    this.buffer = Buffer.fromHandle(address, size, { owner: definition });
  }
}

/** A conditional node (if, if/else, while, switch); build its bodies through `bodies`. */
export class ConditionalNode extends GraphNode {
  /** Reserved to cuda-ts (the token is not exported): the methods of a GraphDefinition or a node add nodes. */
  constructor(
    token: Internal,
    definition: GraphDefinition,
    handle: CUgraphNode,
    dependencies: readonly GraphNode[],
    /** The condition it reads. */
    readonly condition: GraphCondition,
    /** The body graphs (owned by the node): one for if and while, two for if/else, `count` for switch. */
    readonly bodies: readonly GraphDefinition[],
  ) {
    super(token, definition, handle, dependencies, "conditional");
  }
}

/** Adds nodes that depend on a given set of nodes (`definition.after(a, b)`). */
class Dependents extends NodeBuilder {
  readonly #definition: GraphDefinition;
  readonly #nodes: readonly GraphNode[];

  constructor(definition: GraphDefinition, nodes: readonly GraphNode[], action: string) {
    super();
    for (const n of nodes) {
      if (!(n instanceof GraphNode)) throw new TypeError(`${action} takes GraphNodes, not ${describeValue(n)}`);
      if (n.definition !== definition) throw new GraphStateError(`${action}: every node must belong to the same GraphDefinition`);
    }
    this.#definition = definition;
    this.#nodes = nodes;
  }

  protected target(): GraphDefinition {
    return this.#definition;
  }

  protected predecessors(): readonly GraphNode[] {
    return this.#nodes;
  }
}

/** A graph built node by node. */
export class GraphDefinition extends NodeBuilder {
  #graph: CUgraph;
  #closed = false;
  /** The context its nodes run in. */
  readonly context: Context;
  /** What the nodes use (shared with conditional bodies and the Graphs made from it). */
  readonly #attachments: GraphAttachments;
  readonly #parent: GraphDefinition | undefined;
  readonly #nodes: GraphNode[] = [];

  static {
    attachmentsOf = (d) => d.#attachments;
    addNode = (d, deps, create, keep, make) => d.#addNode(deps, create, keep, make);
  }

  /** An empty graph for `device` (default: the current device; it must have been made current with setCurrent()). */
  constructor(device?: Device) {
    super();
    const body = pendingBody;
    pendingBody = undefined;
    if (body !== undefined) {
      this.#graph = body.graph;
      this.#parent = body.parent;
      this.context = body.parent.context;
      this.#attachments = body.parent.#attachments;
      return;
    }
    if (device !== undefined && !isDevice(device)) throw new TypeError(`GraphDefinition takes a Device, not ${describeValue(device)}`);
    this.context = (device ?? deviceOf()).context;
    this.#parent = undefined;
    this.#attachments = new GraphAttachments();
    const graph = this.context.run(() => driver.cuGraphCreate(0));
    this.#graph = graph;
    track(this, "GraphDefinition", () => driver.cuGraphDestroy(graph));
  }

  /** The CUgraph handle. */
  get handle(): CUgraph {
    if (this.isClosed) throw new ClosedError("this GraphDefinition", "add nodes or instantiate it");
    return this.#graph;
  }

  /** Whether it (or, for a conditional body, its parent) was closed. */
  get isClosed(): boolean {
    return this.#closed || (this.#parent?.isClosed ?? false);
  }

  /** The definition at the top (itself, unless it is a conditional body). */
  get root(): GraphDefinition {
    return this.#parent?.root ?? this;
  }

  /** The nodes added so far, in order. */
  get nodes(): readonly GraphNode[] {
    return this.#nodes;
  }

  /** The edges added so far, as [from, to] pairs: `to` runs after `from`. */
  get edges(): readonly (readonly [GraphNode, GraphNode])[] {
    const out: [GraphNode, GraphNode][] = [];
    for (const n of this.#nodes) for (const d of n.dependencies) out.push([d, n]);
    return out;
  }

  /**
   * The graph as the driver holds it: every node with its kind and parameters, and every edge (cuGraphGetNodes,
   * cuGraphGetEdges). The same as `nodes` and `edges` for a definition, and what a captured graph is made of.
   */
  inspect(): GraphStructure {
    const g = this.handle;
    return this.context.run(() => inspectGraph(g));
  }

  /** Adds nodes that run after all of `nodes`: `definition.after(a, b).launch(...)`. */
  after(...nodes: GraphNode[]): NodeBuilder {
    return new Dependents(this, nodes, "after");
  }

  /** Creates a condition for conditional nodes in this graph (CUDA 12.3+); `defaultValue` is set at each launch. */
  createCondition(defaultValue?: number | boolean): GraphCondition {
    return createCondition(this.handle, this.context, defaultValue);
  }

  /** Makes an executable Graph. Can be called more than once; later nodes do not change earlier Graphs. */
  instantiate(options?: GraphCompleteOptions): Graph {
    return instantiateGraph(this[kGraphSource]("instantiate"), options);
  }

  /** Writes a DOT description of the graph to `path`. */
  debugDotPrint(path: string, options?: GraphDebugPrintOptions): void {
    debugDotPrint(this.handle, path, options);
  }

  /** Destroys the graph (Graphs made from it stay valid, except for node updates). Closing twice is harmless. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#parent === undefined) {
      untrack(this);
      driver.cuGraphDestroy(this.#graph);
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  [kGraphSource](action: string): GraphSource {
    if (this.#parent !== undefined) throw new GraphStateError(`${action}: a conditional body is part of its parent's graph: use the parent GraphDefinition`);
    return { graph: this.handle, context: this.context, attachments: this.#attachments, origin: this };
  }

  #addNode<N extends GraphNode>(deps: readonly GraphNode[], create: Create, keep: readonly unknown[], make: (h: CUgraphNode, deps: readonly GraphNode[]) => N): N {
    const graph = this.handle;
    for (const d of deps) {
      if (d.definition !== this) throw new GraphStateError("a node can only depend on nodes of the same GraphDefinition");
    }
    let list: Pointer = null;
    if (deps.length > 0) {
      const dv = new DataView(new ArrayBuffer(8 * deps.length));
      deps.forEach((d, i) => ffi.writePointer(dv, i * 8, d.handle));
      list = ffi.pointerOf(dv);
    }
    const h = this.context.run(() => create(graph, list, deps.length));
    if (keep.length > 0) this.#attachments.push(...keep);
    const node = make(h, deps);
    this.#nodes.push(node);
    return node;
  }

  protected target(): GraphDefinition {
    return this;
  }

  protected predecessors(): readonly GraphNode[] {
    return [];
  }
}
