/**
 * `GraphMemoryResource`: memory that belongs to CUDA graphs, as cuda.core's GraphMemoryResource. Allocating on a
 * stream that is being captured (a GraphBuilder's stream) records an allocation node (`cuMemAllocAsync` under
 * capture); closing the Buffer on a captured stream records a free node. The graph owns the memory: its address is
 * fixed when the graph is built and the memory exists while a launch of the graph has allocated it and not freed it.
 *
 * ```ts
 * const gmr = new GraphMemoryResource(dev);
 * using builder = dev.createGraphBuilder().beginBuilding();
 * const scratch = gmr.allocate(bytes, { stream: builder.stream }); // an allocation node
 * scratch.copyFrom(input, { stream: builder.stream });
 * launch(builder, config, kernel, scratch, n);
 * scratch.close();                                                  // a free node (on the allocation's stream)
 * using graph = builder.endBuilding().complete();
 * ```
 *
 * The device-wide figures of graph memory (`attributes`: used and reserved, current and high watermarks) and
 * `trim()` (cuDeviceGraphMemTrim: give memory the graphs are not using back to the system) are the device's: every
 * GraphMemoryResource of one device sees the same.
 *
 * Buffers of this resource are not freed by the garbage collector: a graph allocation is freed in its graph, by a
 * launch of a graph made with `autoFreeOnLaunch`, or by closing the Buffer (on a stream: `cuMemFreeAsync`, ordered
 * after the launch that allocated it; without a live stream: `cuMemFree`). A forgotten Buffer leaves that to the
 * graph.
 *
 * @module
 */
import { CUgraphMem_attribute, CUstreamCaptureStatus, type CUdeviceptr } from "../../bindings/driver.ts";
import { Scratch } from "../../ffi/index.ts";
import { Buffer, releaseNeverOnCollect } from "./buffer.ts";
import type { Device } from "../device.ts";
import { deviceOf, isDevice } from "../base/hub.ts";
import { driver, withCurrentContext } from "../base/driver-state.ts";
import { GraphStateError } from "../graph/errors.ts";
import { allocationSize, type AllocateOptions, type MemoryResource } from "./resource.ts";
import { takeStreamOption } from "../base/stream-arg.ts";
import { describeValue } from "../../errors/describe.ts";
import { INTERNAL, checkInternal, type Internal } from "../base/internal.ts";

/** The graph memory figures of a device, in bytes (cuDeviceGetGraphMemAttribute). */
export interface GraphMemoryAttributeValues {
  /** Memory currently allocated by graph allocation nodes (launched and not freed). */
  usedMemCurrent: bigint;
  /** The high watermark of `usedMemCurrent` since the last reset. */
  usedMemHigh: bigint;
  /** Memory currently reserved for graph allocations (used or cached). */
  reservedMemCurrent: bigint;
  /** The high watermark of `reservedMemCurrent` since the last reset. */
  reservedMemHigh: bigint;
}

/** A graph memory attribute's name. */
export type GraphMemoryAttributeName = keyof GraphMemoryAttributeValues;

const ATTRIBUTES: Readonly<Record<GraphMemoryAttributeName, CUgraphMem_attribute>> = Object.freeze({
  usedMemCurrent: CUgraphMem_attribute.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT,
  usedMemHigh: CUgraphMem_attribute.CU_GRAPH_MEM_ATTR_USED_MEM_HIGH,
  reservedMemCurrent: CUgraphMem_attribute.CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT,
  reservedMemHigh: CUgraphMem_attribute.CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH,
});

/** The driver's enum of a graph memory attribute name, or a RangeError listing the names. @internal */
export function graphMemoryAttribute(name: string): CUgraphMem_attribute {
  if (!Object.hasOwn(ATTRIBUTES, name)) {
    throw new RangeError(`no graph memory attribute is called ${JSON.stringify(name)}; the attributes are ${Object.keys(ATTRIBUTES).join(", ")}`);
  }
  return ATTRIBUTES[name as GraphMemoryAttributeName];
}

const slot = new Scratch(8);

/** The graph memory attributes of one device: read one by name, or reset a high watermark to 0. */
export class GraphMemoryAttributes {
  /** Reserved to cuda-ts (the token is not exported): use a GraphMemoryResource's `attributes`. */
  constructor(token: Internal, readonly device: Device) {
    checkInternal(token, "GraphMemoryAttributes", "graphMemoryResource.attributes");
  }

  /** Reads one attribute. */
  get(name: GraphMemoryAttributeName): bigint {
    const attr = graphMemoryAttribute(name);
    slot.u64[0] = 0n;
    withCurrentContext(this.device.context.handle, () => driver.cuDeviceGetGraphMemAttribute(this.device.handle, attr, slot.pointer));
    return slot.u64[0]!;
  }

