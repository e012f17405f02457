/**
 * The few references that point up the layers, filled in by the hub. Files below `device.ts` hold ordinals and
 * import `Device` as a type only; when one of them must hand out a `Device` (a buffer's device, a context's device)
 * or a stream must make a graph builder, it asks here, and `device.ts` provides the constructors when it loads.
 * This keeps every value import in src/ pointing one way (test/imports.test.ts checks it).
 *
 * @module
 */
import type { Device } from "../device.ts";
import type { GraphBuilder } from "../graph/builder.ts";
import type { Stream } from "../stream.ts";

interface HubLinks {
  readonly Device: typeof Device;
  graphBuilderFromStream(stream: Stream): GraphBuilder;
}

let links: HubLinks | undefined;

/** @internal Called once by `device.ts` (the hub) when it loads. */
export function provideHubLinks(l: HubLinks): void {
  links = l;
}

function hub(): HubLinks {
  if (links === undefined) {
    throw new ReferenceError("cuda-ts: src/core/device.ts has not loaded: import cuda-ts (src/index.ts), which loads it");
  }
  return links;
}

/** The device of an ordinal (the same object as `new Device(id)`), or the current one when omitted. */
export function deviceOf(id?: number | Device): Device {
  return new (hub().Device)(id);
}

/** Whether `value` is a `Device`. */
export function isDevice(value: unknown): value is Device {
  return links !== undefined && value instanceof links.Device;
}

/** Every device, in ordinal order (`Device.all()`). */
export function allDevices(): Device[] {
  return hub().Device.all();
}

/** The number of CUDA devices (`Device.count`). */
export function deviceCount(): number {
  return hub().Device.count;
}

/** A graph builder that captures `stream` (`GraphBuilder.fromStream`). */
export function graphBuilderFromStream(stream: Stream): GraphBuilder {
  return hub().graphBuilderFromStream(stream);
}
