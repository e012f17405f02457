/**
 * Types that do not lie: the entry points typed by the CUDA 12.4 tables reject at compile time what 12.4 lacks
 * (checked by `npm run typecheck`, which type-checks this file under tsc and Deno: each `@ts-expect-error` fails the
 * type check if its line does compile), and are the same binding objects at run time.
 */
import { describe, expect, it } from "vitest";
import { driver as driver12, type CUcontext, type CUevent } from "../../src/bindings/cuda-12.4/driver.ts";
import { runtime as runtime12, type cudaDeviceProp as Prop12 } from "../../src/bindings/cuda-12.4/runtime.ts";
import { driver } from "../../src/bindings/driver-entry.ts";
import { runtime, type cudaDeviceProp as Prop13 } from "../../src/bindings/runtime.ts";
import { driver as driver13 } from "../../src/bindings/cuda-13.0/driver.ts";

/** Never called: only type-checked. */
export function typeOnly(ctx: CUcontext, event: CUevent, p12: Prop12, p13: Prop13): unknown[] {
  return [
    // @ts-expect-error cuCtxRecordEvent is CUDA 13.0's (12.5+), not in the 12.4 table
    driver12.cuCtxRecordEvent(ctx, event),
    driver13.cuCtxRecordEvent(ctx, event),
    driver.cuCtxRecordEvent(ctx, event),
    // @ts-expect-error cudaDeviceGetHostAtomicCapabilities is 13.0's
    runtime12.raw.cudaDeviceGetHostAtomicCapabilities,
    // cudaDeviceProp.clockRate exists in 12.4's layout, not in 13.0's
    p12.clockRate,
    // @ts-expect-error clockRate was removed from cudaDeviceProp in CUDA 13.0
    p13.clockRate,
  ];
}

describe("per-version entry points", () => {
  it("are the same bindings as the default entry points", () => {
    expect(driver12).toBe(driver);
    expect(driver13).toBe(driver);
    expect(runtime12).toBe(runtime);
    expect(typeof typeOnly).toBe("function");
  });
});