  /** Memory currently allocated by graphs' allocation nodes. */
  get usedMemCurrent(): bigint {
    return this.get("usedMemCurrent");
  }
  /** High watermark of the used memory. */
  get usedMemHigh(): bigint {
    return this.get("usedMemHigh");
  }
  /** Memory currently reserved for graph allocations. */
  get reservedMemCurrent(): bigint {
    return this.get("reservedMemCurrent");
  }
  /** High watermark of the reserved memory. */
  get reservedMemHigh(): bigint {
    return this.get("reservedMemHigh");
  }

  /** Resets a high watermark (`usedMemHigh` or `reservedMemHigh`) to 0, the only value the driver accepts. */
  resetHigh(name: "usedMemHigh" | "reservedMemHigh"): void {
    if (name !== "usedMemHigh" && name !== "reservedMemHigh") {
      throw new RangeError(`resetHigh resets "usedMemHigh" or "reservedMemHigh" (the current figures cannot be set), not ${describeValue(name)}`);
    }
    const attr = graphMemoryAttribute(name);
    slot.u64[0] = 0n;
    withCurrentContext(this.device.context.handle, () => driver.cuDeviceSetGraphMemAttribute(this.device.handle, attr, slot.pointer));
  }

  /** Every attribute at once. */
  snapshot(): GraphMemoryAttributeValues {
    return { usedMemCurrent: this.usedMemCurrent, usedMemHigh: this.usedMemHigh, reservedMemCurrent: this.reservedMemCurrent, reservedMemHigh: this.reservedMemHigh };
  }
}

/** Allocations inside CUDA graphs: allocation nodes by stream capture (see the module's documentation). */
export class GraphMemoryResource implements MemoryResource {
  readonly isDeviceAccessible = true;
  readonly isHostAccessible = false;
  readonly isManaged = false;
  /** The device whose graph memory this is. */
  readonly device: Device;
  #attributes: GraphMemoryAttributes | undefined;

  /** The graph memory of `device` (default: the current device). */
  constructor(device?: Device | number) {
    if (device !== undefined && typeof device !== "number" && !isDevice(device)) {
      throw new TypeError(`GraphMemoryResource takes a Device or a device ordinal, not ${describeValue(device)}`);
    }
    this.device = deviceOf(device);
  }

  /** The device ordinal. */
  get deviceId(): number {
    return this.device.id;
  }

  /** The device's graph memory figures (shared by every GraphMemoryResource of the device). */
  get attributes(): GraphMemoryAttributes {
    return (this.#attributes ??= new GraphMemoryAttributes(INTERNAL, this.device));
  }

  /**
   * Records an allocation of `size` bytes in the graph being captured on `options.stream` (a GraphBuilder's
   * stream between beginBuilding() and endBuilding()). The Buffer's address is valid in the graph's later nodes.
   *
   * @throws GraphStateError when the stream is not capturing: graph memory exists only inside graphs (use
   *   `device.memoryResource` for memory outside them).
   */
  allocate(size: number | bigint, options?: AllocateOptions): Buffer {
    const n = allocationSize(size);
    const stream = takeStreamOption(options, "allocate", this);
    if (n === 0) throw new RangeError("GraphMemoryResource.allocate: a graph allocation node cannot be empty; ask for at least 1 byte");
    this.#requireCapturing(stream.handle, "allocate");
    const ptr = withCurrentContext(this.device.context.handle, () => driver.cuMemAllocAsync(n, stream.handle));
    const buffer = new Buffer(INTERNAL, ptr, Number(n), this, stream);
    releaseNeverOnCollect(buffer); // the graph owns the memory: see the module's documentation
    return buffer;
  }

  /**
   * Frees graph memory: on a capturing stream a free node is recorded; on another live stream the memory a graph
   * launch allocated is freed after the work queued so far (cuMemFreeAsync); without one, at once (cuMemFree).
   */
  deallocate(ptr: CUdeviceptr, _size: number, options: AllocateOptions = {}): void {
    if (ptr === 0n) return;
    const stream = options.stream;
    withCurrentContext(this.device.context.handle, () => {
      if (stream !== undefined && !stream.isClosed) driver.cuMemFreeAsync(ptr, stream.handle);
      else driver.cuMemFree(ptr);
    });
  }

  /** Returns memory that no graph is using to the system (cuDeviceGraphMemTrim). */
  trim(): void {
    withCurrentContext(this.device.context.handle, () => driver.cuDeviceGraphMemTrim(this.device.handle));
  }

  /** Nothing to release (the memory belongs to the graphs); kept for symmetry with the other resources. */
  close(): void {}

  [Symbol.dispose](): void {
    this.close();
  }

  #requireCapturing(stream: Parameters<typeof driver.cuStreamIsCapturing>[0], action: string): void {
    const status = driver.cuStreamIsCapturing(stream);
    if (status !== CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_ACTIVE) {
      throw new GraphStateError(
        `GraphMemoryResource.${action}: the stream is not capturing a graph${status === CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_INVALIDATED ? " (its capture was invalidated)" : ""}; allocate on a GraphBuilder's stream between beginBuilding() and endBuilding() ({ stream: builder.stream }), or use device.memoryResource for memory outside graphs`,
      );
    }
  }
}
