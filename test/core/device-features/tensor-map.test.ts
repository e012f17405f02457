/**
 * Tensor maps without a GPU: every check that must come before the driver (rank, dtype, alignment of the address
 * and strides, a box that does not fit, swizzle span, option names), and launch's by-value argument kind checked
 * against the kernel's parameter size.
 */
import { describe, expect, it } from "vitest";
import {
  Buffer,
  ByValueArgument,
  ClosedError,
  DeviceArray,
  LaunchArgumentError,
  TensorMapError,
  type Kernel,
} from "../../../src/index.ts";
import { TensorMap, type TiledTensorMapOptions } from "../../../src/tensor-map.ts";
import { packArguments } from "../../../src/core/launch/launch.ts";
import { kArgumentSize, kDescribeArgument, kWriteValue } from "../../../src/core/launch/by-value-argument.ts";
import { kArgumentPlan, type ArgumentPlan } from "../../../src/core/launch/kernel.ts";
import { ffi } from "../../../src/ffi/index.ts";

const BASE = 0x7f00_0000_0000n;

function array(shape: number[], dtype: "float32" | "uint8" | "complex64" | "float16" | "int32" = "float32", byteOffset = 0, size = 1 << 22): DeviceArray {
  return DeviceArray.fromBuffer(Buffer.fromHandle(BASE, size, { owner: {} }), { dtype, shape, byteOffset });
}

function refusal(fn: () => unknown): TensorMapError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(TensorMapError);
    return e as TensorMapError;
  }
  throw new Error("expected TensorMapError, nothing was thrown");
}

