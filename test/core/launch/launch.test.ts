/**
 * LaunchConfig is a plain value: made and compared without a GPU (what the device must support is checked when it
 * is launched, against the stream's device), and launch() refuses what is not a stream or a config before any
 * driver call.
 */
import { describe, expect, it } from "vitest";
import { LaunchConfig, LaunchConfigError, launch, type Kernel, type Stream } from "../../../src/core/index.ts";

describe("LaunchConfig", () => {
  it("is a plain value: its five fields and nothing native, made without a device", () => {
    const c = new LaunchConfig({ grid: [2, 3], block: 128, cluster: 2, sharedMemory: 1024, cooperative: true });
    expect(Object.keys(c).sort()).toEqual(["block", "cluster", "cooperative", "grid", "sharedMemory"]);
    expect(c.grid).toEqual([2, 3, 1]);
    expect(c.block).toEqual([128, 1, 1]);
    expect(c.cluster).toEqual([2, 1, 1]);
    expect(Object.isFrozen(c.grid)).toBe(true);
    expect(c.threadsPerBlock).toBe(128);
    expect(c.totalBlocks).toBe(12);
    for (const internal of ["pointer", "dims", "hasAttributes", "setStream"]) expect(internal in c).toBe(false);
  });

  it("compares by value", () => {
    const a = new LaunchConfig({ grid: 4, block: [32, 4] });
    expect(a.equals(new LaunchConfig({ grid: [4, 1, 1], block: [32, 4, 1] }))).toBe(true);
    expect(a.equals(new LaunchConfig({ grid: 4, block: [32, 4], sharedMemory: 8 }))).toBe(false);
    expect(a.equals(new LaunchConfig({ grid: 4, block: [32, 4], cooperative: true }))).toBe(false);
  });

  it("refuses a bad shape with LaunchConfigError, saying what it takes", () => {
    expect(() => new LaunchConfig({ grid: 0, block: 1 })).toThrow(/LaunchConfig.grid values must be integers ≥ 1, not 0/);
    expect(() => new LaunchConfig({ grid: [1, 2, 3, 4] as never, block: 1 })).toThrow(/a number or a tuple of 1 to 3 numbers/);
    expect(() => new LaunchConfig({ grid: 1, block: 1.5 })).toThrow(LaunchConfigError);
    expect(() => new LaunchConfig({ grid: 1, block: 1, sharedMemory: -1 })).toThrow(/sharedMemory must be a non-negative integer number of bytes, not -1/);
    expect(() => new LaunchConfig({ grid: 1, block: 1, cooperative: "yes" as never })).toThrow(/cooperative must be a boolean, not string/);
    expect(() => new LaunchConfig(null as never)).toThrow(/takes an options object/);
  });
});

describe("launch() arguments", () => {
  const kernel = {} as Kernel;
  it("refuses what is not a stream or a LaunchConfig before any driver call", () => {
    const config = new LaunchConfig({ grid: 1, block: 1 });
    expect(() => launch(null as unknown as Stream, config, kernel)).toThrow(/the first argument must be a Stream \(or a GraphBuilder\), not null/);
    expect(() => launch({} as Stream, config, kernel)).toThrow(TypeError);
  });
});
