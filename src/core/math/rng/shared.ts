/**
 * What the math objects of this folder and its siblings (`Rng`, `Fft`, `Solver`, `Sparse`) share: argument checks
 * on DeviceArrays and streams that run before anything reaches a library, the device pointer of an array, entering
 * the stream's context for a library call.
 *
 * Kept in `rng/` (the first of the four) rather than in a common file of `src/core/math/`, which the BLAS objects'
 * folder does not share.
 *
 * @module
 * @internal
 */
import { DeviceArray, memoryDevice } from "../../array/device-array.ts";
import type { DTypeName } from "../../array/dtype.ts";
import { describeValue } from "../../../errors/describe.ts";
import { ArrayLayoutError, DTypeError } from "../../array/errors.ts";
import { ClosedError } from "../../base/errors.ts";
import type { Stream } from "../../stream.ts";
import { takeStream } from "../../base/stream-arg.ts";
import { refuseWrongDevice } from "../../base/wrong-device.ts";
import { ffi, type Pointer } from "../../../ffi/index.ts";

/**
 * A replacement stream for a math object made on device `deviceId` (`rng.stream = s`): a Stream, open, of that
 * device (DeviceMismatchError otherwise).
 */
export function replacementStream(stream: unknown, deviceId: number, owner: string): Stream {
  return takeStream(stream, `${owner}.stream`, { device: deviceId, deviceAdvice: `pass a stream of device ${deviceId}, or make a new ${owner} with that stream` });
}

/**
 * Checks an array argument before a library call: a DeviceArray, open, of one of `dtypes`, contiguous (row-major,
 * packed), on the object's device (or host-accessible).
 */
export function checkArray<N extends DTypeName>(a: unknown, name: string, action: string, dtypeNames: readonly N[], deviceId: number): DeviceArray<N> {
  if (!(a instanceof DeviceArray)) throw new TypeError(`${action}: ${name} must be a DeviceArray, not ${describeValue(a)}`);
  if (a.isClosed) throw new ClosedError(`${name} (a DeviceArray)`, action);
  if (!(dtypeNames as readonly string[]).includes(a.dtype.name)) {
    throw new DTypeError(`${action}: ${name} is ${a.dtype.name} but must be ${listOf(dtypeNames)}; convert it or allocate one of those`);
  }
  if (!a.isContiguous) {
    throw new ArrayLayoutError(`${action}: ${name} (shape [${a.shape.join(", ")}], strides [${a.strides.join(", ")}]) is not contiguous; pass a contiguous array (array.copy({ stream }) makes one)`);
  }
  const dev = memoryDevice(a);
  if (dev >= 0 && dev !== deviceId) refuseWrongDevice(`${action}: ${name}`, deviceId, dev, `copy the array to device ${deviceId} first`);
  return a as DeviceArray<N>;
}

/** Checks that `a` has the dtype of `like` (named in the message). */
export function checkSameDtype(a: DeviceArray, name: string, like: DeviceArray, likeName: string, action: string): void {
  if (a.dtype !== like.dtype) {
    throw new DTypeError(`${action}: ${name} is ${a.dtype.name} but ${likeName} is ${like.dtype.name}; both must have one dtype`);
  }
}

/** "a, b or c". */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

/** The address of an array's element 0 as a pointer argument. */
export function pointerOf(a: DeviceArray): Pointer {
  return ffi.pointerFromAddress(a.address);
}
