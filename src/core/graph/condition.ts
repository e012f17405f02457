/**
 * Conditional nodes (CUDA 12.3+; if/else and switch 12.8+): a `GraphCondition` is a conditional handle, created for
 * one graph, passed to a kernel that sets it on the device with `cudaGraphSetConditional(handle, value)`
 * (`cuda_device_runtime_api.h`; NVRTC needs the CUDA include directory, for example
 * `findNvidiaHeaderDirectory("cudart").path`, in `includePath`), and read by an if, while or switch node when the
 * node is reached.
 *
 * ```cuda
 * extern "C" __global__ void step(cudaGraphConditionalHandle cond, int* counter) {
 *   if (--*counter == 0) cudaGraphSetConditional(cond, 0);
 * }
 * ```
 *
 * @module
 */
import {
  CU_GRAPH_COND_ASSIGN_DEFAULT,
  CUgraphConditionalNodeType,
  CUgraphNodeParams_st,
  CUgraphNodeType,
  cudaError,
  type CUgraph,
} from "../../bindings/driver.ts";
import { ffi } from "../../ffi/index.ts";
import type { Context } from "../context.ts";
import { driver } from "../base/driver-state.ts";
import { GraphFeatureError, GraphStateError } from "./errors.ts";
import { KernelScalar } from "../launch/scalars.ts";
import { describeValue } from "../../errors/describe.ts";
import { checkInternal, type Internal, INTERNAL } from "../base/internal.ts";

/**
 * A conditional handle (`cudaGraphConditionalHandle`, an `unsigned long long`): pass it to a kernel like any other
 * argument (it is a u64 scalar), and to `ifThen`/`ifElse`/`whileLoop`/`switch` of the graph it was created for.
 */
export class GraphCondition extends KernelScalar {
  /** The value the condition starts each launch with, or undefined when it keeps the last value set. */
  readonly defaultValue: number | undefined;

  /**
   * Reserved to cuda-ts (the token is not exported): use `builder.createCondition()` or `definition.createCondition()`.
   */
  constructor(token: Internal, handle: bigint, defaultValue: number | undefined) {
    super("u64", handle);
    checkInternal(token, "GraphCondition", "builder.createCondition() or definition.createCondition()");
    this.defaultValue = defaultValue;
  }

  /** The CUgraphConditionalHandle. */
  get handle(): bigint {
    return super.value as bigint;
  }

  override get value(): number | bigint | boolean | readonly [number, number] {
    return super.value;
  }
  override set value(_: number | bigint | boolean | readonly [number, number]) {
    throw new TypeError("a GraphCondition is a handle the driver created: it cannot be changed (set it from a kernel with cudaGraphSetConditional)");
  }

  override toString(): string {
    return `GraphCondition(0x${this.handle.toString(16)})`;
  }
}

/** The kinds of conditional node. */
export type ConditionalKind = "if" | "ifElse" | "while" | "switch";

const FEATURE: Readonly<Record<ConditionalKind, readonly [string, number]>> = {
  if: ["conditional nodes (ifThen)", 12030],
  while: ["conditional nodes (whileLoop)", 12030],
  ifElse: ["if/else conditional nodes (ifElse)", 12080],
  switch: ["switch conditional nodes (switch)", 12080],
};

let driverVersion: number | undefined;

/** Throws GraphFeatureError when the driver is older than `required` (a CUDA version number, 12030 for 12.3). */
function requireDriver(feature: string, required: number): void {
  driverVersion ??= driver.cuDriverGetVersion();
  if (driverVersion < required) throw new GraphFeatureError(feature, required, driverVersion);
}

function checkDefault(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > 0xffffffff) {
    throw new RangeError(`a condition's default value is an unsigned 32-bit integer (or a boolean), not ${String(v)}`);
  }
  return v;
}

/** @internal cuGraphConditionalHandleCreate for `graph` in `context`. */
export function createCondition(graph: CUgraph, context: Context, defaultValue: number | boolean | undefined): GraphCondition {
  requireDriver("conditional nodes", 12030);
  const value = checkDefault(defaultValue);
  const out = new BigUint64Array(new ArrayBuffer(8));
  const flags = value === undefined ? 0 : CU_GRAPH_COND_ASSIGN_DEFAULT;
  const r = driver.raw.cuGraphConditionalHandleCreate(ffi.pointerOf(out), graph, context.handle, value ?? 0, flags);
  if (r !== 0) throw cudaError(r, "cuGraphConditionalHandleCreate");
  return new GraphCondition(INTERNAL, out[0]!, value);
}

/** @internal Checks a condition argument and the driver version; returns the handle and the body count. */
export function conditionalPlan(kind: ConditionalKind, condition: unknown, count: number | undefined, action: string): { handle: bigint; size: number } {
  let handle: bigint;
  if (condition instanceof GraphCondition) handle = condition.handle;
  else if (typeof condition === "bigint") handle = condition;
  else throw new TypeError(`${action} takes a GraphCondition (from createCondition()), not ${describeValue(condition)}`);
  let size = kind === "ifElse" ? 2 : 1;
  if (kind === "switch") {
    if (!Number.isInteger(count) || (count as number) < 1) throw new RangeError(`${action}: the number of cases must be an integer ≥ 1, not ${String(count)}`);
    size = count as number;
  }
  const [feature, version] = FEATURE[kind];
  requireDriver(feature, version);
  return { handle, size };
}

/** @internal The CUgraphNodeParams of a conditional node. */
export function conditionalNodeParams(kind: ConditionalKind, handle: bigint, size: number, context: Context): CUgraphNodeParams_st {
  const p = new CUgraphNodeParams_st();
  p.type = CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL;
  const c = p.conditional;
  c.handle = handle;
  c.type =
    kind === "while"
      ? CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_WHILE
      : kind === "switch"
        ? CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_SWITCH
        : CUgraphConditionalNodeType.CU_GRAPH_COND_TYPE_IF;
  c.size = size;
  c.ctx = context.handle;
  return p;
}

/** @internal The body graphs the driver created for a conditional node (owned by the node). */
export function conditionalBodies(params: CUgraphNodeParams_st, size: number): CUgraph[] {
  const array = params.conditional.phGraph_out;
  if (array === null) throw new GraphStateError("cuGraphAddNode returned no body graphs for the conditional node (a driver fault): build the graph again");
  const bodies: CUgraph[] = [];
  for (let i = 0; i < size; i++) bodies.push(ffi.readPointerAt(array, i * 8) as CUgraph);
  return bodies;
}