describe("TensorMap.tiled checks before the driver", () => {
  const ok: TiledTensorMapOptions = { box: [16, 16] };
  it("refuses a box extent over 256 or under 1, and a box of the wrong rank", () => {
    expect(refusal(() => TensorMap.tiled(array([1024, 1024]), { box: [512, 16] })).message).toMatch(/box entries must be integers in 1\.\.256/);
    expect(refusal(() => TensorMap.tiled(array([64, 64]), { box: [0, 16] })).message).toMatch(/1\.\.256/);
    expect(refusal(() => TensorMap.tiled(array([64, 64]), { box: [16] })).message).toMatch(/box must be an array of 2 integers/);
  });
  it("refuses an inner box row that is not a multiple of 16 bytes, or wider than the swizzle", () => {
    expect(refusal(() => TensorMap.tiled(array([64, 64]), { box: [16, 3] })).message).toMatch(/12 bytes is not a multiple of 16 bytes \(make it a multiple of 4 elements\)/);
    expect(refusal(() => TensorMap.tiled(array([64, 64]), { box: [16, 64], swizzle: "128B" })).message).toMatch(/swizzle "128B" allows an inner box row of at most 128 bytes; the box's is 256/);
  });
  it("refuses ranks outside 1..5 and dtypes without a tensor-map type", () => {
    expect(refusal(() => TensorMap.tiled(array([2, 2, 2, 2, 2, 16]), { box: [1, 1, 1, 1, 1, 4] })).message).toMatch(/6 axes; a tensor map has 1 to 5/);
    expect(refusal(() => TensorMap.tiled(array([64, 64], "complex64"), ok)).message).toMatch(/complex64 array has no tensor-map data type; view it as a real type \(array\.view\("float32"\)\)/);
    expect(refusal(() => TensorMap.tiled(array([64, 64]), { ...ok, dataType: "float16" })).message).toMatch(/2-byte elements but the array's float32 has 4/);
  });
  it("refuses a misaligned address and strides that are not multiples of 16 bytes", () => {
    expect(refusal(() => TensorMap.tiled(array([64, 64], "float32", 4), ok)).message).toMatch(/address 0x7f0000000004 is not a multiple of 16 bytes/);
    expect(refusal(() => TensorMap.tiled(array([64, 63]), { box: [16, 16] })).message).toMatch(/positive multiple of 16 bytes below 2\^40; this array's byte strides are \[252, 4\]/);
    expect(refusal(() => TensorMap.tiled(array([64, 64]).T, ok)).message).toMatch(/innermost axis must be contiguous/);
  });
  it("refuses unknown option names, listing the choices, and NaN fill on integers", () => {
    expect(refusal(() => TensorMap.tiled(array([64, 64]), { ...ok, swizzle: "256B" as never })).message).toMatch(/swizzle must be one of "none", "32B", "64B", "128B"/);
    expect(refusal(() => TensorMap.tiled(array([64, 64]), { ...ok, l2Promotion: "huge" as never })).message).toMatch(/l2Promotion must be one of/);
    expect(refusal(() => TensorMap.tiled(array([64, 64], "int32"), { ...ok, oobFill: "nan" })).message).toMatch(/oobFill "nan" needs a floating-point data type/);
    expect(refusal(() => TensorMap.tiled(array([64, 64]), { ...ok, interleave: "16B" })).message).toMatch(/interleave "16B" needs an array of rank 3 or more/);
    expect(refusal(() => TensorMap.tiled(array([64, 64]), { ...ok, elementStrides: [1, 9] })).message).toMatch(/elementStrides entries must be integers in 1\.\.8/);
  });
  it("refuses a closed array with ClosedError", () => {
    const a = array([64, 64]);
    a.close();
    expect(() => TensorMap.tiled(a, ok)).toThrow(ClosedError);
  });
});

describe("TensorMap.im2col checks before the driver", () => {
  it("needs rank 3..5, corners per spatial axis in range, channels and pixels in range", () => {
    expect(refusal(() => TensorMap.im2col(array([64, 64]), { pixelBoxLowerCorner: [], pixelBoxUpperCorner: [], channelsPerPixel: 4, pixelsPerColumn: 4 })).message).toMatch(/2 axes; a tensor map has 3 to 5/);
    const nhwc = array([2, 8, 8, 16]);
    expect(refusal(() => TensorMap.im2col(nhwc, { pixelBoxLowerCorner: [0], pixelBoxUpperCorner: [0, 0], channelsPerPixel: 16, pixelsPerColumn: 64 })).message).toMatch(/pixelBoxLowerCorner must be an array of 2/);
    expect(refusal(() => TensorMap.im2col(nhwc, { pixelBoxLowerCorner: [-200, 0], pixelBoxUpperCorner: [0, 0], channelsPerPixel: 16, pixelsPerColumn: 64 })).message).toMatch(/-128\.\.127/);
    expect(refusal(() => TensorMap.im2col(nhwc, { pixelBoxLowerCorner: [0, 0], pixelBoxUpperCorner: [0, 0], channelsPerPixel: 300, pixelsPerColumn: 64 })).message).toMatch(/channelsPerPixel must be an integer 1\.\.256/);
    expect(refusal(() => TensorMap.im2col(nhwc, { pixelBoxLowerCorner: [0, 0], pixelBoxUpperCorner: [0, 0], channelsPerPixel: 16, pixelsPerColumn: 2000 })).message).toMatch(/pixelsPerColumn must be an integer 1\.\.1024/);
  });
});

/** A stand-in by-value argument (what a TensorMap is to launch). */
class Bytes128 extends ByValueArgument {
  constructor(readonly fill: number) {
    super();
  }
  get [kArgumentSize](): number {
    return 128;
  }
  [kWriteValue](dv: DataView, offset: number): void {
    for (let i = 0; i < 128; i++) dv.setUint8(offset + i, this.fill);
  }
  [kDescribeArgument](): string {
    return "a 2D float32 TensorMap (tiled, box [16, 16])";
  }
}

function fakeKernel(sizes: number[]): Kernel {
  let offset = 0;
  const info = sizes.map((size) => {
    offset = Math.ceil(offset / Math.min(size, 64)) * Math.min(size, 64);
    const r = { offset, size };
    offset += size;
    return r;
  });
  const values = new ArrayBuffer(Math.max(8, Math.ceil(offset / 8) * 8));
  const table = new ArrayBuffer(Math.max(8, info.length * 8));
  const base = ffi.pointerOf(values);
  info.forEach((p, i) => ffi.writePointer(new DataView(table), i * 8, p.offset === 0 ? base : ffi.offsetPointer(base, p.offset)));
  const plan: ArgumentPlan = {
    params: info,
    types: sizes.map(() => undefined),
    values: new DataView(values),
    pointers: ffi.pointerOf(table),
    offsets: Int32Array.from(info, (p) => p.offset),
    sizes: Int32Array.from(info, (p) => p.size),
    keep: [values, table],
    packed: undefined,
    packedEpoch: -1,
    spread: new Array<unknown>(info.length).fill(undefined),
  };
  return { name: "tma_kernel", [kArgumentPlan]: () => plan } as unknown as Kernel;
}

describe("launch passes a by-value argument (a tensor map)", () => {
  it("writes its 128 bytes at the parameter's offset, every launch", () => {
    const k = fakeKernel([128, 8]);
    const map = new Bytes128(0xab);
    const plan = packArguments(k, [map, 7n]);
    expect([...new Uint8Array(plan.values.buffer, 0, 128)].every((b) => b === 0xab)).toBe(true);
    expect(plan.values.getBigUint64(128, true)).toBe(7n);
    const again = packArguments(k, [new Bytes128(0xcd), 7n]);
    expect(again.values.getUint8(127)).toBe(0xcd);
  });
  it("refuses a parameter of another size, naming __grid_constant__", () => {
    expect(() => packArguments(fakeKernel([8]), [new Bytes128(1)])).toThrow(LaunchArgumentError);
    expect(() => packArguments(fakeKernel([8]), [new Bytes128(1)])).toThrow(/a 2D float32 TensorMap \(tiled, box \[16, 16\]\) is 128 bytes but the parameter is 8 bytes; a tensor map is taken by value: declare the parameter `const __grid_constant__ CUtensorMap`/);
  });
});
