/**
 * LaunchConfig is a plain value: made and compared without a GPU (what the device must support is checked when it
 * is launched, against the stream's device), and launch() refuses what is not a stream or a config before any
 * driver call.
 */
import { describe, expect, it } from "vitest";
import {
  ArgumentError,
  Buffer,
  ClosedError,
  LaunchArgumentError,
  LaunchConfig,
  LaunchConfigError,
  Stream,
  i32,
  i64,
  launch,
  u32,
  type Kernel,
  type ParamType,
} from "../../../src/index.ts";
import { packArguments } from "../../../src/core/launch/launch.ts";
import { kArgumentPlan, type ArgumentPlan } from "../../../src/core/launch/kernel.ts";
import type { CUdeviceptr } from "../../../src/bindings/driver.ts";
import { ffi } from "../../../src/ffi/index.ts";

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
    expect(() => launch({} as Stream, config, kernel)).toThrow(ArgumentError);
  });

  it("refuses a third argument that is not a Kernel, naming what came", () => {
    const config = new LaunchConfig({ grid: 1, block: 1 });
    const stream = Object.create(Stream.prototype) as Stream; // passes the stream check; nothing of it is touched
    expect(() => launch(stream, config, kernel)).toThrow(/the third argument must be a Kernel \(objectCode\.getKernel\(name\)\), not/);
    expect(() => launch(stream, config, null as unknown as Kernel, i32(1))).toThrow(/the third argument must be a Kernel.*not null/);
  });
});

/** A stand-in Kernel with the argument memory a real one has (no driver needed): parameters of the given sizes. */
function fakeKernel(params: readonly { size: number; type?: ParamType }[]): Kernel {
  let offset = 0;
  const info = params.map((p) => {
    offset = Math.ceil(offset / p.size) * p.size;
    const r = { offset, size: p.size };
    offset += p.size;
    return r;
  });
  const values = new ArrayBuffer(Math.max(8, Math.ceil(offset / 8) * 8));
  const table = new ArrayBuffer(Math.max(8, info.length * 8));
  const base = ffi.pointerOf(values);
  info.forEach((p, i) => ffi.writePointer(new DataView(table), i * 8, p.offset === 0 ? base : ffi.offsetPointer(base, p.offset)));
  const plan: ArgumentPlan = {
    params: info,
    types: params.map((p) => p.type),
    values: new DataView(values),
    pointers: ffi.pointerOf(table),
    offsets: Int32Array.from(info, (p) => p.offset),
    sizes: Int32Array.from(info, (p) => p.size),
    keep: [values, table],
    packed: undefined,
    packedEpoch: -1,
    spread: new Array<unknown>(info.length).fill(undefined),
  };
  return { name: "fake", [kArgumentPlan]: () => plan } as unknown as Kernel;
}

describe("argument packing", () => {
  it("writes each argument at its parameter, and again only what changed since", () => {
    const k = fakeKernel([{ size: 4 }, { size: 8 }, { size: 4, type: { kind: "scalar", scalar: "f32" } }, { size: 2 }]);
    const n = i32(7);
    const buf = Buffer.fromHandle(0x1234_5678_9abcn as CUdeviceptr, 64, { owner: {} });
    const bytes = new Uint8Array([1, 2]);
    const args: unknown[] = [n, buf, 1.5, bytes];
    const dv = packArguments(k, args).values;
    const read = (): unknown[] => [dv.getInt32(0, true), dv.getBigUint64(8, true), dv.getFloat32(16, true), dv.getUint16(20, true)];
    expect(read()).toEqual([7, 0x1234_5678_9abcn, 1.5, 0x0201]);
    n.value = 9; // a scalar set in place
    bytes[0] = 3; // bytes changed in place
    packArguments(k, args);
    expect(read()).toEqual([9, 0x1234_5678_9abcn, 1.5, 0x0203]);
    args[0] = u32(11); // another object at the same place
    args[2] = -0; // 0 and -0 compare equal but are different bytes
    packArguments(k, args);
    expect(read()[0]).toBe(11);
    expect(Object.is(dv.getFloat32(16, true), -0)).toBe(true);
    args[2] = 0;
    packArguments(k, args);
    expect(Object.is(dv.getFloat32(16, true), 0)).toBe(true);
  });

  it("refuses a buffer closed since it was last packed", () => {
    const k = fakeKernel([{ size: 8 }]);
    const buf = Buffer.fromHandle(0x1000n as CUdeviceptr, 8, { owner: {} });
    const args = [buf];
    packArguments(k, args);
    buf.close();
    expect(() => packArguments(k, args)).toThrow(ClosedError);
  });

  it("packs again after a packing that failed", () => {
    const k = fakeKernel([{ size: 4 }, { size: 4 }]);
    const a = i32(1);
    packArguments(k, [a, i32(2)]);
    expect(() => packArguments(k, [a, i64(3n)])).toThrow(LaunchArgumentError);
    const dv = packArguments(k, [a, i32(4)]).values;
    expect([dv.getInt32(0, true), dv.getInt32(4, true)]).toEqual([1, 4]);
  });
});
