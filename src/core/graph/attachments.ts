/**
 * What a CUDA graph references but does not own: kernels (their loaded code), buffers (their memory), host memory of
 * copies, host callbacks, child graphs' attachments. A graph holds raw addresses; the JavaScript objects behind them
 * must stay reachable as long as the graph can run, or a garbage collection would unload the code or free the
 * memory under it. Each graph under construction has one `GraphAttachments`; every `Graph` instantiated from it
 * holds it.
 *
 * Argument bytes are not kept: the driver copies kernel parameters when a node is created or updated (and when a
 * launch is captured), as `cuGraphAddKernelNode` and `cuGraphExecKernelNodeSetParams` document.
 *
 * @module
 */

/** @internal The objects a graph keeps alive. */
export class GraphAttachments {
  readonly #values: unknown[] = [];
  #hostCallbacks = 0;

  /** Keeps values alive with the graph (what a captured launch or copy referenced). */
  push(...values: unknown[]): void {
    for (const v of values) this.#values.push(v);
  }

  /** Keeps a host callback alive with the graph and remembers that the graph calls into JavaScript. */
  addHostCallback(holder: object): void {
    this.#values.push(holder);
    this.#hostCallbacks++;
  }

  /** Takes in a child graph's attachments (an embedded graph, a conditional body built elsewhere). */
  include(other: GraphAttachments): void {
    if (other === this) return;
    this.#values.push(other);
    if (other.hasHostCallbacks) this.#hostCallbacks++;
  }

  /** Whether the graph contains host callbacks (its launches then hold the callbacks until they have run). */
  get hasHostCallbacks(): boolean {
    return this.#hostCallbacks > 0;
  }

  /** How many values are kept (for tests). */
  get size(): number {
    return this.#values.length;
  }
}
