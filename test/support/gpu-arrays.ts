/**
 * What the array GPU suites share: the stream their arrays live on (made before the suite's tests where there is a
 * GPU, closed after) and the read-backs their expectations compare with NumPy's literals.
 */
import { afterAll, beforeAll } from "vitest";
import { Device, type DeviceArray, type Stream } from "../../src/index.ts";
import { decodeElement } from "../../src/core/array/ops/host.ts";
import { gpu } from "./gpu.ts";

/**
 * Registers, in the calling `describe`, hooks that make device 0 current and a stream on it before the suite's tests
 * (where there is a GPU) and close the stream after; `set` receives them.
 */
export function onGpuStream(set: (stream: Stream, device: Device) => void): void {
  let stream: Stream | undefined;
  beforeAll(() => {
    if (!gpu.available) return;
    const device = new Device(0);
    device.setCurrent();
    stream = device.createStream();
    set(stream, device);
  });
  afterAll(() => {
    stream?.close();
  });
}

/** The elements of a typed array as numbers (bigints converted). */
export const nums = (a: ArrayLike<number | bigint>): number[] => Array.from(a as ArrayLike<number>, (v) => Number(v));

/** 0, 1, ..., n - 1. */
export const iota = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** dtype, shape and elements (row-major) of an array, read back. */
export const read = (a: DeviceArray): [string, number[], number[]] => [a.dtype.name, [...a.shape], nums(a.toTypedArraySync())];

/** One element as a test compares it: a number (int64 too), a boolean, or a complex number's [re, im]. */
export type ElementValue = number | boolean | readonly [number, number];

/**
 * dtype, shape and elements (row-major; int64 as numbers, complex as [re, im], float16 decoded, bool as booleans) of
 * `x`, read on `stream`; `x` stays open (see {@link readDecoded}).
 */
export function peekDecoded(x: DeviceArray, stream: Stream): [string, number[], ElementValue[]] {
  const host = x.toTypedArraySync({ stream });
  const values = Array.from({ length: x.size }, (_, j) => {
    const v = decodeElement(x.dtype, host, j);
    return typeof v === "bigint" ? Number(v) : v;
  });
  return [x.dtype.name, [...x.shape], values];
}

/** As {@link peekDecoded}; then `x` is closed. */
export function readDecoded(x: DeviceArray, stream: Stream): [string, number[], ElementValue[]] {
  try {
    return peekDecoded(x, stream);
  } finally {
    x.close();
  }
}
