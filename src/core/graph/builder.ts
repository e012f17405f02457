/**
 * `GraphBuilder`: builds a CUDA graph by stream capture, in the style of cuda.core. Work queued on the builder's
 * stream between `beginBuilding()` and `endBuilding()` is recorded, not run: kernel launches
 * (`launch(builder, config, kernel, ...args)`), buffer copies and fills (`{ stream: builder.stream }`), host
 * callbacks (`builder.callback(fn)`, Deno only), embedded graphs, and conditional nodes. `complete()` then makes an
 * executable {@link Graph}.
 *
 * ```ts
 * using builder = dev.createGraphBuilder().beginBuilding();
 * launch(builder, config, add, x, y);
 * const [left, right] = builder.split(2);        // fork: both continue after `add`
 * launch(left, config, scale, x);
 * launch(right, config, scale, y);
 * GraphBuilder.join(left, right);                 // join: `left` continues after both
 * using graph = builder.endBuilding().complete();
 * ```
 *
 * Conditional nodes (CUDA 12.3+): `createCondition(default)` gives a handle for a kernel to set with
 * `cudaGraphSetConditional`; `ifThen(cond)` / `whileLoop(cond)` (and `ifElse`, `switch`, CUDA 12.8+) return builders
 * for the bodies, each built with its own `beginBuilding()` ... `endBuilding()`.
 *
 * Capture rules are CUDA's: during capture, nothing on the captured streams runs, synchronous calls on them fail,
 * and copies from pageable host memory may be refused (copy from device buffers or pinned memory instead).
 *
 * @module
 */
import { CUstreamCaptureMode, CUstreamCaptureStatus, CUstreamUpdateCaptureDependencies_flags, type CUgraph, type CUgraphNode } from "../../bindings/driver.ts";
import { ffi, type Pointer } from "../../ffi/index.ts";
import type { Context } from "../context.ts";
import { driver } from "../base/driver-state.ts";
import { ClosedError } from "../base/errors.ts";
import { GraphAttachments } from "./attachments.ts";
import { conditionalBodies, conditionalNodeParams, conditionalPlan, createCondition, type ConditionalKind, type GraphCondition } from "./condition.ts";
import { debugDotPrint, type GraphDebugPrintOptions } from "./debug.ts";
import { inspectGraph, type GraphStructure } from "./inspect.ts";
import type { GraphDefinition } from "./definition.ts";
import { GraphStateError } from "./errors.ts";
import { Graph, instantiateGraph, kGraphSource, sourceOf, type GraphCompleteOptions, type GraphSource } from "./graph.ts";
import { launchHostFunction, type HostFunction } from "../host-callback.ts";
import { track, untrack } from "../base/lifetime.ts";
import { releaseReporting } from "../base/release-errors.ts";
import { Stream, setCaptureSink, captureSinkOf, createStream } from "../stream.ts";
import { describeValue } from "../../errors/describe.ts";
import { takeStream } from "../base/stream-arg.ts";

/**
 * How capture interacts with other CUDA calls (cuStreamBeginCapture's mode): `"global"` refuses potentially unsafe
 * calls (such as synchronous allocations) in every thread, `"thread_local"` in this thread, `"relaxed"` (the
 * default) does not refuse them.
 */
export type GraphBuildMode = "global" | "thread_local" | "relaxed";

const MODES: Readonly<Record<GraphBuildMode, CUstreamCaptureMode>> = {
  global: CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL,
  thread_local: CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
  relaxed: CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED,
};

/** primary: the capture's origin; fork: a stream from split(), joined back; body: a conditional node's body. */
type BuilderKind = "primary" | "fork" | "body";
type BuilderState = "idle" | "building" | "ended" | "closed";

/** @internal A builder capturing `stream` (borrowed): what `stream.createGraphBuilder()` does. */
export let builderFromStream: (stream: Stream) => GraphBuilder;
/** @internal A builder on a new stream of `context` that it owns: what `device.createGraphBuilder()` does. */
export let createGraphBuilder: (context: Context) => GraphBuilder;

