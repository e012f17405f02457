/**
 * The errors of graphs: an update or an instantiation the driver refused, a graph object in the wrong state, a feature
 * the driver is too old for. Each is re-exported by src/core/errors.ts, the root's one import path for errors.
 *
 * @module
 */
import { ArgumentError, InvalidStateError, UnsupportedError, quietFields } from "../../errors/base.ts";
import { CUgraphExecUpdateResult, CUgraphInstantiateResult } from "../../bindings/driver.ts";
import { formatCudaVersion } from "../../bindings/describe.ts";
import { enumName } from "../../tables-runtime/enum.ts";

const UPDATE_REASONS: Readonly<Record<number, string>> = {
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED]:
    "the topology differs: the new graph has other nodes, or other dependencies between them",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED]: "a node's type changed (a kernel became a copy, ...)",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED]: "a kernel node runs another function in a way that cannot be updated",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE]:
    "a kernel node runs another function in a way that cannot be updated (another context, or device-side launches)",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED]:
    "a node's parameters changed in a way that cannot be updated (a copy between other kinds of memory, memory on another device, ...)",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED]: "a kernel node's attributes changed in a way that cannot be updated",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED]: "a node of the new graph cannot be updated at all (its type or configuration)",
  [CUgraphExecUpdateResult.CU_GRAPH_EXEC_UPDATE_ERROR]: "the driver gave no more specific reason",
};

/** `cuGraphExecUpdate` refused to update a Graph from another graph. */
export class GraphUpdateError extends ArgumentError {
  /** The driver's reason (`CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED`, ...). */
  readonly reason: string;
  /** The CUgraphExecUpdateResult value. */
  readonly result: number;

  constructor(result: number) {
    const reason = enumName(CUgraphExecUpdateResult, result) ?? `CUgraphExecUpdateResult ${result}`;
    super(
      `Graph.update: the graph cannot be updated in place: ${UPDATE_REASONS[result] ?? "unknown reason"} (${reason}). ` +
        "An update needs a graph built the same way (the same operations in the same order, with the same " +
        "dependencies), differing only in arguments, addresses and sizes. Otherwise build a new Graph " +
        "(builder.complete() or definition.instantiate()). The Graph is unchanged and can still be launched.",
    );
    this.name = "GraphUpdateError";
    this.reason = reason;
    this.result = result;
    quietFields(this);
  }
}

/** A graph object used in a state that does not allow the call (not building, already ended, closed, not joined). */
export class GraphStateError extends InvalidStateError {
  constructor(message: string) {
    super(message);
    this.name = "GraphStateError";
  }
}

const INSTANTIATE_REASONS: Readonly<Record<number, string>> = {
  [CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE]: "the graph's structure is invalid (a cycle, for example)",
  [CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED]:
    "the graph contains an operation that cannot be launched from the device (deviceLaunch)",
  [CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_MULTIPLE_CTXS_NOT_SUPPORTED]:
    "the graph's nodes belong to several contexts, which a device-launchable graph cannot have",
  [CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED]:
    "a condition was created (createCondition) but no conditional node uses it: add ifThen/whileLoop/... for it, or do not create it",
  [CUgraphInstantiateResult.CUDA_GRAPH_INSTANTIATE_ERROR]: "the driver gave no more specific reason",
};

/** `cuGraphInstantiateWithParams` could not make an executable graph. */
export class GraphInstantiateError extends InvalidStateError {
  /** The driver's reason (`CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE`, ...). */
  readonly reason: string;

  constructor(result: number, cause?: unknown) {
    const reason = enumName(CUgraphInstantiateResult, result) ?? `CUgraphInstantiateResult ${result}`;
    super(`the graph cannot be instantiated: ${INSTANTIATE_REASONS[result] ?? "unknown reason"} (${reason})`, cause === undefined ? undefined : { cause });
    this.name = "GraphInstantiateError";
    this.reason = reason;
    quietFields(this);
  }
}

/** The installed driver is too old for a graph feature (conditional nodes need CUDA 12.3, if/else and switch 12.8). */
export class GraphFeatureError extends UnsupportedError {
  /** The CUDA version the feature needs (12030 for 12.3). */
  readonly required: number;
  /** The driver's CUDA version (cuDriverGetVersion). */
  readonly installed: number;

  constructor(feature: string, required: number, installed: number) {
    super(
      `${feature}: this needs a driver for CUDA ${formatCudaVersion(required)} or newer, and the installed driver ` +
        `supports CUDA ${formatCudaVersion(installed)}. Update the NVIDIA driver, or build the graph without ${feature}.`,
    );
    this.name = "GraphFeatureError";
    this.required = required;
    this.installed = installed;
    quietFields(this);
  }
}
