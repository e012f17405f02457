/**
 * What `Blas` and `BlasLt` share: checking the arrays of a call (open, on the handle's device), a device pointer
 * from an array, and the workspace option.
 *
 * @module
 */
import { DeviceArray } from "../../array/device-array.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ClosedError } from "../../base/errors.ts";
import { ffi, type Pointer } from "../../../ffi/index.ts";
import type { MemoryResource } from "../../memory/resource.ts";
import type { Stream } from "../../stream.ts";
import { refuseWrongDevice } from "../../base/wrong-device.ts";
import { FunctionVersionError } from "../../../bindings/errors.ts";
import type { BindingExtras } from "../../../bindings/binding.ts";

/** Where a handle's workspace comes from. */
export interface BlasWorkspaceOptions {
  /** Bytes (default 32 MiB: what cuBLAS recommends for Hopper and newer). */
  readonly size?: number;
  /** The memory resource to allocate it from (default: the stream's device's `memoryResource`). */
  readonly memoryResource?: MemoryResource;
}

/** The default workspace: 32 MiB (cuBLAS's recommendation for Hopper; 4 MiB suffices on older GPUs). */
export const DEFAULT_WORKSPACE_BYTES = 32 * 1024 * 1024;

/**
 * Orders the work a handle queues on `next` after the work it queued on `previous` (a handle's stream switch), so
 * that the handle's calls on `next` neither write its workspace while earlier calls on `previous` still use it nor
 * run before a workspace allocated on `previous` is ready. A `previous` closed meanwhile (its work may still run) is
 * waited for by synchronising its device.
 */
export function orderStreamSwitch(previous: Stream, next: Stream): void {
  if (next.equals(previous)) return;
  if (previous.isClosed) previous.device.sync();
  else next.wait(previous);
}

/** The device of an array's memory, or -1 for memory every device reaches (pinned, managed). */
function arrayDeviceId(a: DeviceArray): number {
  const mr = a.buffer.memoryResource;
  if (mr !== undefined) {
    if (mr.isHostAccessible) return -1;
    if (mr.deviceId >= 0) return mr.deviceId;
  }
  return a.buffer.device.id;
}

/**
 * Checks one array argument: a DeviceArray, open, on `device` (or in memory every device reaches); returns its
 * first element's device pointer (or that of the element `elementOffset` elements away: a vector of negative
 * stride is passed by its lowest address).
 */
export function arrayPointer(a: unknown, name: string, device: number, action: string, elementOffset = 0): Pointer {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${action}: ${name} must be a DeviceArray, not ${describeValue(a)}`);
  if (a.isClosed) throw new ClosedError(`${action}: ${name} (${a.dtype.name} [${a.shape.join(", ")}])`, "compute with it");
  const d = arrayDeviceId(a);
  if (d >= 0 && d !== device) refuseWrongDevice(`${action}: ${name}`, device, d, "copy it to this device first (array.copy on a stream of this device) or use a handle of its device");
  return ffi.pointerFromAddress(elementOffset === 0 ? a.address : a.address + BigInt(elementOffset * a.itemsize));
}

/** Checks a workspace option. */
export function checkWorkspace(ws: unknown, action: string): { size: number; memoryResource: MemoryResource | undefined } | undefined {
  if (ws === undefined) return undefined;
  if (ws === null || typeof ws !== "object") throw new TypeError(`${action}: workspace is { size?, memoryResource? }, not ${describeValue(ws)}`);
  const w = ws as BlasWorkspaceOptions;
  const size = w.size ?? DEFAULT_WORKSPACE_BYTES;
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`${action}: workspace.size is a byte count (a non-negative integer), not ${describeValue(size)}`);
  if (w.memoryResource !== undefined && (typeof w.memoryResource !== "object" || typeof w.memoryResource.allocate !== "function")) {
    throw new TypeError(`${action}: workspace.memoryResource must be a MemoryResource, not ${describeValue(w.memoryResource)}`);
  }
  return { size, memoryResource: w.memoryResource };
}

/** An enum as each CTK version's headers declare it: version ("12.4") → the enum object. */
export type EnumByVersion = Readonly<Record<string, Readonly<Record<string, number>>>>;

/**
 * Refuses an enum value (`CUBLAS_COMPUTE_32F_EMULATED_16BFX9`, ...) that the loaded library's version lacks (cuBLAS
 * 12.4 has no emulated math modes or compute types): a {@link FunctionVersionError} naming the call, the member and
 * both versions, instead of the library's INVALID_VALUE. `binding` is the library the value goes to (it is loaded:
 * its version decides); `byVersion`, the enum of each version's headers, newest first (an unknown version passes).
 */
export function requireEnumValue(binding: BindingExtras<object>, functionName: string, byVersion: EnumByVersion, value: number): void {
  const versions = Object.keys(byVersion);
  const newest = byVersion[versions[0]!]!;
  const member = Object.keys(newest).find((k) => newest[k] === value);
  if (member === undefined) return;
  const choice = binding.table();
  const ctk = choice.table.library.ctkVersion;
  const own = byVersion[ctk];
  if (own === undefined || own[member] === value) return;
  const having = versions.filter((v) => byVersion[v]![member] === value);
  throw new FunctionVersionError(`${functionName} with ${member}`, choice.table.library.name, having[having.length - 1] ?? versions[0]!, ctk, choice.libraryVersion, binding.loaded?.path ?? binding.info.library);
}