/** A graph under construction by stream capture. Create with `device.createGraphBuilder()` or `stream.createGraphBuilder()`. */
export class GraphBuilder {
  #stream: Stream;
  readonly #ownsStream: boolean;
  readonly #kind: BuilderKind;
  #state: BuilderState;
  /** primary: the captured graph once ended (owned); body: the conditional node's body graph (owned by the node). */
  #graph: CUgraph | null;
  readonly #attachments: GraphAttachments;

  private constructor(stream: Stream, ownsStream: boolean, kind: BuilderKind, state: BuilderState, graph: CUgraph | null, attachments: GraphAttachments) {
    this.#stream = stream;
    this.#ownsStream = ownsStream;
    this.#kind = kind;
    this.#state = state;
    this.#graph = graph;
    this.#attachments = attachments;
  }

  static {
    builderFromStream = (stream) => GraphBuilder.#fromStream(stream);
    createGraphBuilder = (context) => new GraphBuilder(createStream(context), true, "primary", "idle", null, new GraphAttachments());
  }

  static #fromStream(stream: Stream): GraphBuilder {
    takeStream(stream, "GraphBuilder");
    if (ffi.addressOf(stream.handle) === 0 || ffi.addressOf(stream.handle) === 1) {
      throw new GraphStateError(
        "the legacy default stream cannot be captured: build on a stream of your own (device.createStream().createGraphBuilder() or device.createGraphBuilder())",
      );
    }
    return new GraphBuilder(stream, false, "primary", "idle", null, new GraphAttachments());
  }

  /** The stream being captured: pass it where a stream is expected (`{ stream: builder.stream }`). */
  get stream(): Stream {
    if (this.#state === "closed") throw new ClosedError("this GraphBuilder", "use its stream");
    return this.#stream;
  }

  /** Whether this builder came from `split()` and must be joined (`GraphBuilder.join`) before building ends. */
  get isJoinRequired(): boolean {
    return this.#kind === "fork" && this.#state === "building";
  }

  /**
   * Whether the builder is capturing. Throws GraphStateError when the capture was invalidated (an operation not
   * allowed during capture ran on a captured stream): end it with `endBuilding()` and build again.
   */
  get isBuilding(): boolean {
    if (this.#state !== "building") return false;
    const status = driver.cuStreamIsCapturing(this.#stream.handle);
    if (status === CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_INVALIDATED) {
      throw new GraphStateError(
        "the capture was invalidated: an operation that is not allowed during capture (a synchronisation, a copy from pageable memory, work from another stream that was not forked from this one, ...) ran on a captured stream. Call endBuilding() (it will fail) and build again",
      );
    }
    return status === CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE;
  }

  /** Starts capturing (default mode "relaxed"). Returns the builder, for chaining. A builder is built once. */
  beginBuilding(mode: GraphBuildMode = "relaxed"): this {
    const m = Object.hasOwn(MODES, mode) ? MODES[mode] : undefined;
    if (m === undefined) throw new TypeError(`beginBuilding: the mode is "global", "thread_local" or "relaxed", not ${JSON.stringify(mode)}`);
    this.#require("idle", "beginBuilding", "a builder is built once: create a new one to build another graph");
    const s = this.#stream;
    if (this.#kind === "body") driver.cuStreamBeginCaptureToGraph(s.handle, this.#graph, null, null, 0, m);
    else driver.cuStreamBeginCapture(s.handle, m);
    setCaptureSink(s, this.#attachments);
    this.#state = "building";
    return this;
  }

  /** Stops capturing. The graph is then ready for `complete()` (a conditional body is part of its parent's graph). */
  endBuilding(): this {
    if (this.#kind === "fork") {
      throw new GraphStateError("endBuilding: a builder from split() is not ended on its own: join it back with GraphBuilder.join(builder, ...)");
    }
    this.#require("building", "endBuilding", "call beginBuilding() first");
    const s = this.#stream;
    setCaptureSink(s, undefined);
    this.#state = "ended"; // also when ending fails (an unjoined fork, an invalidated capture): the capture is over
    const graph = driver.cuStreamEndCapture(s.handle);
    if (this.#kind === "primary") {
      this.#graph = graph;
      const g = graph;
      track(this, "GraphBuilder", () => driver.cuGraphDestroy(g));
    }
    return this;
  }

  /** Makes an executable Graph of the captured graph (after `endBuilding()`). Can be called more than once. */
  complete(options?: GraphCompleteOptions): Graph {
    return instantiateGraph(this[kGraphSource]("complete"), options);
  }

  /**
   * The captured graph's nodes (with their kinds and parameters) and edges, as the driver holds them (after
   * `endBuilding()`): what stream capture made of the work. See inspect.ts.
   */
  inspect(): GraphStructure {
    const src = this[kGraphSource]("inspect");
    return src.context.run(() => inspectGraph(src.graph));
  }

  /** Writes a DOT description of the captured graph to `path` (after `endBuilding()`). */
  debugDotPrint(path: string, options?: GraphDebugPrintOptions): void {
    debugDotPrint(this[kGraphSource]("debugDotPrint").graph, path, options);
  }

  /**
   * Forks the capture: returns `count` builders, this one first, each continuing after the work captured so far.
   * Work on them may run concurrently. Join them back with {@link GraphBuilder.join} before `endBuilding()`.
   */
  split(count: number): GraphBuilder[] {
    if (!Number.isInteger(count) || count < 2) throw new RangeError(`split: the count is an integer ≥ 2 (this builder and the new ones), not ${String(count)}`);
    this.#require("building", "split", "call beginBuilding() first");
    const result: GraphBuilder[] = [this];
    for (let i = 1; i < count; i++) {
      const stream = createStream(this.#stream.context);
      stream.wait(this.#stream); // joins the capture, after what was captured so far
      setCaptureSink(stream, this.#attachments);
      result.push(new GraphBuilder(stream, true, "fork", "building", null, this.#attachments));
    }
    return result;
  }

  /**
   * Joins builders (from `split()`): the one that was not split off (else the first) continues after the work of
   * all of them, and the others are closed. Returns the one that continues.
   */
  static join(...builders: GraphBuilder[]): GraphBuilder {
    if (builders.length < 2) throw new RangeError(`GraphBuilder.join takes at least two builders, not ${builders.length}`);
    for (const b of builders) {
      if (!(b instanceof GraphBuilder)) throw new TypeError(`GraphBuilder.join takes GraphBuilders, not ${describeValue(b)}`);
      b.#require("building", "GraphBuilder.join", "join builders that are building (from beginBuilding() and split())");
    }
    const roots = builders.filter((b) => b.#kind !== "fork");
    if (roots.length > 1) throw new GraphStateError("GraphBuilder.join: at most one of the builders may be one that was not made by split()");
    const root = roots[0] ?? builders[0]!;
    for (const b of builders) {
      if (b === root) continue;
      root.#stream.wait(b.#stream);
      if (b.#kind === "fork") b.close();
    }
    return root;
  }

  /** Creates a condition for conditional nodes of this graph (CUDA 12.3+); `defaultValue` is set at each launch. */
  createCondition(defaultValue?: number | boolean): GraphCondition {
    const { graph } = this.#captureInfo("createCondition");
    return createCondition(graph, this.#stream.context, defaultValue);
  }

  /** Adds an if node: the returned builder builds the body, run when the condition is non-zero. */
  ifThen(condition: GraphCondition): GraphBuilder {
    return this.#conditional("if", condition, undefined, "ifThen")[0]!;
  }

  /** Adds an if/else node (CUDA 12.8+): returns the builders of the body run when non-zero and when zero. */
  ifElse(condition: GraphCondition): [GraphBuilder, GraphBuilder] {
    const [then, otherwise] = this.#conditional("ifElse", condition, undefined, "ifElse");
    return [then!, otherwise!];
  }

  /** Adds a while node: the returned builder builds the body, run again and again while the condition is non-zero. */
  whileLoop(condition: GraphCondition): GraphBuilder {
    return this.#conditional("while", condition, undefined, "whileLoop")[0]!;
  }

  /** Adds a switch node (CUDA 12.8+): `count` bodies; body n runs when the condition is n (none when ≥ count). */
  switch(condition: GraphCondition, count: number): GraphBuilder[] {
    return this.#conditional("switch", condition, count, "switch");
  }

  /** Adds another graph (a GraphDefinition, or a builder whose building has ended) as a child graph node. */
  embed(child: GraphBuilder | GraphDefinition): void {
    const src = sourceOf(child, "embed");
    const { graph, deps, count } = this.#captureInfo("embed");
    const node = driver.cuGraphAddChildGraphNode(graph, deps, count, src.graph);
    this.#continueAfter(node);
    this.#attachments.include(src.attachments);
  }

  /**
   * Adds a host callback: `fn` runs on the host each time a launch of the graph reaches it (cuLaunchHostFunc
   * captured as a host node). Deno only: Bun throws UnsupportedOnRuntimeError (see host-callback.ts), and launches
   * of a graph with host callbacks must be awaited with `await stream.done()`.
   */
  callback(fn: HostFunction): void {
    this.#require("building", "callback", "call beginBuilding() first");
    launchHostFunction(this.#stream, captureSinkOf(this.#stream), fn, "GraphBuilder.callback");
  }

  /**
   * Ends a capture still in progress (discarding it), destroys the captured graph and closes the stream if the
   * builder created it. Graphs made by `complete()` stay valid. Closing twice is harmless.
   */
  close(): void {
    if (this.#state === "closed") return;
    const s = this.#stream;
    if (this.#state === "building" && this.#kind !== "fork") {
      setCaptureSink(s, undefined);
      let g: CUgraph | null = null;
      try {
        g = driver.cuStreamEndCapture(s.handle);
      } catch {
        // An invalidated or unjoined capture ends anyway; nothing is left to release.
      }
      if (this.#kind === "primary" && g !== null) {
        const discarded = g;
        releaseReporting("GraphBuilder", () => driver.cuGraphDestroy(discarded));
      }
    }
    if (this.#kind === "primary" && this.#graph !== null) {
      untrack(this);
      driver.cuGraphDestroy(this.#graph);
    }
    this.#graph = null;
    this.#state = "closed";
    setCaptureSink(s, undefined);
    if (this.#ownsStream) s.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  [kGraphSource](action: string): GraphSource {
    if (this.#kind !== "primary") {
      throw new GraphStateError(`${action}: ${this.#kind === "body" ? "a conditional body is part of its parent's graph: complete the parent builder" : "a builder from split() has no graph of its own: join it and complete the builder it was split from"}`);
    }
    this.#require("ended", action, "call endBuilding() first");
    if (this.#graph === null) throw new GraphStateError(`${action}: endBuilding() failed, so there is no graph: build again with a new builder`);
    return { graph: this.#graph, context: this.#stream.context, attachments: this.#attachments, origin: this };
  }

  #require(state: BuilderState, action: string, hint: string): void {
    if (this.#state === state) return;
    if (this.#state === "closed") throw new ClosedError("this GraphBuilder", action);
    const now = { idle: "has not begun building", building: "is building", ended: "has ended building" }[this.#state];
    throw new GraphStateError(`${action}: this GraphBuilder ${now}; ${hint}`);
  }

  /** The capture's graph and current dependencies (valid until the next call on the stream). */
  #captureInfo(action: string): { graph: CUgraph; deps: Pointer; edges: Pointer; count: bigint } {
    this.#require("building", action, "call beginBuilding() first");
    const [status, , graph, deps, edges, count] = driver.cuStreamGetCaptureInfo(this.#stream.handle);
    if (status !== CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE) {
      throw new GraphStateError(`${action}: the stream is not capturing (the capture was invalidated); end building and build again`);
    }
    return { graph, deps, edges, count };
  }

  /** Makes the next captured work depend on `node` alone. */
  #continueAfter(node: CUgraphNode): void {
    const one = new DataView(new ArrayBuffer(8));
    ffi.writePointer(one, 0, node);
    driver.cuStreamUpdateCaptureDependencies(this.#stream.handle, one, null, 1, CUstreamUpdateCaptureDependencies_flags.CU_STREAM_SET_CAPTURE_DEPENDENCIES);
  }

  #conditional(kind: ConditionalKind, condition: GraphCondition, count: number | undefined, action: string): GraphBuilder[] {
    const { handle, size } = conditionalPlan(kind, condition, count, action);
    const { graph, deps, edges, count: n } = this.#captureInfo(action);
    const context = this.#stream.context;
    const params = conditionalNodeParams(kind, handle, size, context);
    const node = driver.cuGraphAddNode(graph, deps, edges, n, params);
    this.#continueAfter(node);
    return conditionalBodies(params, size).map(
      (body) => new GraphBuilder(createStream(context), true, "body", "idle", body, this.#attachments),
    );
  }
}
