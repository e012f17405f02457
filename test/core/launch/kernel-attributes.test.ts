/**
 * Kernel.setAttribute and kernel.declare({ pointer }) check their arguments before any driver call (a stand-in
 * kernel handle that nothing reads), and LaunchConfig's native struct serves the cluster occupancy queries.
 */
import { describe, expect, it } from "vitest";
import {
  DEFAULT_DYNAMIC_SHARED_MEMORY,
  Kernel,
  LaunchArgumentError,
  LaunchConfig,
  LaunchConfigError,
} from "../../../src/index.ts";
import { launchConfigPointer } from "../../../src/core/launch/launch.ts";
import { INTERNAL } from "../../../src/core/base/internal.ts";
import type { CUkernel } from "../../../src/bindings/driver.ts";
import { CUlaunchConfig_st } from "../../../src/bindings/driver.ts";
import { ffi } from "../../../src/ffi/index.ts";

const fake = (): Kernel => new Kernel(INTERNAL, ffi.pointerFromAddress(0x1000) as unknown as CUkernel, undefined, "k", "k");

describe("Kernel.setAttribute", () => {
  it("refuses unknown attributes and out-of-range values with LaunchArgumentError before the driver", () => {
    const k = fake();
    expect(() => k.setAttribute("numRegs" as never, 1 as never)).toThrow(LaunchArgumentError);
    expect(() => k.setAttribute("numRegs" as never, 1 as never)).toThrow(/expected one of maxDynamicSharedSizeBytes, preferredSharedMemoryCarveout/);
    expect(() => k.setAttribute("maxDynamicSharedSizeBytes", 1.5)).toThrow(/expected an integer, got 1.5/);
    expect(() => k.setAttribute("maxDynamicSharedSizeBytes", -2)).toThrow(LaunchArgumentError);
    expect(() => k.setAttribute("preferredSharedMemoryCarveout", 101)).toThrow(/a percentage 0-100 \(or -1\), got 101/);
    expect(() => k.setAttribute("nonPortableClusterSizeAllowed", "yes" as never)).toThrow(/an integer or a boolean/);
  });

  it("the 48 KiB default below which launches need no attribute", () => {
    expect(DEFAULT_DYNAMIC_SHARED_MEMORY).toBe(49152);
  });
});

describe("cluster occupancy queries", () => {
  it("hand the driver the configuration's CUlaunchConfig, grid in blocks and the cluster attribute", () => {
    const c = new LaunchConfig({ grid: 4, block: 128, cluster: 2, sharedMemory: 1024 });
    const p = launchConfigPointer(c);
    expect(launchConfigPointer(c)).toBe(p);
    const native = new CUlaunchConfig_st(ffi.view(p, CUlaunchConfig_st.$size));
    expect([native.gridDimX, native.blockDimX, native.sharedMemBytes, native.numAttrs]).toEqual([8, 128, 1024, 1]);
    expect(() => launchConfigPointer({} as LaunchConfig)).toThrow(/expected a LaunchConfig/);
    expect(() => fake().occupancy({ id: 0 } as never).maxActiveClusters(new LaunchConfig({ grid: 1, block: 32 }))).toThrow(LaunchConfigError);
  });
});
