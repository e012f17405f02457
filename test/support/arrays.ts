/**
 * Small helpers the array GPU tests share: a seeded uniform sequence, and reading an array back as numbers.
 */
import type { DeviceArray } from "../../src/index.ts";
import type { Stream } from "../../src/index.ts";
import { seeded } from "../math/reference.ts";

/** A deterministic xorshift sequence of uniform numbers in [0, 1) from `seed` (reference.ts's, rescaled exactly). */
export function seededUniform(seed: number): () => number {
  const next = seeded(seed);
  return () => (next() + 1) / 2;
}

/** The elements of a typed array as numbers (bigints converted, bool as 0 and 1). */
export function numbers(a: ArrayLike<number | bigint>): number[] {
  return Array.from(a, (x) => Number(x));
}

/** The elements of `x` as numbers, read on `stream` (waiting for it), then `x` closed. */
export function readAndClose(x: DeviceArray, stream: Stream): number[] {
  try {
    return numbers(x.toTypedArraySync({ stream }) as ArrayLike<number | bigint>);
  } finally {
    x.close();
  }
}
