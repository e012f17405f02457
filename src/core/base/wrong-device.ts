/**
 * The one way a call refuses something of another device than the one it works on: every such refusal is a
 * {@link DeviceMismatchError} naming what came, both devices and what to do, so they read the same everywhere.
 *
 * @module
 */
import { DeviceMismatchError } from "../../errors/base.ts";

/**
 * Throws a {@link DeviceMismatchError} when `actual` is not `expected`; returns otherwise. On a hot path, build
 * `what` only on a mismatch: `if (dev !== id) refuseWrongDevice(\`${name}: ${param}\`, id, dev)`.
 *
 * @param what - what came, with the call (`"Blas.setStream: the stream"`, `"axpy: x"`).
 * @param expected - the ordinal of the device the call works on.
 * @param actual - the ordinal of the device of what came.
 * @param advice - what to do (default: copy it to the expected device, or use objects of its own device).
 */
export function refuseWrongDevice(what: string, expected: number, actual: number, advice?: string): void {
  if (actual !== expected) throw new DeviceMismatchError(what, expected, actual, advice);
}
