/**
 * GPU architecture names for the compilers and linkers (`sm_90`, `sm_90a`, `sm_100f`, `compute_90`), and the
 * default architecture: the current device's, which needs a CUDA driver and a GPU. Without them an explicit
 * `arch` is required, and the error says so.
 *
 * @module
 */
import { deviceOf } from "../base/hub.ts";
import { describeValue } from "../../errors/describe.ts";
import { MissingArchError } from "./errors.ts";

const ARCH = /^(sm|compute|lto)_(\d{2,3})([af]?)$/;

/** Validates an `arch` option; returns it unchanged. */
export function checkArch(owner: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    throw new TypeError(`${owner}.arch: expected a string such as "sm_90" or "compute_90", got ${describeValue(value)}`);
  }
  if (!ARCH.test(value)) {
    throw new RangeError(
      `${owner}.arch: expected sm_<cc> (a real GPU, for cubin), compute_<cc> (a virtual one, for PTX) or lto_<cc>, ` +
        `with an optional a/f suffix (sm_90a, sm_100f), got ${describeValue(value)}`,
    );
  }
  return value;
}

/** The numeric part and suffix of an arch (`sm_90a` → `90a`). */
export function archNumber(arch: string): string {
  const m = ARCH.exec(arch);
  if (m === null) throw new RangeError(`not an architecture name: ${describeValue(arch)}`);
  return `${m[2]}${m[3]}`;
}

/** Whether an arch names a real GPU (`sm_*`), which a cubin needs. */
export function isRealArch(arch: string): boolean {
  return arch.startsWith("sm_");
}

/**
 * `sm_<cc>` of the current device (device 0 when no context is current), asked each time (the current device may
 * change); throws {@link MissingArchError} without a driver or a GPU.
 */
export function defaultArch(owner: string): string {
  try {
    return `sm_${deviceOf().arch}`;
  } catch (e) {
    throw new MissingArchError(owner, e);
  }
}
