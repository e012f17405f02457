/**
 * Whether the process has seen a sticky fault (src/bindings/driver-fault.ts): after one, closing an object releases
 * nothing and does not throw, and finalizers release nothing (the driver's resources went with the context).
 *
 * @module
 */
import { processFault } from "../../bindings/driver-fault.ts";

/** Whether a sticky fault has ended CUDA in this process. */
export function faulted(): boolean {
  return processFault() !== undefined;
}
